"""Turns, passes, perft and valid positions (RULES.md §3: T1-T7)."""

from __future__ import annotations

import pytest

from fastnardy import (ALL_ROLLS, IllegalTurnError, InvalidDiceError, InvalidPositionError,
                       PlayedTurn, Position, Rules, Step, Turn, perft, perft_divide)
from conftest import long_pos, short_pos, texts

LONG_START_COUNTS = {(3, 3): 2}  # every other roll has exactly one turn
SHORT_START_COUNTS = {
    "11": 42, "12": 15, "13": 16, "14": 14, "15": 8, "16": 10, "22": 75, "23": 17, "24": 18,
    "25": 8, "26": 14, "33": 73, "34": 17, "35": 9, "36": 14, "44": 52, "45": 9, "46": 14,
    "55": 4, "56": 7, "66": 11,
}


@pytest.mark.parametrize("head_rule", ["classic", "tournament", "blocked"])
def test_turn_counts_per_roll_from_the_long_start(backend, head_rule):
    start = Position.start(Rules.long(head_rule=head_rule))
    for roll in ALL_ROLLS:
        assert len(start.legal_turns(roll)) == LONG_START_COUNTS.get(roll, 1), roll


@pytest.mark.parametrize("hide", ["allowed", "forbidden"])
def test_turn_counts_per_roll_from_the_short_start(backend, hide):
    start = Position.start(Rules.short(hit_and_hide=hide))
    counts = {f"{a}{b}": len(start.legal_turns((a, b))) for a, b in ALL_ROLLS}
    assert counts == SHORT_START_COUNTS


def test_T1_a_turn_is_identified_by_its_position(backend):
    start = Position.start("long")
    turns = start.legal_turns((2, 1))
    assert len(turns) == 1  # 24/22/21 and 24/23/21 are one turn
    assert turns[0] == Turn([(24, 23), (23, 21)], turns[0].position)
    assert hash(turns[0]) == hash(turns[0].position)
    assert turns[0].position.turn == "black"
    with pytest.raises(AttributeError):
        turns[0].steps = ()  # Turn and Position are immutable
    with pytest.raises(AttributeError):
        turns[0].position.turn = "white"


def test_T2_longer_step_first_from_one_point(backend):
    assert texts(Position.start("long").legal_turns((6, 5))) == ["24/18 18/13"]
    assert texts(Position.start("long").legal_turns((5, 6))) == ["24/18 18/13"]


def test_T2_turns_sorted_by_representative_sequence(backend):
    def key(turn):
        return tuple((-s.src, s.dst) for s in turn.steps)

    for pos in (Position.start("short"), short_pos({13: 5, 8: 5, 6: 5}, {24: 2, 6: 13})):
        for roll in ALL_ROLLS:
            keys = [key(t) for t in pos.legal_turns(roll)]
            assert keys == sorted(keys) and len(set(keys)) == len(keys)


def test_T3_pass_is_one_empty_turn(backend):
    pos = long_pos({24: 15}, {6: 1, 7: 1, 24: 13})
    [turn] = pos.legal_turns((6, 5))
    assert turn.is_pass() and str(turn) == "pass"
    assert turn.position.white_points == pos.white_points and turn.position.turn == "black"
    assert pos.check_turn((6, 5), "pass") == turn
    assert pos.play("pass", dice=(6, 5)) == turn.position


def test_T1_check_played_keeps_the_steps_as_played(backend):
    """check_turn gives the legal Turn with its T2 representative; check_played also keeps
    the steps the player played: in the order given (hits marked), or, when that order cannot
    be played, in the first order that can."""
    pos = Position.from_string("short w 24:2,13:4,8:2,7:2,6:5 24:1,22:1,13:4,10:1,8:3,6:5")
    played = pos.check_played((6, 3), "24/21 21/15")
    assert isinstance(played, PlayedTurn)
    assert played.turn == pos.check_turn((6, 3), "24/21 21/15")
    assert str(played.turn) == "24/18 18/15*"  # T2: from 24 the longer step first
    assert played.steps == (Step(24, 21), Step(21, 15, True)) and str(played) == "24/21 21/15*"
    assert pos.check_played((6, 3), "21/15 24/21").steps == played.steps  # 21/15 cannot be first
    assert pos.check_played((3, 6), [(24, 18), (18, 15)]).steps == played.turn.steps
    assert pos.check_played((6, 3), played.turn).steps == played.turn.steps
    blocked = long_pos({24: 15}, {6: 1, 7: 1, 24: 13})  # T3: a pass
    assert blocked.check_played((6, 5), "pass") == (blocked.legal_turns((6, 5))[0], ())
    with pytest.raises(IllegalTurnError, match="S4"):
        pos.check_played((6, 3), "24/20 20/15")


def test_T4_game_over_has_no_turns_and_perft_counts_one(backend):
    over = short_pos({}, {24: 15}, turn="black")
    assert over.is_game_over() and over.legal_turns((3, 1)) == []
    assert perft(over, 0) == perft(over, 3) == 1


def test_T5_perft_definition(backend):
    start = Position.start("short")
    assert perft(start, 0) == 1
    assert perft(start, 1) == sum(SHORT_START_COUNTS.values()) == 447
    doubles = sum(v for k, v in SHORT_START_COUNTS.items() if k[0] == k[1])
    assert perft(start, 1, weighted=True) == 2 * 447 - doubles
    assert perft(Position.start("long"), 1) == 22
    assert perft(Position.start("long"), 2) == 484


def test_T5_perft_divide_adds_up(backend):
    pos = Position.start("long")
    divide = perft_divide(pos, 2)
    assert list(divide) == list(ALL_ROLLS)
    assert sum(n for turns in divide.values() for _, n in turns) == perft(pos, 2)
    assert [str(t) for t, _ in divide[(5, 6)]] == ["24/18 18/13"]


@pytest.mark.parametrize("game, dice", [("short", (6, 3)), ("long", None)])
def test_T6_opening_roll(game, dice):
    pos, play = Position.opening(game, 3, 6)
    assert pos.turn == "black" and play == dice
    pos, _ = Position.opening(game, 5, 2)
    assert pos.turn == "white"
    with pytest.raises(InvalidDiceError, match="T6"):
        Position.opening(game, 4, 4)


@pytest.mark.parametrize("make, rule", [
    (lambda: Position.from_points("long", [15] + [0] * 23, [0] * 12 + [14] + [0] * 11), "both"),
    (lambda: Position.from_points("short", [1] + [0] * 23, [0] * 23 + [1]), "both"),  # 1 ~ 24
    (lambda: Position.from_points("long", [0] * 23 + [14], [0] * 23 + [15], white_bar=1), "bar"),
    (lambda: Position.from_points("short", [0] * 23 + [16], [0] * 23 + [15]), "0 and 15"),
    (lambda: Position.from_points("short", [0] * 23 + [10], [0] * 23 + [15], white_bar=6),
     "at most 15"),
    (lambda: Position.from_points("short", [0] * 24, [0] * 24), "both sides have borne off"),
])
def test_T7_invalid_positions_are_rejected(make, rule):
    with pytest.raises(InvalidPositionError, match=rule):
        make()


def test_T7_long_shared_point_uses_the_long_mirror():
    # white's 1 is black's 13 in long nardy, but black's 24 in short nardy
    assert Position.from_points("long", [1] + [0] * 22 + [14], [0] * 23 + [15])
    with pytest.raises(InvalidPositionError, match="both"):
        Position.from_points("long", [1] + [0] * 22 + [14], [0] * 12 + [1] + [0] * 10 + [14])


def test_legal_turns_is_a_lazy_immutable_sequence(backend):
    turns = Position.start("short").legal_turns((6, 4))
    assert len(turns) == 14 and turns == list(turns) and list(turns) == turns
    assert turns[-1] == list(turns)[-1] and turns[2:4] == list(turns)[2:4]
    assert turns[0] is turns[0]  # built once
    assert turns != list(turns)[:-1] and turns != "24/18 24/20"
    with pytest.raises(IndexError):
        turns[14]
    with pytest.raises(TypeError):
        turns[0] = turns[1]
    assert "24/18 24/20" in repr(turns)
