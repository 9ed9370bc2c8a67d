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

from . import _kernel
from .errors import InvalidPositionError
from .position import BLACK, WHITE, Position
from .rules import Rules

__all__ = ["BOARD_WIDTH", "count_turns", "decode", "encode", "expand"]

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

