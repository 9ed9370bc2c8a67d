"""Perft (T5): count the positions reached after a number of turns, over the 21 rolls, on
one core or many.

Serial perft is one kernel call (no GIL, Ctrl-C stops it). With ``tt_mb`` the kernel keeps
an exact transposition table of subtree counts (:class:`fastnardy._kernel.PerftTable`):
keyed by the full 128-bit position key, the remaining depth, ``weighted`` and the rules, so
every hit is exact; buckets of two entries, slot 0 keeping the deepest subtree seen and
slot 1 the most recent.

With ``workers`` or ``executor`` the tree is split into subtasks: the distinct positions a
few plies down (each with its multiplicity: how many (roll, turn) paths reach it, twice for a
non-double when weighted), enough of them to keep the workers busy. A subtask is a small
picklable tuple (position, remaining depth, weighted, backend, tt_mb) and its result is
(count, probes, hits); the counts, times their multiplicities, add up to the serial count.
``workers=N`` runs N threads in this process (the kernel releases the GIL); ``executor``
takes any :class:`concurrent.futures.Executor` — a thread or process pool, or a Dask cluster
through ``distributed.Client.get_executor()`` — and is never shut down here. The threads of
one call share one table of ``tt_mb`` MB (each bucket has its own lock), freed when the call
returns; on an executor, each worker process keeps one table of ``tt_mb`` MB for as long as
it lives and shares it among its threads and subtasks. Ray has no Executor; see the README
for a five-line adapter.
"""

from __future__ import annotations

import functools
import os
import threading
import time
from collections import Counter
from concurrent.futures import Executor, Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

from . import _kernel, checks
from . import backend as _backend
from ._kernel import dice_pair
from .basics import ALL_ROLLS, Roll
from .errors import FastNardyError, InvalidDiceError, InvalidPositionError
from .position import Position, Turn

Node = Tuple[Position, int]  # a position and the depth left below it
Result = Tuple[int, int, int]  # a subtask's count, table probes and table hits


def _position(position: object) -> Position:
    if not isinstance(position, Position):
        raise InvalidPositionError(f"perft needs a Position, not {position!r}")
    return position


class PerftProgress(NamedTuple):
    """Where a split perft stands, given to the ``progress`` callback after each subtask."""

    done: int           # subtasks finished
    total: int          # subtasks in all
    nodes: int          # the count so far (finished subtasks, with their multiplicities)
    seconds: float      # since the start
    probes: int         # transposition-table lookups in the finished subtasks
    hits: int           # ... of which answered by the table


def perft(position: Position, depth: int, *, weighted: bool = False,
          backend: Optional[str] = None,
          workers: Optional[int] = None, executor: Optional[Executor] = None,
          tt_mb: Optional[float] = None,
          progress: Optional[Callable[[PerftProgress], None]] = None) -> int:
    """T5: ``perft(pos, 0) = 1``; a finished game counts 1; otherwise the sum over the 21
    rolls of the children's perft at ``depth - 1`` (a pass is one child). ``weighted`` counts
    each non-double twice (36 outcomes). ``tt_mb`` sets the size of the exact transposition
    table; ``workers`` / ``executor`` split the tree (see the module docstring); ``progress``
    is called after each subtask."""
    root, plies = _position(position), checks.depth(depth)
    if progress is not None and not callable(progress):
        raise FastNardyError(f"progress must be a callable or None, not {progress!r}")
    options = _Options(weighted, backend, tt_mb)
    if workers is None and executor is None:
        start = time.perf_counter()
        count, probes, hits = _subtree((root, plies, options), _new_table(options))
        if progress is not None:
            progress(PerftProgress(1, 1, count, time.perf_counter() - start, probes, hits))
        return count
    tasks = _split(root, plies, options, _parallelism(workers, executor))
    counts = _run(tasks, options, workers, executor, progress)
    return sum(counts.get(key, 0) * m for key, m in tasks.items())


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
        counts = {child: _subtree((child, plies - 1, options), table)[0] for child in children}
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
    if _backend.resolve(backend) != "kernel":
        raise FastNardyError("tt_mb needs the kernel backend")
    return _kernel.PerftTable(tt_mb)


# on an executor's worker: {tt_mb: the process's shared PerftTable}
_worker_table: Dict[float, _kernel.PerftTable] = {}
_worker_lock = threading.Lock()

Task = Tuple[Position, int, _Options]  # a subtask: position, depth, options (picklable)


def _subtree(task: Task, table: Optional[_kernel.PerftTable] = None) -> Result:
    """One subtask: (count, probes, hits) of perft(position, depth) with the options, on
    ``table`` (or, on an executor's worker, the process's table of ``tt_mb``)."""
    position, depth, options = task
    _check_options(options)
    module = _backend.get(options.backend)
    me, me_bar, opp, opp_bar = position.mover_frame()
    if table is None and options.tt_mb is not None:
        with _worker_lock:
            table = _worker_table.get(options.tt_mb)
            if table is None:
                table = _worker_table[options.tt_mb] = _table(options.tt_mb, options.backend)
    if table is None:
        return (module.perft_count(position.rules.code, me, me_bar, opp, opp_bar, depth,
                                   options.weighted), 0, 0)
    # a table exists only on the kernel (_table checks)
    return _kernel.perft_count(position.rules.code, me, me_bar, opp, opp_bar, depth,
                               options.weighted, table, True)


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
        deeper: Counter[Node] = Counter()
        split_any = False
        for (node, left), m in frontier.items():
            if left < 3 or node.is_game_over():
                deeper[(node, left)] += m
                continue
            split_any = True
            for roll in ALL_ROLLS:
                w = 2 if options.weighted and roll[0] != roll[1] else 1
                for turn in node.legal_turns(roll, backend=options.backend):
                    deeper[(turn.position, left - 1)] += m * w
        frontier = deeper
        if not split_any:
            break
    return dict(frontier)


def _run(tasks: Dict[Node, int], options: _Options, workers: Optional[int],
         executor: Optional[Executor],
         progress: Optional[Callable[[PerftProgress], None]]) -> Dict[Node, int]:
    """{(position, depth): count} of every task, on the workers or the executor."""
    start = time.perf_counter()
    own = executor is None
    size = _parallelism(workers, executor)  # checks them (perft_divide's too)
    pool = ThreadPoolExecutor(size) if executor is None else executor
    # our own threads share one table for this call; an executor's workers keep their own
    work: Callable[[Task], Result] = (functools.partial(_subtree, table=_new_table(options))
                                      if own else _subtree)
    counts: Dict[Node, int] = {}
    futures: Dict[Future[Result], Node] = {}
    nodes = probes = hits = 0
    try:
        for node, left in tasks:
            futures[pool.submit(work, (node, left, options))] = (node, left)
        for future in as_completed(futures):
            key = futures[future]
            count, p, h = future.result()
            counts[key] = count
            nodes += count * tasks[key]
            probes += p
            hits += h
            if progress is not None:
                progress(PerftProgress(len(counts), len(tasks), nodes,
                                       time.perf_counter() - start, probes, hits))
    except BaseException:
        for future in futures:
            future.cancel()
        raise
    finally:
        if own:
            pool.shutdown(wait=True, cancel_futures=True)
    return counts


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
