"""The Gymnasium and PettingZoo adapters, checked by the libraries' own checkers, and their
games against fastnardy.simulate (the same dice streams, L10/S9 rewards)."""

from __future__ import annotations

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium", reason="Gymnasium is not installed: "
                                "pip install 'fastnardy[rl]'")
pettingzoo = pytest.importorskip("pettingzoo", reason="PettingZoo is not installed: "
                                 "pip install 'fastnardy[rl]'")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test  # noqa: E402

from fastnardy import FastNardyError, Rules, batch, simulate  # noqa: E402
from fastnardy.gymnasium_env import NardyEnv  # noqa: E402
from fastnardy.pettingzoo_env import NardyAEC  # noqa: E402
from fastnardy.play import greedy  # noqa: E402

RULES = [Rules.long(scoring="oin_mars_koks"), Rules.short()]


@pytest.mark.parametrize("rules", RULES)
def test_T1_gymnasium_check_env_passes(rules):
    check_env(NardyEnv(rules), skip_render_check=True)
    check_env(NardyEnv(rules, "greedy", "black"), skip_render_check=True)


@pytest.mark.parametrize("rules", RULES)
def test_T1_pettingzoo_api_test_passes(rules):
    api_test(NardyAEC(rules), num_cycles=2000, verbose_progress=False)


def greedy_action(rules: Rules, observation: np.ndarray, side: str) -> int:
    position = batch.decode(rules, observation[None, :50], side)[0]
    legal = position.legal_turns(tuple(int(d) for d in observation[50:]))
    return legal.index(greedy(position, legal))


@pytest.mark.parametrize("rules", RULES)
def test_L10_S9_gymnasium_episodes_are_the_simulated_games(rules):
    """An agent that plays fastnardy.play's greedy policy against the greedy opponent plays
    game k of simulate(rules, ..., seed, "greedy") in episode k: the same reward."""
    run = simulate(rules, 6, 4, "greedy")
    env = NardyEnv(rules, "greedy", "white")
    observation, info = env.reset(seed=4)
    for k in range(6):
        if k:
            observation, info = env.reset()
        reward, over = 0.0, False
        while not over:
            action = greedy_action(rules, observation, "white")
            assert info["action_mask"][action] == 1
            observation, reward, terminated, truncated, info = env.step(action)
            over = terminated or truncated
        expected = run.points[k] if run.winner[k] == 0 else -run.points[k]
        assert reward == expected


@pytest.mark.parametrize("rules", RULES)
def test_L10_S9_pettingzoo_games_end_zero_sum(rules):
    env = NardyAEC(rules)
    rng = np.random.default_rng(1)
    for episode in range(3):
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
        assert totals["white"] == -totals["black"] and abs(totals["white"]) in (1, 2, 3)


def test_T1_illegal_actions():
    env = NardyEnv("long")
    _, info = env.reset(seed=1)
    _, reward, terminated, _, info = env.step(info["legal"])
    assert terminated and reward == -2 and info["illegal"]
    with pytest.raises(FastNardyError):
        env.step(0)
    zoo = NardyAEC("short")
    zoo.reset(seed=0)
    with pytest.raises(FastNardyError, match="T1"):
        zoo.step(5219)
    with pytest.raises(FastNardyError):
        NardyEnv("long", "smart")
