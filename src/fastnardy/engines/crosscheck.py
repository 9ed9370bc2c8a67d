"""Cross-checking another engine against fastnardy: a perftree for nardy.

:func:`crosscheck` asks another engine for its perft divide, compares it with fastnardy's by
**child position** (T1: turns are equal when their positions are), walks down to the first
position and roll where the two differ, and returns a :class:`Difference`: the turns the
engine misses (each with the rule it depends on), the extra turns it lists with the rule
each breaks, the children it lists more than once, and the path of turns from the root.
``fastnardy crosscheck ENGINE POSITION DEPTH`` is the same from the command line (exit 0
agree, 1 a difference, 2 bad input or an engine failure).

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
driver sends ``quit`` and closes stdin. With ``movegen=True`` (``--movegen``) every request
is ``divide 1`` and fastnardy walks deeper itself, so a pure move generator is checked at
any depth.

Exchange formats: ``string`` (fastnardy's position string, both games) and ``gnubg`` (a GNU
Backgammon Position ID, short nardy); :func:`default_format` picks IDs for standard
backgammon and strings otherwise. Every request carries its rules: a position string names
its variants, and a position under a move variant (``hit_and_hide=forbidden``) is refused in
the gnubg format, which cannot say so. A GNU Backgammon ID holds no side to move: the player
on roll of a request's ID is the side to move, and a child's ID is written for its player
on roll (the opponent), as GNU Backgammon shows the position after a move. The engine may
answer in either format; the driver reads each line by its shape.

One-shot mode (``one_shot=True``, ``--one-shot``), as perftree runs engines: each request
runs ``ENGINE DEPTH ROLL POSITION`` (the position one argument) and reads the same answer from
its stdout, ``end`` optional, exit status 0; an answer with no line at all is a failure.

Every read is bounded: each answer must arrive whole within ``timeout`` seconds of its
request (a deadline per request, however the lines trickle in), every line counts (blank
ones too), lines are at most MAX_LINE (4,096) bytes and an answer at most MAX_LINES (10,000)
lines and MAX_BYTES (4 MiB), for both kinds of engine. Each engine runs in a process group
of its own, killed whole when it ends or fails, so nothing it forked outlives it. A crash,
a timeout, a cap reached or a line that does not read raises
:class:`~fastnardy.errors.EngineError` naming the request and the line.
"""

from __future__ import annotations

import dataclasses
import os
import random
import re
import selectors
import shlex
import signal
import subprocess
import time
from dataclasses import dataclass
from types import TracebackType
from typing import Dict, Iterator, List, Optional, Sequence, Tuple, Type, Union

from .. import checks
from .._kernel import dice_pair
from ..basics import ALL_ROLLS, BLACK, MAX_DEPTH, WHITE, Roll, mirror, six_block
from ..counting import perft
from ..errors import (EngineError, FastNardyError, IllegalTurnError, InvalidPositionError,
                      NotationError)
from ..notation import ID_LENGTH, decode_position_id
from ..notation import format_roll, format_rules, format_steps, parse_position
from ..position import Position, Turn
from ..rules import MOVE_VARIANTS, Rules

__all__ = ["FORMATS", "Difference", "EngineChild", "ExtraTurn", "OneShotEngine",
           "ProcessEngine", "crosscheck", "default_format", "explain", "random_positions"]

FORMATS = ("string", "gnubg")
MAX_LINE = 4096
MAX_LINES = 10_000
MAX_BYTES = 4 * 2 ** 20  # an answer's stdout, blank lines and line ends included

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
    """The request's words, ``divide DEPTH ROLL POSITION``, for a checked request. The rules
    travel with the position: a position string names its variants; a GNU Backgammon ID
    cannot, so a position under a move variant (S8's ``hit_and_hide=forbidden``) is refused
    in that format rather than sent as standard backgammon."""
    if not isinstance(position, Position):
        raise InvalidPositionError(f"expected a Position, not {position!r}")
    dice = dice_pair(roll)
    plies = checks.number(depth, "depth", 1, MAX_DEPTH)
    if fmt == "gnubg":
        if position.rules.game != "short":
            raise FastNardyError("the gnubg exchange format is for short nardy only")
        if _move_variants(position.rules):
            raise FastNardyError(f"a GNU Backgammon Position ID cannot carry the rules "
                                 f"{format_rules(position.rules)}: use the string format, "
                                 f"whose positions name their rules")
    text = position.gnubg_id() if fmt == "gnubg" else position.to_string()
    return ("divide", str(plies), format_roll(dice), text)


def _move_variants(rules: Rules) -> List[str]:
    """The variants of ``rules`` that change the legal turns (not the score)."""
    return [name for name in rules.variants() if name in MOVE_VARIANTS]


def default_format(rules: Rules) -> str:
    """The exchange format for ``rules``: GNU Backgammon IDs for standard backgammon (short
    nardy without a move variant), position strings otherwise."""
    if not isinstance(rules, Rules):
        raise FastNardyError(f"expected Rules, not {rules!r}")
    return "gnubg" if rules.game == "short" and not _move_variants(rules) else "string"


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


def _spawn(command: List[str], name: str, stdin: int) -> "subprocess.Popen[bytes]":
    """The engine's process, in a process group of its own (a new session: Ctrl-C at the
    terminal reaches only the driver, and :func:`_end` kills whatever the engine forked)."""
    try:
        return subprocess.Popen(command, stdin=stdin, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True)
    except OSError as exc:
        raise EngineError(f"cannot start the engine {name!r}: {exc.strerror}") from None


def _end(process: "subprocess.Popen[bytes]", grace: float) -> None:
    """Give the engine's leader ``grace`` seconds to exit, then SIGKILL its whole process
    group (the children it forked too, while the unreaped leader still holds the group's
    id), reap the leader and close the pipes."""
    deadline = time.monotonic() + grace
    while True:
        try:
            if os.waitid(os.P_PID, process.pid,
                         os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                break
        except ChildProcessError:  # reaped already
            break
        if time.monotonic() >= deadline:
            break
        time.sleep(0.01)
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    process.wait()
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            stream.close()


class _Pipes:
    """An engine's stdout and stderr, read without blocking against one deadline a request:
    stdout split into lines, each line at most MAX_LINE bytes and each answer at most
    MAX_LINES lines (blank ones too) and MAX_BYTES bytes; of stderr only the last bytes are
    kept, for messages."""

    def __init__(self, process: "subprocess.Popen[bytes]", name: str) -> None:
        assert process.stdout is not None and process.stderr is not None
        self.process, self.name = process, name
        self.out, self.err = process.stdout.fileno(), process.stderr.fileno()
        self.selector = selectors.DefaultSelector()
        for fd in (self.out, self.err):
            os.set_blocking(fd, False)
            self.selector.register(fd, selectors.EVENT_READ)
        self.pending = b""
        self.stderr = b""
        self.stdout_open = True
        self.lines = self.size = 0

    def start(self) -> None:
        """A new answer: the counts start again (what is pending counts toward it)."""
        self.lines, self.size = 0, len(self.pending)

    def last_stderr(self) -> str:
        lines = self.stderr.decode("utf-8", "replace").strip().splitlines()
        return lines[-1] if lines else ""

    def _fill(self, deadline: float, request: str) -> None:
        """Wait for output until ``deadline`` and read what there is."""
        left = deadline - time.monotonic()
        if left <= 0:
            raise _Timeout()
        for key, _ in self.selector.select(left):
            fd = key.fd
            try:
                data = os.read(fd, 65536)
            except BlockingIOError:
                continue
            if not data:
                self.selector.unregister(fd)
                if fd == self.out:
                    self.stdout_open = False
            elif fd == self.err:
                self.stderr = (self.stderr + data)[-MAX_LINE:]
            else:
                self.pending += data
                self.size += len(data)
                if self.size > MAX_BYTES:
                    raise EngineError(f"the engine {self.name!r} answered {request!r} with "
                                      f"more than {MAX_BYTES} bytes")

    def line(self, deadline: float, request: str) -> Optional[str]:
        """The next line of stdout (stripped), or None when stdout is closed."""
        while True:
            end = self.pending.find(b"\n")
            if end >= 0 or (not self.stdout_open and self.pending):
                end = len(self.pending) if end < 0 else end
                raw, self.pending = self.pending[:end], self.pending[end + 1:]
                self.lines += 1
                if len(raw) > MAX_LINE or self.lines > MAX_LINES:
                    break
                return raw.decode("utf-8", "replace").strip()
            if len(self.pending) > MAX_LINE:
                break
            if not self.stdout_open:
                return None
            self._fill(deadline, request)
        raise EngineError(f"the engine {self.name!r} answered {request!r} with a line longer "
                          f"than {MAX_LINE} bytes or more than {MAX_LINES} lines")

    def answer(self, deadline: float, request: str) -> Tuple[List[str], bool]:
        """The non-blank lines up to ``end`` (or ``error ...``, kept), and whether the answer
        ended so; at the end of stdout, the lines so far and False."""
        self.start()
        lines: List[str] = []
        while True:
            line = self.line(deadline, request)
            if line is None:
                return lines, False
            if line == "end":
                return lines, True
            if line.startswith("error"):
                return lines + [line], True
            if line:
                lines.append(line)

    def send(self, data: bytes, deadline: float) -> None:
        """Write ``data`` to the engine's stdin by ``deadline`` (BrokenPipeError when it has
        closed it)."""
        stdin = self.process.stdin
        assert stdin is not None
        fd = stdin.fileno()
        os.set_blocking(fd, False)
        with selectors.DefaultSelector() as writable:
            writable.register(fd, selectors.EVENT_WRITE)
            while data:
                left = deadline - time.monotonic()
                if left <= 0 or not writable.select(left):
                    raise _Timeout()
                try:
                    data = data[os.write(fd, data):]
                except BlockingIOError:
                    continue

    def close(self) -> None:
        self.selector.close()


class _Timeout(Exception):
    """The request's deadline passed (turned into an EngineError naming the request)."""


class ProcessEngine:
    """One long-running engine process speaking the protocol on stdin/stdout, started by the
    first request in a process group of its own (a context manager: leaving it sends
    ``quit`` and ends the process group)."""

    def __init__(self, command: Union[str, Sequence[str]], format: str = "string",
                 timeout: float = 60.0) -> None:
        self.command = _command(command)
        self.format, self.timeout = _check_options(format, timeout)
        self.name = _name(self.command)
        self.requests = 0
        self._process: "Optional[subprocess.Popen[bytes]]" = None
        self._pipes: Optional[_Pipes] = None

    def _started(self) -> _Pipes:
        if self._pipes is None:
            self._process = _spawn(self.command, self.name, subprocess.PIPE)
            self._pipes = _Pipes(self._process, self.name)
        return self._pipes

    def _failure(self, what: str) -> EngineError:
        """An EngineError for ``what``, with the exit status (when the engine exits within a
        second) and its last stderr line; the engine is ended."""
        pipes, process = self._pipes, self._process
        assert pipes is not None and process is not None
        try:
            what += f" (exit status {process.wait(timeout=1)})"
        except subprocess.TimeoutExpired:
            pass
        if pipes.last_stderr():
            what += f"; its last stderr line: {pipes.last_stderr()!r}"
        self._stop(0.0)
        return EngineError(what)

    def divide(self, position: Position, roll: Roll, depth: int) -> List[EngineChild]:
        """The engine's answer to ``divide DEPTH ROLL POSITION``, which must arrive whole
        within ``timeout`` seconds of the request."""
        request = " ".join(_request(self.format, depth, roll, position))
        pipes = self._started()
        self.requests += 1
        deadline = time.monotonic() + self.timeout
        try:
            try:
                pipes.send(request.encode() + b"\n", deadline)
            except OSError:
                raise self._failure(f"the engine {self.name!r} stopped reading before "
                                    f"{request!r}") from None
            lines, ended = pipes.answer(deadline, request)
        except _Timeout:
            self._stop(0.0)
            raise EngineError(f"the engine {self.name!r} did not answer {request!r} within "
                              f"{self.timeout:g} s") from None
        except BaseException:
            self._stop(0.0)
            raise
        if not ended:
            raise self._failure(f"the engine {self.name!r} exited while answering "
                                f"{request!r}")
        return _read_answer(lines, request, f"the engine {self.name!r}")

    def close(self) -> None:
        """Send ``quit``, close stdin, give the engine 2 s to exit, then kill its process
        group (whatever it forked too). The next request starts it again."""
        self._stop(2.0)

    def _stop(self, grace: float) -> None:
        """End the engine: ``quit`` and ``grace`` seconds to exit (none after a failure:
        the engine is killed at once), then its process group is killed."""
        process, pipes = self._process, self._pipes
        self._process = self._pipes = None
        if process is None or pipes is None:
            return
        if grace and process.poll() is None:
            try:
                pipes.send(b"quit\n", time.monotonic() + min(grace, 0.5))
            except (OSError, _Timeout):
                pass
        pipes.close()
        _end(process, grace)

    def __enter__(self) -> "ProcessEngine":
        return self

    def __exit__(self, kind: Optional[Type[BaseException]], value: Optional[BaseException],
                 traceback: Optional[TracebackType]) -> None:
        self.close()


class OneShotEngine:
    """An engine run once per request as ``ENGINE DEPTH ROLL POSITION`` (as perftree runs
    chess engines), answering on stdout and exiting with status 0 within ``timeout``
    seconds; each run is in a process group of its own, killed afterwards."""

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
        deadline = time.monotonic() + self.timeout
        process = _spawn(self.command + list(words), self.name, subprocess.DEVNULL)
        pipes = _Pipes(process, self.name)
        try:
            lines, ended = pipes.answer(deadline, request)
            status = process.wait(timeout=max(deadline - time.monotonic(), 0.001))
        except (_Timeout, subprocess.TimeoutExpired):
            raise EngineError(f"the engine {self.name!r} did not answer {request!r} within "
                              f"{self.timeout:g} s") from None
        finally:
            pipes.close()
            _end(process, 0.0)
        if status != 0:
            raise EngineError(f"the engine {self.name!r} exited with status {status} on "
                              f"{request!r}; its last stderr line: {pipes.last_stderr()!r}")
        if not lines and not ended:
            raise EngineError(f"the engine {self.name!r} answered {request!r} with nothing "
                              f"(no child and no 'end')")
        return _read_answer(lines, request, f"the engine {self.name!r}")

    def close(self) -> None:
        """Nothing runs between requests."""

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


Path = List[Tuple[int, int, bool]]  # steps (src, dst, hit)


def _relaxed_paths(parent: Position, roll: Roll, target: Key) -> List[Path]:
    """Step sequences of the dice of ``roll`` (every length, every order) that take the
    parent to ``target`` when every rule but the geometry is ignored: a step moves one own
    checker by one die (off past point 0), a lone opponent checker it lands on in short nardy
    goes to the bar (the step marked as a hit), and anything may land anywhere. The
    sequences come in T2 order."""
    game = 0 if parent.rules.game == "long" else 1
    me, me_bar, opp, opp_bar = parent.mover_frame()
    dice = tuple(sorted(roll * 2 if roll[0] == roll[1] else roll))
    level: Dict[Tuple[Key, Tuple[int, ...]], Path] = {
        ((tuple(me), me_bar, tuple(opp), opp_bar), dice): []}
    found: List[Path] = []
    while level:
        following: Dict[Tuple[Key, Tuple[int, ...]], Path] = {}
        for (state, left), path in level.items():
            if state == target:
                found.append(path)
            for die in sorted(set(left), reverse=True):
                rest = list(left)
                rest.remove(die)
                for src in range(25, 0, -1):
                    moved = _relaxed_step(game, state, src, die)
                    if moved is not None:
                        following.setdefault((moved[0], tuple(rest)),
                                             path + [(src, max(src - die, 0), moved[1])])
        level = following
    return sorted(found, key=lambda path: [(-src, dst) for src, dst, _ in path])


def _relaxed_step(game: int, state: Key, src: int, die: int) -> Optional[Tuple[Key, bool]]:
    """The state after one geometric step and whether it hit, or None (no checker)."""
    me, me_bar, opp, opp_bar = state
    if (me_bar if src == 25 else me[src - 1]) == 0:
        return None
    mine, theirs = list(me), list(opp)
    if src == 25:
        me_bar -= 1
    else:
        mine[src - 1] -= 1
    dst, hit = src - die, False
    if dst > 0:
        mine[dst - 1] += 1
        q = mirror(game, dst)
        if game == 1 and theirs[q - 1] == 1:
            theirs[q - 1] = 0
            opp_bar += 1
            hit = True
    return (tuple(mine), me_bar, tuple(theirs), opp_bar), hit


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
    tried += [(format_steps(path), _referee(parent, roll, [(s, d) for s, d, _ in path]))
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


# --------------------------------------------------------------------------- missing turns

def _features(parent: Position, roll: Roll, turn: Turn) -> List[str]:
    """The rules a legal turn depends on beyond the plain steps (L4/S4), most specific
    first: a pass (T3), entering from the bar (S5), a second checker off the head (L5),
    bearing off (L8/S7), a hit (S3), a six-block that a stricter block_rule forbids (L6),
    fewer dice than the roll has (L7/S6: the maximum a turn can use)."""
    long = parent.rules.game == "long"
    steps = turn.steps
    found = []
    if not steps:
        found.append("T3")
    if any(src == 25 for src, _, _ in steps):
        found.append("S5")
    if long and sum(src == 24 for src, _, _ in steps) >= 2:
        found.append("L5")
    if any(dst == 0 for _, dst, _ in steps):
        found.append("L8" if long else "S7")
    if any(hit for _, _, hit in steps):
        found.append("S3")
    if long:
        them, _, me, _ = turn.position.mover_frame()  # the child's mover is the opponent
        if any(six_block(rule, me, them) for rule in ("opponent_ahead", "opponent_home")):
            found.append("L6")
    if steps and len(steps) < (4 if roll[0] == roll[1] else 2):
        found.append("L7" if long else "S6")
    return found


def _missing_rules(parent: Position, roll: Roll, missing: Sequence[Turn],
                   listed: Sequence[Turn]) -> Tuple[str, ...]:
    """For each turn an engine misses, the rule it depends on: the first of its
    :func:`_features` that no turn the engine lists has (the rule the engine applies too
    strictly), else its first feature, else L4/S4 (its steps)."""
    shared = {rule for turn in listed for rule in _features(parent, roll, turn)}
    plain = "L4" if parent.rules.game == "long" else "S4"
    named = []
    for turn in missing:
        own = _features(parent, roll, turn)
        named.append(next((rule for rule in own if rule not in shared), own[0] if own else plain))
    return tuple(named)


# --------------------------------------------------------------------------- the walk

@dataclass(frozen=True)
class Difference:
    """Where the engine first differs from fastnardy: the turns (roll, Turn) from the root to
    ``position``, the ``roll`` at it, the ``depth`` left there, the legal turns the engine
    misses, the extra turns it lists (each with the rule it breaks), the children it lists
    more than once (text, times), when every child agrees but a count does not,
    ``counts``: (turn, fastnardy's count, the engine's), and ``missing_rules``: for each
    missing turn, the rule it depends on (the one the engine applies too strictly)."""

    root: Position
    path: Tuple[Tuple[Roll, Turn], ...]
    position: Position
    roll: Roll
    depth: int
    missing: Tuple[Turn, ...]
    extra: Tuple[ExtraTurn, ...]
    duplicates: Tuple[Tuple[str, int], ...]
    counts: Tuple[Tuple[Turn, int, int], ...] = ()
    missing_rules: Tuple[str, ...] = ()

    def _rule(self, index: int) -> str:
        return self.missing_rules[index] if index < len(self.missing_rules) else ""

    def report(self) -> str:
        """The difference as text, one fact a line."""
        path = ", ".join(f"{format_roll(roll)} {turn}" for roll, turn in self.path) or \
            "(the root)"
        lines = [f"difference at {self.position.to_string()}, roll {format_roll(self.roll)}, "
                 f"depth {self.depth}",
                 f"root: {self.root.to_string()}", f"path: {path}"]
        for index, turn in enumerate(self.missing):
            rule = f"  (depends on {self._rule(index)})" if self._rule(index) else ""
            lines.append(f"missing: {turn}  -> {turn.position.to_string()}{rule}")
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
            "missing": [{"turn": str(t), "position": t.position.to_string(),
                         "rule": self._rule(index)} for index, t in enumerate(self.missing)],
            "extra": [{"child": e.text, "rule": e.rule, "reason": e.reason, "steps": e.steps,
                       "position": e.position} for e in self.extra],
            "duplicates": [{"child": text, "times": times} for text, times in self.duplicates],
            "counts": [{"turn": str(t), "fastnardy": ours, "engine": theirs}
                       for t, ours, theirs in self.counts],
        }


def crosscheck(engine: Engine, position: Position, depth: int, *,
               movegen: bool = False) -> Optional[Difference]:
    """Compare ``engine``'s divide with fastnardy's from ``position`` to ``depth`` (1 or
    more) and walk down to the first difference; None when the engine agrees everywhere. At
    each position the 21 rolls, 6-6 first; the children of a roll are compared by position
    (T1). By default the engine counts: where depth is left, the first child (T2 order)
    whose count differs is entered (perftree's walk). With ``movegen`` the engine is asked
    only ``divide 1`` (its children) and fastnardy walks every child itself, each distinct
    position once per depth, so a pure move generator is checked at any depth. The engine is
    closed when the check raises, Ctrl-C (KeyboardInterrupt) included."""
    if not isinstance(engine, (ProcessEngine, OneShotEngine)):
        raise FastNardyError(f"engine must be a ProcessEngine or a OneShotEngine, not "
                             f"{engine!r}")
    if not isinstance(movegen, bool):
        raise FastNardyError(f"movegen must be True or False, not {movegen!r}")
    try:
        _request(engine.format, depth, (6, 5), position)  # the same checks as every request
        if movegen:
            return _walk_children(engine, position, position, checks.depth(depth), (), {})
        return _walk(engine, position, position, checks.depth(depth), ())
    except BaseException:
        engine.close()
        raise


def _compare(engine: Engine, root: Position, position: Position, roll: Roll, depth: int,
             path: Tuple[Tuple[Roll, Turn], ...]) -> Tuple[Optional[Difference], Dict[Key, Turn],
                                                        Dict[Key, List[EngineChild]]]:
    """The engine's children of one position and roll against fastnardy's: a Difference
    when they differ, and both sides' children by key."""
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
    if not (missing or extra or duplicates):
        return None, ours, theirs
    rules = _missing_rules(position, roll, missing,
                           [t for key, t in ours.items() if key in theirs])
    return (Difference(root, path, position, roll, depth, missing, extra, duplicates, (),
                       rules), ours, theirs)


def _walk(engine: Engine, root: Position, position: Position, depth: int,
          path: Tuple[Tuple[Roll, Turn], ...]) -> Optional[Difference]:
    if position.is_game_over():
        return None  # T4: nothing to compare
    for roll in _ROLLS:
        found, ours, theirs = _compare(engine, root, position, roll, depth, path)
        if found is not None:
            return found
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


def _walk_children(engine: Engine, root: Position, position: Position, depth: int,
                   path: Tuple[Tuple[Roll, Turn], ...],
                   done: Dict[Position, int]) -> Optional[Difference]:
    """The movegen walk: the engine's children (``divide 1``) of the 21 rolls here, then
    every child's, depth first; ``done`` holds the positions that agreed, with the depth."""
    if position.is_game_over() or done.get(position, 0) >= depth:
        return None
    children = []
    for roll in _ROLLS:
        found, ours, _ = _compare(engine, root, position, roll, 1, path)
        if found is not None:
            return dataclasses.replace(found, depth=depth)
        children += [(roll, turn) for turn in ours.values()]
    if depth > 1:
        for roll, turn in children:
            below = _walk_children(engine, root, turn.position, depth - 1,
                                   path + ((roll, turn),), done)
            if below is not None:
                return below
    done[position] = depth
    return None


def random_positions(position: Position, count: int, seed: int,
                     stop: float = 0.05) -> Iterator[Position]:
    """``count`` positions of seeded random games from ``position`` (random rolls, random
    legal turns): each game is stopped after each turn with probability ``stop`` (0.05 stops
    early, 0.01 reaches races and bear-offs), or before its last turn, and gives the
    position it stopped at. Deterministic for a seed; the cross-checker's ``--random``."""
    if not isinstance(position, Position):
        raise InvalidPositionError(f"expected a Position, not {position!r}")
    if position.is_game_over():
        raise FastNardyError("random games cannot start from a game-over position (T4)")
    number = checks.number(count, "count", 1, 1_000_000)
    generator = random.Random(checks.number(seed, "seed", 0, 2 ** 64 - 1))
    if isinstance(stop, bool) or not isinstance(stop, (int, float)) or not 0 < stop <= 1:
        raise FastNardyError(f"stop must be a probability, more than 0 and at most 1, not "
                             f"{stop!r}")
    return (_random_game(position, generator, stop) for _ in range(number))


def _random_game(position: Position, generator: random.Random, stop: float) -> Position:
    """The position where one random game from ``position`` stops (see random_positions)."""
    while True:
        turns = position.legal_turns((generator.randint(1, 6), generator.randint(1, 6)))
        child = turns[generator.randrange(len(turns))].position
        if child.is_game_over():
            return position
        position = child
        if generator.random() < stop:
            return position
