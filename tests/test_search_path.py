"""The search path: compiled Position/Turn values, keys and rows, chance nodes, threads,
re-entrancy, Ctrl-C and memory bounds. Each new path is checked against an older one (the
reference backend, rows, 21 separate expand calls, a serial run) on every rule variant."""

from __future__ import annotations

import copy
import gc
import pickle
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from fastnardy import (ALL_ROLLS, FastNardyError, IllegalTurnError, InvalidDiceError, InvalidPositionError,
                       LegalTurns, Position, Rules, Turn, _kernel, batch, perft)
from fastnardy.errors import ResourceLimitError
from strategies import ALL_RULES, positions

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])


def _group(rules, data, size=5):
    return [data.draw(positions(st.just(rules))) for _ in range(size)]


# ----------------------------------------------------------------- compiled values vs reference

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


# ----------------------------------------------------------------- keys, rows, chance nodes

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


# ----------------------------------------------------------------- re-entrancy and threads

_SAMPLE = [Position.from_gnubg_id(pid) for pid in (
    "4HPwATDgc/ABMA", "v3sAAAhmdzMAAQ", "W3OgARjh7k4BAA", "380AADjcNgAAAA", "e2sCARhs254AAA")]


def _expected_turns():
    return {(i, roll): [(t.steps, t.position.key) for t in p.legal_turns(roll)]
            for i, p in enumerate(_SAMPLE) for roll in ALL_ROLLS}


def test_the_kernel_is_reentrant_from_finalizers():
    expected = _expected_turns()
    calls = []

    class Noisy:
        def __init__(self):
            self.me = self  # a cycle: freed by the collector, at an arbitrary moment

        def __del__(self):
            p = _SAMPLE[len(calls) % len(_SAMPLE)]
            calls.append((len(p.legal_turns((6, 6))), _kernel.count_turns(
                p.rules.code, *p.mover_frame(), 5, 5),
                len(_kernel.enumerate_turns(p.rules.code, *p.mover_frame(), 2, 1))))

    old = gc.get_threshold()
    gc.set_threshold(1)
    try:
        for _ in range(3):
            for (i, roll), want in expected.items():
                Noisy()
                position = _SAMPLE[i]
                got = [(t.steps, t.position.key) for t in position.legal_turns(roll)]
                raw = _kernel.enumerate_turns(position.rules.code, *position.mover_frame(), *roll)
                assert got == want and [r[0] for r in raw] == [s for s, _ in want]
    finally:
        gc.set_threshold(*old)
        gc.collect()
    assert len(calls) > 100


def test_threads_give_the_serial_results():
    rows = batch.encode(_SAMPLE * 40)
    dice = np.array([ALL_ROLLS[i % 21] for i in range(len(rows))])
    serial = (batch.count_turns("short", rows, dice), batch.expand("short", rows, dice),
              batch.chance_expand("short", rows, keys=True), perft(_SAMPLE[0], 2))
    expected = _expected_turns()

    def work(k):
        if k % 4 == 0:
            return batch.count_turns("short", rows, dice)
        if k % 4 == 1:
            return batch.expand("short", rows, dice)
        if k % 4 == 2:
            return batch.chance_expand("short", rows, keys=True)
        for (i, roll), want in expected.items():
            assert [(t.steps, t.position.key) for t in _SAMPLE[i].legal_turns(roll)] == want
        return perft(_SAMPLE[0], 2)

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(work, range(16)))
    for k, got in enumerate(results):
        want = serial[k % 4]
        if k % 4 == 0:
            assert np.array_equal(got, want)
        elif k % 4 == 3:
            assert got == want
        else:
            assert all(np.array_equal(a, b) for a, b in zip(got, want))


def test_kernel_calls_release_the_gil():
    """While one thread runs a long perft, another keeps running Python code."""
    done = threading.Event()
    ticks = []

    def count():
        while not done.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    ticker = threading.Thread(target=count)
    ticker.start()
    try:
        start = time.perf_counter()
        perft(Position.start("long"), 4)
        elapsed = time.perf_counter() - start
    finally:
        done.set()
        ticker.join()
    during = [t for t in ticks if start <= t <= start + elapsed]
    # with the GIL held the ticker would not run at all during the call (no time bound: a
    # loaded machine slows both alike)
    assert len(during) >= 10, "the ticker thread was starved: GIL held"


# ----------------------------------------------------------------- Ctrl-C

@pytest.mark.parametrize("call", ["perft", "count_turns", "chance_expand"])
def test_a_long_kernel_call_stops_on_keyboard_interrupt(call):
    """A real SIGINT (as Ctrl-C sends) during the call: KeyboardInterrupt from the call
    itself, not from after it. No wall-clock bound but a generous one (the latency is
    bench/interrupt_latency.py's)."""
    long_start = Position.start("long")
    rows = np.tile(batch.encode(_SAMPLE), (600_000, 1))  # about a second of work
    work = {
        "perft": lambda: perft(long_start, 5),  # about ten seconds of work
        "count_turns": lambda: batch.count_turns("short", rows, (6, 6)),
        "chance_expand": lambda: batch.chance_expand("short", rows[:300_000], keys=True),
    }[call]
    main = threading.main_thread().ident
    timer = threading.Timer(0.3, signal.pthread_kill, (main, signal.SIGINT))
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    finished = False
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            work()
            finished = True  # the call ignored the interrupt (or ended before it came)
            time.sleep(30)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert not finished and time.monotonic() - start < 10
    assert perft(long_start, 2) == 484  # the kernel still works afterwards
