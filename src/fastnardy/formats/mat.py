"""GNU Backgammon's ``.mat`` match files (short nardy, and long nardy in the same move-line
style), read and written.

A match export (:func:`read_mat`, :func:`write_mat`) is the ``.mat`` text that
``export match mat`` writes: ``; [...]`` comment lines, `` N point match``, then for each game
`` Game N``, ``name : score   name : score`` and numbered lines of two cells, player 0 on the
left and player 1 on the right: ``43: 24/20 13/10`` (a roll and its move in the mover's own
numbering, bar 25, off 0, ``*`` a hit; nothing after the roll for a pass), `` Doubles => 2``,
`` Takes``, `` Drops``, and ``Wins N points`` (left-aligned for player 0, indented to the right
column for player 1). Player 0 is read as white and player 1 as black; moves are kept in
fastnardy notation (``bar/21``, ``6/off``) and written back as GNU Backgammon writes them.

The game is the header's ``; [Variation "..."]`` comment, as GNU Backgammon writes it:
``Backgammon`` (or no such line) is short nardy; ``Long Nardy`` (``LONG_VARIATION``; also
read: ``LongNardy``, ``Long nardy``, ``Narde``) is long nardy, each game replayed from the
long start under the long rules, its first mover the first line's (the opening throw that
chose it is not in the file); any other variation (Nackgammon, Hypergammon) is refused.

Any record file (a ``.mat``, an SGF, a fastnardy record) is :mod:`fastnardy.formats.games`'s.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

from .. import checks, notation
from .._utils.files import blocks, numbered_lines
from ..basics import BLACK, SIDES, WHITE
from ..errors import InvalidRecordError, shown
from ..game import Match
from ..position import Position
from ..record import (ROLLS, SLOTS, RecordedCube, GameRecord, RecordedTurn, Win, at_line,
                      check_count, check_name,
                      shared)
from ..rules import Rules

__all__ = ["MatGame", "is_mat", "iter_mat", "match_games", "numbered", "read_mat",
           "write_mat"]


MatAction = Union[RecordedTurn, RecordedCube, Win]
_SHORT = Rules.short()  # the rules of a .mat without a long-nardy variation line
#: The ``; [Variation "..."]`` of a long-nardy match file, as :func:`write_mat` writes it.
LONG_VARIATION = "Long Nardy"
_VARIATIONS = {"backgammon": _SHORT, "long nardy": Rules.long(), "longnardy": Rules.long(),
               "narde": Rules.long()}
_VARIATION_LINE = re.compile(r';\s*\[Variation\s+"([^"]{0,40})"\]\s*')


@dataclass(frozen=True, **SLOTS)
class MatGame:
    """One game of a GNU Backgammon match export: its match length, game number, players
    (player 0 = white, player 1 = black), the score before it, its actions in order, and
    its rules (short nardy unless the file's variation is long nardy)."""

    match_length: int
    number: int
    players: Tuple[str, str]
    scores: Tuple[int, int]
    actions: Tuple[MatAction, ...]
    #: short nardy, or long nardy (the file's variation line)
    rules: Rules = _SHORT

    def __post_init__(self) -> None:
        if not isinstance(self.rules, Rules) or self.rules not in (_SHORT,
                                                                    _VARIATIONS["long nardy"]):
            raise InvalidRecordError(f"a .mat game is short or long nardy under the default "
                                     f"variants, not {self.rules!r}")
        if type(self.match_length) is not int or self.match_length < 0:
            raise InvalidRecordError(f"the match length is a non-negative integer (0: money "
                                     f"play), not {self.match_length!r}")
        check_count("the game number", self.number, 0)
        if not (isinstance(self.players, tuple) and len(self.players) == 2):
            raise InvalidRecordError(f"players must be a pair of names, not {self.players!r}")
        for name in self.players:
            check_name(name)
        if not (isinstance(self.scores, tuple) and len(self.scores) == 2
                and all(type(n) is int and n >= 0 for n in self.scores)):
            raise InvalidRecordError(f"scores must be two non-negative integers, "
                                     f"not {self.scores!r}")
        if not (isinstance(self.actions, tuple) and all(
                isinstance(a, (RecordedTurn, RecordedCube, Win)) for a in self.actions)):
            raise InvalidRecordError("actions must be a tuple of RecordedTurn, RecordedCube and Win")

    @property
    def cube(self) -> int:
        """The cube's value when the game ended: the last double that was taken, else 1."""
        value = 1
        for action in self.actions:
            if isinstance(action, RecordedCube) and action.action == "take":
                value = action.cube
        return value

    @property
    def result(self) -> Optional[Win]:
        """The game's ``Wins N points`` line, or None for an unfinished game."""
        last = self.actions[-1] if self.actions else None
        return last if isinstance(last, Win) else None

    def to_record(self) -> GameRecord:
        """The game's turns as a :class:`~fastnardy.record.GameRecord` of its rules. In short
        nardy its T6 opening throw is the first roll (the first mover threw the higher die);
        a long-nardy game begins at the long start with the first line's mover to move. A
        roll left unplayed just before the opponent's ``Wins`` is a roll the mover resigned
        on (GNU Backgammon writes it like a pass), so it is left out: no turn was played.
        The offers and answers come along where they were made (C2)."""
        turns: List[RecordedTurn] = []
        cube: List[Tuple[int, RecordedCube]] = []
        for action in self.actions:
            if isinstance(action, RecordedTurn):
                turns.append(action)
            elif isinstance(action, RecordedCube):
                cube.append((len(turns), action))
        if len(self.actions) >= 2 and isinstance(self.actions[-1], Win):
            last, win = self.actions[-2], self.actions[-1]
            if isinstance(last, RecordedTurn) and last.turn == notation.PASS \
                    and win.side != last.side:
                turns.pop()
        rules = self.rules
        actions = tuple((min(before, len(turns)), action) for before, action in cube)
        if rules.is_long or not turns:  # long, T6: the throw that chose the mover is not here
            # the side on roll first: the first line's mover, or the side offering before it
            mover = turns[0].side if turns else actions[0][1].side if actions else WHITE
            start = Position.start(rules)
            if mover == BLACK:
                start = Position.from_points(rules, start.white_points, start.black_points,
                                             BLACK)
            return GameRecord(rules, self.players, start, None, tuple(turns), actions)
        first = turns[0]
        high, low = max(first.roll), min(first.roll)
        if high == low:
            raise InvalidRecordError(f"{at_line(first.line)}T6: the first roll of a game cannot be "
                                     f"a double ({first.roll[0]}{first.roll[1]})")
        opening = ROLLS[f"{high}{low}" if first.side == WHITE else f"{low}{high}"]
        return GameRecord(rules, self.players, None, opening, tuple(turns), actions)


_CELL = re.compile(
    r"(?P<roll>[1-6][1-6]):(?P<move>(?:[ \t]+(?:[0-9]{1,2}|bar)(?:/(?:[0-9]{1,2}|off)\*?)+"
    r"(?:\([1-4]\))?)*)"
    r"|Doubles => (?P<cube>[0-9]{1,9})|(?P<take>Takes)|(?P<drop>Drops)"
    r"|Wins (?P<points>[0-9]{1,9}) points?(?: and the match)?")
MAX_LINE = 1000  # characters: a .mat line of moves is under 100; a longer one is refused
_RIGHT_COLUMN = 20  # a cell starting at or after this column is player 1's (the right one)


Progress = Optional[Callable[[int, int], None]]
_PROGRESS_EVERY = 1 << 20  # characters read between two calls of progress


def read_mat(text: str, progress: Progress = None) -> List[MatGame]:
    """The games of a GNU Backgammon ``.mat`` match export (see the module's docstring).
    InvalidRecordError names the line of anything that does not read. ``progress(done,
    total)`` counts the characters read, a megabyte at a time."""
    return list(iter_mat(text, progress))


def iter_mat(text: str, progress: Progress = None) -> Iterator[MatGame]:
    """:func:`read_mat`'s games one at a time, each as soon as it is read: memory for one
    game, not the match (the error of a later line comes when it is reached)."""
    if not isinstance(text, str):
        raise InvalidRecordError(f"a match export is text, not {type(text).__name__}")
    checks.callback(progress)
    return _read(text, progress)


def _read(text: str, progress: Progress) -> Iterator[MatGame]:
    """The games of ``text``, read line by line, a block of lines at a time."""
    reader = _MatReader()
    number = reported = 0
    for end, lines in blocks(text):
        for raw in lines:
            number += 1
            line = raw.rstrip()
            if line.lstrip().startswith(";"):
                reader.comment(line, number)
            elif line.strip():
                if len(line) > MAX_LINE:
                    raise InvalidRecordError(f"line {number} is {len(line):,} characters long: "
                                             f"a line of a match export is at most "
                                             f"{MAX_LINE:,}")
                reader.feed(line, number)
                yield from reader.take()
        if progress is not None and (end - reported >= _PROGRESS_EVERY or end == len(text)):
            progress(end, len(text))
            reported = end
    yield from reader.finish()


class _MatReader:
    """Reads a ``.mat`` text line by line into MatGames. The games share what repeats: one
    copy of each name and move text read (``known``), each score pair and player pair."""

    def __init__(self) -> None:
        self.known: Dict[Any, Any] = {}
        self.games: List[MatGame] = []
        self.length: Optional[int] = None
        self.number = 0
        self.players: Optional[Tuple[str, str]] = None
        self.scores = (0, 0)
        self.actions: List[MatAction] = []
        self.cube = 1
        self.rules = _SHORT
        self.variation: Optional[int] = None  # the line of the variation comment, once read

    def comment(self, line: str, number: int) -> None:
        """A ``;`` line: the variation sets the game (module docstring), before any game."""
        match = _VARIATION_LINE.fullmatch(line.strip())
        if match is None:
            return
        name = match.group(1).strip()
        rules = _VARIATIONS.get(name.lower())
        if rules is None:
            raise InvalidRecordError(f"line {number}: the variation {shown(name)} is not a game "
                                     f"fastnardy plays (Backgammon, {LONG_VARIATION})")
        if self.number or (self.variation is not None and rules != self.rules):
            raise InvalidRecordError(f"line {number}: the variation comes once, before the "
                                     f"games")
        self.rules, self.variation = rules, number

    def feed(self, line: str, number: int) -> None:
        match = re.fullmatch(r"\s*([0-9]{1,9}) point match", line)
        if match and self.length is None:
            self.length = int(match.group(1))
            return
        if self.length is None:
            raise InvalidRecordError(f"line {number}: expected the ' N point match' line, "
                                     f"not {shown(line)}")
        match = re.fullmatch(r"\s*Game ([0-9]{1,9})", line)
        if match:
            self._close()
            self.number, self.players, self.actions, self.cube = int(match.group(1)), None, [], 1
            return
        if not self.number:
            raise InvalidRecordError(f"line {number}: expected ' Game 1', not {shown(line)}")
        if self.players is None:
            players, scores = _players(line, number)
            self.players, self.scores = shared(self.known, players), shared(self.known, scores)
            return
        match = re.match(r"\s*([0-9]{1,9})\)", line)
        label = int(match.group(1)) if match else 0
        cells = list(self._cells(line, match.end() if match else 0, number))
        if not match and any(c.group("points") is None for _, c in cells):
            raise InvalidRecordError(f"line {number}: expected a numbered line of moves or a "
                                     f"'Wins N points' line, not {shown(line)}")
        for index, (column, cell) in enumerate(cells):
            right = index > 0 or column >= _RIGHT_COLUMN
            self.actions.append(self._action(cell, SIDES[right], label, number))

    @staticmethod
    def _cells(line: str, start: int, number: int) -> Iterator[Tuple[int, re.Match[str]]]:
        position = start
        for cell in _CELL.finditer(line, start):
            if line[position:cell.start()].strip():
                break
            position = cell.end()
            yield cell.start(), cell
        if line[position:].strip():
            raise InvalidRecordError(f"line {number}: cannot read {shown(line[position:].strip())}")

    def _action(self, cell: re.Match[str], side: str, label: int, line: int) -> MatAction:
        if cell.group("roll"):
            return RecordedTurn(label, side, ROLLS[cell.group("roll")],
                                shared(self.known, _from_gnubg(cell.group("move"))), line)
        if cell.group("points"):
            return Win(side, int(cell.group("points")), line)
        if cell.group("cube"):
            self.cube = int(cell.group("cube"))
            return RecordedCube(label, side, "double", self.cube, line)
        return RecordedCube(label, side, "take" if cell.group("take") else "drop", self.cube, line)

    def _close(self) -> None:
        if self.number:
            if self.players is None:
                raise InvalidRecordError(f"game {self.number} has no players line")
            assert self.length is not None
            self.games.append(MatGame(self.length, self.number, self.players, self.scores,
                                      tuple(self.actions), self.rules))

    def take(self) -> List[MatGame]:
        """The games read whole since the last call."""
        games, self.games = self.games, []
        return games

    def finish(self) -> List[MatGame]:
        """The last game (the text has ended)."""
        if self.length is None:
            raise InvalidRecordError("no ' N point match' line: not a GNU Backgammon match export")
        self._close()
        return self.take()


def _players(line: str, number: int) -> Tuple[Tuple[str, str], Tuple[int, int]]:
    """The players line, ``name : score   name : score``: the two `` : N`` marks found in
    one pass (linear in the line, whatever it holds), the names around them."""
    marks = list(re.finditer(r" : ([0-9]{1,9})(?=\s|$)", line))
    if len(marks) != 2 or line[marks[1].end():].strip() \
            or not line[:marks[0].start()].strip() \
            or not line[marks[0].end():marks[1].start()].strip():
        raise InvalidRecordError(f"line {number}: expected the players and scores "
                                 f"'name : score   name : score', not {shown(line)}")
    names = (check_name(line[:marks[0].start()].strip(), number),
             check_name(line[marks[0].end():marks[1].start()].strip(), number))
    return names, (int(marks[0].group(1)), int(marks[1].group(1)))


def _from_gnubg(move: str) -> str:
    """GNU Backgammon's move text (bar 25, off 0; empty for a pass) in fastnardy notation."""
    text = " ".join(move.split())
    if not text:
        return notation.PASS
    return re.sub(r"(?<![0-9(])(25|0)(?![0-9)])",
                  lambda m: "bar" if m.group(1) == "25" else "off", text)


def _to_gnubg(turn: str) -> str:
    """fastnardy notation back into GNU Backgammon's move text."""
    if turn == notation.PASS:
        return ""
    return turn.replace("bar", "25").replace("off", "0")


def write_mat(games: Sequence[MatGame]) -> str:
    """The games as a GNU Backgammon ``.mat`` match export, laid out as GNU Backgammon 1.07
    writes it (without its ``;`` comment lines but the long-nardy variation's):
    :func:`read_mat` reads it back."""
    items = checks.bounded(games, checks.MAX_ITEMS) or []
    if len(items) > checks.MAX_ITEMS:
        raise InvalidRecordError(f"write_mat writes at most {checks.MAX_ITEMS:,} games")
    if not items or not all(isinstance(g, MatGame) for g in items):
        raise InvalidRecordError(f"write_mat needs a non-empty sequence of MatGame, "
                                 f"not {games!r}")
    games = items
    lengths = {g.match_length for g in games}
    if len(lengths) != 1:
        raise InvalidRecordError(f"the games belong to matches of different lengths: "
                                 f"{sorted(lengths)}")
    if len({g.rules for g in games}) != 1:
        raise InvalidRecordError("the games of one .mat file are all short or all long nardy")
    header = f'; [Variation "{LONG_VARIATION}"]\n' if games[0].rules.is_long else ""
    out = [f"{header}\n {games[0].match_length} point match\n\n"]
    for game in games:
        out.append(f" Game {game.number}\n")
        out.append(f" {f'{game.players[0]} : {game.scores[0]}':<31}"
                   f"{game.players[1]} : {game.scores[1]}\n")
        out.append(_write_actions(game))
    return "".join(out)


def _points(points: int) -> str:
    return f"Wins {points} point{'s' if points > 1 else ''}"


def _write_actions(game: MatGame) -> str:
    """The numbered lines of one game: cell ``i`` is player ``i % 2``'s, on line ``i // 2 + 1``
    (as GNU Backgammon's ExportGameJF lays them out); a drop and the doubler's win share
    their layout, and a win is written left-aligned (player 0) or in the right column."""
    out: List[str] = []
    open_line = False  # a left cell is written and the line not yet ended
    actions = game.actions
    for index, (action, cell) in enumerate(zip(actions, _cells(actions))):
        previous = actions[index - 1] if index else None
        if isinstance(action, Win):
            if not (isinstance(previous, RecordedCube) and previous.action == "drop"):
                out.append(_win_text(action, open_line))
                open_line = False
            continue
        assert cell is not None  # every action but a win has a cell
        player = SIDES.index(action.side)
        if cell == 1 and not out:  # player 1 begins: the line's left cell is empty
            out.append("  1)" + " " * 29)
        if cell % 2 != player:
            raise InvalidRecordError(f"{at_line(action.line)}game {game.number}: a {action.side} "
                                     f"action where the .mat grid has player {cell % 2}'s cell")
        text = _cell_text(action)
        following = actions[index + 1] if index + 1 < len(actions) else None
        dropped = isinstance(action, RecordedCube) and action.action == "drop"
        if dropped and isinstance(following, Win):
            text += ("\n      " if player else " " * 23) + _points(following.points)
        out.append(f"{text}\n" if player else f"{cell // 2 + 1:3d}) {text:<27} ")
        if dropped:
            out.append("\n" if player else "\n\n")
        open_line = not player and not dropped
    if open_line:
        out.append("\n")
    return "".join(out)


def _win_text(win: Win, open_line: bool) -> str:
    if win.side == WHITE:
        return f"{chr(10) if open_line else ''}      {_points(win.points)}\n\n"
    return f"{' ' if open_line else ' ' * 34}{_points(win.points)}\n\n"


def _cell_text(action: Union[RecordedTurn, RecordedCube]) -> str:
    if isinstance(action, RecordedTurn):
        steps = _to_gnubg(action.turn).split()
        moves = "".join(f"{s} " if i < 3 else s for i, s in enumerate(steps))
        return f"{notation.format_roll(action.roll, '')}: {moves}"
    if action.action == "double":
        return f" Doubles => {action.cube}"
    return " Takes" if action.action == "take" else " Drops"


def _cells(actions: Sequence[MatAction]) -> List[Optional[int]]:
    """The cell of each action in the .mat grid (None for a win): cell ``i`` is player
    ``i % 2``'s, on line ``i // 2 + 1``, the first cell 1 when player 1 begins (as GNU
    Backgammon's ExportGameJF lays them out)."""
    out: List[Optional[int]] = []
    cell = 0
    for action in actions:
        if isinstance(action, Win):
            out.append(None)
            continue
        if cell == 0 and action.side == BLACK:
            cell = 1
        out.append(cell)
        cell += 1
    return out


def numbered(actions: Sequence[MatAction]) -> Tuple[MatAction, ...]:
    """The actions numbered by their line of the .mat grid (cell ``i`` is player ``i % 2``'s,
    on line ``i // 2 + 1``), as :func:`read_mat` reads them."""
    items = checks.bounded(actions, checks.MAX_ITEMS)
    if items is None or not all(isinstance(a, (RecordedTurn, RecordedCube, Win)) for a in items):
        raise InvalidRecordError(f"actions are RecordedTurn, RecordedCube and Win values, not "
                                 f"{actions!r}"[:200])
    actions = items
    return tuple(dataclasses.replace(action, number=cell // 2 + 1)
                 if cell is not None and not isinstance(action, Win) else action
                 for action, cell in zip(actions, _cells(actions)))


def match_games(match: Match) -> List[MatGame]:
    """The games of a :class:`~fastnardy.Match` (short or long nardy under the default
    variants) as ``.mat`` games (for :func:`write_mat`): each with the score before it, its
    turns, offers and answers in the order they were made, and ``Wins N points`` once it is
    over (C1, C2, C6)."""
    if not isinstance(match, Match):
        raise InvalidRecordError(f"match_games needs a Match, not {match!r}")
    if match.rules not in (_SHORT, _VARIATIONS["long nardy"]):
        raise InvalidRecordError(f"a .mat file holds short or long nardy under the default "
                                 f"variants, not {match.rules!r}")
    games: List[MatGame] = []
    totals = [0, 0]
    for number, game in enumerate(match.games, 1):
        record = game.to_record()
        actions: List[MatAction] = list(record.actions())
        outcome = game.outcome()
        if outcome is not None:
            actions.append(Win(outcome.winner, outcome.points))
        games.append(MatGame(match.length, number, match.players, (totals[0], totals[1]),
                             numbered(actions), match.rules))
        if outcome is not None:
            totals[outcome.winner == BLACK] += outcome.points
    return games


def is_mat(text: str, name: str = "") -> bool:
    """A GNU Backgammon match export, by the file name's ``.mat`` extension or by its content
    (a `` N point match`` line before anything but comments)."""
    if not isinstance(text, str) or not isinstance(name, str):
        raise InvalidRecordError(f"a record and its file name are text, not {text!r} and "
                                 f"{name!r}")
    if name.lower().endswith(".mat"):
        return True
    for _, raw in numbered_lines(text):
        line = raw.strip()
        if line and not line.startswith(";"):
            return re.fullmatch(r"[0-9]+ point match", line) is not None
    return False
