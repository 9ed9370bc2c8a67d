"""Long and short nardy as a Gymnasium environment: one agent against a policy played in the
kernel. It needs Gymnasium: ``pip install 'fastnardy[rl]'``.

**Episode.** A game from the start (T6 opening decides who begins) between the agent, playing
``side``, and ``opponent`` (``"random"`` or ``"greedy"``, as :func:`fastnardy.simulate`),
whose turns and the agent's forced turns (a pass or a single legal turn) are played by the
kernel between the agent's steps. Dice come from the environment's seeded stream: episode k
after ``reset(seed=s)`` is game k of a :func:`fastnardy.simulate` run of seed s.

**Observation**: (52,) int8, the position from the agent's view as a board row of
:mod:`fastnardy.batch` (its 24 points and bar, then the opponent's in the opponent's own
numbering) and the roll to play (0 0 once the game is over).

**Actions**: ``Discrete(MAX_TURNS_PER_ROLL)``; action i is ``legal_turns(roll)[i]`` (T2
order), legal for i < ``info["legal"]``; ``info["action_mask"]`` (int8) and
:meth:`NardyEnv.action_masks` mark them. An illegal action ends the episode (terminated)
with ``reward`` minus the most points the rules score (``info["illegal"]`` True), as pgx
does: the checkers of the real libraries step random actions.

**Reward** (L10, S9, cube at 1): when the game ends, the points the agent won or minus the
points it lost; 0 otherwise. ``truncated`` after ``max_turns`` turns (both sides').
"""

from __future__ import annotations

from typing import Any, Dict, Optional, SupportsFloat, Tuple

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from . import _kernel, checks
from .basics import BLACK, MAX_TURNS_PER_ROLL, WHITE
from .batch import rows_from_keys
from .errors import FastNardyError
from .rules import Rules

__all__ = ["OBSERVATION_WIDTH", "NardyEnv"]

OBSERVATION_WIDTH = 52  # a board row and the roll
_OPPONENTS = ("random", "greedy")


def max_points(rules: Rules) -> int:
    """The most points a game scores by the rules (L10: 3 with koks, else 2; S9: 3 with
    backgammons, else 2)."""
    if rules.game == "long":
        return 3 if rules.scoring == "oin_mars_koks" else 2
    return 3 if rules.backgammon else 2


def observe(rules: Rules, key: npt.NDArray[Any], mover: int, me: int,
            dice: npt.NDArray[np.int8]) -> npt.NDArray[np.int8]:
    """The (52,) observation of side ``me`` (0 white, 1 black) of a key of ``mover``'s
    frame: its board row from ``me``'s view, then ``dice``."""
    row = rows_from_keys(rules, key.reshape(1))[0]
    if mover != me:
        row = np.concatenate([row[25:], row[:25]])
    return np.concatenate([row, dice]).astype(np.int8)


class NardyEnv(gymnasium.Env[npt.NDArray[np.int8], np.int64]):
    """The agent plays ``side`` against ``opponent`` (see the module docstring)."""

    metadata: Dict[str, Any] = {"render_modes": []}

    def __init__(self, rules: object = "long", opponent: str = "random", side: str = WHITE,
                 *, max_turns: int = 1000) -> None:
        self.rules = Rules.of(rules)
        if not isinstance(opponent, str) or opponent not in _OPPONENTS:
            raise FastNardyError(f"opponent must be one of {_OPPONENTS}, not {opponent!r}")
        self.opponent = opponent
        self.me = (WHITE, BLACK).index(checks.side(side, "side"))
        self.max_turns = checks.number(max_turns, "max_turns", 1, 1 << 30)
        self.observation_space = spaces.Box(0, 15, (OBSERVATION_WIDTH,), np.int8)
        self.action_space = spaces.Discrete(MAX_TURNS_PER_ROLL)
        self._seed = 0
        self._episode = 0
        self._games: Any = None
        self._legal = 0

    def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None
              ) -> Tuple[npt.NDArray[np.int8], Dict[str, Any]]:
        """A new game (the next episode of the seed's run; a given ``seed`` restarts the run)."""
        if seed is not None:
            self._seed = checks.number(seed, "seed", 0, (1 << 64) - 1)
            self._episode = 0
        super().reset(seed=None if seed is None else int(seed))
        policy = [2, 2]
        policy[1 - self.me] = _OPPONENTS.index(self.opponent)
        rules = self.rules
        self._games = _kernel.GameBatch(rules.code, rules.scoring == "oin_mars_koks",
                                        bool(rules.backgammon), 1, self._seed,
                                        (policy[0], policy[1]), self.max_turns)
        self._games.start(np.zeros(1, dtype=np.int64), np.array([self._episode]))
        self._episode += 1
        observation, _, _, _, info = self._settle()
        return observation, info

    def step(self, action: Any) -> Tuple[npt.NDArray[np.int8], SupportsFloat, bool, bool,
                                        Dict[str, Any]]:
        """Play legal turn ``action`` of the agent's roll, then the opponent's turns."""
        if self._games is None:
            raise FastNardyError("call reset() before step()")
        if self._legal == 0:
            raise FastNardyError("the episode is over: call reset()")
        if not (isinstance(action, (int, np.integer)) and not isinstance(action, bool)
                and 0 <= int(action) < self._legal):
            observation, _, _, _, info = self._settle(over=True)
            self._legal = 0
            info["illegal"] = True
            return observation, -float(max_points(self.rules)), True, False, info
        self._games.play_choices(np.array([int(action)]))
        return self._settle()

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions of the current roll (the convention of sb3-contrib)."""
        mask: npt.NDArray[np.bool_] = np.arange(MAX_TURNS_PER_ROLL) < self._legal
        return mask

    def _settle(self, over: bool = False) -> Tuple[npt.NDArray[np.int8], float, bool, bool,
                                                    Dict[str, Any]]:
        """Play on to the agent's next choice; the observation, reward and flags."""
        _, _, waiting, offsets = self._games.prepare() if not over else (None, None, [], [0])
        keys, mover, dice, status = self._games.state()
        winner, points, _, _ = self._games.results()
        self._legal = int(offsets[1] - offsets[0]) if len(waiting) else 0
        terminated = bool(status[0] == 2)
        truncated = bool(status[0] == 3)
        reward = 0.0
        if terminated:
            reward = float(points[0]) if winner[0] == self.me else -float(points[0])
        shown = dice[0] if self._legal else np.zeros(2, dtype=np.int8)
        observation = observe(self.rules, keys[0], int(mover[0]), self.me, shown)
        mask = np.zeros(MAX_TURNS_PER_ROLL, dtype=np.int8)
        mask[:self._legal] = 1
        info = {"action_mask": mask, "legal": self._legal, "illegal": False}
        return observation, reward, terminated, truncated, info
