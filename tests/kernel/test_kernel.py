"""Kernel specifics: the packed 128-bit key, the bound on distinct turns, the debug switch."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from fastnardy import ALL_ROLLS, FastNardyError, Position, Rules
from fastnardy import _kernel as kernel
from fastnardy import reference
from fastnardy.basics import MAX_TURNS_PER_ROLL  # 5220, proved in fastnardy.envs.openspiel
from strategies import positions



@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(positions())
def test_pack_round_trips_and_identifies_the_position(position):
    game = position.rules.game
    key = kernel.pack(*position.mover_frame(), game=game)
    assert all(0 <= half < 2 ** 64 for half in key)
    assert kernel.unpack(*key, game=game) == position.mover_frame()
    row = np.array([key], dtype=kernel.KEY_DTYPE)
    assert row.itemsize == 16 and (int(row["lo"][0]), int(row["hi"][0])) == key


def test_distinct_positions_have_distinct_keys():
    start = Position.start("short")
    children = {t.position for roll in ALL_ROLLS for t in start.legal_turns(roll)}
    keys = {kernel.pack(*child.mover_frame(), game="short") for child in children}
    assert len(keys) == len(children) > 300


# the positions with the most distinct turns found by a hill-climbing search (up to 2,226
# for one roll): 15 singletons with gaps, one opponent checker far away
WORST = [
    Position.from_points(Rules.short(), [0, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 0, 1, 1, 0, 1, 1,
                                         0, 1, 1, 0, 1, 1], [0] * 16 + [1] + [0] * 7),
    Position.from_points(Rules.long(block_rule="none"),
                         [0, 0, 1, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0],
                         [0] * 11 + [1] + [0] * 12),
    Position.from_points(Rules.short(hit_and_hide="forbidden"), [0] * 9 + [1] * 15,
                         [0] * 23 + [1]),
]


@pytest.mark.parametrize("position", WORST, ids=lambda p: p.to_string())
def test_worst_positions_stay_within_the_bound_and_agree(position):
    for die in range(1, 7):
        args = (position.rules.code, *position.mover_frame(), die, die)
        turns = kernel.enumerate_turns(*args)
        assert len(turns) == kernel.count_turns(*args) <= MAX_TURNS_PER_ROLL
        assert turns == reference.enumerate_turns(*args)
    assert kernel.count_turns(WORST[0].rules.code, *WORST[0].mover_frame(), 1, 1) == 2226


def test_batch_counts_reject_bad_arrays():
    boards = np.zeros((1, 50), dtype=np.int8)
    with pytest.raises(FastNardyError):
        kernel.count_turns_batch((0, 0, 0, 0, 0), boards, np.array([[1, 2, 3]]))
    with pytest.raises(FastNardyError):
        kernel.count_turns_batch((0, 0, 0, 0, 0), np.full((1, 50), 16), np.array([[1, 2]]))
    with pytest.raises(FastNardyError):
        kernel.pack([0] * 24, 0, [0] * 24, 0, game="chess")


@pytest.mark.parametrize("rules", ["long", "short", Rules("long", block_check="every_step"),
                                   Rules("short", hit_and_hide="forbidden")])
def test_position_count_turns_is_len_of_legal_turns(rules) -> None:
    """T1/T3/T4: Position.count_turns counts what legal_turns builds, on random positions of
    every roll, passes and finished games included."""
    import numpy as np

    from fastnardy import ALL_ROLLS, InvalidDiceError, Position, batch

    rules = Rules.of(rules)
    rng = np.random.default_rng(4)
    rows = batch.encode([Position.start(rules)] * 16)
    seen = []
    for _ in range(60):
        children, parent = batch.expand(rules, rows, rng.integers(1, 7, size=(len(rows), 2)))
        over = [i for i in range(len(rows)) if not (parent == i).any()]  # T4: none
        seen += batch.decode(rules, rows[over])
        pick = [rng.choice(np.flatnonzero(parent == i)) for i in range(len(rows)) if i not in over]
        rows = np.concatenate([children[pick], batch.encode([Position.start(rules)] * len(over))])
        seen += batch.decode(rules, rows[::5])
    for position in seen:
        for roll in ALL_ROLLS:
            assert position.count_turns(roll) == len(position.legal_turns(roll))
    with pytest.raises(InvalidDiceError):
        seen[0].count_turns((7, 1))
