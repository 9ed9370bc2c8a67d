"""Hint and eval, as GNU Backgammon gives them, on a trained evaluator.

**Equity** is in points to the side to move, cubeless (L10, S9: 1, 2 or 3 points; the
search module's values). The **probabilities** are the network's five outputs
(:data:`fastnardy.search.network.OUTPUTS`: win, win by mars / gammon or more, win by koks /
backgammon, the same lost) from the side to move's view; a finished game has its exact ones.
At 1 ply or more they are those of the line the search values (:func:`probabilities`), so
the equity is always the equity of the probabilities beside it, as in GNU Backgammon.

* :func:`hint`: every legal turn of a roll (T1), best first, valued as
  :func:`fastnardy.search.tree.best_turn` values it at ``plies`` (a turn that a
  :class:`fastnardy.search.tree.MoveFilter` dropped keeps its 0-ply value and says so),
  with the probabilities of the position after it at the same plies.
* :func:`evaluate`: the cubeless equity at ``plies`` (:func:`fastnardy.search.tree.expectimax`),
  the probabilities at ``plies`` and the cube decision at ``plies``
  (:func:`fastnardy.analysis.cube.cube_decision`: money play unless a match cube is given).

Given a ``cube`` (:class:`fastnardy.analysis.cube.Cube`), :func:`hint` values each turn
**cubeful** instead, as GNU Backgammon does (:func:`fastnardy.analysis.cube.cubeful_after`:
normalised money equity in stakes, the opponent taking its proper cube action after it) and
ranks by that value: every turn at 0 ply, the first level of ``filter`` keeping turns by
their cubeful 0-ply value for ``plies``, inside the tree each roll's best turn at 0 ply. The
cubeless equity of the same search stays beside it.
"""

from __future__ import annotations

from typing import Any, Dict, List, NamedTuple, Optional, Tuple

import numpy as np
import numpy.typing as npt

from .. import _kernel
from ..batch import encode
from ..errors import IllegalTurnError
from ..search.network import OUTPUTS, Evaluator, equity, flip
from ..position import Position, Turn
from ..search.tree import Filters, Search, check_filters, filter_at, filter_kept
from .outputs import evaluator_for, plies_arg, position_arg
from .cube import Cube, CubeDecision, cube_decision, cubeful_after
from .met import MatchEquityTable

__all__ = ["Candidate", "hint", "Evaluation", "probabilities", "evaluate"]


class Candidate(NamedTuple):
    """One legal turn of :func:`hint`: its ``equity`` to the mover (at ``plies``; 0 when a
    filter dropped it), ``difference`` to the best (<= 0) and the ``probabilities`` (the
    five outputs of the position after it, mover's view, at ``plies``)."""

    turn: Turn
    equity: float
    difference: float
    probabilities: Tuple[float, ...]
    plies: int
    cubeful: float = float("nan")

    def as_dict(self) -> Dict[str, Any]:
        """The candidate for JSON: ``turn`` in notation, ``equity`` (cubeless),
        ``cubeful`` (when a cube was given), ``difference``, ``plies`` and the outputs by
        name."""
        out = {"turn": str(self.turn), "equity": round(self.equity, 6),
               "difference": round(self.difference, 6), "plies": self.plies,
               "probabilities": dict(zip(OUTPUTS, (round(p, 6) for p in self.probabilities)))}
        if self.cubeful == self.cubeful:
            out["cubeful"] = round(self.cubeful, 6)
        return out


def hint(position: Position, dice: object, evaluator: Optional[Evaluator] = None,
         plies: int = 0, filter: Filters = None, *, cube: Optional[Cube] = None,
         met: Optional[MatchEquityTable] = None) -> List[Candidate]:
    """Every legal turn (T1) of ``position`` for ``dice``, best first (ties in T2 order),
    with its equity at ``plies``, and its cubeful equity when a ``cube`` is given (module
    docstring; ``met`` the match's table, the game's own unless given). IllegalTurnError
    (T4) once the game is over."""
    position = position_arg(position)
    depth = plies_arg(plies)
    network = evaluator_for(position.rules, evaluator)
    if cube is not None:
        return _cubeful_hint(position, dice, network, depth, filter, cube, met)
    turns = position.legal_turns(_kernel.dice_pair(dice))
    if not turns:
        raise IllegalTurnError("T4", "the game is over: there is no legal turn")
    search = Search(position.rules, network, filter)
    children = encode([turn.position for turn in turns])
    values, outputs = search.line(children, 0)  # as best_turn's search
    searched = np.ones(len(turns), dtype=bool)
    move_filter = filter_at(search.filters, 0)
    if depth and move_filter is not None:
        searched = filter_kept(-values, np.zeros(1, dtype=np.int64), move_filter)
    if depth:
        deep = np.flatnonzero(searched)
        values[deep], outputs[deep] = search.line(children[deep], depth)
    values, outputs = -values, flip(outputs)  # to the mover
    best = float(values[searched].max())
    order = sorted(range(len(turns)), key=lambda i: (not searched[i], -values[i], i))
    return [Candidate(turns[i], float(values[i]), float(values[i]) - best,
                      tuple(float(p) for p in outputs[i]), depth if searched[i] else 0)
            for i in order]


def _cubeful_hint(position: Position, dice: object, network: Evaluator, depth: int,
                  filter: Filters, cube: Cube, met: Optional[MatchEquityTable]
                  ) -> List[Candidate]:
    """:func:`hint` with a cube (module docstring)."""
    turns = position.legal_turns(_kernel.dice_pair(dice))
    if not turns:
        raise IllegalTurnError("T4", "the game is over: there is no legal turn")
    children = [turn.position for turn in turns]
    values, outputs = cubeful_after(children, cube, network, 0, met)
    searched = np.ones(len(turns), dtype=bool)
    filters = check_filters(filter)
    if depth and filters is not None:
        searched = filter_kept(values, np.zeros(1, dtype=np.int64), filters[0])
    if depth:
        deep = np.flatnonzero(searched)
        values[deep], outputs[deep] = cubeful_after([children[i] for i in deep], cube,
                                                    network, depth, met)
    cubeless = equity(outputs)
    best = float(values[searched].max())
    order = sorted(range(len(turns)), key=lambda i: (not searched[i], -values[i], i))
    return [Candidate(turns[i], float(cubeless[i]), float(values[i]) - best,
                      tuple(float(p) for p in outputs[i]), depth if searched[i] else 0,
                      float(values[i])) for i in order]


class Evaluation(NamedTuple):
    """:func:`evaluate`'s answer: ``equity`` (cubeless, at ``plies``), ``probabilities``
    (the five outputs), ``cube`` (the :class:`~fastnardy.analysis.cube.CubeDecision` at
    ``plies``) and ``cubeful`` (the equity of its proper action, normalised, in stakes)."""

    equity: float
    probabilities: Tuple[float, ...]
    plies: int
    cube: CubeDecision
    cubeful: float = float("nan")

    def as_dict(self) -> Dict[str, Any]:
        return {"equity": round(self.equity, 6), "cubeful": round(self.cubeful, 6),
                "plies": self.plies,
                "probabilities": dict(zip(OUTPUTS, (round(p, 6) for p in self.probabilities))),
                "cube": self.cube.as_dict()}


def probabilities(position: Position, evaluator: Optional[Evaluator] = None, plies: int = 0,
                  filter: Filters = None) -> npt.NDArray[np.float64]:
    """The five outputs of ``position`` to its side to move at ``plies``: the network's at 0
    ply; at 1 ply or more the mean over the 21 rolls (T5) of the outputs at ``plies - 1``
    after the turn that :func:`~fastnardy.search.tree.expectimax` takes at that roll (the
    best, the first of equals in T2 order, among those ``filter`` keeps), so that their
    equity is expectimax's value; exact for a finished game."""
    position = position_arg(position)
    network = evaluator_for(position.rules, evaluator)
    search = Search(position.rules, network, filter)
    outputs = search.line(encode([position]), plies_arg(plies))[1]
    one: npt.NDArray[np.float64] = outputs[0]
    return one


def evaluate(position: Position, evaluator: Optional[Evaluator] = None, plies: int = 0,
             filter: Filters = None, *, cube: Optional[Cube] = None,
             met: Optional[MatchEquityTable] = None) -> Evaluation:
    """The equity, probabilities and cube decision of ``position`` (module docstring):
    money play with a centred cube unless a ``cube`` is given, ``met`` the match's table
    (the game's own unless given)."""
    position = position_arg(position)
    depth = plies_arg(plies)
    network = evaluator_for(position.rules, evaluator)
    state = Cube.money(position.rules) if cube is None else Cube.of(cube)
    values, outputs = Search(position.rules, network, filter).line(encode([position]), depth)
    decision = cube_decision(position, state, network, depth, met)
    return Evaluation(float(values[0]), tuple(float(p) for p in outputs[0]), depth, decision,
                      decision.optimal)
