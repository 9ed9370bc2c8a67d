"""fastnardy.batch: numpy rows, kernel counts and expansions agree with Position.legal_turns."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from fastnardy import ALL_ROLLS, InvalidDiceError, InvalidPositionError, Position, batch
from strategies import positions


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
