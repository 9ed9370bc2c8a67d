"""One thread at a time for objects whose state Python holds between calls (the RL
environments): a call made while another thread's call runs is refused, never interleaved."""

from __future__ import annotations

import functools
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator, TypeVar, cast

from ..errors import FastNardyError

_GUARD = threading.Lock()  # makes the check and the claim one step


@contextmanager
def exclusive(owner: Any, what: str) -> Iterator[None]:
    """Run the block as ``owner``'s one call: FastNardyError when another thread's call on
    it is running (the same thread may nest calls, e.g. a reset that renders)."""
    me = threading.get_ident()
    with _GUARD:
        holder, depth = getattr(owner, "_thread_claim", (None, 0))
        if holder is not None and holder != me:
            raise FastNardyError(f"this {what} is in use by another thread: share one "
                                 f"behind a lock, or give each thread its own")
        owner._thread_claim = (me, depth + 1)
    try:
        yield
    finally:
        with _GUARD:
            holder, depth = owner._thread_claim
            owner._thread_claim = (None, 0) if depth == 1 else (holder, depth - 1)


F = TypeVar("F", bound=Callable[..., Any])


def one_thread(what: str) -> Callable[[F], F]:
    """A method decorator: the method runs under :func:`exclusive` of its object."""
    def wrap(method: F) -> F:
        @functools.wraps(method)
        def guarded(self: Any, *args: Any, **kwargs: Any) -> Any:
            with exclusive(self, what):
                return method(self, *args, **kwargs)
        return cast(F, guarded)
    return wrap
