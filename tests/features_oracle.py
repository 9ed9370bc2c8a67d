"""The numpy definition of fastnardy.features as it was before the compiled module
(fastnardy._features): the test oracle that the compiled features must match bit for bit,
kept verbatim (except the key decoding, which is batch.rows_from_keys)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from fastnardy.batch import ROW_WIDTH, MIRROR_COLUMNS, rows_from_keys
from fastnardy.errors import InvalidPositionError, InvalidRulesError
from fastnardy.search.inputs import ENCODINGS, WIDTHS
from fastnardy.rules import Rules

_POINTS = 24
_CHECKERS = 15
_BLOCK = 6  # L6: six consecutive points
_HALF = _POINTS + 1  # a side's columns in a board row: 24 points and the bar


def _unit_table(excess_scale: int) -> npt.NDArray[np.float32]:
    """The 4 point units of every count n = 0..15: row n."""
    n = np.arange(_CHECKERS + 1)
    return np.stack([n >= 1, n >= 2, n >= 3, np.maximum(n - 3, 0) / excess_scale],
                    axis=1).astype(np.float32)


_TDGAMMON_UNITS = _unit_table(2)
_NARDY_UNITS = _unit_table(12)


def numpy_features(rules: object, boards: object, kind: str = "raw") -> npt.NDArray[np.float32]:
    """(N, F) float32 inputs of the board rows (or packed keys) ``boards``, mover's view; F
    and the meaning of each column are in the module docstring. Unknown kinds, or a kind for
    the other game, raise InvalidRulesError; bad rows or keys raise InvalidPositionError."""
    rules = Rules.of(rules)
    if not isinstance(kind, str) or kind not in ENCODINGS:
        raise InvalidRulesError(
            f"kind must be one of {', '.join(map(repr, ENCODINGS))}, not {kind!r}")
    game = ENCODINGS[kind]
    if game is not None and game != rules.game:
        raise InvalidRulesError(f"kind {kind!r} is for {game} nardy only, not {rules.game}")
    rows = _checked_rows(rules.game, boards)
    n = len(rows)
    sides = [(rows[:, :_POINTS], rows[:, _POINTS],
              _CHECKERS - rows[:, :_HALF].sum(axis=1, dtype=np.int16)),
             (rows[:, _HALF:_HALF + _POINTS], rows[:, _HALF + _POINTS],
              _CHECKERS - rows[:, _HALF:].sum(axis=1, dtype=np.int16))]
    out = np.empty((n, WIDTHS[kind]), dtype=np.float32)
    if kind == "raw":
        out[:, :ROW_WIDTH] = rows
        out[:, ROW_WIDTH] = sides[0][2]
        out[:, ROW_WIDTH + 1] = sides[1][2]
        out /= _CHECKERS
    elif kind == "tdgammon":
        for base, (points, bar, off) in zip((0, 98), sides):
            out[:, base:base + 96] = _TDGAMMON_UNITS[points].reshape(n, 96)
            out[:, base + 96] = bar / 2
            out[:, base + 97] = off / _CHECKERS
        out[:, 196] = 1.0
        out[:, 197] = 0.0
    else:
        mirrored = MIRROR_COLUMNS[rules.game]
        for base, (points, _, off) in zip((0, 124), sides):
            _nardy_side(out[:, base:base + 124], points, off, points[:, mirrored] > 0)
    return out


def _checked_rows(game: str, boards: object) -> npt.NDArray[np.int8]:
    """Board rows as int8, from rows or packed keys, structurally validated."""
    array = np.asarray(boards)
    if array.dtype.names is not None:
        return rows_from_keys(game, array)
    if array.ndim != 2 or array.shape[1] != ROW_WIDTH or array.dtype.kind not in "iu":
        raise InvalidPositionError(
            f"boards must be an integer array of shape (N, {ROW_WIDTH}) or a 1-D array of "
            f"packed keys, not {array.dtype} {array.shape}")
    if array.size and (array.min() < 0 or array.max() > _CHECKERS):
        raise InvalidPositionError(f"board counts must be from 0 to {_CHECKERS}")
    rows = array.astype(np.int8, copy=False)
    if np.any(rows[:, :_HALF].sum(axis=1, dtype=np.int16) > _CHECKERS) or np.any(
            rows[:, _HALF:].sum(axis=1, dtype=np.int16) > _CHECKERS):
        raise InvalidPositionError(f"a row holds more than {_CHECKERS} checkers of a side (T7)")
    if game == "long" and np.any(rows[:, [_POINTS, _HALF + _POINTS]]):
        raise InvalidPositionError("long nardy has no bar (L3), but a row has bar checkers")
    both = (rows[:, :_POINTS] > 0) & (rows[:, _HALF:_HALF + _POINTS][:, MIRROR_COLUMNS[game]] > 0)
    if np.any(both):
        raise InvalidPositionError("a row has a point holding checkers of both sides (T7)")
    return rows


def _nardy_side(out: npt.NDArray[np.float32], points: npt.NDArray[np.int8],
                off: npt.NDArray[np.int16], held_on_other_path: npt.NDArray[np.bool_]) -> None:
    """Write one side's 124 "nardy" inputs into ``out``; ``held_on_other_path[:, r - 1]``:
    the side holds the other side's point r."""
    head = points[:, _POINTS - 1]
    runs = np.minimum(_runs(held_on_other_path), _BLOCK)
    out[:, :96] = _NARDY_UNITS[points].reshape(len(points), 96)
    out[:, 96] = off / _CHECKERS
    out[:, 97] = head / _CHECKERS
    out[:, 98] = head == _CHECKERS
    out[:, 99] = runs.max(axis=1, initial=0) / _BLOCK
    out[:, 100:] = runs / _BLOCK


def _runs(held: npt.NDArray[np.bool_]) -> npt.NDArray[np.int8]:
    """For each True cell, the length of the maximal run of True cells in its row that
    contains it; 0 for False cells."""
    width = held.shape[1]
    column = np.arange(width, dtype=np.int8)
    last_gap = np.maximum.accumulate(np.where(held, np.int8(-1), column), axis=1)
    next_gap = np.minimum.accumulate(np.where(held, np.int8(width), column)[:, ::-1],
                                     axis=1)[:, ::-1]
    runs: npt.NDArray[np.int8] = np.where(held, next_gap - last_gap - 1, 0).astype(np.int8)
    return runs
