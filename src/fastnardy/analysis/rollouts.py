"""Rollouts of a position or of every turn of a roll, with variance reduction.

* :func:`rollout`: games played on by the evaluator (0 or 1 ply), each game's result minus
  the luck of every roll in it (gnubg's variance reduction: the luck has mean 0 whatever the
  position, so the mean is unbiased and its noise much smaller), a 95% interval per
  candidate. Game j of every candidate uses dice stream j of the seed (a hash of seed, j and
  the turn), so the result is the same however the games are split over ``workers``.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Tuple

import numpy as np
import numpy.typing as npt

from .. import _kernel, checks
from ..basics import MAX_TURNS, dice, dice_states
from ..batch import PROBABILITY, ROLLS, chance_expand, encode, segment_argmax
from ..errors import IllegalTurnError
from ..search.network import Evaluator
from ..position import Position, Turn
from ..rules import Rules
from ..search.tree import expectimax
from .outputs import evaluator_for, position_arg, roll_index

__all__ = ["RolledCandidate", "MAX_TURNS", "dice_stream", "rollout"]


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


_ROLL_OF_DICE = np.array([[roll_index((a, b)) for b in range(1, 7)] for a in range(1, 7)])
_CHUNK = 64  # games of one start played together (one evaluator call a turn for them all)


def dice_stream(seed: int, games: npt.ArrayLike, turn: int) -> npt.NDArray[np.int64]:
    """The roll (index into ROLLS) of turn ``turn`` of each game of a rollout: game j's dice
    stream of ``seed`` (:func:`fastnardy.basics.dice`, the kernel's, as a game from a given
    position throws it), so that any split of the games gives the same."""
    states = dice_states(seed, games)
    first, second = dice(states, 2 * turn), dice(states, 2 * turn + 1)
    return _ROLL_OF_DICE[first - 1, second - 1]


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
    offsets = np.append(starts, len(values))
    out: npt.NDArray[np.int64] = starts + segment_argmax(values, offsets)
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
    position = position_arg(position)
    count = checks.number(games, "games", 2, 1 << 31)
    depth = checks.number(plies, "plies", 0, 1)
    if truncate is not None:
        truncate = checks.number(truncate, "truncate", 0)
    seed = checks.number(seed, "seed", 0)
    network = evaluator_for(position.rules, evaluator)
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
