"""Long nardy, rule by rule (RULES.md §1) and the worked examples of §4."""

from __future__ import annotations

import pytest

from fastnardy import IllegalTurnError, InvalidPositionError, Position, Rules
from conftest import long_pos, texts

HEAD_ONLY = {24: 15}


def test_L1_setup_all_fifteen_on_the_head():
    start = Position.start("long")
    assert start.white_points == (0,) * 23 + (15,)
    assert start.black_points == (0,) * 23 + (15,)
    assert start.turn == "white" and start.white_off == start.black_off == 0


def test_L1_board_coordinates_black_head_is_board_point_12():
    assert "B15" in str(Position.start("long")).splitlines()[4]  # the 12..1 row starts at 12


def test_L2_checkers_move_from_higher_to_lower_points(backend):
    for roll in [(1, 2), (6, 5), (4, 4)]:
        for turn in Position.start("long").legal_turns(roll):
            assert all(step.src > step.dst for step in turn.steps)


def test_L2_a_backward_step_is_refused(backend):
    pos = long_pos({24: 14, 18: 1}, {24: 15})
    with pytest.raises(IllegalTurnError, match=r"^L2: checkers move from higher to lower "
                                               r"points \(step 1, 18/24\)"):
        pos.check_turn((6, 5), "18/24 24/19")


def test_L4_a_step_must_match_a_die(backend):
    with pytest.raises(IllegalTurnError, match=r"^L4: no die left in the roll 6-5, alone or "
                                               r"with others, moves a checker 4 pips "
                                               r"\(step 1, 24/20\)"):
        Position.start("long").check_turn((6, 5), "24/20 20/15")
    with pytest.raises(IllegalTurnError, match=r"^L4: no die left in the roll 2-1, alone or "
                                               r"with others, bears a checker off from point 5"):
        long_pos({5: 15}, {24: 15}).check_turn((2, 1), "5/off")


def test_L3_no_step_ends_on_an_opponent_point_and_nothing_is_hit(backend):
    # white 20:1; black on its 16 = white's 4 and its 14 = white's 2 (mirror q-12 / q+12)
    pos = long_pos({20: 1, 24: 14}, {16: 1, 14: 1, 24: 13})
    turns = pos.legal_turns((6, 4))
    assert all(not s.hit for t in turns for s in t.steps)
    assert turns and all((s.dst not in (4, 2)) for t in turns for s in t.steps)


def test_L3_one_opponent_checker_closes_a_point(backend):
    pos = long_pos({24: 15}, {6: 1, 24: 14})  # black's 6 is white's 18
    assert texts(pos.legal_turns((6, 5))) == ["24/19 19/13"]  # 24/18 is closed by one checker
    with pytest.raises(IllegalTurnError) as err:
        pos.check_turn((6, 5), "24/18 18/13")
    assert err.value.rule == "L3" and "step 1, 24/18" in str(err.value)


def test_L4_each_intermediate_landing_is_a_step_of_its_own(backend):
    # 6-5 with white's 18 and 19 both closed: the checker cannot jump 11 pips
    pos = long_pos({24: 15}, {6: 1, 7: 1, 24: 13})
    assert texts(pos.legal_turns((6, 5))) == ["pass"]


def test_L4_two_checkers_may_not_split_one_die(backend):
    with pytest.raises(IllegalTurnError) as err:
        long_pos({24: 13, 23: 1, 22: 1}, {24: 15}).check_turn((2, 1), "24/23 22/21 23/22")
    assert err.value.rule == "L4"


def test_L5_only_one_checker_leaves_the_head_per_turn(backend):
    pos = long_pos({24: 14, 20: 1}, {24: 14, 1: 1}, turn="white")
    for turn in pos.legal_turns((5, 2)):
        assert sum(1 for s in turn.steps if s.src == 24) <= 1
    with pytest.raises(IllegalTurnError, match=r"^L5: a second checker may not leave the head "
                                               r"this turn \(step 2, 24/22\)"):
        pos.check_turn((5, 2), "24/19 24/22")


@pytest.mark.parametrize("head_rule", ["classic", "tournament", "blocked"])
def test_L5_example1_opening_six_six_two_checkers_to_18(backend, head_rule):
    pos = Position.start(Rules.long(head_rule=head_rule))
    assert texts(pos.legal_turns((6, 6))) == ["24/18 24/18"]


@pytest.mark.parametrize("head_rule", ["classic", "tournament", "blocked"])
def test_L5_example2_opening_three_three_two_turns(backend, head_rule):
    pos = Position.start(Rules.long(head_rule=head_rule))
    turns = pos.legal_turns((3, 3))
    assert len(turns) == 2
    assert {tuple(t.position.white_points[p - 1] for p in (21, 18, 15)) for t in turns} == {
        (1, 0, 1), (0, 2, 0)}


@pytest.mark.parametrize("head_rule, expected", [
    ("classic", ["24/20 24/20"]),
    ("tournament", ["24/20"]),
    ("blocked", ["24/20 24/20"]),
])
def test_L5_example3_black_four_four_after_white_five_five(backend, head_rule, expected):
    after_55 = long_pos({24: 14, 4: 1}, HEAD_ONLY, turn="black", head_rule=head_rule)
    assert texts(after_55.legal_turns((4, 4))) == expected


@pytest.mark.parametrize("head_rule, expected", [
    ("classic", ["24/19 19/14"]),
    ("tournament", ["24/19 19/14"]),
    ("blocked", ["24/19 24/19 19/14 19/14"]),
])
def test_L5_example4_black_five_five_after_white_two_one(backend, head_rule, expected):
    after_21 = long_pos({24: 14, 21: 1}, HEAD_ONLY, turn="black", head_rule=head_rule)
    assert texts(after_21.legal_turns((5, 5))) == expected


@pytest.mark.parametrize("white, roll, expected", [
    ({24: 14, 4: 1}, (6, 2), ["24/18 24/22"]),  # after 5-5, 6-2 takes two checkers
    ({24: 14, 16: 1}, (5, 5), ["24/19 24/19 19/14 19/14", "24/19 24/19 19/14 14/9"]),
])
def test_L5_blocked_seed_002_second_checker_when_one_cannot_play_in_full(backend, white, roll,
                                                                         expected):
    pos = long_pos(white, HEAD_ONLY, turn="black", head_rule="blocked")
    assert texts(pos.legal_turns(roll)) == expected
    classic = long_pos(white, HEAD_ONLY, turn="black")
    assert all(sum(s.src == 24 for s in t.steps) == 1 for t in classic.legal_turns(roll))


def test_L5_head_rule_applies_only_on_the_first_turn(backend):
    # 14 on the head, one moved: 6-6 takes one checker only, whatever the head rule
    for head_rule in ("classic", "tournament", "blocked"):
        pos = long_pos({24: 14, 23: 1}, {24: 15}, head_rule=head_rule)
        for turn in pos.legal_turns((6, 6)):
            assert sum(s.src == 24 for s in turn.steps) == 1


def test_L5_tournament_needs_the_opponent_head_occupied(backend):
    # black has left its head entirely: white's first 6-6 keeps to one head checker
    pos = long_pos(HEAD_ONLY, {1: 15}, head_rule="tournament")
    assert all(sum(s.src == 24 for s in t.steps) == 1 for t in pos.legal_turns((6, 6)))
    classic = long_pos(HEAD_ONLY, {1: 15})
    assert texts(classic.legal_turns((6, 6)))[0].startswith("24/18 24/18")


# --- L6: six-block. White holds white's 19..15 (black's 7..3), two on 15; 4-1 can play
# 24/20 15/14 and hold 20..14 (black's 8..2). Black on its head (white's 12) unless said.
FIVE = {19: 1, 18: 1, 17: 1, 16: 1, 15: 2, 24: 9}
BLOCKING_TURN = "24/20 15/14"


def _makes_block(turn) -> bool:
    return all(turn.position.white_points[p - 1] for p in range(14, 21))


@pytest.mark.parametrize("block_rule, black, allowed", [
    ("opponent_ahead", {24: 15}, False),
    ("opponent_ahead", {24: 14, 1: 1}, True),    # black's 1 (white's 13) is ahead of 2..8
    ("opponent_home", {24: 14, 1: 1}, True),
    ("opponent_home", {24: 15}, False),
    ("none", {24: 15}, True),
])
def test_L6_six_block_needs_an_opponent_checker_ahead_or_home(backend, block_rule, black, allowed):
    pos = long_pos(FIVE, black, block_rule=block_rule)
    turns = pos.legal_turns((4, 1))
    assert any(_makes_block(t) for t in turns) == allowed
    if allowed:
        assert _makes_block(pos.check_turn((4, 1), BLOCKING_TURN))
    else:
        with pytest.raises(IllegalTurnError) as err:
            pos.check_turn((4, 1), BLOCKING_TURN)
        assert err.value.rule == "L6" and "step 1, 24/20" in str(err.value)


def test_L6_opponent_ahead_but_not_home_separates_the_two_rules(backend):
    # 5/4 makes white's 9..4 = black's 21..16; black's checker on its 10 (white's 22) is ahead
    # of the block but not in black's home
    white = {20: 1, 9: 1, 8: 1, 7: 1, 6: 1, 5: 2, 24: 8}  # 20/18 plays the 2
    black = {10: 1, 24: 14}
    made = {}
    for rule in ("opponent_ahead", "opponent_home"):
        turns = long_pos(white, black, block_rule=rule).legal_turns((2, 1))
        made[rule] = any(all(t.position.white_points[p - 1] for p in range(4, 10)) for t in turns)
    assert made == {"opponent_ahead": True, "opponent_home": False}


def test_L6_a_block_may_run_across_board_points_1_and_24():
    # white's 22,23,24,1,2,3 are black's 10..15: consecutive on black's path
    across = {22: 1, 23: 1, 24: 10, 1: 1, 2: 1, 3: 1}
    with pytest.raises(InvalidPositionError, match="L6"):
        long_pos(across, {24: 15})
    assert long_pos(across, {24: 15}, block_rule="none")
    # white's 15..10 are black's 3,2,1 and 24,23,22: not consecutive on black's path
    assert long_pos({15: 1, 14: 1, 13: 1, 12: 1, 11: 1, 10: 1, 24: 9}, {20: 15})


def test_L6_every_step_forbids_a_block_even_in_passing(backend):
    # 2-1: 22/20 makes 20..15 (black's 8..3) and 20/19 breaks it again; 22/21 is closed
    # (black's 9), so the checker can only pass through the block
    white = {22: 1, 19: 1, 18: 1, 17: 1, 16: 1, 15: 1, 24: 9}
    black = {9: 1, 24: 14}
    every = long_pos(white, black)
    turn_end = long_pos(white, black, block_check="turn_end")
    assert "22/20 20/19" not in texts(every.legal_turns((2, 1)))
    assert "22/20 20/19" in texts(turn_end.legal_turns((2, 1)))
    with pytest.raises(IllegalTurnError) as err:
        every.check_turn((2, 1), "22/20 20/19")
    assert err.value.rule == "L6" and err.value.step == 1


def test_L6_turn_end_rejects_a_turn_that_ends_in_a_block(backend):
    pos = long_pos(FIVE, {24: 15}, block_check="turn_end")
    assert not any(_makes_block(t) for t in pos.legal_turns((4, 1)))
    with pytest.raises(IllegalTurnError) as err:
        pos.check_turn((4, 1), BLOCKING_TURN)
    assert err.value.rule == "L6" and "ends with" in str(err.value)


def test_L6_T7_a_forbidden_block_is_not_a_valid_position():
    white = {20: 1, 19: 1, 18: 1, 17: 1, 16: 1, 15: 1, 24: 9}
    with pytest.raises(InvalidPositionError, match="L6"):
        long_pos(white, {24: 15})
    assert long_pos(white, {24: 15}, block_rule="none")
    assert long_pos(white, {24: 14, 1: 1})  # a black checker is ahead of the block


def test_L7_example5_larger_die_when_only_one_can_be_played(backend):
    pos = long_pos({12: 1}, {14: 15})  # black's 14 = white's 2 blocks 12/6/2 and 12/8/2
    assert texts(pos.legal_turns((6, 4))) == ["12/6"]
    with pytest.raises(IllegalTurnError, match=r"^L7: the larger die \(6\) must be played"):
        pos.check_turn((6, 4), "12/8")


def test_L7_both_dice_must_be_played_when_possible(backend):
    with pytest.raises(IllegalTurnError, match="^L7: a play using both dice exists"):
        Position.start("long").check_turn((6, 5), "24/18")


def test_L7_bearing_off_the_fifteenth_checker_uses_all_dice(backend):
    pos = long_pos({1: 1}, {24: 15})
    assert texts(pos.legal_turns((6, 5))) == ["1/off"]
    assert pos.play("1/off", dice=(6, 5)).is_game_over()


def test_L8_example6_bear_off_from_the_highest_points(backend):
    pos = long_pos({4: 1, 3: 2, 2: 1}, {24: 15})
    assert texts(pos.legal_turns((6, 5))) == ["4/off 3/off"]


def test_L8_example7_a_die_may_not_bear_off_a_lower_checker_while_a_higher_stands(backend):
    two_on_4 = long_pos({4: 2, 2: 1, 1: 1}, {24: 15})
    assert texts(two_on_4.legal_turns((4, 3))) == ["4/off 4/1"]
    with pytest.raises(IllegalTurnError) as err:
        two_on_4.check_turn((4, 3), "4/off 2/off")
    assert err.value.rule == "L8" and err.value.step == 2
    one_on_4 = long_pos({4: 1, 2: 1, 1: 1}, {24: 15})
    assert texts(one_on_4.legal_turns((4, 3))) == ["4/off 2/off", "4/1 2/off"]


def test_L8_bearing_off_needs_all_checkers_home_checked_before_each_step(backend):
    pos = long_pos({8: 1, 5: 14}, {24: 15})
    assert "8/2 5/off" in texts(pos.legal_turns((6, 5)))  # home first, then off
    assert str(pos.check_turn((6, 5), "5/off 8/2")) == "8/2 5/off"  # another order is fine
    with pytest.raises(IllegalTurnError) as err:
        pos.check_turn((6, 5), "5/off 5/off")
    assert err.value.rule == "L8" and err.value.step == 1


def test_L9_game_ends_when_the_fifteenth_checker_is_off(backend):
    over = long_pos({}, {24: 15}, turn="black")
    assert over.is_game_over()
    assert over.legal_turns((6, 5)) == []


@pytest.mark.parametrize("scoring, black, kind, points", [
    ("oin_mars", {24: 14}, "oin", 1),
    ("oin_mars", {24: 15}, "mars", 2),
    ("oin_mars_koks", {24: 15}, "koks", 3),
    ("oin_mars_koks", {3: 15}, "mars", 2),
])
def test_L10_score_oin_mars_koks(scoring, black, kind, points):
    over = long_pos({}, black, turn="black", scoring=scoring)
    assert over.outcome() == ("white", points, kind)
    assert Position.start("long").outcome() is None
