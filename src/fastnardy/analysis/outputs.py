"""What every analysis reads: the five outputs (:data:`fastnardy.search.network.OUTPUTS`) of
positions at 0 ply, from the side to move's view (:func:`network_outputs`; a finished game's
exact ones, L10 and S9, and the other side's view are :func:`fastnardy.search.network.exact`
and :func:`~fastnardy.search.network.flip`), the best turn of each roll
(:func:`best_per_roll`), and the evaluator an analysis uses (the game's shipped one, read
once, unless one is given)."""

from __future__ import annotations

from functools import lru_cache

from typing import Optional, Sequence

import numpy as np
import numpy.typing as npt

from .. import _kernel, checks
from ..basics import Roll
from ..batch import ROLLS, chance_expand, encode
from ..errors import FastNardyError, InvalidPositionError
from ..search.inputs import features
from ..search.network import OUTPUTS, Evaluator, exact
from ..position import Position
from ..rules import Rules
from ..search.tree import expectimax



__all__ = ["best_per_roll", "evaluator_for", "network_outputs", "plies_arg", "position_arg",
           "roll_index", "shipped"]


def shipped(game: object) -> Evaluator:
    """The game's shipped evaluator (:meth:`~fastnardy.search.network.Evaluator.load`),
    read and checked once: every analysis that is given none uses it."""
    return _shipped(Rules.of(game).game)


@lru_cache(maxsize=None)
def _shipped(game: str) -> Evaluator:
    return Evaluator.load(game)


def evaluator_for(rules: object, evaluator: Optional[Evaluator]) -> Evaluator:
    """The shipped evaluator of the game, or the one given (checked to be for it)."""
    rules = Rules.of(rules)
    if evaluator is None:
        return shipped(rules.game)
    if not isinstance(evaluator, Evaluator):
        raise FastNardyError(f"evaluator must be a fastnardy.search.network.Evaluator, not "
                             f"{evaluator!r}")
    if evaluator.game != rules.game:
        raise FastNardyError(f"the evaluator is for {evaluator.game} nardy, the position "
                             f"is {rules.game} nardy")
    return evaluator


def position_arg(position: object) -> Position:
    """``position``, checked to be a :class:`~fastnardy.Position`."""
    if not isinstance(position, Position):
        raise InvalidPositionError(f"position must be a Position, not {position!r}")
    return position


def network_outputs(evaluator: Evaluator, positions: Sequence[Position]) -> npt.NDArray[np.float64]:
    """The five outputs of each position to its side to move, at 0 ply (N, 5), positions
    of one game."""
    items = checks.bounded(positions, checks.MAX_ITEMS)
    if items is None or len(items) > checks.MAX_ITEMS:
        raise InvalidPositionError(f"positions must be a sequence of at most "
                                   f"{checks.MAX_ITEMS:,} Positions, not {positions!r}")
    positions = [position_arg(p) for p in items]
    if positions:
        evaluator = evaluator_for(positions[0].rules, evaluator)
        if any(p.rules.game != positions[0].rules.game for p in positions):
            raise InvalidPositionError("positions must be of one game")
    out = np.empty((len(positions), len(OUTPUTS)))
    live = [i for i, p in enumerate(positions) if p.outcome() is None]
    for i in set(range(len(positions))) - set(live):
        out[i] = exact(positions[i])
    if live:
        rows = encode([positions[i] for i in live])
        out[live] = evaluator.probabilities(features(positions[0].rules, rows, evaluator.kind))
    return out


def plies_arg(plies: object) -> int:
    """``plies``, checked: 0, 1 or 2."""
    return checks.number(plies, "plies", 0, 2)


def roll_index(dice: Roll) -> int:
    """The index of a roll among the 21 of :data:`fastnardy.batch.ROLLS` (either order)."""
    low, high = sorted(_kernel.dice_pair(dice))
    return [tuple(r) for r in ROLLS.tolist()].index((low, high))


def best_per_roll(rules: object, rows: npt.ArrayLike, network: Evaluator
                   ) -> npt.NDArray[np.float64]:
    """(N, 21): the 0-ply value of the best turn of each roll for each unfinished row."""
    rules = Rules.of(rules)
    network = evaluator_for(rules, network)
    node = chance_expand(rules, rows)
    values = -expectimax(rules, node.children, network, 0)
    best: npt.NDArray[np.float64] = np.maximum.reduceat(values, node.offsets[:-1])
    return best.reshape(-1, len(ROLLS))
