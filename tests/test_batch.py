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


# ----------------------------------------------------------------------- encode / decode

def mover_row(position: Position) -> list:
    me, me_bar, opp, opp_bar = position.mover_frame()
    return list(me) + [me_bar] + list(opp) + [opp_bar]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(st.lists(positions(), min_size=0, max_size=8))
def test_encode_is_the_mover_frame_and_decode_inverts_it_T7(group):
    """encode reads each position's key (mixed games and sides to move in one call);
    decode of rows or keys gives back equal positions of the same class and rules."""
    rows = batch.encode(group)
    assert rows.dtype == np.int8 and rows.shape == (len(group), 50)
    assert rows.tolist() == [mover_row(p) for p in group]
    keys = batch.encode(group, keys=True)
    assert keys.dtype == batch.KEY_DTYPE and [tuple(k) for k in keys.tolist()] == [
        p.key for p in group]
    for position, row, key in zip(group, rows, keys):
        for boards in (row[None], key[None], row[None].astype(np.int64)):
            decoded = batch.decode(position.rules, boards, turn=position.turn)
            assert decoded == [position] and type(decoded[0]) is Position
            assert decoded[0].rules is position.rules and decoded[0].turn == position.turn
            assert decoded[0].to_string() == position.to_string()


def test_decode_checks_T7_and_L6_like_the_position_constructor():
    start = batch.encode([Position.start("long")])
    with pytest.raises(InvalidPositionError, match="T7"):  # both sides borne off
        batch.decode("long", np.zeros((1, 50), np.int8))
    both = start.copy()
    both[0, 25 + 11], both[0, 48] = 15, 0  # the opponent's 12 is the mover's 24 (T7)
    with pytest.raises(InvalidPositionError, match="both sides"):
        batch.decode("long", both)
    # the mover's six points 19..24 are the opponent's 7..12: a block with the opponent's
    # 15 still on its head, none ahead of it (L6, opponent_ahead) is forbidden ...
    blocked = np.zeros((1, 50), np.int8)
    blocked[0, 18:24] = 1
    blocked[0, 23] = 10
    blocked[0, 48] = 15
    with pytest.raises(InvalidPositionError, match="L6"):
        batch.decode("long", blocked)
    with pytest.raises(InvalidPositionError, match="L6"):
        batch.decode("long", blocked, turn="black")
    # ... allowed with an opponent checker ahead of it, and without L6
    ahead = blocked.copy()
    ahead[0, 48], ahead[0, 25] = 14, 1
    assert batch.decode("long", ahead)[0].black_points[0] == 1
    free = Position.start("long").rules.__class__.long(block_rule="none")
    assert len(batch.decode(free, blocked, turn="black")) == 1
    # a six-run in short nardy is no block at all
    assert len(batch.decode("short", np.r_[[2] * 6, [0] * 19, [0] * 24, 15][None]
                            .astype(np.int8))) == 1


@pytest.mark.parametrize("bad", [
    np.full((1, 50), 16, np.int8), -np.ones((1, 50), np.int8), np.ones((1, 49), np.int8),
    np.ones((1, 50)), np.array([[1] * 16 + [0] * 34], np.int8),
])
def test_decode_of_bad_rows_raises(bad):
    with pytest.raises(InvalidPositionError):
        batch.decode("short", bad)


def test_encode_of_bad_input_names_the_value():
    with pytest.raises(InvalidPositionError, match="'x'"):
        batch.encode([Position.start("long"), "x"])
    with pytest.raises(InvalidPositionError, match="iterable"):
        batch.encode(3)
    assert batch.encode([]).shape == (0, 50) and batch.encode([], keys=True).shape == (0,)
    assert batch.decode("long", np.empty((0, 50), np.int8)) == []


@pytest.mark.parametrize("block_rule", ["opponent_ahead", "opponent_home", "none"])
def test_decode_judges_L6_blocks_as_the_position_constructor(block_rule):
    """Random long rows rich in six-runs: decode raises exactly where the constructor does."""
    from fastnardy import Rules

    rules = Rules.long(block_rule=block_rule)
    rng = np.random.default_rng(6)
    mirror = batch.MIRROR_COLUMNS["long"]
    raised = 0
    for _ in range(400):
        row = np.zeros(50, np.int8)
        start = rng.integers(0, 24)
        mine = [(start + k) % 24 for k in range(rng.integers(4, 9))]
        row[mine] = 1
        row[23] += 15 - row[:24].sum() if rng.random() < 0.8 else 0
        free = [q for q in range(24) if row[mirror[q]] == 0]
        chosen = rng.choice(free, size=rng.integers(1, 4), replace=False)
        for q in chosen:
            row[25 + q] = rng.integers(1, 5)
        if rng.random() < 0.7:  # nothing borne off: L6 may forbid the block
            row[25 + chosen[0]] += 15 - row[25:49].sum()
        me, opp = tuple(row[:24]), tuple(row[25:49])
        for turn in ("white", "black"):
            try:
                expected = Position.from_points(
                    rules, me if turn == "white" else opp, opp if turn == "white" else me, turn)
            except InvalidPositionError:
                expected = None
            if expected is None:
                raised += 1
                with pytest.raises(InvalidPositionError):
                    batch.decode(rules, row[None], turn=turn)
            else:
                assert batch.decode(rules, row[None], turn=turn) == [expected]
    assert (raised > 0) == (block_rule != "none")
