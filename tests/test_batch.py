"""fastnardy.batch: numpy rows, kernel counts and expansions agree with Position.legal_turns;
keys and rows give the same children, chance nodes equal 21 expand calls, and bad keys and
too large results are clean errors (the last part moved from test_search_path.py)."""

from __future__ import annotations

import gc

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from fastnardy import (ALL_ROLLS, FastNardyError, InvalidDiceError, InvalidPositionError,
                       Position, batch)
from fastnardy.errors import ResourceLimitError
from strategies import ALL_RULES, positions

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])


def _group(rules, data, size=5):
    return [data.draw(positions(st.just(rules))) for _ in range(size)]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(st.lists(positions(st.sampled_from(["long", "short"]).map(
    lambda g: Position.start(g).rules)), min_size=1, max_size=6), st.data())
def test_counts_and_expansions_match_legal_turns(group, data):
    rules = group[0].rules
    group = [p for p in group if p.rules == rules]
    boards = batch.encode(group)
    assert boards.shape == (len(group), 50) and boards.dtype == np.int8
    for i, position in enumerate(group):
        assert batch.decode(rules, boards[i:i + 1], turn=position.turn) == [position]
    dice = np.array([data.draw(st.sampled_from(ALL_ROLLS)) for _ in group])
    counts = batch.count_turns(rules, boards, dice)
    children, parent = batch.expand(rules, boards, dice)
    for i, position in enumerate(group):
        turns = position.legal_turns(tuple(dice[i]))
        assert counts[i] == len(turns)
        expected = batch.encode([t.position for t in turns]) if turns else np.empty((0, 50))
        assert np.array_equal(children[parent == i], expected)


def test_bad_batches():
    boards = batch.encode([Position.start("long")])
    with pytest.raises(InvalidPositionError):
        batch.count_turns("long", boards[:, :49], np.array([[6, 5]]))
    with pytest.raises(InvalidPositionError):
        batch.expand("long", boards.astype(float), np.array([[6, 5]]))
    with pytest.raises(InvalidDiceError):
        batch.count_turns("long", boards, np.array([[7, 5]]))
    with pytest.raises(InvalidDiceError):
        batch.expand("long", boards, np.array([6, 5]))
    with pytest.raises(InvalidPositionError):
        batch.encode(["long w 24:15 24:15"])
    with pytest.raises(InvalidPositionError):
        batch.decode("long", boards, turn="red")



@SETTINGS
@given(st.sampled_from(ALL_RULES), st.data())
def test_keys_and_rows_give_the_same_children(rules, data):
    group = _group(rules, data)
    rows, keys = batch.encode(group), batch.encode(group, keys=True)
    assert np.array_equal(batch.rows_from_keys(rules, keys), rows)
    dice = np.array([data.draw(st.sampled_from(ALL_ROLLS)) for _ in group])
    assert np.array_equal(batch.count_turns(rules, rows, dice), batch.count_turns(rules, keys, dice))
    kids_rows, parent_rows = batch.expand(rules, rows, dice)
    kids_keys, parent_keys = batch.expand(rules, keys, dice, keys=True)
    assert np.array_equal(parent_rows, parent_keys)
    assert np.array_equal(batch.rows_from_keys(rules, kids_keys), kids_rows)
    for i, position in enumerate(group):
        turns = position.legal_turns(tuple(dice[i]))
        assert [t.position.key for t in turns] == [tuple(k) for k in kids_keys[parent_keys == i].tolist()]


@SETTINGS
@given(st.sampled_from(ALL_RULES), st.data())
def test_chance_expand_equals_21_expand_calls(rules, data):
    group = _group(rules, data, size=3)
    for keys in (False, True):
        boards = batch.encode(group, keys=keys)
        node = batch.chance_expand(rules, boards, keys=keys)
        assert node.offsets.shape == (len(group) * 21 + 1,) and node.offsets[0] == 0
        assert node.offsets[-1] == len(node.children) == len(node.parent) == len(node.roll)
        assert node.probability.sum() == pytest.approx(1.0)
        for j, roll in enumerate(batch.ROLLS):
            children, parent = batch.expand(rules, boards, np.tile(roll, (len(group), 1)),
                                            keys=keys)
            for i in range(len(group)):
                part = node.of(i, j)
                assert np.array_equal(part, children[parent == i])
                k = 21 * i + j
                assert (node.parent[node.offsets[k]:node.offsets[k + 1]] == i).all()
                assert (node.roll[node.offsets[k]:node.offsets[k + 1]] == j).all()


def test_count_turns_broadcasts_one_roll():
    group = [Position.start("short"), Position.from_gnubg_id("4HPwATDgc/ABMA")]
    rows = batch.encode(group)
    assert batch.count_turns("short", rows, (6, 4)).tolist() == [14, 14]
    assert batch.count_turns("short", rows, np.array([[6, 4], [6, 4]])).tolist() == [14, 14]
    with pytest.raises(InvalidDiceError):
        batch.count_turns("short", rows, (6, 7))
    with pytest.raises(InvalidDiceError):
        batch.count_turns("short", rows, np.ones((3, 2), dtype=int))


def test_T5_rolls_and_probabilities():
    assert [tuple(r) for r in batch.ROLLS.tolist()] == list(ALL_ROLLS)
    assert batch.PROBABILITY.sum() == pytest.approx(1.0)
    assert batch.PROBABILITY[0] == pytest.approx(1 / 36) and batch.PROBABILITY[1] == pytest.approx(2 / 36)


def test_bad_keys_are_rejected_with_the_row():
    keys = batch.encode([Position.start("short")] * 3, keys=True)
    keys[1]["lo"] |= np.uint64(31)  # point 1 field = 31
    for call in (lambda: batch.count_turns("short", keys, (6, 5)),
                 lambda: batch.expand("short", keys, np.ones((3, 2), dtype=int), keys=True),
                 lambda: batch.chance_expand("short", keys)):
        with pytest.raises(InvalidPositionError, match="row 1"):
            call()
    with pytest.raises(InvalidPositionError):
        batch.count_turns("short", keys.reshape(3, 1), (6, 5))


def test_max_children_bounds_a_call_with_a_clean_error():
    rows = batch.encode([Position.start("short")] * 10)
    node = batch.chance_expand("short", rows)
    assert len(batch.chance_expand("short", rows, max_children=len(node.children)).children) \
        == len(node.children)
    with pytest.raises(ResourceLimitError, match="max_children"):
        batch.chance_expand("short", rows, max_children=len(node.children) - 1)
    with pytest.raises(MemoryError):
        batch.expand("short", rows, np.tile([6, 5], (10, 1)), max_children=5)
    for bad in (-1, 1.5, "10", True):
        with pytest.raises(FastNardyError):
            batch.expand("short", rows, np.tile([6, 5], (10, 1)), max_children=bad)


def test_batch_arrays_are_independent_numpy_arrays():
    children, parent = batch.expand("long", batch.encode([Position.start("long")]),
                                    np.array([[6, 5]]))
    children[0, 0] = 3  # writable, owned by numpy
    del parent
    gc.collect()
    assert children.flags.writeable and children.shape == (1, 50)
