"""Fast self-play and playouts: many games played inside the kernel, from the start or from
given positions, results as numpy arrays.

A game from the start begins with the T6 opening; a game from a given position begins with
its side to move rolling. It ends when a side bears off its 15th checker (L9, S9) and is
scored by L10/S9 with the cube at 1. At every turn the side's policy picks one of the legal
turns in T2 order:

* ``"random"``: uniformly at random;
* ``"greedy"``: the greedy policy (:func:`fastnardy.play.players.greedy_scores` defines its
  score), compiled: the first turn in T2 order whose result scores highest from the
  mover's view;
* a **network's setting** of 0 ply (:class:`fastnardy.search.setting.Setting` or its text,
  as every door reads it: ``"net"``, the game's shipped network in the game's precision,
  int16 in short nardy; ``"net:float"``, ``"FILE.npz"`` …): its network, as an evaluator;
* an **evaluator** (:mod:`fastnardy.search`'s protocol: a callable on a numpy batch, its
  ``inputs`` attribute saying rows, keys or features): the turn whose child has the highest
  value ``-evaluate(child)`` for the mover, a child that ends the game valued exactly by
  L10/S9 and never evaluated; ties go to the first in T2 order. A trained network
  (:class:`fastnardy.search.network.Evaluator`, shipped or saved) is played inside the kernel,
  its compiled inference called on every child without a return to Python. Any other
  evaluator: the kernel plays the games of a chunk (2,000) until each waits for such a
  choice, hands the children of all waiting games to the evaluator in ONE call, plays the
  best of each, and so on: one evaluator call per turn-step of a chunk. A forced turn (a
  pass or a single legal turn) is played without asking.

Game ``i`` of a run throws its dice from stream ``i`` of ``seed``
(:class:`fastnardy.basics.DiceStream`: the dice :class:`fastnardy.Game` throws with that seed
for ``i = 0``, and a playout's game ``i``) and the random policy chooses from a stream apart,
so the dice do not depend on the turns chosen (common random numbers) and a run gives the
same results on any machine, whether it runs serially, on
``workers`` threads (the kernel runs without the GIL) or on an ``executor`` (a process pool,
or a Dask cluster: a ``distributed.Client`` or its ``get_executor()``), which is never shut down
here (an evaluator must then be picklable; its values must not depend on the other rows of
its batch for the results to be split-proof). A game still going after ``max_turns`` turns
(both sides can be forced to pass turn after turn in short nardy) is reported as unfinished.
Ctrl-C (or any exception) stops a run at once, every chunk with it: those on threads and on a
Dask cluster watch the run's :class:`fastnardy._kernel.Stop`, a process pool's workers are
terminated.

:func:`playouts` plays a position out ``n`` times and gives the mean equity and its standard
error; with ``dice`` it plays out every legal turn of that roll on the same ``n`` dice
streams (common random numbers). In contact positions the candidates' games soon diverge
and their results correlate only weakly (0.06-0.11), so a difference between candidates is
about as noisy as two means: :func:`fastnardy.analysis.rollouts.rollout` narrows the intervals by
variance reduction (each roll's luck subtracted) instead.
"""

from __future__ import annotations

from collections import deque
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import (Any, Callable, Deque, Dict, List, NamedTuple, Optional, Sequence, Tuple,
                    Union)

import numpy as np
import numpy.typing as npt

from .._utils import executors as _executors
from .. import _kernel, checks
from ..basics import BLACK, MAX_GAME_TURNS, WHITE
from ..batch import encode, keys_from_rows, rows_from_keys
from ..errors import FastNardyError, IllegalTurnError, InvalidPositionError
from ..position import Position, Turn
from ..rules import Rules
from .setting import POLICIES, Setting, setting
from .tree import Search

__all__ = ["KINDS", "Playouts", "Simulation", "playouts", "simulate"]

KINDS = ("oin", "mars", "koks", "backgammon", "unfinished")  # the codes of Simulation.kind
_CHUNK = 2000  # games per subtask
_IN_FLIGHT = 64  # subtasks submitted and not yet read: a run of any length holds few


class Simulation(NamedTuple):
    """The results of ``simulate``, one entry per game: ``winner`` int8 (0 white, 1 black,
    -1 unfinished), ``points`` int8 (the points won), ``kind`` int8 (an index into
    ``KINDS``) and ``turns`` int32 (turns played, passes included)."""

    winner: npt.NDArray[np.int8]
    points: npt.NDArray[np.int8]
    kind: npt.NDArray[np.int8]
    turns: npt.NDArray[np.int32]

    def summary(self) -> Dict[str, float]:
        """Mean game length, white's share of the wins, mean points and each kind's share
        of the games."""
        games = len(self.winner)
        if not games:
            return {"games": 0}
        out: Dict[str, float] = {
            "games": games,
            "mean turns": float(self.turns.mean()),
            "white wins": float((self.winner == 0).mean()),
            "mean points": float(self.points.mean()),
        }
        for code, name in enumerate(KINDS):
            out[name] = float((self.kind == code).mean())
        return out


Policy = Union[str, Callable[[npt.NDArray[Any]], npt.ArrayLike]]
PolicyArg = Union[Policy, Sequence[Policy]]
Start = Union[Position, Sequence[Position], npt.ArrayLike, None]


def simulate(rules: object, n_games: int, seed: int = 0, policy: PolicyArg = "random", *,
             start: Start = None, turn: object = WHITE, workers: Optional[int] = None,
             executor: Optional[Executor] = None, max_turns: int = MAX_GAME_TURNS) -> Simulation:
    """Play ``n_games`` games of ``rules``; ``policy`` is a setting of 0 ply (``"random"``,
    ``"greedy"``, ``"net"`` …) or an evaluator for both sides, or a pair (white's, black's).
    ``start``: None (the start, T6 opening), a Position or a list of them, or board rows
    (N, 50) / KEY_DTYPE keys with ``turn`` the side to move ("white", "black", or an array
    of N 0 (white) / 1 (black)); game i starts from the (i mod N)-th. See the module
    docstring."""
    rules = Rules.of(rules)
    codes, evaluators = _policies(rules, policy)
    n_games = checks.number(n_games, "n_games", 0, (1 << 31) - 1)
    seed = checks.number(seed, "seed", 0)
    max_turns = checks.number(max_turns, "max_turns", 1, 1 << 30)
    origin = None if start is None else _origin(rules, start, turn)
    if origin is not None and not len(origin[0]):
        raise InvalidPositionError("start holds no position")
    task = _Task(rules.code, *rules.kernel_scoring(), int(seed), codes, int(max_turns), origin,
                 evaluators)
    chunks = [(first, min(_CHUNK, int(n_games) - first)) for first in range(0, int(n_games), _CHUNK)]
    if workers is None and executor is None:
        parts = [_columns(_play(task, first, count)) for first, count in chunks]
    else:
        workers = checks.workers(workers, executor)
        pool = checks.as_executor(executor) if executor is not None else ThreadPoolExecutor(workers)
        futures: Deque["Future[Any]"] = deque()  # in flight, oldest first
        parts = []
        call = _executors.Call(_kernel.Stop)
        task = task._replace(token=call.token)
        try:
            for first, count in chunks:
                if len(futures) == _IN_FLIGHT:
                    parts.append(_columns(futures.popleft().result()))
                futures.append(pool.submit(_play, task, first, count))
            while futures:
                parts.append(_columns(futures.popleft().result()))
        except BaseException:  # Ctrl-C: every chunk stopped (see the module docstring)
            call.halt(pool, futures)
            raise
        finally:
            call.close()
            if executor is None:  # stopped chunks end within milliseconds: not awaited
                pool.shutdown(wait=not call.stop.is_set(), cancel_futures=True)
    if not parts:
        return Simulation(np.empty(0, np.int8), np.empty(0, np.int8), np.empty(0, np.int8),
                          np.empty(0, np.int32))
    return Simulation(*(np.concatenate(column) for column in zip(*parts)))


def _policies(rules: Rules, policy: object) -> Tuple[Tuple[int, int],
                                                     Tuple[Optional[Search], Optional[Search]]]:
    """The kernel's codes (0 random, 1 greedy, 2 an evaluator called from Python, 3 a
    network in the kernel) of (white's, black's) policy, and their searches."""
    single = isinstance(policy, (str, Setting)) or callable(policy)
    pair: Any = (policy, policy) if single else policy
    message = (f"policy must be a setting of 0 ply ({', '.join(POLICIES)}, net, FILE.npz "
               f"...), an evaluator, or a pair of them, not {policy!r}")
    try:
        white, black = pair
    except (TypeError, ValueError):
        raise FastNardyError(message) from None
    codes: List[int] = []
    searches: List[Optional[Search]] = []
    for one in (white, black):
        if isinstance(one, (str, Setting)):  # the shipped network in the game's precision
            code, network = setting(one).kernel_policy(rules)
            codes.append(code)
            searches.append(None if network is None else Search(rules, network, None))
        elif callable(one) and not isinstance(one, (str, type)):
            search = Search(rules, one, None)
            codes.append(3 if search.network is not None else 2)
            searches.append(search)
        else:
            raise FastNardyError(message)
    return (codes[0], codes[1]), (searches[0], searches[1])


Origin = Tuple[npt.NDArray[Any], npt.NDArray[np.int8]]


def _origin(rules: Rules, start: object, turn: object) -> Origin:
    """(keys, sides) of the start positions: KEY_DTYPE keys in each mover's frame, 0 white
    or 1 black to move."""
    if isinstance(start, Position):
        start = [start]
    if isinstance(start, (list, tuple)) and all(isinstance(p, Position) for p in start):
        if any(p.rules != rules for p in start):
            raise InvalidPositionError(f"every start position must be of {rules}")
        over = [p for p in start if p.outcome() is not None]
        if over:
            raise InvalidPositionError(f"L9/S9: the game of start position {over[0]} is over")
        sides = np.array([p.turn == BLACK for p in start], dtype=np.int8)
        return encode(start, keys=True), sides
    array = np.asarray(start)
    if array.dtype == _kernel.KEY_DTYPE:
        keys = keys_from_rows(rules, rows_from_keys(rules, array))  # checks the keys
    else:
        keys = keys_from_rows(rules, array)  # checks the rows (InvalidPositionError)
    if isinstance(turn, str):
        side = checks.side(turn)
        sides = np.full(len(keys), side == BLACK, dtype=np.int8)
    else:
        sides = np.asarray(turn)
        if (sides.shape != (len(keys),) or sides.dtype.kind not in "iub"
                or (sides.size and not np.isin(sides, (0, 1)).all())):
            raise FastNardyError(f"turn must be 'white', 'black' or {len(keys)} values of "
                                 f"0 (white) and 1 (black), not {turn!r}")
        sides = sides.astype(np.int8)
    return keys, sides


class _Task(NamedTuple):
    """What every subtask of a run shares (picklable)."""

    code: Tuple[int, int, int, int, int]
    koks: bool
    backgammon: bool
    seed: int
    policy: Tuple[int, int]
    max_turns: int
    origin: Optional[Origin] = None
    searches: Tuple[Optional[Search], Optional[Search]] = (None, None)
    token: Optional[_executors.Token] = None  # the split call's (None: played serially)


Columns = Tuple[npt.NDArray[np.int8], npt.NDArray[np.int8], npt.NDArray[np.int8],
                npt.NDArray[np.int32]]


def _play(task: _Task, first: int, count: int) -> Optional[Columns]:
    """A subtask: games first .. first + count - 1 of the run (None only when the run was
    stopped and this chunk ran on another process)."""
    with _executors.watching(task.token, _kernel.Stop) as stop:
        return _games(task, first, count, stop)
    return None  # stopped on a worker process (executors.watching): nobody reads it


def _columns(part: Optional[Columns]) -> Columns:
    """A chunk's columns (None is a stopped run's chunk on a worker, never this run's)."""
    if part is None:
        raise KeyboardInterrupt("the self-play run was stopped")
    return part


def _games(task: _Task, first: int, count: int, stop: Optional[_kernel.Stop]) -> Columns:
    """Games first .. first + count - 1, the kernel calls watching ``stop``."""
    if task.origin is None and set(task.policy) <= {0, 1}:
        result: Columns = _kernel.simulate_games(task.code, task.koks, task.backgammon,
                                                task.seed, first, count, task.policy,
                                                task.max_turns, stop)
        return result
    white, black = (None if code != 3 or search is None else search.network
                    for code, search in zip(task.policy, task.searches))
    nets = (white, black)
    games = _kernel.GameBatch(task.code, task.koks, task.backgammon, count, task.seed,
                              task.policy, task.max_turns, nets=nets)
    streams = np.arange(first, first + count, dtype=np.int64)
    if task.origin is None:
        games.start(np.arange(count), streams)
    else:
        keys, sides = task.origin
        pick = streams % len(keys)
        games.start(np.arange(count), streams, keys[pick], sides[pick])
    while True:
        children, exact, waiting, offsets = games.prepare(stop)
        if not len(waiting):
            return games.results()
        games.play_values(_values(task, games, children, exact, waiting, offsets))


def _values(task: _Task, games: Any, children: npt.NDArray[Any], exact: npt.NDArray[np.float64],
            waiting: npt.NDArray[np.int64], offsets: npt.NDArray[np.int64]
            ) -> npt.NDArray[np.float64]:
    """The value of every child to the side that chooses: exact for a child that ends the
    game, else minus its evaluator's value (one call per evaluator)."""
    values = exact.copy()
    live = np.isnan(exact)
    movers = np.repeat(games.state()[1][waiting], np.diff(offsets))
    for side, search in enumerate(task.searches):
        if search is None:
            continue
        chosen = live & (movers == side)
        if chosen.any():
            values[chosen] = -search.leaves(rows_from_keys(search.rules, children[chosen]))
    return values


class Playouts(NamedTuple):
    """:func:`playouts`' answer, equity in points to the side to move of the rolled-out
    position (L10/S9, cube at 1; an unfinished game counts 0). Without dice: ``mean`` and
    ``stderr`` are floats, ``equities`` the (n,) equity of each game and ``turns`` empty.
    With dice: one entry per legal turn of the roll (T2 order, ``turns``), ``equities``
    (K, n), game j of every candidate played on the same dice stream."""

    mean: Any
    stderr: Any
    equities: npt.NDArray[np.float64]
    turns: List[Turn]


def playouts(position: Position, n: int, policy: PolicyArg = "greedy", seed: int = 0, *,
             dice: object = None, workers: Optional[int] = None,
             executor: Optional[Executor] = None, max_turns: int = MAX_GAME_TURNS) -> Playouts:
    """Play ``position`` out ``n`` times with ``policy`` (as :func:`simulate`'s); with
    ``dice``, play out the child of every legal turn of that roll (T1, T2 order) on the same
    ``n`` dice streams (common random numbers). Equity is the mean points won by the side to
    move of ``position``; ``stderr`` the standard error of the mean (ddof 1)."""
    position = checks.position(position, Position)
    count = checks.number(n, "n", 1, (1 << 31) - 1)
    if dice is None:
        starts = [position]
        turns: List[Turn] = []
    else:
        turns = list(position.legal_turns(_kernel.dice_pair(dice)))
        if not turns:
            raise IllegalTurnError("T4", "the game is over: there is no legal turn")
        starts = [position.play(turn) for turn in turns]
    me = position.turn
    rows = []
    for start in starts:
        outcome = start.outcome()
        if outcome is not None:  # the turn ended the game: its exact score, every game
            rows.append(np.full(count, float(outcome.points if outcome.winner == me
                                             else -outcome.points)))
            continue
        run = simulate(position.rules, count, seed, policy, start=start, workers=workers,
                       executor=executor, max_turns=max_turns)
        sign = np.where(run.winner == (me == BLACK), 1.0, -1.0)
        rows.append(np.where(run.winner < 0, 0.0, sign * run.points))
    equities = np.array(rows)
    means = equities.mean(axis=1)
    errors = equities.std(axis=1, ddof=1) / np.sqrt(count) if count > 1 else np.zeros(len(rows))
    if dice is None:
        return Playouts(float(means[0]), float(errors[0]), equities[0], turns)
    return Playouts(means, errors, equities, turns)
