"""Long and short nardy as a Gymnasium environment: one agent against a policy played in the
kernel. It needs Gymnasium: ``pip install 'fastnardy[rl]'``. Importing this module registers
``gymnasium.make("fastnardy/LongNardy-v0")`` and ``"fastnardy/ShortNardy-v0"`` (keyword
arguments of :class:`NardyEnv` pass through ``make``); without importing it first,
``gymnasium.make("fastnardy.envs.gymnasium:fastnardy/LongNardy-v0")`` imports it (Gymnasium
1.x has no entry-point plugins that could register the ids at its own import).

**Episode.** A game from the start (T6 opening decides who begins) between the agent, playing
``side``, and ``opponent`` (``"random"`` or ``"greedy"``, as :func:`fastnardy.simulate`),
whose turns and the agent's forced turns (a pass or a single legal turn) are played by the
kernel between the agent's steps. Dice come from the environment's seeded stream: episode k
after ``reset(seed=s)`` is game k of a :func:`fastnardy.simulate` run of seed s. The first
``reset()`` of an environment never seeded draws its seed from the OS (Gymnasium's
convention), so unseeded environments play different games.

**Actions** (``actions=``):

* ``"turns"`` (the default): ``Discrete(MAX_TURNS_PER_ROLL)``; action i is
  ``legal_turns(roll)[i]`` (T2 order), legal for i < ``info["legal"]``.
* ``"steps"``: ``Discrete(STEP_ACTIONS)`` (150), one checker step, action
  ``6 * (src - 1) + (die - 1)`` for the checker on the agent's point ``src`` (25 = bar) moved
  by ``die``; a turn is one to four steps, allowed as :mod:`fastnardy.envs.steps` says (T1:
  exactly the steps that begin a legal way to play the roll; L7/S6 hold for the whole turn).
  The opponent moves once the agent's steps make a legal turn.

``info["action_mask"]`` (int8) and :meth:`NardyEnv.action_masks` mark the allowed actions,
``info["legal"]`` counts them. An illegal action ends the episode (terminated) with
``reward`` minus the most points the rules score (``info["illegal"]`` True), as pgx does:
the checkers of the real libraries step random actions.

**Observation** (int8), the position from the agent's view as a board row of
:mod:`fastnardy.batch` (its 24 points and bar, then the opponent's in the opponent's own
numbering), then where the agent is in its roll: with ``"turns"`` (52,), the roll to play;
with ``"steps"`` (54,), the board after the steps already taken this turn and the four dice
left to play, largest first, 0 for a die played or absent (a 6-4 is ``6 4 0 0`` before its
first step, ``4 0 0 0`` after the 6). All dice are 0 once the game is over.

**Reward** (L10, S9, cube at 1): when the game ends, the points the agent won or minus the
points it lost; 0 otherwise. ``truncated`` after ``max_turns`` turns (both sides').

**Rendering** (``render_mode``): ``"ansi"`` returns the text board of :class:`fastnardy.Position` with
the roll and the steps taken, ``"human"`` prints it.
"""

from __future__ import annotations

import secrets
from typing import Any, Dict, Optional, SupportsFloat, Tuple

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from .. import _kernel, checks, notation
from ..basics import BLACK, EPISODE_TURNS, MAX_TURNS_PER_ROLL, SIDES, WHITE
from ..batch import decode, rows_from_keys
from ..errors import FastNardyError
from .._utils.threads import one_thread
from ..position import Position
from ..rules import Rules
from .steps import DICE_SLOTS, STEP_ACTIONS, TurnInProgress

__all__ = ["ACTIONS", "OBSERVATION_WIDTH", "NardyEnv", "NardyVectorEnv"]

ACTIONS = ("turns", "steps")  # the action encodings
OBSERVATION_WIDTH = {"turns": 52, "steps": 50 + DICE_SLOTS}  # a board row, where in the roll
RENDER_MODES = ["human", "ansi"]
_OPPONENTS = ("random", "greedy")


def max_points(rules: Rules) -> int:
    """The most points a game scores by the rules (:attr:`Rules.max_points`)."""
    return rules.max_points


def seed_from_os() -> int:
    """A seed for an environment reset without one before (Gymnasium's convention)."""
    return secrets.randbits(63)


def check_actions(actions: object) -> str:
    """``"turns"`` or ``"steps"``, or FastNardyError."""
    if not isinstance(actions, str) or actions not in ACTIONS:
        raise FastNardyError(f"actions must be one of {ACTIONS}, not {actions!r}")
    return actions


def check_render_mode(render_mode: object) -> Optional[str]:
    """None, ``"human"`` or ``"ansi"``, or FastNardyError."""
    if render_mode is not None and (not isinstance(render_mode, str)
                                    or render_mode not in RENDER_MODES):
        raise FastNardyError(f"render_mode must be None or one of {RENDER_MODES}, not "
                             f"{render_mode!r}")
    return render_mode


def action_space(actions: str) -> spaces.Discrete:
    """The action space of an encoding."""
    return spaces.Discrete(MAX_TURNS_PER_ROLL if actions == "turns" else STEP_ACTIONS)


def observe(rules: Rules, key: npt.NDArray[Any], mover: int, me: int,
            dice: npt.NDArray[np.int8]) -> npt.NDArray[np.int8]:
    """The observation of side ``me`` (0 white, 1 black) of a key of ``mover``'s frame: its
    board row from ``me``'s view, then ``dice``."""
    row = rows_from_keys(rules, key.reshape(1))[0]
    if mover != me:
        row = np.concatenate([row[25:], row[:25]])
    return np.concatenate([row, dice]).astype(np.int8)


def observe_turn(turn: TurnInProgress) -> npt.NDArray[np.int8]:
    """The ``"steps"`` observation of the side playing ``turn``: the board after its steps
    so far and the dice left."""
    return np.concatenate([turn.row(), np.array(turn.dice_left(), dtype=np.int8)])


def board_text(rules: Rules, key: npt.NDArray[Any], mover: int, dice: Optional[Any],
               turn: Optional[TurnInProgress]) -> str:
    """The text board of a game's position, the roll to play and the steps taken."""
    position: Position = decode(rules, key.reshape(1), SIDES[mover])[0]
    text = str(position)
    if dice is not None:
        text += f"\n{SIDES[mover]} to play {int(dice[0])}-{int(dice[1])}"
        if turn is not None and turn.played:
            text += f", played so far: {notation.format_steps(turn.played)}"
    return text + "\n"


class NardyEnv(gymnasium.Env[npt.NDArray[np.int8], np.int64]):
    """The agent plays ``side`` against ``opponent`` (see the module docstring)."""

    metadata: Dict[str, Any] = {"render_modes": RENDER_MODES, "render_fps": 4}

    def __init__(self, rules: object = "long", opponent: str = "random", side: str = WHITE,
                 *, actions: str = "turns", max_turns: int = EPISODE_TURNS,
                 render_mode: Optional[str] = None) -> None:
        self.rules = Rules.of(rules)
        if not isinstance(opponent, str) or opponent not in _OPPONENTS:
            raise FastNardyError(f"opponent must be one of {_OPPONENTS}, not {opponent!r}")
        self.opponent = opponent
        self.me = (WHITE, BLACK).index(checks.side(side, "side"))
        self.actions = check_actions(actions)
        self.max_turns = checks.number(max_turns, "max_turns", 1, 1 << 30)
        self.render_mode = check_render_mode(render_mode)
        self.observation_space = spaces.Box(0, 15, (OBSERVATION_WIDTH[self.actions],), np.int8)
        self.action_space = action_space(self.actions)
        self._seed: Optional[int] = None
        self._episode = 0
        self._games: Any = None
        self._mask = np.zeros(action_space(self.actions).n, dtype=np.int8)
        self._turn: Optional[TurnInProgress] = None

    @one_thread("NardyEnv")
    def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None
              ) -> Tuple[npt.NDArray[np.int8], Dict[str, Any]]:
        """A new game (the next episode of the seed's run; a given ``seed`` restarts the run,
        and a first reset without one takes a seed from the OS)."""
        if seed is not None:
            seed = checks.number(seed, "seed", 0, (1 << 64) - 1)
        super().reset(seed=seed)
        if seed is not None:
            self._seed, self._episode = seed, 0
        elif self._seed is None:
            self._seed = seed_from_os()
        policy = [2, 2]
        policy[1 - self.me] = _OPPONENTS.index(self.opponent)
        rules = self.rules
        self._games = _kernel.GameBatch(rules.code, *rules.kernel_scoring(), 1, self._seed,
                                        (policy[0], policy[1]), self.max_turns)
        self._games.start(np.zeros(1, dtype=np.int64), np.array([self._episode]))
        self._episode += 1
        observation, _, _, _, info = self._settle()
        if self.render_mode == "human":
            self.render()
        return observation, info

    @one_thread("NardyEnv")
    def step(self, action: Any) -> Tuple[npt.NDArray[np.int8], SupportsFloat, bool, bool,
                                        Dict[str, Any]]:
        """Play ``action`` (a legal turn, or a step of one) for the agent; once its turn is
        played, the opponent's turns up to the agent's next choice."""
        if self._games is None:
            raise FastNardyError("call reset() before step()")
        if not self._mask.any():
            raise FastNardyError("the episode is over: call reset()")
        if not (isinstance(action, (int, np.integer)) and not isinstance(action, bool)
                and 0 <= int(action) < len(self._mask) and self._mask[int(action)]):
            observation, _, _, _, info = self._settle(over=True)
            info["illegal"] = True
            return observation, -float(max_points(self.rules)), True, False, info
        if self._turn is None:
            result = self._settle(choice=int(action))
        else:
            self._turn.play(int(action))
            result = self._settle(choice=self._turn.index) if self._turn.done \
                else self._report(0.0, False, False)
        if self.render_mode == "human":
            self.render()
        return result

    @one_thread("NardyEnv")
    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The allowed actions now (the convention of sb3-contrib)."""
        mask: npt.NDArray[np.bool_] = self._mask.astype(bool)
        return mask

    @one_thread("NardyEnv")
    def render(self) -> Optional[str]:
        """The text board (``"ansi"``), printed with ``"human"``; None without a mode."""
        if self.render_mode is None or self._games is None:
            return None
        keys, mover, dice, _ = self._games.state()
        waiting = self._mask.any()
        text = board_text(self.rules, keys[0], int(mover[0]), dice[0] if waiting else None,
                          self._turn)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _settle(self, choice: Optional[int] = None, over: bool = False
                ) -> Tuple[npt.NDArray[np.int8], float, bool, bool, Dict[str, Any]]:
        """Play the agent's turn ``choice`` (an index into its legal turns) and on to its
        next choice; the observation, reward and flags. ``over``: an illegal action ends
        the episode where it is."""
        games = self._games
        if choice is not None:
            games.play_choices(np.array([choice]))
        self._turn = None
        legal = 0
        if not over:
            _, _, waiting, offsets = games.prepare()
            legal = int(offsets[1] - offsets[0]) if len(waiting) else 0
        keys, mover, dice, status = games.state()
        self._mask = np.zeros_like(self._mask)
        if legal and self.actions == "turns":
            self._mask[:legal] = 1
        elif legal:
            position = decode(self.rules, keys[:1], SIDES[int(mover[0])])[0]
            self._turn = TurnInProgress(position, (int(dice[0][0]), int(dice[0][1])))
        winner, points, _, _ = games.results()
        reward = 0.0
        if status[0] == 2:
            reward = float(points[0]) if winner[0] == self.me else -float(points[0])
        return self._report(reward, bool(status[0] == 2), bool(status[0] == 3))

    def _report(self, reward: float, terminated: bool, truncated: bool
                ) -> Tuple[npt.NDArray[np.int8], float, bool, bool, Dict[str, Any]]:
        if self._turn is not None:
            self._mask = self._turn.mask()
            observation = observe_turn(self._turn)
        else:
            keys, mover, dice, _ = self._games.state()
            width = OBSERVATION_WIDTH[self.actions] - 50
            shown = np.zeros(width, dtype=np.int8)
            if self._mask.any():
                shown[:2] = dice[0]
            observation = observe(self.rules, keys[0], int(mover[0]), self.me, shown)
        info = {"action_mask": self._mask.copy(), "legal": int(self._mask.sum()),
                "illegal": False}
        return observation, reward, terminated, truncated, info


class NardyVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` episodes of :class:`NardyEnv` (``actions="turns"``) in one kernel batch:
    a ``gymnasium.vector.VectorEnv`` whose games, opponents and dice are those of the
    kernel's :class:`fastnardy.envs.vector.VectorEnv` machinery, without a Python loop over games.

    Observations (num_envs, 52) int8 and rewards as :class:`NardyEnv`'s; actions
    (num_envs,) ints, game i's an index into its legal turns, legal below ``infos["legal"][i]``
    ((num_envs,) int64); :meth:`action_masks` makes the (num_envs, MAX_TURNS_PER_ROLL) mask
    when asked (not every step: it is 5 KB a game). An illegal action ends that game as in
    NardyEnv. Autoreset in the same step (Gymnasium's ``SAME_STEP``): a
    game that ends is replaced by the next game of the run (streams 0 .. num_envs - 1 after
    ``reset(seed=s)``, then num_envs, num_envs + 1, ... in the order games end), its last
    observation in ``infos["final_obs"]`` where ``infos["_final_obs"]`` is True.
    :meth:`sb3` adapts it to stable-baselines3's ``VecEnv`` (for MaskablePPO too)."""

    metadata: Dict[str, Any] = {"autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP}

    def __init__(self, rules: object = "long", num_envs: int = 16, opponent: str = "random",
                 side: str = WHITE, *, max_turns: int = EPISODE_TURNS) -> None:
        self.rules = Rules.of(rules)
        self.num_envs = checks.number(num_envs, "num_envs", 1, 1 << 24)
        if not isinstance(opponent, str) or opponent not in _OPPONENTS:
            raise FastNardyError(f"opponent must be one of {_OPPONENTS}, not {opponent!r}")
        self.opponent = opponent
        self.me = (WHITE, BLACK).index(checks.side(side, "side"))
        self.max_turns = checks.number(max_turns, "max_turns", 1, 1 << 30)
        self.single_observation_space = spaces.Box(0, 15, (OBSERVATION_WIDTH["turns"],),
                                                   np.int8)
        self.single_action_space = action_space("turns")
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, self.num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space,
                                                               self.num_envs)
        self._seed: Optional[int] = None
        self._games: Any = None
        self._streams = 0
        self._legal = np.zeros(self.num_envs, dtype=np.int64)
        self._observation = np.zeros((self.num_envs, OBSERVATION_WIDTH["turns"]), np.int8)

    def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None
              ) -> Tuple[npt.NDArray[np.int8], Dict[str, Any]]:
        """New games 0 .. num_envs - 1 of the run of ``seed`` (a first reset without one
        takes a seed from the OS; later ones begin the next games of the run)."""
        if seed is not None:
            self._seed, self._streams = checks.number(seed, "seed", 0, (1 << 64) - 1), 0
        elif self._seed is None:
            self._seed = seed_from_os()
        policy = [2, 2]
        policy[1 - self.me] = _OPPONENTS.index(self.opponent)
        rules = self.rules
        self._games = _kernel.GameBatch(rules.code, *rules.kernel_scoring(), self.num_envs,
                                        self._seed, (policy[0], policy[1]), self.max_turns)
        everyone = np.arange(self.num_envs)
        self._games.start(everyone, self._streams + everyone)
        self._streams += self.num_envs
        observation, _, _, _, infos = self._settle(np.zeros(self.num_envs, dtype=bool))
        return observation, infos

    def step(self, actions: Any) -> Tuple[npt.NDArray[np.int8], npt.NDArray[np.float64],
                                         npt.NDArray[np.bool_], npt.NDArray[np.bool_],
                                         Dict[str, Any]]:
        """Play game i's legal turn ``actions[i]`` in every game, then the opponents' turns
        up to each agent's next choice (new games for those that end)."""
        if self._games is None:
            raise FastNardyError("call reset() before step()")
        array = checks.array(actions, "actions")
        if array.shape != (self.num_envs,) or array.dtype.kind not in "iu":
            raise FastNardyError(f"actions must be {self.num_envs} ints, not {array.dtype} "
                                 f"{array.shape}")
        illegal = (array < 0) | (array >= self._legal)
        self._games.play_choices(np.where(illegal, 0, array))
        return self._settle(illegal)

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """(num_envs, MAX_TURNS_PER_ROLL) bool: the legal actions of each game."""
        mask: npt.NDArray[np.bool_] = np.arange(MAX_TURNS_PER_ROLL) < self._legal[:, None]
        return mask

    def sb3(self) -> Any:
        """This environment as a stable-baselines3 ``VecEnv`` (needs stable-baselines3):
        ``seed(s)`` then ``reset()`` starts the run of seed s; ``env_method("action_masks")``
        gives the masks MaskablePPO asks for; an ended game's last observation is its info's
        ``"terminal_observation"``."""
        from ._sb3 import NardyVecEnv

        return NardyVecEnv(self)

    def _settle(self, illegal: npt.NDArray[np.bool_]
                ) -> Tuple[npt.NDArray[np.int8], npt.NDArray[np.float64],
                           npt.NDArray[np.bool_], npt.NDArray[np.bool_], Dict[str, Any]]:
        """Play on to every agent's next choice; score, report and restart the games that
        ended (``illegal``: ended by an illegal action, scored minus the most points)."""
        games = self._games
        _, _, waiting, offsets = games.prepare()
        keys, mover, _, status = games.state()
        winner, points, _, _ = games.results()
        terminated = (status == 2) | illegal
        truncated = (status == 3) & ~illegal
        rewards = np.where(winner == self.me, points, -points).astype(np.float64)
        rewards[status != 2] = 0.0
        rewards[illegal] = -float(max_points(self.rules))
        infos: Dict[str, Any] = {}
        ended = np.flatnonzero(terminated | truncated)
        if len(ended):
            final = np.empty(self.num_envs, dtype=object)
            for i in ended:  # an illegal action ends the game where it was played
                final[i] = self._observation[i] if illegal[i] else observe(
                    self.rules, keys[i], int(mover[i]), self.me, np.zeros(2, dtype=np.int8))
            infos["final_obs"], infos["_final_obs"] = final, terminated | truncated
        while len(ended):  # a new game may end before its agent has a choice
            games.start(ended, self._streams + np.arange(len(ended)))
            self._streams += len(ended)
            _, _, waiting, offsets = games.prepare()
            ended = np.flatnonzero(games.state()[3] >= 2)
        self._legal = np.zeros(self.num_envs, dtype=np.int64)
        self._legal[waiting] = np.diff(offsets)
        keys, _, dice, _ = games.state()  # every game waits for its agent: its frame
        self._observation = np.concatenate([rows_from_keys(self.rules, keys), dice],
                                           axis=1).astype(np.int8)
        infos["legal"] = self._legal.copy()
        return self._observation.copy(), rewards, terminated, truncated, infos


for _name, _game in (("LongNardy", "long"), ("ShortNardy", "short")):
    if f"fastnardy/{_name}-v0" not in gymnasium.registry:
        gymnasium.register(f"fastnardy/{_name}-v0", kwargs={"rules": _game},
                           entry_point="fastnardy.envs.gymnasium:NardyEnv")
