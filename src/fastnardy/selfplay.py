"""Fast self-play: many games from the start, played inside the kernel, results as numpy
arrays.

Each game begins with the T6 opening and ends when a side bears off its 15th checker (L9,
S9); it is scored by L10/S9 with the cube at 1. At every turn the side's policy picks one of
the legal turns in T2 order:

* ``"random"``: uniformly at random;
* ``"greedy"``: the greedy policy of ``fastnardy play`` (:func:`fastnardy.play.evaluate`
  defines its score), compiled: the first turn in T2 order whose result scores highest
  from the mover's view.

Game ``i`` of a run draws its dice and choices from its own stream (splitmix64 of ``seed``
and ``i``), so a run gives the same results on any machine, whether it runs serially, on
``workers`` threads (the kernel runs without the GIL) or on an ``executor`` (a process pool,
or a Dask cluster through ``distributed.Client.get_executor()``), which is never shut down
here. A game still going after ``max_turns`` turns (both sides can be forced to pass turn
after turn in short nardy) is reported as unfinished.
"""

from __future__ import annotations

from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Dict, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

from . import _kernel, checks
from .errors import FastNardyError
from .rules import Rules

__all__ = ["KINDS", "POLICIES", "Simulation", "simulate"]

POLICIES = ("random", "greedy")
KINDS = ("oin", "mars", "koks", "backgammon", "unfinished")  # the codes of Simulation.kind
_CHUNK = 2000  # games per subtask


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


PolicyArg = Union[str, Sequence[str]]


def simulate(rules: object, n_games: int, seed: int = 0, policy: PolicyArg = "random", *,
             workers: Optional[int] = None, executor: Optional[Executor] = None,
             max_turns: int = 10_000) -> Simulation:
    """Play ``n_games`` games of ``rules`` from the start; ``policy`` is one of ``POLICIES``
    for both sides, or a pair (white's, black's). See the module docstring."""
    rules = Rules.of(rules)
    codes = _policy_codes(policy)
    n_games = checks.number(n_games, "n_games", 0, (1 << 31) - 1)
    seed = checks.number(seed, "seed", 0)
    max_turns = checks.number(max_turns, "max_turns", 1, 1 << 30)
    task = _Task(rules.code, rules.scoring == "oin_mars_koks", bool(rules.backgammon),
                 int(seed), codes, int(max_turns))
    chunks = [(first, min(_CHUNK, int(n_games) - first)) for first in range(0, int(n_games), _CHUNK)]
    if workers is None and executor is None:
        parts = [_play(task, first, count) for first, count in chunks]
    else:
        workers = checks.workers(workers, executor)
        pool = executor if executor is not None else ThreadPoolExecutor(workers)
        try:
            futures = [pool.submit(_play, task, first, count) for first, count in chunks]
            parts = [future.result() for future in futures]
        finally:
            if executor is None:
                pool.shutdown(wait=True, cancel_futures=True)
    if not parts:
        return Simulation(np.empty(0, np.int8), np.empty(0, np.int8), np.empty(0, np.int8),
                          np.empty(0, np.int32))
    return Simulation(*(np.concatenate(column) for column in zip(*parts)))


def _policy_codes(policy: PolicyArg) -> Tuple[int, int]:
    pair = (policy, policy) if isinstance(policy, str) else policy
    try:
        white, black = pair
    except (TypeError, ValueError):
        raise FastNardyError(f"policy must be one of {POLICIES} or a pair of them, "
                             f"not {policy!r}") from None
    for name in (white, black):
        if not isinstance(name, str) or name not in POLICIES:
            raise FastNardyError(f"policy must be one of {POLICIES} or a pair of them, "
                                 f"not {policy!r}")
    return POLICIES.index(white), POLICIES.index(black)


class _Task(NamedTuple):
    """What every subtask of a run shares (picklable)."""

    code: Tuple[int, int, int, int, int]
    koks: bool
    backgammon: bool
    seed: int
    policy: Tuple[int, int]
    max_turns: int


Columns = Tuple[npt.NDArray[np.int8], npt.NDArray[np.int8], npt.NDArray[np.int8],
                npt.NDArray[np.int32]]


def _play(task: _Task, first: int, count: int) -> Columns:
    """A subtask: games first .. first + count - 1 of the run."""
    result: Columns = _kernel.simulate_games(task.code, task.koks, task.backgammon, task.seed,
                                            first, count, task.policy, task.max_turns)
    return result
