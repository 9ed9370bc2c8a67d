"""fastnardy.envs.vector.VectorEnv: N games stepped by the kernel; the children are the legal
turns in T2 order (T1, T2), rewards by L10/S9, auto-reset with a fresh T6 opening."""

from __future__ import annotations

import numpy as np
import pytest

from fastnardy import FastNardyError, Position, Rules, batch, features
from fastnardy.basics import SIDES
from fastnardy.batch import decode
from fastnardy.envs.vector import MAX_TURNS_PER_ROLL, VectorEnv


def run(env: VectorEnv, steps: int, seed: int):
    rng = np.random.default_rng(seed)
    step = env.reset()
    out = [step]
    for _ in range(steps):
        step = env.step((rng.random(env.num_envs) * step.counts).astype(np.int64))
        out.append(step)
    return out


@pytest.mark.parametrize("rules", [Rules.long(scoring="oin_mars_koks"), Rules.short()])
def test_T1_T2_children_are_the_legal_turns_of_the_observed_roll(rules):
    env = VectorEnv(rules, 64, 3, observation="rows")
    for step in run(env, 40, 1):
        for i in range(0, 64, 7):
            children, _ = batch.expand(rules, step.observation[i:i + 1], step.dice[i:i + 1],
                                       keys=True)
            assert (children == step.children[step.offsets[i]:step.offsets[i + 1]]).all()
        assert (step.counts >= 2).all()  # forced turns are played without asking
        mask = step.action_mask()
        assert mask.shape == (64, MAX_TURNS_PER_ROLL) and (mask.sum(1) == step.counts).all()


@pytest.mark.parametrize("rules", [Rules.long(scoring="oin_mars_koks"), Rules.short()])
def test_L10_S9_rewards_are_zero_sum_points_and_games_restart(rules):
    env = VectorEnv(rules, 128, 5, observation="keys")
    ended = 0
    for step in run(env, 150, 2):
        assert (step.rewards.sum(axis=1) == 0).all()
        points = np.abs(step.rewards[:, 0])
        assert ((points > 0) == step.terminated).all()
        assert set(points[step.terminated]) <= {1.0, 2.0, 3.0}
        ended += int(step.terminated.sum())
    assert ended > 20  # random games end within 150 turns


def test_T5_the_same_seed_and_actions_give_the_same_steps():
    first = run(VectorEnv("short", 32, 9, observation=("features", "raw")), 60, 4)
    second = run(VectorEnv("short", 32, 9, observation=("features", "raw")), 60, 4)
    for a, b in zip(first, second):
        for x, y in zip(a, b):
            assert np.array_equal(x, y)
    keys = run(VectorEnv("short", 32, 9, observation="keys"), 1, 4)[-1]
    assert np.array_equal(features("short", keys.observation, "raw"), first[1].observation)


def test_T1_an_action_outside_the_legal_turns_is_refused():
    env = VectorEnv("long", 4, 0)
    step = env.reset()
    bad = np.zeros(4, dtype=np.int64)
    bad[2] = step.counts[2]
    with pytest.raises(FastNardyError, match="waiting game 2"):
        env.step(bad)
    with pytest.raises(FastNardyError):
        env.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(FastNardyError):
        VectorEnv("long", 4, observation=("features", "tdgammon"))
    with pytest.raises(FastNardyError):
        VectorEnv("long", 4).step(np.zeros(4, dtype=np.int64))


def test_T6_truncated_games_restart():
    env = VectorEnv("long", 8, 1, max_turns=5)
    truncated = sum(int(step.truncated.sum()) for step in run(env, 30, 0))
    assert truncated > 0


def test_T2_segment_argmax_is_the_first_best_child_of_each_game():
    rng = np.random.default_rng(3)
    sizes = rng.integers(1, 9, size=200)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    values = rng.integers(0, 4, size=int(offsets[-1])).astype(np.float64)  # many ties
    best = batch.segment_argmax(values, offsets)
    assert best.dtype == np.int64
    for i in range(200):
        assert best[i] == int(np.argmax(values[offsets[i]:offsets[i + 1]]))  # first of ties
    assert list(batch.segment_argmax(np.array([-np.inf, 2, 2]), [0, 1, 3])) == [0, 0]
    for bad_values, bad_offsets in ((values[:3], [0, 3, 3]), (values[:3], [0, 2]),
                                    (np.array([np.nan, 1.0]), [0, 2]), (values[:3], [1, 3]),
                                    (np.zeros((2, 2)), [0, 2]), (values[:3], [0.0, 3.0])):
        with pytest.raises(FastNardyError):
            batch.segment_argmax(bad_values, bad_offsets)


@pytest.mark.parametrize("rules", ["long", "short", "short(hit_and_hide=forbidden)",
                                   "long(block_check=turn_end,head_rule=blocked)"])
def test_T1_L7_S8_step_masks_of_the_batch_are_the_turn_in_progress_masks(rules):
    """actions="steps": every game's mask, board and dice left are those of a TurnInProgress
    of its position and roll after the same steps, through whole games with restarts."""
    from fastnardy.envs.steps import TurnInProgress
    from fastnardy.envs.vector import StepState

    parsed = Position.from_string(f"{rules} w 24:15 24:15").rules
    env = VectorEnv(parsed, 6, seed=4, actions="steps")
    out = env.reset()
    assert isinstance(out, StepState)
    rng = np.random.default_rng(1)
    turns = [None] * 6
    ended = 0
    for _ in range(400):
        keys, _, _, _ = env._steps.observe()
        for i in range(6):
            if turns[i] is None or turns[i].done:
                position = decode(parsed, keys[i:i + 1], SIDES[int(out.mover[i])])[0]
                turns[i] = TurnInProgress(position, tuple(int(d) for d in out.dice[i]))
            assert np.array_equal(turns[i].mask().astype(bool), out.mask[i])
            assert np.array_equal(turns[i].row(), out.observation[i])
            assert tuple(out.dice_left[i]) == turns[i].dice_left()
        actions = np.argmax(out.mask * rng.random(out.mask.shape), axis=1)
        for i in range(6):
            turns[i].play(int(actions[i]))
            if turns[i].done:
                turns[i] = None  # the kernel plays it, and the opponent moves
        out = env.step(actions)
        ended += int(out.terminated.sum())
        assert np.all(out.rewards.sum(axis=1) == 0)
        for i in np.flatnonzero(out.terminated | out.truncated):
            turns[i] = None
    assert ended > 0


def test_T1_an_unmasked_step_is_refused_and_nothing_moves():
    env = VectorEnv("short", 3, seed=2, actions="steps")
    out = env.reset()
    actions = np.argmax(out.mask, axis=1)
    bad = actions.copy()
    bad[1] = int(np.flatnonzero(~out.mask[1])[0])
    with pytest.raises(FastNardyError, match="game 1 is not an allowed step"):
        env.step(bad)
    with pytest.raises(FastNardyError, match="not a step"):
        env.step(np.full(3, -1))
    again = env._settle_steps()
    assert np.array_equal(again.mask, out.mask) and np.array_equal(again.observation,
                                                                   out.observation)
    env.step(actions)


def test_T1_auto_forced_plays_the_only_allowed_step():
    """auto_forced=True: no game ever waits with a single allowed step; by default some do."""
    seen = {False: 0, True: 0}
    for auto in (False, True):
        env = VectorEnv("long", 8, seed=3, actions="steps", auto_forced=auto)
        out = env.reset()
        rng = np.random.default_rng(0)
        for _ in range(300):
            seen[auto] += int((out.mask.sum(axis=1) == 1).sum())
            out = env.step(np.argmax(out.mask * rng.random(out.mask.shape), axis=1))
    assert seen[True] == 0 and seen[False] > 0
