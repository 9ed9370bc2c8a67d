"""Long and short nardy as a Gymnasium environment: one agent against a policy played in the
kernel. It needs Gymnasium: ``pip install 'fastnardy[rl]'``. Importing this module registers
``gymnasium.make("fastnardy/LongNardy-v0")`` and ``"fastnardy/ShortNardy-v0"`` (keyword
arguments of :class:`NardyEnv` pass through ``make``); without importing it first,
``gymnasium.make("fastnardy.envs.gymnasium:fastnardy/LongNardy-v0")`` imports it (Gymnasium
1.x has no entry-point plugins that could register the ids at its own import).

**Episode.** A game from the start (T6 opening decides who begins) between the agent, playing
``side``, and ``opponent``, whose turns and the agent's forced turns (a pass or a single
legal turn) are played between the agent's steps. The opponent is a setting of 0 ply
(:class:`fastnardy.search.setting.Setting` or its text: ``"random"``, ``"greedy"``,
``"net"``, ``"FILE.npz"``, either with ``:float`` or ``:int16``; the same player as at
every door) or an :class:`fastnardy.search.network.Evaluator` of the game (its best child
at 0 ply), all played inside the kernel; or, for :class:`NardyEnv`, a callable
``opponent(observation, action_mask) -> action`` that sees the game from its side in the
agent's encoding (the agent's own policy makes it self-play). ``reset(options={"opponent":
...})`` changes it from that episode on. Dice come from the environment's seeded stream: episode k
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
from typing import Any, Callable, Dict, List, Optional, SupportsFloat, Tuple, cast

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from .. import _kernel, checks, notation
from ..basics import BLACK, EPISODE_TURNS, MAX_TURNS_PER_ROLL, SIDES, WHITE
from ..batch import decode, rows_from_keys
from ..errors import FastNardyError, integer
from ..search.network import Evaluator
from ..search.setting import Setting, setting as as_setting
from .._utils.threads import one_thread
from ..position import Position, Step
from ..rules import Rules
from .steps import DICE_SLOTS, STEP_ACTIONS

__all__ = ["ACTIONS", "OBSERVATION_LAYOUT", "OBSERVATION_WIDTH", "NardyEnv", "NardyVectorEnv",
           "ObservationLayout"]

ACTIONS = ("turns", "steps")  # the action encodings


RENDER_MODES = ["human", "ansi"]
Opponent = Tuple[int, Any, Optional[Callable[..., Any]]]  # kernel policy, network, callable


def reset_opponent(rules: Rules, options: object, callable_ok: bool = True
                   ) -> Optional[Opponent]:
    """The opponent ``reset(options={"opponent": ...})`` asks for, or None (no change);
    FastNardyError for options that are not None or a dict, or a bad opponent."""
    if options is None:
        return None
    if not isinstance(options, dict):
        raise FastNardyError(f"options must be None or a dict, not {type(options).__name__}")
    if "opponent" not in options:
        return None
    return check_opponent(rules, options["opponent"], callable_ok)


def sides(opponent: Opponent, me: int) -> Tuple[Tuple[int, int], Tuple[Any, Any]]:
    """The GameBatch policies and networks of (white, black): the agent ``me`` external (2),
    the other side ``opponent``'s."""
    policy: List[int] = [2, 2]
    nets: List[Any] = [None, None]
    policy[1 - me], nets[1 - me] = opponent[0], opponent[1]
    return (policy[0], policy[1]), (nets[0], nets[1])


def check_opponent(rules: Rules, opponent: object, callable_ok: bool = True) -> Opponent:
    """The kernel policy of ``opponent`` (0 random, 1 greedy, 3 a network, 2 a callable
    played in Python), its compiled network and the callable; FastNardyError otherwise."""
    if isinstance(opponent, (str, Setting)):
        code, network = as_setting(opponent).kernel_policy(rules)
        return code, None if network is None else network.network, None
    if isinstance(opponent, Evaluator):
        if opponent.game != rules.game:
            raise FastNardyError(f"the opponent network is for {opponent.game} nardy, not "
                                 f"{rules.game}")
        return 3, opponent.network, None
    if callable_ok and callable(opponent):
        return 2, None, opponent
    kinds = "a setting of 0 ply ('random', 'greedy', 'net' ...), an Evaluator" + (
        " or a callable" if callable_ok else "")
    raise FastNardyError(f"opponent must be {kinds}, not {opponent!r}")


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


class ObservationLayout:
    """What each entry of an observation is (``names[i]`` of entry i), for one encoding:
    the observing side's points 1-24 and bar (its own numbering), the other side's points
    1-24 and bar (the other side's own numbering), then the roll (``"turns"``: ``die 1``,
    ``die 2``) or the dice left (``"steps"``: ``die left 1`` .. ``die left 4``, largest
    first). The slices pick each part out of an observation (or the last axis of many)."""

    own_points = slice(0, 24)
    own_bar = 24
    opponent_points = slice(25, 49)
    opponent_bar = 49

    def __init__(self, actions: str) -> None:
        self.actions = check_actions(actions)
        dice = ("die 1", "die 2") if actions == "turns" else tuple(
            f"die left {k}" for k in range(1, DICE_SLOTS + 1))
        self.names: Tuple[str, ...] = (
            tuple(f"own point {p}" for p in range(1, 25)) + ("own bar",)
            + tuple(f"opponent point {p}" for p in range(1, 25)) + ("opponent bar",) + dice)
        self.dice = slice(50, len(self.names))

    def __len__(self) -> int:
        return len(self.names)

    def index(self, name: str) -> int:
        """The entry named ``name`` (FastNardyError for a name not in the layout)."""
        if not isinstance(name, str) or name not in self.names:
            raise FastNardyError(f"no observation entry is named {name!r}")
        return self.names.index(name)

    def __repr__(self) -> str:
        return f"<ObservationLayout {self.actions!r}: {len(self)} entries>"


OBSERVATION_LAYOUT = {actions: ObservationLayout(actions) for actions in ACTIONS}
OBSERVATION_WIDTH = {actions: len(layout) for actions, layout in OBSERVATION_LAYOUT.items()}


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


def board_text(rules: Rules, key: npt.NDArray[Any], mover: int, dice: Optional[Any],
               played: Tuple[Any, ...] = ()) -> str:
    """The text board of a game's position, the roll to play and the steps taken this
    turn ((src, dst, hit) each)."""
    position: Position = decode(rules, key.reshape(1), SIDES[mover])[0]
    text = str(position)
    if dice is not None:
        text += f"\n{SIDES[mover]} to play {int(dice[0])}-{int(dice[1])}"
        if played:
            text += f", played so far: {notation.format_steps([Step(*s) for s in played])}"
    return text + "\n"


class KernelGame:
    """One game of the single- and two-agent environments, run in the kernel: a GameBatch
    of one game and, with ``"steps"``, its StepBatch (the partial turn of the mover); the
    allowed actions of the mover waiting for a choice (``mask``, int8), and each side's
    observation."""

    def __init__(self, rules: Rules, actions: str, seed: int, episode: int,
                 policy: Tuple[int, int], max_turns: int, auto_forced: bool = False,
                 nets: Tuple[Any, Any] = (None, None)) -> None:
        self.rules = rules
        self.actions = actions
        self.games = _kernel.GameBatch(rules.code, *rules.kernel_scoring(), 1, seed, policy,
                                       max_turns, False, nets)
        self.games.start(np.zeros(1, dtype=np.int64), np.array([episode]))
        self.steps = _kernel.StepBatch(self.games, auto_forced) if actions == "steps" else None
        self.mask = np.zeros(action_space(actions).n, dtype=np.int8)
        self._view: Optional[npt.NDArray[np.int8]] = None  # steps: board and dice left
        self.settle()

    def settle(self, choice: Optional[int] = None) -> None:
        """Play the waiting mover's ``choice`` (a legal turn's index, or a step) and run the
        game to its next choice."""
        self.stop()
        if self.steps is None:
            if choice is not None:
                self.games.play_choices(np.array([choice]))
            _, _, _, offsets = self.games.prepare()
            self.mask[:int(offsets[-1])] = 1
            return
        if choice is None:
            self.steps.settle()
        else:
            self.steps.play(np.array([choice]))
        _, rows, left, masks = self.steps.observe()
        if masks[0].any():
            self.mask = masks[0].view(np.int8)
            self._view = np.concatenate([rows[0], left[0]])

    def stop(self) -> None:
        """Nothing is allowed any more (an illegal action ended the episode, or before a
        settle)."""
        self.mask = np.zeros_like(self.mask)
        self._view = None

    def observe(self, me: int) -> npt.NDArray[np.int8]:
        """Side ``me``'s observation (0 white, 1 black): the board from its view, then its
        roll (``"turns"``) or the board after its steps and the dice left (``"steps"``) when
        it is the mover waiting for a choice, else zeros."""
        keys, mover, dice, _ = self.games.state()
        mine = bool(self.mask.any()) and int(mover[0]) == me
        if mine and self._view is not None:
            return self._view.copy()
        shown = np.zeros(OBSERVATION_WIDTH[self.actions] - 50, dtype=np.int8)
        if mine:
            shown[:2] = dice[0]
        return observe(self.rules, keys[0], int(mover[0]), me, shown)

    def outcome(self) -> Tuple[int, int, float]:
        """(status, winner, points): status 2 over, 3 truncated; winner 0 white, 1 black."""
        _, _, _, status = self.games.state()
        winner, points, _, _ = self.games.results()
        return int(status[0]), int(winner[0]), float(points[0])

    def mover(self) -> int:
        """The side to move (0 white, 1 black)."""
        return int(self.games.state()[1][0])

    def render(self, mode: Optional[str]) -> Optional[str]:
        """The text board, the roll to play and the steps taken: returned for ``"ansi"``,
        printed for ``"human"``; None without a mode."""
        if mode is None:
            return None
        keys, mover, dice, _ = self.games.state()
        waiting = bool(self.mask.any())
        played = self.steps.played(0) if self.steps is not None and waiting else ()
        key = self.steps.key(0) if self.steps is not None else keys[0]
        text = board_text(self.rules, np.asarray(key), int(mover[0]),
                          dice[0] if waiting else None, played)
        if mode == "human":
            print(text)
            return None
        return text


class NardyEnv(gymnasium.Env[npt.NDArray[np.int8], np.int64]):
    """The agent plays ``side`` against ``opponent`` (see the module docstring)."""

    metadata: Dict[str, Any] = {"render_modes": RENDER_MODES, "render_fps": 4}

    def __init__(self, rules: object = "long", opponent: object = "random", side: str = WHITE,
                 *, actions: str = "turns", max_turns: int = EPISODE_TURNS,
                 render_mode: Optional[str] = None, auto_forced: bool = False) -> None:
        self.rules = Rules.of(rules)
        self._opponent = check_opponent(self.rules, opponent)
        self.opponent = opponent
        self.me = (WHITE, BLACK).index(checks.side(side, "side"))
        self.actions = check_actions(actions)
        self.max_turns = checks.number(max_turns, "max_turns", 1, 1 << 30)
        self.render_mode = check_render_mode(render_mode)
        self.observation_space = spaces.Box(0, 15, (OBSERVATION_WIDTH[self.actions],), np.int8)
        self.action_space = action_space(self.actions)
        self.auto_forced = checks.flag(auto_forced, "auto_forced")
        self._seed: Optional[int] = None
        self._episode = 0
        self._game: Optional[KernelGame] = None

    @one_thread("NardyEnv", begins=True)
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
        chosen = reset_opponent(self.rules, options)
        if chosen is not None:
            self._opponent, self.opponent = chosen, cast(Dict[str, Any], options)["opponent"]
        policy, nets = sides(self._opponent, self.me)
        self._game = KernelGame(self.rules, self.actions, self._seed, self._episode, policy,
                                self.max_turns, self.auto_forced, nets)
        self._episode += 1
        self._opponent_moves()
        observation, _, _, _, info = self._report()
        if self.render_mode == "human":
            self.render()
        return observation, info

    @one_thread("NardyEnv")
    def step(self, action: Any) -> Tuple[npt.NDArray[np.int8], SupportsFloat, bool, bool,
                                        Dict[str, Any]]:
        """Play ``action`` (a legal turn, or a step of one) for the agent; once its turn is
        played, the opponent's turns up to the agent's next choice."""
        game = self._game
        if game is None:
            raise FastNardyError("call reset() before step()")
        if not game.mask.any():
            raise FastNardyError("the episode is over: call reset()")
        if not (isinstance(action, (int, np.integer)) and not isinstance(action, bool)
                and 0 <= int(action) < len(game.mask) and game.mask[int(action)]):
            game.stop()
            observation, _, _, _, info = self._report()
            info["illegal"] = True
            return observation, -float(max_points(self.rules)), True, False, info
        game.settle(int(action))
        self._opponent_moves()
        result = self._report()
        if self.render_mode == "human":
            self.render()
        return result

    def _opponent_moves(self) -> None:
        """A callable opponent plays its choices up to the agent's next one."""
        game = cast(KernelGame, self._game)
        choose = self._opponent[2]
        while choose is not None and game.mask.any() and game.mover() != self.me:
            action = integer(choose(game.observe(1 - self.me), game.mask.astype(bool)))
            if action is None or not 0 <= action < len(game.mask) or not game.mask[action]:
                raise FastNardyError(f"the opponent chose {action!r}, which is not one of its "
                                     f"{int(game.mask.sum())} allowed actions")
            game.settle(action)

    @one_thread("NardyEnv")
    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The allowed actions now (the convention of sb3-contrib)."""
        if self._game is None:
            return np.zeros(action_space(self.actions).n, dtype=np.bool_)
        mask: npt.NDArray[np.bool_] = self._game.mask.astype(bool)
        return mask

    @one_thread("NardyEnv")
    def render(self) -> Optional[str]:
        """The text board (``"ansi"``), printed with ``"human"``; None without a mode."""
        return None if self._game is None else self._game.render(self.render_mode)

    def _report(self) -> Tuple[npt.NDArray[np.int8], float, bool, bool, Dict[str, Any]]:
        """The agent's observation, reward and flags, and the info."""
        game = cast(KernelGame, self._game)
        status, winner, points = game.outcome()
        reward = 0.0
        if status == 2:
            reward = points if winner == self.me else -points
        info = {"action_mask": game.mask.copy(), "legal": int(game.mask.sum()),
                "illegal": False}
        return game.observe(self.me), reward, status == 2, status == 3, info


class NardyVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` episodes of :class:`NardyEnv` in one kernel batch: a
    ``gymnasium.vector.VectorEnv`` whose games, opponents and dice are those of the kernel's
    :class:`fastnardy.envs.vector.VectorEnv` machinery, without a Python loop over games.

    Observations (num_envs, 52 or 54) int8 and rewards as :class:`NardyEnv`'s, in either
    encoding (``actions``). With ``"turns"`` game i's action is an index into its legal turns,
    legal below ``infos["legal"][i]`` ((num_envs,) int64), and :meth:`action_masks` makes the
    (num_envs, MAX_TURNS_PER_ROLL) mask when asked (not every step: it is 5 KB a game). With
    ``"steps"`` it is one checker step (:mod:`fastnardy.envs.steps`), each game at its own
    step of its own turn, the (num_envs, 150) mask in ``infos["action_mask"]`` and
    :meth:`action_masks`; ``auto_forced`` as NardyEnv's. An illegal action ends that game as
    in NardyEnv. Autoreset in the same step (Gymnasium's ``SAME_STEP``): a game that ends is
    replaced by the next game of the run (streams 0 .. num_envs - 1 after ``reset(seed=s)``,
    then num_envs, num_envs + 1, ... in the order games end), its last observation in
    ``infos["final_obs"]`` where ``infos["_final_obs"]`` is True. :meth:`sb3` adapts it to
    stable-baselines3's ``VecEnv`` (for MaskablePPO too). One thread at a time
    (FastNardyError otherwise)."""

    metadata: Dict[str, Any] = {"autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP}

    def __init__(self, rules: object = "long", num_envs: int = 16, opponent: object = "random",
                 side: str = WHITE, *, actions: str = "turns", max_turns: int = EPISODE_TURNS,
                 auto_forced: bool = False) -> None:
        self.rules = Rules.of(rules)
        self.num_envs = checks.number(num_envs, "num_envs", 1, 1 << 24)
        self._opponent = check_opponent(self.rules, opponent, callable_ok=False)
        self.opponent = opponent
        self.me = (WHITE, BLACK).index(checks.side(side, "side"))
        self.actions = check_actions(actions)
        self.max_turns = checks.number(max_turns, "max_turns", 1, 1 << 30)
        self.auto_forced = checks.flag(auto_forced, "auto_forced")
        self.single_observation_space = spaces.Box(0, 15, (OBSERVATION_WIDTH[self.actions],),
                                                   np.int8)
        self.single_action_space = action_space(self.actions)
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, self.num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space,
                                                               self.num_envs)
        self._seed: Optional[int] = None
        self._games: Any = None
        self._steps: Any = None
        self._streams = 0
        self._legal = np.zeros(self.num_envs, dtype=np.int64)
        self._mask = np.zeros((self.num_envs, STEP_ACTIONS), dtype=bool)
        self._observation = np.zeros((self.num_envs, OBSERVATION_WIDTH[self.actions]),
                                     np.int8)

    @one_thread("NardyVectorEnv", begins=True)
    def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None
              ) -> Tuple[npt.NDArray[np.int8], Dict[str, Any]]:
        """New games 0 .. num_envs - 1 of the run of ``seed`` (a first reset without one
        takes a seed from the OS; later ones begin the next games of the run)."""
        if seed is not None:
            self._seed, self._streams = checks.number(seed, "seed", 0, (1 << 64) - 1), 0
        elif self._seed is None:
            self._seed = seed_from_os()
        chosen = reset_opponent(self.rules, options, callable_ok=False)
        if chosen is not None:
            self._opponent, self.opponent = chosen, cast(Dict[str, Any], options)["opponent"]
        policy, nets = sides(self._opponent, self.me)
        rules = self.rules
        self._games = _kernel.GameBatch(rules.code, *rules.kernel_scoring(), self.num_envs,
                                        self._seed, policy, self.max_turns, False, nets)
        everyone = np.arange(self.num_envs)
        self._games.start(everyone, self._streams + everyone)
        self._streams += self.num_envs
        if self.actions == "steps":
            self._steps = _kernel.StepBatch(self._games, self.auto_forced)
        observation, _, _, _, infos = self._settle(np.zeros(self.num_envs, dtype=bool), None)
        return observation, infos

    @one_thread("NardyVectorEnv")
    def step(self, actions: Any) -> Tuple[npt.NDArray[np.int8], npt.NDArray[np.float64],
                                         npt.NDArray[np.bool_], npt.NDArray[np.bool_],
                                         Dict[str, Any]]:
        """Play game i's action ``actions[i]`` (a legal turn, or a step of one) in every game,
        then the opponents' turns up to each agent's next choice (new games for those that
        end)."""
        if self._games is None:
            raise FastNardyError("call reset() before step()")
        array = checks.actions(actions, self.num_envs)
        if self.actions == "turns":
            illegal = (array < 0) | (array >= self._legal)
            self._games.play_choices(np.where(illegal, 0, array))
            return self._settle(illegal, None)
        inside = (array >= 0) & (array < STEP_ACTIONS)
        illegal = ~inside
        illegal[inside] = ~self._mask[np.flatnonzero(inside), array[inside]]
        return self._settle(illegal, np.where(illegal, -1, array))

    @one_thread("NardyVectorEnv")
    def action_masks(self) -> npt.NDArray[np.bool_]:
        """(num_envs, MAX_TURNS_PER_ROLL or STEP_ACTIONS) bool: each game's legal actions."""
        if self.actions == "steps":
            return self._mask.copy()
        mask: npt.NDArray[np.bool_] = np.arange(MAX_TURNS_PER_ROLL) < self._legal[:, None]
        return mask

    def sb3(self) -> Any:
        """This environment as a stable-baselines3 ``VecEnv`` (needs stable-baselines3):
        ``seed(s)`` then ``reset()`` starts the run of seed s; ``env_method("action_masks")``
        gives the masks MaskablePPO asks for; an ended game's last observation is its info's
        ``"terminal_observation"``; FastNardyError when stable-baselines3 is not installed."""
        try:
            from ._sb3 import NardyVecEnv
        except ImportError as error:  # not a dependency (as to_png's cairosvg is not)
            raise FastNardyError("NardyVectorEnv.sb3() needs stable-baselines3 "
                                 "(pip install stable-baselines3)") from error
        return NardyVecEnv(self)

    def _run(self, steps: Optional[npt.NDArray[Any]]) -> None:
        """The kernel call: play the steps (``"steps"``; -1 leaves a game where it is), then
        every game on to its agent's next choice (``"turns"``: the legal turns counted)."""
        if self._steps is None:
            _, _, waiting, offsets = self._games.prepare()
            self._legal = np.zeros(self.num_envs, dtype=np.int64)
            self._legal[waiting] = np.diff(offsets)
        elif steps is None:
            self._steps.settle()
        else:
            self._steps.play(steps)

    def _settle(self, illegal: npt.NDArray[np.bool_], steps: Optional[npt.NDArray[Any]]
                ) -> Tuple[npt.NDArray[np.int8], npt.NDArray[np.float64],
                           npt.NDArray[np.bool_], npt.NDArray[np.bool_], Dict[str, Any]]:
        """Play on to every agent's next choice; score, report and restart the games that
        ended (``illegal``: ended by an illegal action, scored minus the most points)."""
        games = self._games
        self._run(steps)
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
                    self.rules, keys[i], int(mover[i]), self.me,
                    np.zeros(OBSERVATION_WIDTH[self.actions] - 50, dtype=np.int8))
            infos["final_obs"], infos["_final_obs"] = final, terminated | truncated
        while len(ended):  # a new game may end before its agent has a choice
            games.start(ended, self._streams + np.arange(len(ended)))
            self._streams += len(ended)
            self._run(None)
            ended = np.flatnonzero(games.state()[3] >= 2)
        if self._steps is None:
            keys, _, dice, _ = games.state()  # every game waits for its agent: its frame
            self._observation = np.concatenate([rows_from_keys(self.rules, keys), dice],
                                               axis=1).astype(np.int8)
            infos["legal"] = self._legal.copy()
        else:
            _, rows, left, self._mask = self._steps.observe()
            self._observation = np.concatenate([rows, left], axis=1)
            infos["action_mask"] = self._mask.copy()
            infos["legal"] = self._mask.sum(axis=1)
        return self._observation.copy(), rewards, terminated, truncated, infos


for _name, _game in (("LongNardy", "long"), ("ShortNardy", "short")):
    if f"fastnardy/{_name}-v0" not in gymnasium.registry:
        gymnasium.register(f"fastnardy/{_name}-v0", kwargs={"rules": _game},
                           entry_point="fastnardy.envs.gymnasium:NardyEnv")
