"""Work on executors abandoned at once: what a call does when Ctrl-C (or any exception)
stops it while its pieces run on a caller's or its own executor."""

from __future__ import annotations

from concurrent.futures import Executor, Future, ProcessPoolExecutor
from typing import Any, Iterable, Optional


def abandon(pool: Optional[Executor], futures: Iterable["Future[Any]"]) -> None:
    """Stop waiting for ``futures`` of ``pool``: the queued ones are cancelled (on any
    executor; a Dask executor's futures cancel their tasks on the cluster) and a
    :class:`~concurrent.futures.ProcessPoolExecutor`'s worker processes are terminated, the
    only way to stop a running piece in another process (that pool is broken afterwards).
    Pieces running on threads are left to finish unawaited (or to stop on their own flag)."""
    if isinstance(pool, ProcessPoolExecutor):
        _terminate(pool)  # its manager fails every pending future (a cancelled one it trips on)
        return
    for future in futures:
        future.cancel()


def _terminate(pool: ProcessPoolExecutor) -> None:
    """End the worker processes of a process pool."""
    processes = getattr(pool, "_processes", None) or {}
    for process in list(processes.values()):
        try:
            process.terminate()
        except (OSError, AttributeError):  # already gone
            pass
