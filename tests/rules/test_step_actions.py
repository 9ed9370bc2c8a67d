"""fastnardy.envs.steps: the step encoding's mask against the legal turns (T1-T3, L5-L7,
S5-S8): every path of allowed steps ends in a legal turn, played in that order by the
referee, every legal turn is reached, and every playable order of a turn's steps (brute
force over the orders and die assignments) is a path of allowed steps."""

from __future__ import annotations

import copy
import random
from itertools import permutations
from typing import Dict, List, Tuple

import numpy as np
import pytest

from fastnardy import IllegalTurnError, InvalidDiceError, InvalidPositionError, Position, Rules
from fastnardy.testing import samples
from fastnardy.basics import ALL_ROLLS
from fastnardy.envs.steps import STEP_ACTIONS, TurnInProgress, action_of, step_of

RULES = [Rules.long(), Rules.long(block_check="turn_end", head_rule="blocked"),
         Rules.short(), Rules.short(hit_and_hide="forbidden")]


def positions(rules: Rules, n: int, seed: int) -> List[Position]:
    """Playout positions and the start (L1, S1), in the mover's frame as white to move."""
    rng = random.Random(seed)
    found = [Position.start(rules)]
    for me, me_bar, opp, opp_bar in samples.playouts(rng, rules.code, n):
        found.append(Position(rules, "white", me, me_bar, opp, opp_bar))
    return found


def paths(turn: TurnInProgress) -> Dict[Tuple[int, ...], int]:
    """Every sequence of allowed actions to a finished turn, with its turn index."""
    if turn.done:
        assert not turn.mask().any()
        return {turn.taken: turn.index}
    allowed = np.flatnonzero(turn.mask())
    assert len(allowed)  # T1: a turn in progress can always go on
    out: Dict[Tuple[int, ...], int] = {}
    for action in allowed:
        branch = copy.copy(turn)
        branch.play(int(action))
        out.update(paths(branch))
    return out


def pairs(actions: Tuple[int, ...]) -> List[Tuple[int, int]]:
    return [(src, max(src - die, 0)) for src, die in map(step_of, actions)]


@pytest.mark.parametrize("rules", RULES, ids=str)
def test_T1_T2_L7_step_paths_are_exactly_the_ways_to_play_the_legal_turns(rules):
    rng = random.Random(5)
    for position in positions(rules, 3, 3):
        for dice in rng.sample(ALL_ROLLS, 3):
            turn = TurnInProgress(position, dice)
            legal = turn.turns
            if len(legal) == 1 and not legal[0].steps:
                continue  # T3: a pass has no step
            found = paths(turn)
            assert set(found.values()) == set(range(len(legal)))  # every turn reached
            for actions in rng.sample(sorted(found), min(len(found), 20)):
                index = found[actions]
                played = position.check_played(dice, pairs(actions))
                assert played.turn == legal[index]
                assert [(s.src, s.dst) for s in played.steps] == pairs(actions)  # this order
            dice_list = list(turn.dice) * (2 if dice[0] == dice[1] else 1)
            for index, legal_turn in enumerate(legal):
                steps = [(s.src, s.dst) for s in legal_turn.steps]
                for order in set(permutations(steps)):
                    try:
                        played = position.check_played(dice, order)
                    except IllegalTurnError:
                        continue
                    if [(s.src, s.dst) for s in played.steps] != list(order):
                        continue  # the referee had to reorder: this order is not playable
                    ways = {tuple(action_of(src, die) for (src, dst), die in zip(order, given))
                            for given in permutations(dice_list, len(order))
                            if all(src - die == dst or (dst == 0 and src - die < 0)
                                   for (src, dst), die in zip(order, given))}
                    assert any(found.get(way) == index for way in ways), (position, dice, order)


def test_T2_six_five_from_the_start_may_begin_with_either_die():
    """24/13 with 6-5 is 24/18/13 or 24/19/13: both first steps are allowed (L5 keeps the
    second checker on the head)."""
    turn = TurnInProgress(Position.start("long"), (6, 5))
    assert set(np.flatnonzero(turn.mask())) == {action_of(24, 6), action_of(24, 5)}
    turn.play(action_of(24, 5))
    assert turn.dice_left() == (6, 0, 0, 0) and turn.row()[18] == 1
    assert set(np.flatnonzero(turn.mask())) == {action_of(19, 6)}  # L5: not the head again
    turn.play(action_of(19, 6))
    assert turn.done and str(turn.turn) == "24/18 18/13"
    assert [str(step) for step in turn.played] == ["24/19", "19/13"]


def test_S6_the_mask_forbids_steps_legal_alone_that_lose_dice_or_the_larger_die():
    """bar/21 with the 4 is a legal step, but then the 5 is lost, while bar/20 5/1 plays
    both dice; bar/20 with the 5 is legal, but only one die can be played and the larger
    must be (bar/19)."""
    both = Position.from_string("short w bar:1,5:4,4:2,3:2 "
                                "23:3,19:1,14:3,12:2,9:2,8:1,6:1,3:2")
    assert set(np.flatnonzero(TurnInProgress(both, (5, 4)).mask())) == {action_of(25, 5)}
    larger = Position.from_string("short w bar:1,5:3,3:5,2:4 16:3,13:2,11:3,7:2,4:5")
    turn = TurnInProgress(larger, (6, 5))
    assert set(np.flatnonzero(turn.mask())) == {action_of(25, 6)}
    turn.play(action_of(25, 6))
    assert turn.done and str(turn.turn) == "bar/19" and turn.dice_left() == (5, 0, 0, 0)


def test_S4_T1_a_step_outside_the_mask_is_an_illegal_turn_error():
    turn = TurnInProgress(Position.start("short"), (3, 1))
    with pytest.raises(IllegalTurnError, match="S4: no 6 is left to play"):
        turn.play(action_of(24, 6))
    for bad in (-1, STEP_ACTIONS, 2.0, True, "8"):
        with pytest.raises(IllegalTurnError):
            turn.play(bad)
    assert turn.taken == () and turn.dice_left() == (3, 1, 0, 0)
    assert all(action_of(*step_of(a)) == a for a in range(STEP_ACTIONS))
    with pytest.raises(IllegalTurnError, match="T4"):
        TurnInProgress(Position.from_string("short w 21:1,18:1,17:1 -"), (6, 4))
    with pytest.raises(InvalidDiceError):
        TurnInProgress(Position.start("long"), (7, 1))
    with pytest.raises(InvalidPositionError):
        TurnInProgress("long", (6, 1))


def test_S8_forbidden_hit_and_hide_a_step_the_mask_allows_is_played():
    """Issue 38's example: two checkers on 24, only one has hit; the one that has not makes
    the last 18/12 (S8), a legal turn, and every allowed step is playable."""
    position = Position.from_string("short(hit_and_hide=forbidden) b 24:2,13:1,11:1,8:3,7:1,"
                                    "6:4,2:3 24:2,13:2,9:1,8:3,7:1,6:5,3:1")
    turn = TurnInProgress(position, (6, 6))
    for action in (143, 143, 107, 107):
        assert turn.mask()[action]
        turn.play(action)
    assert turn.done and str(turn.turn) == "24/18* 24/18 18/12* 18/12"
    assert [step.hit for step in turn.played] == [True, False, True, False]


def test_S8_forbidden_every_legal_turn_is_reached_by_allowed_steps():
    """Over sampled positions of the S8 variant (one in about 170 position-rolls raised a
    KeyError before), every sequence of allowed steps plays, and together they reach every
    legal turn (T1)."""
    rng = random.Random(1)
    for sampled in samples.sample_positions("short", 400, seed=5):
        position = Position.from_string(sampled.to_string().replace(
            "short", "short(hit_and_hide=forbidden)", 1))
        start = TurnInProgress(position, (rng.randint(1, 6), rng.randint(1, 6)))
        reached, stack = set(), [start]
        while stack:
            turn = stack.pop()
            if turn.done:
                reached.add(turn.index)
                continue
            for action in np.flatnonzero(turn.mask()):
                branch = copy.copy(turn)
                branch.play(int(action))
                stack.append(branch)
        assert reached == set(range(len(start.turns))), position.to_string()
