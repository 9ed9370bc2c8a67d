"""The Gymnasium and PettingZoo adapters, checked by the libraries' own checkers, and their
games against fastnardy.simulate (the same dice streams, L10/S9 rewards), with either action
encoding (T1: a legal turn, or its steps)."""

from __future__ import annotations

import copy
import functools

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium", reason="Gymnasium is not installed: "
                                "pip install 'fastnardy[rl]'")
pettingzoo = pytest.importorskip("pettingzoo", reason="PettingZoo is not installed: "
                                 "pip install 'fastnardy[rl]'")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, render_test, seed_test  # noqa: E402

from fastnardy import FastNardyError, Rules, batch, simulate  # noqa: E402
from fastnardy.envs import pettingzoo as pettingzoo_env  # noqa: E402
from fastnardy.envs.gymnasium import OBSERVATION_LAYOUT, NardyEnv, NardyVectorEnv  # noqa: E402
from fastnardy.envs.pettingzoo import NardyAEC  # noqa: E402
from fastnardy.play.players import Greedy  # noqa: E402
from fastnardy.envs.steps import TurnInProgress  # noqa: E402

RULES = [Rules.long(scoring="oin_mars_koks"), Rules.short()]
IDS = {"long": "fastnardy/LongNardy-v0", "short": "fastnardy/ShortNardy-v0"}


@pytest.mark.parametrize("actions", ["turns", "steps"])
@pytest.mark.parametrize("game", ["long", "short"])
def test_T1_gymnasium_make_and_check_env_pass(game, actions):
    for render_mode in (None, "ansi"):
        env = gymnasium.make(IDS[game], actions=actions, render_mode=render_mode)
        assert env.unwrapped.rules == Rules.of(game)
        check_env(env.unwrapped, skip_render_check=render_mode is None)
    check_env(NardyEnv(game, "greedy", "black", actions=actions), skip_render_check=True)
    named = gymnasium.make(f"fastnardy.envs.gymnasium:{IDS[game]}", actions=actions)
    assert named.unwrapped.actions == actions


@pytest.mark.parametrize("actions", ["turns", "steps"])
@pytest.mark.parametrize("rules", RULES, ids=str)
# PettingZoo's own: api_test exempts only its own classic games, by name, from these two
# warnings about the observation {"observation", "action_mask"} that is its classic games'
# way of masking actions (fastnardy_v0 masks them the same way)
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array:UserWarning")
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be "
                            "gymnasium.spaces.box or gymnasium.spaces.discrete:UserWarning")
@pytest.mark.filterwarnings("error")  # issue 70 item 14: PettingZoo warned in every run
def test_T1_pettingzoo_api_seed_and_render_tests_pass(rules, actions):
    api_test(pettingzoo_env.env(rules, actions=actions), num_cycles=300,
             verbose_progress=False)
    seed_test(functools.partial(pettingzoo_env.env, rules, actions=actions), num_cycles=100)
    render_test(functools.partial(pettingzoo_env.raw_env, rules, actions=actions))


def test_T5_unseeded_environments_play_different_games_and_seeded_ones_repeat():
    vector = gymnasium.vector.SyncVectorEnv([lambda: NardyEnv("short")] * 4)
    observations, _ = vector.reset()
    games = [observations]
    for _ in range(10):
        observations, *_ = vector.step(np.zeros(4, dtype=np.int64))
        games.append(observations)
    games = np.stack(games, axis=1)  # (4 envs, 11 steps, 52)
    assert len({game.tobytes() for game in games}) == 4
    first, second = NardyEnv("long", actions="steps"), NardyEnv("long", actions="steps")
    a, _ = first.reset(seed=11)
    b, _ = second.reset(seed=11)
    assert np.array_equal(a, b)
    zoo = [NardyAEC("short"), NardyAEC("short")]
    for env in zoo:
        env.reset()
    assert zoo[0]._seed != zoo[1]._seed


def greedy_actions(rules: Rules, observation: np.ndarray, side: str, actions: str) -> list:
    """fastnardy.play's greedy turn for the observed roll: its index, or the steps of one
    way to play it (found by walking the step mask)."""
    position = batch.decode(rules, observation[None, :50], side)[0]
    dice = tuple(int(d) for d in observation[50:52])
    legal = position.legal_turns(dice)
    index = legal.index(Greedy().turn(position, dice))
    if actions == "turns":
        return [index]
    stack = [TurnInProgress(position, dice)]
    while stack:
        turn = stack.pop()
        if turn.done:
            if turn.index == index:
                return list(turn.taken)
            continue
        for action in np.flatnonzero(turn.mask()):
            branch = copy.copy(turn)
            branch.play(int(action))
            stack.append(branch)
    raise AssertionError("T1: a legal turn has no way to play it step by step")


@pytest.mark.parametrize("actions", ["turns", "steps"])
@pytest.mark.parametrize("rules", RULES, ids=str)
def test_L10_S9_gymnasium_episodes_are_the_simulated_games(rules, actions):
    """An agent that plays fastnardy.play's greedy policy against the greedy opponent plays
    game k of simulate(rules, ..., seed, "greedy") in episode k: the same reward, whether it
    names its turns or plays their steps."""
    run = simulate(rules, 3, 4, "greedy")
    env = NardyEnv(rules, "greedy", "white", actions=actions)
    observation, info = env.reset(seed=4)
    for k in range(3):
        if k:
            observation, info = env.reset()
        reward, over = 0.0, False
        while not over:
            for action in greedy_actions(rules, observation, "white", actions):
                assert not over and info["action_mask"][action] == 1
                observation, reward, terminated, truncated, info = env.step(action)
                over = terminated or truncated
        expected = run.points[k] if run.winner[k] == 0 else -run.points[k]
        assert reward == expected


@pytest.mark.parametrize("actions", ["turns", "steps"])
@pytest.mark.parametrize("rules", RULES, ids=str)
def test_L10_S9_pettingzoo_games_end_zero_sum(rules, actions):
    env = NardyAEC(rules, actions=actions)
    rng = np.random.default_rng(1)
    for episode in range(2):
        env.reset(seed=episode)
        totals = {agent: 0.0 for agent in env.possible_agents}
        for agent in env.agent_iter(5000):
            observation, reward, terminated, truncated, _ = env.last()
            totals[agent] += reward
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            env.step(int(rng.choice(legal)))
        assert totals["player_0"] == -totals["player_1"] and abs(totals["player_0"]) in (1, 2, 3)


def test_T1_illegal_actions():
    env = NardyEnv("long")
    _, info = env.reset(seed=1)
    _, reward, terminated, _, info = env.step(info["legal"])
    assert terminated and reward == -2 and info["illegal"]
    with pytest.raises(FastNardyError):
        env.step(0)
    steps = NardyEnv("short", actions="steps")
    _, info = steps.reset(seed=2)
    _, reward, terminated, _, info = steps.step(int(np.flatnonzero(info["action_mask"] == 0)[0]))
    assert terminated and reward == -3 and info["illegal"]
    zoo = NardyAEC("short")
    zoo.reset(seed=0)
    with pytest.raises(FastNardyError, match="T1"):
        zoo.step(5219)
    wrapped = pettingzoo_env.env("short", actions="steps")
    wrapped.reset(seed=0)
    mover = wrapped.agent_selection
    wrapped.step(int(np.flatnonzero(wrapped.observe(mover)["action_mask"] == 0)[0]))
    assert wrapped.terminations[mover] and wrapped.rewards[mover] == -3
    for bad in ({"opponent": "smart"}, {"actions": "moves"}, {"render_mode": "rgb_array"}):
        with pytest.raises(FastNardyError):
            NardyEnv("long", **bad)
    with pytest.raises(FastNardyError):
        NardyAEC("long", actions=3)


@pytest.mark.parametrize("rules", RULES, ids=str)
def test_L10_S9_vector_games_are_the_simulated_games(rules):
    """NardyVectorEnv's game i after reset(seed=s) is NardyEnv's episode i, which is game i
    of simulate(rules, ..., s, "greedy") when the agent plays greedy too."""
    run = simulate(rules, 4, 6, "greedy")
    env = NardyVectorEnv(rules, 4, "greedy")
    observation, info = env.reset(seed=6)
    assert env.observation_space.shape == (4, 52) and env.action_masks().shape == (4, 5220)
    first = {}
    while len(first) < 4:
        actions = np.array([greedy_actions(rules, row, "white", "turns")[0]
                            for row in observation])
        assert env.action_masks()[np.arange(4), actions].all() and (actions < info["legal"]).all()
        observation, rewards, terminated, truncated, info = env.step(actions)
        for i in np.flatnonzero(terminated | truncated):
            first.setdefault(int(i), (rewards[i], info["final_obs"][i]))
    for i, (reward, final) in first.items():
        assert reward == (run.points[i] if run.winner[i] == 0 else -run.points[i])
        assert final.shape == (52,) and not final[50:].any()


def test_T1_vector_illegal_actions_end_those_games_and_unseeded_runs_differ():
    env = NardyVectorEnv("short", 3)
    observation, info = env.reset(seed=2)
    actions = np.zeros(3, dtype=np.int64)
    actions[1] = info["legal"][1]
    _, rewards, terminated, _, info = env.step(actions)
    assert terminated[1] and rewards[1] == -3 and info["_final_obs"][1]
    assert np.array_equal(info["final_obs"][1], observation[1])
    with pytest.raises(FastNardyError):
        env.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(FastNardyError):
        NardyVectorEnv("short", 3).step(actions)
    one, two = NardyVectorEnv("long", 4), NardyVectorEnv("long", 4)
    assert not np.array_equal(one.reset()[0], two.reset()[0])  # their dice differ


@pytest.mark.parametrize("actions", ["turns", "steps"])
def test_T1_vector_env_as_sb3_vec_env(actions):
    pytest.importorskip("stable_baselines3", reason="stable-baselines3 is not installed")
    width = OBSERVATION_LAYOUT[actions].dice.stop
    venv = NardyVectorEnv("short", 4, max_turns=6, actions=actions).sb3()
    venv.seed(5)
    observation = venv.reset()
    assert observation.shape == (4, width) and venv.render_mode is None
    again = NardyVectorEnv("short", 4, actions=actions).sb3()
    again.seed(5)
    assert np.array_equal(again.reset(), observation)
    ended = 0
    for _ in range(8 if actions == "turns" else 40):
        masks = np.stack(venv.env_method("action_masks"))
        observation, rewards, dones, infos = venv.step(masks.argmax(axis=1))
        for i in np.flatnonzero(dones):
            assert infos[i]["terminal_observation"].shape == (width,)
            assert infos[i]["TimeLimit.truncated"]  # max_turns 6: cut off, not finished
            ended += 1
    assert ended and venv.get_attr("opponent") == ["random"] * 4


@pytest.mark.parametrize("actions", ["turns", "steps"])
def test_L10_opponents_a_network_a_callable_and_self_play_chosen_per_reset(actions):
    """Issue 38 item 5: the opponent is random, greedy, a network (an Evaluator, in the
    kernel) or a callable that sees the game from its side (self-play: the agent's own
    policy); reset(options=...) changes it; the network beats random over some games."""
    from fastnardy import FastNardyError
    from fastnardy.search import Evaluator
    from fastnardy.search.setting import Setting

    network = Evaluator.load("short")
    env = NardyEnv("short", opponent=network, actions=actions)
    seen = []

    def policy(observation, mask):  # the same policy for both sides: self-play
        seen.append(observation.copy())
        return int(np.flatnonzero(mask)[0])

    won = 0
    observation, info = env.reset(seed=1)
    for episode in range(12):
        if episode == 6:
            observation, info = env.reset(options={"opponent": policy})
        elif episode:
            observation, info = env.reset()
        over = False
        while not over:
            observation, reward, terminated, truncated, info = env.step(
                policy(observation, info["action_mask"] == 1))
            over = terminated or truncated
        won += episode < 6 and reward < 0
    assert won >= 4  # the network won most of its 6 games against the first-action policy
    assert env.opponent is policy and len(seen) > 100
    layout = OBSERVATION_LAYOUT[actions]
    for observation in seen:  # every observation the callable got had its roll to play
        assert observation[layout.dice].any()
    with pytest.raises(FastNardyError, match="unknown setting 'network'"):
        NardyEnv("short", opponent="network")
    with pytest.raises(FastNardyError, match="opponent must be"):
        NardyEnv("short", opponent=3)
    for deeper in ("net:1", Setting(plies=2), "gnubg:expert"):  # the kernel plays 0 ply only
        with pytest.raises(FastNardyError, match="at 0 ply"):
            NardyEnv("short", opponent=deeper)
    with pytest.raises(FastNardyError, match="for short nardy"):
        NardyEnv("long", opponent=network)
    with pytest.raises(FastNardyError, match="opponent must be"):
        NardyVectorEnv("short", 4, opponent=policy)
    vector = NardyVectorEnv("short", 4, opponent=network, actions=actions)
    _, infos = vector.reset(seed=2)
    vector.step(np.argmax(vector.action_masks(), axis=1))


def _episodes(env: NardyEnv, seed: int, count: int) -> list:
    """The observations and rewards of ``count`` episodes of the first-action agent."""
    seen = []
    observation, info = env.reset(seed=seed)
    for episode in range(count):
        if episode:
            observation, info = env.reset()
        over = False
        while not over:
            observation, reward, terminated, truncated, info = env.step(
                int(np.flatnonzero(info["action_mask"])[0]))
            seen.append(observation.tobytes())
            over = terminated or truncated
        seen.append(reward)
    return seen


def test_L10_opponents_are_settings_of_0_ply(tmp_path):
    """An opponent is also a setting of 0 ply (or its text), the same player as at every
    door: "net" plays as the shipped Evaluator, Setting("greedy") as "greedy"; int16 and a
    saved network's file are accepted; a deeper setting is refused."""
    from fastnardy.search import Evaluator
    from fastnardy.search.setting import Setting

    network = Evaluator.load("short")
    shipped = _episodes(NardyEnv("short", opponent=network), 3, 3)
    assert _episodes(NardyEnv("short", opponent="net"), 3, 3) == shipped
    assert _episodes(NardyEnv("short", opponent=Setting("net")), 3, 3) == shipped
    assert _episodes(NardyEnv("short", opponent="net:0:int16"), 3, 3)
    network.save(tmp_path / "saved.npz")
    assert _episodes(NardyEnv("short", opponent=str(tmp_path / "saved.npz")), 3, 3) == shipped
    greedy = _episodes(NardyEnv("long", opponent="greedy"), 5, 2)
    assert _episodes(NardyEnv("long", opponent=Setting("greedy")), 5, 2) == greedy
    assert greedy != _episodes(NardyEnv("long", opponent="random"), 5, 2)
    env = NardyEnv("long", opponent="random")
    env.reset(seed=1, options={"opponent": "net"})
    assert env.opponent == "net"


def test_observation_layout_names_every_entry():
    for actions, layout in OBSERVATION_LAYOUT.items():
        env = NardyEnv("long", actions=actions)
        observation, _ = env.reset(seed=1)
        assert len(layout) == observation.shape[0] == len(set(layout.names))
        assert layout.index("own point 24") == 23 and layout.index("opponent bar") == 49
        assert observation[layout.own_points].sum() + observation[layout.own_bar] == 15
        assert observation[layout.dice][:2].all()  # the roll, or the dice left, to play
    assert OBSERVATION_LAYOUT["steps"].names[-1] == "die left 4"
