"""Hint and eval, as GNU Backgammon gives them, on a trained evaluator: every answer is for one
:class:`~fastnardy.search.setting.Setting` (the network, plies, filter and precision;
``net:0`` by default) and one :class:`~fastnardy.search.cubeful.Cube` context (money play
with the rules' centred cube by default, C8), and records both.

**Equity** is in points to the side to move, cubeless (L10, S9: 1, 2 or 3 points; the
search module's values); **cubeful** equity is normalised money equity in stakes (C1), the
cube model of :mod:`fastnardy.search.cubeful`. The **probabilities** are the network's five
outputs (:class:`~fastnardy.search.network.Probabilities`) from the side to move's view; a
finished game has its exact ones. At 1 ply or more they are those of the line the search
values, so the equity is always the equity of the probabilities beside it, as in GNU
Backgammon.

* :func:`hint`: every legal turn of a roll (T1), best first, valued as the search
  (:meth:`fastnardy.search.tree.Search.rank`) values it at the setting's plies: by its
  cubeful equity, the opponent to move taking its proper cube action after it (cubeful
  ties broken by the cubeless equity), or by its cubeless equity with a ``cubeless``
  setting; a turn the filter dropped keeps its 0-ply value and says so (its ``plies``).
  The same choice as every player of that setting (:mod:`fastnardy.play.players`).
* :func:`evaluate`: the cubeless equity and probabilities of a position at the setting's
  plies and its cube decision (:func:`cube_decision`).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Dict, Iterator, Optional, Sequence, Tuple, Union, overload

import numpy as np

from .. import _kernel, checks
from ..basics import Roll
from ..batch import encode, expand
from ..errors import IllegalTurnError
from ..position import Position, Turn
from ..search.cubeful import Cube, CubeDecision, decision, efficiencies, offered
from ..search.network import Probabilities
from ..search.setting import Setting, setting as as_setting

__all__ = ["Candidate", "Evaluation", "Hint", "cube_decision", "evaluate", "hint",
           "probabilities"]


@dataclasses.dataclass(frozen=True)
class Candidate:
    """One legal turn of a :class:`Hint`, to the side to move."""

    turn: Turn
    """The legal turn (T1)."""
    equity: float
    """The cubeless equity of the position after it, in points, at ``plies``."""
    cubeful: Optional[float]
    """Its cubeful equity, normalised, in stakes, under the hint's cube; None when the hint
    ranks cubeless."""
    difference: float
    """What it is worth less the best turn's (<= 0): cubeful, or cubeless when the hint
    ranks cubeless."""
    probabilities: Probabilities
    """The five outputs of the position after it, at ``plies``."""
    plies: int
    """The depth it was valued at: the hint's, or 0 where the filter dropped it."""

    def as_dict(self) -> Dict[str, Any]:
        """The candidate for JSON: the turn in notation, the equities, the difference, the
        plies and the outputs by name."""
        out: Dict[str, Any] = {"turn": str(self.turn), "equity": round(self.equity, 6),
                               "difference": round(self.difference, 6), "plies": self.plies,
                               "probabilities": self.probabilities.as_dict()}
        if self.cubeful is not None:
            out["cubeful"] = round(self.cubeful, 6)
        return out


@dataclasses.dataclass(frozen=True)
class Hint(Sequence[Candidate]):
    """:func:`hint`'s answer: a sequence of the candidates, best first, and what they were
    valued at."""

    position: Position
    """The position the turns are played from."""
    dice: Roll
    """The roll."""
    setting: Setting
    """The evaluation setting."""
    cube: Optional[Cube]
    """The cube context of the cubeful equities; None when the turns were ranked
    cubeless."""
    candidates: Tuple[Candidate, ...]
    """Every legal turn, best first (ties in T2 order)."""

    @overload
    def __getitem__(self, index: int) -> Candidate: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Candidate]: ...

    def __getitem__(self, index: Union[int, slice]) -> Union[Candidate, Sequence[Candidate]]:
        return self.candidates[index]

    def __len__(self) -> int:
        return len(self.candidates)

    def __iter__(self) -> Iterator[Candidate]:
        return iter(self.candidates)

    def as_dict(self) -> Dict[str, Any]:
        """The hint for JSON, with its setting and cube conditions."""
        return {"position": self.position.to_string(), "dice": list(self.dice),
                **self.setting.as_dict(),
                "cube": None if self.cube is None else self.cube.as_dict(),
                "moves": [candidate.as_dict() for candidate in self.candidates]}


def _request(position: object, given: object, cube: object
             ) -> Tuple[Position, Setting, Optional[Cube]]:
    """The position, the setting and the cube context of a request, checked (the context
    None for a cubeless setting; a network's setting where its search is made)."""
    position = checks.position(position, Position)
    chosen = as_setting(given).resolved(position.rules)
    context = Cube.of(cube, position.rules) if chosen.cubeful else None
    return position, chosen, context


def hint(position: Position, dice: object, setting: Union[Setting, str, None] = None, *,
         cube: Optional[Cube] = None) -> Hint:
    """Every legal turn (T1) of ``position`` for ``dice``, best first (module docstring),
    under the cube context ``cube`` (None: money play with the rules' centred cube; not read
    by a ``cubeless`` setting). IllegalTurnError (T4) once the game is over."""
    position, chosen, context = _request(position, setting, cube)
    roll = _kernel.dice_pair(dice)
    turns = position.legal_turns(roll)
    if not turns:
        raise IllegalTurnError("T4", "the game is over: there is no legal turn")
    children, _ = expand(position.rules, encode([position]), np.array([roll]))
    ranked = chosen.search(position.rules).rank(children, np.array([0, len(children)]),
                                                chosen.plies, context, outputs=True)
    assert ranked.outputs is not None
    order = ranked.order()
    equity, worth = ranked.equity.tolist(), ranked.worth.tolist()
    outputs, plies, best = ranked.outputs.tolist(), ranked.plies.tolist(), worth[order[0]]
    return Hint(position, (max(roll), min(roll)), chosen, context, tuple(
        Candidate(turns[i], equity[i], None if context is None else worth[i],
                  worth[i] - best, Probabilities(*outputs[i]), plies[i]) for i in order))


def probabilities(position: Position, setting: Union[Setting, str, None] = None
                  ) -> Probabilities:
    """The five outputs of ``position`` to its side to move at the setting's plies: the
    network's at 0 ply; at 1 ply or more the mean over the 21 rolls (T5) of the outputs one
    ply shallower after the turn the search takes at each roll (the best, the first of
    equals in T2 order, among those the filter keeps), so that their equity is the search's
    value; exact for a finished game."""
    position, chosen, _ = _request(position, setting, None)
    outputs = chosen.search(position.rules).line(encode([position]), chosen.plies)[1]
    return Probabilities(*outputs[0].tolist())


def cube_decision(position: Position, cube: Optional[Cube] = None,
                  setting: Union[Setting, str, None] = None) -> CubeDecision:
    """The side to move's cube decision in ``position`` under the cube context ``cube``
    (None: money play with the rules' centred cube) at the setting's plies, as gnubg
    evaluates it: the cube model at 0 ply, deeper the cubeful search
    (:meth:`fastnardy.search.tree.Search.cubeful`)."""
    position = checks.position(position, Position)
    if position.outcome() is not None:
        raise IllegalTurnError("T4", "the game is over: there is no cube decision")
    chosen = as_setting(setting).resolved(position.rules)
    context = Cube.of(cube, position.rules)
    rows = encode([position])
    values, outputs = chosen.search(position.rules).cubeful(rows, offered(context),
                                                            chosen.plies, top=True)
    return decision(outputs, values, float(efficiencies(position.rules, rows)[0]), context,
                    context.table(position.rules.game), chosen.plies)


@dataclasses.dataclass(frozen=True)
class Evaluation:
    """:func:`evaluate`'s answer, to the side to move."""

    position: Position
    """The position valued."""
    setting: Setting
    """The evaluation setting."""
    cube: Cube
    """The cube context of the decision."""
    equity: float
    """The cubeless equity in points at the setting's plies (the search's value)."""
    probabilities: Probabilities
    """The five outputs of the line the search values (their equity is ``equity``)."""
    decision: CubeDecision
    """The cube decision under ``cube`` at the setting's plies."""

    @property
    def cubeful(self) -> float:
        """The cubeful equity of the proper cube action, normalised, in stakes."""
        return self.decision.optimal

    def as_dict(self) -> Dict[str, Any]:
        """The evaluation for JSON, with its setting and cube conditions."""
        return {"position": self.position.to_string(), **self.setting.as_dict(),
                "cube": self.cube.as_dict(), "equity": round(self.equity, 6),
                "cubeful": round(self.cubeful, 6),
                "probabilities": self.probabilities.as_dict(),
                "decision": self.decision.as_dict()}


def evaluate(position: Position, setting: Union[Setting, str, None] = None, *,
             cube: Optional[Cube] = None) -> Evaluation:
    """The cubeless equity, probabilities and cube decision of ``position`` at the
    setting's plies under the cube context ``cube`` (None: money play with the rules'
    centred cube). IllegalTurnError (T4) once the game is over."""
    position = checks.position(position, Position)
    chosen = as_setting(setting).resolved(position.rules)
    context = Cube.of(cube, position.rules)
    values, outputs = chosen.search(position.rules).line(encode([position]), chosen.plies)
    made = cube_decision(position, context, chosen)
    return Evaluation(position, chosen, context, float(values[0]),
                      Probabilities(*outputs[0].tolist()), made)
