"""Position strings, reprs, the ASCII board, turn notation and GNU Backgammon IDs."""

from __future__ import annotations


import pytest

import fastnardy
from fastnardy import Position, Rules, Step, Turn
from fastnardy.benchmark import GNUBG_ID_FILES, gnubg_ids
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
