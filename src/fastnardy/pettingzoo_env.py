"""Long and short nardy as a PettingZoo AEC environment: two agents, ``"white"`` and
``"black"``. It needs PettingZoo: ``pip install 'fastnardy[rl]'``.

A game from the start (T6 opening). The agent to move (``agent_selection``) chooses one of
its legal turns for the roll it has thrown; forced turns (a pass or a single legal turn) are
played by the kernel without asking. Dice come from a seeded stream: episode k after
``reset(seed=s)`` is game k of a :func:`fastnardy.simulate` run of seed s.

**Observation** of an agent, as PettingZoo's classic games: a dict of ``"observation"``,
(52,) int8, the position from that agent's view (a board row of :mod:`fastnardy.batch`) and
its roll to play (0 0 when it is not its turn), and ``"action_mask"``, (MAX_TURNS_PER_ROLL,)
int8, 1 for its legal actions: action i is ``legal_turns(roll)[i]`` in T2 order. An action
outside the mask raises FastNardyError (T1).

**Rewards** (L10, S9, cube at 1): when the game ends the winner gets the points and the
loser minus them; both are truncated after ``max_turns`` turns.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv

from . import _kernel, checks
from .basics import MAX_TURNS_PER_ROLL, SIDES
from .errors import FastNardyError
from .gymnasium_env import OBSERVATION_WIDTH, observe
from .rules import Rules

__all__ = ["NardyAEC"]


class NardyAEC(AECEnv):  # type: ignore[misc]
    """Two agents, white and black (see the module docstring)."""

    metadata: Dict[str, Any] = {"render_modes": [], "name": "fastnardy_v0",
                                "is_parallelizable": False}

    def __init__(self, rules: object = "long", *, max_turns: int = 1000) -> None:
        super().__init__()
        self.rules = Rules.of(rules)
        self.max_turns = checks.number(max_turns, "max_turns", 1, 1 << 30)
        self.possible_agents: List[str] = list(SIDES)
        self.agents: List[str] = []
        self._seed = 0
        self._episode = 0
        self._games: Any = None
        self._legal = 0
        observation = spaces.Dict({
            "observation": spaces.Box(0, 15, (OBSERVATION_WIDTH,), np.int8),
            "action_mask": spaces.Box(0, 1, (MAX_TURNS_PER_ROLL,), np.int8)})
        self.observation_spaces = {agent: observation for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(MAX_TURNS_PER_ROLL)
                              for agent in self.possible_agents}

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The observation space of ``agent`` (the same for both)."""
        return self.observation_spaces[_agent(agent)]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """Discrete(MAX_TURNS_PER_ROLL) for both agents."""
        return self.action_spaces[_agent(agent)]

    def reset(self, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> None:
        """A new game (the next episode of the seed's run; a given ``seed`` restarts it)."""
        if seed is not None:
            self._seed = checks.number(seed, "seed", 0)
            self._episode = 0
        rules = self.rules
        self._games = _kernel.GameBatch(rules.code, rules.scoring == "oin_mars_koks",
                                        bool(rules.backgammon), 1, self._seed, (2, 2),
                                        self.max_turns)
        self._games.start(np.zeros(1, dtype=np.int64), np.array([self._episode]))
        self._episode += 1
        self.agents = list(self.possible_agents)
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos: Dict[str, Dict[str, Any]] = {agent: {} for agent in self.agents}
        self._settle()

    def observe(self, agent: str) -> Dict[str, npt.NDArray[np.int8]]:
        """``agent``'s observation (see the module docstring)."""
        me = SIDES.index(_agent(agent))
        if self._games is None:
            raise FastNardyError("call reset() before observe()")
        keys, mover, dice, _ = self._games.state()
        mine = self._legal and int(mover[0]) == me and agent in self.agents
        shown = dice[0] if mine else np.zeros(2, dtype=np.int8)
        mask = np.zeros(MAX_TURNS_PER_ROLL, dtype=np.int8)
        if mine:
            mask[:self._legal] = 1
        return {"observation": observe(self.rules, keys[0], int(mover[0]), me, shown),
                "action_mask": mask}

    def step(self, action: Any) -> None:
        """The agent to move plays legal turn ``action`` (T1, T2 order)."""
        if self._games is None:
            raise FastNardyError("call reset() before step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if not (isinstance(action, (int, np.integer)) and not isinstance(action, bool)
                and 0 <= int(action) < self._legal):
            raise FastNardyError(f"T1: action {action!r} is not one of the {self._legal} "
                                 f"legal turns of {agent}")
        self._cumulative_rewards[agent] = 0.0
        self._games.play_choices(np.array([int(action)]))
        self._settle()
        self._accumulate_rewards()

    def _settle(self) -> None:
        """Play on to the next choice; set the selection, rewards and flags."""
        _, _, waiting, offsets = self._games.prepare()
        _, mover, _, status = self._games.state()
        winner, points, _, _ = self._games.results()
        self._legal = int(offsets[1] - offsets[0]) if len(waiting) else 0
        self.rewards = {agent: 0.0 for agent in self.agents}
        self.agent_selection = SIDES[int(mover[0])]
        if status[0] == 2:
            won = SIDES[int(winner[0])]
            for agent in self.agents:
                self.rewards[agent] = float(points[0]) if agent == won else -float(points[0])
                self.terminations[agent] = True
        elif status[0] == 3:
            for agent in self.agents:
                self.truncations[agent] = True

    def render(self) -> None:
        """No rendering (``render_mode`` None)."""

    def close(self) -> None:
        """Nothing to release."""


def _agent(agent: object) -> str:
    if not isinstance(agent, str) or agent not in SIDES:
        raise FastNardyError(f"agent must be one of {SIDES}, not {agent!r}")
    return agent
