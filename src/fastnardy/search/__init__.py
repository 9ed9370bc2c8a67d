"""Valuing positions: the networks and their inputs, the search (expectimax and the best
turn, cubeless and over cube states), the evaluation setting, the cube model and match
equity tables, self-play and playouts in the kernel, the bear-off table.

The search's own names (``best_turn``, ``expectimax`` …, :mod:`fastnardy.search.tree`'s) and
the setting (:class:`~fastnardy.search.setting.Setting`) are read from here too."""

from .setting import Setting
from .tree import (GNUBG_FILTERS, BestTurn, Evaluator, MoveFilter, best_turn, evaluator,
                   expectimax)

__all__ = ["GNUBG_FILTERS", "BestTurn", "Evaluator", "MoveFilter", "Setting", "best_turn",
           "evaluator", "expectimax"]
