"""fastnardy.search.bearoff: the one-sided bear-off table (L8/S7 bearing off, L7/S6 max dice, T5 rolls)."""

from __future__ import annotations

import threading
import time
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from fastnardy import ALL_ROLLS, InvalidPositionError, Position, Rules
from fastnardy.search import bearoff

DOUBLE, NON_DOUBLE = Fraction(1, 36), Fraction(2, 36)
SIX_POINT = (0, 0, 0, 0, 0, 1)


def weight(roll: tuple) -> Fraction:
    return DOUBLE if roll[0] == roll[1] else NON_DOUBLE


@pytest.fixture(scope="module")
def full() -> bearoff.BearoffTable:
    return bearoff.table()


def test_one_checker_on_the_six_point_L8():
    # One checker on point 6 is off in one roll unless the roll moves it fewer than 6 pips:
    # 1-1 (4 pips), 1-2, 1-3, 1-4, 2-3 (3, 4, 5, 5 pips): 1 + 4 * 2 = 9 of 36 outcomes, so
    # P(N = 1) = 27/36. After those rolls the checker stands on 2 (1-1, 1-3), 3 (1-2) or 1
    # (1-4, 2-3), and from points 1..3 every roll bears it off (the smallest roll, 1-1,
    # walks 4 pips). So P(N = 2) = 9/36 and E = 1 + 9/36 = 45/36 = 1.25.
    assert bearoff.expected_rolls(SIX_POINT) == pytest.approx(45 / 36, abs=1e-15)
    assert np.allclose(bearoff.distribution(SIX_POINT), [0, 27 / 36, 9 / 36], atol=1e-15)


def test_two_checkers_on_the_one_point_are_off_in_one_roll_L8():
    # every die bears a checker off point 1 (a double bears off both with its first two dice)
    assert bearoff.expected_rolls([2, 0, 0, 0, 0, 0]) == 1.0
    assert bearoff.distribution([2, 0, 0, 0, 0, 0]).tolist() == [0.0, 1.0]


def test_the_empty_position_needs_no_roll():
    assert bearoff.expected_rolls([0] * 6) == 0.0
    assert bearoff.distribution([0] * 6).tolist() == [1.0]
    assert bearoff.index([0] * 6) == 0


def test_checkers_on_the_one_point_only():
    # n checkers on point 1 and no choice: a non-double bears off 2, a double 4, so
    # E(n) = 1 + 30/36 E(n - 2) + 6/36 E(n - 4), E(n <= 0) = 0.
    e = {n: Fraction(0) for n in range(-4, 1)}
    for n in range(1, 16):
        e[n] = 1 + Fraction(30, 36) * e[n - 2] + Fraction(6, 36) * e[n - 4]
        assert bearoff.expected_rolls([n, 0, 0, 0, 0, 0]) == pytest.approx(float(e[n]), rel=1e-14)


@pytest.mark.parametrize("point", range(1, 7))
def test_one_checker_anywhere(point: int):
    # one checker on p: the roll bears it off when its pips (4d for a double d-d, a + b
    # otherwise) reach p, else it moves that many pips down (one checker: no choice)
    def e(p: int) -> Fraction:
        if p <= 0:
            return Fraction(0)
        return 1 + sum((weight(r) * e(p - (4 * r[0] if r[0] == r[1] else r[0] + r[1]))
                        for r in ALL_ROLLS), Fraction(0))
    counts = [0] * 6
    counts[point - 1] = 1
    assert bearoff.expected_rolls(counts) == pytest.approx(float(e(point)), rel=1e-14)


def test_index_is_a_bijection_onto_the_table(full):
    assert bearoff.SIZE == 54264 == len(full.positions)
    assert np.array_equal(bearoff.indices(full.positions), np.arange(bearoff.SIZE))
    assert bearoff.index(full.positions[12345]) == 12345
    assert full.positions.sum(axis=1).max() == 15 and full.positions.min() == 0
    assert len({tuple(p) for p in full.positions.tolist()}) == bearoff.SIZE


def test_distributions_sum_to_one_and_have_the_expected_mean(full):
    dist = full.distributions
    assert dist.min() >= 0.0
    assert np.allclose(dist.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert np.allclose(dist @ np.arange(dist.shape[1]), full.expected, rtol=0, atol=1e-11)
    assert np.array_equal(full.longest, dist.shape[1] - 1 - np.argmax(dist[:, ::-1] > 0, axis=1))


def test_support_of_the_number_of_rolls(full):
    checkers = full.positions.sum(axis=1).astype(np.int64)
    pips = full.positions.astype(np.int64) @ np.arange(1, 7)
    fewest = np.argmax(full.distributions > 0, axis=1)
    # a roll bears off at most 4 checkers, and 6-6 every time bears off 4 a roll
    assert np.array_equal(fewest, -(-checkers // 4))
    # a roll that does not finish lowers the pip count by at least 2 (each die >= 1 pip)
    assert np.all(full.longest[1:] <= (pips[1:] - 1) // 2 + 1)
    assert np.all(fewest >= -(-pips // 24))
    # 15 on the six-point: 1-2 every time moves 3 pips a roll and bears nothing off early
    assert full.longest[bearoff.index([0, 0, 0, 0, 0, 15])] == 30
    for i in (1, 777, 40000):
        assert bearoff.distribution(full.positions[i]).shape == (full.longest[i] + 1,)


def test_adding_a_checker_never_decreases_the_expectation(full):
    counts = full.positions.astype(np.int64)
    room = counts.sum(axis=1) < 15
    for point in range(6):
        more = counts[room].copy()
        more[:, point] += 1
        assert np.all(full.expected[bearoff.indices(more)] >= full.expected[room] - 1e-12)


bear_off_positions = st.lists(st.integers(1, 6), min_size=1, max_size=15).map(
    lambda points: [points.count(p) for p in range(1, 7)])


def position(rules: Rules, counts: list) -> Position:
    """The mover's checkers on its home points, the opponent's 15 on its own point 1."""
    return Position.from_points(rules, list(counts) + [0] * 18, [15] + [0] * 23)


@settings(max_examples=40, deadline=None)
@given(bear_off_positions)
def test_bellman_equation_on_the_reference_move_generator(counts):
    # E(x) = 1 + sum_r p(r) min_t E(child); the distribution follows the first minimising
    # child in T2 order; children come from the pure-Python reference, not the kernel
    full = bearoff.table()
    expected = Fraction(1)
    dist = np.zeros(full.distributions.shape[1])
    for roll in ALL_ROLLS:
        children = []
        for turn in position(Rules.short(), counts).legal_turns(roll, backend="reference"):
            child = turn.position
            assert child.white_bar == 0 and not any(child.white_points[6:])
            children.append(bearoff.index(child.white_points[:6]))
        values = full.expected[children]
        best = children[int(np.argmin(values))]
        expected += weight(roll) * Fraction(float(values.min()))
        dist[1:] += float(weight(roll)) * full.distributions[best, :-1]
    assert bearoff.expected_rolls(counts) == pytest.approx(float(expected), rel=1e-14)
    assert np.allclose(full.distributions[bearoff.index(counts)], dist, rtol=0, atol=1e-14)


@settings(max_examples=40, deadline=None)
@given(bear_off_positions, st.sampled_from(ALL_ROLLS))
def test_long_and_short_bear_off_moves_are_the_same_L8_S7(counts, roll):
    def homes(rules: Rules) -> list:
        return [t.position.white_points[:6] for t in position(rules, counts).legal_turns(roll)]
    assert homes(Rules.long()) == homes(Rules.short())


def test_the_first_build_happens_once_under_concurrent_calls(monkeypatch):
    sentinel = bearoff.table()
    started, release = threading.Event(), threading.Event()
    builds = []

    def slow_build() -> bearoff.BearoffTable:
        builds.append(1)
        started.set()
        release.wait(5)
        return sentinel

    monkeypatch.setattr(bearoff, "_table", None)
    monkeypatch.setattr(bearoff, "_build", slow_build)
    results = []
    threads = [threading.Thread(target=lambda: results.append(bearoff.table())) for _ in range(4)]
    for thread in threads:
        thread.start()
    started.wait(5)
    time.sleep(0.2)  # the other threads now wait for the first build
    release.set()
    for thread in threads:
        thread.join()
    assert len(builds) == 1
    assert len(results) == 4 and all(r is sentinel for r in results)


def test_table_arrays_are_read_only_and_distribution_is_a_copy(full):
    for array in full:
        assert not array.flags.writeable
    dist = bearoff.distribution(SIX_POINT)
    dist[:] = 0
    assert bearoff.distribution(SIX_POINT)[1] == 0.75


def test_numpy_integers_are_accepted():
    assert bearoff.index(np.array([0, 0, 0, 0, 0, 1], dtype=np.uint8)) == bearoff.index(SIX_POINT)
    assert bearoff.expected_rolls([np.int64(0)] * 5 + [np.int16(1)]) == 1.25


@pytest.mark.parametrize("bad", [
    [0] * 5, [0] * 7, [0, 0, 0, 0, 0, -1], [3, 3, 3, 3, 3, 1], [0, 0, 0, 0, 0, 1.0],
    [0, 0, 0, 0, 0, True], [0, 0, 0, 0, 0, np.bool_(True)], "000001", b"\0" * 6, None, 6,
    ["0", 0, 0, 0, 0, 0], np.zeros((1, 6), dtype=np.int64), np.zeros(6), np.zeros(6, bool),
    {1, 2, 3, 4, 5, 6},
])
def test_bad_positions_are_rejected(bad):
    for function in (bearoff.index, bearoff.expected_rolls, bearoff.distribution):
        with pytest.raises(InvalidPositionError):
            function(bad)


@pytest.mark.parametrize("bad", [
    np.zeros((3, 5), dtype=np.int8), np.zeros(6, dtype=np.int8), np.zeros((2, 6)),
    np.array([[0, 0, 0, 0, 0, 16]]), np.array([[0, 0, -1, 0, 0, 0]]), "x", [[0.5] * 6],
])
def test_bad_position_arrays_are_rejected(bad):
    with pytest.raises(InvalidPositionError):
        bearoff.indices(bad)
