"""The compiled values (Position, Turn, LegalTurns): turn for turn the reference's, their
properties decode the packed key, they pickle, copy and stay immutable, and play trusts only
its own turns. (Moved from test_search_path.py.)"""

from __future__ import annotations

import copy
import pickle

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from fastnardy import (ALL_ROLLS, FastNardyError, IllegalTurnError, InvalidPositionError,
                       LegalTurns, Position, Rules, Turn, _kernel)
from strategies import positions

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])


@SETTINGS
@given(positions(), st.sampled_from(ALL_ROLLS))
def test_T1_T2_compiled_turns_equal_the_reference_turn_for_turn(position, roll):
    kernel = position.legal_turns(roll, backend="kernel")
    reference = position.legal_turns(roll, backend="reference")
    assert len(kernel) == len(reference)
    for mine, theirs in zip(kernel, reference):
        assert mine.steps == theirs.steps and mine.position == theirs.position
        assert mine.position.to_string() == theirs.position.to_string()
        assert hash(mine.position) == hash(theirs.position)
        assert position.play(mine) == mine.position == position.play(str(mine), roll)


@SETTINGS
@given(positions())
def test_position_properties_decode_the_key(position):
    again = Position.from_string(position.to_string())
    assert again == position and hash(again) == hash(position) and again.key == position.key
    me, me_bar, opp, opp_bar = position.mover_frame()
    assert _kernel.pack(me, me_bar, opp, opp_bar, position.rules.game) == position.key
    assert position.white_off == 15 - sum(position.white_points) - position.white_bar
    assert position.black_off == 15 - sum(position.black_points) - position.black_bar
    other = "black" if position.turn == "white" else "white"  # T7 does not depend on it
    swapped = Position.from_points(position.rules, position.white_points, position.black_points,
                                   other, position.white_bar, position.black_bar)
    assert swapped != position and hash(swapped) != hash(position)
    assert _kernel.swap_key(*position.key, position.rules.game) == swapped.key


@SETTINGS
@given(positions(), st.sampled_from(ALL_ROLLS))
def test_values_pickle_copy_and_deepcopy(position, roll):
    turns = position.legal_turns(roll)
    for value in (position, turns, position.rules) + tuple(turns[:3]):
        assert pickle.loads(pickle.dumps(value)) == value
        assert copy.copy(value) == value and copy.deepcopy(value) == value
    again = pickle.loads(pickle.dumps(turns))
    assert isinstance(again, LegalTurns) and list(again) == list(turns)
    if len(turns):
        turn = pickle.loads(pickle.dumps(turns[0]))
        assert isinstance(turn, Turn) and turn.steps == turns[0].steps


def test_values_are_immutable():
    position = Position.start("long")
    turn = position.legal_turns((6, 5))[0]
    for obj, name in ((position, "_turn"), (position, "turn"), (turn, "steps"),
                      (turn, "position"), (position, "white_points")):
        with pytest.raises(AttributeError):
            setattr(obj, name, None)
    with pytest.raises(AttributeError):
        position._assign(position.rules, "black", *position.mover_frame())
    assert position == Position.start("long") and position.turn == "white"


def test_turn_built_by_hand_and_bad_steps():
    start = Position.start("long")
    turn = start.legal_turns((6, 5))[0]
    assert Turn(turn.steps, turn.position) == turn
    assert Turn([(24, 18), (18, 13)], turn.position).steps == turn.steps
    assert start.play(Turn(turn.steps, turn.position)) == turn.position  # checked, not trusted
    for steps in ([(24, 18)] * 5, [(24,)], [("24", 18)], [(30, 1)], [(24.0, 18)], "24/18"):
        with pytest.raises(FastNardyError):
            Turn(steps, turn.position)
    with pytest.raises(InvalidPositionError):
        Turn(turn.steps, "long w 24:15 24:15")


def test_play_trusts_only_its_own_turns_and_dice():
    start = Position.start("long")
    turn = start.legal_turns((6, 5))[0]
    assert start.play(turn) == start.play(turn, (5, 6)) == turn.position
    other = Position.start(Rules.long(head_rule="tournament"))
    with pytest.raises(IllegalTurnError, match="T1"):  # a Turn of another position
        other.play(turn)
    assert other.play(str(turn)).white_points == turn.position.white_points
    with pytest.raises(FastNardyError):
        start.play(turn, (6, 6))  # a 6-5 turn is not legal for 6-6


def _last_frame_file(exc: BaseException) -> str:
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame.f_code.co_filename if tb is not None else ""


def test_a_pickle_with_any_byte_changed_loads_equal_consistent_or_refused_T1():
    """Every byte of the pickles of a LegalTurns, a Turn, a Position and its Rules changed
    (three ways): the load gives the value, another valid one (a LegalTurns always its
    position's legal turns, T1), or an error; an error raised by fastnardy's own restore is a
    FastNardyError (pickle's own, on a broken stream, are pickle's). Never a crash."""
    position = Position.from_string("short w bar:2,13:5,8:3,6:5 24:2,13:5,8:3,6:5")
    turns = position.legal_turns((2, 2))
    for value in (turns, turns[3], position, position.rules):
        data = pickle.dumps(value)
        for i in range(len(data)):
            for flip in (0x01, 0x80, 0xFF):
                damaged = bytearray(data)
                damaged[i] ^= flip
                try:
                    loaded = pickle.loads(bytes(damaged))
                except FastNardyError:
                    continue
                except Exception as exc:  # pickle's own: a broken stream, a wrong call
                    where = _last_frame_file(exc)  # this file: pickle's C code raised
                    assert where == __file__ or "fastnardy" not in where \
                        or "positional argument" in str(exc), (i, flip, exc)
                    continue
                if isinstance(loaded, LegalTurns):
                    origin = loaded.__reduce__()[1][0]
                    fresh = origin.legal_turns(loaded.roll, backend="kernel")
                    assert [(t.steps, t.position) for t in loaded] == \
                        [(t.steps, t.position) for t in fresh], (i, flip)
                str(loaded), repr(loaded)


@pytest.mark.parametrize("index", [-1, -2**40, 2**40])
def test_a_restored_iterator_out_of_range_is_exhausted(index):
    """A LegalTurns iterator pickled with its index changed reads no entry outside the
    turns: it stops."""
    iterator = iter(Position.start("short").legal_turns((2, 2)))
    restore, args, state = iterator.__reduce__()
    damaged = restore(*args)
    damaged.__setstate__((index,) + state[1:])
    assert list(damaged) == [] and damaged.__length_hint__() == 0


def test_a_spliced_legal_turns_pickle_is_refused_T1():
    """A LegalTurns whose entry carries another turn's steps (a valid key, valid steps) is
    refused when restored: its Turns would be trusted as legal by Position.play."""
    position = Position.start("short")
    restore, (origin, data, d1, d2) = position.legal_turns((6, 5)).__reduce__()
    size = len(data) // len(position.legal_turns((6, 5)))
    spliced = data[:16] + data[size + 16:size + 24] + data[24:]  # entry 0 with entry 1's steps
    with pytest.raises(InvalidPositionError, match="T1"):
        restore(origin, spliced, d1, d2)
    with pytest.raises(InvalidPositionError, match="turns; its position has"):
        restore(origin, data[:-size], d1, d2)
    with pytest.raises(InvalidPositionError, match="Position"):
        restore(position.rules, data, d1, d2)
    assert list(restore(origin, data, d1, d2)) == list(position.legal_turns((6, 5)))


def test_T1_a_generated_turn_builds_its_position_once_when_asked():
    """A Turn of legal_turns keeps its key and makes its Position at the first request (the
    same object after that, equal to the reference's); one made by Turn.__new__ alone has no
    position to give and says so."""
    start = Position.start("short")
    turns = start.legal_turns((6, 5))
    first = turns[0]
    assert first.position is first.position
    assert first.position == start.legal_turns((6, 5), backend="reference")[0].position
    assert pickle.loads(pickle.dumps(first)) == first and hash(first) == hash(first.position)
    with pytest.raises(InvalidPositionError):
        Turn.__new__(Turn).position
