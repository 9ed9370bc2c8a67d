"""One check for each kind of argument, in one message style: ``"<name> must be <what it
may be>, not <the value given>"``, raised as the documented :mod:`fastnardy.errors` class.

Dice are checked by the kernel's parser (:func:`fastnardy._kernel.dice_pair`), which every
entry point calls, and a ragged nesting of lists by the kernel's ``as_array`` (``array``
here; the compiled modules call it too); the kernel checks again what reaches it (depth,
``max_children``, the table's size) and these checks run first, so a caller meets these
messages.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from concurrent.futures import Executor
from itertools import islice
from typing import Any, List, Optional, Tuple, Type, TypeVar, cast

import numpy as np

from ._kernel import PackedPosition, as_array
from .basics import CHECKERS, MAX_DEPTH, ROW_WIDTH, SIDES, Points
from .errors import FastNardyError, InvalidPositionError, integer, shown

array = as_array  # value, name, error=FastNardyError: one home, the kernel's

MAX_TABLE_MB = 1 << 20  # a transposition table of at most 1 TB
MAX_ITEMS = 1 << 24  # an iterator of positions or games is read to at most this many
MAX_THREADS = 1024  # threads of their own that labels and rollouts start at most


def bounded(value: object, most: int) -> Optional[List[Any]]:
    """The items of an iterable argument, read no further than ``most`` + 1 (an endless
    iterator stops there: the caller refuses more than ``most``), or None when ``value`` is
    not iterable (text and bytes are not read as iterables). A sized value is read whole up
    to the same bound."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        return None
    try:
        return list(islice(value, most + 1))
    except TypeError:  # an Iterable that refuses, e.g. a 0-d numpy array
        return None


def number(value: object, name: str, low: int, high: Optional[int] = None,
           error: Type[FastNardyError] = FastNardyError) -> int:
    """An integer from ``low`` to ``high`` (no upper bound when None)."""
    checked = integer(value)
    if checked is None or checked < low or (high is not None and checked > high):
        span = f"between {low} and {high}" if high is not None else f">= {low}"
        raise error(f"{name} must be an integer {span}, not {value!r}")
    return checked


def real(value: object, name: str, low: float, high: float) -> float:
    """A real number (not a bool, not NaN) from ``low`` to ``high``."""
    number = math.nan
    if not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, float, np.integer,
                                                                      np.floating)):
        try:
            number = float(value)
        except OverflowError:  # an int beyond any float
            number = math.copysign(math.inf, value)
    if not low <= number <= high:
        span = "any number but NaN" if (low, high) == (-math.inf, math.inf) else \
            f"a number between {low} and {high}"
        raise FastNardyError(f"{name} must be {span}, not "
                             f"{shown(value) if isinstance(value, str) else repr(value)}")
    return number


def depth(value: object) -> int:
    """T5: a perft depth, 0 to :data:`fastnardy.basics.MAX_DEPTH`."""
    return number(value, "depth", 0, MAX_DEPTH)


def limit(value: object, name: str = "max_children") -> Optional[int]:
    """None (no limit) or an integer >= 0."""
    checked = None if value is None else integer(value)
    if value is not None and (checked is None or checked < 0):
        raise FastNardyError(f"{name} must be None or an integer >= 0, not {value!r}")
    return checked


def megabytes(value: object, name: str = "tt_mb") -> Optional[float]:
    """None (no table) or a table size in megabytes, a number between 1 and 1048576."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not 1 <= value <= MAX_TABLE_MB:
        raise FastNardyError(f"{name} must be a number of megabytes between 1 and "
                             f"{MAX_TABLE_MB}, not {value!r}")
    return value


def workers(value: object, executor: object, most: Optional[int] = None) -> Optional[int]:
    """``workers`` (a number of threads, an integer from 1 to ``most``, no bound when None)
    or ``executor`` (:func:`as_executor`), or neither; not both."""
    if executor is not None:
        if value is not None:
            raise FastNardyError("give workers or executor, not both")
        if not (isinstance(executor, Executor) or _is_dask_client(executor)):
            raise FastNardyError(f"executor must be a concurrent.futures.Executor or a Dask "
                                 f"distributed.Client, not {type(executor).__name__}")
    return None if value is None else number(value, "workers", 1, most)


def as_executor(value: object) -> Executor:
    """``value`` (checked by :func:`workers`) as a concurrent.futures.Executor: an Executor
    (a thread or process pool, a Dask client's ``get_executor()``) as it is, a Dask
    ``distributed.Client`` as its executor."""
    workers(None, value)
    if _is_dask_client(value):
        made: Executor = value.get_executor()  # type: ignore[attr-defined]
        return made
    return cast(Executor, value)


def _is_dask_client(value: object) -> bool:
    return type(value).__module__.startswith("distributed.") and type(value).__name__ == "Client"


def flag(value: object, name: str) -> bool:
    """True or False (a bool, not another truthy value)."""
    if not isinstance(value, bool):
        raise FastNardyError(f"{name} must be True or False, not {value!r}")
    return value


def callback(value: object, name: str = "progress") -> Any:
    """None or a callable (the caller's callback: what it raises is the caller's)."""
    if value is not None and not callable(value):
        raise FastNardyError(f"{name} must be a callable or None, not {value!r}")
    return value


def choice(value: object, name: str, allowed: Tuple[str, ...]) -> str:
    """One of the strings ``allowed`` (a str equal to one, not another object that compares
    equal or an array that compares element by element)."""
    if not isinstance(value, str) or value not in allowed:
        raise FastNardyError(f"{name} must be one of {allowed}, not {value!r}")
    return value


def text(value: object, name: str) -> str:
    """A str (not bytes, not another object that prints as one)."""
    if not isinstance(value, str):
        raise FastNardyError(f"{name} must be text (a str), not {value!r}")
    return value


P = TypeVar("P", bound=PackedPosition)


def position(value: object, kind: Type[P], name: str = "position") -> P:
    """A position: a :class:`fastnardy.Position` (``kind``; the modules below it check for
    its compiled core, PackedPosition)."""
    if not isinstance(value, kind):
        raise InvalidPositionError(f"{name} must be a Position, not {value!r}")
    return value


def rows(value: object, name: str = "rows") -> "np.ndarray[Any, np.dtype[np.int8]]":
    """Board rows (:mod:`fastnardy.batch`): an (N, 50) array of checker counts 0-15, as a
    C-contiguous int8 array (the kernel checks each row's position where it reads it, T7)."""
    given = array(value, name, InvalidPositionError)
    if given.ndim != 2 or given.shape[1] != ROW_WIDTH or given.dtype.kind not in "iu" \
            or (given.size and (given.min() < 0 or given.max() > CHECKERS)):
        raise InvalidPositionError(f"{name} must be board rows, (N, {ROW_WIDTH}) checker "
                                   f"counts from 0 to {CHECKERS}, not {given.dtype} "
                                   f"{given.shape}")
    return np.ascontiguousarray(given, dtype=np.int8)


def offsets(value: object, children: int, groups: Optional[int] = None,
            name: str = "offsets") -> "np.ndarray[Any, np.dtype[np.int64]]":
    """The offsets of ``children`` children grouped (:func:`fastnardy.batch.segment_argmax`'s
    layout, the search's and the players'): increasing integers from 0 to ``children``, one
    more than the groups (``groups`` of them when given), no group empty."""
    bounds = array(value, name)
    if bounds.ndim != 1 or bounds.dtype.kind not in "iu" or len(bounds) < 2 \
            or bounds[0] != 0 or bounds[-1] != children \
            or (groups is not None and len(bounds) != groups + 1):
        count = "N + 1" if groups is None else str(groups + 1)
        raise FastNardyError(f"{name} must be {count} integers from 0 to {children} (the "
                             f"bounds of the children's groups), not {bounds.dtype} "
                             f"{bounds.shape}")
    bounds = bounds.astype(np.int64)
    sizes = bounds[1:] - bounds[:-1]
    if sizes.min() <= 0:
        raise FastNardyError(f"group {int(np.argmax(sizes <= 0))} of {name} is empty "
                             f"(offsets must increase): it has no child")
    return bounds


def actions(value: object, games: int) -> "np.ndarray[Any, np.dtype[np.integer[Any]]]":
    """One integer action per game of a vector environment's ``step``: shape (games,)."""
    given = array(value, "actions")
    if given.shape != (games,) or given.dtype.kind not in "iu":
        raise FastNardyError(f"actions must be {games} ints, not {given.dtype} {given.shape}")
    return given


def side(value: object, name: str = "turn") -> str:
    """A side: ``"white"`` or ``"black"``."""
    if not isinstance(value, str) or value not in SIDES:
        raise InvalidPositionError(f"{name} must be 'white' or 'black', not {value!r}")
    return value


def checkers(value: object, name: str) -> int:
    """A checker count (of a point or a bar): an integer from 0 to 15."""
    return number(value, name, 0, CHECKERS, InvalidPositionError)


def points(value: object, name: str) -> Points:
    """A side's 24 checker counts, each from 0 to 15 (the total is the caller's, T7)."""
    items = bounded(value, 24)
    if items is None:
        raise InvalidPositionError(f"{name} must be 24 checker counts, not {value!r}")
    if len(items) != 24:
        got = "more" if len(items) > 24 else len(items)
        raise InvalidPositionError(f"{name} must be 24 checker counts, got {got}")
    return tuple(checkers(v, f"{name}[{i}]") for i, v in enumerate(items))


def side_checkers(name: str, value: object, bar: object) -> Tuple[Points, int]:
    """A side's 24 point counts and its bar count, at most 15 checkers in all (T7)."""
    counts, on_bar = points(value, name), checkers(bar, f"{name} bar")
    if sum(counts) + on_bar > CHECKERS:
        raise InvalidPositionError(
            f"T7: {name} has {sum(counts) + on_bar} checkers on the board; at most {CHECKERS}")
    return counts, on_bar
