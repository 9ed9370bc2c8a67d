"""Perft (T5): count the positions reached after a number of turns, over the 21 rolls, on
one core or many.

Counts are exact at any depth: the kernel adds in 128 bits, every sum checked, and a subtree
whose count passes 2**128 - 1 (CountOverflowError in the kernel) is split one turn down
into subtrees that fit, added up as Python ints; so are the subtasks.

Serial perft is one kernel call (no GIL, Ctrl-C stops it). With ``tt_mb`` the kernel keeps
an exact transposition table of subtree counts (:class:`fastnardy._kernel.PerftTable`):
keyed by the full 128-bit position key, the remaining depth, ``weighted`` and the rules, so
every hit is exact; buckets of two entries, slot 0 keeping the deepest subtree seen and
slot 1 the most recent.

With ``workers`` or ``executor`` the tree is split into subtasks: the distinct positions a
few plies down (each with its multiplicity: how many (roll, turn) paths reach it, twice for a
non-double when weighted), enough of them to keep the workers busy. A subtask is a small
picklable tuple (position, remaining depth, options, the call's token) and its result is
(count, probes, hits); the counts, times their multiplicities, add up to the serial count.
``workers=N`` runs N threads in this process (the kernel releases the GIL); ``executor``
takes any :class:`concurrent.futures.Executor` — a thread or process pool, or a Dask cluster
through ``distributed.Client.get_executor()`` or the Client itself — and is never shut down
here. The threads of
one call share one table of ``tt_mb`` MB (each bucket has its own lock), freed when the call
returns; on an executor, each worker process keeps one table of ``tt_mb`` MB for as long as
it lives and shares it among its threads and subtasks. Ray has no Executor; see the README
for a five-line adapter. ``tt_mb`` may not exceed the memory the machine has available
(``MemAvailable`` of /proc/meminfo, else the physical memory): ResourceLimitError.

Ctrl-C (KeyboardInterrupt in the main thread, or any exception) stops the whole call at once:
the subtasks not started are cancelled, those running on threads of this process stop within
milliseconds (the kernel polls the call's :class:`fastnardy._kernel.Stop`), those running on
a Dask cluster too (every worker sets the Stops of the call's subtasks), and a
:class:`~concurrent.futures.ProcessPoolExecutor` running them has its worker processes
terminated (that pool is broken afterwards); nothing is awaited.

``checkpoint=FILE`` keeps the finished subtasks and their counts in FILE (JSON, written
whole: a temporary file renamed over it, at most once a second and when the call ends), so
that a call interrupted or killed resumes where it stopped, with the same count; a
checkpoint of another position, depth or weighting is refused (FastNardyError), and so is
one whose content does not match the SHA-256 it carries (a damaged file) or one written
before checkpoints carried it (delete either to start afresh).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import threading
import time
from collections import Counter
from concurrent.futures import Executor, Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from typing import (Callable, Dict, Iterable, List, NamedTuple, Optional, Sequence, Set, Tuple,
                    Union)

from ._utils import executors as _executors, files as _files
from . import _kernel, checks
from . import backend as _backend
from ._kernel import dice_pair
from .basics import ALL_ROLLS, Roll
from .errors import (CountOverflowError, FastNardyError, InvalidDiceError,
                     ResourceLimitError, integer)
from .position import Position, Turn

Node = Tuple[Position, int]  # a position and the depth left below it
Result = Tuple[int, int, int]  # a subtask's count, table probes and table hits
PathLike = Union[str, "os.PathLike[str]"]


def _position(position: object) -> Position:
    return checks.position(position, Position)


class PerftProgress(NamedTuple):
    """Where a split perft stands, given to the ``progress`` callback after each subtask."""

    done: int           # subtasks finished
    total: int          # subtasks in all
    nodes: int          # the count so far (finished subtasks, with their multiplicities)
    seconds: float      # since the start
    probes: int         # transposition-table lookups in the finished subtasks
    hits: int           # ... of which answered by the table
    resumed: int = 0    # of ``nodes``, those of subtasks read from the checkpoint
    resumed_subtasks: int = 0  # of ``done``, those read from the checkpoint


def perft(position: Position, depth: int, *, weighted: bool = False,
          backend: Optional[str] = None,
          workers: Optional[int] = None, executor: Optional[Executor] = None,
          tt_mb: Optional[float] = None,
          progress: Optional[Callable[[PerftProgress], None]] = None,
          checkpoint: Optional[PathLike] = None) -> int:
    """T5: ``perft(pos, 0) = 1``; a finished game counts 1; otherwise the sum over the 21
    rolls of the children's perft at ``depth - 1`` (a pass is one child). ``weighted`` counts
    each non-double twice (36 outcomes). Exact at any depth. ``tt_mb`` sets the size of the
    exact transposition table; ``workers`` / ``executor`` split the tree (see the module
    docstring); ``progress`` is called after each subtask; ``checkpoint`` names a file that
    keeps the finished subtasks, so that an interrupted call resumes."""
    root, plies = _position(position), checks.depth(depth)
    checks.callback(progress)
    options = _Options(weighted, backend, tt_mb)
    _check_options(options)
    if workers is None and executor is None and checkpoint is None:
        start = time.perf_counter()
        count, probes, hits = _counted(root, plies, options, _new_table(options), None)
        if progress is not None:
            progress(PerftProgress(1, 1, count, time.perf_counter() - start, probes, hits))
        return count
    parallelism = 1 if workers is None and executor is None else _parallelism(workers, executor)
    saved = None if checkpoint is None else _Checkpoint(checkpoint, root, plies, options,
                                                        parallelism)
    tasks = _split(root, plies, options, parallelism if saved is None else saved.parallelism)
    counts = _run(tasks, options, workers, executor, progress, saved)
    return sum(counts[key] * m for key, m in tasks.items())


def perft_divide(position: Position, depth: int, *, weighted: bool = False,
                 backend: Optional[str] = None, workers: Optional[int] = None,
                 executor: Optional[Executor] = None,
                 tt_mb: Optional[float] = None,
                 rolls: Optional[Sequence[Roll]] = None) -> Dict[Roll, List[Tuple[Turn, int]]]:
    """T5 split by roll and turn: ``{(d1, d2): [(turn, count), ...]}`` with the turns in T2
    order; the counts add up to ``perft(position, depth)``. Depth must be at least 1. The
    subtrees run on ``workers`` / ``executor`` as in :func:`perft`. ``rolls`` (default the
    21 of T5, low die first) splits only those rolls."""
    root, plies = _position(position), checks.depth(depth)
    if plies < 1:
        raise FastNardyError("perft_divide needs depth >= 1")
    options = _Options(weighted, backend, tt_mb)
    _check_options(options)
    turns = {roll: list(root.legal_turns(roll, backend=backend))
             for roll in (ALL_ROLLS if rolls is None else _rolls(rolls))}
    children = Counter(t.position for ts in turns.values() for t in ts)
    if workers is None and executor is None:
        table = _new_table(options)
        counts = {child: _counted(child, plies - 1, options, table, None)[0]
                  for child in children}
    else:
        done = _run({(child, plies - 1): 1 for child in children}, options, workers,
                    executor, None)
        counts = {child: done[(child, plies - 1)] for child in children}
    return {roll: [(t, counts[t.position] * (2 if weighted and roll[0] != roll[1] else 1))
                   for t in ts]
            for roll, ts in turns.items()}


def _rolls(rolls: object) -> List[Roll]:
    """perft_divide's ``rolls``: a sequence of rolls, each as two dice 1-6, low die first."""
    if isinstance(rolls, (str, bytes)) or not isinstance(rolls, Sequence):
        raise InvalidDiceError(f"rolls must be a sequence of (d1, d2) rolls, not {rolls!r}")
    checked = []
    for roll in rolls:
        d1, d2 = dice_pair(roll)
        checked.append((min(d1, d2), max(d1, d2)))
    return list(dict.fromkeys(checked))


class _Options(NamedTuple):
    weighted: bool
    backend: Optional[str]
    tt_mb: Optional[float]


def _check_options(options: _Options) -> None:
    checks.flag(options.weighted, "weighted")
    checks.megabytes(options.tt_mb)


def _new_table(options: _Options) -> Optional[_kernel.PerftTable]:
    """A PerftTable of ``tt_mb`` for one call, or None."""
    _check_options(options)
    return None if options.tt_mb is None else _table(options.tt_mb, options.backend)


def _table(tt_mb: float, backend: Optional[str]) -> _kernel.PerftTable:
    """A PerftTable, when the kernel counts and the machine has the memory (the table is
    allocated lazily: one larger than the memory would be filled until the system kills
    the process)."""
    if _backend.resolve(backend) != "kernel":
        raise FastNardyError("tt_mb needs the kernel backend")
    available = available_memory()
    if available is not None and tt_mb * (1 << 20) > available:
        raise ResourceLimitError(f"tt_mb={tt_mb:g} is more than the memory available on this "
                                 f"machine ({available >> 20:,} MB): give a smaller table")
    return _kernel.PerftTable(tt_mb)


def available_memory() -> Optional[int]:
    """Bytes of memory available to a new table: ``MemAvailable`` of /proc/meminfo (Linux),
    else the physical memory (``os.sysconf``), else None (unknown: not checked)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


# on an executor's worker: {tt_mb: the process's shared PerftTable}
_worker_table: Dict[float, _kernel.PerftTable] = {}
_worker_lock = threading.Lock()

# a subtask: position, depth, options and the token of the split call it belongs to (None
# for a serial call), all picklable
Task = Tuple[Position, int, _Options, Optional[_executors.Token]]

# (position, depth, weighted) whose count the kernel found past 2**128 - 1: split at once
# when met again (by another subtask); few, as such subtrees are near the root
_too_big: Set[Tuple[Position, int, bool]] = set()


def _subtree(task: Task, table: Optional[_kernel.PerftTable] = None) -> Optional[Result]:
    """One subtask: (count, probes, hits) of perft(position, depth) with the options, on
    ``table`` (or, on an executor's worker, the process's table of ``tt_mb``). A subtree
    whose count passes the kernel's 2**128 - 1 is split into its children, level by level
    (the same children met on many paths counted once, times their multiplicity). None
    only when the call was stopped and this subtask ran on another process."""
    position, depth, options, token = task
    _check_options(options)
    if table is None and options.tt_mb is not None:
        with _worker_lock:
            table = _worker_table.get(options.tt_mb)
            if table is None:
                table = _worker_table[options.tt_mb] = _table(options.tt_mb, options.backend)
    with _executors.watching(token, _kernel.Stop) as stop:
        return _counted(position, depth, options, table, stop)
    return None  # stopped on a worker process (executors.watching): nobody reads it


def _counted(position: Position, depth: int, options: _Options,
             table: Optional[_kernel.PerftTable], stop: Optional[_kernel.Stop]) -> Result:
    """(count, probes, hits) of perft(position, depth), split level by level past the
    kernel's 2**128 - 1."""
    frontier: Counter[Node] = Counter({(position, depth): 1})
    total = probes = hits = 0
    while frontier:
        split: Counter[Node] = Counter()
        for (node, left), m in frontier.items():
            if (node, left, options.weighted) not in _too_big:
                try:
                    count, p, h = _count(node, left, options, table, stop)
                    total, probes, hits = total + count * m, probes + p, hits + h
                    continue
                except CountOverflowError:
                    _too_big.add((node, left, options.weighted))
            split[(node, left)] = m
        frontier = _children(split, options)
    return total, probes, hits


def _count(position: Position, depth: int, options: _Options,
           table: Optional[_kernel.PerftTable], stop: Optional[_kernel.Stop]) -> Result:
    """One backend call: (count, probes, hits)."""
    me, me_bar, opp, opp_bar = position.mover_frame()
    if table is not None or _backend.resolve(options.backend) == "kernel":
        return _kernel.perft_count(position.rules.code, me, me_bar, opp, opp_bar, depth,
                                   options.weighted, table, True, stop)
    module = _backend.get(options.backend)
    return (module.perft_count(position.rules.code, me, me_bar, opp, opp_bar, depth,
                               options.weighted), 0, 0)


def _children(nodes: "Counter[Node]", options: _Options) -> "Counter[Node]":
    """T5 one turn down: the children of each (position, depth) at depth - 1, with the
    multiplicities of the paths (twice for a non-double when weighted). Each node has depth
    >= 1 and a game not over."""
    deeper: Counter[Node] = Counter()
    for (node, left), m in nodes.items():
        for roll in ALL_ROLLS:
            w = 2 if options.weighted and roll[0] != roll[1] else 1
            for turn in node.legal_turns(roll, backend=options.backend):
                deeper[(turn.position, left - 1)] += m * w
    return deeper


def _parallelism(workers: Optional[int], executor: Optional[Executor]) -> int:
    threads = checks.workers(workers, executor)
    if executor is not None:
        return 4  # its size is not known: 64 subtasks keep a few workers busy
    if threads is None:
        raise FastNardyError(f"workers must be an integer >= 1, not {workers!r}")
    return threads


def _split(position: Position, depth: int, options: _Options,
           parallelism: int) -> Dict[Node, int]:
    """{(position, remaining depth): multiplicity}: the distinct positions some plies down,
    at least 16 per worker while the subtrees left are deep enough to be worth a task."""
    _check_options(options)
    frontier: Counter[Node] = Counter({(position, depth): 1})
    while len(frontier) < 16 * parallelism:
        split = Counter({(node, left): m for (node, left), m in frontier.items()
                         if left >= 3 and not node.is_game_over()})
        if not split:
            break
        frontier = (frontier - split) + _children(split, options)
    return dict(frontier)


def _run(tasks: Dict[Node, int], options: _Options, workers: Optional[int],
         executor: Optional[Executor],
         progress: Optional[Callable[[PerftProgress], None]],
         saved: Optional[_Checkpoint] = None) -> Dict[Node, int]:
    """{(position, depth): count} of every task: on the workers or the executor, or in this
    thread when there are neither (a checkpointed serial call). The counts of ``saved`` are
    taken as done, and each finished one is saved there. Stopped at once by any exception
    (Ctrl-C): see the module docstring."""
    start = time.perf_counter()
    counts = {} if saved is None else {key: saved.done[key] for key in tasks if key in saved.done}
    nodes = resumed = sum(counts[key] * tasks[key] for key in counts)
    resumed_subtasks = len(counts)
    probes = hits = 0
    call = _executors.Call(_kernel.Stop)
    token = call.token
    own = executor is None and workers is not None
    pool: Optional[Executor] = None
    futures: Dict[Future[Optional[Result]], Node] = {}
    try:
        if workers is None and executor is None:
            table = _new_table(options)
            results: Iterable[Tuple[Node, Optional[Result]]] = (
                (key, _subtree((*key, options, token), table)) for key in tasks
                if key not in counts)
        else:
            size = _parallelism(workers, executor)  # checks them (perft_divide's too)
            pool = ThreadPoolExecutor(size) if executor is None else checks.as_executor(executor)
            # our own threads share one table for this call; an executor's workers keep theirs
            work: Callable[[Task], Optional[Result]] = (
                functools.partial(_subtree, table=_new_table(options)) if own else _subtree)
            for key in tasks:
                if key not in counts:
                    futures[pool.submit(work, (*key, options, token))] = key
            results = ((futures[future], future.result()) for future in as_completed(futures))
        for key, result in results:
            if result is None:  # a stopped call's subtask on a worker: not this call's
                raise KeyboardInterrupt("the perft call was stopped")
            count, p, h = result
            counts[key] = count
            nodes += count * tasks[key]
            probes += p
            hits += h
            if saved is not None:
                saved.finished(key, count)
            if progress is not None:
                progress(PerftProgress(len(counts), len(tasks), nodes,
                                       time.perf_counter() - start, probes, hits, resumed,
                                       resumed_subtasks))
    except BaseException:
        call.halt(pool, futures)
        raise
    finally:
        call.close()
        if own and pool is not None:  # stopped subtasks end within milliseconds: not awaited
            pool.shutdown(wait=not call.stop.is_set(), cancel_futures=True)
        if saved is not None:
            saved.write()
    return counts


class _Checkpoint:
    """A checkpoint file (see the module docstring): the call it belongs to (position string,
    depth, weighted, the split's parallelism) and ``done``, the count of each finished
    subtask, keyed as the split keys them, with the SHA-256 of all that (``sha256``): a
    damaged file is refused, never counted."""

    VERSION = 2  # 1: without a checksum

    def __init__(self, path: PathLike, root: Position, depth: int, options: _Options,
                 parallelism: int) -> None:
        filename = os.fspath(path) if isinstance(path, (str, os.PathLike)) else None
        if not isinstance(filename, str) or not filename or "\0" in filename:
            raise FastNardyError(f"checkpoint must name a file (a str or a path), not {path!r}")
        self.path = filename
        self.call = {"position": root.to_string(), "depth": depth, "weighted": options.weighted}
        self.parallelism = parallelism
        self.done: Dict[Node, int] = {}
        self.last_write = 0.0
        if os.path.exists(filename):
            self._read()

    def _read(self) -> None:
        try:
            document = json.loads(_files.read_text(self.path))
        except OSError as exc:
            raise FastNardyError(f"cannot read the checkpoint {self.path}: "
                                 f"{exc.strerror or exc}") from None
        except (ValueError, RecursionError):
            document = None
        version = document.get("fastnardy_perft_checkpoint") \
            if isinstance(document, dict) else None
        if version == 1:
            raise FastNardyError(f"the checkpoint {self.path} was written by an older fastnardy, "
                                 f"without a checksum, and cannot be trusted: delete it to "
                                 f"start afresh")
        if version != self.VERSION:
            raise FastNardyError(f"{self.path} is not a fastnardy perft checkpoint")
        if document.get("sha256") != _checksum(document):
            raise FastNardyError(f"the checkpoint {self.path} is damaged (its content does not "
                                 f"match its checksum): delete it to start afresh")
        call = {key: document.get(key) for key in self.call}
        if call != self.call:
            raise FastNardyError(f"the checkpoint {self.path} belongs to perft({call['depth']}) "
                                 f"of {call['position']!r} (weighted={call['weighted']}), "
                                 f"not to this call: give another file")
        parallelism, done = integer(document.get("parallelism")), document.get("done")
        try:
            if parallelism is None or parallelism < 1 or not isinstance(done, list):
                raise TypeError
            for text, left, count in done:
                if integer(left) is None or integer(count) is None or count < 0:
                    raise TypeError
                self.done[(Position.from_string(text), left)] = count
        except (TypeError, ValueError):
            raise FastNardyError(f"the checkpoint {self.path} does not read: a subtask is "
                                 f"not [position, depth, count]") from None
        self.parallelism = parallelism

    def finished(self, key: Node, count: int) -> None:
        """Record a finished subtask; write the file when the last write is a second old."""
        self.done[key] = count
        if time.monotonic() - self.last_write >= 1.0:
            self.write()

    def write(self) -> None:
        """Write the file whole (a temporary file renamed over it)."""
        document = {"fastnardy_perft_checkpoint": self.VERSION, **self.call,
                    "parallelism": self.parallelism,
                    "done": [[node.to_string(), left, count]
                             for (node, left), count in self.done.items()]}
        document["sha256"] = _checksum(document)
        _files.write_whole(self.path, (json.dumps(document) + "\n").encode("utf-8"))
        self.last_write = time.monotonic()


def _checksum(document: Dict[str, object]) -> str:
    """The SHA-256 of a checkpoint's content: every field but ``sha256``, as canonical JSON."""
    content = {key: value for key, value in document.items() if key != "sha256"}
    canonical = json.dumps(content, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class PerftEntry:
    """One expected count of a ``.perft`` file."""

    id: str
    position: str
    depth: int
    count: int
    slow: bool


def read_perft_file(path: Union[str, "os.PathLike[str]"]) -> List[PerftEntry]:
    """Parse a ``.perft`` file: blocks of ``id NAME``, ``position STRING`` and
    ``perft DEPTH COUNT [slow]`` lines; ``#`` starts a comment. Returns PerftEntry values."""
    filename = os.fspath(path) if isinstance(path, (str, os.PathLike)) else None
    if not isinstance(filename, str) or "\0" in filename:
        raise FastNardyError(f"a .perft file is named by a str or a path, not {path!r}")
    entries: List[PerftEntry] = []
    name: Optional[str] = None
    position: Optional[str] = None
    with open(filename, encoding="utf-8") as handle:
        for number, raw in enumerate(handle, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            word, _, rest = line.partition(" ")
            if word == "id":
                name, position = rest.strip(), None
            elif word == "position":
                position = rest.strip()
            elif word == "perft" and name is not None and position is not None:
                fields = rest.split()
                if len(fields) not in (2, 3) or not all(f.isdigit() for f in fields[:2]) \
                        or fields[2:] not in ([], ["slow"]):
                    raise FastNardyError(f"{path}:{number}: expected 'perft DEPTH COUNT [slow]'")
                entries.append(PerftEntry(name, position, int(fields[0]), int(fields[1]),
                                          fields[2:] == ["slow"]))
            else:
                raise FastNardyError(f"{path}:{number}: cannot read {line!r}")
    return entries
