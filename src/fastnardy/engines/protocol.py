"""The cross-check protocol: another engine as a process that answers perft divides.

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
of its own under a keeper (:mod:`fastnardy.engines._keeper`, the child subreaper of all it
forks), which kills everything the engine forked when it ends or fails, a process that
called setsid() or lost its parent too, so nothing it forked outlives it. A crash,
a timeout, a cap reached or a line that does not read raises
:class:`~fastnardy.errors.EngineError` naming the request and the line.
"""

from __future__ import annotations

import os
import re
import selectors
import shlex
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Callable, List, Optional, Sequence, Tuple, Type, TypeVar, Union

from .. import checks
from .._kernel import dice_pair
from ..basics import MAX_DEPTH, Roll
from ..errors import EngineError, FastNardyError
from ..notation import ID_LENGTH
from ..notation import format_roll, format_rules
from ..position import Position
from ..rules import MOVE_VARIANTS, Rules

# request_words is the walk's and the explanations' check of a request
__all__ = ["FORMATS", "MAX_BYTES", "MAX_LINE", "MAX_LINES", "EngineChild", "OneShotEngine",
           "ProcessEngine", "default_format"]


FORMATS = ("string", "gnubg")
KEEPER = Path(__file__).with_name("_keeper.py")  # run by path: no import of fastnardy
MAX_LINE = 4096
MAX_LINES = 10_000
MAX_BYTES = 4 * 2 ** 20  # an answer's stdout, blank lines and line ends included


GNUBG_ID = re.compile(f"[A-Za-z0-9+/]{{{ID_LENGTH}}}")
_ANSWER = re.compile(r"(\d{1,30})\s+([^|]+?)\s*(?:\|\s*(.*?))?\s*")


# --------------------------------------------------------------------------- engines

@dataclass(frozen=True)
class EngineChild:
    """One line of an engine's answer: the child as the engine wrote it, its count and the
    steps it gave (None when it gave none)."""

    count: int
    text: str
    steps: Optional[str]


def request_words(fmt: str, depth: object, roll: object, position: object) -> Tuple[str, ...]:
    """The request's words, ``divide DEPTH ROLL POSITION``, for a checked request. The rules
    travel with the position: a position string names its variants; a GNU Backgammon ID
    cannot, so a position under a move variant (S8's ``hit_and_hide=forbidden``) is refused
    in that format rather than sent as standard backgammon."""
    position = checks.position(position, Position)
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
    """The engine's process under its keeper (:mod:`fastnardy.engines._keeper`: the child
    subreaper of all the engine forks), in a process group of its own (a new session:
    Ctrl-C at the terminal reaches only the driver); :func:`_end` ends them all."""
    program = shutil.which(command[0])
    if program is None:
        reason = ("Permission denied" if os.path.exists(command[0]) and os.sep in command[0]
                  else "No such file or directory")
        raise EngineError(f"cannot start the engine {name!r}: {reason}")
    try:
        return subprocess.Popen([sys.executable, "-I", "-S", str(KEEPER), program,
                                 *command[1:]], stdin=stdin, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True)
    except OSError as exc:
        raise EngineError(f"cannot start the engine {name!r}: {exc.strerror}") from None


def _exited(process: "subprocess.Popen[bytes]", seconds: float) -> bool:
    """Whether the keeper exits within ``seconds`` (left unreaped: its pid keeps naming
    the process group)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            if os.waitid(os.P_PID, process.pid,
                         os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                return True
        except ChildProcessError:  # reaped already
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.01)


def _end(process: "subprocess.Popen[bytes]", grace: float) -> None:
    """Give the engine ``grace`` seconds to exit (its keeper exits with it, having killed
    whatever the engine left), else SIGTERM the keeper, which kills the engine and every
    descendant (one that called setsid() or lost its parent too) and exits; a keeper not
    gone within 5 s has its process group SIGKILLed. Then the keeper is reaped and the
    pipes closed."""
    if not _exited(process, grace):
        try:
            os.kill(process.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        _exited(process, 5.0)
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


E = TypeVar("E", bound="_Command")
R = TypeVar("R")


class _Command:
    """An engine run as a command (``format`` of the requests, ``timeout`` seconds for each
    answer, ``requests`` made so far); a context manager that closes it when left."""

    def __init__(self, command: Union[str, Sequence[str]], format: str = "string",
                 timeout: float = 60.0) -> None:
        self.command = _command(command)
        self.format, self.timeout = _check_options(format, timeout)
        self.name = _name(self.command)
        self.requests = 0

    def close(self) -> None:
        """Nothing runs between requests."""

    def __enter__(self: E) -> E:
        return self

    def __exit__(self, kind: Optional[Type[BaseException]], value: Optional[BaseException],
                 traceback: Optional[TracebackType]) -> None:
        self.close()


class ProcessEngine(_Command):
    """One long-running engine process speaking the protocol on stdin/stdout, started by the
    first request in a process group of its own (a context manager: leaving it sends
    ``quit`` and ends the process group)."""

    def __init__(self, command: Union[str, Sequence[str]], format: str = "string",
                 timeout: float = 60.0) -> None:
        super().__init__(command, format, timeout)
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

    def _exchange(self, data: bytes, request: str,
                  read: Callable[[_Pipes, float], R]) -> R:
        """Send ``data`` (whose last line is ``request``) and return ``read(pipes,
        deadline)``, all within ``timeout`` seconds: an engine that stops reading or does not
        answer in time is an EngineError naming ``request``; on any failure the engine is
        ended."""
        pipes = self._started()
        self.requests += 1
        deadline = time.monotonic() + self.timeout
        try:
            try:
                pipes.send(data, deadline)
            except OSError:
                raise self._failure(f"the engine {self.name!r} stopped reading before "
                                    f"{request!r}") from None
            return read(pipes, deadline)
        except _Timeout:
            self._stop(0.0)
            raise EngineError(f"the engine {self.name!r} did not answer {request!r} within "
                              f"{self.timeout:g} s") from None
        except BaseException:
            self._stop(0.0)
            raise

    def divide(self, position: Position, roll: Roll, depth: int) -> List[EngineChild]:
        """The engine's answer to ``divide DEPTH ROLL POSITION``, which must arrive whole
        within ``timeout`` seconds of the request."""
        request = " ".join(request_words(self.format, depth, roll, position))
        lines, ended = self._exchange(request.encode() + b"\n", request,
                                      lambda pipes, deadline: pipes.answer(deadline, request))
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


class OneShotEngine(_Command):
    """An engine run once per request as ``ENGINE DEPTH ROLL POSITION`` (as perftree runs
    chess engines), answering on stdout and exiting with status 0 within ``timeout``
    seconds; each run is in a process group of its own, killed afterwards."""

    def divide(self, position: Position, roll: Roll, depth: int) -> List[EngineChild]:
        """The engine's stdout for ``ENGINE DEPTH ROLL POSITION``."""
        words = request_words(self.format, depth, roll, position)[1:]
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


Engine = Union[ProcessEngine, OneShotEngine]
