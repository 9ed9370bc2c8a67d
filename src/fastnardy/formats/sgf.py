"""GNU Backgammon's SGF match files (its native format, short nardy), read and written.

SGF (FF[4]) holds a match as one game tree a game, each a sequence of nodes ``;PROP[value]``.
GNU Backgammon's backgammon (``GM[6]``) uses, and fastnardy reads and writes:

* the root node: ``MI[length:N][game:K][ws:W][bs:B]`` (the match's length, 0 for money play,
  the game's number from 0 and the scores before it), ``PW``/``PB`` the players (W is gnubg's
  player 0, fastnardy's white; B player 1, black), ``RU`` the rules (``Crawford``,
  ``CrawfordGame``, ``Jacoby``; another variation such as ``Nackgammon`` is refused), ``RE``
  the result (``W+2``: white wins 2 points; a trailing ``R`` a resignation);
* one node a move: ``W[52lnst]`` the roll then each step as two letters, from and to, in
  the mover's own numbering (``a``-``x`` points 1-24 for white, 24-1 for black, ``y`` the
  bar, ``z`` off; nothing after the roll: a pass), and ``W[double]``, ``B[take]``,
  ``B[drop]``.

Analysis, comments and marks (``A``, ``DA``, ``C``, ``GS`` …) are read over and not written.
The games read are :class:`fastnardy.formats.mat.MatGame` values, as a ``.mat`` export's:
the same replay (:meth:`~fastnardy.formats.mat.MatGame.to_record`), the same analysis. Long
nardy has no SGF (GNU Backgammon cannot hold it): writing a long game is refused.
Whatever does not read raises :class:`fastnardy.errors.InvalidRecordError` naming it.
"""

from __future__ import annotations

import re
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

from .. import checks, notation
from ..basics import BLACK, WHITE
from ..errors import InvalidRecordError, shown
from ..record import ROLLS, RecordedCube, RecordedTurn, Win
from ..rules import Rules
from .mat import MatAction, MatGame, numbered

__all__ = ["is_sgf", "read_sgf", "write_sgf"]

#: The largest property value read (gnubg's analysis of one move is a few kilobytes).
MAX_VALUE = 1 << 20
_COLOURS = {"W": WHITE, "B": BLACK}
_STEP = re.compile(r"[1-6]{2}((?:[a-z]{2}){0,4})")
_NAME = re.compile(r"[A-Z]{1,8}")  # a property's name
_Node = Dict[str, List[str]]


def is_sgf(text: str, name: str = "") -> bool:
    """An SGF file, by the name's ``.sgf`` extension or by its content (``(;`` first)."""
    return (isinstance(name, str) and name.lower().endswith(".sgf")) or \
        (isinstance(text, str) and text.lstrip().startswith("(;"))


# --------------------------------------------------------------------------- reading

def read_sgf(text: str) -> List[MatGame]:
    """The backgammon games of an SGF file (module docstring), in order."""
    if not isinstance(text, str):
        raise InvalidRecordError(f"an SGF file is text, not {type(text).__name__}")
    games = [_game(nodes, number) for number, nodes in enumerate(_trees(text), 1)]
    if not games:
        raise InvalidRecordError("no game in the SGF file: expected '(;FF[4]GM[6]...)'")
    return games


def _trees(text: str) -> Iterator[List[_Node]]:
    """Each game tree's main line of nodes (the variations after the first at a branching
    are not read: gnubg writes none)."""
    at, size = 0, len(text)
    while True:
        at = _skip(text, at)
        if at == size:
            return
        if text[at] != "(":
            raise InvalidRecordError(f"SGF: expected '(' at character {at:,}, not "
                                     f"{shown(text[at:at + 20])}")
        nodes, at = _tree(text, at + 1)
        yield nodes


def _tree(text: str, at: int) -> Tuple[List[_Node], int]:
    """The nodes of the tree opened just before ``at`` (the first variation followed at
    each branching: the main line), and where it closes."""
    nodes: List[_Node] = []
    opened = [0]  # per open level: the variations begun there so far
    main = [True]  # per open level: whether it lies on the main line
    size = len(text)
    while True:
        at = _skip(text, at)
        if at == size:
            raise InvalidRecordError("SGF: the file ends inside a game (a ')' is missing)")
        char = text[at]
        if char == ";":
            node, at = _node(text, at + 1)
            if main[-1]:
                nodes.append(node)
        elif char == "(":
            at += 1
            main.append(main[-1] and opened[-1] == 0)  # a later sibling is a side line
            opened[-1] += 1
            opened.append(0)
        elif char == ")":
            at += 1
            if len(opened) == 1:
                return nodes, at
            opened.pop()
            main.pop()
        else:
            raise InvalidRecordError(f"SGF: expected ';', '(' or ')' at character {at:,}, not "
                                     f"{shown(text[at:at + 20])}")


def _node(text: str, at: int) -> Tuple[_Node, int]:
    """The properties of the node that begins at ``at``, and where it ends."""
    node: _Node = {}
    size = len(text)
    while True:
        at = _skip(text, at)
        match = _NAME.match(text, at)
        if match is None:
            return node, at
        name, at = match.group(), _skip(text, match.end())
        values = node.setdefault(name, [])
        if at == size or text[at] != "[":
            raise InvalidRecordError(f"SGF: property {name} has no value at character {at:,}")
        while at < size and text[at] == "[":
            value, at = _value(text, at + 1)
            values.append(value)
            at = _skip(text, at)


def _value(text: str, at: int) -> Tuple[str, int]:
    """A property value from ``at`` (just past its ``[``): ``\\`` escapes the next character;
    returns the value and where it ends (past its ``]``)."""
    parts, start = [], at
    while True:
        end = text.find("]", at)
        if end < 0 or end - start > MAX_VALUE:
            raise InvalidRecordError(f"SGF: a property value at character {start:,} is not "
                                     f"closed within {MAX_VALUE:,} characters")
        backslashes = len(text[at:end]) - len(text[at:end].rstrip("\\"))
        if backslashes % 2 == 0:  # an unescaped ']'
            parts.append(text[at:end])
            break
        parts.append(text[at:end + 1])
        at = end + 1
    return re.sub(r"\\(.)", r"\1", "".join(parts), flags=re.S), end + 1


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at


def _one(node: _Node, name: str, default: str = "") -> str:
    return node.get(name, [default])[0]


def _game(nodes: List[_Node], number: int) -> MatGame:
    """One game tree's game (module docstring)."""
    if not nodes:
        raise InvalidRecordError(f"SGF game {number} has no root node")
    root = nodes[0]
    if _one(root, "GM", "1") != "6":
        raise InvalidRecordError(f"SGF game {number} is not backgammon (GM[6]), but "
                                 f"GM[{shown(_one(root, 'GM', '1'))}]")
    rules = _one(root, "RU").split(":") if "RU" in root else []
    other = [rule for rule in rules if rule not in ("Crawford", "CrawfordGame", "Jacoby", "")]
    if other:
        raise InvalidRecordError(f"SGF game {number}: the rules {shown(':'.join(other))} are "
                                 f"not short nardy's (backgammon's)")
    info = dict(item.split(":", 1) for item in root.get("MI", []) if ":" in item)
    try:
        length = int(info.get("length", "0"))
        scores = (int(info.get("ws", "0")), int(info.get("bs", "0")))
        game = int(info.get("game", str(number - 1))) + 1
    except ValueError:
        raise InvalidRecordError(f"SGF game {number}: MI holds numbers, not "
                                 f"{shown(str(root.get('MI')))}") from None
    players = (_one(root, "PW", "white").strip() or "white",
               _one(root, "PB", "black").strip() or "black")
    actions: List[MatAction] = []
    stake = 1
    for node in nodes[1:]:
        for colour, side in _COLOURS.items():
            for value in node.get(colour, []):
                action, stake = _action(value, side, stake, number)
                actions.append(action)
    result = _one(root, "RE")
    if result:
        match = re.fullmatch(r"([WB])\+([0-9]{1,9})R?", result.strip())
        if match is None:
            raise InvalidRecordError(f"SGF game {number}: the result RE is 'W+N' or 'B+N', not "
                                     f"{shown(result)}")
        actions.append(Win(_COLOURS[match.group(1)], int(match.group(2))))
    try:
        return MatGame(length, game, players, scores, numbered(actions))
    except InvalidRecordError as error:
        raise InvalidRecordError(f"SGF game {number}: {error}") from None


def _action(value: str, side: str, stake: int, number: int) -> Tuple[MatAction, int]:
    """A move node's value as an action of ``side`` (and the stake after it)."""
    word = value.strip()
    if word == "double":
        return RecordedCube(1, side, "double", stake * 2), stake * 2
    if word in ("take", "drop"):
        return RecordedCube(1, side, word, stake), stake
    match = _STEP.fullmatch(word)
    if match is None:
        raise InvalidRecordError(f"SGF game {number}: a move is the roll and its steps "
                                 f"(W[52lnst]), double, take or drop; not {shown(value)}")
    letters = match.group(1)
    steps = [f"{_point(letters[i], side)}/{_point(letters[i + 1], side)}"
             for i in range(0, len(letters), 2)]
    return RecordedTurn(1, side, ROLLS[word[:2]], " ".join(steps) or notation.PASS), stake


def _point(letter: str, side: str) -> str:
    """An SGF point letter in the mover's numbering (module docstring)."""
    if letter == "y":
        return "bar"
    if letter == "z":
        return "off"
    index = ord(letter) - ord("a")
    return str(index + 1 if side == WHITE else 24 - index)


# --------------------------------------------------------------------------- writing

def write_sgf(games: Sequence[MatGame], crawford: bool = True) -> str:
    """The games (one match's, :func:`fastnardy.formats.mat.match_games`) as GNU
    Backgammon's SGF, a game tree each; ``crawford``: the match's Crawford rule (C7)."""
    items = checks.bounded(games, checks.MAX_ITEMS) or []
    if not items or not all(isinstance(game, MatGame) for game in items):
        raise InvalidRecordError(f"write_sgf needs a non-empty sequence of MatGame, "
                                 f"not {games!r}")
    crawford = checks.flag(crawford, "crawford")
    if any(game.rules != Rules.short() for game in items):
        raise InvalidRecordError("SGF holds short nardy (backgammon) only: GNU Backgammon "
                                 "cannot hold long nardy")
    out = []
    crawford_game = _crawford_game(items) if crawford else None
    for game in items:
        rules = ["Crawford"] if crawford and game.match_length else []
        if game.number == crawford_game:
            rules.append("CrawfordGame")
        root = (f"(;FF[4]GM[6]CA[UTF-8]AP[fastnardy]MI[length:{game.match_length}]"
                f"[game:{game.number - 1}][ws:{game.scores[0]}][bs:{game.scores[1]}]"
                f"PW[{_escaped(game.players[0])}]PB[{_escaped(game.players[1])}]"
                + (f"RU[{':'.join(rules)}]" if rules else ""))
        result = game.result
        if result is not None:
            root += f"RE[{'W' if result.side == WHITE else 'B'}+{result.points}]"
        nodes = [_node_text(action) for action in game.actions if not isinstance(action, Win)]
        out.append(root + "\n" + "".join(f";{node}\n" for node in nodes) + ")\n")
    return "".join(out)


def _crawford_game(games: Sequence[MatGame]) -> Optional[int]:
    """The number of the Crawford game (C7): the first game that begins with exactly one
    side needing 1 point of a match longer than 1."""
    for game in games:
        length = game.match_length
        if length > 1 and sum(score == length - 1 for score in game.scores) == 1:
            return game.number
    return None


def _node_text(action: MatAction) -> str:
    colour = "W" if action.side == WHITE else "B"
    if isinstance(action, RecordedCube):
        return f"{colour}[{action.action}]"
    assert isinstance(action, RecordedTurn)
    letters = "".join(_letter(point, action.side) for step in _steps(action.turn)
                      for point in step)
    return f"{colour}[{action.roll[0]}{action.roll[1]}{letters}]"


def _steps(turn: str) -> List[Tuple[str, str]]:
    """A turn's notation as (from, to) pairs of single steps (as gnubg writes moves)."""
    if turn == notation.PASS:
        return []
    out = []
    for source, target in notation.parse_turn(turn):
        out.append((str(source), str(target)))
    return out


def _letter(point: str, side: str) -> str:
    number = int(point)
    if number == 25:
        return "y"
    if number == 0:
        return "z"
    return chr(ord("a") + (number - 1 if side == WHITE else 24 - number))


def _escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")
