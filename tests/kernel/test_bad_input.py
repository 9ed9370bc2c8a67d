"""Bad input gets a documented ValueError subclass with a clear message, never anything else."""

from __future__ import annotations

import dataclasses
import itertools
import os
from pathlib import Path
import subprocess
import sys

import numpy as np
import pytest
import fastnardy
from hypothesis import given, settings, strategies as st

from fastnardy import (FastNardyError, IllegalTurnError, InvalidDiceError, InvalidPositionError,
                       NotationError,
                       InvalidRulesError, Position, Rules, Turn, batch, perft, perft_divide)
from fastnardy import checks, notation, reference
from fastnardy.search import bearoff
from fastnardy.errors import InvalidRecordError
from fastnardy.formats.mat import read_mat, write_mat
from fastnardy.search.tree import evaluator, expectimax
from fastnardy.envs.vector import VectorEnv


def test_errors_are_value_errors():
    for error in (InvalidPositionError, InvalidDiceError, IllegalTurnError, InvalidRulesError):
        assert issubclass(error, FastNardyError) and issubclass(error, ValueError)


@pytest.mark.parametrize("call", [
    lambda: Rules.long(head_rule="strict"),
    lambda: Rules.long(block_rule=None),
    lambda: Rules.short(hit_and_hide=1),
    lambda: Rules.short(backgammon="yes"),
    lambda: Rules.of("nardy"),
    lambda: Position.start("chess"),
])
def test_bad_rules(call):
    with pytest.raises(InvalidRulesError):
        call()


def test_bad_rules_message_lists_the_allowed_values():
    with pytest.raises(InvalidRulesError, match="'classic', 'tournament', 'blocked'"):
        Rules.long(head_rule="x")


@pytest.mark.parametrize("white, black, kwargs", [
    ("24:15", [0] * 24, {}),
    (None, [0] * 24, {}),
    ([0] * 23, [0] * 24, {}),
    ([0] * 25, [0] * 24, {}),
    ([1.5] + [0] * 23, [0] * 24, {}),
    ([-1] + [0] * 23, [0] * 24, {}),
    (["a"] + [0] * 23, [0] * 24, {}),
    ([True] + [0] * 23, [0] * 24, {}),
    ([10 ** 30] + [0] * 23, [0] * 24, {}),
    ([0] * 24, [0] * 24, {"turn": "red"}),
    ([0] * 24, [0] * 24, {"white_bar": -1}),
    ([0] * 24, [0] * 24, {"white_bar": "1"}),
    ([[1]] * 24, [0] * 24, {}),
    (5, [0] * 24, {}),
])
def test_bad_from_points(white, black, kwargs):
    with pytest.raises(InvalidPositionError):
        Position.from_points("short", white, black, **kwargs)


def test_bad_position_constructor_arguments():
    for args in [(1, 2, 3, 4, 5, 6), ("long", "white", None, 0, None, 0),
                 ("long", ["white"], [0] * 24, 0, [0] * 24, 0), (None,) * 6]:
        with pytest.raises(FastNardyError):
            Position(*args)


@pytest.mark.parametrize("text", [
    "", "long", "long w", "long w 24:15", "long x 24:15 24:15", "longer w 24:15 24:15",
    "long w 24:16 24:15", "long w 25:15 24:15", "long w 24:15,24:1 24:15", "long w 0:15 24:15",
    "long w 24:15 24:15 extra", "long(head_rule=x) w 24:15 24:15", "long(foo=bar) w 24:15 24:15",
    "long(head_rule=blocked w 24:15 24:15", "short(backgammon=maybe) w - 1:1",
    "long w bar:1,24:14 24:15", "long w 24:a 24:15", "long w - -", "\x00", "long w : :",
    None, 42, b"long w 24:15 24:15", ["long", "w"],
])
def test_bad_position_strings(text):
    with pytest.raises(InvalidPositionError):
        Position.from_string(text)


@pytest.mark.parametrize("pid", ["", "4HPwATDgc/ABM", "4HPwATDgc/ABMA=", "!!!!!!!!!!!!!!",
                                 "//////////////", None, 7])
def test_bad_gnubg_ids(pid):
    with pytest.raises(InvalidPositionError):
        Position.from_gnubg_id(pid)


def test_gnubg_ids_are_for_short_nardy_only():
    with pytest.raises(InvalidPositionError, match="short"):
        Position.start("long").gnubg_id()
    with pytest.raises(InvalidPositionError, match="short"):
        Position.from_gnubg_id("4HPwATDgc/ABMA", rules="long")


@pytest.mark.parametrize("dice", [(0, 1), (7, 1), (1,), (1, 2, 3), "61", None, 6, (1.0, 2),
                                  (True, 2), ("6", "5"), (None, None), [], (-1, 3)])
def test_bad_dice(backend, dice):
    pos = Position.start("long")
    with pytest.raises(InvalidDiceError):
        pos.legal_turns(dice)
    with pytest.raises(InvalidDiceError):
        pos.check_turn(dice, "24/18 18/13")


def test_endless_dice_are_refused_not_read_forever(backend):
    """Dice are read no further than a third item: an endless iterator is an error."""
    pos = Position.start("long")
    with pytest.raises(InvalidDiceError):
        pos.legal_turns(itertools.count(1))
    with pytest.raises(InvalidDiceError):
        pos.check_turn(itertools.repeat(6), "24/18 18/13")


def test_endless_iterables_are_read_no_further_than_their_largest_legal_length(monkeypatch):
    """Steps (at most 4, L4), a step's fields, 24 point counts, and positions or games (at
    most checks.MAX_ITEMS, set low here) are read to one item past the most: an endless
    iterator is the documented error, not a hang until memory is gone."""
    start = Position.start("long")
    game = fastnardy.Game("long", seed=1)
    game.dice = (6, 5)
    for call in (lambda: start.check_turn((6, 5), itertools.count()),
                 lambda: start.check_turn((6, 5), itertools.repeat((24, 18))),
                 lambda: start.check_played((6, 5), itertools.repeat("24/18")),
                 lambda: start.play(itertools.repeat("24/18")),
                 lambda: start.play(itertools.repeat((24, 18)), (6, 5)),
                 lambda: game.play(itertools.repeat((24, 18))),
                 lambda: Turn(itertools.repeat((24, 18)), start),
                 lambda: Turn([itertools.count(24)], start)):
        with pytest.raises((IllegalTurnError, NotationError)):
            call()
    for call in (lambda: Position.from_points("long", itertools.repeat(0), start.black_points),
                 lambda: notation.format_side(itertools.count(), 0)):
        with pytest.raises(InvalidPositionError, match="got more"):
            call()
    monkeypatch.setattr(checks, "MAX_ITEMS", 50)
    with pytest.raises(InvalidPositionError, match="at most 50 positions"):
        batch.encode(itertools.repeat(start))
    assert len(batch.encode(itertools.repeat(start, 50))) == 50
    games = read_mat((Path(__file__).parents[1] / "data" / "gnubg" / "selfplay_0001.mat").read_text())
    with pytest.raises(InvalidRecordError, match="at most 50 games"):
        write_mat(itertools.repeat(games[0]))


def _reset(env: VectorEnv) -> VectorEnv:
    env.reset(seed=1)
    return env


@pytest.mark.parametrize("call", [
    lambda: batch.expand("long", [[0] * 50, [0] * 49], [(6, 5), (6, 5)]),
    lambda: batch.expand("long", batch.encode([Position.start("long")]), [[6, 5], [1]]),
    lambda: batch.chance_expand("short", [[0] * 50, [1]]),
    lambda: batch.count_turns("short", [[0] * 50, [1]], [(6, 5)]),
    lambda: batch.decode("short", [[0] * 50, [1]]),
    lambda: fastnardy.features("short", [[0] * 50, [1]], "tdgammon"),
    lambda: expectimax("long", [[0] * 50, [1]], evaluator(lambda rows: rows[:, 0], "rows")),
    lambda: _reset(VectorEnv("short", 2)).step([[0], [1, 2]]),
    lambda: bearoff.indices([[1, 0, 0, 0, 0, 0], [1]]),
])
def test_ragged_lists_are_documented_errors(call):
    """Rows of different lengths: numpy refuses them (ValueError); fastnardy says which
    argument is ragged, as its own error."""
    with pytest.raises(FastNardyError, match="ragged"):
        call()


@pytest.mark.parametrize("turn", [
    "24/x", "24", "24/18/", "/18", "24/18(9)", "24-18",
    None, 5, b"24/18", [(24,)], [("24", "18")], [(24, 18, 1, 2)], [(99, 1)], [(24, -1)],
    "24/18*x", "((", "24/18 18/13)", [[None, None]], "bar/off/",
])
def test_unreadable_turns_raise_a_notation_error_not_an_illegal_turn_T1(backend, turn):
    pos = Position.start("long")
    with pytest.raises(NotationError, match="^T1: ") as caught:
        pos.check_turn((6, 5), turn)
    assert caught.value.rule == "T1" and not isinstance(caught.value, IllegalTurnError)
    with pytest.raises(NotationError):
        pos.play(turn)


def test_five_steps_are_an_illegal_turn_L4(backend):
    with pytest.raises(IllegalTurnError, match="^L4: "):
        Position.start("long").check_turn((6, 5), "24/18 18/13 13/7 7/1 1/off")


def test_illegal_turn_names_rule_and_step(backend):
    with pytest.raises(IllegalTurnError) as err:
        Position.start("long").check_turn((4, 2), "24/20 24/22")
    assert str(err.value) == "L5: a second checker may not leave the head this turn (step 2, 24/22)"
    assert err.value.rule == "L5" and err.value.step == 2


def test_play_rejects_a_turn_of_another_position(backend):
    other = Position.start("short").legal_turns((5, 6))[0]
    assert str(other) == "24/18 18/13"  # the same steps are legal in long nardy
    with pytest.raises(IllegalTurnError, match="T1"):
        Position.start("long").play(other)
    with pytest.raises(IllegalTurnError, match="T1"):
        Position.start("long").check_turn((5, 6), other)


def test_play_without_dice_finds_a_roll(backend):
    start = Position.start("long")
    assert start.play("24/18 18/13") == start.legal_turns((6, 5))[0].position
    with pytest.raises(IllegalTurnError):
        start.play("24/18 24/13")


@pytest.mark.parametrize("depth", [-1, 1.5, "2", None, True])
def test_bad_perft_depth(backend, depth):
    with pytest.raises(FastNardyError):
        perft(Position.start("long"), depth)
    with pytest.raises(FastNardyError):
        perft_divide(Position.start("long"), depth)


def test_bad_outcome_cube():
    over = Position.from_points("long", [0] * 24, [0] * 23 + [15], "black")
    with pytest.raises(FastNardyError):
        over.outcome(cube=0)


@pytest.mark.parametrize("name", ["kernel", "reference"])
@pytest.mark.parametrize("args", [
    ((0, 0, 0, 0, 0), [0] * 23, 0, [0] * 24, 0, 1, 2),
    ((0, 0, 0, 0, 0), [0] * 23 + [16], 0, [0] * 24, 0, 1, 2),
    ((0, 0, 0, 0, 0), [0] * 23 + [15], 1, [0] * 23 + [14], 0, 1, 2),
    ((0, 0, 0, 0, 0), [0] * 23 + [15], 0, [0] * 23 + [15], 0, 0, 2),
    ((1, 0, 0, 0, 0), [1] + [0] * 23, 0, [0] * 23 + [1], 0, 1, 2),
    ((2, 0, 0, 0, 0), [0] * 24, 0, [0] * 24, 0, 1, 2),
    ((0, 0), [0] * 24, 0, [0] * 24, 0, 1, 2),
    (None, [0] * 24, 0, [0] * 24, 0, 1, 2),
    ((0, 0, 0, 0, 0), None, 0, [0] * 24, 0, 1, 2),
    ((0, 0, 0, 0, 0), [-1] + [0] * 23, 0, [0] * 24, 0, 1, 2),
])
def test_backend_boundary_validates(name, args):
    from fastnardy import backend

    module = backend.get(name)
    with pytest.raises(FastNardyError):
        module.enumerate_turns(*args)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40) | st.from_regex(r"(bar|off|[0-9²１]{1,3})(/(bar|off|[0-9]{1,2})\*?){1,3}"
                                            r"( .{0,6})?", fullmatch=True))
def test_any_text_gives_a_documented_error_or_a_result(text):
    start = Position.start("short")
    for call in (lambda: Position.from_string(text), lambda: start.check_turn((6, 4), text),
                 lambda: start.play(text), lambda: Position.from_gnubg_id(text)):
        try:
            call()
        except FastNardyError:
            pass


# --------------------------------------------------------------------------- issue 8: escapes

@pytest.mark.parametrize("call", [
    lambda: Rules("long", head_rule="bogus"),
    lambda: Rules("long", block_check=1),
    lambda: Rules("short", backgammon="yes"),
    lambda: Rules("long", hit_and_hide="allowed"),  # a short-nardy variant
    lambda: Rules("short", head_rule="classic"),  # a long-nardy variant
    lambda: Rules("chess"),
    lambda: Rules(None),
    lambda: Position.start(Rules("chess")),
    lambda: dataclasses.replace(Rules.long(), head_rule="strict"),
])
def test_rules_construction_validates_every_field(call):
    with pytest.raises(InvalidRulesError):
        call()


def test_rules_construction_fills_the_games_defaults():
    assert Rules("long") == Rules.long() and Rules("short") == Rules.short()
    assert Rules("long", head_rule="blocked") == Rules.long(head_rule="blocked")


@pytest.mark.parametrize("call", [
    lambda: Position.start(np.array("long")),
    lambda: Position.start(np.array(["long", "short"])),
    lambda: Rules.of(np.array(["long"])),
    lambda: Position.from_points(np.array("short"), [0] * 24, [0] * 24),
])
def test_numpy_string_arrays_are_not_a_game(call):
    with pytest.raises(InvalidRulesError):
        call()


@pytest.mark.parametrize("call", [
    lambda: Position.from_points("long", [0] * 23 + [15], [0] * 23 + [15],
                                 turn=np.array("white")),
    lambda: Position.from_points("long", [0] * 23 + [15], [0] * 23 + [15],
                                 turn=np.array(["white", "black"])),
    lambda: Position.from_gnubg_id("4HPwATDgc/ABMA", turn=np.array(["white", "black"])),
])
def test_numpy_string_arrays_are_not_a_side(call):
    with pytest.raises(InvalidPositionError):
        call()


ONE = np.array([1])  # numpy 2: __index__ exists and raises TypeError


@pytest.mark.parametrize("call, error", [
    (lambda: Position.from_points("long", [ONE] * 15 + [0] * 9, [0] * 23 + [15]),
     InvalidPositionError),
    (lambda: Position.from_points("short", Position.start("short").white_points,
                                  Position.start("short").black_points, white_bar=ONE * 0),
     InvalidPositionError),
    (lambda: Position.start("long").check_turn((6, 5), [(np.array([24]), 18), (18, 13)]),
     NotationError),
    (lambda: Turn([(np.array([24]), 18)], Position.start("long")), IllegalTurnError),
    (lambda: perft(Position.start("long"), ONE), FastNardyError),
    (lambda: perft_divide(Position.start("long"), ONE), FastNardyError),
    (lambda: reference.perft(Position.start("long"), ONE), FastNardyError),
    (lambda: batch.expand("long", batch.encode([Position.start("long")]), [[6, 5]],
                          max_children=ONE), FastNardyError),
])
def test_one_element_arrays_are_not_ints(call, error):
    with pytest.raises(error):
        call()


def test_checks_position_names_the_argument_and_the_kind():
    """checks.position: the value if it is a ``kind``, else InvalidPositionError "NAME must be a
    Position, not ..." (the one message of every door that takes a position)."""
    start = Position.start("long")
    assert checks.position(start, Position) is start
    for bad in ("start", None, start.to_string(), [start]):
        with pytest.raises(InvalidPositionError, match="^position must be a Position, not "):
            checks.position(bad, Position)
    with pytest.raises(InvalidPositionError, match="^start must be a Position, not 3$"):
        checks.position(3, Position, "start")


def test_checks_rows_are_c_contiguous_int8_board_rows_T7():
    """checks.rows: (N, 50) integer checker counts 0-15 as a C-contiguous int8 array (a copy
    where needed), else InvalidPositionError "NAME must be board rows, ..." naming the dtype
    and shape given."""
    rows = batch.encode([Position.start("long"), Position.start("short")])
    wide = np.asfortranarray(rows.astype(np.int64))
    checked = checks.rows(wide)
    assert checked.dtype == np.int8 and checked.flags["C_CONTIGUOUS"]
    assert np.array_equal(checked, rows)
    assert checks.rows(rows[:0]).shape == (0, 50)
    for bad, shown in ((rows[0], r"int8 \(50,\)"), (rows[:, :49], r"int8 \(2, 49\)"),
                       (rows.astype(float), r"float64 \(2, 50\)"),
                       (np.full((1, 50), 16), r"int64 \(1, 50\)"),
                       (np.full((1, 50), -1), r"int64 \(1, 50\)")):
        with pytest.raises(InvalidPositionError, match="^rows must be board rows, "
                           r"\(N, 50\) checker counts from 0 to 15, not " + shown):
            checks.rows(bad)
    with pytest.raises(InvalidPositionError, match="^children must be board rows"):
        checks.rows(rows[:, :3], "children")
    with pytest.raises(InvalidPositionError, match="ragged"):
        checks.rows([[0] * 50, [1]])


def test_the_doors_that_take_a_position_or_rows_check_them_alike():
    """The analysis, the players and the playouts all refuse a non-position with the same
    message, and a player refuses rows that are not board rows."""
    from fastnardy import analysis
    from fastnardy.play.players import Greedy
    from fastnardy.search.selfplay import playouts

    for call in (lambda: analysis.hint("start", (6, 5)), lambda: analysis.evaluate(None),
                 lambda: analysis.probabilities("x"), lambda: Greedy().turn("x", (6, 5)),
                 lambda: playouts("start", 3)):
        with pytest.raises(InvalidPositionError, match="^position must be a Position, not "):
            call()
    for rows in (np.zeros((2, 49), np.int8), np.full((2, 50), 16), np.zeros((2, 50))):
        with pytest.raises(InvalidPositionError, match="^rows must be board rows"):
            Greedy().choose("long", rows, [[6, 5], [6, 5]])


def test_batch_encode_of_none():
    with pytest.raises(InvalidPositionError):
        batch.encode(None)
    with pytest.raises(InvalidPositionError):
        batch.encode(np.array(0))
    with pytest.raises(FastNardyError):
        batch.encode([Position.start("long")], keys="yes")


def test_backend_must_be_a_name():
    with pytest.raises(FastNardyError, match="'kernel', 'reference'"):
        Position.start("long").legal_turns((6, 5), backend=["kernel"])


@pytest.mark.parametrize("call", [
    lambda: perft(Position.start("long"), 1, weighted="yes"),
    lambda: perft_divide(Position.start("long"), 1, weighted="yes"),
    lambda: reference.perft(Position.start("long"), 1, weighted="yes"),
    lambda: perft_divide(Position.start("long"), 65),
    lambda: perft(None, 1),
    lambda: reference.perft(None, 1),
    lambda: reference.legal_turns(None, (6, 5)),
])
def test_perft_options_are_checked(call):
    with pytest.raises(FastNardyError):
        call()


def test_a_position_cannot_be_changed():
    pos = Position.start("long")
    key = hash(pos)
    with pytest.raises(AttributeError):
        pos._turn = "black"
    with pytest.raises(AttributeError):
        pos.turn = "black"
    assert pos.turn == "white" and hash(pos) == key


def test_an_unknown_FASTNARDY_BACKEND_is_a_clear_error_at_import():
    code = ("import sys\ntry:\n    import fastnardy\nexcept ValueError as e:\n"
            "    if isinstance(e, sys.modules['fastnardy.errors'].FastNardyError):\n"
            "        print('CLEAR', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "FASTNARDY_BACKEND": "Reference"}, timeout=120)
    assert ("CLEAR the environment variable FASTNARDY_BACKEND must be one of 'kernel', "
            "'reference', not 'Reference'") in out.stdout, out.stderr
