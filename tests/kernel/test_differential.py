"""Differential tests: the kernel and the reference agree exactly (positions, order, steps,
errors) on hypothesis-generated positions under every rule variant, for all 21 rolls."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from fastnardy import ALL_ROLLS, FastNardyError, Position, Rules
from fastnardy import _kernel as kernel
from fastnardy import reference
from strategies import ALL_RULES, LONG_RULES, SHORT_RULES, positions
from hypothesis import strategies as st


def _assert_agree(position: Position) -> None:
    for roll in ALL_ROLLS:
        args = (position.rules.code, *position.mover_frame(), *roll)
        slow = reference.enumerate_turns(*args)
        assert kernel.enumerate_turns(*args) == slow, f"{position.to_string()} roll {roll}"
        packed = kernel.enumerate_packed(*args)
        assert len(packed) == len(slow) and list(packed) == slow


@pytest.mark.parametrize("rules", ALL_RULES, ids=lambda r: repr(r))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(data=st.data())
def test_kernel_equals_reference_for_every_variant(rules, data):
    _assert_agree(data.draw(positions(st.just(rules))))


@pytest.mark.parametrize("rules", LONG_RULES + SHORT_RULES, ids=lambda r: repr(r))
def test_kernel_equals_reference_perft_from_the_start(rules):
    start = Position.start(rules)
    args = (rules.code, *start.mover_frame())
    depth = 2 if rules.game == "long" else 1
    assert kernel.perft_count(*args, depth, False) == reference.perft_count(*args, depth, False)
    assert kernel.perft_count(*args, depth, True) == reference.perft_count(*args, depth, True)


def test_kernel_count_turns_equals_enumeration():
    for text in ("long w 24:15 24:15", "short w 24:2,13:5,8:3,6:5 24:2,13:5,8:3,6:5",
                 "short b bar:2,6:5,5:4,4:4 12:3,6:4,5:4,4:4"):
        pos = Position.from_string(text)
        for roll in ALL_ROLLS:
            args = (pos.rules.code, *pos.mover_frame(), *roll)
            assert kernel.count_turns(*args) == len(kernel.enumerate_turns(*args))


@pytest.mark.parametrize("args", [
    ((0, 0, 0, 0, 0), [0] * 23 + [15], 0, [0] * 23 + [15], 0, 7, 1),
    ((0, 0, 0, 0, 0), [0] * 23 + [15], 2, [0] * 23 + [13], 0, 1, 1),
    ((1, 0, 0, 0, 0), [0] * 23 + [16], 0, [0] * 24, 0, 1, 1),
    ((1, 0, 0, 0, 0), [2] + [0] * 23, 0, [0] * 23 + [2], 0, 1, 1),
    ((1, 9, 0, 0, 0), [0] * 24, 0, [0] * 24, 0, 1, 1),
])
def test_kernel_and_reference_reject_the_same_inputs(args):
    for module in (kernel, reference):
        with pytest.raises(FastNardyError):
            module.enumerate_turns(*args)


_count = st.one_of(st.integers(-1, 16), st.just(0), st.just(0), st.none(), st.booleans(),
                   st.floats(allow_nan=True), st.just("1"))
_side = st.one_of(st.lists(_count, min_size=23, max_size=25),
                  st.lists(st.sampled_from([0, 0, 0, 1, 2]), min_size=24, max_size=24),
                  st.none(), st.text(max_size=3), st.integers())
_small = st.one_of(st.integers(-2, 8), st.none(), st.booleans(), st.floats(), st.just("3"))
_code = st.one_of(st.tuples(st.integers(0, 1), st.integers(0, 2), st.integers(0, 2),
                            st.integers(0, 1), st.integers(0, 1)),
                  st.lists(_small, max_size=6), st.none())


@settings(max_examples=300, deadline=None)
@given(code=_code, me=_side, me_bar=_small, opp=_side, opp_bar=_small, d1=_small, d2=_small)
def test_kernel_and_reference_agree_on_bad_input(code, me, me_bar, opp, opp_bar, d1, d2):
    """Garbage in: both raise the same FastNardyError subclass, or both return the same."""
    outcomes = []
    for module in (kernel, reference):
        try:
            outcomes.append(module.enumerate_turns(code, me, me_bar, opp, opp_bar, d1, d2))
        except FastNardyError as exc:
            outcomes.append(type(exc))
    assert outcomes[0] == outcomes[1]
