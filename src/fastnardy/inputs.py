"""Network inputs: board rows (or packed keys) as float32 feature vectors, mover's view.

``features(rules, boards, kind)`` takes the (N, 50) integer board rows of
:mod:`fastnardy.batch` (the mover's 24 points and bar, then the opponent's, each side in its
own numbering; borne off = 15 minus the rest) or a 1-D array of packed keys
(``fastnardy._kernel.KEY_DTYPE``, decoded by :func:`fastnardy.batch.rows_from_keys`) and
returns an (N, F) float32 array, one row per position, always from the side to move's view.
Every kind is computed for all rows at once with numpy.

The four **point units** of a count n are TD-Gammon's: ``n >= 1``, ``n >= 2``, ``n >= 3``
and the excess ``(n - 3) / 2`` for n > 3, else 0 (``"tdgammon"``), or ``(n - 3) / 12``
(``"nardy"``, where a head of 15 would otherwise give 6: every long-nardy input is in
[0, 1]). Point p of a side is its own point p (own numbering, RULES.md section 0), and
"p at 4(p-1)" means the 4 units of point p are columns 4(p-1) .. 4(p-1)+3.

========  =====  ===  =============================================================
kind      game   F    columns (0-based, inclusive)
========  =====  ===  =============================================================
tdgammon  short  198  0-95 mover's points, p at 4(p-1); 96 mover's bar n/2;
                      97 mover's borne off n/15; 98-193 opponent's points, q at
                      98+4(q-1); 194 opponent's bar n/2; 195 opponent's borne off
                      n/15; 196 = 1 (the mover is on roll); 197 = 0 (the opponent is
                      not): the classic turn pair, constant in the mover's view
nardy     long   248  0-123 the mover's block, 124-247 the opponent's, each (offset b
                      = 0 or 124): b+0..b+95 the side's points, p at b+4(p-1);
                      b+96 borne off n/15; b+97 checkers on the head (point 24) n/15
                      (L5); b+98 first turn: 1 if all 15 are on the head (L5);
                      b+99 the longest run of points the side holds on the other
                      side's path, min(run, 6)/6 (L6); b+100..b+123: for the other
                      side's points r = 1..24 (the OTHER side's own numbering),
                      min(run, 6)/6 with run the length of the maximal run of
                      consecutive points held by the side that contains r, 0 when
                      the side does not hold r (L6)
raw       both   52   0-23 mover's points n/15; 24 mover's bar n/15; 25-48 opponent's
                      points n/15; 49 opponent's bar n/15; 50 mover's borne off
                      n/15; 51 opponent's borne off n/15 (bars are 0 in long nardy)
========  =====  ===  =============================================================

A side "holds" a point when it has at least one checker there. L6 runs are counted in the
blocked side's own numbering (so a run may cross board points 1/24, as RULES.md L6 says);
a run of 5 is a six-block threat and a run of 6 or more is a block, legal only as L6 allows.

Rows are checked structurally (integer counts 0..15, at most 15 checkers per side, no bar in
long nardy, no point holding both colours); the six-block part of T7 is not checked.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .batch import ROW_WIDTH, MIRROR_COLUMNS, rows_from_keys
from .errors import InvalidPositionError, InvalidRulesError
from .rules import Rules

__all__ = ["ENCODINGS", "WIDTHS", "features"]

# the kinds of input (features' ``kind``) -> the only game each encodes, if any; not
# selfplay.KINDS, the kinds of win
ENCODINGS = {"tdgammon": "short", "nardy": "long", "raw": None}
WIDTHS = {"tdgammon": 198, "nardy": 248, "raw": 52}

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


def features(rules: object, boards: object, kind: str = "raw") -> npt.NDArray[np.float32]:
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


def __getattr__(name: str) -> object:
    """The old name of ENCODINGS, with a DeprecationWarning."""
    if name == "KINDS":
        import warnings

        warnings.warn("fastnardy.inputs.KINDS (formerly fastnardy.features.KINDS) is renamed "
                      "ENCODINGS", DeprecationWarning, stacklevel=2)
        return ENCODINGS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
