"""The kernel's partial turns (fastnardy._steps, under TurnInProgress and the environments)
against the reference twin's step orders (reference.step_orders), for every rule variant:
the sequences of allowed actions are exactly the legal ways to play the roll step by step
(T1 after L5-L7, S5-S8), every one ends in one of the kernel's legal turns and every legal
turn is reached; and a refused step names its rule (referee.step_refusal)."""

from __future__ import annotations

import copy
import random
from typing import Dict, Tuple

import numpy as np
import pytest
from hypothesis import given, settings

from fastnardy import IllegalTurnError, Position, reference as ref
from fastnardy.envs.steps import TurnInProgress, action_of
from fastnardy.testing import samples

from strategies import ALL_RULES, dice, positions

Orders = Dict[Tuple[Tuple[int, int], ...], Position]


def kernel_orders(position: Position, roll: Tuple[int, int]) -> Orders:
    """Every sequence of allowed actions, as (src, die) steps, with the position it plays."""
    out: Orders = {}
    stack = [TurnInProgress(position, roll)]
    while stack:
        turn = stack.pop()
        if turn.done:
            assert not turn.mask().any()
            out[tuple((a // 6 + 1, a % 6 + 1) for a in turn.taken)] = turn.turn.position
            continue
        allowed = np.flatnonzero(turn.mask())
        assert len(allowed), (position.to_string(), roll, turn.taken)  # T1: it goes on
        for action in allowed:
            branch = copy.copy(turn)
            branch.play(int(action))
            stack.append(branch)
    return out


def reference_orders(position: Position, roll: Tuple[int, int]) -> Orders:
    rules = ref.parse_code(position.rules.code)
    start = ref.to_state(rules, *position.mover_frame())
    return {path: position._from_mover_frame(*ref.from_state(rules, state))
            for path, state in ref.step_orders(rules, start, roll).items()}


def check(position: Position, roll: Tuple[int, int]) -> None:
    if position.is_game_over():
        return
    found = kernel_orders(position, roll)
    assert found == reference_orders(position, roll), (position.to_string(), roll)
    assert set(found.values()) == {t.position for t in position.legal_turns(roll)}


@pytest.mark.parametrize("rules", ALL_RULES, ids=str)
def test_T1_L7_S8_kernel_step_orders_equal_the_reference_on_playouts(rules):
    rng = random.Random(hash(str(rules)) & 0xFFFF)
    found = [Position.start(rules)] + [
        Position(rules, "white", *sides) for sides in samples.playouts(rng, rules.code, 12)]
    for position in found:
        for roll in rng.sample([(a, b) for a in range(1, 7) for b in range(1, a + 1)], 4):
            check(position, roll)


@settings(max_examples=150, deadline=None)
@given(positions(), dice)
def test_T1_L5_L6_S5_S7_kernel_step_orders_equal_the_reference_on_placements(position, roll):
    check(position, roll)


def test_T3_a_pass_is_done_before_any_step():
    blocked = Position.from_string("short w bar:2,6:13 1:2,2:2,3:2,4:2,5:2,6:2,7:3")
    turn = TurnInProgress(blocked, (6, 6))
    assert turn.done and turn.taken == () and not turn.mask().any()
    assert not turn.turn.steps


def refusal(position: Position, roll, actions, src: int, die: int) -> IllegalTurnError:
    turn = TurnInProgress(position, roll)
    for action in actions:
        turn.play(action)
    with pytest.raises(IllegalTurnError) as caught:
        turn.play(action_of(src, die))
    assert caught.value.step == len(actions) + 1
    return caught.value


def test_L5_L3_refused_steps_name_their_rule():
    start = Position.start("long")
    assert refusal(start, (6, 5), [action_of(24, 6)], 24, 5).rule == "L5"
    assert refusal(start, (6, 5), [], 23, 6).rule == "L4"  # no checker there


def test_S5_S3_S6_refused_steps_name_their_rule():
    both = Position.from_string("short w bar:1,5:4,4:2,3:2 "
                                "23:3,19:1,14:3,12:2,9:2,8:1,6:1,3:2")
    assert refusal(both, (5, 4), [], 5, 5).rule == "S5"  # the bar first
    error = refusal(both, (5, 4), [], 25, 4)  # bar/21 is legal alone, but loses the 5
    assert error.rule == "S6" and "both dice" in str(error)
    larger = Position.from_string("short w bar:1,5:3,3:5,2:4 16:3,13:2,11:3,7:2,4:5")
    error = refusal(larger, (6, 5), [], 25, 5)
    assert error.rule == "S6" and "larger die (6)" in str(error)
    start = Position.start("short")
    assert refusal(start, (6, 5), [], 6, 5).rule == "S3"  # 6/1: two opponent checkers there


def test_T1_S8_check_step_returns_the_step_as_played_or_names_the_rule():
    """referee.check_step, a game server's check of each step as it is made."""
    from fastnardy import NotationError, referee

    position = Position.from_string("short(hit_and_hide=forbidden) b 24:2,13:1,11:1,8:3,7:1,"
                                    "6:4,2:3 24:2,13:2,9:1,8:3,7:1,6:5,3:1")
    assert referee.check_step(position, (6, 6), [], 24, 6) == (24, 18, True)
    assert referee.check_step(position, (6, 6), [(24, 6), (24, 6), (18, 6)], 18, 6) == (
        18, 12, False)
    with pytest.raises(IllegalTurnError) as caught:
        referee.check_step(position, (6, 6), [(24, 6), (24, 6)], 7, 6)  # 7/1: two white
    assert caught.value.rule == "S3" and caught.value.step == 3
    with pytest.raises(IllegalTurnError) as caught:
        referee.check_step(Position.start("long"), (6, 5), [(24, 6), (24, 5)], 18, 5)
    assert caught.value.rule == "L5" and caught.value.step == 2  # the refused one taken
    for taken in ([(24, 6)] * 4, "24/18", [(0, 6)], [(24, 7)], 5):
        with pytest.raises(NotationError):
            referee.check_step(Position.start("long"), (6, 6), taken, 24, 6)
