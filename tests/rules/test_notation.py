"""Position strings, reprs, the ASCII board, turn notation and GNU Backgammon IDs."""

from __future__ import annotations


import pytest

import fastnardy
from fastnardy import Position, Rules, Step, Turn
from fastnardy.testing.speed import GNUBG_ID_FILES, gnubg_ids
from conftest import short_pos



@pytest.mark.parametrize("text", [
    "long w 24:15 24:15",
    "short w 24:2,13:5,8:3,6:5 24:2,13:5,8:3,6:5",
    "short(hit_and_hide=forbidden,backgammon=false) b bar:2,13:5,6:3 24:2,13:5,8:3,6:5",
    "long(head_rule=tournament,block_check=turn_end) b 24:14,20:1 24:15",
    "long(scoring=oin_mars_koks) w - 1:3",
    "short(cube_cancels_mars=true) w 1:1 -",
])
def test_position_string_round_trips(text):
    pos = Position.from_string(text)
    assert pos.to_string() == text
    assert eval(repr(pos), vars(fastnardy)) == pos


def test_rules_repr_evaluates_back():
    for rules in (Rules.long(), Rules.long(head_rule="blocked", block_rule="none"),
                  Rules.short(hit_and_hide="forbidden", backgammon=False)):
        assert eval(repr(rules), vars(fastnardy)) == rules


def test_turn_and_step_reprs_evaluate_back(backend):
    turn = Position.start("short").legal_turns((6, 4))[0]
    assert eval(repr(turn), vars(fastnardy)) == turn
    assert eval(repr(turn.steps[0]), vars(fastnardy)) == turn.steps[0]


def test_step_notation():
    assert [str(Step(24, 18)), str(Step(13, 10, True)), str(Step(25, 21)), str(Step(6, 0))] == [
        "24/18", "13/10*", "bar/21", "6/off"]


def test_board_drawing_shows_both_sides_bars_and_off():
    pos = short_pos({6: 14}, {24: 2, 13: 3}, white_bar=1)
    drawing = str(pos)
    assert "white to move" in drawing and "W14" in drawing
    assert "white: bar 1, off 0" in drawing and "black: bar 0, off 10" in drawing
    assert drawing.splitlines()[1].split()[0] == "13" and drawing.splitlines()[-2].split()[-1] == "1"


def test_turn_notation_variants_are_accepted(backend):
    start = Position.start("long")
    expected = start.legal_turns((6, 5))[0]
    for text in ("24/18 18/13", "24/18/13", "24/19 19/13", "24/18, 18/13", " 24/18  18/13 "):
        assert start.check_turn((6, 5), text) == expected
    assert start.check_turn((6, 5), [(24, 18), (18, 13)]) == expected
    assert start.check_turn((6, 5), expected) == expected
    short = Position.start("short")
    assert str(short.check_turn((4, 4), "13/9(2) 24/20(2)")) == "24/20 24/20 13/9 13/9"


def test_gnubg_start_and_side_to_move():
    start = Position.from_gnubg_id("4HPwATDgc/ABMA")
    assert start == Position.start("short")
    black = Position.from_gnubg_id("4HPwATDgc/ABMA", turn="black")
    assert black.turn == "black" and black.gnubg_id() == "4HPwATDgc/ABMA"


def test_gnubg_ids_of_the_benchmark_positions_round_trip_through_position():
    for name in GNUBG_ID_FILES:
        for pid in gnubg_ids(name):
            pos = Position.from_gnubg_id(pid)
            assert pos.gnubg_id() == pid
            assert Position.from_string(pos.to_string()) == pos


# --------------------------------------------------------------------------- T1 abbreviations

def test_one_checker_over_both_dice_reads_as_its_steps_S4(backend):
    start = Position.start("short")
    played = start.check_played((6, 5), "24/13")
    assert str(played.turn) == "24/18 18/13" and [str(s) for s in played.steps] == [
        "24/18", "18/13"]
    assert start.check_turn((6, 5), "24/13") == start.check_turn((6, 5), "24/18/13")
    assert str(start.check_turn((4, 4), "24/16 13/9(2)")) == "24/20 20/16 13/9 13/9"
    assert str(start.check_turn((4, 4), "13/5(2)")) == "13/9 13/9 9/5 9/5"
    assert str(start.check_turn((6, 4), "8/4 13/7")) == str(start.check_turn((6, 4), "13/7 8/4"))


def test_one_checker_over_four_dice_of_a_double_L4(backend):
    long_start = Position.start("long")
    assert str(long_start.check_turn((6, 5), "24/13")) == "24/18 18/13"
    opened = Position.from_string("long b 24:14,20:1 24:15")
    assert str(opened.check_turn((2, 2), "24/16")) == "24/22 22/20 20/18 18/16"


def test_the_order_of_the_dice_is_the_first_legal_one_S3(backend):
    # black holds point 18 (its 7): 24/13 goes 24/19/13 with the 5 first
    position = Position.from_string("short w 24:2,13:5,8:3,6:5 13:5,8:3,7:2,5:3,2:2")
    played = position.check_played((6, 5), "24/13")
    assert [str(s) for s in played.steps] == ["24/19", "19/13"]


def test_a_hit_on_the_way_must_be_written_S3_T1(backend):
    # a black blot on 18 (its 7), point 19 (its 6) closed: 24/13 can only go over the blot
    position = Position.from_string("short w 24:2,13:5,8:3,6:5 13:5,8:3,7:1,6:5,2:1")
    with pytest.raises(fastnardy.NotationError, match=r"^T1: 24/13 would hit a blot on the way"
                                                      r", on point 18.*24/18\*/13") as caught:
        position.check_turn((6, 5), "24/13")
    assert not isinstance(caught.value, fastnardy.IllegalTurnError)
    assert str(position.check_turn((6, 5), "24/18*/13")) == "24/18* 18/13"
    with pytest.raises(fastnardy.IllegalTurnError) as illegal:
        position.check_turn((6, 5), "24/19/13")
    assert illegal.value.rule == "S3"


def test_a_turn_without_its_roll_is_found_past_a_roll_that_would_hit_on_the_way_S3_T1(backend):
    """Position.play with no dice tries the rolls: bar/22* over 2-1 would hit the blot on 23
    unwritten (NotationError for that roll), but 3-1 plays it as written."""
    position = Position.from_string("short w bar:1,1:14 bar:1,4:1,3:1,2:1,1:11")
    turn = next(t for t in position.legal_turns((1, 3)) if str(t) == "bar/22* 22/21*")
    assert position.play("bar/22* 22/21*") == turn.position
    with pytest.raises(fastnardy.NotationError, match="^T1: bar/22 would hit a blot"):
        position.check_turn((1, 2), "bar/22")


def test_a_move_no_die_nor_dice_span_is_illegal_S4(backend):
    with pytest.raises(fastnardy.IllegalTurnError, match="^S4: no die left in the roll 6-5, alone or with others,") as caught:
        Position.start("short").check_turn((6, 5), "24/14")
    assert caught.value.rule == "S4" and caught.value.step == 1


def test_an_abbreviated_bear_off_reads_as_its_steps_S7(backend):
    alone = Position.from_string("short w 6:1 6:15")
    assert str(alone.check_turn((4, 3), "6/off")) == "6/2 2/off"


@pytest.mark.parametrize("text, dice, written, legal", [
    # S5: both checkers enter before either goes on
    ("short w bar:2,13:5,8:3,6:5 24:2,13:5,8:3,6:5", (2, 2), "bar/21(2)",
     "bar/23 bar/23 23/21 23/21"),
    # S7: bearing off waits until both checkers are home
    ("short w 12:1,10:1,3:7,2:6 12:15", (6, 6), "12/off 10/off", "12/6 10/4 6/off 4/off"),
    # L6 (every step): 21/18 21/18 must come between 23/20 and 20/17
    ("long b 24:15 23:1,22:2,21:2,20:5,19:1,10:1,9:1,8:1,5:1", (3, 3), "23/17 21/18(2)",
     None),
])
def test_abbreviated_moves_interleave_with_other_checkers_steps_T1(backend, text, dice,
                                                                   written, legal):
    position = Position.from_string(text)
    turn = position.check_turn(dice, written)
    assert turn in position.legal_turns(dice)
    if legal is not None:
        assert str(turn) == legal
    assert position.play(written, dice) == turn.position


def test_an_interleaving_that_breaks_a_rule_is_refused_by_that_rule_S3(backend):
    """Only one checker enters with 2-2 when the 4 point is closed for the second: bar/21(2)
    is refused, as S3, the rule its steps break."""
    position = Position.from_string("short w bar:2,13:5,8:3,6:5 24:2,13:5,8:3,6:3,4:2")
    with pytest.raises(fastnardy.IllegalTurnError) as caught:
        position.check_turn((2, 2), "bar/21(2)")
    assert caught.value.rule == "S3"


def test_abbreviations_read_in_play_game_and_records_T1(backend):
    start = Position.start("short")
    assert start.play("24/13") == start.legal_turns((6, 5))[0].position
    game = fastnardy.Game.from_position(start, seed=1)
    game.dice = (6, 5)
    assert str(game.play("24/13")) == "24/18 18/13"
    record = game.record()
    assert fastnardy.Game.from_record(record.replace("24/18 18/13", "24/13")).position \
        == game.position
    with pytest.raises(fastnardy.InvalidRecordError, match="T1"):
        fastnardy.Game.from_record(record.replace("24/18 18/13", "24/1x"))
