"""GNU Backgammon's networks in this process through ``gnubg_nn`` (``pip install gnubg-nn``,
GPL: a tool for tests and training, never a dependency of fastnardy; imported only when an
engine of the setting ``gnubg-nn[:PLIES]`` is made): the engine of
:class:`fastnardy.play.players.GnubgNnPlayer`, short nardy. Its moves are gnubg-nn's
``best_move`` at PLIES (0 to 4) with its own move filters, cubeless in a money game (no
noise, no Jacoby: gammons and backgammons count, S9); each must be one of fastnardy's legal
turns (T1, :func:`fastnardy.play.gnubg.chosen`), or an EngineError. Its board is gnubg's:
two sides of 25 counts (points 1 to 24, the bar), the side not on roll first.

It is not GNU Backgammon's program: gnubg-nn 1.1.0a11's contact network values positions a
little differently from Debian's gnubg 1.07 (on 200 positions of random games, 196 of its
outputs differ, by 0.0005 on average and 0.04 at most), and its move filters are its own.
On random position-rolls with two legal turns or more (tests/interfaces/test_gnubg_nn.py)
its move is the gnubg process player's (``gnubg:expert``, :class:`fastnardy.play.gnubg.Gnubg`)
in 199 of 200 and 975 of 1,000 at 0 ply, 197 of 200 and 969 of 1,000 at 1 ply; where they
differ the two moves are near equals (gnubg's 0-ply equity of gnubg-nn's is 0.003 lower on
average, 0.014 at most). It is much faster on this project's machine: about 10,000 moves a
second at 0 ply against 95 for one gnubg process (whose calls wait about 10 ms each on its
task queue), and 127 at 1 ply against 89.

gnubg-nn holds one evaluator for the whole process, not safe to call from two threads at
once: its calls take one lock.
"""

from __future__ import annotations

import threading
from typing import Any, List, Sequence

import numpy as np
import numpy.typing as npt

from .. import checks
from ..basics import ROW_WIDTH
from ..errors import EngineError, FastNardyError
from ..rules import Rules
from ..search.network import valued
from ..search.setting import Setting, setting as as_setting

__all__ = ["GnubgNn"]

HALF = ROW_WIDTH // 2
_LOCK = threading.Lock()  # gnubg-nn's one evaluator


def _module() -> Any:
    """gnubg-nn's module."""
    try:
        import gnubg_nn  # type: ignore  # untyped where installed, absent elsewhere
    except ImportError:
        raise EngineError("gnubg-nn is not installed: pip install gnubg-nn") from None
    return gnubg_nn


def _board(row: List[int]) -> List[List[int]]:
    """gnubg's board of a row (its side to move's points and bar, the opponent's): the side
    not on roll first."""
    return [row[HALF:], row[:HALF]]


class GnubgNn:
    """GNU Backgammon's networks at a setting ``gnubg-nn[:PLIES]`` (module docstring): its
    moves and its cubeless evaluations."""

    def __init__(self, setting: "Setting | str" = "gnubg-nn") -> None:
        chosen = as_setting(setting)
        if chosen.evaluator != "gnubg-nn":
            raise FastNardyError(f"a gnubg-nn setting is gnubg-nn[:PLIES], not {chosen}")
        self.module = _module()
        self.setting, self.plies = chosen, chosen.plies

    def moves(self, rows: npt.ArrayLike, dice: npt.ArrayLike) -> List[List[int]]:
        """gnubg-nn's move for each row (short nardy) and its dice, at the setting's plies:
        from, to pairs in the mover's numbering (25 the bar, 0 off), empty for none."""
        boards = checks.rows(rows).astype(np.int64).tolist()
        thrown = np.asarray(dice, dtype=np.int64).reshape(len(boards), 2).tolist()
        out = []
        with _LOCK:
            for row, (first, second) in zip(boards, thrown):
                move = self.module.best_move(_board(row), first, second, n=self.plies)
                out.append([int(point) for step in move for point in step])
        return out

    def probabilities(self, rows: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """gnubg-nn's cubeless evaluation at the setting's plies of each board row (short
        nardy) for its side to move: (N, 5), :data:`fastnardy.search.network.OUTPUTS`; a
        finished game's exact (S9)."""
        def live(boards: npt.NDArray[np.int8]) -> List[Sequence[float]]:
            with _LOCK:
                return [self.module.probabilities(_board(row), self.plies)
                        for row in boards.astype(np.int64).tolist()]
        return valued(Rules.short(), checks.rows(rows), live)
