"""A vector environment: N games stepped together by the kernel, for reinforcement learning.

Every step, each of the N games waits for its side to move to choose one of its legal turns
(T1) for the roll it has thrown (its own seeded dice stream, splitmix64 of ``seed`` and the
game's number, as :func:`fastnardy.simulate`): the action of game i is an index into its
legal turns in T2 order, which are ``Position.legal_turns(dice)`` and the ``children`` of
the :class:`Step` (the resulting positions from the next mover's view). A forced turn (a
pass, or a single legal turn) is played without asking. One kernel call plays the N actions
and the forced turns after them and throws the next rolls.

**Rewards** (L10, S9, cube at 1): ``rewards[i]`` is (white's, black's) points from game i's
last step, zero-sum, non-zero only when the step ended the game (by the action or by a
forced turn after it). **Auto-reset**: a game that ends (``terminated``) or reaches
``max_turns`` turns (``truncated``) is replaced in the same step by a new game from the
start (T6 opening) on the next stream of the run, so the observation is the new game's; the
N games are always waiting for an action.

**Observations**: the positions to move, from the mover's view, as ``"rows"`` (N, 50) int8,
``"keys"`` (N,) ``KEY_DTYPE`` or ``("features", kind)`` (N, F) float32 of
:func:`fastnardy.features`, with ``dice`` (N, 2) and ``mover`` (N,) (0 white, 1 black).

This is its own API, for self-play and afterstate learning (both sides choose, every child
given). For the conventions of the RL libraries, one agent against the kernel's random or
greedy player, :class:`fastnardy.envs.gymnasium.NardyVectorEnv` is a
``gymnasium.vector.VectorEnv`` on the same kernel batch, and its ``sb3()`` a
stable-baselines3 ``VecEnv``; the step encoding (``actions="steps"``) is
:class:`fastnardy.envs.gymnasium.NardyEnv`'s, vectorized by Gymnasium's or SB3's own vector
environments.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

from .. import _kernel, checks
from ..basics import EPISODE_TURNS, MAX_TURNS_PER_ROLL
from ..batch import rows_from_keys
from ..errors import FastNardyError
from ..search.inputs import ENCODINGS, features
from ..rules import Rules

__all__ = ["MAX_TURNS_PER_ROLL", "Step", "VectorEnv"]

Observation = Union[str, Tuple[str, str]]


class Step(NamedTuple):
    """What :meth:`VectorEnv.reset` and :meth:`VectorEnv.step` return, one entry per game:
    ``observation`` (see the module docstring), ``dice`` (N, 2) int8 the roll to play,
    ``mover`` (N,) int8, ``children`` (M,) KEY_DTYPE every legal turn's result (next mover's
    view; game i's are ``children[offsets[i]:offsets[i + 1]]``, T2 order), ``offsets``
    (N + 1,) int64, ``rewards`` (N, 2) float64, ``terminated`` and ``truncated`` (N,) bool."""

    observation: npt.NDArray[Any]
    dice: npt.NDArray[np.int8]
    mover: npt.NDArray[np.int8]
    children: npt.NDArray[Any]
    offsets: npt.NDArray[np.int64]
    rewards: npt.NDArray[np.float64]
    terminated: npt.NDArray[np.bool_]
    truncated: npt.NDArray[np.bool_]

    @property
    def counts(self) -> npt.NDArray[np.int64]:
        """The number of legal turns of each game: (N,) int64."""
        counts: npt.NDArray[np.int64] = np.diff(self.offsets)
        return counts

    def action_mask(self, width: int = MAX_TURNS_PER_ROLL) -> npt.NDArray[np.bool_]:
        """(N, width) bool: True for the legal actions 0 .. count - 1 of each game."""
        width = checks.number(width, "width", 1, MAX_TURNS_PER_ROLL)
        mask: npt.NDArray[np.bool_] = np.arange(width) < self.counts[:, None]
        return mask


class VectorEnv:
    """``num_envs`` games of ``rules`` stepped together (see the module docstring)."""

    def __init__(self, rules: object, num_envs: int, seed: int = 0, *,
                 observation: Observation = "rows", max_turns: int = EPISODE_TURNS) -> None:
        self.rules = Rules.of(rules)
        self.num_envs = checks.number(num_envs, "num_envs", 1, 1 << 24)
        self.seed = checks.number(seed, "seed", 0)
        self.max_turns = checks.number(max_turns, "max_turns", 1, 1 << 30)
        self.observation = _check_observation(self.rules, observation)
        self._games: Any = None
        self._streams = 0

    def reset(self, seed: Optional[int] = None) -> Step:
        """Begin ``num_envs`` new games from the start (T6 opening), games 0 .. N - 1 of the
        run (``seed``, when given, replaces the run's seed)."""
        if seed is not None:
            self.seed = checks.number(seed, "seed", 0)
        rules = self.rules
        self._games = _kernel.GameBatch(rules.code, *rules.kernel_scoring(), self.num_envs,
                                        self.seed, (2, 2), self.max_turns, True)
        self._games.start(np.arange(self.num_envs), np.arange(self.num_envs))
        return self._settle()

    def step(self, actions: npt.ArrayLike) -> Step:
        """Play action ``actions[i]`` (an index into game i's legal turns, T2 order) in every
        game; FastNardyError names a game whose action is not one of its legal turns."""
        if self._games is None:
            raise FastNardyError("call reset() before step()")
        array = checks.array(actions, "actions")
        if array.shape != (self.num_envs,) or array.dtype.kind not in "iu":
            raise FastNardyError(f"actions must be {self.num_envs} ints, not "
                                 f"{array.dtype} {array.shape}")
        self._games.play_choices(array)
        return self._settle()

    def _settle(self) -> Step:
        """One kernel call: forced turns played, ended games scored and begun again, until
        every game waits; the new rolls and children."""
        games = self._games
        children, _, _, offsets = games.prepare()
        ended, winner, points, _ = games.take_ended()
        keys, mover, dice, _ = games.state()
        terminated = ended == 2
        rewards = np.zeros((self.num_envs, 2))
        won = np.flatnonzero(terminated)
        rewards[won, winner[won]] = points[won]
        rewards[won, 1 - winner[won]] = -points[won]
        return Step(self._observe(keys), dice, mover, children, offsets, rewards, terminated,
                    ended == 3)

    def _observe(self, keys: npt.NDArray[Any]) -> npt.NDArray[Any]:
        if self.observation == "keys":
            return keys
        if self.observation == "rows":
            return rows_from_keys(self.rules, keys)
        return features(self.rules, keys, self.observation[1])


def _check_observation(rules: Rules, observation: object) -> Observation:
    if isinstance(observation, str) and observation in ("rows", "keys"):
        return observation
    if (isinstance(observation, tuple) and len(observation) == 2
            and observation[0] == "features" and isinstance(observation[1], str)
            and observation[1] in ENCODINGS
            and ENCODINGS[observation[1]] in (None, rules.game)):
        return observation
    raise FastNardyError(f"observation must be 'rows', 'keys' or ('features', kind) with a "
                         f"kind of {rules.game} nardy, not {observation!r}")
