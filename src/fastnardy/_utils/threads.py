"""One thread at a time for objects whose state Python holds between calls (the RL
environments): a call made while another thread's call runs is refused, never interleaved;
and after a call that Ctrl-C stopped midway, every call but the one that begins afresh
(``reset``) is refused, saying so, instead of running on a half-updated state."""

from __future__ import annotations

import functools
import threading
from contextlib import contextmanager
from typing import Any, Callable, Dict, Iterator, Type, TypeVar, cast

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


def one_thread(what: str, *, begins: bool = False) -> Callable[[F], F]:
    """A method decorator: the method runs under :func:`exclusive` of its object. A
    KeyboardInterrupt out of it marks the object interrupted: until a method that
    ``begins`` afresh is called, the others raise FastNardyError."""
    def wrap(method: F) -> F:
        @functools.wraps(method)
        def guarded(self: Any, *args: Any, **kwargs: Any) -> Any:
            with exclusive(self, what):
                stopped = getattr(self, "_interrupted_call", None)
                if begins:
                    self._interrupted_call = None
                elif stopped is not None:
                    raise FastNardyError(f"this {what}'s {stopped}() was interrupted (Ctrl-C) "
                                         f"before it ended, its games left midway: call "
                                         f"reset() to begin again")
                try:
                    return method(self, *args, **kwargs)
                except KeyboardInterrupt:
                    self._interrupted_call = method.__name__
                    raise
        return cast(F, guarded)
    return wrap


S = TypeVar("S", bound="Serialized")


class Serialized:
    """An object whose :func:`serialized` methods run one at a time, each whole, under the
    object's re-entrant lock: threads may share it (a call that finds the state moved on is
    refused as it would be from one thread). Pickles and deep copies leave the lock behind;
    each object made gets its own."""

    _lock: threading.RLock

    def __new__(cls: Type[S], *args: Any, **kwargs: Any) -> S:
        made = super().__new__(cls)
        made._lock = threading.RLock()
        return made

    def __getstate__(self) -> Dict[str, Any]:
        return {key: value for key, value in self.__dict__.items() if key != "_lock"}


def serialized(method: F) -> F:
    """A method of a :class:`Serialized` object: it runs under the object's lock."""
    @functools.wraps(method)
    def locked(self: Serialized, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            return method(self, *args, **kwargs)
    return cast(F, locked)
