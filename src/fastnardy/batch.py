"""Batches for search and learning: positions as numpy rows or packed keys, turns counted
and expanded by the kernel in one call (without the GIL, so threads run in parallel).

A **board row** is 50 int8 values in the mover's frame: the side to move's 24 point counts
(own numbering, index 0 = its point 1), its bar, the opponent's 24 counts (the opponent's
own numbering) and the opponent's bar. Borne-off checkers are 15 minus the rest. A **key**
is the same position packed in 16 bytes (``KEY_DTYPE``, fields ``lo`` and ``hi``; the
layout is in :mod:`fastnardy._kernel`). Every function taking ``boards`` takes either an
(N, 50) integer array of rows or a 1-D ``KEY_DTYPE`` array of keys. Neither says which colour
moves; rules are given per call.

Memory (N input rows, M children):

* ``count_turns``: 4 bytes a row (int32 counts), plus an int8 copy of the input when it is
  not already C-contiguous int8.
* ``expand``: 54 bytes a child with rows (50 + 4 for ``parent``), 20 with ``keys=True``.
* ``chance_expand``: one byte more a child (``roll``), and 8 bytes per (row, roll) for
  ``offsets`` (168 bytes a row).

The children are written into buffers that grow by doubling with ``realloc`` and are handed
to numpy without a copy; large buffers grow by remapping and the unused tail is never
touched, so the peak resident memory is close to the output itself (within 2 MB: on Linux a
buffer of 8 MB or more asks for transparent huge pages, one page fault per 2 MB instead of
512, about a quarter of the time of an expansion to rows). A contact position of
short nardy has about 20 children per roll (about 400 over the 21 rolls): a chance node of
one row is about 8 KB as keys, 22 KB as rows. Pass ``max_children`` to bound a call: a
result that would be larger raises :class:`~fastnardy.errors.ResourceLimitError` (a ``MemoryError`` and a
``FastNardyError``) before the memory is used, as does a failed allocation; split the rows
into chunks to stay within it. An :class:`Expander` keeps its buffers from call to call
instead, and hands out views of them.
"""

from __future__ import annotations

from typing import Any, Iterable, List, NamedTuple, Optional, Tuple

import numpy as np
import numpy.typing as npt

from . import _features, _kernel, basics, checks
from .errors import FastNardyError, InvalidDiceError, InvalidPositionError, integer
from .basics import ALL_ROLLS, BLACK, MIRROR_COLUMNS as _MIRROR, ROLL_PROBABILITIES, WHITE
from .position import Position
from .rules import Rules

__all__ = ["KEY_DTYPE", "PROBABILITY", "ROLLS", "ROW_WIDTH", "ChanceNodes", "Expander",
           "chance_expand", "count_turns", "decode", "encode", "expand", "keys_from_rows",
           "offsets", "pips", "roll_index", "rows_from_keys", "scores", "segment_argmax"]

# a row: one position as 50 int8, the mover's 24 points and bar, then the opponent's
ROW_WIDTH = basics.ROW_WIDTH
ROW_DTYPE = np.int8
KEY_DTYPE = _kernel.KEY_DTYPE

# T5: the 21 distinct rolls (d1 <= d2), and the probability of each (1/36 a double, else 2/36)
ROLLS = np.array(ALL_ROLLS, dtype=np.int8)
ROLLS.setflags(write=False)
PROBABILITY = np.array(ROLL_PROBABILITIES)
PROBABILITY.setflags(write=False)


def roll_index(dice: object) -> int:
    """The index of a roll among the 21 of :data:`ROLLS` (T5; the dice in either order)."""
    first, second = _kernel.dice_pair(dice)
    return int(ROLL_OF_DICE[first - 1, second - 1])


# the index into ROLLS of dice (d1, d2), either order: ROLL_OF_DICE[d1 - 1, d2 - 1]
ROLL_OF_DICE = np.array([[ALL_ROLLS.index((min(a, b), max(a, b))) for b in range(1, 7)]
                         for a in range(1, 7)])
ROLL_OF_DICE.setflags(write=False)


def encode(positions: Iterable[Position], *, keys: bool = False) -> npt.NDArray[Any]:
    """The positions from each side to move's view: board rows (N, 50) int8, or with
    ``keys`` an (N,) ``KEY_DTYPE`` array of their packed keys (each position's own key; the
    rows are decoded from them in compiled code)."""
    items = checks.bounded(positions, checks.MAX_ITEMS)
    if items is None:
        raise InvalidPositionError(f"expected an iterable of Position values, not {positions!r}")
    if len(items) > checks.MAX_ITEMS:
        raise InvalidPositionError(f"at most {checks.MAX_ITEMS:,} positions are encoded at once")
    if not all(isinstance(position, Position) for position in items):
        wrong = next(item for item in items if not isinstance(item, Position))
        raise InvalidPositionError(f"expected Position values, not {wrong!r}")
    packed = np.fromiter((half for position in items for half in position.key),
                         dtype=np.uint64, count=2 * len(items)).view(KEY_DTYPE)
    if checks.flag(keys, "keys"):
        return packed
    games = [position.rules.game == "short" for position in items]
    if all(games) or not any(games):  # one game, the usual case
        return _features.rows_of_keys(bool(games) and games[0], packed)
    short = np.array(games)
    rows = np.empty((len(items), ROW_WIDTH), dtype=ROW_DTYPE)
    for is_short, chosen in ((True, short), (False, ~short)):
        rows[chosen] = _features.rows_of_keys(is_short, packed[chosen])
    return rows


def decode(rules: object, boards: npt.ArrayLike, turn: str = WHITE) -> List[Position]:
    """Positions from board rows or keys, ``turn`` being the side to move of every row
    (T7-checked: the rows in compiled code; a row with a six-block that L6 may forbid by
    the Position constructor)."""
    rules = Rules.of(rules)
    checks.side(turn)
    array = checks.array(boards, "boards", InvalidPositionError)
    if array.dtype == KEY_DTYPE:
        rows = rows_from_keys(rules, array)
    else:
        rows = checks.rows(array, "boards")
    swapped = np.concatenate([rows[:, ROW_WIDTH // 2:], rows[:, :ROW_WIDTH // 2]], axis=1)
    entries = _features.entries_of_rows(rules.game == "short", swapped,
                                        MIRROR_COLUMNS[rules.game])  # checks the rows
    rows = rows.astype(ROW_DTYPE, copy=False)
    if not rows.any(axis=1).all():
        raise InvalidPositionError("T7: both sides have borne off 15 checkers")
    for i in np.flatnonzero(_forbidden_blocks(rules, rows)):
        me, me_bar, opp, opp_bar = (tuple(part) for part in np.split(rows[i], [24, 25, 49]))
        if turn == WHITE:
            Position.from_points(rules, me, opp, WHITE, me_bar[0], opp_bar[0])
        else:
            Position.from_points(rules, opp, me, BLACK, opp_bar[0], me_bar[0])
    # Each position is made by the kernel from its key, as the position after a turn of a
    # position of the other side to move (whose keys are the rows with the halves swapped).
    other = Position.start(rules)
    if turn == WHITE:
        other = Position(rules, BLACK, other.white_points, 0, other.black_points, 0)
    return _kernel._positions_after(other, entries)


def scores(rules: object, rows: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """The one test of a game over on board rows (L9, S9) and its score (L10, S9, C9 at stake
    1, no cube: :meth:`fastnardy.Position.outcome`, once per distinct finished row): the
    points of each row's game for its side to move, + won, - lost; NaN while it goes on."""
    rules = Rules.of(rules)
    boards = checks.rows(rows)
    out = np.full(len(boards), np.nan)
    over = np.flatnonzero(_features.winners(boards))
    if len(over):
        distinct, inverse = np.unique(boards[over], axis=0, return_inverse=True)
        points = [outcome.points if outcome.winner == WHITE else -outcome.points
                  for outcome in (position.outcome() for position in decode(rules, distinct))
                  if outcome is not None]
        out[over] = np.array(points, dtype=np.float64)[inverse.reshape(-1)]
    return out


def offsets(parent: npt.ArrayLike, count: int) -> npt.NDArray[np.int64]:
    """The offsets of the children of ``count`` rows (:func:`segment_argmax`'s layout, the
    search's) from their ``parent`` rows (:func:`expand`'s: sorted, each row with a child):
    (count + 1,) int64."""
    rows = checks.number(count, "count", 0, checks.MAX_ITEMS)
    owner = checks.array(parent, "parent")
    if owner.ndim != 1 or owner.dtype.kind not in "iu":
        raise FastNardyError(f"parent must be the row of each child, 1-D integers, not "
                             f"{owner.dtype} {owner.shape}")
    found = np.searchsorted(owner, np.arange(rows + 1)).astype(np.int64)
    return checks.offsets(found, len(owner), rows)


def _forbidden_blocks(rules: Rules, rows: npt.NDArray[np.int8]) -> npt.NDArray[np.bool_]:
    """Rows where a side holds six or more consecutive points of the other side's path (in
    the other side's numbering, RULES.md section 0) that L6's block rule may forbid: no
    checker of the other side borne off, and none ahead of the run (opponent_ahead) or in its
    home (opponent_home). The Position constructor judges these rows (T7)."""
    found = np.zeros(len(rows), dtype=bool)
    if rules.game != "long" or rules.block_rule == "none":
        return found
    masks = _features.held_masks(rows, MIRROR_COLUMNS["long"])
    for side in (0, 1):
        path, theirs = masks[:, 2 + side], masks[:, 1 - side]
        runs = path.copy()
        for shift in range(1, 6):
            runs &= path >> shift  # bit c: the other's points c+1 .. c+6 all held
        if rules.block_rule == "opponent_home":
            open_ = theirs & 0x3F == 0
        else:  # nothing of the other side below the lowest run
            open_ = theirs & ((runs & -runs) - 1) == 0
        found |= (runs != 0) & open_ & (masks[:, 5 - side] == 15)
    return found


def count_turns(rules: object, boards: npt.ArrayLike,
                dice: npt.ArrayLike) -> npt.NDArray[np.int32]:
    """The number of distinct legal turns (T1; a pass counts 1, a finished game 0) of each
    row for its roll: int32 array of N. ``dice`` is (N, 2), or (2,) for the same roll on
    every row."""
    return _kernel.count_turns_batch(Rules.of(rules).code,
                                     checks.array(boards, "boards", InvalidPositionError),
                                     checks.array(dice, "dice", InvalidDiceError))


def expand(rules: object, boards: npt.ArrayLike, dice: npt.ArrayLike, *, keys: bool = False,
           max_children: Optional[int] = None
           ) -> Tuple[npt.NDArray[Any], npt.NDArray[np.int32]]:
    """Every legal turn of every (row, roll), in one kernel call: ``(children, parent)`` where
    ``children`` are the resulting positions **from the next mover's view** (sides swapped),
    in T2 order per row, as (M, 50) rows or, with ``keys``, an (M,) ``KEY_DTYPE`` array, and
    ``parent[i]`` is the row that ``children[i]`` came from. The i-th child of a row is the
    position of ``Position.legal_turns(roll)[i]`` (the same T2 order). A pass is one child; a
    finished game has none. ``dice`` is (N, 2). The memory of the last results freed (blocks
    of 1 MB or more, 256 MB in all) is kept for the next call of this or
    :func:`chance_expand` rather than given back to the system."""
    return _expand(Rules.of(rules), boards, dice, checks.flag(keys, "keys"), max_children, None)


def _expand(rules: Rules, boards: npt.ArrayLike, dice: npt.ArrayLike, keys: bool,
            max_children: Optional[int], buffers: Optional[_kernel.ExpandBuffers]
            ) -> Tuple[npt.NDArray[Any], npt.NDArray[np.int32]]:
    return _kernel.expand_batch(rules.code, checks.array(boards, "boards", InvalidPositionError),
                                checks.array(dice, "dice", InvalidDiceError), keys,
                                checks.limit(max_children), buffers)


class ChanceNodes(NamedTuple):
    """The children of N positions under each of the 21 rolls (``chance_expand``).

    ``children``: (M, 50) rows or (M,) keys, from the next mover's view; row-major by
    (position, roll), T2 order within a roll. ``parent``: (M,) int32, the position of each
    child. ``roll``: (M,) int8, the index of its roll into ``ROLLS``. ``offsets``:
    (N * 21 + 1,) int64, so that the children of position i under roll j are
    ``children[offsets[21 * i + j]:offsets[21 * i + j + 1]]`` (empty only for a finished
    game, T4; a pass is one child). ``probability``: ``PROBABILITY``, (21,) float64.
    """

    children: npt.NDArray[Any]
    parent: npt.NDArray[np.int32]
    roll: npt.NDArray[np.int8]
    offsets: npt.NDArray[np.int64]
    probability: npt.NDArray[np.float64]

    def of(self, position: int, roll: int) -> npt.NDArray[Any]:
        """The children of one position (row index) under one roll (index into ROLLS)."""
        k = 21 * _index("position", position, (len(self.offsets) - 1) // 21) \
            + _index("roll", roll, len(ROLLS))
        return self.children[self.offsets[k]:self.offsets[k + 1]]


def chance_expand(rules: object, boards: npt.ArrayLike, *, keys: bool = False,
                  max_children: Optional[int] = None) -> ChanceNodes:
    """The chance node of every row in one kernel call: the legal turns under each of the 21
    rolls of T5, the same children as 21 ``expand`` calls, in the layout of
    :class:`ChanceNodes`."""
    return _chance_expand(Rules.of(rules), boards, checks.flag(keys, "keys"), max_children,
                          None)


def _chance_expand(rules: Rules, boards: npt.ArrayLike, keys: bool,
                   max_children: Optional[int], buffers: Optional[_kernel.ExpandBuffers]
                   ) -> ChanceNodes:
    children, parent, roll, offsets = _kernel.chance_batch(
        rules.code, checks.array(boards, "boards", InvalidPositionError), keys,
        checks.limit(max_children), buffers)
    return ChanceNodes(children, parent, roll, offsets, PROBABILITY)


class Expander:
    """``expand`` and ``chance_expand`` for one rules variant and one kind of board (rows, or
    keys with ``keys=True``), reusing their output buffers from call to call: the pages of a
    large result are written again instead of being faulted in afresh (as a native generator
    recycles its output), which saves about a fifth of an expansion's time.

    The arrays a call returns are **views of the buffers, valid until the next call** of the
    same Expander, which overwrites them: copy what you keep (``children.copy()``).
    Expanding the children of the last call again is safe (they are copied first). A result
    larger than the buffers moves to new, larger buffers; the arrays of earlier calls keep
    the old ones alive (overwritten, never freed under them). One thread at a time: a call
    while another thread's call runs raises :class:`~fastnardy.errors.FastNardyError`; give
    each thread its own Expander. It pickles as a new Expander with empty buffers."""

    def __init__(self, rules: object, *, keys: bool = False) -> None:
        self.rules = Rules.of(rules)
        self.keys = checks.flag(keys, "keys")
        self._buffers = _kernel.ExpandBuffers()

    def __repr__(self) -> str:
        return f"Expander({self.rules!r}, keys={self.keys})"

    def __reduce__(self) -> Tuple[Any, ...]:
        return (Expander, (self.rules,), {"keys": self.keys})

    def __setstate__(self, state: "dict[str, object]") -> None:
        self.keys = checks.flag(state.get("keys"), "keys")

    def expand(self, boards: npt.ArrayLike, dice: npt.ArrayLike, *,
               max_children: Optional[int] = None
               ) -> Tuple[npt.NDArray[Any], npt.NDArray[np.int32]]:
        """:func:`expand` into this Expander's buffers: ``(children, parent)``, views valid
        until its next call."""
        return _expand(self.rules, boards, dice, self.keys, max_children, self._buffers)

    def chance_expand(self, boards: npt.ArrayLike, *,
                      max_children: Optional[int] = None) -> ChanceNodes:
        """:func:`chance_expand` into this Expander's buffers: views valid until its next
        call."""
        return _chance_expand(self.rules, boards, self.keys, max_children, self._buffers)


def pips(rows: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """The pip counts of board rows, (N, 2): the side to move's, then the other's (a checker
    on point p of its own numbering needs p pips, one on the bar 25)."""
    boards = checks.array(rows, "rows", InvalidPositionError)
    if boards.ndim != 2 or boards.shape[1] != ROW_WIDTH:
        raise InvalidPositionError(f"rows must be (N, {ROW_WIDTH}), not {boards.shape}")
    weights = np.arange(1, 26, dtype=np.int64)
    counts = boards.astype(np.int64)
    out: npt.NDArray[np.int64] = np.stack([counts[:, :25] @ weights, counts[:, 25:] @ weights],
                                          axis=1)
    return out


def roll_mean(values: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """The mean over the 21 rolls (T5's probabilities) of ``values``, (N, 21, ...) float64
    (the search's and the labels' own arrays, unchecked), per row: (N, ...), summed roll by
    roll in one order, so a row's mean is the same in any batch (a matrix product's
    rounding depends on the batch)."""
    total = np.zeros(values.shape[:1] + values.shape[2:])
    for r, probability in enumerate(PROBABILITY):
        total += probability * values[:, r]
    return total


def segment_argmax(values: npt.ArrayLike, offsets: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """The best child of each game: for segments ``values[offsets[i]:offsets[i + 1]]`` (the
    layout of ``expand`` children per parent and of ``VectorEnv`` steps), the index within
    segment i of its highest value, ties to the first (T2 order). (N,) int64 from
    (M,) real values and (N + 1,) increasing offsets from 0 to M; an empty segment, a NaN or
    offsets that do not fit are a FastNardyError."""
    array = checks.array(values, "values")
    if array.ndim != 1 or array.dtype.kind not in "iuf":
        raise FastNardyError(f"values must be a 1-D real array, not {array.dtype} {array.shape}")
    bounds = checks.offsets(offsets, len(array))
    if array.dtype.kind == "f" and np.isnan(array).any():
        raise FastNardyError(f"values[{int(np.argmax(np.isnan(array)))}] is NaN")
    sizes = np.diff(bounds)
    starts = bounds[:-1].astype(np.int64)
    segment = np.repeat(np.arange(len(starts)), sizes)
    hits = np.flatnonzero(array == np.maximum.reduceat(array, starts)[segment])
    first = np.ones(len(hits), dtype=bool)
    first[1:] = segment[hits[1:]] != segment[hits[:-1]]
    best: npt.NDArray[np.int64] = hits[first] - starts
    return best


def _index(name: str, value: object, size: int) -> int:
    """An int from 0 to size - 1, or FastNardyError."""
    number = integer(value)
    if number is None or not 0 <= number < size:
        raise FastNardyError(f"{name} must be an index from 0 to {size - 1}, not {value!r}")
    return number


# fastnardy.basics.MIRROR_COLUMNS as index arrays: the opponent's own point q is the mover's
# point mirror(q) (RULES.md section 0; the map is its own inverse)
MIRROR_COLUMNS = {game: np.array(columns) for game, columns in _MIRROR.items()}


def rows_from_keys(rules: object, keys: object) -> npt.NDArray[np.int8]:
    """Board rows (N, 50) int8 of packed keys, a 1-D array of ``fastnardy._kernel.KEY_DTYPE``
    (the layout of the ``_kernel`` docstring: 5-bit fields per mover point, 1..15 the mover's
    checkers, 16..30 the opponent's, on the mover's point numbers through the mirror of
    RULES.md section 0; bars in bits 60..63). The inverse of ``_kernel.pack``, compiled
    (:mod:`fastnardy._features`, through the kernel's own key decoder). A field of 31, more
    than 15 checkers of a side or (long nardy) a bar checker raise InvalidPositionError."""
    game = Rules.of(rules).game
    return _features.rows_of_keys(game == "short",
                                  checks.array(keys, "keys", InvalidPositionError))


def keys_from_rows(rules: object, rows: object) -> npt.NDArray[Any]:
    """Packed keys (1-D ``KEY_DTYPE``) of board rows (N, 50), compiled (the kernel's own key
    builder): the inverse of :func:`rows_from_keys`. Rows are checked as
    :func:`fastnardy.features` checks them (InvalidPositionError)."""
    game = Rules.of(rules).game
    return _features.keys_of_rows(game == "short",
                                  checks.array(rows, "rows", InvalidPositionError),
                                  MIRROR_COLUMNS[game])
