"""The position ids the backgammon field prints (short nardy): eXtreme Gammon's XGID and GNU
Backgammon's Match ID beside its Position ID, read and written with everything they carry.

A :class:`MatchState` is a position with its context: the dice, the cube (C1, C2), an offer
waiting for its answer, the match's length and score (C6), the Crawford game (C7) and, in
money play, the Jacoby rule (C8). fastnardy's white is the player both programs draw at the
bottom: XGID's upper-case checkers, gnubg's player 1 (as ``fastnardy serve`` plays it).

**XGID** (``XGID=`` then ten fields joined by ``:``):

1. the board, 26 characters: the first black's bar, then white's points 1-24 (each black's
   point 25 minus it), then white's bar; ``-`` an empty point, ``A``-``O`` 1-15 white
   checkers, ``a``-``o`` 1-15 black ones;
2. the cube, as its power of 2;
3. its owner: 1 white, -1 black, 0 centred;
4. the side on roll: 1 white, -1 black;
5. the dice: ``00`` before the roll, or the two dice thrown (``52``). ``D`` (an offer
   awaiting its answer), ``B`` and ``R`` (beavers) are refused: GNU Backgammon 1.07 reads
   ``D`` as no offer, and which side the turn field names with it is not settled here, so
   an offer travels in GNU Backgammon's ids, whose Match ID holds it exactly;
6. white's score;
7. black's score;
8. in a match 1 for the Crawford game, in money play 1 for the Jacoby rule (2 adds
   beavers, which fastnardy does not play);
9. the match's length (0: money play);
10. the largest cube, as its power of 2.

**GNU Backgammon's ids** ``POSITION:MATCH``: the Position ID of the side on roll
(:meth:`fastnardy.Position.gnubg_id`) and the Match ID, 66 bits in 12 base-64 characters
(gnubg's manual, "A technical description of the Match ID"): the cube's power of 2, its owner
(3 centred), the player on roll, the Crawford flag, the game's state (1: playing), the
player to decide, the offer flag, a resignation (0), the dice, the length and the scores,
player 0 (black) first.

Whatever does not read, or reads to a state the rules do not allow (T7, C2, C6, C7), raises
:class:`fastnardy.errors.InvalidPositionError` naming the field.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import List, NamedTuple, Optional, Tuple

from .. import checks
from .._kernel import dice_pair
from ..basics import BLACK, WHITE, Roll
from ..errors import FastNardyError, InvalidPositionError, shown
from ..position import Position
from ..rules import MAX_STAKE, SHORT, Rules
from ..search.cubeful import Cube

__all__ = ["MatchState", "read_gnubg_ids", "read_xgid", "write_gnubg_ids", "write_xgid",
           "is_id"]

#: The largest cube both ids hold: 2 to the 15th (gnubg's four bits).
MAX_CUBE_POWER = 15
#: The largest cube an XGID written here allows (its tenth field), as XG writes it.
WRITTEN_MAX_CUBE_POWER = 10

_XGID = re.compile(r"XGID=([-A-Oa-o]{26}):(\d{1,2}):(-?\d):(-?\d):(00|D|B|R|[1-6]{2}):"
                   r"(\d{1,5}):(\d{1,5}):(\d):(\d{1,5}):(\d{1,2})")
_GNUBG_IDS = re.compile(r"([A-Za-z0-9+/]{14}):([A-Za-z0-9+/]{12})")


class MatchState(NamedTuple):
    """A short-nardy position in its context (module docstring). ``position.turn`` is the
    side on roll: the one whose ``dice`` are thrown (None before the roll) or whose offer
    awaits the other's answer (``doubled``). ``cube`` the stake's value, ``owner`` the side
    that holds it (None: centred), ``length`` 0 in money play, ``score`` (white's, black's)."""

    position: Position
    dice: Optional[Roll] = None
    cube: int = 1
    owner: Optional[str] = None
    doubled: bool = False
    length: int = 0
    score: Tuple[int, int] = (0, 0)
    crawford: bool = False
    jacoby: bool = False

    @classmethod
    def of(cls, position: Position, cube: Optional[Cube] = None,
           dice: Optional[Roll] = None) -> "MatchState":
        """The state of ``position`` under ``cube`` (the side on roll's view, as the
        evaluations take it; None: money play at 1) with ``dice`` thrown: the inverse of
        :meth:`cube_context`."""
        position = checks.position(position, Position)
        cube = Cube.of(cube, position.rules)
        mover = position.turn
        other = BLACK if mover == WHITE else WHITE
        mine, theirs = cube.score
        return cls(position, dice, cube.value,
                   {"centered": None, "mover": mover, "opponent": other}[cube.owner], False,
                   cube.length, (mine, theirs) if mover == WHITE else (theirs, mine),
                   cube.crawford, cube.jacoby).checked()

    def checked(self) -> "MatchState":
        """This state, if the rules allow it (T7, C1-C3, C6-C8: the cube's checks are
        :meth:`fastnardy.search.cubeful.Cube.of`'s); else InvalidPositionError naming what
        does not fit."""
        try:
            return self._checked()
        except InvalidPositionError:
            raise
        except FastNardyError as error:  # a field's own check (the cube's: Cube.of)
            raise InvalidPositionError(str(error)) from None

    def _checked(self) -> "MatchState":
        position = checks.position(self.position, Position)
        if position.rules.game != SHORT:
            raise InvalidPositionError(f"a match state holds a short-nardy Position, not "
                                       f"{position!r}")
        if position.is_game_over():
            raise InvalidPositionError("the game is over: an id holds a game being played")
        score = checks.bounded(self.score, 2)
        if score is None or len(score) != 2:
            raise InvalidPositionError(f"score is (white's, black's), not {self.score!r}")
        state = self._replace(
            score=(checks.number(score[0], "white's score", 0),
                   checks.number(score[1], "black's score", 0)),
            length=checks.number(self.length, "match length", 0),
            dice=None if self.dice is None else dice_pair(self.dice),
            cube=checks.number(self.cube, "cube", 1, MAX_STAKE),
            doubled=checks.flag(self.doubled, "doubled"),
            crawford=checks.flag(self.crawford, "crawford"),
            jacoby=checks.flag(self.jacoby, "jacoby"))
        if not (self.owner is None or isinstance(self.owner, str)) \
                or state.owner not in (None, WHITE, BLACK) \
                or (state.owner is None) != (state.cube == 1):
            raise InvalidPositionError(f"C2: the cube is centred at 1 and owned by white or "
                                       f"black above it, not {state.cube} owned by "
                                       f"{state.owner!r}")
        if state.doubled and (state.dice is not None or state.crawford
                              or state.owner not in (None, position.turn)):
            raise InvalidPositionError("C2: an offer comes before the roll, from a side that "
                                       "may double")
        if state.doubled and 2 * state.cube > MAX_STAKE:
            raise InvalidPositionError(f"C1: the stake never goes past {MAX_STAKE}: no offer "
                                       f"at {state.cube}")
        state.cube_context()
        return state

    def cube_context(self, rules: object = None) -> Cube:
        """The cube as the side on roll sees it (the evaluations' context), under ``rules``
        (the position's by default: its stakes, C3)."""
        mover = self.position.turn
        white, black = self.score
        return Cube.of(Cube.money(self.position.rules if rules is None else
                                  Rules.of(rules))._replace(
            value=self.cube, length=self.length, crawford=self.crawford,
            jacoby=self.jacoby, score=(white, black) if mover == WHITE else (black, white),
            owner="centered" if self.owner is None else
            "mover" if self.owner == mover else "opponent"))


def is_id(text: str) -> bool:
    """Whether ``text`` looks like an XGID or GNU Backgammon's ``POSITION:MATCH`` ids."""
    return isinstance(text, str) and (text.startswith("XGID=")
                                      or _GNUBG_IDS.fullmatch(text) is not None)


# --------------------------------------------------------------------------- XGID

def read_xgid(text: str) -> MatchState:
    """An XGID (module docstring) as a :class:`MatchState`."""
    if not isinstance(text, str):
        raise InvalidPositionError(f"an XGID is text, not {type(text).__name__}")
    match = _XGID.fullmatch(text.strip())
    if match is None:
        raise InvalidPositionError(f"an XGID is 'XGID=' then 26 board characters and nine "
                                   f"fields joined by ':', not {shown(text)}")
    board, power, owner, turn, dice, white, black, flags, length, most = match.groups()
    if dice in ("D", "B", "R"):
        raise InvalidPositionError(f"XGID: the dice field {dice!r} (an offer or a beaver "
                                   f"awaiting its answer) is not read; give the position "
                                   f"before the offer, or GNU Backgammon's ids")
    numbers = [int(x) for x in (power, owner, turn, white, black, flags, length, most)]
    power_n, owner_n, turn_n, white_n, black_n, flags_n, length_n, most_n = numbers
    if not 0 <= power_n <= most_n <= MAX_CUBE_POWER:
        raise InvalidPositionError(f"XGID: the cube's power of 2 is 0 to the largest cube's "
                                   f"({most}), which is at most {MAX_CUBE_POWER}; not {power}")
    if owner_n not in (-1, 0, 1) or turn_n not in (-1, 1):
        raise InvalidPositionError(f"XGID: the cube's owner is 1, -1 or 0 and the turn 1 or "
                                   f"-1, not {owner} and {turn}")
    if flags_n > (1 if length_n else 3) or flags_n & 2:
        raise InvalidPositionError(f"XGID: the eighth field is 1 for the Crawford game (or, "
                                   f"in money play, the Jacoby rule) or 0, not {flags}")
    white_points, black_points = [0] * 24, [0] * 24
    black_bar = _count(board[0], "black")
    white_bar = _count(board[25], "white")
    for index, char in enumerate(board[1:25], 1):
        if char.isupper():
            white_points[index - 1] = _count(char, "white")
        elif char.islower():
            black_points[24 - index] = _count(char, "black")
    side = WHITE if turn_n == 1 else BLACK
    try:
        position = Position.from_points(Rules.short(), white_points, black_points, side,
                                        white_bar, black_bar)
    except FastNardyError as error:
        raise InvalidPositionError(f"XGID: {error}") from None
    return MatchState(position, None if dice == "00" else (int(dice[0]), int(dice[1])),
                      1 << power_n, {0: None, 1: WHITE, -1: BLACK}[owner_n], False, length_n,
                      (white_n, black_n), bool(flags_n) and length_n > 0,
                      bool(flags_n) and length_n == 0).checked()


def _count(char: str, side: str) -> int:
    """A board character's checkers of ``side``: ``-`` none, else the letter's rank (1-15),
    upper case white's, lower case black's."""
    if char == "-":
        return 0
    if char.isupper() != (side == WHITE):
        raise InvalidPositionError(f"XGID: {char!r} is the other side's, where {side}'s bar "
                                   f"is")
    return ord(char.lower()) - ord("a") + 1


def write_xgid(state: MatchState) -> str:
    """The XGID of ``state`` (module docstring); not of an offer awaiting its answer."""
    state = _state(state)
    if state.doubled:
        raise InvalidPositionError("an XGID of an offer awaiting its answer is not written "
                                   "(module docstring): write GNU Backgammon's ids")
    position = state.position
    white, black = position.white_points, position.black_points
    board = [_char(position.black_bar, BLACK)]
    for index in range(1, 25):
        if white[index - 1]:
            board.append(_char(white[index - 1], WHITE))
        else:
            board.append(_char(black[24 - index], BLACK))
    board.append(_char(position.white_bar, WHITE))
    dice = "00" if state.dice is None else f"{state.dice[0]}{state.dice[1]}"
    owner = {None: 0, WHITE: 1, BLACK: -1}[state.owner]
    flags = int(state.crawford or state.jacoby)
    fields = ["".join(board), state.cube.bit_length() - 1, owner,
              1 if position.turn == WHITE else -1, dice, *state.score, flags, state.length,
              max(WRITTEN_MAX_CUBE_POWER, state.cube.bit_length() - 1)]
    return "XGID=" + ":".join(map(str, fields))


def _char(count: int, side: str) -> str:
    if not count:
        return "-"
    letter = chr(ord("a") + count - 1)
    return letter.upper() if side == WHITE else letter


# --------------------------------------------------------------------------- gnubg's ids

def read_gnubg_ids(text: str) -> MatchState:
    """GNU Backgammon's ``POSITION:MATCH`` ids (module docstring) as a
    :class:`MatchState`."""
    if not isinstance(text, str):
        raise InvalidPositionError(f"GNU Backgammon's ids are text, not {type(text).__name__}")
    match = _GNUBG_IDS.fullmatch(text.strip())
    if match is None:
        raise InvalidPositionError(f"GNU Backgammon's ids are a Position ID (14 characters), "
                                   f"':' and a Match ID (12), not {shown(text)}")
    pid, mid = match.groups()
    try:
        data = base64.b64decode(mid, validate=True)
    except binascii.Error:
        raise InvalidPositionError(f"Match ID {mid!r} is not base 64") from None
    bits = int.from_bytes(data, "little")

    def field(first: int, width: int) -> int:  # gnubg's bits first..first+width-1 (from 1)
        return (bits >> (first - 1)) & ((1 << width) - 1)

    power, owner, on_roll, crawford = field(1, 4), field(5, 2), field(7, 1), field(8, 1)
    state, deciding, doubled, resigned = field(9, 3), field(12, 1), field(13, 1), field(14, 2)
    dice, length = (field(16, 3), field(19, 3)), field(22, 15)
    black_score, white_score = field(37, 15), field(52, 15)
    if state != 1 or resigned:
        raise InvalidPositionError(f"Match ID {mid!r}: the game is not being played (state "
                                   f"{state}, resignation {resigned})")
    if owner == 2 or (deciding != on_roll) != bool(doubled):
        raise InvalidPositionError(f"Match ID {mid!r}: the cube's owner is 0, 1 or 3, and the "
                                   f"side to decide differs from the side on roll only "
                                   f"while an offer awaits its answer")
    if (dice[0] == 0) != (dice[1] == 0) or max(dice) > 6 or (doubled and dice[0]):
        raise InvalidPositionError(f"Match ID {mid!r}: the dice are 1-6 once thrown, none "
                                   f"before the roll or with an offer, not {dice}")
    side = WHITE if on_roll else BLACK
    try:
        position = Position.from_gnubg_id(pid, turn=side)
    except FastNardyError as error:
        raise InvalidPositionError(f"GNU Backgammon's ids: {error}") from None
    return MatchState(position, (dice[0], dice[1]) if dice[0] else None, 1 << power,
                      {3: None, 1: WHITE, 0: BLACK}[owner], bool(doubled), length,
                      (white_score, black_score), bool(crawford) and length > 0).checked()


def write_gnubg_ids(state: MatchState) -> str:
    """GNU Backgammon's ``POSITION:MATCH`` ids of ``state`` (module docstring)."""
    state = _state(state)
    on_roll = 1 if state.position.turn == WHITE else 0
    white, black = state.score
    values: List[Tuple[int, int]] = [  # (value, width), gnubg's bits from 1 on
        (state.cube.bit_length() - 1, 4), ({None: 3, WHITE: 1, BLACK: 0}[state.owner], 2),
        (on_roll, 1), (int(state.crawford), 1), (1, 3),
        (1 - on_roll if state.doubled else on_roll, 1), (int(state.doubled), 1), (0, 2),
        (state.dice[0] if state.dice else 0, 3), (state.dice[1] if state.dice else 0, 3),
        (state.length, 15), (black, 15), (white, 15)]
    bits, shift = 0, 0
    for value, width in values:
        bits |= value << shift
        shift += width
    mid = base64.b64encode(bits.to_bytes(9, "little")).decode("ascii")
    return f"{state.position.gnubg_id()}:{mid}"


def _state(state: object) -> MatchState:
    if not isinstance(state, MatchState):
        raise FastNardyError(f"state must be a MatchState, not {state!r}")
    return state.checked()
