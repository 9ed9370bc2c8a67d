"""The numpy definition of fastnardy.features as it was before the compiled module
(fastnardy._features): the test oracle that the compiled features must match bit for bit,
kept verbatim (except the key decoding, which is batch.rows_from_keys); and the shots
kind's contact inputs, written here in numpy from fastnardy.search.inputs' definition (point
by point, not as the compiled code's bit masks and window table)."""

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
    elif kind in ("tdgammon", "shots"):
        for base, (points, bar, off) in zip((0, 98), sides):
            out[:, base:base + 96] = _TDGAMMON_UNITS[points].reshape(n, 96)
            out[:, base + 96] = bar / 2
            out[:, base + 97] = off / _CHECKERS
        out[:, 196] = 1.0
        out[:, 197] = 0.0
        if kind == "shots":
            out[:, 198:] = _shots_inputs(rows)
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


_ROLLS = [(a, b) for a in range(1, 7) for b in range(1, 7)]  # the 36 (T5)


def _shots_inputs(rows: npt.NDArray[np.int8]) -> npt.NDArray[np.float32]:
    """The eight contact inputs of the shots kind (fastnardy.search.inputs) of short rows."""
    n = len(rows)
    out = np.empty((n, 8), dtype=np.float32)
    for s in range(2):
        own = rows[:, _HALF * s:_HALF * s + _HALF].astype(np.int64)  # points 1..24, bar
        other = rows[:, _HALF * (1 - s):_HALF * (1 - s) + _HALF].astype(np.int64)
        # the other side attacks: its point a holds what it holds, and own point p is its
        # point 25 - p (short nardy's mirror); index 0 is unused, 25 its bar
        attacker = np.zeros((n, 26), dtype=bool)
        attacker[:, 1:26] = other > 0
        blot = np.zeros((n, 26), dtype=bool)
        block = np.zeros((n, 26), dtype=bool)
        for p in range(1, 25):
            blot[:, 25 - p] = own[:, p - 1] == 1
            block[:, 25 - p] = own[:, p - 1] >= 2
        hits = np.zeros(n, dtype=np.int64)
        lost = np.zeros(n, dtype=np.int64)  # pips, summed over the rolls
        for d1, d2 in _ROLLS:
            steps = [d1] * 4 if d1 == d2 else None
            hit = np.zeros(n, dtype=bool)
            worst = np.zeros(n, dtype=np.int64)  # the farthest advanced blot hit: 25 - p
            for a in range(1, 26):
                paths = [[d1] * k for k in range(1, 5)] if steps else [[d1], [d2], [d1, d2],
                                                                        [d2, d1]]
                for path in paths:
                    point, clear = a, attacker[:, a].copy()
                    for j, d in enumerate(path):
                        point -= d
                        if point < 1:
                            clear[:] = False
                            break
                        if j < len(path) - 1:
                            clear &= ~block[:, point]
                    if point >= 1:
                        hit |= clear & blot[:, point]
                        worst = np.where(clear & blot[:, point], np.maximum(worst, point),
                                         worst)
            hits += hit
            lost += worst
        # the back checker, and the other side's blocks in own numbering
        back = np.zeros(n, dtype=np.int64)
        for p in range(1, 26):
            back = np.where(own[:, p - 1] > 0, p, back)
        blocked = np.zeros((n, 26), dtype=bool)
        for q in range(1, 25):
            blocked[:, 25 - q] = other[:, q - 1] >= 2
        out[:, 4 * s] = (hits / 36.0).astype(np.float32)
        out[:, 4 * s + 1] = (_escapes(back, blocked) / 36.0).astype(np.float32)
        out[:, 4 * s + 2] = (back / 25.0).astype(np.float32)
        quarters = np.floor(lost / 9 + 0.5)  # the mean over 36 rolls in quarter pips
        out[:, 4 * s + 3] = (quarters / 96.0).astype(np.float32)
    return out


def _escapes(back: npt.NDArray[np.int64], blocked: npt.NDArray[np.bool_]
             ) -> npt.NDArray[np.int64]:
    """The escapes of each row's back checker on point ``back`` (0: none) from ``blocked``
    (own numbering, index p: point p)."""
    counts = np.zeros(len(back), dtype=np.int64)
    for i, p in enumerate(back.tolist()):
        def is_block(ahead: int) -> bool:
            return 1 <= ahead <= 12 and p - ahead >= 1 and bool(blocked[i, p - ahead])
        far = max([d for d in range(1, 13) if is_block(d)], default=0)
        if far == 0:
            counts[i] = 36
            continue
        for d1, d2 in _ROLLS:
            paths = [[d1] * k for k in range(1, 5)] if d1 == d2 else [[d1], [d2], [d1, d2],
                                                                       [d2, d1]]
            ok = False
            for path in paths:
                ahead = 0
                for d in path:
                    ahead += d
                    if is_block(ahead):
                        break
                else:
                    ok = ok or ahead > far
            counts[i] += ok
    return counts
