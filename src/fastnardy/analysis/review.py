"""Analysis as GNU Backgammon gives it, for both games: hint, eval, cube action, luck, game
analysis and rollouts with variance reduction, on a trained evaluator.

**Equity** is in points to the side to move, cubeless (L10, S9: 1, 2 or 3 points; the
search module's values). The **probabilities** are the network's five outputs
(:data:`fastnardy.search.network.OUTPUTS`: win, win by mars / gammon or more, win by koks /
backgammon, the same lost) from the side to move's view; a finished game has its exact ones.

* :func:`hint`: every legal turn of a roll (T1), best first, valued by
  :func:`fastnardy.search.tree.best_turn` at ``plies`` (a turn that a
  :class:`fastnardy.search.tree.MoveFilter` dropped keeps its 0-ply value and says so); the
  probabilities of each are the network's on the position after it (0 ply).
* :func:`evaluate`: the cubeless equity at ``plies`` (:func:`fastnardy.search.tree.expectimax`),
  the probabilities (0 ply; at 1 ply or more the mean over the 21 rolls of the probabilities
  after the best turn at ``plies - 1``) and the money-game cube action.
* :func:`cube_action`: **Janowski's model as GNU Backgammon approximates it** (money play):
  the cubeful equity is ``x * live + (1 - x) * dead``, ``dead`` the cubeless equity and
  ``live`` the equity with a perfectly efficient cube, piecewise linear in the winning
  chance p between the take point and the cash point, both from the average values of a win
  ``W = 1 + (win_mars + win_3) / win`` and of a loss ``L = 1 + (lose_mars + lose_3) /
  (1 - win)``; the cube efficiency x is gnubg's defaults: 0.68 in contact, in a race
  ``0.55 + 0.00125 * the mover's pips`` within [0.6, 0.7]. Long nardy (whose cube
  traditions differ) gets the same model: an approximation, not calibrated on long nardy.
* :func:`luck`: gnubg's luck of a roll, at 0 ply: the value of the best turn of the roll
  rolled minus the mean of that over the 21 rolls (T5 weights).
* :func:`analyse_game` / :func:`analyse`: per turn the played and the best turn, the equity
  lost (>= 0), gnubg's marks (doubtful >= 0.04, bad >= 0.08, very bad >= 0.16 points) and
  the roll's luck; per side the error rate in milli-points per unforced turn (gnubg's mEMG,
  cubeless) and the luck.
* :func:`rollout`: games played on by the evaluator (0 or 1 ply), each game's result minus
  the luck of every roll in it (gnubg's variance reduction: the luck has mean 0 whatever the
  position, so the mean is unbiased and its noise much smaller), a 95% interval per
  candidate. Game j of every candidate uses dice stream j of the seed (a hash of seed, j and
  the turn), so the result is the same however the games are split over ``workers``.
* :func:`fastnardy.play.match.match`: seeded paired games between players (random, greedy,
  ``net:PLIES``, a saved network, GNU Backgammon when installed), points a game with 95%
  intervals.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np
import numpy.typing as npt

from .. import _kernel, checks
from ..basics import BLACK, WHITE, Roll
from ..batch import PROBABILITY, ROLLS, chance_expand, encode
from ..errors import FastNardyError, IllegalTurnError, InvalidPositionError
from ..game import Game
from ..search.inputs import features
from ..search.network import OUTPUTS, Evaluator, races
from ..position import Position, Turn
from ..formats.mat import read_games
from ..record import GameRecord
from ..rules import Rules
from ..search.tree import Filters, best_turn, expectimax

__all__ = ["Analysis", "AnalysedTurn", "Candidate", "CubeAction", "Evaluation", "MARKS",
           "RolledCandidate", "analyse", "analyse_game", "cube_action", "evaluate", "hint",
           "luck", "probabilities", "rollout"]

# gnubg's thresholds of a chequer-play error, in points lost (its arSkillLevel)
MARKS = (("very bad", 0.16), ("bad", 0.08), ("doubtful", 0.04))
# gnubg's luck marks, in points (its arLuckLevel)
LUCK_MARKS = (("very lucky", 0.6), ("lucky", 0.3), ("very unlucky", -0.6), ("unlucky", -0.3))
# gnubg's default cube efficiencies (eval.c: contact and crashed 0.68; race 0.55 + 0.00125 *
# pips within [0.6, 0.7])
CONTACT_EFFICIENCY = 0.68
RACE_EFFICIENCY = (0.55, 0.00125, 0.6, 0.7)
_FLIP = [3, 4, 1, 2]  # the other side's win_mars, win_3, lose_mars, lose_3


def _evaluator(rules: Rules, evaluator: Optional[Evaluator]) -> Evaluator:
    """The shipped evaluator of the game, or the one given (checked to be for it)."""
    if evaluator is None:
        return Evaluator.load(rules.game)
    if not isinstance(evaluator, Evaluator):
        raise FastNardyError(f"evaluator must be a fastnardy.search.network.Evaluator, not "
                             f"{evaluator!r}")
    if evaluator.game != rules.game:
        raise FastNardyError(f"the evaluator is for {evaluator.game} nardy, the position "
                             f"is {rules.game} nardy")
    return evaluator


def _position(position: object) -> Position:
    if not isinstance(position, Position):
        raise InvalidPositionError(f"position must be a Position, not {position!r}")
    return position


def flip(probabilities: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """The five outputs seen by the other side: win <-> lose, mars and koks swapped."""
    p = np.asarray(probabilities, dtype=np.float64)
    out = np.empty_like(p)
    out[..., 0] = 1.0 - p[..., 0]
    out[..., 1:] = p[..., _FLIP]
    return out


def _exact(position: Position) -> npt.NDArray[np.float64]:
    """L10/S9: the outputs of a finished game to its side to move (who has lost)."""
    outcome = position.outcome()
    assert outcome is not None
    won = np.array([1.0, outcome.points >= 2, outcome.points >= 3, 0.0, 0.0])
    return won if outcome.winner == position.turn else flip(won)


def _outputs(evaluator: Evaluator, positions: Sequence[Position]) -> npt.NDArray[np.float64]:
    """The five outputs of each position to its side to move, at 0 ply (N, 5)."""
    out = np.empty((len(positions), len(OUTPUTS)))
    live = [i for i, p in enumerate(positions) if p.outcome() is None]
    for i in set(range(len(positions))) - set(live):
        out[i] = _exact(positions[i])
    if live:
        rows = encode([positions[i] for i in live])
        out[live] = evaluator.probabilities(features(positions[0].rules, rows, evaluator.kind))
    return out


def _check_plies(plies: object) -> int:
    return checks.number(plies, "plies", 0, 2)


# --------------------------------------------------------------------------- hint

class Candidate(NamedTuple):
    """One legal turn of :func:`hint`: its ``equity`` to the mover (at ``plies``; 0 when a
    filter dropped it), ``difference`` to the best (<= 0) and the ``probabilities`` (the
    five outputs of the position after it, mover's view, 0 ply)."""

    turn: Turn
    equity: float
    difference: float
    probabilities: Tuple[float, ...]
    plies: int

    def as_dict(self) -> Dict[str, Any]:
        """The candidate for JSON: ``turn`` in notation, ``equity``, ``difference``,
        ``plies`` and the outputs by name."""
        return {"turn": str(self.turn), "equity": round(self.equity, 6),
                "difference": round(self.difference, 6), "plies": self.plies,
                "probabilities": dict(zip(OUTPUTS, (round(p, 6) for p in self.probabilities)))}


def hint(position: Position, dice: object, evaluator: Optional[Evaluator] = None,
         plies: int = 0, filter: Filters = None) -> List[Candidate]:
    """Every legal turn (T1) of ``position`` for ``dice``, best first (ties in T2 order),
    with its equity at ``plies`` (module docstring). IllegalTurnError (T4) once the game is
    over."""
    position = _position(position)
    depth = _check_plies(plies)
    network = _evaluator(position.rules, evaluator)
    found = best_turn(position, dice, network, depth, filter)
    turns = position.legal_turns(_kernel.dice_pair(dice))
    values = found.values.copy()
    searched = ~np.isnan(values)
    depths = np.where(searched, depth, 0)
    if not searched.all():
        children = encode([turns[i].position for i in np.flatnonzero(~searched)])
        values[~searched] = -expectimax(position.rules, children, network, 0)
    outputs = flip(_outputs(network, [turn.position for turn in turns]))
    best = float(values[searched].max())
    order = sorted(range(len(turns)), key=lambda i: (not searched[i], -values[i], i))
    return [Candidate(turns[i], float(values[i]), float(values[i]) - best,
                      tuple(float(p) for p in outputs[i]), int(depths[i])) for i in order]


# --------------------------------------------------------------------------- eval and cube

class CubeAction(NamedTuple):
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
    rows = encode([_position(position)])
    if not races(position.rules, rows)[0]:
        return CONTACT_EFFICIENCY
    base, slope, low, high = RACE_EFFICIENCY
    pips = int(rows[0, :24].astype(np.int64) @ np.arange(1, 25))
    return float(min(max(base + slope * pips, low), high))


def cube_action(outputs: npt.ArrayLike, x: float, owner: str = "centered") -> CubeAction:
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
        return CubeAction(no_double, double_take, 1.0, "no double (cube not available)", x)
    if double_take >= 1.0:  # the opponent passes
        action = "too good, pass" if no_double > 1.0 else "double, pass"
    else:
        action = "double, take" if double_take > no_double else "no double"
    return CubeAction(float(no_double), float(double_take), 1.0, action, float(x))


class Evaluation(NamedTuple):
    """:func:`evaluate`'s answer: ``equity`` (cubeless, at ``plies``), ``probabilities``
    (the five outputs), ``cube`` (the money-game :class:`CubeAction`)."""

    equity: float
    probabilities: Tuple[float, ...]
    plies: int
    cube: CubeAction

    def as_dict(self) -> Dict[str, Any]:
        return {"equity": round(self.equity, 6), "plies": self.plies,
                "probabilities": dict(zip(OUTPUTS, (round(p, 6) for p in self.probabilities))),
                "cube": self.cube.as_dict()}


def probabilities(position: Position, evaluator: Optional[Evaluator] = None, plies: int = 0,
                  filter: Filters = None) -> npt.NDArray[np.float64]:
    """The five outputs of ``position`` to its side to move: the network's at 0 ply; at 1 ply
    or more the mean over the 21 rolls (T5) of the outputs after the best turn at
    ``plies - 1``; exact for a finished game."""
    position = _position(position)
    depth = _check_plies(plies)
    network = _evaluator(position.rules, evaluator)
    if depth == 0 or position.outcome() is not None:
        one: npt.NDArray[np.float64] = _outputs(network, [position])[0]
        return one
    after = [best_turn(position, roll, network, depth - 1, filter).turn.position
             for roll in ROLLS.tolist()]
    mean: npt.NDArray[np.float64] = PROBABILITY @ flip(_outputs(network, after))
    return mean


def evaluate(position: Position, evaluator: Optional[Evaluator] = None, plies: int = 0,
             filter: Filters = None, owner: str = "centered") -> Evaluation:
    """The equity, probabilities and money-game cube action of ``position`` (module
    docstring)."""
    position = _position(position)
    depth = _check_plies(plies)
    network = _evaluator(position.rules, evaluator)
    outputs = probabilities(position, network, depth, filter)
    equity = float(expectimax(position.rules, encode([position]), network, depth, filter)[0])
    return Evaluation(equity, tuple(float(p) for p in outputs), depth,
                      cube_action(outputs, efficiency(position), owner))


# --------------------------------------------------------------------------- luck

def _roll_index(dice: Roll) -> int:
    low, high = sorted(dice)
    return [tuple(r) for r in ROLLS.tolist()].index((low, high))


def luck(position: Position, dice: object, evaluator: Optional[Evaluator] = None) -> float:
    """gnubg's luck of ``dice`` for the side to move, at 0 ply: the value of its best turn
    minus the mean of that over the 21 rolls (T5). 0 once the game is over."""
    position = _position(position)
    roll = _kernel.dice_pair(dice)
    network = _evaluator(position.rules, evaluator)
    if position.outcome() is not None:
        return 0.0
    best = _best_per_roll(position.rules, encode([position]), network)[0]
    return float(best[_roll_index(roll)] - best @ PROBABILITY)


def _best_per_roll(rules: Rules, rows: npt.NDArray[np.int8], network: Evaluator
                   ) -> npt.NDArray[np.float64]:
    """(N, 21): the 0-ply value of the best turn of each roll for each unfinished row."""
    node = chance_expand(rules, rows)
    values = -expectimax(rules, node.children, network, 0)
    best: npt.NDArray[np.float64] = np.maximum.reduceat(values, node.offsets[:-1])
    return best.reshape(-1, len(ROLLS))


# --------------------------------------------------------------------------- analysis

def mark(loss: float) -> Optional[str]:
    """gnubg's mark of a chequer-play error of ``loss`` points, or None."""
    return next((name for name, limit in MARKS if loss >= limit), None)


def luck_mark(value: float) -> Optional[str]:
    """gnubg's mark of a roll's luck, or None."""
    for name, limit in LUCK_MARKS:
        if (limit > 0 and value >= limit) or (limit < 0 and value <= limit):
            return name
    return None


@dataclass(frozen=True)
class AnalysedTurn:
    """One turn of an analysed game: the position before it, the roll, the turn ``played``
    and the ``best`` (Turn), their equities to the mover, ``loss`` (>= 0), the number of
    legal turns, gnubg's ``mark`` and the roll's ``luck``."""

    game: int
    number: int
    side: str
    position: Position
    roll: Roll
    played: Turn
    best: Turn
    played_equity: float
    best_equity: float
    loss: float
    choices: int
    luck: float
    mark: Optional[str] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "mark", mark(self.loss) if self.choices > 1 else None)

    @property
    def forced(self) -> bool:
        """A pass or the only legal turn (T3): not counted in the error rate."""
        return self.choices == 1

    def as_dict(self) -> Dict[str, Any]:
        return {"game": self.game, "number": self.number, "side": self.side,
                "position": self.position.to_string(), "dice": list(self.roll),
                "played": str(self.played), "best": str(self.best),
                "played_equity": round(self.played_equity, 6),
                "best_equity": round(self.best_equity, 6), "loss": round(self.loss, 6),
                "forced": self.forced, "mark": self.mark, "luck": round(self.luck, 6),
                "luck_mark": luck_mark(self.luck)}


@dataclass(frozen=True)
class Analysis:
    """:func:`analyse`'s answer: the analysed ``turns`` of every game and the players'
    names (white, black)."""

    turns: Tuple[AnalysedTurn, ...]
    players: Tuple[str, str]
    plies: int
    games: int

    def side(self, side: str) -> Dict[str, Any]:
        """One side's totals: unforced turns, equity lost, error rate (mEMG, cubeless
        milli-points per unforced turn), the marks and the luck (total and per turn)."""
        mine = [t for t in self.turns if t.side == side]
        unforced = [t for t in mine if not t.forced]
        lost = sum(t.loss for t in unforced)
        total_luck = sum(t.luck for t in mine)
        return {"name": self.players[side == BLACK], "turns": len(mine),
                "unforced": len(unforced), "equity_lost": round(lost, 6),
                "error_rate": round(1000 * lost / len(unforced), 3) if unforced else 0.0,
                "marks": {name: sum(t.mark == name for t in unforced) for name, _ in MARKS},
                "luck": round(total_luck, 6),
                "luck_rate": round(1000 * total_luck / len(mine), 3) if mine else 0.0}

    def as_dict(self) -> Dict[str, Any]:
        return {"plies": self.plies, "games": self.games,
                "players": {side: self.side(side) for side in (WHITE, BLACK)},
                "turns": [t.as_dict() for t in self.turns]}


def analyse_game(record: GameRecord, evaluator: Optional[Evaluator] = None, plies: int = 0,
                 filter: Filters = None, *, number: int = 1,
                 progress: Optional[Callable[[int], None]] = None) -> List[AnalysedTurn]:
    """Every turn of a recorded game (replayed by :meth:`fastnardy.Game.from_record`, which
    names an illegal turn's rule) analysed at ``plies``; ``progress(1)`` after each turn."""
    if not isinstance(record, GameRecord):
        raise FastNardyError(f"record must be a GameRecord, not {record!r}")
    depth = _check_plies(plies)
    network = _evaluator(record.rules, evaluator)
    game = Game.from_record(record)
    if record.start is not None:
        before = record.start
    else:
        assert record.opening is not None
        before = Position.opening(record.rules, *record.opening)[0]
    out = []
    for entry, (roll, played) in zip(record.turns, game.history):
        turns = before.legal_turns(roll)
        found = best_turn(before, roll, network, depth, filter)
        index = next(i for i, t in enumerate(turns) if t.position == played.position)
        played_value = found.values[index]
        if np.isnan(played_value):  # a filter dropped it: valued at full depth anyway
            played_value = -expectimax(before.rules, encode([played.position]), network,
                                       depth)[0]
        best_value = float(np.nanmax(found.values))
        best = found.turn
        if played_value > best_value:
            best, best_value = played, float(played_value)
        out.append(AnalysedTurn(number, entry.number, before.turn, before, roll, played, best,
                                float(played_value), best_value,
                                max(0.0, best_value - float(played_value)), len(turns),
                                luck(before, roll, network)))
        before = played.position
        if progress is not None:
            progress(1)
    return out


def analyse(text: str, name: str = "", evaluator: Optional[Evaluator] = None, plies: int = 0,
            filter: Filters = None,
            progress: Optional[Callable[[int, int], None]] = None) -> Analysis:
    """Analyse every game of a record file's text (a fastnardy record or a GNU Backgammon
    ``.mat`` export, :func:`fastnardy.formats.mat.read_games`); ``progress(done, total)`` counts
    turns."""
    records = read_games(text, name)
    total = sum(len(r.turns) for r in records)
    done = [0]

    def step(count: int) -> None:
        done[0] += count
        if progress is not None:
            progress(done[0], total)

    turns: List[AnalysedTurn] = []
    for number, record in enumerate(records, 1):
        turns += analyse_game(record, evaluator, plies, filter, number=number, progress=step)
    players = records[0].players if records else ("white", "black")
    return Analysis(tuple(turns), players, _check_plies(plies), len(records))


# --------------------------------------------------------------------------- rollout

class RolledCandidate(NamedTuple):
    """One line of :func:`rollout`: the ``turn`` rolled out (None: the position itself), the
    ``mean`` equity to the mover of the rolled-out position with its ``stderr`` and 95%
    interval ``ci`` (low, high), and the same without variance reduction (``plain_*``);
    ``equities`` each game's variance-reduced result, ``outcomes`` its plain one (points
    won or lost, or the evaluator's value where the game was cut)."""

    turn: Optional[Turn]
    mean: float
    stderr: float
    ci: Tuple[float, float]
    plain_mean: float
    plain_stderr: float
    equities: npt.NDArray[np.float64]
    outcomes: npt.NDArray[np.float64]

    def as_dict(self) -> Dict[str, Any]:
        return {"turn": None if self.turn is None else str(self.turn),
                "mean": round(self.mean, 6), "stderr": round(self.stderr, 6),
                "ci": [round(self.ci[0], 6), round(self.ci[1], 6)],
                "plain_mean": round(self.plain_mean, 6),
                "plain_stderr": round(self.plain_stderr, 6)}


_MASK = (1 << 64) - 1
_ROLL_OF_DICE = np.array([[_roll_index((a, b)) for b in range(1, 7)] for a in range(1, 7)])
_CHUNK = 64  # games of one start played together (one evaluator call a turn for them all)
MAX_TURNS = 10_000


def _mix(z: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """splitmix64's finaliser, elementwise (wrapping)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def dice_stream(seed: int, games: npt.ArrayLike, turn: int) -> npt.NDArray[np.int64]:
    """The roll (index into ROLLS) of turn ``turn`` of each game of a rollout: a hash of the
    seed, the game's number and the turn, so that any split of the games gives the same."""
    with np.errstate(over="ignore"):
        key = _mix(np.uint64(seed & _MASK) + np.uint64(0x9E3779B97F4A7C15)
                   * (np.asarray(games, dtype=np.uint64) + np.uint64(1)))
        z = _mix(key ^ (np.uint64(turn) * np.uint64(0xD1B54A32D192ED03) + np.uint64(1)))
    first = ((z >> np.uint64(32)) % np.uint64(6)).astype(np.int64)
    second = ((z & np.uint64(0xFFFFFFFF)) % np.uint64(6)).astype(np.int64)
    return _ROLL_OF_DICE[first, second]


class _Plan(NamedTuple):
    rules: Rules
    network: Evaluator
    plies: int
    truncate: Optional[int]
    seed: int
    stop: threading.Event


def _first_best(values: npt.NDArray[np.float64], starts: npt.NDArray[np.int64]
                ) -> npt.NDArray[np.int64]:
    """The index of the first highest value of each group (T2 order breaks ties)."""
    sizes = np.diff(np.append(starts, len(values)))
    best = np.maximum.reduceat(values, starts)
    hits = np.flatnonzero(values == np.repeat(best, sizes))
    group = np.searchsorted(starts, hits, side="right") - 1
    _, first = np.unique(group, return_index=True)
    out: npt.NDArray[np.int64] = hits[first]
    return out


def _roll_chunk(plan: _Plan, row: npt.NDArray[np.int8], sign: float,
                games: npt.NDArray[np.int64]) -> Tuple[npt.NDArray[np.float64],
                                                       npt.NDArray[np.float64]]:
    """Play games ``games`` from ``row`` (its side to move rolls first); ``sign`` turns that
    side's values into the reporter's. Returns each game's result and the sum of the luck of
    its rolls, both to the reporter."""
    rules, network = plan.rules, plan.network
    rows = np.repeat(row[None], len(games), axis=0)
    signs = np.full(len(games), sign)
    result = np.zeros(len(games))
    lucky = np.zeros(len(games))
    live = np.ones(len(games), dtype=bool)
    for turn in range(MAX_TURNS):
        if plan.stop.is_set():
            raise KeyboardInterrupt
        at = np.flatnonzero(live)
        if not len(at):
            break
        if plan.truncate is not None and turn >= plan.truncate:
            result[at] = signs[at] * expectimax(rules, rows[at], network, 0)
            break
        node = chance_expand(rules, rows[at])
        values = -expectimax(rules, node.children, network, 0)
        starts = node.offsets[:-1]
        best = np.maximum.reduceat(values, starts).reshape(-1, len(ROLLS))
        rolled = dice_stream(plan.seed, games[at], turn)
        index = np.arange(len(at))
        lucky[at] += signs[at] * (best[index, rolled] - best @ PROBABILITY)
        group = 21 * index + rolled
        if plan.plies == 0:
            chosen = _first_best(values, starts)[group]
        else:
            low, high = node.offsets[group], node.offsets[group + 1]
            picked = np.concatenate([np.arange(a, b) for a, b in zip(low, high)])
            deep = -expectimax(rules, node.children[picked], network, plan.plies)
            chosen = picked[_first_best(deep, np.cumsum(np.append(0, high - low))[:-1])]
        rows[at] = node.children[chosen]
        signs[at] = -signs[at]
        over = (rows[at, 25:] == 0).all(axis=1)  # the mover bore off its 15th (L9/S9)
        if over.any():
            ended = at[over]
            result[ended] = signs[ended] * expectimax(rules, rows[ended], network, 0)
            live[ended] = False
    else:
        at = np.flatnonzero(live)
        result[at] = signs[at] * expectimax(rules, rows[at], network, 0)
    return result, lucky


def rollout(position: Position, dice: object = None, games: int = 1296, *,
            evaluator: Optional[Evaluator] = None, plies: int = 0,
            truncate: Optional[int] = None, seed: int = 0, workers: Optional[int] = None,
            progress: Optional[Callable[[int, int], None]] = None) -> List[RolledCandidate]:
    """Roll out ``position`` (or, with ``dice``, every legal turn of that roll, T2 order)
    ``games`` times, the evaluator playing both sides at ``plies`` (0 or 1), games cut
    after ``truncate`` turns and valued by the evaluator; see the module docstring.
    ``progress(done, total)`` counts chunks of games."""
    position = _position(position)
    count = checks.number(games, "games", 2, 1 << 31)
    depth = checks.number(plies, "plies", 0, 1)
    if truncate is not None:
        truncate = checks.number(truncate, "truncate", 0)
    seed = checks.number(seed, "seed", 0)
    network = _evaluator(position.rules, evaluator)
    if dice is None:
        turns: List[Optional[Turn]] = [None]
        starts, sign = [position], 1.0
    else:
        legal = position.legal_turns(_kernel.dice_pair(dice))
        if not legal:
            raise IllegalTurnError("T4", "the game is over: there is no legal turn")
        turns, starts, sign = list(legal), [t.position for t in legal], -1.0
    if starts[0].outcome() is not None and dice is None:
        raise IllegalTurnError("T4", "the game is over: there is nothing to roll out")
    plan = _Plan(position.rules, network, depth, truncate, seed, threading.Event())
    rows = encode(starts)
    tasks = [(s, first) for s in range(len(starts)) if starts[s].outcome() is None
             for first in range(0, count, _CHUNK)]
    outcome = np.zeros((len(starts), count))
    lucky = np.zeros((len(starts), count))
    for s, start in enumerate(starts):
        if start.outcome() is not None:  # the turn ended the game: its exact score
            outcome[s] = sign * expectimax(position.rules, rows[s:s + 1], network, 0)[0]

    def run(task: Tuple[int, int]) -> Tuple[int, int, Any]:
        s, first = task
        ids = np.arange(first, min(first + _CHUNK, count))
        return s, first, _roll_chunk(plan, rows[s], sign, ids)

    def keep(done: int, answer: Tuple[int, int, Any]) -> None:
        s, first, (result, luck_sum) = answer
        outcome[s, first:first + len(result)] = result
        lucky[s, first:first + len(result)] = luck_sum
        if progress is not None:
            progress(done, len(tasks))

    if workers is None or workers == 1:
        for done, task in enumerate(tasks, 1):
            keep(done, run(task))
    else:
        pool = ThreadPoolExecutor(checks.number(workers, "workers", 1, 1024))
        try:
            futures = [pool.submit(run, task) for task in tasks]
            for done, future in enumerate(futures, 1):
                keep(done, future.result())
        except BaseException:
            plan.stop.set()
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    reduced = outcome - lucky
    out = []
    for s, turn in enumerate(turns):
        mean, error = float(reduced[s].mean()), float(reduced[s].std(ddof=1) / np.sqrt(count))
        plain, plain_error = float(outcome[s].mean()), float(outcome[s].std(ddof=1)
                                                             / np.sqrt(count))
        out.append(RolledCandidate(turn, mean, error, (mean - 1.96 * error, mean + 1.96 * error),
                                   plain, plain_error, reduced[s], outcome[s]))
    return sorted(out, key=lambda c: -c.mean)
