"""Positions, steps and turns: the values of the public API."""

from __future__ import annotations

from collections.abc import Sequence as SequenceABC
from typing import NamedTuple, Optional, Sequence

from . import backend as _backend
from . import gnubg, notation
from .errors import FastNardyError, InvalidDiceError, InvalidPositionError
from .reference import check_dice, mirror, parse_code, state_block, to_state
from .rules import LONG, SHORT, Rules

WHITE, BLACK = "white", "black"

_SHORT_START = {24: 2, 13: 5, 8: 3, 6: 5}  # S1


class Step(NamedTuple):
    """One checker moved by one die, in the mover's numbering (25 = bar, 0 = off)."""

    src: int
    dst: int
    hit: bool = False

    def __str__(self) -> str:
        return notation.format_step(self)


class Outcome(NamedTuple):
    """How a finished game ended (L10, S9): winner, points won, and the kind of win
    (``"oin"``, ``"mars"``, ``"koks"`` or ``"backgammon"``)."""

    winner: str
    points: int
    kind: str


class Turn:
    """A legal turn (T1): the resulting position (the other side to move) and its T2
    representative steps. Two turns are equal when their positions are."""

    __slots__ = ("steps", "position")

    def __init__(self, steps: Sequence[Step], position: "Position"):
        object.__setattr__(self, "steps", tuple(map(_step, steps)))
        object.__setattr__(self, "position", position)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Turn is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Turn is immutable")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Turn) and self.position == other.position

    def __hash__(self) -> int:
        return hash(self.position)

    def __str__(self) -> str:
        return notation.format_steps(self.steps)

    def __repr__(self) -> str:
        return f"Turn({self.steps!r}, {self.position!r})"

    def is_pass(self) -> bool:
        """T3: the empty turn."""
        return not self.steps


def _step(step) -> Step:
    return step if type(step) is Step else Step(*step)


class LegalTurns(SequenceABC):
    """The legal turns of a position for one roll (T1), in T2 order: an immutable sequence
    (a view, like python-chess's ``legal_moves``). ``len()`` costs nothing; each Turn is built
    when first read. It compares equal to any sequence of the same turns, a list included."""

    __slots__ = ("_origin", "_raw", "_built")

    def __init__(self, origin: "Position", raw: Sequence):
        self._origin = origin
        self._raw = raw  # the backend's enumerate_packed result
        self._built: list = [None] * len(raw)

    def __len__(self) -> int:
        return len(self._built)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        turn = self._built[index]
        if turn is None:
            steps, *boards = self._raw[index]
            turn = self._built[index] = Turn(steps, self._origin._from_mover_frame(*boards))
        return turn

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SequenceABC) or isinstance(other, (str, bytes)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<LegalTurns ({', '.join(map(str, self))})>"


def _counts(name: str, values: object) -> tuple:
    """24 non-negative ints, or InvalidPositionError (never TypeError)."""
    if isinstance(values, (str, bytes)):
        raise InvalidPositionError(f"{name} must be 24 checker counts, not a string")
    try:
        items = list(values)  # type: ignore[call-overload]
    except TypeError:
        raise InvalidPositionError(f"{name} must be 24 checker counts, not {values!r}") from None
    if len(items) != 24:
        raise InvalidPositionError(f"{name} must have 24 checker counts, got {len(items)}")
    return tuple(_count(f"{name}[{i}]", v) for i, v in enumerate(items))


def _count(name: str, value: object) -> int:
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise InvalidPositionError(f"{name} must be an integer, not {value!r}")
    number = value.__index__()  # type: ignore[union-attr]
    if not 0 <= number <= 15:
        raise InvalidPositionError(f"{name} must be between 0 and 15, not {number}")
    return number


class Position:
    """A position of long or short nardy: both sides' checkers and the side to move.

    Immutable and hashable. Points are in each side's own numbering (index 0 = its point 1).
    """

    __slots__ = ("_rules", "_turn", "_white", "_white_bar", "_black", "_black_bar")

    def __init__(self, rules: object, turn: str, white: Sequence[int], white_bar: int,
                 black: Sequence[int], black_bar: int):
        """Checks the arguments and the position (T7); ``from_points`` is the same with
        keywords and defaults."""
        self._rules = Rules.of(rules)
        if turn not in (WHITE, BLACK):
            raise InvalidPositionError(f"turn must be 'white' or 'black', not {turn!r}")
        self._turn = turn
        self._white, self._white_bar = _counts("white", white), _count("white_bar", white_bar)
        self._black, self._black_bar = _counts("black", black), _count("black_bar", black_bar)
        self._validate()

    # ------------------------------------------------------------------ constructors
    @classmethod
    def start(cls, game_or_rules: object = LONG) -> "Position":
        """The starting position (L1, S1), white to move (T6 is left to the caller)."""
        rules = Rules.of(game_or_rules)
        points = [0] * 24
        if rules.game == LONG:
            points[23] = 15
        else:
            for p, n in _SHORT_START.items():
                points[p - 1] = n
        return cls(rules, WHITE, tuple(points), 0, tuple(points), 0)

    @classmethod
    def opening(cls, game_or_rules: object, white_die: int, black_die: int) -> tuple:
        """T6: each side throws one die and the higher moves first. Returns the start position
        with that side to move, and the dice it plays: in short nardy the two thrown numbers,
        in long nardy None (it throws both dice again). Equal dice must be re-thrown."""
        white_die, black_die = _dice((white_die, black_die))
        if white_die == black_die:
            raise InvalidDiceError(f"T6: equal opening dice ({white_die}) are thrown again")
        start = cls.start(game_or_rules)
        first = WHITE if white_die > black_die else BLACK
        position = cls(start._rules, first, start._white, 0, start._black, 0)
        dice = (max(white_die, black_die), min(white_die, black_die))
        return position, dice if start._rules.game == SHORT else None

    @classmethod
    def from_points(cls, rules: object, white: Sequence[int], black: Sequence[int],
                    turn: str = WHITE, white_bar: int = 0, black_bar: int = 0) -> "Position":
        """A position from 24 checker counts per side, each in its own numbering."""
        return cls(rules, turn, white, white_bar, black, black_bar)

    @classmethod
    def from_string(cls, text: str) -> "Position":
        """The inverse of :meth:`to_string` (see :mod:`fastnardy.notation`)."""
        rules, turn, white, white_bar, black, black_bar = notation.parse_position(text)
        return cls(rules, turn, white, white_bar, black, black_bar)

    @classmethod
    def from_gnubg_id(cls, pid: str, rules: object = SHORT, turn: str = WHITE) -> "Position":
        """A short-nardy position from a GNU Backgammon Position ID; the player on roll is
        ``turn``."""
        rules = Rules.of(rules)
        if rules.game != SHORT:
            raise InvalidPositionError("GNU Backgammon Position IDs are for short nardy only")
        mover, mover_bar, other, other_bar = gnubg.decode_position_id(pid)
        if turn == WHITE:
            return cls.from_points(rules, mover, other, WHITE, mover_bar, other_bar)
        if turn == BLACK:
            return cls.from_points(rules, other, mover, BLACK, other_bar, mover_bar)
        raise InvalidPositionError(f"turn must be 'white' or 'black', not {turn!r}")

    # ------------------------------------------------------------------ validation (T7)
    def _validate(self) -> None:
        long_game = self._rules.game == LONG
        if long_game and (self._white_bar or self._black_bar):
            raise InvalidPositionError("T7: long nardy has no bar")
        for side, points, bar in ((WHITE, self._white, self._white_bar),
                                  (BLACK, self._black, self._black_bar)):
            if sum(points) + bar > 15:
                raise InvalidPositionError(
                    f"T7: {side} has {sum(points) + bar} checkers on the board; at most 15")
        game = 0 if long_game else 1
        for q in range(1, 25):
            white_point = mirror(game, q)
            if self._black[q - 1] and self._white[white_point - 1]:
                raise InvalidPositionError(
                    f"T7: board point {white_point} holds both white and black checkers")
        if self.white_off == 15 and self.black_off == 15:
            raise InvalidPositionError("T7: both sides have borne off 15 checkers")
        if long_game:
            code_rules = parse_code(self._rules.code)
            for side in (WHITE, BLACK):
                me, opp = self._frames(side)
                block = state_block(code_rules, to_state(code_rules, me, 0, opp, 0))
                if block:
                    raise InvalidPositionError(
                        f"T7/L6: {side} holds a forbidden six-block on the opponent's points "
                        f"{block[0]}-{block[1]}")

    def _frames(self, side: str) -> tuple:
        if side == WHITE:
            return self._white, self._black
        return self._black, self._white

    # ------------------------------------------------------------------ properties
    @property
    def rules(self) -> Rules:
        return self._rules

    @property
    def turn(self) -> str:
        """The side to move: ``"white"`` or ``"black"``."""
        return self._turn

    @property
    def white_points(self) -> tuple:
        return self._white

    @property
    def black_points(self) -> tuple:
        return self._black

    @property
    def white_bar(self) -> int:
        return self._white_bar

    @property
    def black_bar(self) -> int:
        return self._black_bar

    @property
    def white_off(self) -> int:
        return 15 - sum(self._white) - self._white_bar

    @property
    def black_off(self) -> int:
        return 15 - sum(self._black) - self._black_bar

    def mover_frame(self) -> tuple:
        """(me, me_bar, opp, opp_bar): the side to move first, each in its own numbering."""
        if self._turn == WHITE:
            return self._white, self._white_bar, self._black, self._black_bar
        return self._black, self._black_bar, self._white, self._white_bar

    def _from_mover_frame(self, me, me_bar, opp, opp_bar) -> "Position":
        """The position after the mover's turn: the other side to move. Trusted input."""
        new = object.__new__(Position)
        new._rules = self._rules
        if self._turn == WHITE:
            new._turn = BLACK
            new._white, new._white_bar, new._black, new._black_bar = me, me_bar, opp, opp_bar
        else:
            new._turn = WHITE
            new._black, new._black_bar, new._white, new._white_bar = me, me_bar, opp, opp_bar
        return new

    # ------------------------------------------------------------------ turns
    def legal_turns(self, dice: Sequence[int], backend: Optional[str] = None) -> LegalTurns:
        """The legal turns for ``dice`` (T1), in T2 order, as a :class:`LegalTurns` sequence;
        a pass (T3) is one empty turn and a finished game (T4) has none."""
        d1, d2 = _dice(dice)
        me, me_bar, opp, opp_bar = self.mover_frame()
        return LegalTurns(self, _backend.get(backend).enumerate_packed(
            self._rules.code, me, me_bar, opp, opp_bar, d1, d2))

    def check_turn(self, dice: Sequence[int], turn: object) -> Turn:
        """Referee a turn someone else played: a notation string, a sequence of (src, dst)
        steps or a Turn. Returns the matching legal Turn, or raises IllegalTurnError naming the
        rule and the offending step."""
        from .referee import check_turn

        return check_turn(self, _dice(dice), turn)

    def play(self, turn: object, dice: Optional[Sequence[int]] = None) -> "Position":
        """The position after ``turn`` (a Turn or notation). Without ``dice`` the turn must be
        legal for some roll."""
        from .referee import play

        return play(self, turn, None if dice is None else _dice(dice))

    def is_game_over(self) -> bool:
        """L9/S9: a side has borne off its 15th checker."""
        return self.white_off == 15 or self.black_off == 15

    def outcome(self, cube: int = 1) -> Optional[Outcome]:
        """The result of a finished game (L10 / S9), or None while it goes on. ``cube`` is the
        doubling cube's value; with ``cube_cancels_mars`` a turned cube (cube > 1) makes any
        win count as oin."""
        if not self.is_game_over():
            return None
        if isinstance(cube, bool) or not isinstance(cube, int) or cube < 1:
            raise FastNardyError(f"cube must be a positive integer, not {cube!r}")
        winner = WHITE if self.white_off == 15 else BLACK
        loser_points, loser_bar, loser_off = (
            (self._black, self._black_bar, self.black_off) if winner == WHITE
            else (self._white, self._white_bar, self.white_off))
        rules = self._rules
        if loser_off:
            kind = "oin"
        elif rules.game == LONG:
            outside_home = any(loser_points[6:])
            kind = "koks" if rules.scoring == "oin_mars_koks" and outside_home else "mars"
        else:
            in_winners_home = loser_bar > 0 or any(loser_points[18:])
            kind = "backgammon" if rules.backgammon and in_winners_home else "mars"
        if rules.game == SHORT and rules.cube_cancels_mars and cube > 1:
            kind = "oin"
        value = {"oin": 1, "mars": 2, "koks": 3, "backgammon": 3}[kind]
        return Outcome(winner, value * cube, kind)

    # ------------------------------------------------------------------ text
    def to_string(self) -> str:
        return notation.format_position(self)

    def gnubg_id(self) -> str:
        """The GNU Backgammon Position ID (short nardy): the side not to move, then the side
        to move."""
        if self._rules.game != SHORT:
            raise InvalidPositionError("GNU Backgammon Position IDs are for short nardy only")
        me, me_bar, opp, opp_bar = self.mover_frame()
        return gnubg.encode_position_id(me, me_bar, opp, opp_bar)

    def __repr__(self) -> str:
        return f"Position.from_string({self.to_string()!r})"

    def __str__(self) -> str:
        return notation.draw_board(self)

    def _key(self) -> tuple:
        return (self._rules, self._turn, self._white, self._white_bar, self._black,
                self._black_bar)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Position) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def _repr_svg_(self) -> str:
        from . import svg
        return svg.board(self)


def _dice(dice: object) -> tuple:
    """Two dice as a tuple of ints 1-6 (InvalidDiceError otherwise)."""
    if type(dice) is tuple and len(dice) == 2 and type(dice[0]) is int \
            and type(dice[1]) is int and 1 <= dice[0] <= 6 and 1 <= dice[1] <= 6:
        return dice  # the common case, checked quickly
    if isinstance(dice, (str, bytes)):
        raise InvalidDiceError(f"dice must be two integers from 1 to 6, not {dice!r}")
    try:
        values = tuple(dice)  # type: ignore[arg-type]
    except TypeError:
        raise InvalidDiceError(f"dice must be two integers from 1 to 6, not {dice!r}") from None
    if len(values) != 2:
        raise InvalidDiceError(f"dice must be two integers from 1 to 6, not {dice!r}")
    return check_dice(*values)

