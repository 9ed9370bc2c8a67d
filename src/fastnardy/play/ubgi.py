"""fastnardy as a UBGI engine (Universal Backgammon Interface v0.2, the protocol of the duel
runner bgci): ``fastnardy ubgi`` reads one command a line on stdin and answers on stdout,
nothing else printed there.

Commands (controller to engine) and answers:

* ``ubgi``: ``id name fastnardy <version>``, ``id author``, ``proto 0.2``, ``ubgiok``;
  ``isready``: ``readyok`` (the player loaded); ``quit`` (or the end of input) ends it;
* ``newgame``: the position and dice forgotten;
* ``position gnubgid <POSITION_ID>[:<MATCH_ID>]``, ``position xgid <XGID>`` (short nardy:
  with a Match ID or an XGID, the cube, score and dice too; :mod:`fastnardy.formats.ids`) or
  ``position fastnardy <position string>`` (either game); ``dice <d1> <d2>``;
* ``go`` or ``go chequer``: ``bestmove <from/to ...>`` (``bar``, ``off``; ``pass`` when no
  step can be played); ``go cube``: ``bestcube double|nodouble``; ``go turn``:
  ``bestturn cube=<double|nodouble> move=<the move>`` (the move the dice play, after a
  take); each answer after an ``info`` line (``depth``, ``score``: the cubeful equity to the
  side on roll, ``time_ms``, ``pv``);
* ``set <key> <value>``, ``get <key>`` (``value <key> <value>``) and ``keys`` (a ``key`` line
  each): ``engine.ply`` 1-4 (UBGI's plies: fastnardy's 0-3), ``engine.evaluator`` (``net``,
  a weights file, ``greedy`` or ``random``), ``game.variant`` (``backgammon`` = short nardy,
  ``long``, or a fastnardy rules field such as ``long(head_rule=tournament)``).

Errors are one line, ``error <code> <detail>``, with the four codes of the spec:
``bad_command`` (unknown or malformed), ``bad_value`` (a value that does not read or breaks
a rule, its rule id named), ``bad_state`` (``go`` without a position or dice, or once the game
is over) and ``unsupported`` (a key or position format the engine does not have). The
engine goes on after every error.
"""

from __future__ import annotations

import time
from typing import IO, Dict, List, NamedTuple, Optional, Tuple

from .. import __version__, checks
from .._kernel import dice_pair
from .._utils.files import bounded_lines
from ..basics import Roll
from ..batch import encode
from ..errors import FastNardyError
from ..notation import format_rules, parse_rules
from ..position import Position, Turn
from ..rules import Rules
from ..search.cubeful import Cube
from .players import Player, player

__all__ = ["Engine", "KEYS", "Key", "run"]

MAX_LINE = 4096  # characters of one command; a longer line is a bad_command


class Key(NamedTuple):
    """A key the engine has: its type as ``keys`` declares it, its default, its meaning."""

    kind: str
    default: str
    description: str


KEYS: Dict[str, Key] = {
    "engine.ply": Key("int 1..4", "1", "search depth in UBGI plies (1: the network alone)"),
    "engine.evaluator": Key("string *", "net", "net, a weights file, greedy or random"),
    "game.variant": Key("string *", "backgammon",
                        "backgammon (short nardy), long, or a fastnardy rules field"),
}


class Engine:
    """The protocol's state (module docstring): :meth:`handle` answers one line."""

    def __init__(self) -> None:
        self.values = {name: key.default for name, key in KEYS.items()}
        self.position: Optional[Position] = None
        self.dice: Optional[Roll] = None
        self.cube: Optional[Cube] = None
        self._player: Optional[Player] = None
        self._setting = ""

    def close(self) -> None:
        if self._player is not None:
            self._player.close()
            self._player = None

    @property
    def rules(self) -> Rules:
        """The rules of ``game.variant``."""
        variant = self.values["game.variant"]
        return Rules.short() if variant == "backgammon" else parse_rules(variant)

    def handle(self, line: str) -> Tuple[List[str], bool]:
        """The answer lines to one command line, and whether the engine ends (``quit``)."""
        words = checks.text(line, "a UBGI command line").split()
        if not words:
            return [], False
        command, arguments = words[0], words[1:]
        handler = _COMMANDS.get(command)
        if handler is None:
            return [f"error bad_command unknown command {command[:40]}"], False
        if command == "quit":
            return [], True
        try:
            return handler(self, arguments), False
        except _Error as error:
            return [f"error {error.code} {error.detail}"], False
        except FastNardyError as error:  # a value that breaks a rule: its rule id named
            return [f"error bad_value {' '.join(str(error).split())}"[:500]], False

    # ------------------------------------------------------------------ commands
    def _ubgi(self, arguments: List[str]) -> List[str]:
        return [f"id name fastnardy {__version__}", "id author the fastnardy authors",
                "proto 0.2", "ubgiok"]

    def _isready(self, arguments: List[str]) -> List[str]:
        self._bot()
        return ["readyok"]

    def _newgame(self, arguments: List[str]) -> List[str]:
        self.position, self.dice, self.cube = None, None, None
        return []

    def _position(self, arguments: List[str]) -> List[str]:
        if len(arguments) < 2:
            raise _Error("bad_command", "expected: position gnubgid|xgid|fastnardy <id>")
        kind, text = arguments[0], " ".join(arguments[1:])
        if kind == "fastnardy":
            position = Position.from_string(text)
            if position.rules.game != self.rules.game:
                raise _Error("bad_value", f"a {position.rules.game}-nardy position where "
                                          f"game.variant is {self.values['game.variant']}")
            self.position, self.dice, self.cube = position, None, None
            return []
        if kind not in ("gnubgid", "xgid"):
            raise _Error("unsupported", f"position {kind[:40]}")
        if self.rules.game != "short":
            raise _Error("bad_state", "gnubgid and xgid are short nardy's: set game.variant "
                                      "backgammon, or give position fastnardy")
        from ..formats import ids

        if kind == "xgid":
            state = ids.read_xgid(text if text.startswith("XGID=") else f"XGID={text}")
        elif ":" in text:
            state = ids.read_gnubg_ids(text)
        else:
            state = ids.MatchState(Position.from_gnubg_id(text))
        if state.doubled:
            raise _Error("unsupported", "an offer awaiting its answer")
        rules = self.rules
        position = Position.from_points(rules, state.position.white_points,
                                        state.position.black_points, state.position.turn,
                                        state.position.white_bar, state.position.black_bar)
        self.position, self.dice = position, state.dice
        self.cube = state.cube_context(rules)
        return []

    def _dice(self, arguments: List[str]) -> List[str]:
        if len(arguments) != 2 or not all(a.isdigit() and len(a) == 1 for a in arguments):
            raise _Error("bad_command", "expected: dice <d1> <d2>")
        self.dice = dice_pair((int(arguments[0]), int(arguments[1])))
        return []

    def _go(self, arguments: List[str]) -> List[str]:
        role = arguments[0] if arguments else "chequer"
        if role not in ("chequer", "cube", "turn") or len(arguments) > 1:
            raise _Error("bad_command", "expected: go [chequer|cube|turn]")
        position = self.position
        if position is None:
            raise _Error("bad_state", "missing position")
        if position.outcome() is not None:
            raise _Error("bad_state", "the game is over (T4)")
        started = time.perf_counter()
        bot, cube = self._bot(), self.cube or Cube.money(position.rules)
        double = role != "chequer" and bool(
            bot.doubles(position.rules, encode([position]), [cube])[0])
        offer = "double" if double else "nodouble"
        if role == "cube":
            return [self._info(started, position, cube, None), f"bestcube {offer}"]
        if self.dice is None:
            raise _Error("bad_state", "missing dice")
        turn = bot.turn(position, self.dice, cube.taken() if double else cube)
        move = _move_text(turn)
        answer = f"bestturn cube={offer} move={move}" if role == "turn" else f"bestmove {move}"
        return [self._info(started, position, cube, turn), answer]

    def _set(self, arguments: List[str]) -> List[str]:
        if len(arguments) < 2:
            raise _Error("bad_command", "expected: set <key> <value>")
        name, value = arguments[0], " ".join(arguments[1:])
        if name not in KEYS:
            raise _Error("unsupported", name[:60])
        if name == "engine.ply" and (not value.isdigit() or not 1 <= int(value) <= 4):
            raise _Error("bad_value", "engine.ply must_be 1..4")
        if name == "game.variant" and value != "backgammon":
            value = format_rules(parse_rules(value))  # FastNardyError: bad_value
        previous = self.values[name]
        self.values[name] = value
        if name != "game.variant":
            try:
                self._bot()
            except FastNardyError:
                self.values[name] = previous
                raise
        elif previous != value:
            self.close()
            self.position, self.dice, self.cube = None, None, None
        return []

    def _get(self, arguments: List[str]) -> List[str]:
        if len(arguments) != 1:
            raise _Error("bad_command", "expected: get <key>")
        if arguments[0] not in KEYS:
            raise _Error("unsupported", arguments[0][:60])
        return [f"value {arguments[0]} {self.values[arguments[0]]}"]

    def _keys(self, arguments: List[str]) -> List[str]:
        return [f"key {name} {key.kind} {key.default} {key.description}"
                for name, key in KEYS.items()]

    def _stop(self, arguments: List[str]) -> List[str]:
        return []  # every search here ends before the next line is read

    # ------------------------------------------------------------------ helpers
    def _bot(self) -> Player:
        """The player of the keys (kept while they stay)."""
        evaluator = self.values["engine.evaluator"]
        plies = int(self.values["engine.ply"]) - 1
        setting = evaluator if evaluator in ("greedy", "random") else f"{evaluator}:{plies}"
        if self._player is None or setting != self._setting:
            self.close()
            self._player, self._setting = player(setting, self.rules), setting
        return self._player

    def _info(self, started: float, position: Position, cube: Cube,
              turn: Optional[Turn]) -> str:
        line = (f"info depth {self.values['engine.ply']} time_ms "
                f"{round(1000 * (time.perf_counter() - started))}")
        seen = self._bot().cube_equities(position.rules, encode([position]), [cube])
        if seen is not None:
            line += f" score {float(min(seen[0, 0], max(seen[0, 1], seen[0, 2]))):.4f}"
        return line + ("" if turn is None else f" pv {_move_text(turn)}")


class _Error(Exception):
    """A protocol error: its code and detail."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code, self.detail = code, detail


_COMMANDS = {"ubgi": Engine._ubgi, "isready": Engine._isready, "newgame": Engine._newgame,
             "position": Engine._position, "dice": Engine._dice, "go": Engine._go,
             "set": Engine._set, "get": Engine._get, "keys": Engine._keys,
             "stop": Engine._stop, "quit": Engine._stop}


def _move_text(turn: Turn) -> str:
    """A turn as UBGI writes a move: each step ``from/to`` (``bar``, ``off``), or ``pass``."""
    if turn.is_pass():
        return "pass"
    return " ".join(f"{'bar' if src == 25 else src}/{'off' if dst == 0 else dst}"
                    for src, dst, *_ in turn.steps)


def run(stdin: IO[str], stdout: IO[str]) -> None:
    """The engine on these streams until ``quit`` or the end of input."""
    engine = Engine()
    try:
        for line in bounded_lines(stdin, MAX_LINE):
            answers, done = engine.handle(line) if line is not None else \
                ([f"error bad_command a line is at most {MAX_LINE} characters"], False)
            for answer in answers:
                stdout.write(answer + "\n")
            stdout.flush()
            if done:
                return
    finally:
        engine.close()
