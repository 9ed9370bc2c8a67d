"""A trainer's labels: the five outputs (:data:`fastnardy.search.network.OUTPUTS`) of many
rows to their side to move, by a teacher, here or on a cluster.

The teacher is an evaluation setting (:class:`~fastnardy.search.setting.Setting`): a
network's (``net:P``, ``FILE.npz:P`` …), GNU Backgammon's (``gnubg:expert:P``, short
nardy) or bgsage's (``bgsage:P``, short nardy). A network's label at 0 ply is its outputs;
at 1 ply or more the outputs of the line its search values
(:meth:`fastnardy.search.tree.Search.line`): the mean over the 21 rolls (T5) of the labels
one ply shallower after its best turn of each roll (the highest value among the turns the
setting's filter keeps, the first of equals in T2 order), seen from the row's side to move;
a label's equity is the search's value, and the labels are
:func:`fastnardy.analysis.evaluation.probabilities` at the same setting. gnubg's label at 0
to 4 plies is its cubeless evaluation (:meth:`fastnardy.play.gnubg.Gnubg.probabilities`:
money game without Jacoby, gammons and backgammons count, S9), one gnubg process per
subtask. Each gnubg process spends about 10 ms of wall time a row waiting on its own task
queue, with no CPU in use (``data/gnubg_driver.py``). Give gnubg labels many ``workers``
even on a small machine: the trainers' commands use 48. On this project's 2-core machine
one process labelled 300 rows in 3 s at 0 ply, and 48 workers labelled 2,000,000 rows in
243 s. bgsage's label at 0 to 3 plies (its "1ply" to "4ply") is its cubeless evaluation
before the roll (:meth:`fastnardy.play.bgsage.Bgsage.probabilities`: money game without
Jacoby, gammons and backgammons count where still possible, S9), computed in this process
on one thread of bgsage's a subtask (its C++ releases the GIL: ``workers`` threads run at
once; each holds bgsage's networks of its own, about 30 MiB at 0 ply and 70 MiB deeper), a
piece of 128 rows at a time (32, 8 and 2 at 1, 2 and 3 plies). A finished game's
outputs are exact (L10, S9), as a row and as a child.

A row's label depends on that row only, so the labels are the same however the rows are
split over ``workers`` threads or an ``executor`` (a process pool or a Dask cluster, whose
workers need gnubg or bgsage for theirs). Ctrl-C (any exception) stops every piece, on the workers
too, within a piece of 128 rows of an Evaluator (at 2 plies, of 128 of its rows' children)
or a piece of bgsage's, and at once for gnubg (its processes are killed)
(:mod:`fastnardy._utils.executors`).
"""

from __future__ import annotations

import threading
from concurrent.futures import Executor
from contextlib import closing
from typing import Callable, List, NamedTuple, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

from .. import _features, checks
from .._utils import executors as _executors
from ..batch import keys_from_rows
from ..errors import EngineError, FastNardyError, InvalidPositionError
from ..play.bgsage import Bgsage
from ..play.gnubg import Gnubg
from ..rules import Rules
from ..search.network import OUTPUTS, exact_rows
from ..search.setting import Setting, setting as as_setting
from ..search.tree import STOP_ROWS

__all__ = ["labels"]

_PIECE = STOP_ROWS  # a subtask's rows: whole groups of Search.line's with a stop flag
_SUBTASKS = 64  # subtasks at most, or 4 a thread (each carries the network to its worker,
#                 or starts a gnubg process): whole pieces each, few enough to cost little,
#                 enough that the last ones leave few threads idle
_GNUBG_REQUEST = 16  # rows a gnubg request
_BGSAGE = (128, 32, 8, 2)  # rows a bgsage call at each of its plies (at 1 ply: 50 ms)


class _Plan(NamedTuple):
    """What every piece shares (picklable, for an executor's workers)."""

    rules: Rules
    teacher: Setting  # a network's with its Evaluator, or gnubg's


# a subtask: the plan, its rows, and the token of its call (fastnardy._utils.executors)
_Task = Tuple[_Plan, npt.NDArray[np.int8], _executors.Token]


def labels(rules: object, rows: npt.ArrayLike, teacher: Union[Setting, str], *,
           workers: Optional[int] = None, executor: Optional[Executor] = None,
           progress: Optional[Callable[[int, int], None]] = None) -> npt.NDArray[np.float64]:
    """The five outputs (N, 5) of each of the rows (N, 50) to its side to move by the
    ``teacher`` setting (a network's, or ``gnubg:expert:P`` or ``bgsage:P`` in short
    nardy); see the module
    docstring. The rows are labelled here, on ``workers`` threads or on ``executor`` (a
    process pool, a Dask ``distributed.Client`` or its ``get_executor()``; never shut down
    here), with the same result. ``progress(done, total)`` counts rows."""
    rules = Rules.of(rules)
    given = checks.array(rows, "rows", InvalidPositionError)
    keys_from_rows(rules, given)  # checks the rows here, not on a worker (InvalidPositionError)
    board = np.ascontiguousarray(given, dtype=np.int8)
    if teacher is None:
        raise FastNardyError("labels need a teacher: a network's setting (net:1, "
                             "FILE.npz:2 ...), gnubg:expert[:PLIES] or bgsage[:PLIES]")
    chosen = as_setting(teacher)
    if chosen.is_network:  # its Evaluator travels with the plan, read once here
        chosen = chosen.replace(evaluator=chosen.network(rules))
    elif chosen.evaluator not in ("gnubg:expert", "bgsage"):
        raise FastNardyError(f"a teacher is a network's setting, gnubg:expert[:PLIES] or "
                             f"bgsage[:PLIES], not {chosen}")
    elif rules.game != "short":
        raise FastNardyError(f"{'bgsage' if chosen.evaluator == 'bgsage' else 'GNU Backgammon'}"
                             f" labels short nardy only")
    threads = checks.workers(workers, executor, checks.MAX_THREADS)
    pool = None if executor is None else checks.as_executor(executor)
    checks.callback(progress)
    out = np.empty((len(board), len(OUTPUTS)))
    subtasks = max(_SUBTASKS, 4 * (threads or 1))
    per = _PIECE * max(1, -(-len(board) // (_PIECE * subtasks)))  # rows a subtask
    starts = range(0, len(board), per)
    call = _executors.Call(threading.Event)
    plan = _Plan(rules, chosen)
    tasks: List[_Task] = [(plan, board[i:i + per], call.token) for i in starts]
    done = 0
    with closing(_executors.completed(call, _labelled, tasks, pool, threads)) as results:
        for i, part in results:
            out[starts[i]:starts[i] + len(part)] = part
            done += len(part)
            if progress is not None:
                progress(done, len(board))
    return out


def _labelled(task: _Task) -> Optional[npt.NDArray[np.float64]]:
    """One subtask: the labels of its rows (None when its call was stopped and it ran on
    another process: nobody reads it). KeyboardInterrupt once the call is stopped: at the
    next piece of a network's, at once of gnubg's."""
    plan, rows, token = task
    with _executors.watching(token, threading.Event) as stop:
        assert stop is not None  # a labels call always has a token
        if stop.is_set():  # queued when its call was halted: ends before starting gnubg
            raise KeyboardInterrupt("the labels were stopped")
        out = np.empty((len(rows), len(OUTPUTS)))
        finished = _features.winners(rows) != 0
        out[finished] = exact_rows(plan.rules, rows[finished])
        live = np.flatnonzero(~finished)
        teacher = plan.teacher
        if teacher.evaluator == "bgsage":
            out[live] = _bgsage(rows[live], teacher, stop)
            return out
        if not teacher.is_network:
            out[live] = _gnubg(rows[live], teacher, stop)
            return out
        search = teacher.search(plan.rules)  # STOP_ROWS rows at a time
        out[live] = search.line(rows[live], teacher.plies, 0, stop)[1]
        return out
    return None


def _gnubg(rows: npt.NDArray[np.int8], teacher: Setting, stop: _executors.Flag
           ) -> npt.NDArray[np.float64]:
    """gnubg's labels of unfinished rows, by one gnubg process; KeyboardInterrupt at once
    when ``stop`` is set (a watcher kills the process, whose request then fails)."""
    if not len(rows):
        return np.empty((0, len(OUTPUTS)))
    engine = Gnubg(teacher, 1)
    ended = threading.Event()

    def watch() -> None:
        while not ended.wait(0.05):
            if stop.is_set():
                for driver in engine.drivers:
                    if driver is not None:
                        driver.process.kill()
                return

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        parts: List[npt.NDArray[np.float64]] = []
        for i in range(0, len(rows), _GNUBG_REQUEST):
            if stop.is_set():
                raise KeyboardInterrupt("the labels were stopped")
            try:
                parts.append(engine.probabilities(rows[i:i + _GNUBG_REQUEST],
                                                  teacher.plies))
            except (EngineError, OSError):  # gnubg exited, or its pipe closed
                if stop.is_set():  # the watcher's kill
                    raise KeyboardInterrupt("the labels were stopped") from None
                raise
        return np.concatenate(parts)
    finally:
        ended.set()
        watcher.join()
        if stop.is_set():  # killed, or about to be: reaped, not closed
            for i, driver in enumerate(engine.drivers):  # (a close would write to its pipe)
                if driver is not None:
                    driver.abandon()
                    engine.drivers[i] = None
        engine.close()


def _bgsage(rows: npt.NDArray[np.int8], teacher: Setting, stop: _executors.Flag
            ) -> npt.NDArray[np.float64]:
    """bgsage's labels of unfinished rows, a piece at a time; KeyboardInterrupt at the next
    piece once ``stop`` is set."""
    engine = Bgsage(teacher, 1)
    piece = _BGSAGE[teacher.plies]
    out = np.empty((len(rows), len(OUTPUTS)))
    for i in range(0, len(rows), piece):
        if stop.is_set():
            raise KeyboardInterrupt("the labels were stopped")
        out[i:i + piece] = engine.probabilities(rows[i:i + piece])
    return out
