"""Long and short nardy as a PettingZoo AEC environment: two agents, ``"player_0"`` (white)
and ``"player_1"`` (black), named as PettingZoo names its classic games' agents. It needs
PettingZoo: ``pip install 'fastnardy[rl]'``.

As PettingZoo's classic games: :func:`env` is :func:`raw_env` (:class:`NardyAEC`) wrapped in
PettingZoo's TerminateIllegalWrapper (an illegal action ends the game, the offender scoring
minus the most points of the rules), AssertOutOfBoundsWrapper and OrderEnforcingWrapper.

A game from the start (T6 opening). The agent to move (``agent_selection``) plays its roll:
with ``actions="turns"`` (the default) one action, an index into its legal turns in T2
order; with ``actions="steps"`` one checker step per action, ``6 * (src - 1) + (die - 1)``,
one to four actions a turn, the agent staying selected until its steps make a legal turn
(:mod:`fastnardy.envs.steps`). Forced turns (a pass or a single legal turn) are played by
the kernel without asking. Dice come from a seeded stream: episode k after
``reset(seed=s)`` is game k of a :func:`fastnardy.simulate` run of seed s; the first reset
of an environment never seeded takes its seed from the OS.

**Observation** of an agent: a dict of ``"observation"``, int8, the position from that
agent's view (a board row of :mod:`fastnardy.batch`) and where it is in its roll, as
:mod:`fastnardy.envs.gymnasium` (``"turns"``: (52,) with the roll; ``"steps"``: (54,), the
board after its steps so far and the four dice left; dice are 0 when it is not its turn), and
``"action_mask"``, int8, 1 for its allowed actions. An action outside the mask raises
FastNardyError (T1) in the raw environment.

**Rewards** (L10, S9, cube at 1): when the game ends the winner gets the points and the
loser minus them; both are truncated after ``max_turns`` turns.

**Rendering** (``render_mode``): ``"ansi"`` returns the text board, ``"human"`` prints it.

PettingZoo's ``max_cycles_test`` does not apply: it needs a ``parallel_env`` whose agents
act in a fixed cycle and steps actions sampled without the mask, while here one agent
moves at a time (the one T6 or the dice give the move, twice in a row when the other's turn
is forced) and an unmasked action is illegal.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, cast

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .. import checks
from ..basics import EPISODE_TURNS
from ..errors import FastNardyError
from .._utils.threads import one_thread
from .gymnasium import (OBSERVATION_WIDTH, RENDER_MODES, KernelGame, action_space,
                        check_actions, check_render_mode, max_points, seed_from_os)
from ..rules import Rules

__all__ = ["AGENTS", "NardyAEC", "env", "raw_env"]

AGENTS = ("player_0", "player_1")  # white, black: the kernel's sides 0 and 1


class NardyAEC(AECEnv):  # type: ignore[misc]
    """Two agents, player_0 (white) and player_1 (black) (see the module docstring)."""

    metadata: Dict[str, Any] = {"render_modes": RENDER_MODES, "name": "fastnardy_v0",
                                "is_parallelizable": False, "render_fps": 4}

    def __init__(self, rules: object = "long", *, actions: str = "turns",
                 max_turns: int = EPISODE_TURNS, render_mode: Optional[str] = None,
                 auto_forced: bool = False) -> None:
        super().__init__()
        self.rules = Rules.of(rules)
        self.actions = check_actions(actions)
        self.auto_forced = checks.flag(auto_forced, "auto_forced")
        self.max_turns = checks.number(max_turns, "max_turns", 1, 1 << 30)
        self.render_mode = check_render_mode(render_mode)
        self.possible_agents: List[str] = list(AGENTS)
        self.agents: List[str] = []
        self._seed: Optional[int] = None
        self._episode = 0
        self._game: Optional[KernelGame] = None
        observation = spaces.Dict({
            "observation": spaces.Box(0, 15, (OBSERVATION_WIDTH[self.actions],), np.int8),
            "action_mask": spaces.Box(0, 1, (action_space(self.actions).n,), np.int8)})
        self.observation_spaces = {agent: observation for agent in self.possible_agents}
        self.action_spaces = {agent: action_space(self.actions)
                              for agent in self.possible_agents}

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The observation space of ``agent`` (the same for both)."""
        return self.observation_spaces[_agent(agent)]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The action space of ``agent`` (the same for both)."""
        return self.action_spaces[_agent(agent)]

    @one_thread("NardyAEC", begins=True)
    def reset(self, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> None:
        """A new game (the next episode of the seed's run; a given ``seed`` restarts it, and
        a first reset without one takes a seed from the OS)."""
        if seed is not None:
            self._seed = checks.number(seed, "seed", 0, (1 << 64) - 1)
            self._episode = 0
        elif self._seed is None:
            self._seed = seed_from_os()
        self._game = KernelGame(self.rules, self.actions, self._seed, self._episode, (2, 2),
                                self.max_turns, self.auto_forced)
        self._episode += 1
        self.agents = list(self.possible_agents)
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos: Dict[str, Dict[str, Any]] = {agent: {} for agent in self.agents}
        self._settle()

    @one_thread("NardyAEC")
    def observe(self, agent: str) -> Dict[str, npt.NDArray[np.int8]]:
        """``agent``'s observation (see the module docstring)."""
        me = AGENTS.index(_agent(agent))
        game = self._game
        if game is None:
            raise FastNardyError("call reset() before observe()")
        mine = game.mover() == me and agent in self.agents
        mask = game.mask.copy() if mine else np.zeros_like(game.mask)
        return {"observation": game.observe(me), "action_mask": mask}

    @one_thread("NardyAEC")
    def step(self, action: Any) -> None:
        """The agent to move plays ``action``: a legal turn, or a step of one (T1)."""
        game = self._game
        if game is None:
            raise FastNardyError("call reset() before step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        mask = game.mask
        if not (isinstance(action, (int, np.integer)) and not isinstance(action, bool)
                and 0 <= int(action) < len(mask) and mask[int(action)]):
            raise FastNardyError(f"T1: action {action!r} is not one of the {mask.sum()} "
                                 f"allowed actions of {agent}")
        self._cumulative_rewards[agent] = 0.0
        game.settle(int(action))
        self._settle()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _settle(self) -> None:
        """After the kernel ran on to the next choice: the selection, rewards and flags."""
        game = cast(KernelGame, self._game)
        status, winner, points = game.outcome()
        self.rewards = {agent: 0.0 for agent in self.agents}
        self.agent_selection = AGENTS[game.mover()]
        if status == 2:
            won = AGENTS[winner]
            for agent in self.agents:
                self.rewards[agent] = points if agent == won else -points
                self.terminations[agent] = True
        elif status == 3:
            for agent in self.agents:
                self.truncations[agent] = True

    @one_thread("NardyAEC")
    def render(self) -> Optional[str]:
        """The text board (``"ansi"``), printed with ``"human"``; None without a mode."""
        return None if self._game is None else self._game.render(self.render_mode)

    def close(self) -> None:
        """Nothing to release."""


def raw_env(rules: object = "long", **kwargs: Any) -> NardyAEC:
    """The unwrapped environment: ``NardyAEC(rules, **kwargs)``."""
    return NardyAEC(rules, **kwargs)


def env(rules: object = "long", **kwargs: Any) -> AECEnv:
    """:func:`raw_env` with PettingZoo's classic wrappers (see the module docstring)."""
    raw = raw_env(rules, **kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(raw, illegal_reward=-max_points(raw.rules))
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


def _agent(agent: object) -> str:
    if not isinstance(agent, str) or agent not in AGENTS:
        raise FastNardyError(f"agent must be one of {AGENTS} (white, black), not {agent!r}")
    return agent
