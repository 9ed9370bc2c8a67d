"""Rollouts of a position or of every turn of a roll, and of a cube decision, with
variance reduction.

* :func:`rollout`: games played on by the evaluator (0 or 1 ply), each game's result minus
  the luck of every roll in it (gnubg's variance reduction: the luck has mean 0 whatever the
  position, so the mean is unbiased and its noise much smaller), a 95% interval per
  candidate. Game j of every candidate uses dice stream j of the seed (a hash of seed, j and
  the turn), so the result is the same however the games are split over ``workers``.
* :func:`cube_rollout`: the no double and the double, take of a cube decision rolled out
  cubeful (the cube live in every game, the network deciding it at 0 ply), on the same dice
  streams, each game's result less its luck.
"""

from __future__ import annotations

import threading
from concurrent.futures import Executor
from contextlib import closing
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Tuple

import numpy as np
import numpy.typing as npt

from .. import _features, _kernel, checks
from .._utils import executors as _executors
from ..basics import MAX_TURNS, dice, dice_states
from ..batch import PROBABILITY, ROLLS, chance_expand, decode, encode, segment_argmax
from ..errors import FastNardyError, IllegalTurnError
from ..game import scored
from ..search.network import Evaluator
from ..position import Position, Turn
from ..rules import Rules
from ..search.tree import expectimax
from .cube import Cube, choose_cubeful, cube_equities, leaves
from .met import MatchEquityTable
from .outputs import evaluator_for, position_arg, roll_index

__all__ = ["CubeRollout", "RolledCandidate", "MAX_TURNS", "cube_rollout", "dice_stream",
           "rollout"]


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
    position throws it), so that any split of the games gives the same. ``games`` a 1-D
    array of game numbers >= 0."""
    numbers = checks.array(games, "games")
    if numbers.ndim != 1 or numbers.dtype.kind not in "iu" or (numbers < 0).any():
        raise FastNardyError(f"games must be a 1-D array of game numbers >= 0, not "
                             f"{numbers.dtype} {numbers.shape}")
    return _dice_stream(checks.number(seed, "seed", 0), numbers,
                        checks.number(turn, "turn", 0, 1 << 30))


def _dice_stream(seed: int, games: npt.NDArray[Any], turn: int) -> npt.NDArray[np.int64]:
    states = dice_states(seed, games)
    first, second = dice(states, 2 * turn), dice(states, 2 * turn + 1)
    return _ROLL_OF_DICE[first - 1, second - 1]


class _Plan(NamedTuple):
    """What every game of a rollout shares (picklable, for an executor's workers)."""

    rules: Rules
    network: Evaluator
    plies: int
    truncate: Optional[int]
    seed: int
    games: int  # per candidate


# a subtask: the plan, a candidate's row, its sign and index, the first game of each chunk
# it plays, and the token of its call (fastnardy._utils.executors)
_Task = Tuple[_Plan, npt.NDArray[np.int8], float, int, Tuple[int, ...], _executors.Token]
_Chunk = Tuple[int, npt.NDArray[np.float64], npt.NDArray[np.float64]]  # first, results, luck


def _first_best(values: npt.NDArray[np.float64], starts: npt.NDArray[np.int64]
                ) -> npt.NDArray[np.int64]:
    """The index of the first highest value of each group (T2 order breaks ties)."""
    offsets = np.append(starts, len(values))
    out: npt.NDArray[np.int64] = starts + segment_argmax(values, offsets)
    return out


def _rolled(task: _Task) -> Optional[List[_Chunk]]:
    """One subtask: its chunks of games played (None when its call was stopped and it ran
    on another process: nobody reads it)."""
    plan, row, sign, _, firsts, token = task
    with _executors.watching(token, threading.Event) as stop:
        return [(first, *_roll_chunk(plan, row, sign, np.arange(
            first, min(first + _CHUNK, plan.games)), stop)) for first in firsts]
    return None


def _roll_chunk(plan: _Plan, row: npt.NDArray[np.int8], sign: float,
                games: npt.NDArray[np.int64], stop: Optional[_executors.Flag]
                ) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Play games ``games`` from ``row`` (its side to move rolls first); ``sign`` turns that
    side's values into the reporter's. Returns each game's result and the sum of the luck of
    its rolls, both to the reporter. KeyboardInterrupt at the next turn once ``stop`` is
    set."""
    rules, network = plan.rules, plan.network
    rows = np.repeat(row[None], len(games), axis=0)
    signs = np.full(len(games), sign)
    result = np.zeros(len(games))
    lucky = np.zeros(len(games))
    live = np.ones(len(games), dtype=bool)
    for turn in range(MAX_TURNS):
        if stop is not None and stop.is_set():
            raise KeyboardInterrupt("the rollout was stopped")
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
        rolled = _dice_stream(plan.seed, games[at], turn)
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
            executor: Optional[Executor] = None,
            progress: Optional[Callable[[int, int], None]] = None) -> List[RolledCandidate]:
    """Roll out ``position`` (or, with ``dice``, every legal turn of that roll, T2 order)
    ``games`` times, the evaluator playing both sides at ``plies`` (0 or 1), games cut
    after ``truncate`` turns and valued by the evaluator; see the module docstring. The
    games are played here, on ``workers`` threads or on ``executor`` (a process pool, a Dask
    ``distributed.Client`` or its ``get_executor()``; never shut down here), with the same
    result. ``progress(done, total)`` counts chunks of 64 games. Ctrl-C (any exception)
    stops every piece, on the workers too (:mod:`fastnardy._utils.executors`)."""
    position = position_arg(position)
    count = checks.number(games, "games", 2, 1 << 31)
    depth = checks.number(plies, "plies", 0, 1)
    if truncate is not None:
        truncate = checks.number(truncate, "truncate", 0)
    seed = checks.number(seed, "seed", 0)
    threads = checks.workers(workers, executor, checks.MAX_THREADS)
    pool = None if executor is None else checks.as_executor(executor)  # a Client's executor
    checks.callback(progress)
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
    plan = _Plan(position.rules, network, depth, truncate, seed, count)
    rows = encode(starts)
    outcome = np.zeros((len(starts), count))
    lucky = np.zeros((len(starts), count))
    for s, start in enumerate(starts):
        if start.outcome() is not None:  # the turn ended the game: its exact score
            outcome[s] = sign * expectimax(position.rules, rows[s:s + 1], network, 0)[0]
    firsts = range(0, count, _CHUNK)
    live = [s for s, start in enumerate(starts) if start.outcome() is None]
    # an executor's subtask plays several chunks (about 64 subtasks in all: each carries the
    # network to its worker), a thread's one
    per = 1 if pool is None else -(-len(live) * len(firsts) // 64)
    call = _executors.Call(threading.Event)
    tasks = [(plan, rows[s], sign, s, tuple(firsts[i:i + per]), call.token)
             for s in live for i in range(0, len(firsts), per)]
    done = 0
    with closing(_executors.completed(call, _rolled, tasks, pool, threads)) as results:
        for i, chunks in results:
            s = tasks[i][3]
            for first, result, luck_sum in chunks:
                outcome[s, first:first + len(result)] = result
                lucky[s, first:first + len(result)] = luck_sum
            done += len(chunks)
            if progress is not None:
                progress(done, len(live) * len(firsts))
    reduced = outcome - lucky
    out = []
    for s, turn in enumerate(turns):
        mean, error = float(reduced[s].mean()), float(reduced[s].std(ddof=1) / np.sqrt(count))
        plain, plain_error = float(outcome[s].mean()), float(outcome[s].std(ddof=1)
                                                             / np.sqrt(count))
        out.append(RolledCandidate(turn, mean, error, (mean - 1.96 * error, mean + 1.96 * error),
                                   plain, plain_error, reduced[s], outcome[s]))
    return sorted(out, key=lambda c: -c.mean)


class CubeRollout(NamedTuple):
    """:func:`cube_rollout`'s answer, in normalised equity to the side to move (cubeful,
    in stakes): ``no_double`` and ``double_take`` rolled out (each a
    :class:`RolledCandidate` of the position, ``turn`` None), ``double_pass`` (the stake it
    cashes: 1), the proper ``action`` by the rolled-out equities (GNU Backgammon's words)
    and the ``cube`` rolled out from."""

    no_double: RolledCandidate
    double_take: RolledCandidate
    double_pass: float
    action: str
    cube: Cube

    def as_dict(self) -> Dict[str, Any]:
        return {"no_double": self.no_double.as_dict(),
                "double_take": self.double_take.as_dict(),
                "double_pass": round(self.double_pass, 6), "action": self.action}


def _cube_games(rules: Rules, network: Evaluator, row: npt.NDArray[np.int8], start: Cube,
                met: Optional[MatchEquityTable], seed: int, games: npt.NDArray[np.int64]
                ) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Play ``games`` from ``row`` under the cube ``start`` (the side to move's view, which
    throws first and may not offer on that throw) with the cube live: before each later
    throw the side to move offers when the network's cube decision makes doubling proper
    and the cube can gain, the other takes when taking is no worse for it, each turn chosen
    knowing the cube (:func:`fastnardy.analysis.cube.choose_cubeful`). Returns each game's
    result (the points won times the stake, or in a match the match-winning chance after it)
    and its luck (each roll's, cubeless at 0 ply, times the stake then in play over the
    first), both to the first mover."""
    count = len(games)
    rows = np.repeat(row[None], count, axis=0)
    mine = np.ones(count, dtype=bool)  # the side to move is the first mover
    value = np.full(count, start.value)
    owner = np.zeros(count, dtype=np.int8)  # +1 the first mover holds the cube, -1 the other
    owner[:] = {"centered": 0, "mover": 1, "opponent": -1}[start.owner]
    points = np.zeros(count)  # to the first mover, times the stake
    lucky = np.zeros(count)
    live = np.ones(count, dtype=bool)

    def cube_of(i: int) -> Cube:
        held = owner[i] if mine[i] else -owner[i]
        return start._replace(value=int(value[i]), owner=("centered", "mover", "opponent")[
            held], score=start.score if mine[i] else start.score[::-1])

    for turn in range(MAX_TURNS):
        at = np.flatnonzero(live)
        if not len(at):
            break
        sign = np.where(mine[at], 1.0, -1.0)
        if turn:  # the offers (C2), the side to move's, then the other's answer
            cubes = [cube_of(int(i)) for i in at]
            may = np.array([c.may_offer for c in cubes])
            if may.any():
                asked = np.flatnonzero(may)
                outputs, x, _ = leaves(rules, network, rows[at[asked]])
                seen = cube_equities(outputs, x, [cubes[k] for k in asked], met)
                doubled = asked[(seen[:, 1] >= seen[:, 0]) & (seen[:, 2] >= seen[:, 0])]
                takes = (seen[:, 1] <= seen[:, 2])[np.isin(asked, doubled)]
                for k, taken in zip(doubled, takes):
                    i = at[k]
                    if taken:
                        value[i], owner[i] = cubes[k].raised(), -1 if mine[i] else 1
                    else:  # dropped: the offer's side wins the stake as it stood
                        points[i], live[i] = sign[k] * value[i], False
                at, sign = at[live[at]], sign[live[at]]
                if not len(at):
                    break
        node = chance_expand(rules, rows[at])
        values = -expectimax(rules, node.children, network, 0)
        best = np.maximum.reduceat(values, node.offsets[:-1]).reshape(-1, len(ROLLS))
        rolled = _dice_stream(seed, games[at], turn)
        index = np.arange(len(at))
        lucky[at] += sign * value[at] / start.value * (best[index, rolled] - best @ PROBABILITY)
        cubes = [cube_of(int(i)) for i in at]
        rows[at] = choose_cubeful(rules, network, rows[at], ROLLS[rolled], cubes, met)
        mine[at] = ~mine[at]
        over = _features.winners(np.ascontiguousarray(rows[at])) != 0
        for k in np.flatnonzero(over):
            i = at[k]
            position = decode(rules, rows[i:i + 1])[0]
            outcome = scored(position, int(value[i]), not start.length)
            assert outcome is not None
            points[i] = sign[k] * outcome.points  # the side that just moved won
            live[i] = False
    # a game past MAX_TURNS: the cubeless value at its stake
    at = np.flatnonzero(live)
    if len(at):
        points[at] = np.where(mine[at], 1.0, -1.0) * value[at] * expectimax(
            rules, rows[at], network, 0)
    return points, lucky


def cube_rollout(position: Position, cube: Optional[Cube] = None, games: int = 1296, *,
                 evaluator: Optional[Evaluator] = None, seed: int = 0,
                 met: Optional[MatchEquityTable] = None) -> CubeRollout:
    """Roll out the side to move's cube decision in ``position`` (C1, C2): its no double
    (the cube as it stands) and its double, take (the cube raised, the other holding it),
    ``games`` games each on the same dice streams (game j throws stream j of ``seed``), the
    network playing both sides at 0 ply with the cube live (offers, answers and turns as
    ``fastnardy match`` plays them); each game's result less its luck (the variance
    reduction of :func:`rollout`), in normalised equity. ``met`` is the match's table (the
    game's own unless given)."""
    from .cube import _action, _after, _equity, _met_for  # the model's own, not copies

    position = position_arg(position)
    if position.outcome() is not None:
        raise IllegalTurnError("T4", "the game is over: there is no cube decision")
    rules = position.rules
    start = Cube.money(rules) if cube is None else Cube.of(cube)
    if not start.may_offer:
        raise FastNardyError("the side to move may not offer here (C2, C6, C7): there is no "
                             "cube decision to roll out")
    count = checks.number(games, "games", 2, 1 << 24)
    seed = checks.number(seed, "seed", 0)
    network = evaluator_for(rules, evaluator)
    table = _met_for(start, met, rules.game)
    row = encode([position])[0]
    ids = np.arange(count)
    lines = []
    for state in (start, start.taken()):
        won, luck_sum = _cube_games(rules, network, row, state, table, seed, ids)
        if table is None:  # money: the points per the stake of the cube decided on
            plain = won / start.value
        else:  # a match: the match-winning chance after the game, normalised
            plain = np.array([_equity(_after(table, start, max(p, 0), max(-p, 0)), start,
                                      table) for p in won.astype(int)])
        reduced = plain - luck_sum / start.value  # the luck has mean 0: still unbiased
        mean, error = float(reduced.mean()), float(reduced.std(ddof=1) / np.sqrt(count))
        lines.append(RolledCandidate(None, mean, error, (mean - 1.96 * error,
                                                         mean + 1.96 * error),
                                     float(plain.mean()),
                                     float(plain.std(ddof=1) / np.sqrt(count)), reduced,
                                     plain))
    no_double, double_take = lines
    action = _action(start, no_double.mean, double_take.mean, 1.0, True)
    return CubeRollout(no_double, double_take, 1.0, action, start)
