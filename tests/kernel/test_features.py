"""fastnardy.features, the function of fastnardy.search.inputs (network inputs), and
batch.rows_from_keys (packed keys to board rows)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import fastnardy
from fastnardy import (InvalidPositionError, InvalidRulesError, Position, Rules, _kernel,
                       batch)
from fastnardy.search.inputs import WIDTHS, features
from conftest import long_pos, short_pos
from features_oracle import numpy_features
from strategies import positions

GAME_KINDS = {"long": ("nardy", "raw"), "short": ("tdgammon", "shots", "raw")}
same_game_groups = st.lists(positions(), min_size=1, max_size=6).map(
    lambda group: [p for p in group if p.rules.game == group[0].rules.game])


def keys_of(group: list) -> np.ndarray:
    return np.array([_kernel.pack(*p.mover_frame(), game=p.rules.game) for p in group],
                    dtype=_kernel.KEY_DTYPE)


def nonzero(vector: np.ndarray) -> dict:
    return {int(i): float(vector[i]) for i in np.flatnonzero(vector)}


def test_features_is_exported():
    assert fastnardy.features is features and "features" in fastnardy.__all__


# ----------------------------------------------------------------------- rows_from_keys

@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(same_game_groups)
def test_rows_from_keys_inverts_pack(group):
    rows = batch.rows_from_keys(group[0].rules, keys_of(group))
    assert rows.dtype == np.int8 and rows.shape == (len(group), 50)
    assert np.array_equal(rows, batch.encode(group))


def test_rows_from_keys_of_no_keys():
    assert batch.rows_from_keys("short", np.empty(0, _kernel.KEY_DTYPE)).shape == (0, 50)


EVERY = sum(1 << 5 * k for k in range(12))  # one in each of a key word's 12 fields
FIVE = sum(1 << 5 * k for k in range(5))    # ... in its first five


def key(lo: int, hi: int = 0) -> np.ndarray:
    return np.array([(lo, hi)], dtype=_kernel.KEY_DTYPE)


@pytest.mark.parametrize("game, bad", [
    ("short", key(31)),                           # field 31 encodes nothing
    ("short", key(0, 31 << 55)),                  # ... on point 24 too
    ("short", key(15 | 1 << 5)),                  # 16 checkers of the mover
    ("short", key(15 << 60 | 1)),                 # 15 on the bar and one on point 1
    ("long", key(30 | 16 << 5)),                  # 16 of the opponent
    ("short", key(0, 15 << 60 | 16)),             # 15 on the opponent's bar and one more
    ("short", key(EVERY * 15, FIVE * 15 | 1 << 25)),   # 256 of the mover: T7, with no
    ("long", key(EVERY * 30, FIVE * 30 | 16 << 25)),   # sum wrapping to 0; 256 of the opponent
    ("long", key(1 << 60)),                       # a bar in long nardy (L3)
    ("long", key(0, 1 << 60)),
    ("short", np.zeros((2, 2), dtype=np.uint64)),  # not structured
    ("short", np.zeros((1, 1), dtype=_kernel.KEY_DTYPE)),  # not 1-D
    ("short", np.zeros(1, dtype=[("a", "<u8"), ("b", "<u8")])),
    ("short", "keys"),
])
def test_bad_keys(game, bad):
    with pytest.raises(InvalidPositionError):
        batch.rows_from_keys(game, bad)
    with pytest.raises(InvalidPositionError):
        features(game, bad)


def test_rows_from_keys_needs_rules():
    with pytest.raises(InvalidRulesError):
        batch.rows_from_keys("chess", key(0))


# ----------------------------------------------------------------------- pinned values

def test_tdgammon_short_start_S1():
    # 24:2, 13:5, 8:3, 6:5 for both sides: a count of 2 sets units 1-2, 3 sets 1-3, and 5 sets
    # all three plus the excess (5 - 3) / 2 = 1; the opponent's block starts at 98
    row = features("short", batch.encode([Position.start("short")]), kind="tdgammon")[0]
    ones = {20, 21, 22, 23, 28, 29, 30, 48, 49, 50, 51, 92, 93}
    assert nonzero(row) == {i: 1.0 for i in ones | {98 + i for i in ones} | {196}}


def test_tdgammon_bar_excess_and_borne_off():
    # mover: bar 1 (96: 1/2), point 6 holds 4 (excess 0.5), point 5 holds 10 (excess 3.5);
    # opponent: 3 on its point 1, 2 on its point 24, 10 borne off (195: 10/15)
    position = short_pos({6: 4, 5: 10}, {1: 3, 24: 2}, white_bar=1)
    row = features(Rules.short(), batch.encode([position]), kind="tdgammon")[0]
    assert row[196] == 1.0 and row[197] == 0.0
    assert nonzero(row) == pytest.approx({
        16: 1, 17: 1, 18: 1, 19: 3.5, 20: 1, 21: 1, 22: 1, 23: 0.5, 96: 0.5,
        98: 1, 99: 1, 100: 1, 190: 1, 191: 1, 195: 10 / 15, 196: 1})


def test_shots_start_S1():
    # no blot, so no shots; each back checker pair on point 24 sees blocks 5, 7 and 12 pips
    # ahead, and no roll carries it past the twelfth (4-4 and 6-6 stop on 12): no escapes
    row = features(Rules.short(), batch.encode([Position.start("short")]), kind="shots")[0]
    assert np.array_equal(row[:198], features(Rules.short(), batch.encode(
        [Position.start("short")]), kind="tdgammon")[0])
    assert row[198:].tolist() == pytest.approx([0, 0, 24 / 25, 0, 0, 0, 24 / 25, 0])


def test_shots_count_hits_escapes_and_the_back_checker_S5():
    # mover: 14 on its point 2, a blot on 6; opponent: 15 on its 24, the mover's point 1
    position = short_pos({2: 14, 6: 1}, {24: 15})
    row = features(Rules.short(), batch.encode([position]), kind="shots")[0]
    # shots at the mover's blot, 5 pips from the opponent: every 5 (11 rolls), 1-4 (over
    # its 20: its 23, the mover's 2, is a block) and 2-3 (4 rolls); no double makes 5
    # escapes of the mover's back checker (its 6) past the block on its 1: all but 1-2,
    # 1-3, 1-4, 2-3 (8), 1-1 and 5-5 (onto the block)
    # the opponent has no blot; its back checker (24) escapes the mover's block 1 pip
    # ahead with everything but 1-1; a hit takes 19 pips (25 - 6) from the mover: 15 * 19
    # pips over 36 rolls, 31.67 quarter pips, rounded to 32
    assert row[198:].tolist() == pytest.approx(
        [15 / 36, 26 / 36, 6 / 25, 32 / 96, 0, 35 / 36, 24 / 25, 0])

def test_nardy_first_turn_L5():
    # black to move after white's 24/18 18/13: black's 15 on its head (point 24, units 92-95
    # with excess (15 - 3) / 12 = 1; head 97 = 1; first turn 98 = 1); its head is white's point
    # 12, a run of 1 (99 and 100 + 11 = 1/6). White (block at 124): 14 on its head, one on its
    # 13, so not its first turn; it holds black's points 12 and 1 (runs of 1)
    position = Position.start("long").play("24/18 18/13")
    row = features("long", batch.encode([position]), kind="nardy")[0]
    assert nonzero(row) == pytest.approx({
        92: 1, 93: 1, 94: 1, 95: 1, 97: 1, 98: 1, 99: 1 / 6, 111: 1 / 6,
        124 + 48: 1, 124 + 92: 1, 124 + 93: 1, 124 + 94: 1, 124 + 95: 11 / 12,
        124 + 97: 14 / 15, 124 + 99: 1 / 6, 124 + 100: 1 / 6, 124 + 111: 1 / 6})


def test_nardy_six_block_threat_L6():
    # white holds its points 22..18, which are black's points 10..6: a run of 5, one point
    # short of a block (and its head, black's point 12, a run of 1); black holds only its head
    position = long_pos({24: 5, 22: 2, 21: 2, 20: 2, 19: 2, 18: 2}, {24: 15})
    row = features("long", batch.encode([position]), kind="nardy")[0]
    assert row[99] == pytest.approx(5 / 6)
    assert row[100:124] == pytest.approx([0] * 5 + [5 / 6] * 5 + [0, 1 / 6] + [0] * 12)
    assert row[97] == pytest.approx(5 / 15) and row[98] == 0.0
    assert row[124 + 98] == 1.0 and row[124 + 99] == pytest.approx(1 / 6)
    assert row[124 + 100:] == pytest.approx([0] * 11 + [1 / 6] + [0] * 12)  # white's point 12


def test_nardy_run_of_seven_is_capped_at_a_block_L6():
    # white's points 19..13 are black's points 7..1: a run of 7 counts as 6 (a block)
    position = long_pos({24: 8, 19: 1, 18: 1, 17: 1, 16: 1, 15: 1, 14: 1, 13: 1}, {24: 15},
                        block_rule="none")
    row = features(position.rules, batch.encode([position]), kind="nardy")[0]
    assert row[99] == 1.0
    assert row[100:124] == pytest.approx([1] * 7 + [0] * 4 + [1 / 6] + [0] * 12)


def test_raw_counts_bars_and_borne_off():
    position = short_pos({1: 3}, {23: 2, 13: 5, 8: 3, 6: 4}, black_bar=1)
    row = features("short", batch.encode([position]))[0]
    assert nonzero(row) == pytest.approx({0: 3 / 15, 25 + 5: 4 / 15, 25 + 7: 3 / 15,
                                          25 + 12: 5 / 15, 25 + 22: 2 / 15, 49: 1 / 15,
                                          50: 12 / 15})


# ----------------------------------------------------------------------- properties

@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(same_game_groups)
def test_shapes_ranges_and_rows_equal_keys(group):
    rules = group[0].rules
    rows, keys = batch.encode(group), keys_of(group)
    for kind in GAME_KINDS[rules.game]:
        out = features(rules, rows, kind=kind)
        assert out.dtype == np.float32 and out.shape == (len(group), WIDTHS[kind])
        assert np.array_equal(features(rules, keys, kind=kind), out)
        assert np.array_equal(features(rules, rows.astype(np.uint8), kind=kind), out)
        for i in range(len(group)):  # one row at a time gives the same rows
            assert np.array_equal(features(rules, rows[i:i + 1], kind=kind), out[i:i + 1])
        assert out.min() >= 0.0 and out.max() <= (6.0 if kind in ("tdgammon", "shots") else 1.0)
        if kind == "raw":  # every checker is somewhere: 15 per side
            assert np.allclose(out[:, :25].sum(1) + out[:, 50], 1.0)
            assert np.allclose(out[:, 25:50].sum(1) + out[:, 51], 1.0)


@pytest.mark.parametrize("kind", ["tdgammon", "nardy", "shots", "raw"])
def test_no_rows(kind):
    game = "long" if kind == "nardy" else "short"
    assert features(game, np.empty((0, 50), np.int8), kind).shape == (0, WIDTHS[kind])


# ----------------------------------------------------------------------- bad input

@pytest.mark.parametrize("game, kind", [
    ("long", "tdgammon"), ("short", "nardy"), ("long", "shots"), ("short", "TD"), ("long", None),
    ("long", 1),
    ("chess", "raw"),
])
def test_bad_kinds_and_rules(game, kind):
    with pytest.raises(InvalidRulesError):
        features(game, np.zeros((1, 50), np.int8), kind=kind)


def start_row(game: str, *moves: tuple) -> np.ndarray:
    """The start row of ``game`` with (column, from_column) checker moves applied; a from
    column of None adds a checker."""
    row = batch.encode([Position.start(game)]).astype(np.int64)
    for column, source in moves:
        row[0, column] += 1
        if source is not None:
            row[0, source] -= 1
    return row


@pytest.mark.parametrize("game, bad", [
    ("short", start_row("short")[0]),                  # 1-D
    ("short", start_row("short")[:, :49]),             # 49 columns
    ("short", start_row("short").astype(float)),
    ("short", start_row("short").astype(bool)),
    ("short", [["x"] * 50]),
    ("short", None),
    ("short", start_row("short") - 6),                 # negative counts
    ("short", start_row("short") * 3),                 # 45 checkers a side
    ("short", start_row("short", (1, None))),          # 16 checkers of the mover
    ("short", start_row("short", (49, None))),         # 16 of the opponent
    ("long", start_row("long", (24, 23))),             # a bar in long nardy (L3)
    ("long", start_row("long", (49, 48))),
    ("short", start_row("short", (25, 48))),           # opponent's 1 = mover's 24 (T7)
    ("long", start_row("long", (0, 23), (37, 48))),    # opponent's 13 = mover's 1 (T7)
])
def test_bad_rows(game, bad):
    for kind in GAME_KINDS[game]:
        with pytest.raises(InvalidPositionError) as compiled:
            features(game, bad, kind=kind)
        with pytest.raises(InvalidPositionError) as oracle:
            numpy_features(game, bad, kind=kind)
        assert str(compiled.value) == str(oracle.value)  # the same error as the numpy pass


@pytest.mark.parametrize("game, faults", [
    # several faulty rows in one batch: the error is the first check's, whatever the order
    ("short", [("short", (25, 48)), ("short", (1, None))]),
    ("short", [("short", (1, None)), ("short", (25, 48))]),
    ("long", [("long", (0, 23), (37, 48)), ("long", (24, 23))]),
    ("long", [("long", (24, 23)), ("long", (1, None), (2, None))]),
])
def test_bad_rows_in_a_batch_raise_the_first_checks_error(game, faults):
    rows = np.concatenate([start_row(game)] + [start_row(*fault) for fault in faults]
                          + [start_row(game)])
    for kind in GAME_KINDS[game]:
        with pytest.raises(InvalidPositionError) as compiled:
            features(game, rows, kind=kind)
        with pytest.raises(InvalidPositionError) as oracle:
            numpy_features(game, rows, kind=kind)
        assert str(compiled.value) == str(oracle.value)


# ----------------------------------------------------------------------- the numpy oracle

def random_play_rows(game: str, games: int, turns: int, seed: int) -> np.ndarray:
    """The positions of ``games`` random games of ``turns`` turns (restarted when over)."""
    rng = np.random.default_rng(seed)
    start = batch.encode([Position.start(game)])
    rows = np.repeat(start, games, axis=0)
    seen = [rows]
    for _ in range(turns):
        dice = rng.integers(1, 7, size=(games, 2))
        children, parent = batch.expand(game, rows, dice)
        counts = np.bincount(parent, minlength=games)
        first = np.concatenate([[0], np.cumsum(counts)[:-1]])
        pick = first + (rng.random(games) * np.maximum(counts, 1)).astype(np.int64)
        rows = np.where((counts > 0)[:, None], children[np.minimum(pick, len(children) - 1)],
                        start)
        seen.append(rows)
    return np.concatenate(seen)


@pytest.mark.parametrize("game", ["long", "short"])
def test_compiled_features_equal_the_numpy_definition_bit_for_bit(game):
    rows = random_play_rows(game, 40, 120, seed=15)
    keys = np.array([_kernel.pack(r[:24], r[24], r[25:49], r[49], game=game)
                     for r in rows.tolist()[::7]], dtype=_kernel.KEY_DTYPE)
    for kind in GAME_KINDS[game]:
        expected = numpy_features(game, rows, kind)
        for given_rows in (rows, rows.astype(np.uint8), rows.astype(np.int64),
                           np.asfortranarray(rows)):
            out = features(game, given_rows, kind)
            assert out.dtype == np.float32 and out.shape == expected.shape
            assert np.array_equal(out.view(np.uint32), expected.view(np.uint32))
        assert np.array_equal(features(game, keys, kind).view(np.uint32),
                              numpy_features(game, keys, kind).view(np.uint32))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(same_game_groups)
def test_compiled_features_equal_the_numpy_definition_on_any_position(group):
    rules = group[0].rules
    rows = batch.encode(group)
    for kind in GAME_KINDS[rules.game]:
        assert np.array_equal(features(rules, rows, kind).view(np.uint32),
                              numpy_features(rules, rows, kind).view(np.uint32))
