"""The cube (C1-C8): its context as the side to move sees it (:class:`Cube`, with the
match's equity table) and GNU Backgammon's model of its value: **Janowski's model** for money
play and **its generalisation to matches** (gnubg's ``Cl2CfMoney`` and ``Cl2CfMatch``), a
function of the five outputs, the cube and the score, so that anyone's probabilities can be
fed to it.

* The cubeful value is ``x * live + (1 - x) * dead``: ``dead`` the cubeless value, ``live``
  the value with a fully efficient cube, linear in the winning chance p between the points
  where the side to move's opponent would cash (p = its too-good point) and where the mover
  would cash, and out to the wins and losses with their mars / gammon and koks / backgammon
  at p = 0 and p = 1. In money play the cash and take points come from the average win and
  loss ``W = 1 + (wins by mars + by koks) / wins`` and ``L`` alike; in a match they are found
  level by level from the highest cube that is still live down to the one in play, from the
  match equity table (:mod:`fastnardy.search.met`).
* The cube efficiency x is gnubg's: 0.68 in contact, in a race ``0.55 + 0.00125 * the mover's
  pips`` within [0.6, 0.7], 0.6 once every checker of both sides is in its home, 0 for a
  finished game. Long nardy (whose cube traditions differ) gets the same numbers: an
  approximation, not calibrated on long nardy.
* Values are in **normalised money equity** to the side to move, in units of the stake: in a
  match ``2 m - (m_win + m_lose)) / (m_win - m_lose)`` for a match-winning chance m, with
  m_win and m_lose the chances after winning and losing the stake (gnubg's ``mwc2eq``).
* Where the evaluator holds a two-sided bear-off database (:mod:`fastnardy.search.bearoff`)
  and the cube is a money cube of geometric stakes, the search takes the database's exact
  money equities in place of the model's (``exact_money``), as gnubg does; in a match
  the model reads the database's exact win chance.
* :func:`cube_action` decides at 0 ply from given outputs; at 1 ply or more the search
  values the cube (:meth:`fastnardy.search.tree.Search.cubeful`, as gnubg does: each roll's
  best turn for the side to move, the opponent's proper cube action at every node below).

A match cube's table is its ``met``, or fastnardy's own table of the game
(:func:`shipped_met`) when it holds none; fastnardy's tables (:func:`model_met`) come from
the same model: the value of a game that starts at p = 0.5 with a centred cube, from the
tables of the scores it can end in, given the game's rates of mars and koks."""

from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np
import numpy.typing as npt

from .. import _features, checks
from ..batch import encode, pips
from ..errors import FastNardyError, MatchEquityError, integer, shown
from ..game import Game, Match, next_stake
from ..position import Position
from ..rules import MAX_STAKE, Rules
from .bearoff import Database
from .met import MatchEquityTable
from .network import Evaluator, checked, exact_rows, races

# the model's parts the search and the analysis read (action_of, decide, decision, mwc_after,
# normalised, offered, offers, under) take checked values and are not in __all__
__all__ = ["BEAROFF_EFFICIENCY", "CONTACT_EFFICIENCY", "RACE_EFFICIENCY", "Cube",
           "CubeDecision", "OWNERS", "cube_action", "cube_equities", "cubeful", "efficiencies",
           "efficiency", "leaves", "model_met", "mwc_scale", "shipped_met"]


# gnubg's default cube efficiencies (eval.c): contact and crashed 0.68; race 0.55 + 0.00125 *
# pips within [0.6, 0.7]; bear-off positions (one-sided database) 0.6
CONTACT_EFFICIENCY = 0.68

RACE_EFFICIENCY = (0.55, 0.00125, 0.6, 0.7)

BEAROFF_EFFICIENCY = 0.6

OWNERS = ("centered", "mover", "opponent")

_OPTIONAL = 1.0e-5  # gnubg's isOptional: a double whose equity is the no double's within this

_DATA = Path(__file__).parent.parent / "data" / "met.json"


class Cube(NamedTuple):
    """The cube context of a position, as its side to move sees it: one value that every
    cubeful answer is for (gnubg's ``cubeinfo``)."""

    value: int = 1
    """The stake the cube shows (C1): 1 to 64, a power of 2 under geometric stakes (C3)."""
    owner: str = "centered"
    """Who holds the right to offer (C2): "centered" (both), "mover" or "opponent"."""
    length: int = 0
    """The match length in points (C6); 0 is money play (C8)."""
    score: Tuple[int, int] = (0, 0)
    """The match score: the mover's points, then the opponent's (0-0 in money play)."""
    crawford: bool = False
    """This game is the Crawford game (C7: no offers)."""
    jacoby: bool = False
    """Money play's Jacoby option (C8): mars and koks count only once the stake is raised."""
    stakes: str = "geometric"
    """How an accepted offer raises the stake (C3): "geometric" (doubled) or "arithmetic"."""
    cancels_mars: bool = False
    """C4: once the stake is raised, a mars or koks counts as a plain win."""
    met: Optional[MatchEquityTable] = None
    """The match's equity table (C6); None: fastnardy's own table of the game
    (:func:`shipped_met`). Not read in money play."""

    @classmethod
    def of(cls, given: object, rules: object = None) -> "Cube":
        """``given`` checked, the one check of a cube context: a Cube, or None for the money
        cube at 1 (:meth:`money`, under ``rules`` when given)."""
        cube = (cls() if rules is None else cls.money(rules)) if given is None else given
        if not isinstance(cube, Cube):
            raise FastNardyError(f"cube must be a fastnardy.search.cubeful.Cube, not "
                                 f"{type(given).__name__}")
        if all(type(field) is kind for field, kind in zip(cube, _TYPES)) \
                and type(cube.met) in (MatchEquityTable, type(None)) \
                and len(cube.score) == 2 and all(type(s) is int for s in cube.score):
            return _checked(cube)  # plain values: each cube checked once
        return cube._checked()

    def _checked(self) -> "Cube":
        """:meth:`of`'s checks."""
        cube = self
        if cube.met is not None and not isinstance(cube.met, MatchEquityTable):
            raise FastNardyError(f"met must be a MatchEquityTable or None, not "
                                 f"{type(cube.met).__name__}")
        if not isinstance(cube.owner, str) or cube.owner not in OWNERS:
            raise FastNardyError(f"owner must be one of {', '.join(OWNERS)}, not "
                                 f"{cube.owner!r}")
        if not isinstance(cube.stakes, str) or cube.stakes not in ("geometric", "arithmetic"):
            raise FastNardyError(f"stakes must be 'geometric' or 'arithmetic' (C3), not "
                                 f"{cube.stakes!r}")
        value = checks.number(cube.value, "cube value", 1, MAX_STAKE)
        if cube.stakes == "geometric" and value & (value - 1):
            raise FastNardyError(f"C3: under geometric stakes the cube shows a power of 2, "
                                 f"not {value}")
        length = checks.number(cube.length, "match length", 0, 64)
        score = checks.bounded(cube.score, 2)
        if score is None or len(score) != 2:
            raise FastNardyError(f"score must be two numbers, not {cube.score!r}")
        if not length and any(integer(points) != 0 for points in score):
            raise FastNardyError(f"a score is a match's (C6): give the match length too, or no "
                                 f"score in money play, not {cube.score!r}")
        mine, theirs = (checks.number(points, "score", 0, max(length - 1, 0)) for points in score)
        crawford = checks.flag(cube.crawford, "crawford")
        if crawford and (not length or (mine != length - 1) == (theirs != length - 1)):
            raise FastNardyError("C7: the Crawford game is the one where exactly one player "
                                 "needs 1 point")
        if length and cube.jacoby:
            raise FastNardyError("C8: the Jacoby option is for money play")
        return cube._replace(value=value, length=length, score=(mine, theirs),
                             crawford=crawford, jacoby=checks.flag(cube.jacoby, "jacoby"),
                             cancels_mars=checks.flag(cube.cancels_mars, "cancels_mars"))

    @classmethod
    def money(cls, rules: object) -> "Cube":
        """The money cube at 1, centred, under the ``rules``' stakes (C3), C4 and Jacoby
        option (C8)."""
        rules = Rules.of(rules)
        return cls(stakes=str(rules.stakes), jacoby=bool(rules.jacoby),
                   cancels_mars=bool(rules.game == "short" and rules.cube_cancels_mars))

    @classmethod
    def of_game(cls, game: "Game", match: "Optional[Match]" = None) -> "Cube":
        """The cube of ``game`` (C1, C2) from its side to move's view, at ``match``'s score
        (C6, C7) when it is a match's game."""
        if not isinstance(game, Game) or not (match is None or isinstance(match, Match)):
            raise FastNardyError(f"of_game needs a fastnardy.Game and a fastnardy.Match or "
                                 f"None, not {type(game).__name__} and {type(match).__name__}")
        mover = game.position.turn
        owner = game.cube_owner
        cube = cls.money(game.rules)._replace(
            value=game.stake, owner="centered" if owner is None else
            ("mover" if owner == mover else "opponent"))
        if match is None:
            return cube
        white, black = match.score
        return cube._replace(length=match.length, jacoby=False, crawford=match.is_crawford(),
                             score=(white, black) if mover == "white" else (black, white))

    def table(self, game: str = "short") -> Optional[MatchEquityTable]:
        """The equity table of a match cube (its ``met``, else fastnardy's own of ``game``),
        None in money play; MatchEquityError when it is shorter than the points needed."""
        if not self.length:
            return None
        table = shipped_met(game) if self.met is None else self.met
        if max(self.away) > table.length:
            raise MatchEquityError(f"{table.name or 'the table'} goes to {table.length} away, "
                                   f"not {max(self.away)}")
        return table

    def as_dict(self) -> Dict[str, Any]:
        """The context for JSON, the table by its name."""
        out: Dict[str, Any] = {name: getattr(self, name) for name in self._fields
                               if name != "met"}
        out["score"] = list(self.score)
        if self.length:
            out["met"] = "fastnardy" if self.met is None else self.met.name
        return out

    @property
    def away(self) -> Tuple[int, int]:
        """The points the mover and the opponent still need (match play)."""
        return self.length - self.score[0], self.length - self.score[1]

    def raised(self, value: Optional[int] = None) -> int:
        """C3: the stake an offer of ``value`` (the cube's) makes."""
        stake = self.value if value is None else checks.number(value, "value", 1, MAX_STAKE)
        return next_stake(self, stake)  # type: ignore[arg-type]

    def turned(self) -> "Cube":
        """The same cube from the opponent's side."""
        owner = {"mover": "opponent", "opponent": "mover"}.get(self.owner, self.owner)
        return self._replace(owner=owner, score=(self.score[1], self.score[0]))

    def taken(self) -> "Cube":
        """The cube after the mover's offer is taken (C2): raised, owned by the opponent."""
        return self._replace(value=self.raised(), owner="opponent")

    @property
    def post_crawford(self) -> bool:
        """C7: a match game after the Crawford game (a player needs 1)."""
        return bool(self.length) and not self.crawford and 1 in self.away

    @property
    def may_offer(self) -> bool:
        """Whether the mover may offer (C2, C7) and gain by it (gnubg's ``GetDPEq``): it holds
        the right, the stake is under 64, and in a match it is not the Crawford game, the
        mover still needs more than the stake, and it is not the post-Crawford leader."""
        if self.owner == "opponent" or self.value >= MAX_STAKE:
            return False
        if not self.length:
            return True
        return (not self.crawford and self.away[0] > self.value
                and not (self.post_crawford and self.away[0] == 1))

    @property
    def live(self) -> bool:
        """Whether the cube can still change the match (gnubg's ``fDoCubeful``): money play,
        or a match game that is not the Crawford game, with a side for which the stake is
        short of the match, and not at 2-away 2-away."""
        if not self.length:
            return True
        a, b = self.away
        return not (self.crawford or (a <= self.value and b <= self.value) or a == b == 2)


# the types of a plain cube's fields (bools for flags, ints for numbers)
_TYPES = (int, str, int, tuple, bool, bool, str, bool)


@lru_cache(maxsize=4096)
def _checked(cube: Cube) -> Cube:
    return cube._checked()


class CubeDecision(NamedTuple):
    """A cube decision of the side to move, in normalised money equity (module docstring):
    ``no_double``, ``double_take``, ``double_pass`` (1 in money play), ``action`` (GNU
    Backgammon's words: "No double, take", "Double, take", "Double, pass", "Too good to
    double, pass" …; "redouble" once the mover owns the cube; "… (dead cube)" or "No double
    (cube not available)" when the mover may not offer), ``efficiency`` the x used,
    ``optimal`` the equity of the proper action, ``cubeless`` the cubeless equity, ``mwc``
    the match-winning chances of the three (None in money play), ``plies`` the depth and
    ``take_point`` the opponent's take point (the least winning chance at which it should
    take, fully live cube at 0 ply; None when the mover may not offer)."""

    no_double: float
    double_take: float
    double_pass: float
    action: str
    efficiency: float
    optimal: float = math.nan
    cubeless: float = math.nan
    mwc: Optional[Tuple[float, float, float]] = None
    plies: int = 0
    take_point: Optional[float] = None

    @property
    def error(self) -> Dict[str, float]:
        """The cost of each action against the proper one, in normalised money equity
        (<= 0): ``no_double`` and ``double`` for the mover (the offer answered properly),
        ``take`` and ``pass`` for the opponent (its answer to an offer, from its side)."""
        answered = min(self.double_take, self.double_pass)
        return {"no_double": self.no_double - self.optimal, "double": answered - self.optimal,
                "take": answered - self.double_take, "pass": answered - self.double_pass}

    def as_dict(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"no_double": round(self.no_double, 6),
                               "double_take": round(self.double_take, 6),
                               "double_pass": round(self.double_pass, 6),
                               "action": self.action, "optimal": round(self.optimal, 6),
                               "cubeless": round(self.cubeless, 6),
                               "efficiency": round(self.efficiency, 4), "plies": self.plies}
        if self.mwc is not None:
            out["mwc"] = [round(m, 6) for m in self.mwc]
        if self.take_point is not None:
            out["take_point"] = round(self.take_point, 6)
        return out


# -- the match: what the mover's match-winning chance is after a game --------------------

def mwc_after(met: MatchEquityTable, cube: Cube, won: int, lost: int) -> float:
    """The mover's match-winning chance once it has won ``won`` points or lost ``lost``."""
    a, b = cube.away
    later_post = cube.crawford or 1 in (a, b)  # the games after this one are post-Crawford
    return met.mwc(a - won, b - lost, later_post)


def _mine(met: MatchEquityTable, cube: Cube, player: int, won: int, lost: int) -> float:
    """Player 0's (the mover's) or player 1's chance once that player has won or lost."""
    if player == 0:
        return mwc_after(met, cube, won, lost)
    return 1.0 - mwc_after(met, cube, lost, won)


Rates = Tuple[npt.NDArray[np.float64], ...]


def _rates(p: npt.NDArray[np.float64], cube: Cube, value: int) -> Rates:
    """The shares of the mover's wins by mars / gammon alone and by koks / backgammon, and
    the same of its losses (gnubg's gammon ratios); none under C4 once the stake is raised."""
    if cube.cancels_mars and value > 1:
        zero = np.zeros(len(p))
        return zero, zero, zero, zero
    win, lose = p[:, 0], 1.0 - p[:, 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        g0 = np.where(win > 0, (p[:, 1] - p[:, 2]) / win, 0.0)
        b0 = np.where(win > 0, p[:, 2] / win, 0.0)
        g1 = np.where(lose > 0, (p[:, 3] - p[:, 4]) / lose, 0.0)
        b1 = np.where(lose > 0, p[:, 4] / lose, 0.0)
    return g0, b0, g1, b1


def _spread(values: Sequence[float], gammon: npt.NDArray[np.float64],
            backgammon: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """A value once the game ends in a win (or loss) of one, two or three times a stake
    (``values``, in that order)."""
    single, double, triple = values
    out: npt.NDArray[np.float64] = ((1.0 - gammon - backgammon) * single + gammon * double
                                    + backgammon * triple)
    return out


def _cash_points(p: npt.NDArray[np.float64], cube: Cube, met: MatchEquityTable
                 ) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Each side's live-cube cash point (its winning chance above which the other should
    pass) at the cube in play, found from the highest live cube down (gnubg's
    ``GetPoints``)."""
    away = cube.away
    levels = [cube.value]
    while all(a > cube.raised(levels[-1]) for a in away):
        levels.append(cube.raised(levels[-1]))
    g0, b0, g1, b1 = _rates(p, cube, 2)  # every result here follows an offer
    gammon, backgammon = (g0, g1), (b0, b1)
    above: List[npt.NDArray[np.float64]] = []
    for value in reversed(levels):
        raised = cube.raised(value)
        here = []
        for k in (0, 1):
            o = 1 - k
            cash = _mine(met, cube, k, value, 0)
            if any(a <= raised for a in away):  # the raised cube is dead
                prime = raised if away[k] <= raised < away[o] else value  # the other's
                double = cube.raised(prime)  # automatic redouble
                take_win = _spread(tuple(_mine(met, cube, k, n * double, 0) for n in (1, 2, 3)),
                                   gammon[k], backgammon[k])
                take_lose = _spread(tuple(_mine(met, cube, k, 0, n * double) for n in (1, 2, 3)),
                                    gammon[o], backgammon[o])
                here.append((take_lose - cash) / (take_lose - take_win))
            else:
                redouble_pass = _mine(met, cube, k, 0, raised)
                take_win = _spread(tuple(_mine(met, cube, k, n * raised, 0) for n in (1, 2, 3)),
                                   gammon[k], backgammon[k])
                here.append(1.0 - above[o] * (cash - take_win) / (redouble_pass - take_win))
        above = here
    return above[0], above[1]


def _dead(p: npt.NDArray[np.float64], cube: Cube, met: Optional[MatchEquityTable]
          ) -> npt.NDArray[np.float64]:
    """The cubeless value: money equity in stakes, or the match-winning chance."""
    g0, b0, g1, b1 = _rates(p, cube, cube.value)
    win = p[:, 0]
    if met is None:
        if cube.jacoby and cube.owner == "centered":
            g0 = b0 = g1 = b1 = np.zeros(len(p))
        wins = _spread((1.0, 2.0, 3.0), g0, b0)
        losses = _spread((1.0, 2.0, 3.0), g1, b1)
        out: npt.NDArray[np.float64] = win * wins - (1.0 - win) * losses
        return out
    v = cube.value
    wins = _spread(tuple(mwc_after(met, cube, n * v, 0) for n in (1, 2, 3)), g0, b0)
    losses = _spread(tuple(mwc_after(met, cube, 0, n * v) for n in (1, 2, 3)), g1, b1)
    mixed: npt.NDArray[np.float64] = win * wins + (1.0 - win) * losses
    return mixed


def _line(p: npt.NDArray[np.float64], x0: npt.NDArray[np.float64], y0: Any,
          x1: npt.NDArray[np.float64], y1: Any) -> npt.NDArray[np.float64]:
    """The value at p on the line from (x0, y0) to (x1, y1); y1 where the two x meet."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(x1 != x0, (p - x0) / (x1 - x0), 1.0)
    out: npt.NDArray[np.float64] = y0 + (y1 - y0) * t
    return out


def _money_live(p: npt.NDArray[np.float64], cube: Cube) -> npt.NDArray[np.float64]:
    """Janowski's fully live money cube, in stakes (gnubg's ``MoneyLive``)."""
    win = p[:, 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        w = 1.0 + (p[:, 1] + p[:, 2]) / win
        lose = 1.0 + (p[:, 3] + p[:, 4]) / (1.0 - win)
    take = (lose - 0.5) / (w + lose + 0.5)  # the mover's take point
    cash = (lose + 1.0) / (w + lose + 0.5)  # the mover's cash point
    zero, one = np.zeros_like(win), np.ones_like(win)
    if cube.owner == "centered":
        low = -one if cube.jacoby else _line(win, zero, -lose, take, -1.0)
        high = one if cube.jacoby else _line(win, cash, 1.0, one, w)
        return np.where(win < take, low, np.where(win < cash, _line(win, take, -1.0, cash, 1.0),
                                                  high))
    if cube.owner == "mover":
        return np.where(win < cash, _line(win, zero, -lose, cash, 1.0),
                        _line(win, cash, 1.0, one, w))
    return np.where(win < take, _line(win, zero, -lose, take, -1.0),
                    _line(win, take, -1.0, one, w))


def _match_live(p: npt.NDArray[np.float64], cube: Cube, met: MatchEquityTable
                ) -> npt.NDArray[np.float64]:
    """The fully live match cube, as a match-winning chance (gnubg's ``Cl2CfMatch*``)."""
    g0, b0, g1, b1 = _rates(p, cube, cube.value)
    v, win = cube.value, p[:, 0]
    cash, opponent_cash = mwc_after(met, cube, v, 0), mwc_after(met, cube, 0, v)
    wins = _spread(tuple(mwc_after(met, cube, n * v, 0) for n in (1, 2, 3)), g0, b0)
    losses = _spread(tuple(mwc_after(met, cube, 0, n * v) for n in (1, 2, 3)), g1, b1)
    mine, theirs = _cash_points(p, cube, met)
    too_good, opponent_too_good = mine, 1.0 - theirs
    zero, one = np.zeros_like(win), np.ones_like(win)
    from_loss = _line(win, zero, losses, opponent_too_good, opponent_cash)
    to_win = _line(win, too_good, cash, one, wins)
    if cube.owner == "centered":
        middle = _line(win, opponent_too_good, opponent_cash, too_good, cash)
        return np.where(win <= opponent_too_good, from_loss,
                        np.where(win < too_good, middle, to_win))
    if cube.owner == "mover":
        return np.where(win <= too_good, _line(win, zero, losses, too_good, cash), to_win)
    return np.where(win <= opponent_too_good, from_loss,
                    _line(win, opponent_too_good, opponent_cash, one, wins))


def cubeful(outputs: npt.ArrayLike, x: npt.ArrayLike, cube: Optional[Cube] = None,
            game: str = "short") -> npt.NDArray[np.float64]:
    """The cubeful value at 0 ply of (N, 5) outputs (the side to move's) with efficiencies x
    (N,) or one x under ``cube`` (money play by default): money equity in stakes, or in a
    match the match-winning chance (module docstring; a match cube without a table reads
    ``game``'s own)."""
    cube = Cube.of(cube)
    p = _outputs(outputs)
    return _cubeful(p, _efficiencies(x, len(p)), cube, cube.table(Rules.of(game).game))


def _cubeful(p: npt.NDArray[np.float64], x: npt.NDArray[np.float64], cube: Cube,
             met: Optional[MatchEquityTable]) -> npt.NDArray[np.float64]:
    dead = _dead(p, cube, met)
    if met is None:
        decided = (p[:, 0] <= 1e-7) | (p[:, 0] >= 0.9999999)  # gnubg: a dead cube there
        with np.errstate(divide="ignore", invalid="ignore"):
            live = _money_live(p, cube)
        out: npt.NDArray[np.float64] = np.where(decided, dead, dead * (1 - x) + live * x)
        return out
    if not cube.live:
        return dead
    mixed: npt.NDArray[np.float64] = dead * (1 - x) + _match_live(p, cube, met) * x
    return mixed


def _outputs(outputs: npt.ArrayLike) -> npt.NDArray[np.float64]:
    given = checks.array(outputs, "outputs")
    if given.dtype.kind not in "biuf":  # not complex, text or objects
        raise FastNardyError(f"outputs must be real numbers: the five outputs of each row, "
                             f"not {given.dtype}")
    p = given.astype(np.float64)
    if p.ndim == 1:
        p = p[None]
    if p.ndim != 2 or p.shape[1] != 5 or len(p) == 0 or not np.isfinite(p).all():
        raise FastNardyError(f"outputs must be five finite numbers or (N, 5) of them, not "
                             f"shape {p.shape}")
    return np.clip(p, 0.0, 1.0)


def _efficiencies(x: object, count: int) -> npt.NDArray[np.float64]:
    """``x`` as ``count`` cube efficiencies, each in [0, 1]: one number for every row, or one
    per row."""
    given = checks.array(x, "x")
    if given.dtype.kind not in "biuf" or given.shape not in ((), (count,)) or not (
            np.isfinite(given).all() and ((given >= 0) & (given <= 1)).all()):
        raise FastNardyError(f"x must be one cube efficiency in [0, 1] or one per row "
                             f"({count}), not {given.dtype} {given.shape}")
    return np.broadcast_to(given.astype(np.float64), (count,))


def cubes_of(given: object, count: Optional[int] = None) -> List[Cube]:
    """Cube contexts, each checked by :meth:`Cube.of`: a sequence of them, ``count`` when
    given (one Cube for all of them too), else at least one."""
    if isinstance(given, Cube) and count is not None:
        return [Cube.of(given)] * count
    items = checks.bounded(given, checks.MAX_ITEMS)
    if not items or (count is not None and len(items) != count):
        many = f"one per row ({count})" if count is not None else "at least one"
        raise FastNardyError(f"cubes must be a sequence of Cubes, {many}, not "
                             f"{shown(repr(given))}")
    return [Cube.of(cube) for cube in items]


def mwc_scale(cube: Cube, game: str = "short") -> float:
    """What one unit of normalised equity is worth under ``cube`` (gnubg's ``eq2mwc``
    slope): in a match the match-winning chance, half the gap between winning and losing the
    stake (a match cube without a table reads ``game``'s own); in money play the stake, in
    points."""
    cube = Cube.of(cube)
    table = cube.table(Rules.of(game).game)
    if table is None:
        return float(cube.value)
    return 0.5 * (mwc_after(table, cube, cube.value, 0) - mwc_after(table, cube, 0, cube.value))


# -- decisions ----------------------------------------------------------------------------

def normalised(values: Any, cube: Cube, met: Optional[MatchEquityTable]) -> Any:
    """Values (money equity in stakes, or match-winning chances) as normalised equity under
    ``cube`` (gnubg's ``mwc2eq``; in money play the values themselves)."""
    if met is None:
        return values
    win, lose = mwc_after(met, cube, cube.value, 0), mwc_after(met, cube, 0, cube.value)
    return (2.0 * values - (win + lose)) / (win - lose)


def action_of(cube: Cube, no_double: float, take: float, drop: float, gammons: bool) -> str:
    """The proper action in gnubg's words (``FindBestCubeDecision``, beavers off)."""
    re = "re" if cube.owner == "mover" else ""
    if not cube.may_offer:
        if cube.length and cube.owner != "opponent":
            return f"Never {re}double, take (dead cube)"
        return "No double (cube not available)"
    if take >= no_double and drop >= no_double:
        if drop > take:
            optional = abs(take - no_double) <= _OPTIONAL
            return (f"Optional {re}double, take" if optional
                    else f"{'Redouble' if re else 'Double'}, take")
        optional = (abs(no_double - drop) <= _OPTIONAL and gammons
                    and (bool(cube.length) or cube.owner != "centered" or not cube.jacoby))
        return (f"Optional {re}double, pass" if optional
                else f"{'Redouble' if re else 'Double'}, pass")
    if no_double > take:
        if take > drop:
            return f"Too good to {re}double, pass" if gammons else \
                f"{'Redouble' if re else 'Double'}, pass"
        if no_double > drop:
            return f"Too good to {re}double, take" if gammons else f"No {re}double, take"
        return f"No {re}double, take"
    return f"Too good to {re}double, pass" if gammons else \
        f"{'Redouble' if re else 'Double'}, pass"


def decision(p: npt.NDArray[np.float64], values: npt.NDArray[np.float64], x: float,
             cube: Cube, met: Optional[MatchEquityTable], plies: int) -> CubeDecision:
    """A CubeDecision from the five outputs (1, 5) and the values (1, 1 or 2) under
    :func:`offered`'s cubes (money: per stake of each; a match: match-winning chances)."""
    no_double, take, drop = (float(v) for v in offers(values, cube, met)[0])
    cubeless = normalised(float(_dead(p, cube, met)[0]), cube, met)
    mwc = None if met is None else (float(values[0, 0]), float(values[0, -1]) if
                                    len(values[0]) > 1 else math.nan,
                                    mwc_after(met, cube, cube.value, 0))
    action = action_of(cube, no_double, take, drop, bool(p[0, 1] > 0))
    if not cube.may_offer:
        optimal, take_point = no_double, None
    else:
        optimal = min(take, drop) if (take >= no_double and drop >= no_double) else no_double
        if met is None:
            w = 1.0 + (p[0, 1] + p[0, 2]) / max(p[0, 0], 1e-9)
            lose = 1.0 + (p[0, 3] + p[0, 4]) / max(1.0 - p[0, 0], 1e-9)
            take_point = float((w - 0.5) / (w + lose + 0.5))
        else:
            take_point = float(1.0 - _cash_points(p, cube, met)[0][0])
    return CubeDecision(no_double, take, drop, action, float(x), float(optimal),
                        float(cubeless), mwc, plies, take_point)


def cube_action(outputs: npt.ArrayLike, x: float, *, cube: Optional[Cube] = None,
                game: str = "short") -> CubeDecision:
    """The side to move's cube decision at 0 ply from its five outputs (anyone's) with cube
    efficiency ``x``: money play by default, or the ``cube``'s match (a match cube without a
    table reads ``game``'s own)."""
    cube = Cube.of(cube)
    p = _outputs(outputs)
    if len(p) != 1:
        raise FastNardyError(f"cube_action takes the five outputs of one position, not {len(p)}")
    table = cube.table(Rules.of(game).game)
    efficiency_x = checks.real(x, "x", 0.0, 1.0)
    values = under(p, np.array([efficiency_x]), offered(cube), table)
    return decision(p, values, efficiency_x, cube, table, 0)


def cube_equities(outputs: npt.ArrayLike, x: npt.ArrayLike, cubes: Sequence[Cube],
                  game: str = "short") -> npt.NDArray[np.float64]:
    """For each row of five outputs (anyone's) with its cube efficiency and its own cube
    (the side to move's view), the 0-ply no double, double take and double pass equities,
    normalised (N, 3): :func:`cube_action`'s numbers for many positions at once (double,
    take NaN at 64; a match cube without a table reads ``game``'s own)."""
    p = _outputs(outputs)
    xs, given = _efficiencies(x, len(p)), cubes_of(cubes, len(p))
    game = Rules.of(game).game
    groups: Dict[Cube, List[int]] = {}
    for i, cube in enumerate(given):
        groups.setdefault(cube, []).append(i)
    out = np.empty((len(p), 3))
    for cube, rows in groups.items():
        at = np.array(rows)
        out[at] = offers(under(p[at], xs[at], offered(cube), cube.table(game)), cube,
                         cube.table(game))
    return out


def offered(cube: Cube) -> List[Cube]:
    """The cubes of a cube decision: ``cube`` (no double) and, when the stake may still be
    raised (C1), the cube once the offer is taken (double, take)."""
    return [cube, cube.taken()] if cube.value < MAX_STAKE else [cube]


def offers(values: npt.NDArray[np.float64], cube: Cube, met: Optional[MatchEquityTable]
           ) -> npt.NDArray[np.float64]:
    """The no double, double take and double pass equities (N, 3), normalised, from the
    values (N, 1 or 2) under :func:`offered`'s cubes (money: per stake of each; a match:
    the match-winning chances); double, take NaN past 64."""
    no_double = values[:, 0]
    take = values[:, 1] if values.shape[1] > 1 else np.full(len(values), math.nan)
    if met is None:
        return np.stack([no_double, take * cube.raised() / cube.value,
                         np.ones(len(values))], axis=1)
    win = mwc_after(met, cube, cube.value, 0)
    out: npt.NDArray[np.float64] = normalised(
        np.stack([no_double, take, np.full(len(values), win)], axis=1), cube, met)
    return out


def under(p: npt.NDArray[np.float64], x: npt.NDArray[np.float64],
          states: Sequence[Optional[Cube]], met: Optional[MatchEquityTable]
          ) -> npt.NDArray[np.float64]:
    """(N, len(states)): the 0-ply cubeful value under each cube state (0 for None)."""
    return np.stack([_cubeful(p, x, s, met) if s is not None else np.zeros(len(p))
                     for s in states], axis=1)


def exact_money(rows: npt.NDArray[np.int8], states: Sequence[Optional[Cube]],
                database: Database) -> Tuple[npt.NDArray[np.bool_], npt.NDArray[np.float64]]:
    """The rows ``database`` holds and their money values (per stake) under each of
    ``states`` (money cubes of geometric stakes, C3; 0 for None): its exact equities if the
    mover does not double now (centred, owned, the other side's), as gnubg reads its
    two-sided database (``CFMONEY``) in place of the model. (held (N,), values (held, S))."""
    held, _, equities = database.lookup(rows)
    values = np.zeros((len(equities), len(states)))
    for i, state in enumerate(states):
        if state is not None:
            values[:, i] = equities[:, OWNERS.index(state.owner)]
    return held, values


def decide(values: npt.NDArray[np.float64], states: Sequence[Optional[Cube]],
            met: Optional[MatchEquityTable]) -> npt.NDArray[np.float64]:
    """(N, len(states) // 2): each cube's value under the mover's proper action (gnubg's
    ``GetECF3``): no double, unless double, take and double, pass are both at least as
    good, then the lesser of the two."""
    out = np.empty((len(values), len(states) // 2))
    for i in range(0, len(states), 2):
        cube, no_double = states[i], values[:, i]
        assert cube is not None
        if states[i + 1] is None:
            out[:, i // 2] = no_double
            continue
        take = values[:, i + 1] if met is not None else \
            values[:, i + 1] * cube.raised() / cube.value
        drop = 1.0 if met is None else mwc_after(met, cube, cube.value, 0)
        double = (take >= no_double) & (drop >= no_double)
        out[:, i // 2] = np.where(double, np.minimum(take, drop), no_double)
    return out


# -- efficiencies and the 0-ply outputs of rows ------------------------------------------

def efficiencies(rules: object, rows: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """gnubg's cube efficiency x of each unfinished board row (module docstring): contact,
    race (no checker of one side can still meet one of the other) or bear-off (every checker
    of both sides in its home)."""
    return _efficiencies_of(Rules.of(rules), checks.rows(rows))


def _efficiencies_of(rules: Rules, boards: npt.NDArray[np.int8]) -> npt.NDArray[np.float64]:
    out = np.full(len(boards), CONTACT_EFFICIENCY)
    if len(boards) == 0:
        return out
    race = races(rules, boards)
    base, slope, low, high = RACE_EFFICIENCY
    out[race] = np.clip(base + slope * pips(boards[race])[:, 0], low, high)
    home = race & (boards[:, 6:25] == 0).all(axis=1) & (boards[:, 31:50] == 0).all(axis=1)
    out[home] = BEAROFF_EFFICIENCY
    return out


def efficiency(position: Position) -> float:
    """gnubg's cube efficiency x of the position (:func:`efficiencies`); 0 once it is over."""
    position = checks.position(position, Position)
    if position.outcome() is not None:
        return 0.0
    return float(efficiencies(position.rules, encode([position]))[0])


Leaves = Tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.bool_]]


def leaves(rules: object, network: Evaluator, rows: npt.ArrayLike) -> Leaves:
    """The 0-ply outputs of board rows (exact once a game is over), their cube efficiencies
    (0 once over) and which are over: what the cube model reads of a position."""
    rules = Rules.of(rules)
    return leaves_of(rules, checked(network, rules), checks.rows(rows))


def leaves_of(rules: Rules, network: Evaluator, rows: npt.NDArray[np.int8]) -> Leaves:
    """:func:`leaves` of checked input (the search's; each row's position checked, T7)."""
    over = _features.winners(rows) != 0
    out, x = np.empty((len(rows), 5)), np.zeros(len(rows))
    if (~over).any():
        out[~over] = network.network.probabilities(rows[~over])  # compiled, on the rows
        x[~over] = _efficiencies_of(rules, rows[~over])
    if over.any():
        out[over] = exact_rows(rules, rows[over])
    return out, x, over


# -- fastnardy's match equity tables --------------------------------------------------------

def model_met(mars: float, koks: float, length: int = 64, x: float = CONTACT_EFFICIENCY,
              name: str = "") -> MatchEquityTable:
    """A match equity table to ``length`` away from the game's rates: ``mars`` and ``koks``
    the shares of games won by mars / gammon alone and by koks / backgammon. A game before
    the Crawford game starts at p = 0.5 with a centred cube and is valued by this module's
    model (cube efficiency ``x``) on the tables of the scores it can end in; the Crawford
    game is cubeless; a post-Crawford game is doubled at once by the trailer (its value
    ``(1 - mars - koks) * post[n - 2] + mars * post[n - 4] + koks * post[n - 6]``, halved,
    the free drop left out)."""
    mars, koks = (checks.real(r, n, 0.0, 1.0) for r, n in ((mars, "mars"), (koks, "koks")))
    if mars + koks > 1.0:
        raise FastNardyError("mars + koks is a share of the games won: at most 1")
    length = checks.number(length, "length", 1, 64)
    post = np.empty(length)
    for n in range(1, length + 1):
        def trailer(k: int) -> float:
            return 1.0 if k <= 0 else float(post[k - 1])
        post[n - 1] = 0.5 if n == 1 else 0.5 * ((1 - mars - koks) * trailer(n - 2)
                                                + mars * trailer(n - 4) + koks * trailer(n - 6))
    # filled in order of the points both still need, each entry from those of fewer (a
    # sound table o / (a + o) stands in for those not made yet; none of them is read)
    needs = np.arange(1, length + 1, dtype=np.float64)
    table = MatchEquityTable(needs[None, :] / (needs[:, None] + needs[None, :]), post, name)
    table.pre.setflags(write=True)
    start = np.array([[0.5, 0.5 * (mars + koks), 0.5 * koks, 0.5 * (mars + koks), 0.5 * koks]])
    xs = np.array([checks.real(x, "x", 0.0, 1.0)])
    for total in range(2, 2 * length + 1):
        for a in range(max(1, total - length), min(length, total - 1) + 1):
            b = total - a
            # a game at a-away b-away; with one of them 1-away, the Crawford game (C7)
            cube = Cube(length=max(a, b), score=(max(a, b) - a, max(a, b) - b),
                        crawford=1 in (a, b))
            table.pre[a - 1, b - 1] = float(_cubeful(start, xs, cube, table)[0])
    return MatchEquityTable(table.pre, post, name)  # checked whole (C6)


def shipped_met(game: object) -> MatchEquityTable:
    """fastnardy's match equity table of ``game`` ("short" or "long"): :func:`model_met` of
    the rates of mars and koks in the shipped network's self-play (``data/met.json``,
    rebuilt by ``python bench/strength/match_equity.py``)."""
    return _shipped_met(Rules.of(game).game)


@lru_cache(maxsize=None)
def _shipped_met(game: str) -> MatchEquityTable:
    entry = json.loads(_DATA.read_text())[game]
    return model_met(entry["mars"], entry["koks"], entry.get("length", 64),
                     entry.get("efficiency", CONTACT_EFFICIENCY), f"fastnardy {game}")

