"""Short nardy (backgammon), rule by rule (RULES.md §2) and the worked examples of §4."""

from __future__ import annotations

import pytest

from fastnardy import IllegalTurnError, Position, Rules
from conftest import short_pos, texts

START = {24: 2, 13: 5, 8: 3, 6: 5}


def test_S1_setup():
    start = Position.start("short")
    expected = tuple(START.get(p, 0) for p in range(1, 25))
    assert start.white_points == start.black_points == expected
    assert start.gnubg_id() == "4HPwATDgc/ABMA"


def test_S1_opening_six_four_has_fourteen_turns(backend):
    turns = Position.start("short").legal_turns((6, 4))
    assert len(turns) == 14 and "24/18 18/14" in texts(turns) and "13/7 7/3" in texts(turns)


def test_S2_checkers_move_from_higher_to_lower(backend):
    for turn in Position.start("short").legal_turns((5, 2)):
        assert all(s.src > s.dst for s in turn.steps)


def test_S3_two_checkers_close_a_point_one_is_hit(backend):
    # black blot on its 15 (white's 10), black pair on its 18 (white's 7)
    pos = short_pos({13: 15}, {15: 1, 18: 2, 24: 12})
    turns = pos.legal_turns((6, 3))
    assert texts(turns) == ["13/10* 10/4"]  # 13/7 is closed
    assert turns[0].position.black_bar == 1 and turns[0].steps[0].hit


def test_S3_intermediate_landings_hit_too(backend):
    pos = short_pos({13: 15}, {15: 1, 24: 14})  # blot on white's 10
    turn = pos.check_turn((3, 2), "13/10/8")
    assert turn.steps == ((13, 10, True), (10, 8, False)) and turn.position.black_bar == 1


def test_S4_no_head_rule_and_no_block_rule(backend):
    # both back checkers may leave point 24 in one turn (no L5) ...
    assert "24/18 24/20" in texts(Position.start("short").legal_turns((6, 4)))
    # ... and a prime of any length may be held and extended with every black checker
    # behind it (no L6): white holds 12..6, black waits on its 24 (white's 1)
    pos = short_pos({12: 1, 11: 2, 10: 2, 9: 2, 8: 2, 7: 2, 6: 4}, {24: 15})
    assert "6/4 6/5" in texts(pos.legal_turns((1, 2)))  # now 12..4: nine points
    # one die is one step (as L4): 12/9 is read as the two steps it abbreviates (T1) ...
    assert str(pos.check_turn((1, 2), "12/9")) == str(pos.check_turn((1, 2), "12/10 10/9"))
    with pytest.raises(IllegalTurnError) as err:  # ... and 12/5 spans no die nor both
        pos.check_turn((1, 2), "12/5")
    assert err.value.rule == "S4"


def test_S6_max_dice_and_the_larger_die(backend):
    # 12/6/2 and 12/8/2 end on white's 2, closed by black's pair on its 23: one die only
    pos = short_pos({12: 1}, {23: 2, 24: 13})
    assert texts(pos.legal_turns((6, 4))) == ["12/6"]
    with pytest.raises(IllegalTurnError, match=r"^S6: the larger die \(6\) must be played"):
        pos.check_turn((6, 4), "12/8")
    with pytest.raises(IllegalTurnError, match="^S6: a play using both dice exists"):
        Position.start("short").check_turn((6, 5), "24/18")


def test_S5_example8_enter_before_anything_else(backend):
    # white's 19 (black's 6) is closed: the 4 enters on 21, the 6 is then played by any checker
    pos = short_pos({24: 1, 13: 5, 8: 3, 6: 5}, START, white_bar=1)
    turns = pos.legal_turns((6, 4))
    assert turns and all(t.steps[0] == (25, 21, False) for t in turns)
    assert "bar/21 24/18" in texts(turns) and "bar/21 21/15" in texts(turns)
    with pytest.raises(IllegalTurnError, match=r"^S5: a checker on the bar must enter first"):
        pos.check_turn((6, 4), "13/7 13/9")


def test_S5_dice_that_cannot_enter_are_lost(backend):
    pos = short_pos({13: 13}, START, white_bar=2)
    assert texts(pos.legal_turns((6, 4))) == ["bar/21"]


def test_S7_no_bearing_off_with_a_checker_on_the_bar(backend):
    # black holds its 1..6 (white's 24..19): white's bar checker cannot enter, so white passes
    black = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 7: 3}
    pos = short_pos({6: 14}, black, white_bar=1)
    assert texts(pos.legal_turns((6, 5))) == ["pass"]


def test_S7_bearing_off_from_the_highest_point(backend):
    pos = short_pos({5: 2, 3: 1}, {24: 15})
    assert texts(pos.legal_turns((6, 6))) == ["5/off 5/off 3/off"]


# --- S8 hit-and-hide: a blot on white's 10 (black's 15), white's own checkers on 8 and 7
HIDE = {13: 2, 8: 2, 7: 2, 6: 9}
BLOT = {15: 1, 24: 14}


@pytest.mark.parametrize("variant, legal", [("allowed", True), ("forbidden", False)])
def test_S8_example9_a_hitter_may_not_hide_on_an_own_point(backend, variant, legal):
    pos = short_pos(HIDE, BLOT, hit_and_hide=variant)
    assert ("13/10* 10/8" in texts(pos.legal_turns((3, 2)))) == legal
    if not legal:
        with pytest.raises(IllegalTurnError) as err:
            pos.check_turn((3, 2), "13/10* 10/8")
        assert err.value.rule == "S8" and err.value.step == 2


def test_S8_a_hitter_may_hit_again_or_move_to_an_empty_point(backend):
    again = short_pos(HIDE, {15: 1, 16: 1, 24: 13}, hit_and_hide="forbidden")  # blots on 10, 9
    assert again.check_turn((3, 1), "13/10* 10/9*").position.black_bar == 2
    empty = short_pos(HIDE, BLOT, hit_and_hide="forbidden")
    assert empty.check_turn((3, 1), "13/10* 10/9").position.white_points[8] == 1


def test_S8_another_checker_may_cover_the_hitter(backend):
    pos = short_pos(HIDE, BLOT, hit_and_hide="forbidden")
    turn = pos.check_turn((3, 3), "13/10* 13/10 8/5 8/5")
    assert turn.position.white_points[9] == 2


def test_S8_having_hit_is_a_property_of_the_checker(backend):
    pos = short_pos(HIDE, BLOT, hit_and_hide="forbidden")
    # after 13/10* 13/10, one checker on 10 has not hit: it may go on to the own point 7
    assert pos.check_turn((3, 3), "13/10* 13/10 10/7 6/3")
    with pytest.raises(IllegalTurnError) as err:  # but the hitter may not follow it
        pos.check_turn((3, 3), "13/10* 13/10 10/7 10/7")
    assert err.value.rule == "S8" and err.value.step == 4
    allowed = short_pos(HIDE, BLOT)
    assert allowed.check_turn((3, 3), "13/10* 13/10 10/7 10/7")


@pytest.mark.parametrize("black, rules, expected", [
    ({24: 14}, Rules.short(), ("white", 1, "oin")),
    ({12: 15}, Rules.short(), ("white", 2, "mars")),
    ({20: 15}, Rules.short(), ("white", 3, "backgammon")),  # black's 20 is in white's home
    ({20: 15}, Rules.short(backgammon=False), ("white", 2, "mars")),
])
def test_S9_score(black, rules, expected):
    over = Position.from_points(rules, [0] * 24, [black.get(p, 0) for p in range(1, 25)],
                                "black")
    assert over.outcome() == expected


def test_S9_backgammon_with_a_checker_on_the_bar():
    over = Position.from_points("short", [0] * 24, [0] * 5 + [14] + [0] * 18, "black",
                                black_bar=1)
    assert over.outcome() == ("white", 3, "backgammon")


def test_S9_cube_multiplies_and_cube_cancels_mars():
    black = [0] * 11 + [15] + [0] * 12
    plain = Position.from_points("short", [0] * 24, black, "black")
    assert plain.outcome(cube=4) == ("white", 8, "mars")
    cancels = Position.from_points(Rules.short(cube_cancels_mars=True), [0] * 24, black, "black")
    assert cancels.outcome(cube=2) == ("white", 2, "oin")
    assert cancels.outcome() == ("white", 2, "mars")
