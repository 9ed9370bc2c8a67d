"""The money-game cube: **Janowski's model as GNU Backgammon approximates it** (money play):
the cubeful equity is ``x * live + (1 - x) * dead``, ``dead`` the cubeless equity and
``live`` the equity with a perfectly efficient cube, piecewise linear in the winning
chance p between the take point and the cash point, both from the average values of a win
``W = 1 + (win_mars + win_3) / win`` and of a loss ``L = 1 + (lose_mars + lose_3) /
(1 - win)``; the cube efficiency x is gnubg's defaults: 0.68 in contact, in a race
``0.55 + 0.00125 * the mover's pips`` within [0.6, 0.7]. Long nardy (whose cube
traditions differ) gets the same model: an approximation, not calibrated on long nardy."""

from __future__ import annotations

from typing import Any, Dict, NamedTuple

import numpy as np
import numpy.typing as npt

from ..batch import encode
from ..errors import FastNardyError
from ..search.network import races
from ..position import Position
from .outputs import position_arg

__all__ = ["CONTACT_EFFICIENCY", "RACE_EFFICIENCY", "CubeDecision", "OWNERS", "efficiency",
           "cube_action"]


# gnubg's default cube efficiencies (eval.c: contact and crashed 0.68; race 0.55 + 0.00125 *
# pips within [0.6, 0.7])
CONTACT_EFFICIENCY = 0.68
RACE_EFFICIENCY = (0.55, 0.00125, 0.6, 0.7)


class CubeDecision(NamedTuple):
    """:func:`cube_action`'s answer, money play, equities in units of the current cube for
    the side to move: ``no_double``, ``double_take``, ``double_pass`` (always 1), the
    ``action`` ("no double", "double, take", "double, pass", "too good, pass" or, when the
    mover does not have access to the cube, "no double (cube not available)") and ``efficiency``
    the cube efficiency x used."""

    no_double: float
    double_take: float
    double_pass: float
    action: str
    efficiency: float

    def as_dict(self) -> Dict[str, Any]:
        return {"no_double": round(self.no_double, 6), "double_take": round(self.double_take, 6),
                "double_pass": self.double_pass, "action": self.action,
                "efficiency": round(self.efficiency, 4)}


OWNERS = ("centered", "mover", "opponent")


def _live(p: float, win: float, loss: float, owner: str) -> float:
    """The equity with a fully live cube (Janowski), for the side to move with chance p,
    average win ``win`` and loss ``loss``; owner: who may double."""
    take = (loss - 0.5) / (win + loss + 0.5)  # the mover's take point
    cash = (loss + 1.0) / (win + loss + 0.5)  # the mover's cash point
    if owner == "mover":
        take = 0.0  # the opponent cannot double: it never cashes
    if owner == "opponent":
        cash = 1.0  # the mover cannot double
    if p <= take:
        return -loss + (loss - 1.0) * p / take
    if p >= cash:
        return 1.0 + (win - 1.0) * (p - cash) / (1.0 - cash) if cash < 1.0 else win
    low = -1.0 if take > 0.0 else -loss
    high = 1.0 if cash < 1.0 else win
    return low + (high - low) * (p - take) / (cash - take)


def efficiency(position: Position) -> float:
    """gnubg's cube efficiency x for the position: the race value when the sides have passed
    each other (no checker of one can still meet one of the other), else the contact one."""
    rows = encode([position_arg(position)])
    if not races(position.rules, rows)[0]:
        return CONTACT_EFFICIENCY
    base, slope, low, high = RACE_EFFICIENCY
    pips = int(rows[0, :24].astype(np.int64) @ np.arange(1, 25))
    return float(min(max(base + slope * pips, low), high))


def cube_action(outputs: npt.ArrayLike, x: float, owner: str = "centered") -> CubeDecision:
    """The money-game cube action of the side to move from its five outputs (module
    docstring: Janowski's model as gnubg approximates it) with cube efficiency ``x``."""
    if owner not in OWNERS:
        raise FastNardyError(f"owner must be one of {', '.join(OWNERS)}, not {owner!r}")
    p = np.clip(np.asarray(outputs, dtype=np.float64), 1e-9, 1.0 - 1e-9)
    win_p = float(p[0])
    win = 1.0 + (p[1] + p[2]) / win_p
    loss = 1.0 + (p[3] + p[4]) / (1.0 - win_p)
    dead = win_p * win - (1.0 - win_p) * loss
    no_double = x * _live(win_p, win, loss, owner) + (1 - x) * dead
    double_take = 2.0 * (x * _live(win_p, win, loss, "opponent") + (1 - x) * dead)
    if owner == "opponent":
        return CubeDecision(no_double, double_take, 1.0, "no double (cube not available)", x)
    if double_take >= 1.0:  # the opponent passes
        action = "too good, pass" if no_double > 1.0 else "double, pass"
    else:
        action = "double, take" if double_take > no_double else "no double"
    return CubeDecision(float(no_double), float(double_take), 1.0, action, float(x))


def __getattr__(name: str) -> object:
    if name == "CubeAction":  # its name until fastnardy.record's CubeAction (a recorded
        import warnings       # double, take or drop) was the only one

        warnings.warn("fastnardy.analysis.CubeAction is renamed CubeDecision",
                      DeprecationWarning, stacklevel=2)
        return CubeDecision
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
