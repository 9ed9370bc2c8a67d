"""A vector environment: N games stepped together by the kernel, for reinforcement learning.

Every step, each of the N games waits for its side to move to choose one of its legal turns
(T1) for the roll it has thrown (its own seeded dice stream, splitmix64 of ``seed`` and the
game's number, as :func:`fastnardy.simulate`): the action of game i is an index into its
legal turns in T2 order, which are ``Position.legal_turns(dice)`` and the ``children`` of
the :class:`TurnState` (the resulting positions from the next mover's view). A forced turn (a
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

**Steps** (``actions="steps"``): each game waits at its own step of its own turn, and the
action of game i is a step of :mod:`fastnardy.envs.steps` (``6 * (src - 1) + (die - 1)``)
allowed by its mask. :meth:`VectorEnv.reset` and :meth:`VectorEnv.step` then return
:class:`StepState`: the boards after the steps taken, the dice left and the masks; a game whose
steps make a legal turn plays it, and the forced turns and new games after it, in the same
kernel call. With ``auto_forced=True`` a step that is the only one allowed is played without
asking (never by default).

This is its own API, for self-play and afterstate learning (both sides choose, every child
given). For the conventions of the RL libraries, one agent against the kernel's random or
greedy player, :class:`fastnardy.envs.gymnasium.NardyVectorEnv` is a
``gymnasium.vector.VectorEnv`` on the same kernel batch, in both encodings, and its
``sb3()`` a stable-baselines3 ``VecEnv``.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

from .. import _kernel, checks
from .._kernel import STEP_ACTIONS
from .._utils.threads import one_thread
from ..basics import EPISODE_TURNS, MAX_TURNS_PER_ROLL
from ..batch import rows_from_keys
from ..errors import FastNardyError
from ..search.inputs import ENCODINGS, features
from ..rules import Rules

__all__ = ["MAX_TURNS_PER_ROLL", "StepState", "TurnState", "VectorEnv"]

Observation = Union[str, Tuple[str, str]]


class TurnState(NamedTuple):
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


class StepState(NamedTuple):
    """What :meth:`VectorEnv.reset` and :meth:`VectorEnv.step` return with
    ``actions="steps"``, one entry per game: ``observation`` the board after the steps taken
    this turn (as ``"rows"``, ``"keys"`` or features), ``dice`` (N, 2) int8 the roll being
    played, ``dice_left`` (N, 4) int8 its dice not yet played (largest first, 0-padded),
    ``mover`` (N,) int8, ``mask`` (N, STEP_ACTIONS) bool the allowed steps, ``rewards`` (N, 2)
    float64, ``terminated`` and ``truncated`` (N,) bool (as :class:`TurnState`)."""

    observation: npt.NDArray[Any]
    dice: npt.NDArray[np.int8]
    dice_left: npt.NDArray[np.int8]
    mover: npt.NDArray[np.int8]
    mask: npt.NDArray[np.bool_]
    rewards: npt.NDArray[np.float64]
    terminated: npt.NDArray[np.bool_]
    truncated: npt.NDArray[np.bool_]


class VectorEnv:
    """``num_envs`` games of ``rules`` stepped together (see the module docstring). One
    thread at a time: a call while another runs is refused (FastNardyError)."""

    def __init__(self, rules: object, num_envs: int, seed: int = 0, *,
                 observation: Observation = "rows", max_turns: int = EPISODE_TURNS,
                 actions: str = "turns", auto_forced: bool = False) -> None:
        self.rules = Rules.of(rules)
        self.num_envs = checks.number(num_envs, "num_envs", 1, 1 << 24)
        self.seed = checks.number(seed, "seed", 0)
        self.max_turns = checks.number(max_turns, "max_turns", 1, 1 << 30)
        self.observation = _check_observation(self.rules, observation)
        if not isinstance(actions, str) or actions not in ("turns", "steps"):
            raise FastNardyError(f"actions must be 'turns' or 'steps', not {actions!r}")
        self.actions = actions
        self.auto_forced = checks.flag(auto_forced, "auto_forced")
        self._games: Any = None
        self._steps: Any = None

    @one_thread("VectorEnv", begins=True)
    def reset(self, seed: Optional[int] = None) -> Union[TurnState, StepState]:
        """Begin ``num_envs`` new games from the start (T6 opening), games 0 .. N - 1 of the
        run (``seed``, when given, replaces the run's seed)."""
        if seed is not None:
            self.seed = checks.number(seed, "seed", 0)
        rules = self.rules
        self._games = _kernel.GameBatch(rules.code, *rules.kernel_scoring(), self.num_envs,
                                        self.seed, (2, 2), self.max_turns, True)
        self._games.start(np.arange(self.num_envs), np.arange(self.num_envs))
        if self.actions == "turns":
            return self._settle()
        self._steps = _kernel.StepBatch(self._games, self.auto_forced)
        self._steps.settle()
        return self._settle_steps()

    @one_thread("VectorEnv")
    def step(self, actions: npt.ArrayLike) -> Union[TurnState, StepState]:
        """Play action ``actions[i]`` in every game: an index into game i's legal turns (T2
        order), or with ``actions="steps"`` a step its mask allows; FastNardyError names a
        game whose action is not allowed, and then no game moves."""
        if self._games is None:
            raise FastNardyError("call reset() before step()")
        array = checks.actions(actions, self.num_envs)
        if self._steps is not None:
            if array.size and int(array.min()) < 0:
                raise FastNardyError(f"action {int(array.min())} is not a step: actions are "
                                     f"from 0 to {STEP_ACTIONS - 1}")
            self._steps.play(array)
            return self._settle_steps()
        self._games.play_choices(array)
        return self._settle()

    def _settle(self) -> TurnState:
        """One kernel call: forced turns played, ended games scored and begun again, until
        every game waits; the new rolls and children."""
        games = self._games
        children, _, _, offsets = games.prepare()
        keys, mover, dice, _ = games.state()
        rewards, terminated, truncated = self._ended()
        return TurnState(self._observe(keys), dice, mover, children, offsets, rewards,
                         terminated, truncated)

    def _settle_steps(self) -> StepState:
        """After the kernel call of a step: the boards, dice left and masks."""
        keys, rows, left, masks = self._steps.observe()
        _, mover, dice, _ = self._games.state()
        rewards, terminated, truncated = self._ended()
        observation = rows if self.observation == "rows" else self._observe(keys)
        return StepState(observation, dice, left, mover, masks, rewards, terminated, truncated)

    def _ended(self) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_],
                              npt.NDArray[np.bool_]]:
        """(rewards, terminated, truncated) of the games that ended since the last call."""
        ended, winner, points, _ = self._games.take_ended()
        terminated = ended == 2
        rewards = np.zeros((self.num_envs, 2))
        won = np.flatnonzero(terminated)
        rewards[won, winner[won]] = points[won]
        rewards[won, 1 - winner[won]] = -points[won]
        return rewards, terminated, ended == 3

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
