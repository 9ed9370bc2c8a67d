"""fastnardy.batch: numpy rows, kernel counts and expansions agree with Position.legal_turns;
keys and rows give the same children, chance nodes equal 21 expand calls, and bad keys and
too large results are clean errors (the last part moved from test_search_path.py)."""

from __future__ import annotations

import gc
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from fastnardy import (ALL_ROLLS, FastNardyError, InvalidDiceError, InvalidPositionError,
                       Position, _nnet, batch)
from fastnardy.testing.speed import gnubg_positions as benchmark_positions
from fastnardy.errors import ResourceLimitError
from strategies import ALL_RULES, positions

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])


def _group(rules, data, size=5):
    return [data.draw(positions(st.just(rules))) for _ in range(size)]


@SETTINGS
@given(st.sampled_from(ALL_RULES), st.data())
def test_T1_a_count_is_the_number_of_children_in_every_variant(rules, data):
    """count_turns counts without writing the turns (the full turns of a double, and of a
    non-double whose positions are distinct); expand writes them: the same numbers, with
    each position's 21 rolls in a run of equal rows (its board built once)."""
    group = _group(rules, data, size=4)
    rows = np.repeat(batch.encode(group), 21, axis=0)
    dice = np.tile(batch.ROLLS, (len(group), 1))
    _, parent = batch.expand(rules, rows, dice, keys=True)
    expected = np.bincount(parent, minlength=len(rows))
    assert batch.count_turns(rules, rows, dice).tolist() == expected.tolist()
    assert [len(p.legal_turns(tuple(roll))) for p in group for roll in ALL_ROLLS] == \
        expected.tolist()


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


@pytest.mark.parametrize("rules", ALL_RULES, ids=repr)
def test_T1_counts_equal_children_along_random_games(rules):
    """count_turns counts a double's last two steps and a non-double's two steps from
    occupancy masks where it can (no bar, no bearing off, no L6 check); along 24 random
    games of every variant, openings to bear-offs, every count of every roll equals the
    number of children expand writes."""
    rng = np.random.default_rng(7)
    rows = batch.encode([Position.start(rules)] * 24)
    while len(rows):
        many = np.repeat(rows, 21, axis=0)
        dice = np.tile(batch.ROLLS, (len(rows), 1))
        _, parent = batch.expand(rules, many, dice)
        assert batch.count_turns(rules, many, dice).tolist() == \
            np.bincount(parent, minlength=len(many)).tolist()
        children, parent = batch.expand(rules, rows, rng.integers(1, 7, size=(len(rows), 2)))
        rows = children[[rng.choice(np.flatnonzero(parent == i)) for i in np.unique(parent)]]
        rows = rows[(rows[:, :25].sum(1) > 0) & (rows[:, 25:].sum(1) > 0)]


CHILDREN = """
import hashlib
from fastnardy import Position, _nnet, batch
from fastnardy.testing.speed import gnubg_positions
digest, count = hashlib.sha256(), 0
boards = {"short": batch.encode(gnubg_positions()[::4], keys=True)}
for game in ("short", "long"):  # long nardy: two plies from the start
    start = batch.encode([Position.start(game)], keys=True)
    boards[game + " start"] = batch.chance_expand(game, start, keys=True).children
for name, keys in boards.items():
    for kind in (True, False):
        node = batch.chance_expand(name.split()[0], keys, keys=kind)
        digest.update(node.children.tobytes() + node.parent.tobytes())
        count += len(node.children)
print(_nnet.SIMD, count, digest.hexdigest())
"""


def test_T1_every_instruction_set_writes_the_children_alike():
    """expand's children as keys swapped to the next mover one, two or four at a time, and
    as rows (decoded one by one, or under AVX-512 with VBMI a row in a few vector
    instructions), in each instruction set (the baseline, AVX2, AVX-512 with or without
    VNNI: each where this CPU runs it, chosen by FASTNARDY_SIMD in a fresh process): the
    same children, byte for byte, in both games."""
    digests = set()
    for name in _nnet.SIMD_AVAILABLE:
        done = subprocess.run([sys.executable, "-c", CHILDREN], capture_output=True,
                              text=True, check=True, env={**os.environ, "FASTNARDY_SIMD": name})
        simd, count, digest = done.stdout.split()
        assert simd == name and int(count) > 10_000
        digests.add(digest)
    assert len(digests) == 1


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


# ----------------------------------------------------------------- Expander (issue 22)

def _rolls_of(positions_):
    rows = np.repeat(batch.encode(positions_), 21, axis=0)
    return rows, np.tile(batch.ROLLS, (len(positions_), 1))


@SETTINGS
@given(st.sampled_from(ALL_RULES), st.booleans(), st.data())
def test_T1_T2_an_expander_gives_expand_and_chance_expand_call_after_call(rules, keys, data):
    """The same children, parents, rolls and offsets as the functions, in every variant,
    whatever the calls before it left in the buffers (larger, smaller, the other call)."""
    expander = batch.Expander(rules, keys=keys)
    for _ in range(3):
        group = _group(rules, data, size=data.draw(st.integers(0, 4)))
        rows, dice = _rolls_of(group)
        boards = batch.keys_from_rows(rules, rows) if keys else rows
        got = expander.expand(boards, dice)
        want = batch.expand(rules, boards, dice, keys=keys)
        assert all(np.array_equal(g, w) for g, w in zip(got, want))
        got_nodes = expander.chance_expand(boards[::21])
        want_nodes = batch.chance_expand(rules, boards[::21], keys=keys)
        assert all(np.array_equal(g, w) for g, w in zip(got_nodes, want_nodes))


def test_an_expander_overwrites_its_last_result_and_keeps_what_outgrew_it():
    """The arrays are views valid until the next call; a result larger than the buffers moves
    to new ones, and the arrays of the earlier call keep the old ones alive (overwritten, but
    never freed under them)."""
    expander = batch.Expander("short", keys=True)
    start = batch.encode([Position.start("short")], keys=True)
    small, _ = expander.expand(start, [(6, 5)])
    kept = small.copy()
    rows, dice = _rolls_of(benchmark_positions()[:300])
    big, parent = expander.expand(batch.keys_from_rows("short", rows), dice)
    assert len(big) > 4096 and not np.shares_memory(small, big)  # moved to new buffers
    assert len(small.tolist()) == len(kept)  # the old view is still memory to read
    again, _ = expander.expand(start, [(6, 5)])
    assert np.array_equal(again, kept) and np.shares_memory(again, big)  # reused, overwritten


def test_T1_T2_results_freed_lend_their_memory_to_the_next_only():
    """The blocks of a freed result (1 MB or more) are written again by the next expand or
    chance_expand, rows or keys, whatever its size: never while an array still views them,
    and the children written there are the same as a fresh call's."""
    rows, dice = _rolls_of(benchmark_positions()[:600])
    keys = batch.keys_from_rows("short", rows)
    want = [batch.expand("short", rows, dice, keys=kind) for kind in (False, True)]
    want_node = batch.chance_expand("short", rows[::21])
    kept = batch.expand("short", rows, dice)  # alive through every call below
    copy = [part.copy() for part in kept]
    assert kept[0].nbytes > 1 << 20
    for _ in range(3):
        for kind, boards in ((False, rows), (True, keys), (False, rows[::2])):
            got = batch.expand("short", boards, dice if len(boards) == len(rows)
                               else dice[::2], keys=kind)
            if len(boards) == len(rows):
                assert all(np.array_equal(g, w) for g, w in zip(got, want[kind]))
            else:
                assert np.array_equal(got[0], want[0][0][np.isin(want[0][1], np.arange(
                    0, len(rows), 2))])
            assert not any(np.shares_memory(g, k) for g in got for k in kept)
            del got
            gc.collect()
        node = batch.chance_expand("short", rows[::21])
        assert all(np.array_equal(g, w) for g, w in zip(node, want_node))
        del node
    assert all(np.array_equal(k, c) for k, c in zip(kept, copy))


def test_an_expander_expands_its_own_children_again():
    """Children of the last call given back as boards are copied before the buffers are
    written (no corrupted input)."""
    for keys in (False, True):
        expander = batch.Expander("long", keys=keys)
        nodes = expander.chance_expand(batch.encode([Position.start("long")], keys=keys))
        children = nodes.children
        dice = np.tile([3, 1], (len(children), 1))
        want = batch.expand("long", children.copy(), dice, keys=keys)
        got = expander.expand(children, dice)
        assert all(np.array_equal(g, w) for g, w in zip(got, want))


def test_an_expander_refuses_bad_input_and_stays_usable():
    expander = batch.Expander("short")
    start = batch.encode([Position.start("short")])
    with pytest.raises(InvalidDiceError):
        expander.expand(start, [(7, 1)])
    with pytest.raises(ResourceLimitError):
        expander.expand(np.repeat(start, 100, axis=0), np.tile([6, 5], (100, 1)),
                        max_children=10)
    with pytest.raises(FastNardyError):
        batch.Expander("short", keys="yes")
    children, parent = expander.expand(start, [(6, 5)])
    assert np.array_equal(children, batch.expand("short", start, [(6, 5)])[0])


def test_an_expander_pickles_as_a_new_one():
    import pickle

    expander = batch.Expander("long", keys=True)
    expander.expand(batch.encode([Position.start("long")], keys=True), [(6, 5)])
    copy = pickle.loads(pickle.dumps(expander))
    assert repr(copy) == "Expander(Rules.long(), keys=True)"
    with pytest.raises(TypeError):
        pickle.dumps(expander._buffers)


def test_one_expander_hammered_from_threads_refuses_or_works():
    """Issue 24 item 1 for issue 22's buffers: a call while another thread's call runs is
    refused with FastNardyError ("in use"); every call that runs gives the right children."""
    import threading

    rows, dice = _rolls_of(benchmark_positions()[:150])
    want = batch.expand("short", rows, dice, keys=True)
    expander = batch.Expander("short", keys=True)
    broken: list = []
    served: list = []

    def hammer() -> None:
        for _ in range(10):
            try:
                # the views may be overwritten by another thread's call once this one returns:
                # only their length is this call's for sure
                served.append(len(expander.expand(rows, dice)[1]))
            except FastNardyError as error:
                if "in use" not in str(error):
                    broken.append(error)

    threads = [threading.Thread(target=hammer) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert broken == [] and served and set(served) == {len(want[1])}
    children, parent = expander.expand(rows, dice)
    assert np.array_equal(children, want[0]) and np.array_equal(parent, want[1])
