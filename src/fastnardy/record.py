"""Game records: fastnardy's plain-text record (both games).

**fastnardy record** (:func:`read_record`, :func:`write_record`; ``Game.record()`` and
``Game.from_record()``), one game, one item a line::

    rules long(head_rule=tournament)
    white Alice
    black Bob
    opening 3 5
    1 black 6-5 24/18 18/13
    2 white 3-3 24/21 24/21 21/18 21/18
    3 black 6-6 pass

* ``rules``: the rules field of a position string (``long``, ``short(hit_and_hide=forbidden)``);
* ``white`` / ``black``: the players' names (the rest of the line);
* ``opening W B``: the T6 throw, white's die then black's (thrown ties are not recorded); the
  higher die moves first. Or instead ``start <position string>``: the game began from that
  position, with its side to move (T6 skipped);
* one line per turn: the move number (Game.record writes 1, 2, 3 …; read, they must not
  decrease), the side (``white`` / ``black``, alternating from the first mover), the roll, high
  die first (``6-5``; read in either order) and the turn in notation (:mod:`fastnardy.notation`; ``pass`` for a pass).
  Short nardy's first turn plays the opening throw (T6);
* a line per offer and answer (section 5), where it happened among the turns: ``N side
  doubles S`` (an offer of the stake S, C2, C3), ``N side takes``, ``N side drops``; ``N`` is
  the number of the move it came before.

Blank lines and lines starting with ``#`` are skipped. The header lines come first, each once.

**fastnardy match record** (:func:`read_match`, :func:`write_match`; ``Match.record()`` and
``Match.from_record()``): a match to N points (C6), its games one after another, each a
record as above after a ``game K`` line (K = 1, 2, 3 …)::

    match 5
    game 1
    rules short
    white Alice
    black Bob
    opening 3 5
    1 black 5-3 8/3 6/3
    …
    game 2
    …

The scores, the Crawford game (C7) and the winner follow from the games' results.

The items of a game that a record of it holds beside the turns: :class:`RecordedCube` and
:class:`Win`. GNU Backgammon's ``.mat`` match files are :mod:`fastnardy.formats.mat`'s.
"""


from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple, TypeVar, Union

from . import notation
from ._utils.files import numbered_lines
from .basics import BLACK, SIDES, WHITE, Roll
from .errors import FastNardyError, IllegalTurnError, InvalidRecordError, NotationError, shown
from .position import Position
from .rules import Rules


_T = TypeVar("_T")

__all__ = ["RecordedCube", "GameRecord", "MatchRecord", "RecordedTurn", "Win", "is_match_record",
           "read_match", "read_record", "write_match", "write_record"]


#: The records' value classes are slotted where dataclasses make them so (Python 3.10+): a
#: record of a large file holds one per turn, and a slotted one is half the memory.
SLOTS: Dict[str, Any] = {"slots": True} if sys.version_info >= (3, 10) else {}

#: Each roll as one tuple, by its two digits (``"31"``), so that the turns of a record read
#: from text share 36 tuples, not one each.
ROLLS: Dict[str, Roll] = {f"{a}{b}": (a, b) for a in range(1, 7) for b in range(1, 7)}


def shared(known: Dict[Any, Any], value: _T) -> _T:
    """The first value read equal to ``value`` (a pair's items shared too), kept in ``known``:
    the records of a file hold one copy of each name, turn text and score pair they repeat."""
    if isinstance(value, tuple):
        value = tuple(shared(known, item) for item in value)  # type: ignore[assignment]
    return known.setdefault(value, value)  # type: ignore[no-any-return]


def at_line(line: object) -> str:
    return f"line {line}: " if type(line) is int and line else ""


def _check_line(line: object) -> None:
    """The line a value was read from: a non-negative int (0 when not read from text)."""
    if type(line) is not int or line < 0:
        raise InvalidRecordError(f"a line number is a non-negative integer, not {line!r}")


def check_name(name: object, line: int = 0) -> str:
    """A player's name as a record holds it: a non-empty one-line str without surrounding
    spaces (so that it reads back exactly: no line break of any kind that ``splitlines``
    reads, such as U+2028 or U+0085)."""
    if not isinstance(name, str) or not name or name != name.strip() \
            or name.splitlines() != [name]:
        raise InvalidRecordError(f"{at_line(line)}a player's name must be non-empty text on one "
                                 f"line without surrounding spaces, not {name!r}")
    return name


def _check_roll(roll: object, line: int) -> Roll:
    if not (isinstance(roll, tuple) and len(roll) == 2
            and all(type(d) is int and 1 <= d <= 6 for d in roll)):
        raise InvalidRecordError(f"{at_line(line)}a roll is two dice from 1 to 6, not {roll!r}")
    return (roll[0], roll[1])


def _check_side(side: object, line: int) -> None:
    if not isinstance(side, str) or side not in SIDES:
        raise InvalidRecordError(f"{at_line(line)}the side is 'white' or 'black', not {side!r}")


def check_count(what: str, value: object, line: int) -> None:
    if type(value) is not int or value < 1:
        raise InvalidRecordError(f"{at_line(line)}{what} is a positive integer, not {value!r}")


@dataclass(frozen=True, **SLOTS)
class RecordedTurn:
    """One recorded turn, as written: not yet checked against the rules. ``turn`` is notation
    (``pass`` for a pass); ``line`` is where it was read (0 when not read from text; it takes
    no part in equality)."""

    number: int
    side: str
    roll: Roll
    turn: str
    line: int = field(default=0, compare=False)

    def __post_init__(self) -> None:
        _check_line(self.line)
        check_count("a move number", self.number, self.line)
        _check_side(self.side, self.line)
        _check_roll(self.roll, self.line)
        if not isinstance(self.turn, str):
            raise InvalidRecordError(f"{at_line(self.line)}a turn is notation text, "
                                     f"not {self.turn!r}")
        error = _unreadable(self.turn)
        if error is not None:
            raise InvalidRecordError(f"{at_line(self.line)}cannot read the turn: {error}")


def _unreadable(turn: str) -> Optional[str]:
    """Why the notation ``turn`` does not read (None when it reads); kept for the texts seen
    last, as a file repeats its turns (not for a text too long to read: never kept)."""
    return (_reason if len(turn) > notation.MAX_TURN_TEXT else _kept_reason)(turn)


def _reason(turn: str) -> Optional[str]:
    try:
        notation.parse_turn(turn)
    except (IllegalTurnError, NotationError) as exc:
        return str(exc)
    return None


_kept_reason = lru_cache(maxsize=1 << 12)(_reason)


@dataclass(frozen=True, **SLOTS)
class GameRecord:
    """A recorded game: its rules, players (white, black), how it began (the T6 ``opening``
    throw (white's die, black's die), or a ``start`` position) and its turns, unchecked.
    Construction checks the record's shape (one beginning, sides alternating from the first
    mover, T6's first short-nardy roll); :meth:`fastnardy.Game.from_record` checks the turns."""

    rules: Rules
    players: Tuple[str, str]
    start: Optional[Position]
    opening: Optional[Roll]
    turns: Tuple[RecordedTurn, ...]
    #: the offers and answers (section 5), each with the number of turns played before it
    cube: Tuple[Tuple[int, "RecordedCube"], ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.rules, Rules):
            raise InvalidRecordError(f"rules must be a Rules value, not {self.rules!r}")
        if not (isinstance(self.players, tuple) and len(self.players) == 2):
            raise InvalidRecordError(f"players must be a (white, black) pair of names, "
                                     f"not {self.players!r}")
        for name in self.players:
            check_name(name)
        if (self.start is None) == (self.opening is None):
            raise InvalidRecordError("a record begins with either an opening throw (T6) or a "
                                     "start position, not both and not neither")
        if self.start is not None:
            if not isinstance(self.start, Position) or self.start.rules != self.rules:
                raise InvalidRecordError(f"the start must be a Position under the record's "
                                         f"rules ({notation.format_rules(self.rules)}), "
                                         f"not {self.start!r}")
            side = self.start.turn
        else:
            white_die, black_die = _check_roll(self.opening, 0)
            if white_die == black_die:
                raise InvalidRecordError(f"T6: equal opening dice ({white_die}) are thrown "
                                         f"again, not recorded")
            side = WHITE if white_die > black_die else BLACK
        if not isinstance(self.turns, tuple) or \
                not all(isinstance(t, RecordedTurn) for t in self.turns):
            raise InvalidRecordError("turns must be a tuple of RecordedTurn")
        number = 1
        for entry in self.turns:
            if entry.side != side:
                raise InvalidRecordError(f"{at_line(entry.line)}move {entry.number} is {side}'s "
                                         f"turn, not {entry.side}'s")
            if entry.number < number:
                raise InvalidRecordError(f"{at_line(entry.line)}move number {entry.number} comes "
                                         f"after move {number}")
            side, number = (BLACK if side == WHITE else WHITE), entry.number
        if not isinstance(self.cube, tuple) or not all(
                isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], RecordedCube)
                and isinstance(item[0], int) and 0 <= item[0] <= len(self.turns)
                for item in self.cube):
            raise InvalidRecordError("cube must be a tuple of (turns before, RecordedCube) pairs")
        if [before for before, _ in self.cube] != sorted(before for before, _ in self.cube):
            raise InvalidRecordError("the cube actions must come in the order of the turns")
        if self.turns and self.opening is not None and not self.rules.is_long \
                and sorted(self.turns[0].roll) != sorted(self.opening):
            first = self.turns[0]
            raise InvalidRecordError(
                f"{at_line(first.line)}T6: short nardy's first turn plays the opening throw "
                f"{self.opening[0]} and {self.opening[1]}, not "
                f"{notation.format_roll(first.roll)}")

    def actions(self) -> Iterator[Union[RecordedTurn, "RecordedCube"]]:
        """The turns and the offers and answers, in the order they were made."""
        cube = iter(self.cube)
        pending = next(cube, None)
        for index, turn in enumerate(self.turns):
            while pending is not None and pending[0] == index:
                yield pending[1]
                pending = next(cube, None)
            yield turn
        while pending is not None:
            yield pending[1]
            pending = next(cube, None)


@dataclass(frozen=True, **SLOTS)
class MatchRecord:
    """A recorded match (C6): its ``length`` and its ``games`` one after another, each a
    :class:`GameRecord` of the same rules and players, unchecked against the rules
    (:meth:`fastnardy.Match.from_record` replays them)."""

    length: int
    games: Tuple[GameRecord, ...]

    def __post_init__(self) -> None:
        check_count("the match length", self.length, 0)
        if not (isinstance(self.games, tuple) and self.games
                and all(isinstance(g, GameRecord) for g in self.games)):
            raise InvalidRecordError("a match record's games are a non-empty tuple of "
                                     "GameRecord")
        first = self.games[0]
        for number, game in enumerate(self.games[1:], 2):
            if game.rules != first.rules or game.players != first.players:
                raise InvalidRecordError(f"game {number} has other rules or players than "
                                         f"game 1: a match keeps both")


# --------------------------------------------------------------------------- fastnardy record

_HEADER_KEYS = ("rules", "white", "black", "opening", "start")
_SIDE = {side: side for side in SIDES}  # a side read from text as the one constant
_CUBE_LINE = re.compile(r"([0-9]{1,9}) +(white|black) +(doubles|takes|drops)(?: +([0-9]{1,9}))?")


def write_record(record: GameRecord) -> str:
    """The record as text (see the module's docstring); :func:`read_record` reads it back."""
    if not isinstance(record, GameRecord):
        raise InvalidRecordError(f"write_record needs a GameRecord, not {record!r}")
    lines = [f"rules {notation.format_rules(record.rules)}",
             f"white {record.players[0]}", f"black {record.players[1]}"]
    if record.start is not None:
        lines.append(f"start {record.start.to_string()}")
    else:
        assert record.opening is not None
        lines.append(f"opening {record.opening[0]} {record.opening[1]}")
    for item in record.actions():
        lines.append(_cube_text(item) if isinstance(item, RecordedCube) else
                     f"{item.number} {item.side} {notation.format_roll(item.roll)} {item.turn}")
    return "\n".join(lines) + "\n"


def _cube_text(action: RecordedCube) -> str:
    words = {"double": f"doubles {action.cube}", "take": "takes", "drop": "drops"}
    return f"{action.number} {action.side} {words[action.action]}"


def read_record(text: str) -> GameRecord:
    """Read a fastnardy record (see the module's docstring); InvalidRecordError names the line
    of anything that does not read."""
    if not isinstance(text, str):
        raise InvalidRecordError(f"a record is text, not {type(text).__name__}")
    return _read(numbered_lines(text), {})


def _read(lines: Iterable[Tuple[int, str]], known: Dict[Any, Any]) -> GameRecord:
    """The record of the numbered ``lines``. ``known`` keeps one copy of each value read that
    repeats (names, turn texts, rules), shared by the games of a match record."""
    seen: Dict[str, int] = {}
    rules: Optional[Rules] = None
    names = {WHITE: "", BLACK: ""}
    start: Optional[Position] = None
    opening: Optional[Roll] = None
    turns: List[RecordedTurn] = []
    cube: List[Tuple[int, RecordedCube]] = []
    offered = 1  # the stake the last offer made (1: none yet, for an answer C2 refuses)
    for number, raw in lines:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, _, value = line.partition(" ")
        value = value.strip()
        if key not in _HEADER_KEYS:
            action = _CUBE_LINE.fullmatch(line)
            if action is None:
                turns.append(_read_turn(line, number, known))
                continue
            name = {"doubles": "double", "takes": "take", "drops": "drop"}[action.group(3)]
            if (name == "double") != (action.group(4) is not None):
                raise InvalidRecordError(f"line {number}: an offer is 'N side doubles STAKE', "
                                         f"an answer 'N side takes' or 'N side drops', not "
                                         f"{shown(line)}")
            if name == "double":
                offered = int(action.group(4))
            cube.append((len(turns), RecordedCube(int(action.group(1)), _SIDE[action.group(2)], name,
                                                offered, number)))
            continue
        if key in seen:
            raise InvalidRecordError(f"line {number}: a second {key!r} line")
        if turns:
            raise InvalidRecordError(f"line {number}: the {key!r} line must come before the "
                                     f"turns")
        seen[key] = number
        if key == "rules":
            rules_key = (Rules, value)  # a key no name or turn text can be
            rules = known[rules_key] if rules_key in known else \
                known.setdefault(rules_key, _parse(notation.parse_rules, value, number))
        elif key == "start":
            start = _parse(Position.from_string, value, number)
        elif key == "opening":
            opening = _read_opening(value, number)
        else:
            names[key] = shared(known, check_name(value, number))
    for key in ("rules", WHITE, BLACK):
        if key not in seen:
            raise InvalidRecordError(f"the record has no {key!r} line")
    assert rules is not None
    if start is not None and start.rules != rules:
        raise InvalidRecordError(f"line {seen['start']}: the start position's rules differ "
                                 f"from the 'rules' line")
    return GameRecord(rules, shared(known, (names[WHITE], names[BLACK])), start, opening,
                      tuple(turns), tuple(cube))


def _parse(parse: Callable[[str], _T], value: str, line: int) -> _T:
    try:
        return parse(value)
    except FastNardyError as exc:
        raise InvalidRecordError(f"line {line}: {exc}") from None


def _read_opening(value: str, line: int) -> Roll:
    match = re.fullmatch(r"([1-6]) +([1-6])", value)
    if not match:
        raise InvalidRecordError(f"line {line}: 'opening' takes white's and black's die, "
                                 f"e.g. 'opening 3 5', not {shown(value)}")
    return ROLLS[match.group(1) + match.group(2)]


def _read_turn(line: str, number: int, known: Dict[Any, Any]) -> RecordedTurn:
    match = re.fullmatch(r"([0-9]{1,9}) +(white|black) +([1-6])-([1-6]) +(\S.*)", line)
    if not match:
        raise InvalidRecordError(
            f"line {number}: expected a header line ({', '.join(_HEADER_KEYS)}) or a turn "
            f"'<move number> <white|black> <d1>-<d2> <turn>', not {shown(line)}")
    return RecordedTurn(int(match.group(1)), _SIDE[match.group(2)],
                        ROLLS[match.group(3) + match.group(4)], shared(known, match.group(5)),
                        number)


# --------------------------------------------------------------------------- cube actions and wins

@dataclass(frozen=True, **SLOTS)
class RecordedCube:
    """A cube action as a record writes it (a game's :class:`fastnardy.game.CubeEvent` in
    text, as :class:`RecordedTurn` is a turn's): ``double`` (to ``cube``), ``take`` or
    ``drop`` (of the cube offered at ``cube``), at move ``number`` by ``side``."""

    number: int
    side: str
    action: str
    cube: int
    line: int = field(default=0, compare=False)

    def __post_init__(self) -> None:
        _check_line(self.line)
        _check_side(self.side, self.line)
        if not isinstance(self.action, str) or self.action not in ("double", "take", "drop"):
            raise InvalidRecordError(f"{at_line(self.line)}a cube action is 'double', 'take' or "
                                     f"'drop', not {self.action!r}")
        check_count("a move number", self.number, self.line)
        check_count("the cube", self.cube, self.line)


@dataclass(frozen=True, **SLOTS)
class Win:
    """``Wins N points``: how a ``.mat`` game ended (bearing off, a drop or a resignation)."""

    side: str
    points: int
    line: int = field(default=0, compare=False)

    def __post_init__(self) -> None:
        _check_line(self.line)
        _check_side(self.side, self.line)
        check_count("the points won", self.points, self.line)


# --------------------------------------------------------------------------- match record

_MATCH_LINE = re.compile(r"match +([0-9]{1,5})")
_GAME_LINE = re.compile(r"game +([0-9]{1,5})")


def is_match_record(text: object) -> bool:
    """Whether ``text`` is a fastnardy match record: its first line (blank and ``#`` lines
    skipped) is ``match N``."""
    if not isinstance(text, str):
        return False
    for _, raw in numbered_lines(text):
        line = raw.strip()
        if line and not line.startswith("#"):
            return _MATCH_LINE.fullmatch(line) is not None
    return False


def write_match(record: MatchRecord) -> str:
    """The match as text (see the module's docstring); :func:`read_match` reads it back."""
    if not isinstance(record, MatchRecord):
        raise InvalidRecordError(f"write_match needs a MatchRecord, not {record!r}")
    return f"match {record.length}\n" + "".join(
        f"game {number}\n{write_record(game)}" for number, game in enumerate(record.games, 1))


def read_match(text: str) -> MatchRecord:
    """Read a fastnardy match record (see the module's docstring); InvalidRecordError names
    the line of anything that does not read."""
    if not isinstance(text, str):
        raise InvalidRecordError(f"a record is text, not {type(text).__name__}")
    known: Dict[Any, Any] = {}
    length: Optional[int] = None
    games: List[GameRecord] = []
    lines: Optional[List[Tuple[int, str]]] = None  # the lines of the game being read
    for number, raw in numbered_lines(text):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if length is None:
            found = _MATCH_LINE.fullmatch(line)
            if found is None:
                raise InvalidRecordError(f"line {number}: a match record begins with "
                                         f"'match N', not {line[:40]!r}")
            length = int(found.group(1))
            continue
        game = _GAME_LINE.fullmatch(line)
        if game is not None:
            if lines is not None:
                games.append(_read(lines, known))
            if int(game.group(1)) != len(games) + 1:
                raise InvalidRecordError(f"line {number}: game {len(games) + 1} comes "
                                         f"next, not {game.group(1)}")
            lines = []
        elif lines is None:
            raise InvalidRecordError(f"line {number}: a game's lines follow its 'game K' "
                                     f"line")
        else:
            lines.append((number, raw))
    if length is None:
        raise InvalidRecordError("a match record begins with 'match N'; this one is empty")
    if lines is None:
        raise InvalidRecordError("the match record holds no game")
    games.append(_read(lines, known))
    return MatchRecord(length, tuple(games))
