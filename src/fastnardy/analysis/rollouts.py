"""Rollouts of a position or of every turn of a roll, and of a cube decision, with
variance reduction.

* :func:`rollout`: games played on by the player of a network's setting (``net:0`` by
  default; the same turns as that player's at every door) until they end or reach the
  network's two-sided bear-off database (its exact value), each game's result minus the
  luck of every roll in it (gnubg's variance reduction, :func:`fastnardy.analysis.review.roll_luck`
  at 0 ply: the luck has mean 0 whatever the position, so the mean is unbiased and its
  noise much smaller), a 95% interval per candidate. Game j of every candidate uses dice stream j of the seed (a hash of seed, j and
  the turn), so the result is the same however the games are split over ``workers``.
* :func:`cube_rollout`: the no double and the double, take of a cube decision rolled out
  cubeful (the cube live in every game, the setting's player deciding it and its turns), on
  the same dice streams, each game's result less its luck.
"""

from __future__ import annotations

import threading
from concurrent.futures import Executor
from contextlib import closing
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

from .. import _kernel, checks
from .._utils import executors as _executors
from ..basics import MAX_GAME_TURNS, dice, dice_states
from ..batch import ROLL_OF_DICE, ROLLS, decode, encode, scores
from ..errors import FastNardyError, IllegalTurnError
from ..game import scored
from ..position import Position, Turn
from ..rules import Rules
from ..search.cubeful import Cube, action_of, mwc_after, normalised
from ..search.setting import Setting, setting as as_setting
from ..play.games import play
from ..play.players import Player, player
from .review import roll_luck

__all__ = ["CubeRollout", "RolledCandidate", "cube_rollout", "dice_stream", "rollout"]


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
    return ROLL_OF_DICE[first - 1, second - 1]


class _Plan(NamedTuple):
    """What every game of a rollout shares (picklable, for an executor's workers)."""

    rules: Rules
    setting: Setting  # a network's, its Evaluator given (it travels to the workers)
    truncate: Optional[int]
    seed: int
    games: int  # per candidate


# a subtask: the plan, a candidate's row, its sign and index, the first game of each chunk
# it plays, and the token of its call (fastnardy._utils.executors)
_Task = Tuple[_Plan, npt.NDArray[np.int8], float, int, Tuple[int, ...], _executors.Token]
_Chunk = Tuple[int, npt.NDArray[np.float64], npt.NDArray[np.float64]]  # first, results, luck


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
    """Play games ``games`` from ``row`` (its side to move rolls first; the one loop of
    :func:`fastnardy.play.games.play`); ``sign`` turns that side's values into the
    reporter's. Returns each game's result (a game cut or still going valued by the network
    at 0 ply; one that reaches the network's bear-off database, its exact value there) and
    the sum of the luck of its rolls, both to the reporter. KeyboardInterrupt
    at the next turn once ``stop`` is set."""
    rules = plan.rules
    search = plan.setting.replace(plies=0).search(rules)  # the luck's: gnubg's, at 0 ply
    lucky = np.zeros(len(games))

    def roll(turn: int, at: npt.NDArray[np.int64]) -> npt.NDArray[np.int8]:
        if stop is not None and stop.is_set():
            raise KeyboardInterrupt("the rollout was stopped")
        rolled: npt.NDArray[np.int8] = ROLLS[_dice_stream(plan.seed, games[at], turn)]
        return rolled

    def watch(turn: int, at: npt.NDArray[np.int64], rows: npt.NDArray[np.int8],
              dice: npt.NDArray[np.int8]) -> None:
        luck = roll_luck(search, rows, ROLL_OF_DICE[dice[:, 0] - 1, dice[:, 1] - 1])[0]
        lucky[at] += (sign if turn % 2 == 0 else -sign) * luck

    with player(plan.setting, rules) as bot:
        done = play(rules, np.repeat(row[None], len(games), axis=0),
                    np.ones(len(games), dtype=bool), (bot, bot), roll,
                    turns=MAX_GAME_TURNS if plan.truncate is None else plan.truncate,
                    watch=watch, settle=plan.setting.network(rules).bearoff)
    result = sign * done.points
    cut = done.turns == 0  # cut, or still going after MAX_GAME_TURNS: the network's value
    if cut.any():
        values = search.values(done.rows[cut], 0)
        result[cut] = sign * np.where(done.first[cut], values, -values)
    return result, lucky


def rollout(position: Position, dice: object = None, games: int = 1296, *,
            setting: Union[Setting, str, None] = None, truncate: Optional[int] = None,
            seed: int = 0, workers: Optional[int] = None, executor: Optional[Executor] = None,
            progress: Optional[Callable[[int, int], None]] = None) -> List[RolledCandidate]:
    """Roll out ``position`` (or, with ``dice``, every legal turn of that roll, T2 order)
    ``games`` times, the player of a network's ``setting`` (``net:0`` by default) playing
    both sides, games cut after ``truncate`` turns and valued by the network at 0 ply; see
    the module docstring. The
    games are played here, on ``workers`` threads or on ``executor`` (a process pool, a Dask
    ``distributed.Client`` or its ``get_executor()``; never shut down here), with the same
    result. ``progress(done, total)`` counts chunks of 64 games. Ctrl-C (any exception)
    stops every piece, on the workers too (:mod:`fastnardy._utils.executors`)."""
    position = checks.position(position, Position)
    count = checks.number(games, "games", 2, 1 << 31)
    chosen = as_setting(setting)
    chosen = chosen.replace(evaluator=chosen.network(position.rules))  # to every worker
    if truncate is not None:
        truncate = checks.number(truncate, "truncate", 0)
    seed = checks.number(seed, "seed", 0)
    threads = checks.workers(workers, executor, checks.MAX_THREADS)
    pool = None if executor is None else checks.as_executor(executor)  # a Client's executor
    checks.callback(progress)
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
    plan = _Plan(position.rules, chosen, truncate, seed, count)
    rows = encode(starts)
    outcome = np.zeros((len(starts), count))
    lucky = np.zeros((len(starts), count))
    ended = scores(position.rules, rows)
    for s, start in enumerate(starts):
        if not np.isnan(ended[s]):  # the turn ended the game: its exact score
            outcome[s] = sign * ended[s]
    firsts = range(0, count, _CHUNK)
    live = [s for s in range(len(starts)) if np.isnan(ended[s])]
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


def _cube_games(rules: Rules, bot: Player, row: npt.NDArray[np.int8], start: Cube,
                seed: int, games: npt.NDArray[np.int64]
                ) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Play ``games`` from ``row`` under the cube ``start`` (the side to move's view, which
    throws first and may not offer on that throw) with the cube live: before each later
    throw the side to move offers when ``bot``'s cube decision makes doubling proper and the
    cube can gain, the other takes when taking is no worse for it, each turn ``bot``'s with
    the cube in play (:class:`fastnardy.play.players.Player`); in money play a game that
    reaches ``bot``'s bear-off database ends there at its exact value. Returns each game's
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
    luck_search = bot.setting.replace(plies=0).search(rules)  # gnubg's luck: at 0 ply

    def cube_of(i: int) -> Cube:
        held = owner[i] if mine[i] else -owner[i]
        return start._replace(value=int(value[i]), owner=("centered", "mover", "opponent")[
            held], score=start.score if mine[i] else start.score[::-1])

    # money play of geometric stakes: a game ends at the bear-off database, its exact value
    database = (bot.setting.network(rules).bearoff
                if not start.length and start.stakes == "geometric" else None)
    for turn in range(MAX_GAME_TURNS):
        at = np.flatnonzero(live)
        if database is not None and len(at):
            covered, _, equities = database.lookup(rows[at])
            if len(equities):
                for i, seen in zip(at[covered], equities):
                    points[i] = (1.0 if mine[i] else -1.0) * value[i] * _settled(
                        cube_of(int(i)), seen, turn > 0)
                    live[i] = False
                at = np.flatnonzero(live)
        if not len(at):
            break
        sign = np.where(mine[at], 1.0, -1.0)
        if turn:  # the offers (C2), the side to move's, then the other's answer
            cubes = [cube_of(int(i)) for i in at]
            may = np.array([c.may_offer for c in cubes])
            if may.any():
                asked = np.flatnonzero(may)
                seen = bot.cube_equities(rules, rows[at[asked]], [cubes[k] for k in asked])
                assert seen is not None  # a network's player
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
        rolled = _dice_stream(seed, games[at], turn)
        luck = roll_luck(luck_search, rows[at], rolled)[0]
        lucky[at] += sign * value[at] / start.value * luck
        cubes = [cube_of(int(i)) for i in at]
        rows[at] = bot.choose(rules, rows[at], ROLLS[rolled], cubes)
        mine[at] = ~mine[at]
        over = ~np.isnan(scores(rules, rows[at]))
        for k in np.flatnonzero(over):
            i = at[k]
            position = decode(rules, rows[i:i + 1])[0]
            outcome = scored(position, int(value[i]), not start.length)  # C4, C8
            assert outcome is not None
            points[i] = sign[k] * outcome.points  # the side that just moved won
            live[i] = False
    # a game past MAX_GAME_TURNS: the cubeless value at its stake
    at = np.flatnonzero(live)
    if len(at):
        points[at] = np.where(mine[at], 1.0, -1.0) * value[at] * luck_search.values(rows[at],
                                                                                     0)
    return points, lucky


def _settled(cube: Cube, equities: npt.NDArray[np.float64], offers: bool) -> float:
    """The database's money equity (per stake) of the side to move under ``cube``, with its
    cube action when it ``offers`` (the module docstring of fastnardy.search.bearoff)."""
    if cube.owner == "opponent":
        return float(equities[2])
    no_double = float(equities[0 if cube.owner == "centered" else 1])
    if not offers or not cube.may_offer:
        return no_double
    return max(no_double, min(2.0 * float(equities[2]), 1.0))


def cube_rollout(position: Position, cube: Optional[Cube] = None, games: int = 1296, *,
                 setting: Union[Setting, str, None] = None, seed: int = 0) -> CubeRollout:
    """Roll out the side to move's cube decision in ``position`` under the cube context
    ``cube`` (money play with the rules' centred cube by default; C1, C2): its no double
    (the cube as it stands) and its double, take (the cube raised, the other holding it),
    ``games`` games each on the same dice streams (game j throws stream j of ``seed``), the
    player of a network's ``setting`` (``net:0`` by default) playing both sides with the
    cube live (offers, answers and turns as ``fastnardy match`` plays them); each game's
    result less its luck (the variance reduction of :func:`rollout`), in normalised
    equity."""
    position = checks.position(position, Position)
    if position.outcome() is not None:
        raise IllegalTurnError("T4", "the game is over: there is no cube decision")
    rules = position.rules
    start = Cube.of(cube, rules)
    if not start.may_offer:
        raise FastNardyError("the side to move may not offer here (C2, C6, C7): there is no "
                             "cube decision to roll out")
    count = checks.number(games, "games", 2, 1 << 24)
    seed = checks.number(seed, "seed", 0)
    chosen = as_setting(setting)
    chosen.network(rules)  # a network's setting
    table = start.table(rules.game)
    row = encode([position])[0]
    ids = np.arange(count)
    lines = []
    with player(chosen, rules) as bot:
        for state in (start, start.taken()):
            won, luck_sum = _cube_games(rules, bot, row, state, seed, ids)
            if table is None:  # money: the points per the stake of the cube decided on
                plain = won / start.value
            else:  # a match: the match-winning chance after the game, normalised
                plain = np.array([normalised(mwc_after(table, start, max(p, 0), max(-p, 0)),
                                             start, table) for p in won.astype(int)])
            reduced = plain - luck_sum / start.value  # the luck has mean 0: still unbiased
            mean, error = float(reduced.mean()), float(reduced.std(ddof=1) / np.sqrt(count))
            lines.append(RolledCandidate(None, mean, error, (mean - 1.96 * error,
                                                             mean + 1.96 * error),
                                         float(plain.mean()),
                                         float(plain.std(ddof=1) / np.sqrt(count)), reduced,
                                         plain))
    no_double, double_take = lines
    action = action_of(start, no_double.mean, double_take.mean, 1.0, True)
    return CubeRollout(no_double, double_take, 1.0, action, start)
