"""Cross-checking another engine against fastnardy: a perftree for nardy.

:func:`crosscheck` asks another engine for its perft divide, compares it with fastnardy's by
**child position** (T1: turns are equal when their positions are), walks down to the first
position and roll where the two differ, and returns a :class:`Difference`: the turns the
engine misses, the extra turns it lists with the rule each breaks, the children it lists more
than once, and the path of turns from the root. ``fastnardy crosscheck ENGINE POSITION DEPTH``
is the same from the command line (exit 0 agree, 1 a difference, 2 bad input or an engine
failure).

The protocol (version 1), one request a line on the engine's stdin, UTF-8::

    divide DEPTH ROLL POSITION

``ROLL`` is written high die first (``6-5``); ``POSITION`` is in the exchange format. The
engine answers with one line per legal turn of that roll and position, then a line ``end``::

    COUNT CHILD
    COUNT CHILD | STEPS

``CHILD`` is the position after the turn (the other side to move), ``COUNT`` is T5's
perft(CHILD, DEPTH - 1) (so 1 at DEPTH 1; a game-over child counts 1), and ``STEPS``, when
given, is the turn in notation (``24/18 18/13``), which names the rule an illegal child breaks
without a search. A pass is one child, the position itself with the other side to move. An
answer ``error MESSAGE`` stops the check (an engine failure). After the last request the
driver sends ``quit`` and closes stdin.

Exchange formats: ``string`` (fastnardy's position string, both games; the default for long
nardy) and ``gnubg`` (a GNU Backgammon Position ID, short nardy; the default there). A GNU
Backgammon ID holds no side to move and no rule variant: the player on roll of a request's ID
is the side to move, and a child's ID is written for its player on roll (the opponent), as
GNU Backgammon shows the position after a move. The engine may answer in either format; the
driver reads each line by its shape.

One-shot mode (``one_shot=True``, ``--one-shot``), as perftree runs engines: each request
runs ``ENGINE DEPTH ROLL POSITION`` (the position one argument) and reads the same answer from
its stdout, ``end`` optional, exit status 0.

Every read is bounded: an answer must arrive within ``timeout`` seconds, lines are at most
4,096 characters and an answer at most 10,000 lines; a crash, a timeout or a line that does
not read raises :class:`~fastnardy.errors.EngineError` naming the request and the line.
"""

from __future__ import annotations

import queue
import re
import shlex
import subprocess
import threading
from collections import deque
from dataclasses import dataclass
from types import TracebackType
from typing import IO, Deque, Dict, List, Optional, Sequence, Tuple, Type, Union

from . import checks
from ._kernel import dice_pair
from .basics import ALL_ROLLS, BLACK, MAX_DEPTH, WHITE, Roll, mirror
from .counting import perft
from .errors import (EngineError, FastNardyError, IllegalTurnError, InvalidPositionError,
                     NotationError)
from .gnubg import ID_LENGTH, decode_position_id
from .notation import format_roll, format_rules, format_steps, parse_position
from .position import Position, Turn

__all__ = ["FORMATS", "Difference", "EngineChild", "ExtraTurn", "OneShotEngine",
           "ProcessEngine", "crosscheck", "explain"]

FORMATS = ("string", "gnubg")
MAX_LINE = 4096
MAX_LINES = 10_000

Key = Tuple[Tuple[int, ...], int, Tuple[int, ...], int]  # a child in the parent mover's frame

_GNUBG_ID = re.compile(f"[A-Za-z0-9+/]{{{ID_LENGTH}}}")
_ANSWER = re.compile(r"(\d{1,30})\s+([^|]+?)\s*(?:\|\s*(.*?))?\s*")
_ROLLS: Tuple[Roll, ...] = tuple(sorted(((max(r), min(r)) for r in ALL_ROLLS), reverse=True))


# --------------------------------------------------------------------------- engines

@dataclass(frozen=True)
class EngineChild:
    """One line of an engine's answer: the child as the engine wrote it, its count and the
    steps it gave (None when it gave none)."""

    count: int
    text: str
    steps: Optional[str]


def _request(fmt: str, depth: object, roll: object, position: object) -> Tuple[str, ...]:
    """The request's words, ``divide DEPTH ROLL POSITION``, for a checked request."""
    if not isinstance(position, Position):
        raise InvalidPositionError(f"expected a Position, not {position!r}")
    dice = dice_pair(roll)
    plies = checks.number(depth, "depth", 1, MAX_DEPTH)
    if fmt == "gnubg" and position.rules.game != "short":
        raise FastNardyError("the gnubg exchange format is for short nardy only")
    text = position.gnubg_id() if fmt == "gnubg" else position.to_string()
    return ("divide", str(plies), format_roll(dice), text)


def _read_answer(lines: Sequence[str], request: str, name: str) -> List[EngineChild]:
    """An answer's lines (up to ``end``) as EngineChild values; a line that does not read is
    an EngineError quoting it."""
    children = []
    for line in lines:
        if line.startswith("error"):
            raise EngineError(f"{name} answered {request!r} with {line!r}")
        match = _ANSWER.fullmatch(line)
        if match is None:
            raise EngineError(f"{name} answered {request!r} with a line that does not read: "
                              f"{line!r} (expected 'COUNT CHILD', 'COUNT CHILD | STEPS', "
                              f"'end' or 'error MESSAGE')")
        children.append(EngineChild(int(match.group(1)), match.group(2), match.group(3)))
    return children


def _check_options(fmt: object, timeout: object) -> Tuple[str, float]:
    if not isinstance(fmt, str) or fmt not in FORMATS:
        raise FastNardyError(f"the exchange format must be one of {', '.join(FORMATS)}, "
                             f"not {fmt!r}")
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) \
            or not 0 < timeout <= 86_400:
        raise FastNardyError(f"timeout must be a number of seconds, more than 0 and at most "
                             f"86400, not {timeout!r}")
    return fmt, float(timeout)


def _name(command: Sequence[str]) -> str:
    """The engine's command as messages quote it (at most 80 characters)."""
    text = shlex.join(command)
    return text if len(text) <= 80 else text[:77] + "..."


def _command(command: object) -> List[str]:
    """ENGINE as a command: a string split as the shell would, or a sequence of words."""
    if isinstance(command, str):
        try:
            words = shlex.split(command)
        except ValueError as exc:
            raise FastNardyError(f"cannot read the engine command {command!r}: {exc}") from None
    elif isinstance(command, (list, tuple)) and all(isinstance(w, str) for w in command):
        words = list(command)
    else:
        raise FastNardyError(f"the engine command must be a string or a list of strings, "
                             f"not {command!r}")
    if not words:
        raise FastNardyError("the engine command is empty")
    return words


class ProcessEngine:
    """One long-running engine process speaking the protocol on stdin/stdout, started by the
    first request (a context manager: leaving it sends ``quit`` and ends the process)."""

    def __init__(self, command: Union[str, Sequence[str]], format: str = "string",
                 timeout: float = 60.0) -> None:
        self.command = _command(command)
        self.format, self.timeout = _check_options(format, timeout)
        self.name = _name(self.command)
        self.requests = 0
        self._process: "Optional[subprocess.Popen[str]]" = None
        self._lines: "queue.Queue[Optional[str]]" = queue.Queue()
        self._stderr: Deque[str] = deque(maxlen=5)

    def _started(self) -> "subprocess.Popen[str]":
        """The engine's process, started on first use, with threads reading its output."""
        if self._process is None:
            try:
                self._process = subprocess.Popen(
                    self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE, text=True, encoding="utf-8", errors="replace",
                    bufsize=1)
            except OSError as exc:
                raise EngineError(f"cannot start the engine {self.name!r}: "
                                  f"{exc.strerror}") from None
            assert self._process.stdout is not None and self._process.stderr is not None
            for target, stream in ((self._read_stdout, self._process.stdout),
                                   (self._read_stderr, self._process.stderr)):
                threading.Thread(target=target, args=(stream,), daemon=True).start()
        return self._process

    def _read_stdout(self, stream: IO[str]) -> None:
        while True:
            line = stream.readline(MAX_LINE + 1)
            if not line:
                break
            self._lines.put(line)
        self._lines.put(None)

    def _read_stderr(self, stream: IO[str]) -> None:
        for line in iter(lambda: stream.readline(MAX_LINE), ""):
            self._stderr.append(line.rstrip("\n"))

    def _failure(self, what: str) -> EngineError:
        """An EngineError for ``what``, with the exit status and the last stderr lines."""
        try:
            status = self._started().wait(timeout=1)
            what += f" (exit status {status})"
        except subprocess.TimeoutExpired:
            pass
        if self._stderr:
            what += f"; its last stderr line: {self._stderr[-1]!r}"
        return EngineError(what)

    def divide(self, position: Position, roll: Roll, depth: int) -> List[EngineChild]:
        """The engine's answer to ``divide DEPTH ROLL POSITION``."""
        request = " ".join(_request(self.format, depth, roll, position))
        process = self._started()
        self.requests += 1
        try:
            assert process.stdin is not None
            process.stdin.write(request + "\n")
            process.stdin.flush()
        except (OSError, ValueError):
            raise self._failure(f"the engine {self.name!r} stopped reading before "
                                f"{request!r}") from None
        lines: List[str] = []
        while True:
            try:
                line = self._lines.get(timeout=self.timeout)
            except queue.Empty:
                self.close()
                raise EngineError(f"the engine {self.name!r} did not answer {request!r} within "
                                  f"{self.timeout:g} s") from None
            if line is None:
                raise self._failure(f"the engine {self.name!r} exited while answering "
                                    f"{request!r}")
            if len(line) > MAX_LINE or len(lines) >= MAX_LINES:
                self.close()
                raise EngineError(f"the engine {self.name!r} answered {request!r} with a line "
                                  f"longer than {MAX_LINE} characters or more than "
                                  f"{MAX_LINES} lines")
            line = line.strip()
            if line == "end" or line.startswith("error"):
                answer = lines + ([] if line == "end" else [line])
                return _read_answer(answer, request, f"the engine {self.name!r}")
            if line:
                lines.append(line)

    def close(self) -> None:
        """Send ``quit``, close stdin and end the process (killed after 2 s)."""
        process = self._process
        if process is not None and process.poll() is None:
            try:
                assert process.stdin is not None
                process.stdin.write("quit\n")
                process.stdin.close()
            except (OSError, ValueError):
                pass
            try:
                process.wait(timeout=2)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def __enter__(self) -> "ProcessEngine":
        return self

    def __exit__(self, kind: Optional[Type[BaseException]], value: Optional[BaseException],
                 traceback: Optional[TracebackType]) -> None:
        self.close()


class OneShotEngine:
    """An engine run once per request as ``ENGINE DEPTH ROLL POSITION`` (as perftree runs
    chess engines), answering on stdout."""

    def __init__(self, command: Union[str, Sequence[str]], format: str = "string",
                 timeout: float = 60.0) -> None:
        self.command = _command(command)
        self.format, self.timeout = _check_options(format, timeout)
        self.name = _name(self.command)
        self.requests = 0

    def divide(self, position: Position, roll: Roll, depth: int) -> List[EngineChild]:
        """The engine's stdout for ``ENGINE DEPTH ROLL POSITION``."""
        words = _request(self.format, depth, roll, position)[1:]
        request = " ".join(words)
        self.requests += 1
        try:
            done = subprocess.run(self.command + list(words), capture_output=True, text=True,
                                  encoding="utf-8", errors="replace", timeout=self.timeout,
                                  check=False)
        except OSError as exc:
            raise EngineError(f"cannot start the engine {self.name!r}: {exc.strerror}") from None
        except subprocess.TimeoutExpired:
            raise EngineError(f"the engine {self.name!r} did not answer {request!r} within "
                              f"{self.timeout:g} s") from None
        if done.returncode != 0:
            last = done.stderr.strip().splitlines()[-1:] or [""]
            raise EngineError(f"the engine {self.name!r} exited with status {done.returncode} "
                              f"on {request!r}; its last stderr line: {last[0]!r}")
        lines = [line.strip() for line in done.stdout.splitlines() if line.strip()]
        if lines and lines[-1] == "end":
            lines.pop()
        if len(lines) > MAX_LINES or any(len(line) > MAX_LINE for line in lines):
            raise EngineError(f"the engine {self.name!r} answered {request!r} with a line "
                              f"longer than {MAX_LINE} characters or more than {MAX_LINES} "
                              f"lines")
        return _read_answer(lines, request, f"the engine {self.name!r}")

    def __enter__(self) -> "OneShotEngine":
        return self

    def __exit__(self, kind: Optional[Type[BaseException]], value: Optional[BaseException],
                 traceback: Optional[TracebackType]) -> None:
        pass


Engine = Union[ProcessEngine, OneShotEngine]


# --------------------------------------------------------------------------- children

def _key_of(child: Position) -> Key:
    """A child position in its parent mover's frame (the child's mover is the opponent)."""
    them, them_bar, me, me_bar = child.mover_frame()
    return tuple(me), me_bar, tuple(them), them_bar


def _read_child(parent: Position, text: str, name: str) -> Key:
    """An engine's child (position string or GNU Backgammon ID) in the parent mover's frame.
    The board is read as written, without T7's checks, so that an illegal child (say one that
    lands on an opponent's point) can be explained; one that does not read is an EngineError."""
    other = BLACK if parent.turn == WHITE else WHITE
    try:
        if _GNUBG_ID.fullmatch(text):
            if parent.rules.game != "short":
                raise InvalidPositionError("GNU Backgammon Position IDs are for short nardy")
            on_roll, on_roll_bar, mover, mover_bar = decode_position_id(text)
            return tuple(mover), mover_bar, tuple(on_roll), on_roll_bar
        rules, turn, white, white_bar, black, black_bar = parse_position(text)
    except FastNardyError as exc:
        raise EngineError(f"{name} gave a child that does not read: {text!r} ({exc})") from None
    if rules != parent.rules:
        raise EngineError(f"{name} gave a child under other rules, {format_rules(rules)}: "
                          f"{text!r}")
    if turn != other:
        raise EngineError(f"{name} gave a child with {turn} to move after {parent.turn}'s "
                          f"turn: {text!r}")
    if parent.turn == WHITE:
        return white, white_bar, black, black_bar
    return black, black_bar, white, white_bar


# --------------------------------------------------------------------------- explaining

@dataclass(frozen=True)
class ExtraTurn:
    """A child the engine lists that is not a legal turn: as the engine wrote it, the rule
    the turn breaks (the referee's id), the referee's reason, the steps that reach it (the
    engine's, or the first sequence in T2 order that reaches it; '' when none does) and its
    position string ('' when T7 refuses the position, say two colours on one point)."""

    text: str
    rule: str
    reason: str
    steps: str
    position: str = ""


def _relaxed_paths(parent: Position, roll: Roll, target: Key) -> List[List[Tuple[int, int]]]:
    """Step sequences of the dice of ``roll`` (every length, every order) that take the
    parent to ``target`` when every rule but the geometry is ignored: a step moves one own
    checker by one die (off past point 0), a lone opponent checker it lands on in short nardy
    goes to the bar, and anything may land anywhere. The sequences come in T2 order."""
    game = 0 if parent.rules.game == "long" else 1
    me, me_bar, opp, opp_bar = parent.mover_frame()
    dice = tuple(sorted(roll * 2 if roll[0] == roll[1] else roll))
    level: Dict[Tuple[Key, Tuple[int, ...]], List[Tuple[int, int]]] = {
        ((tuple(me), me_bar, tuple(opp), opp_bar), dice): []}
    found: List[List[Tuple[int, int]]] = []
    while level:
        following: Dict[Tuple[Key, Tuple[int, ...]], List[Tuple[int, int]]] = {}
        for (state, left), path in level.items():
            if state == target:
                found.append(path)
            for die in sorted(set(left), reverse=True):
                rest = list(left)
                rest.remove(die)
                for src in range(25, 0, -1):
                    moved = _relaxed_step(game, state, src, die)
                    if moved is not None:
                        following.setdefault((moved, tuple(rest)),
                                             path + [(src, max(src - die, 0))])
        level = following
    return sorted(found, key=lambda path: [(-src, dst) for src, dst in path])


def _relaxed_step(game: int, state: Key, src: int, die: int) -> Optional[Key]:
    me, me_bar, opp, opp_bar = state
    if (me_bar if src == 25 else me[src - 1]) == 0:
        return None
    mine, theirs = list(me), list(opp)
    if src == 25:
        me_bar -= 1
    else:
        mine[src - 1] -= 1
    dst = src - die
    if dst > 0:
        mine[dst - 1] += 1
        q = mirror(game, dst)
        if game == 1 and theirs[q - 1] == 1:
            theirs[q - 1] = 0
            opp_bar += 1
    return tuple(mine), me_bar, tuple(theirs), opp_bar


def explain(parent: Position, roll: Roll, text: str, steps: Optional[str] = None) -> ExtraTurn:
    """Why the child ``text`` (a position string or GNU Backgammon ID, the other side to
    move) is not a legal turn of ``parent`` for ``roll``: the rule its steps break, by the
    referee (:meth:`~fastnardy.Position.check_played`). The steps are the engine's when given, else the
    first sequence in T2 order of the roll's dice that reaches the child."""
    _request("string", 1, roll, parent)  # the checks of a request
    if not isinstance(text, str) or not (steps is None or isinstance(steps, str)):
        raise FastNardyError(f"a child and its steps are text, not {text!r} and {steps!r}")
    roll = dice_pair(roll)
    key = _read_child(parent, text, "the engine")
    legal = {_key_of(t.position) for t in parent.legal_turns(roll)}
    if key in legal:
        raise FastNardyError(f"{text!r} is a legal turn of this position and roll")
    try:
        position = parent._from_mover_frame(*key).to_string()
    except FastNardyError:
        position = ""
    tried: List[Tuple[str, Optional[FastNardyError]]] = []
    if steps is not None:
        tried.append((steps, _referee(parent, roll, steps)))
    tried += [(format_steps([(s, d, False) for s, d in path]),
               _referee(parent, roll, [(s, d) for s, d in path]))
              for path in _relaxed_paths(parent, roll, key)]
    for written, error in tried:
        if isinstance(error, IllegalTurnError):
            return ExtraTurn(text, error.rule, str(error)[len(error.rule) + 2:], written,
                             position)
    for written, error in tried:
        if isinstance(error, NotationError):
            return ExtraTurn(text, "T1", str(error)[4:], written, position)
    rule = "L4" if parent.rules.game == "long" else "S4"
    if tried and tried[0][1] is None:  # the engine's steps are legal: another position
        return ExtraTurn(text, "T1", f"the steps given, {tried[0][0]}, are a legal turn that "
                                     f"leads to another position", tried[0][0], position)
    return ExtraTurn(text, rule, f"no sequence of steps of the dice {format_roll(roll)} "
                                 f"leads to it", "", position)


def _referee(parent: Position, roll: Roll, steps: object) -> Optional[FastNardyError]:
    """The referee's refusal of ``steps`` (None when they are a legal turn)."""
    try:
        parent.check_played(roll, steps)
    except (IllegalTurnError, NotationError) as exc:
        return exc
    return None


# --------------------------------------------------------------------------- the walk

@dataclass(frozen=True)
class Difference:
    """Where the engine first differs from fastnardy: the turns (roll, Turn) from the root to
    ``position``, the ``roll`` at it, the ``depth`` left there, the legal turns the engine
    misses, the extra turns it lists (each with the rule it breaks), the children it lists
    more than once (text, times), and, when every child agrees but a count does not,
    ``counts``: (turn, fastnardy's count, the engine's)."""

    root: Position
    path: Tuple[Tuple[Roll, Turn], ...]
    position: Position
    roll: Roll
    depth: int
    missing: Tuple[Turn, ...]
    extra: Tuple[ExtraTurn, ...]
    duplicates: Tuple[Tuple[str, int], ...]
    counts: Tuple[Tuple[Turn, int, int], ...] = ()

    def report(self) -> str:
        """The difference as text, one fact a line."""
        path = ", ".join(f"{format_roll(roll)} {turn}" for roll, turn in self.path) or \
            "(the root)"
        lines = [f"difference at {self.position.to_string()}, roll {format_roll(self.roll)}, "
                 f"depth {self.depth}",
                 f"root: {self.root.to_string()}", f"path: {path}"]
        for turn in self.missing:
            lines.append(f"missing: {turn}  -> {turn.position.to_string()}")
        for extra in self.extra:
            steps = f" ({extra.steps})" if extra.steps else ""
            shown = f"  = {extra.position}" if extra.position not in ("", extra.text) else ""
            lines.append(f"extra: {extra.text}{steps}  {extra.rule}: {extra.reason}{shown}")
        for text, times in self.duplicates:
            lines.append(f"listed {times} times: {text}")
        for turn, ours, theirs in self.counts:
            lines.append(f"count: {turn}  fastnardy {ours}, engine {theirs}")
        return "\n".join(lines)

    def as_dict(self) -> Dict[str, object]:
        """The difference as JSON-ready data."""
        return {
            "root": self.root.to_string(),
            "path": [{"roll": list(roll), "turn": str(turn),
                      "position": turn.position.to_string()} for roll, turn in self.path],
            "position": self.position.to_string(), "roll": list(self.roll),
            "depth": self.depth,
            "missing": [{"turn": str(t), "position": t.position.to_string()}
                        for t in self.missing],
            "extra": [{"child": e.text, "rule": e.rule, "reason": e.reason, "steps": e.steps,
                       "position": e.position} for e in self.extra],
            "duplicates": [{"child": text, "times": times} for text, times in self.duplicates],
            "counts": [{"turn": str(t), "fastnardy": ours, "engine": theirs}
                       for t, ours, theirs in self.counts],
        }


def crosscheck(engine: Engine, position: Position, depth: int) -> Optional[Difference]:
    """Compare ``engine``'s divide with fastnardy's from ``position`` to ``depth`` (1 or
    more) and walk down to the first difference (perftree's walk): at each position the 21
    rolls, 6-6 first; the children of a roll are compared by position (T1); where they agree
    and depth is left, the first child (T2 order) whose count differs is entered. None when
    the engine agrees everywhere."""
    if not isinstance(engine, (ProcessEngine, OneShotEngine)):
        raise FastNardyError(f"engine must be a ProcessEngine or a OneShotEngine, not "
                             f"{engine!r}")
    _request(engine.format, depth, (6, 5), position)  # the same checks as every request
    return _walk(engine, position, position, checks.depth(depth), ())


def _walk(engine: Engine, root: Position, position: Position, depth: int,
          path: Tuple[Tuple[Roll, Turn], ...]) -> Optional[Difference]:
    if position.is_game_over():
        return None  # T4: nothing to compare
    for roll in _ROLLS:
        answer = engine.divide(position, roll, depth)
        theirs: Dict[Key, List[EngineChild]] = {}
        for child in answer:
            theirs.setdefault(_read_child(position, child.text, f"the engine {engine.name!r}"),
                              []).append(child)
        ours = {_key_of(t.position): t for t in position.legal_turns(roll)}
        missing = tuple(t for key, t in ours.items() if key not in theirs)
        extra = tuple(explain(position, roll, listed[0].text, listed[0].steps)
                      for key, listed in theirs.items() if key not in ours)
        duplicates = tuple((listed[0].text, len(listed)) for listed in theirs.values()
                           if len(listed) > 1)
        if missing or extra or duplicates:
            return Difference(root, path, position, roll, depth, missing, extra, duplicates)
        if depth == 1:
            continue
        for key, turn in ours.items():
            count = perft(turn.position, depth - 1)
            listed = theirs[key][0].count
            if listed != count:
                below = _walk(engine, root, turn.position, depth - 1, path + ((roll, turn),))
                return below or Difference(root, path, position, roll, depth, (), (), (),
                                           ((turn, count, listed),))
    return None

