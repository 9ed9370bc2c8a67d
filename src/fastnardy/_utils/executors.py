"""Calls split into subtasks on threads, a process pool or a Dask cluster, and how
Ctrl-C (or any exception) stops every piece at once.

A :class:`Call` names itself to its subtasks by a token (pickled with them) and owns a stop
flag (the caller's kind: :class:`fastnardy._kernel.Stop`, which its kernel calls watch). A
subtask runs inside :func:`watching`, which gives it the flag to hand the kernel: the
caller's own on this process's threads, or one of the worker process's own elsewhere.
:meth:`Call.halt` sets the caller's and cancels the queued subtasks, terminates a process
pool's workers (the only way to stop a running piece of another process that the pool does
not let us reach) or, on a Dask executor, has every worker of the cluster set the flags of
the call's running subtasks and end its queued ones at once (one ``Client.run``; cancelling
each future would be a round trip each, and races distributed's own completion of it):
nothing goes on computing after the call has ended.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections import OrderedDict
from concurrent.futures import (FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor,
                                ThreadPoolExecutor, as_completed, wait)
from contextlib import contextmanager
from typing import (Any, Callable, Dict, Generator, Iterable, Iterator, List, Optional,
                    Protocol, Sequence, Tuple, TypeVar, cast)


class Flag(Protocol):
    """A stop flag (fastnardy._kernel.Stop): set by any thread, read by the calls."""

    def set(self) -> None: ...

    def is_set(self) -> bool: ...


F = TypeVar("F", bound=Flag)
T = TypeVar("T")
R = TypeVar("R")
Token = Tuple[int, int]  # a call: (the caller's process id, its number there)

_numbers = itertools.count()
_lock = threading.Lock()
_callers: Dict[Token, Flag] = {}  # the calls running in this process, by token
_workers: Dict[Token, List[Flag]] = {}  # the subtasks of other processes' calls
_halted: "OrderedDict[Token, None]" = OrderedDict()  # calls halted here: their later subtasks
_HALTED_KEPT = 1024  # the most recent halted calls remembered by a worker process


class Call:
    """A call split into subtasks: ``token`` for the subtasks, ``stop`` (a new ``flag()``)
    for its kernel calls in this process; :meth:`close` it when the call ends."""

    def __init__(self, flag: Callable[[], Flag]) -> None:
        self.token: Token = (os.getpid(), next(_numbers))
        self.stop = flag()
        with _lock:
            _callers[self.token] = self.stop

    def close(self) -> None:
        """The call has ended: a subtask that starts later stops at once."""
        with _lock:
            del _callers[self.token]

    def halt(self, pool: Optional[Executor], futures: Iterable["Future[Any]"]) -> None:
        """Stop every piece of the call: see the module docstring."""
        self.stop.set()
        if isinstance(pool, ProcessPoolExecutor):
            _terminate(pool)  # its manager fails every pending future (a cancelled one it trips on)
            return
        client = getattr(pool, "_client", None)  # distributed's ClientExecutor
        if client is not None and type(pool).__module__.startswith("distributed"):
            try:
                client.run(halt_here, self.token)
            except Exception:  # the cluster is gone or closing: so are its subtasks
                pass
            return  # its queued subtasks now end at once: not cancelled one message each
        for future in futures:
            future.cancel()


def completed(call: Call, function: Callable[[T], Optional[R]], tasks: Sequence[T],
              pool: Optional[Executor], threads: Optional[int]
              ) -> Generator[Tuple[int, R], None, None]:
    """``(index, function(task))`` of every task of ``call`` as it completes: here, one after
    the other, when there is no ``pool`` and at most one thread; else on ``threads`` threads
    of our own (two tasks a thread queued at a time, so that a halt has little to cancel) or
    on ``pool`` (all queued; never shut down here). A None result (a stopped subtask on
    another process) is KeyboardInterrupt. Any exception, and closing the generator early,
    halts every piece (:meth:`Call.halt`); the call is closed when the generator ends."""
    own = pool is None and threads is not None and threads > 1
    futures: Dict["Future[Optional[R]]", int] = {}
    try:
        if pool is None and not own:
            results: Iterable[Tuple[int, Optional[R]]] = (
                (i, function(task)) for i, task in enumerate(tasks))
        elif own:
            assert threads is not None
            pool = ThreadPoolExecutor(threads)
            results = _queued(pool, function, tasks, futures, 2 * threads)
        else:
            assert pool is not None
            futures = {pool.submit(function, task): i for i, task in enumerate(tasks)}
            results = ((futures[future], future.result()) for future in as_completed(futures))
        for i, result in results:
            if result is None:  # a stopped call's subtask on a worker: not this call's
                raise KeyboardInterrupt("the call was stopped")
            yield i, result
    except BaseException:  # GeneratorExit too: the caller stopped reading
        call.halt(pool, futures)
        raise
    finally:
        call.close()
        if own and pool is not None:  # stopped subtasks end within a turn: not awaited
            pool.shutdown(wait=not call.stop.is_set(), cancel_futures=True)


def _queued(pool: Executor, function: Callable[[T], Optional[R]], tasks: Sequence[T],
            futures: Dict["Future[Optional[R]]", int], most: int
            ) -> Iterator[Tuple[int, Optional[R]]]:
    """``(index, result)`` of each task as it completes on ``pool``, at most ``most`` of
    them submitted and not yet read at a time; ``futures`` holds those (what a halt
    cancels)."""
    waiting = iter(enumerate(tasks))
    for i, task in itertools.islice(waiting, most):
        futures[pool.submit(function, task)] = i
    while futures:
        for future in wait(futures, return_when=FIRST_COMPLETED)[0]:
            i = futures.pop(future)
            for j, task in itertools.islice(waiting, 1):
                futures[pool.submit(function, task)] = j
            yield i, future.result()


@contextmanager
def watching(token: Optional[Token], flag: Callable[[], F]) -> Iterator[Optional[F]]:
    """The stop flag a subtask of the call ``token`` gives its kernel calls (None for a call
    not split; on another process a new ``flag()``). On the caller's process a stopped
    subtask raises KeyboardInterrupt (into a future nobody reads), as does one that starts
    after its call ended. On another process (a Dask worker, where a task's
    KeyboardInterrupt would end the worker and any other exception is logged as a failure)
    it ends quietly: the ``with`` block is left at the kernel's KeyboardInterrupt and the
    subtask returns None, which nobody reads either."""
    if token is None:
        yield None
        return
    with _lock:
        caller = _callers.get(token)
        if token[0] == os.getpid() and caller is None:  # the call ended (interrupted)
            raise KeyboardInterrupt("the call was stopped")
        if caller is None:
            stop = flag()
            if token in _halted:
                stop.set()  # the kernel stops before its first generation
            _workers.setdefault(token, []).append(stop)
    if caller is not None:
        yield cast(F, caller)  # the call's own, made by the same ``flag``
        return
    try:
        yield stop
    except KeyboardInterrupt:
        if not stop.is_set():  # not the halt's: a signal in this process
            raise
    finally:
        with _lock:
            stops = _workers[token]
            stops.remove(stop)
            if not stops:
                del _workers[token]


def halt_here(token: Token) -> None:
    """On a worker process (run there by :meth:`Call.halt`): set the flags of the call's
    running subtasks, and stop those that start later."""
    with _lock:
        _halted[token] = None
        while len(_halted) > _HALTED_KEPT:
            _halted.popitem(last=False)
        for stop in _workers.get(token, ()):
            stop.set()


def _terminate(pool: ProcessPoolExecutor) -> None:
    """End the worker processes of a process pool."""
    processes = getattr(pool, "_processes", None) or {}
    for process in list(processes.values()):
        try:
            process.terminate()
        except (OSError, AttributeError):  # already gone
            pass
