"""Batches for search and learning: positions as numpy rows, turns counted and expanded by
the kernel.

A **board row** is 50 int8 values in the mover's frame: the side to move's 24 point counts
(own numbering, index 0 = its point 1), its bar, the opponent's 24 counts (the opponent's
own numbering) and the opponent's bar. Borne-off checkers are 15 minus the rest. A row does
not say which colour moves; rules are given per call.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np
import numpy.typing as npt

from . import _kernel
from .errors import InvalidPositionError
from .position import BLACK, WHITE, Position
from .rules import Rules

__all__ = ["BOARD_WIDTH", "count_turns", "decode", "encode", "expand", "rows_from_keys"]

BOARD_WIDTH = 50
BOARD_DTYPE = np.int8


def encode(positions: Iterable[Position]) -> np.ndarray:
    """Board rows (N, 50) int8 of the positions, each from its side to move's view."""
    rows = []
    for position in positions:
        if not isinstance(position, Position):
            raise InvalidPositionError(f"expected Position values, not {position!r}")
        me, me_bar, opp, opp_bar = position.mover_frame()
        rows.append(me + (me_bar,) + opp + (opp_bar,))
    return np.array(rows, dtype=BOARD_DTYPE).reshape(len(rows), BOARD_WIDTH)


def decode(rules: object, boards: np.ndarray, turn: str = WHITE) -> list:
    """Positions from board rows, ``turn`` being the side to move of every row (T7-checked)."""
    rules = Rules.of(rules)
    rows = _rows(boards)
    out = []
    for row in rows.tolist():
        me, me_bar, opp, opp_bar = row[:24], row[24], row[25:49], row[49]
        if turn == WHITE:
            out.append(Position.from_points(rules, me, opp, WHITE, me_bar, opp_bar))
        elif turn == BLACK:
            out.append(Position.from_points(rules, opp, me, BLACK, opp_bar, me_bar))
        else:
            raise InvalidPositionError(f"turn must be 'white' or 'black', not {turn!r}")
    return out


def count_turns(rules: object, boards: np.ndarray, dice: np.ndarray) -> np.ndarray:
    """The number of distinct legal turns (T1; a pass counts 1, a finished game 0) of each
    row for its roll: int32 array of N. ``dice`` is (N, 2)."""
    return _kernel.count_turns_batch(Rules.of(rules).code, _rows(boards), dice)


def expand(rules: object, boards: np.ndarray, dice: np.ndarray) -> tuple:
    """Every legal turn of every (row, roll), in one kernel call: ``(children, parent)`` where
    ``children`` are the resulting board rows (M, 50) **from the next mover's view** (sides
    swapped), in T2 order per row, and ``parent[i]`` is the row that ``children[i]`` came
    from. A pass is one child; a finished game has none."""
    return _kernel.expand_batch(Rules.of(rules).code, _rows(boards), dice)


def _rows(boards: object) -> np.ndarray:
    rows = np.asarray(boards)
    if rows.ndim != 2 or rows.shape[1] != BOARD_WIDTH or rows.dtype.kind not in "iu":
        raise InvalidPositionError(
            f"boards must be an integer array of shape (N, {BOARD_WIDTH}), not "
            f"{rows.dtype} {rows.shape}")
    return rows



_FIELD_SHIFTS = np.uint64(5) * np.arange(12, dtype=np.uint64)
_BAR_SHIFT = np.uint64(60)
# MIRROR_COLUMNS[game][q - 1] = mirror(q) - 1: the opponent's own point q is the mover's point
# mirror(q) (RULES.md section 0; the map is its own inverse)
MIRROR_COLUMNS = {"long": np.r_[12:24, 0:12], "short": np.arange(23, -1, -1)}


def rows_from_keys(rules: object, keys: object) -> npt.NDArray[np.int8]:
    """Board rows (N, 50) int8 of packed keys, a 1-D array of ``fastnardy._kernel.KEY_DTYPE``
    (the layout of the ``_kernel`` docstring: 5-bit fields per mover point, 1..15 the mover's
    checkers, 16..30 the opponent's, on the mover's point numbers through the mirror of
    RULES.md section 0; bars in bits 60..63). The vectorized inverse of ``_kernel.pack``.
    A field of 31, more than 15 checkers of a side or (long nardy) a bar checker raise
    InvalidPositionError."""
    game = Rules.of(rules).game
    packed = np.asarray(keys)
    if packed.dtype != _kernel.KEY_DTYPE or packed.ndim != 1:
        raise InvalidPositionError(
            f"keys must be a 1-D array of dtype {_kernel.KEY_DTYPE}, not {packed.dtype} "
            f"{packed.shape}")
    fields = np.concatenate([(packed["lo"][:, None] >> _FIELD_SHIFTS) & np.uint64(31),
                             (packed["hi"][:, None] >> _FIELD_SHIFTS) & np.uint64(31)],
                            axis=1).astype(np.int8)
    mover = np.where(fields <= 15, fields, 0)
    opponent = np.where(fields >= 16, fields - 15, 0)[:, MIRROR_COLUMNS[game]]
    mover_bar = (packed["lo"] >> _BAR_SHIFT).astype(np.int8)
    opponent_bar = (packed["hi"] >> _BAR_SHIFT).astype(np.int8)
    if np.any(fields == 31):
        raise InvalidPositionError("a key field is 31, which encodes nothing")
    if np.any(mover.sum(axis=1) + mover_bar > 15) or np.any(
            opponent.sum(axis=1) + opponent_bar > 15):
        raise InvalidPositionError("a key holds more than 15 checkers of a side (T7)")
    if game == "long" and (np.any(mover_bar) or np.any(opponent_bar)):
        raise InvalidPositionError("long nardy has no bar (L3), but a key has bar checkers")
    rows = np.empty((len(packed), BOARD_WIDTH), dtype=BOARD_DTYPE)
    rows[:, :24] = mover
    rows[:, 24] = mover_bar
    rows[:, 25:49] = opponent
    rows[:, 49] = opponent_bar
    return rows
