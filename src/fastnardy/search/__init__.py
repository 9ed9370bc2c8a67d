"""Evaluators and search: the networks and their inputs, expectimax and the best turn,
self-play and rollouts in the kernel, the bear-off table.

The search's own names (``best_turn``, ``expectimax`` …, :mod:`fastnardy.search.tree`'s) are
read from here too."""

from .tree import GNUBG_FILTERS as GNUBG_FILTERS
from .tree import BestTurn as BestTurn
from .tree import Evaluator as Evaluator
from .tree import MoveFilter as MoveFilter
from .tree import best_turn as best_turn
from .tree import evaluator as evaluator
from .tree import expectimax as expectimax
