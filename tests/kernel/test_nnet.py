"""fastnardy._nnet, the compiled network, against a numpy oracle in float64: every shipped
network and saved ones of other sizes, on rows, keys, positions and feature arrays, within
1e-6 of the oracle's outputs; its errors; thread safety; and the search and self-play using
it exactly as they use the Python evaluator."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import threading
from typing import Optional
from pathlib import Path

import numpy as np
import pytest

from fastnardy import (FastNardyError, InvalidPositionError, Position, Rules, _gamebatch, _nnet,
                       batch, features)
from fastnardy.search import network
from fastnardy.batch import MIRROR_COLUMNS
from fastnardy.search.network import Evaluator, races
from fastnardy.search.inputs import WIDTHS
from fastnardy.search.tree import GNUBG_FILTERS, MoveFilter, best_turn, evaluator, expectimax
from fastnardy.search.selfplay import simulate

KINDS = {"long": "nardy", "short": "shots"}  # the shipped networks' inputs


def oracle(net: Evaluator, x: np.ndarray) -> np.ndarray:
    """The network's five outputs in float64 numpy: the definition the kernel must meet."""
    hidden = 1 / (1 + np.exp(-(x.astype(np.float64) @ net.hidden_weights.astype(np.float64)
                               + net.hidden_bias)))
    return 1 / (1 + np.exp(-(hidden @ net.output_weights.astype(np.float64)
                             + net.output_bias)))


def oracle_equity(p: np.ndarray) -> np.ndarray:
    return 2 * p[:, 0] - 1 + p[:, 1] + p[:, 2] - p[:, 3] - p[:, 4]


def positions(game: str, count: int = 600) -> np.ndarray:
    """Rows of seeded random play: openings, contact, races and bear-offs."""
    rules = Rules.of(game)
    rng = np.random.default_rng(11)
    rows = batch.encode([Position.start(game)] * 64)
    seen = []
    for _ in range(400):
        dice = rng.integers(1, 7, size=(len(rows), 2))
        children, parent = batch.expand(rules, rows, dice)
        pick = np.array([rng.choice(np.flatnonzero(parent == i)) for i in range(len(rows))])
        rows = children[pick]
        live = (rows[:, :25].sum(1) > 0) & (rows[:, 25:].sum(1) > 0)
        seen.append(rows[live])
        rows = np.concatenate([rows[live], batch.encode([Position.start(game)]
                                                         * int((~live).sum()))])
    every = np.concatenate(seen)
    return every[rng.choice(len(every), count, replace=False)]


def random_network(game: str, hidden: int, seed: int, scale: float = 1.0,
                   kind: Optional[str] = None) -> Evaluator:
    """Random weights for the inputs ``kind`` (the shipped network's of ``game`` by default)."""
    rng = np.random.default_rng(seed)
    kind = kind or KINDS[game]
    return Evaluator(kind, rng.normal(0, scale, (WIDTHS[kind], hidden)),
                     rng.normal(0, scale, hidden), rng.normal(0, scale, (hidden, 5)),
                     rng.normal(0, scale, 5))


@pytest.mark.parametrize("game", ["long", "short"])
@pytest.mark.parametrize("source", ["shipped", "h1", "h7", "h200", "saved"])
def test_within_1e6_of_the_numpy_oracle(game: str, source: str, tmp_path: Path) -> None:
    if source == "shipped":
        net = Evaluator.load(game, bearoff=False)
    elif source == "saved":
        random_network(game, 33, 5, 0.3).save(tmp_path / "n.npz")
        net = Evaluator.load(tmp_path / "n.npz", bearoff=False)
    else:
        net = random_network(game, int(source[1:]), 7, 0.3)
    rows = positions(game)
    x = features(game, rows, KINDS[game])
    expected = split_oracle(net, game, rows)
    keys = batch.keys_from_rows(game, rows)
    for got in (net.probabilities(x), net.evaluate(rows, probabilities=True),
                net.evaluate(keys, probabilities=True)):
        assert got.dtype == np.float32 and got.shape == (len(rows), 5)
        np.testing.assert_allclose(got, expected, atol=1e-6, rtol=0)
    np.testing.assert_allclose(net.evaluate(rows), oracle_equity(expected), atol=3e-6, rtol=0)
    np.testing.assert_allclose(net(x), oracle_equity(expected), atol=3e-6, rtol=0)
    assert net.evaluate(rows).dtype == np.float64


def in_contact(game: str, row: np.ndarray) -> bool:
    """The contact/race split, written from its definition: a checker on a bar, or a mover's
    checker that still has to pass a point the opponent's checkers will visit. The opponent's
    own point q is the mover's point 25 - q in short nardy and q + 12 (mod 24) in long nardy
    (RULES.md section 0); its checkers will visit each of its own points from its rearmost
    down to 1, and the mover's checker on point p passes every point below p."""
    if row[24] or row[49]:
        return True
    own = [p for p in range(1, 25) if row[p - 1]]
    other = [q for q in range(1, 25) if row[24 + q]]
    if not own or not other:
        return False
    visited = [25 - q if game == "short" else (q + 11) % 24 + 1 for q in range(1, max(other) + 1)]
    return min(visited) <= max(own)


def split_oracle(net: Evaluator, game: str, rows: np.ndarray) -> np.ndarray:
    """The oracle of ``net`` with its race network on the races (in_contact) and its crashed
    network on the crashed boards (in_crashed), where it has them."""
    x = features(game, rows, net.kind)
    out = oracle(net, x)
    for other, where in ((net.race, lambda row: not in_contact(game, row)),
                         (net.crashed, in_crashed)):
        if other is not None:
            chosen = np.array([where(row) for row in rows])
            out[chosen] = oracle(other, x[chosen])
    return out


@pytest.mark.parametrize("game", ["long", "short"])
def test_race_network_values_the_races_on_every_path(game: str, tmp_path: Path) -> None:
    """Evaluator(..., race=r): the races (no contact: _features.in_contact, here from its
    definition) by r and the rest by its own weights, within 1e-6 of the oracle on features,
    rows, keys, positions and after a save and load; the siblings of a turn, races and
    contact mixed in pairs, the same floats two at a time as one at a time."""
    rows = positions(game)
    races = np.array([not in_contact(game, row) for row in rows])
    np.testing.assert_array_equal(network.races(game, rows), races)
    np.testing.assert_array_equal(network.races(game, batch.keys_from_rows(game, rows)), races)
    assert races.sum() > 20 and (~races).sum() > 20
    contact = random_network(game, 40, 8, 0.3)
    split = Evaluator(KINDS[game], contact.hidden_weights, contact.hidden_bias,
                      contact.output_weights, contact.output_bias, race=random_network(
                          game, 17, 9, 0.3))
    assert split.race is not None
    expected = split_oracle(split, game, rows)
    assert np.abs(expected - oracle(contact, features(game, rows, KINDS[game]))).max() > 0.01
    split.save(tmp_path / "split.npz")
    loaded = Evaluator.load(tmp_path / "split.npz", bearoff=False)
    assert repr(loaded) == repr(split) == f"<Evaluator {KINDS[game]!r} hidden=40 race hidden=17>"
    keys = batch.keys_from_rows(game, rows)
    for net in (split, loaded):
        for got in (net.probabilities(features(game, rows, KINDS[game])),
                    net.evaluate(rows, probabilities=True), net.evaluate(keys, probabilities=True)):
            np.testing.assert_allclose(got, expected, atol=1e-6, rtol=0)
    listed = batch.decode(game, rows[:50])
    assert [split.value(p) for p in listed] == list(split.evaluate(rows[:50]))
    dice = np.random.default_rng(4).integers(1, 7, size=(len(rows), 2))
    children = batch.expand(game, rows, dice, keys=True)[0]
    one = np.concatenate([split.evaluate(children[i:i + 1]) for i in range(len(children))])
    np.testing.assert_array_equal(split.evaluate(children), one)
    np.testing.assert_array_equal(split.evaluate(children[1:]), one[1:])
    assert pickle.loads(pickle.dumps(split)).evaluate(children[:99]).tolist() == one[:99].tolist()


def in_crashed(row: np.ndarray) -> bool:
    """Short nardy's crashed class, written from its definition (GNU Backgammon's): in
    contact, and a side with at most 6 checkers in play, those on its 1 and 2 points beyond
    the first on each not counted."""
    if not in_contact("short", row):
        return False
    for side in (row[:25].astype(int), row[25:].astype(int)):
        if side.sum() - max(0, side[0] - 1) - max(0, side[1] - 1) <= 6:
            return True
    return False


def three_networks(kind: str, arithmetic: str = "float") -> Evaluator:
    """Random networks of ``kind`` for contact, races and crashed boards."""
    contact, race, crashed = (random_network("short", hidden, seed, 0.4, kind)
                              for hidden, seed in ((40, 41), (17, 42), (23, 43)))
    race, crashed = (Evaluator(kind, n.hidden_weights, n.hidden_bias, n.output_weights,
                               n.output_bias, arithmetic=arithmetic) for n in (race, crashed))
    return Evaluator(kind, contact.hidden_weights, contact.hidden_bias, contact.output_weights,
                     contact.output_bias, race=race, arithmetic=arithmetic, crashed=crashed)


@pytest.mark.parametrize("kind", ["shots", "tdgammon"])
def test_crashed_network_values_the_crashed_boards_on_every_path(kind: str,
                                                                 tmp_path: Path) -> None:
    """Evaluator(..., race=r, crashed=c): the races by r, the crashed boards (in_crashed,
    from its definition) by c, the rest by its own weights, within 1e-6 of the oracle on
    features (the class read back off them), rows, keys, positions and after a save and load;
    a turn's children valued from their parent (self-play's path, hits included) the same
    floats as each child alone, in float and in int16."""
    rules = Rules.short()
    rows = positions("short", 2000)
    crashed = np.array([in_crashed(row) for row in rows])
    np.testing.assert_array_equal(network.crashes("short", rows), crashed)
    np.testing.assert_array_equal(
        network.crashes("short", batch.keys_from_rows("short", rows)), crashed)
    assert crashed.sum() > 50 and (~crashed).sum() > 50
    net = three_networks(kind)
    assert net.race is not None and net.crashed is not None
    x = features("short", rows, kind)
    expected = split_oracle(net, "short", rows)
    assert np.abs(expected[crashed] - oracle(net, x[crashed])).max() > 0.01
    net.save(tmp_path / "three.npz")
    loaded = Evaluator.load(tmp_path / "three.npz", bearoff=False)
    assert repr(loaded) == repr(net) == (f"<Evaluator {kind!r} hidden=40 race hidden=17 "
                                         f"crashed hidden=23>")
    keys = batch.keys_from_rows("short", rows)
    for each in (net, loaded, pickle.loads(pickle.dumps(net))):
        for got in (each.probabilities(x), each.evaluate(rows, probabilities=True),
                    each.evaluate(keys, probabilities=True)):
            np.testing.assert_allclose(got, expected, atol=1e-6, rtol=0)
    listed = batch.decode("short", rows[:50])
    assert [net.value(p) for p in listed] == list(net.evaluate(rows[:50]))
    valued = 0
    for each in (net, three_networks(kind, "int16")):
        for roll in batch.ROLLS[::2]:
            children = children_from_parents(each, rules, rows[:300], roll)
            valued += int(network.crashes(rules, children).sum())
    assert valued > 500


def children_from_parents(net: Evaluator, rules: Rules, rows: np.ndarray,
                          roll: tuple) -> np.ndarray:
    """Assert that the children of ``rows`` under ``roll`` valued from their parent (the
    kernel's self-play path, pairs from the first and from the second of each parent's) are
    the same floats as each child alone; return the children (keys)."""
    parents = batch.keys_from_rows(rules, rows)
    dice = np.repeat(np.array([roll]), len(rows), axis=0)
    children, parent = batch.expand(rules, rows, dice, keys=True)
    alone = net.network.probabilities(children)
    for first in (0, 1):  # pairs (0, 1), (2, 3) ... and 0, (1, 2), (3, 4) ...
        got = _gamebatch._child_probabilities(net.network, parents, children, parent, first)
        np.testing.assert_array_equal(got, alone)
    return children


def test_race_network_errors(tmp_path: Path) -> None:
    td = random_network("short", 20, 31, 0.3, "tdgammon")
    short = Evaluator("tdgammon", td.hidden_weights, td.hidden_bias, td.output_weights,
                      td.output_bias, race=random_network("short", 8, 32, 0.3, "tdgammon"))
    arrays = (short.hidden_weights, short.hidden_bias, short.output_weights, short.output_bias)
    with pytest.raises(FastNardyError, match="race must be an Evaluator of kind 'tdgammon'"):
        Evaluator("tdgammon", *arrays, race=Evaluator.load("long", bearoff=False))
    plain = Evaluator("tdgammon", *arrays)
    with pytest.raises(FastNardyError, match="race must be"):
        Evaluator("tdgammon", *arrays, race=Evaluator("tdgammon", *arrays, race=plain))
    with pytest.raises(FastNardyError, match="race must be"):
        Evaluator("tdgammon", *arrays, race="short")  # type: ignore[arg-type]
    with pytest.raises(FastNardyError, match="a race network has the kind"):
        _nnet.Network(2, False, MIRROR_COLUMNS["long"], *arrays, race=plain.network)
    with pytest.raises(FastNardyError, match="a race network has the kind"):
        _nnet.Network(1, True, MIRROR_COLUMNS["short"], *arrays, race=short.network)
    Evaluator("tdgammon", *arrays, race=plain).save(tmp_path / "split.npz")
    with np.load(tmp_path / "split.npz") as data:
        members = {key: data[key] for key in data.files if key != "race_output_bias"}
    np.savez(tmp_path / "part.npz", **members)
    with pytest.raises(FastNardyError, match="of its race network"):
        Evaluator.load(tmp_path / "part.npz", bearoff=False)
    with pytest.raises(InvalidPositionError):
        network.races("short", np.full((2, 50), 16, np.int8))
    long_rows = batch.encode([Position.start("long")])
    long_rows[0, 23], long_rows[0, 24] = 14, 1  # a bar checker in long nardy (L3)
    with pytest.raises(InvalidPositionError, match="L3"):
        network.races("long", long_rows)
    assert network.races("short", np.zeros((0, 50), np.int8)).shape == (0,)


def test_crashed_network_errors(tmp_path: Path) -> None:
    """A crashed network is short nardy's, of its network's kind and arithmetic, with no
    race or crashed network of its own; a file with part of one is refused."""
    net = three_networks("tdgammon")
    arrays = (net.hidden_weights, net.hidden_bias, net.output_weights, net.output_bias)
    plain = Evaluator("tdgammon", *arrays)
    with pytest.raises(FastNardyError, match="crashed must be an Evaluator of kind 'tdgammon'"):
        Evaluator("tdgammon", *arrays, crashed=random_network("short", 8, 1, 0.3, "shots"))
    with pytest.raises(FastNardyError, match="crashed must be"):
        Evaluator("tdgammon", *arrays, crashed=net)
    with pytest.raises(FastNardyError, match="race must be"):
        Evaluator("tdgammon", *arrays, race=Evaluator("tdgammon", *arrays, crashed=plain))
    with pytest.raises(FastNardyError, match="crashed must be"):
        Evaluator("tdgammon", *arrays, crashed=Evaluator("tdgammon", *arrays, arithmetic="int16"))
    long = Evaluator.load("long", bearoff=False)
    long_arrays = (long.hidden_weights, long.hidden_bias, long.output_weights, long.output_bias)
    with pytest.raises(FastNardyError, match="a crashed network is short nardy's"):
        Evaluator("nardy", *long_arrays, crashed=Evaluator("nardy", *long_arrays))
    with pytest.raises(FastNardyError, match="a crashed network values short nardy's"):
        _nnet.Network(2, False, MIRROR_COLUMNS["long"], *long_arrays,
                      crashed=_nnet.Network(2, False, MIRROR_COLUMNS["long"], *long_arrays))
    with pytest.raises(FastNardyError, match="a crashed network has the kind"):
        _nnet.Network(1, True, MIRROR_COLUMNS["short"], *arrays, crashed=net.network)
    net.save(tmp_path / "three.npz")
    with np.load(tmp_path / "three.npz") as data:
        members = {key: data[key] for key in data.files if key != "crashed_hidden_bias"}
    np.savez(tmp_path / "part.npz", **members)
    with pytest.raises(FastNardyError, match="of its crashed network"):
        Evaluator.load(tmp_path / "part.npz", bearoff=False)
    with pytest.raises(FastNardyError, match="short nardy's"):
        network.crashes("long", batch.encode([Position.start("long")]))
    with pytest.raises(InvalidPositionError):
        network.crashes("short", np.full((2, 50), 16, np.int8))
    assert network.crashes("short", np.zeros((0, 50), np.int8)).shape == (0,)


@pytest.mark.parametrize("game", ["long", "short"])
def test_positions_and_batch_one(game: str) -> None:
    net = Evaluator.load(game, bearoff=False)
    rows = positions(game, 20)
    listed = batch.decode(game, rows)
    values = net.evaluate(listed)
    np.testing.assert_allclose(values, net.evaluate(rows), atol=0)
    assert [net.value(p) for p in listed] == list(values)
    assert net.evaluate(rows[:0]).shape == (0,)


@pytest.mark.parametrize("game", ["long", "short"])
def test_siblings_in_a_batch_are_the_same_floats_as_one_at_a_time(game: str) -> None:
    """A batch evaluates siblings (children of one turn: the same side to move) two at a
    time, interleaved: bit for bit the outputs of evaluating each alone, for rows and keys,
    odd and even counts, hits included (short nardy: siblings whose side to move differs)."""
    net = Evaluator.load(game, bearoff=False)
    rows = positions(game, 40)
    dice = np.random.default_rng(3).integers(1, 7, size=(len(rows), 2))
    for keys in (False, True):
        children = batch.expand(game, rows, dice, keys=keys)[0]
        one = np.concatenate([net.evaluate(children[i:i + 1], probabilities=True)
                              for i in range(len(children))])
        n = len(children)
        for start, stop in ((0, n), (1, n), (0, n - 1)):  # both pairings, odd and even
            got = net.evaluate(children[start:stop], probabilities=True)
            np.testing.assert_array_equal(got, one[start:stop])
    keys = batch.expand(game, rows, dice, keys=True)[0][:5].copy()
    keys.view(np.uint64)[5] = ~np.uint64(0)  # the second key of the third pair is bad
    with pytest.raises(InvalidPositionError):
        net.evaluate(keys)


@pytest.mark.parametrize("dtype", [np.int16, np.float32, np.float64, np.uintp])
def test_tables_start_on_a_cache_line(dtype: type) -> None:
    """A Network's tables are copied to 64-byte boundaries (numpy's own start 16 bytes past
    one, and then every 64-byte row load of the kernel straddles two lines): the same values,
    read-only, at every size."""
    for size in (1, 5, 160, 257 * 33):
        array = np.arange(size, dtype=dtype).reshape(-1, 1) if size % 33 else (
            np.arange(size, dtype=dtype).reshape(257, 33))
        copy = _nnet._aligned(array)
        assert copy.ctypes.data % 64 == 0 and not copy.flags.writeable
        assert copy.dtype == array.dtype and copy.shape == array.shape
        np.testing.assert_array_equal(copy, array)


def test_saturated_sigmoids_stay_in_range() -> None:
    """Pre-activations in the hundreds (the exp is clamped): outputs in [0, 1], no NaN, and
    as the oracle to float32's precision at that size (sums of 1e3 carry 1e-4 of rounding)."""
    net = random_network("short", 16, 3, 40.0)
    rows = positions("short", 200)
    p = net.evaluate(rows, probabilities=True)
    assert np.isfinite(p).all() and (p >= 0).all() and (p <= 1).all()
    np.testing.assert_allclose(p, oracle(net, features("short", rows, net.kind)), atol=1e-4)


def test_bad_boards_are_the_documented_errors() -> None:
    net = Evaluator.load("short", bearoff=False)
    with pytest.raises(InvalidPositionError):
        net.evaluate(np.full((2, 50), 16, np.int8))
    with pytest.raises(InvalidPositionError):
        net.evaluate(np.full((2, 50), 16, np.int64))
    with pytest.raises(InvalidPositionError):
        net.evaluate(np.zeros((2, 49), np.int8))
    with pytest.raises(InvalidPositionError):
        net.evaluate([Position.start("long")])
    with pytest.raises(InvalidPositionError):
        net.value("short")
    long_rows = batch.encode([Position.start("long")])
    long_rows[0, 23], long_rows[0, 24] = 14, 1  # a bar checker in long nardy (L3)
    with pytest.raises(InvalidPositionError, match="L3"):
        Evaluator.load("long", bearoff=False).evaluate(long_rows)


def test_immutable_picklable_and_shared_between_threads() -> None:
    net = Evaluator.load("long", bearoff=False)
    with pytest.raises(ValueError):
        net.hidden_weights[0, 0] = 1.0
    rows = positions("long", 300)
    expected = net.evaluate(rows)
    with pytest.raises(FastNardyError, match="built once"):
        net.network.__init__(1, True, [0] * 24, net.hidden_weights, net.hidden_bias,
                             net.output_weights, net.output_bias)
    again = pickle.loads(pickle.dumps(net))
    np.testing.assert_array_equal(again.evaluate(rows), expected)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(net.network)).equities(rows),
                                  expected)
    results: list = []

    def work() -> None:
        for _ in range(30):
            results.append(np.array_equal(net.evaluate(rows), expected))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [True] * 120


@pytest.mark.parametrize("game", ["long", "short"])
@pytest.mark.parametrize("race", [False, True])
def test_search_compiled_equals_the_python_evaluator(game: str, race: bool) -> None:
    """best_turn and expectimax with the Evaluator (compiled on rows) choose as the same
    network called from Python on features (to within the 1e-6 of the two paths), with a
    race network (and in short nardy a crashed one) too."""
    net = with_race_and_crashed(game) if race else Evaluator.load(game, bearoff=False)
    python = evaluator(lambda x: net(x), ("features", KINDS[game]))
    rows = positions(game, 4)
    for plies, move_filter in ((0, None), (1, MoveFilter(3, 0.1)), (2, GNUBG_FILTERS)):
        np.testing.assert_allclose(expectimax(game, rows[:2], net, plies, move_filter),
                                   expectimax(game, rows[:2], python, plies, move_filter),
                                   atol=1e-5)
    position = batch.decode(game, rows[:1])[0]
    compiled = best_turn(position, (5, 2), net, 1)
    called = best_turn(position, (5, 2), python, 1)
    assert compiled.choice == called.choice
    np.testing.assert_allclose(compiled.values, called.values, atol=1e-5)


def test_three_plies_and_filters_per_level() -> None:
    net = Evaluator.load("short", bearoff=False)
    position = Position.from_gnubg_id("4HPwATDgc/ABMA")
    found = best_turn(position, (3, 1), net, 3, (MoveFilter(2, 1.0), MoveFilter(1, 0.0)))
    assert found.turn == position.legal_turns((3, 1))[found.choice]
    assert (found.plies == 3).sum() == 2  # the root's filter kept two
    assert found.plies[found.choice] == 3 and set(found.plies) == {0, 3}
    zero = best_turn(position, (3, 1), net, 0)  # the others keep their 0-ply value
    dropped = found.plies == 0
    assert np.array_equal(found.values[dropped], zero.values[dropped])
    assert found.values[found.choice] == found.values[~dropped].max()
    with pytest.raises(FastNardyError):
        best_turn(position, (3, 1), net, 1, (MoveFilter(),) * 4)


def test_the_evaluator_gets_a_read_only_batch() -> None:
    """Issue 24 item 8: an evaluator that writes into its input cannot change the search."""
    def vandal(rows: np.ndarray) -> np.ndarray:
        rows[:] = rows[::-1]
        return np.zeros(len(rows))

    with pytest.raises(ValueError, match="read-only"):
        best_turn(Position.start("long"), (6, 5), vandal, 1)


def with_race_and_crashed(game: str) -> Evaluator:
    """The shipped network with a random race network and, in short nardy, a random crashed
    one."""
    net = Evaluator.load(game, bearoff=False)
    crashed = random_network(game, 19, 13, 0.3) if game == "short" else None
    return Evaluator(net.kind, net.hidden_weights, net.hidden_bias, net.output_weights,
                     net.output_bias, race=random_network(game, 24, 12, 0.3), crashed=crashed)


@pytest.mark.parametrize("game", ["long", "short"])
@pytest.mark.parametrize("race", [False, True])
def test_selfplay_with_the_network_in_the_kernel(game: str, race: bool) -> None:
    """simulate with the Evaluator (played inside the kernel) gives the same games as the
    same network called from Python at every turn-step, with a race network (and in short
    nardy a crashed one) too."""
    net = with_race_and_crashed(game) if race else Evaluator.load(game, bearoff=False)
    python = evaluator(lambda x: net(x), ("features", KINDS[game]))
    inside = simulate(game, 12, 3, net)
    outside = simulate(game, 12, 3, python)
    for a, b in zip(inside, outside):
        np.testing.assert_array_equal(a, b)
    assert (inside.winner >= 0).all()


@pytest.mark.parametrize("game", ["long", "short"])
def test_selfplay_with_the_int16_network_in_the_kernel(game: str) -> None:
    """The kernel's policy values children in windows (their sums, then their sigmoids at
    once): the same games as the int16 network called from Python on the rows at every
    turn-step, and each game's every choice the first child of the highest value."""
    fast = Evaluator.load(game, "int16", bearoff=False)
    python = evaluator(lambda rows: fast.evaluate(rows), "rows")
    inside = simulate(game, 12, 4, fast)
    outside = simulate(game, 12, 4, python)
    for a, b in zip(inside, outside):
        np.testing.assert_array_equal(a, b)
    assert (inside.winner >= 0).all()


def int16_networks(game: str) -> list[Evaluator]:
    """The shipped int16 network, and random ones of 17, 48 and 300 units (300: two blocks of
    NN_QBLOCK), the last with a random race network."""
    shipped = Evaluator.load(game, "int16", bearoff=False)
    nets = [shipped]
    for hidden, seed in ((17, 3), (48, 4), (300, 5)):
        plain = random_network(game, hidden, seed, 0.4)
        race = None
        if hidden == 300:
            r = random_network(game, 40, 6, 0.4)
            race = Evaluator(r.kind, r.hidden_weights, r.hidden_bias, r.output_weights,
                             r.output_bias, arithmetic="int16")
        nets.append(Evaluator(plain.kind, plain.hidden_weights, plain.hidden_bias,
                              plain.output_weights, plain.output_bias, race=race,
                              arithmetic="int16"))
    return nets


@pytest.mark.parametrize("game", ["long", "short"])
def test_children_from_their_parent_are_the_same_floats(game: str) -> None:
    """The kernel's self-play values a turn's children from their parent: the partial sums
    of their side to move (the parent's opponent) made once, and only the side that moved
    read from each child's key (in the parent's frame; long nardy's int16 network updates
    the parent's count rows of that side, NNUE's way); a hit (S5) takes both sides' rows.
    Every child of seeded random play, under every roll, the same floats as the child
    valued alone, with each network (int16 and float, with race and crashed networks too)
    and both ways of pairing siblings."""
    rules = Rules.of(game)
    rows = positions(game, 150)
    hits = in_race = in_contact = 0
    for net in int16_networks(game) + [Evaluator.load(game, bearoff=False), with_race_and_crashed(game)]:
        for i, roll in enumerate(batch.ROLLS):
            if i % 3 and net.arithmetic == "float":
                continue
            children_from_parents(net, rules, rows, roll)
            dice = np.repeat(np.array([roll]), len(rows), axis=0)
            boards, parent = batch.expand(rules, rows, dice)
            hits += int((boards[:, 24] > rows[parent, 49]).sum())  # the side to move's bar
            race = races(game, boards)
            in_race += int(race.sum())
            in_contact += int((~race).sum())
    assert in_race > 1000 and in_contact > 1000
    assert (hits > 100) == (game == "short")


def shots_networks() -> list[Evaluator]:
    """Random networks of the shots kind (short nardy's tdgammon inputs and eight contact
    inputs that depend on both sides) of 17, 48 and 200 units, the last with a race network
    of the kind, each in float and int16."""
    nets = []
    for hidden, seed in ((17, 21), (48, 22), (200, 23)):
        rng = np.random.default_rng(seed)
        arrays = [rng.normal(0, 0.4, shape)
                  for shape in ((206, hidden), hidden, (hidden, 5), 5)]
        arrays[0][198:] *= 5  # the contact inputs' weights large: a wrong one shows
        race = None
        if hidden == 200:
            r = np.random.default_rng(24)
            race = Evaluator("shots", *[r.normal(0, 0.4, shape)
                                        for shape in ((206, 30), 30, (30, 5), 5)])
        net = Evaluator("shots", *arrays, race=race)
        nets += [net, integer(net)]
    return nets


def test_shots_networks_on_every_path() -> None:
    """The shots kind: its contact inputs' table rows (shots and escapes 0..36, the back
    checker's point 0..25, the pip loss 0..96, per side) are each board's own, added after
    both sides' rows: within 1e-6 of the numpy oracle on rows, keys and feature arrays (the race network on
    races), and a turn's children valued from their parent (self-play's path, hits
    included) the same floats as each child alone, in float and in int16; the int16 values
    within 0.03 of the float ones."""
    rules = Rules.short()
    rows = positions("short", 300)
    keys = batch.keys_from_rows("short", rows)
    x = features("short", rows, "shots")
    assert len(np.unique(x[:, 198:], axis=0)) > 100  # the contact inputs vary
    for net in shots_networks():
        if net.arithmetic == "float":
            expected = split_oracle(net, "short", rows)
            for got in (net.probabilities(x), net.evaluate(rows, probabilities=True),
                        net.evaluate(keys, probabilities=True)):
                np.testing.assert_allclose(got, expected, atol=1e-6, rtol=0)
            floats = net.evaluate(rows)
        else:
            assert np.abs(net.evaluate(rows) - floats).max() < 0.03
        for roll in batch.ROLLS[::4]:
            children_from_parents(net, rules, rows[:120], roll)
    # without weights on the contact inputs (a race network padded to the kind), the
    # network has no rows of them: the tdgammon network's floats
    td = random_network("short", 40, 25, 0.4, "tdgammon")
    padded = Evaluator("shots", np.vstack([td.hidden_weights, np.zeros((8, 40))]),
                       td.hidden_bias, td.output_weights, td.output_bias)
    for arithmetic in ("float", "int16"):
        np.testing.assert_array_equal(
            Evaluator("shots", padded.hidden_weights, padded.hidden_bias, padded.output_weights,
                      padded.output_bias, arithmetic=arithmetic).evaluate(keys),
            Evaluator("tdgammon", td.hidden_weights, td.hidden_bias, td.output_weights,
                      td.output_bias, arithmetic=arithmetic).evaluate(keys))


SAME_FLOATS = """
import sys
import numpy as np
from fastnardy import batch, features, _gamebatch, _nnet
from fastnardy.search.network import Evaluator
rng = np.random.default_rng(5)
out = []
for game, kind, width in (("short", "tdgammon", 198), ("long", "nardy", 248),
                          ("short", "shots", 206)):
    arrays = [[rng.normal(0, 0.5, shape) for shape in ((width, n), n, (n, 5), 5)]
              for n in (1, 17, 48, 200, 300)]
    shipped = [Evaluator.load(game, arithmetic, bearoff=False)
               for arithmetic in ("float", "int16") if Evaluator.load(game, bearoff=False).kind == kind]
    nets = shipped[:1] + [Evaluator(kind, *a) for a in arrays]
    integers = shipped[1:] + [Evaluator(kind, *a, arithmetic="int16") for a in arrays]
    rows = np.load(sys.argv[1])[game]
    keys = batch.keys_from_rows(game, rows)
    for net in nets:
        out += [net.evaluate(rows, probabilities=True), net.evaluate(keys[1:], probabilities=True),
                net.probabilities(features(game, rows[:300], kind))]
    for net in integers:
        out += [net.evaluate(rows, probabilities=True), net.evaluate(keys[1:], probabilities=True)]
    children, parent = batch.expand(game, rows[:200], np.full((200, 2), [5, 2]), keys=True)
    for net in nets[:2] + integers[:2]:  # the kernel's self-play path (nn_child2)
        out += [_gamebatch._child_probabilities(net.network, keys[:200], children, parent)]
    out += [features(game, keys, "raw")]  # the raw inputs of keys: lookups per instruction set
np.savez(sys.argv[2], simd=_nnet.SIMD, *out)
"""


def test_every_instruction_set_gives_the_same_floats(tmp_path: Path) -> None:
    """_nnet_simd.h built for AVX-512 with and without VNNI, AVX2 and the baseline (each
    where this CPU runs it, chosen by FASTNARDY_SIMD in a fresh process): bit for bit the same outputs, for the
    shipped networks and others of 1 to 300 hidden units (tails of 1 to 13 blocks; int16
    output sums in one or two blocks of 256), on
    rows, keys (pairs in both phases) and feature arrays, in float and in int16 (whose
    AVX-512 code and the others' share no line); and the raw inputs of keys
    (_features' lookups per instruction set, the same choice). A bad FASTNARDY_SIMD stops
    the import with FastNardyError."""
    np.savez(tmp_path / "rows.npz", short=positions("short", 400), long=positions("long", 400))
    script = tmp_path / "same.py"
    script.write_text(SAME_FLOATS)
    results = {}
    for name in _nnet.SIMD_AVAILABLE:
        out = tmp_path / f"{name}.npz"
        subprocess.run([sys.executable, str(script), str(tmp_path / "rows.npz"), str(out)],
                       check=True, env={**os.environ, "FASTNARDY_SIMD": name})
        with np.load(out) as data:
            assert str(data["simd"]) == name
            results[name] = [data[f"arr_{i}"] for i in range(len(data.files) - 1)]
    assert "base" in results and len(results["base"]) == 100
    for name, arrays in results.items():
        for got, expected in zip(arrays, results["base"]):
            np.testing.assert_array_equal(got, expected, err_msg=name)
    bad = subprocess.run([sys.executable, "-c", "import fastnardy"], capture_output=True,
                         text=True, env={**os.environ, "FASTNARDY_SIMD": "avx9"})
    assert bad.returncode != 0
    assert "FastNardyError: FASTNARDY_SIMD='avx9'" in bad.stderr


def integer(net: Evaluator) -> Evaluator:
    """``net`` (and its race and crashed networks) in int16 arithmetic."""
    race, crashed = (None if other is None else integer(other)
                     for other in (net.race, net.crashed))
    return Evaluator(net.kind, net.hidden_weights, net.hidden_bias, net.output_weights,
                     net.output_bias, race=race, arithmetic="int16", crashed=crashed)


def stacks(game: str) -> np.ndarray:
    """Boards at the edges of the first layer's sums: each side's 15 checkers on one point
    (or borne off), every pair of such points the rules allow."""
    rows = []
    for mine in range(25):
        for theirs in range(25):
            row = np.zeros(50, np.int8)
            row[mine] = row[25 + theirs] = 15
            rows.append(row)
    return np.array([row for row in rows if _legal(game, row)])


def _legal(game: str, row: np.ndarray) -> bool:
    try:
        features(game, row[None], "raw")
    except InvalidPositionError:
        return False
    return True


@pytest.mark.parametrize("game", ["long", "short"])
def test_int16_is_within_a_few_thousandths_of_the_float_network(game: str) -> None:
    """Evaluator(arithmetic="int16"): the shipped network (with its race and crashed
    networks) and a random one within 0.003 of the float equity on average, 0.03 at most, on
    seeded random play; rows, keys and Positions alike."""
    rows = positions(game)
    for net in (Evaluator.load(game, bearoff=False), random_network(game, 48, 4)):
        fast = integer(net)
        assert fast.arithmetic == "int16" and (fast.race is None) == (net.race is None)
        assert (fast.crashed is None) == (net.crashed is None)
        gap = np.abs(fast.evaluate(rows) - net.evaluate(rows))
        assert gap.mean() < 0.003 and gap.max() < 0.03
        keys = batch.keys_from_rows(game, rows[:50])
        np.testing.assert_array_equal(fast.evaluate(keys), fast.evaluate(rows[:50]))
        position = batch.decode(game, rows[:1])[0]
        assert fast.value(position) == fast.evaluate(rows[:1])[0]
    assert repr(Evaluator.load(game, "int16", bearoff=False)).endswith(" int16>")


def test_int16_sigmoid_cubics_on_every_input() -> None:
    """The int16 sigmoid (_nnet_simd.h's qsigmoid, NN_SIG's cubics in Q15 with pmulhrsw's
    rounding) on each of the 16,384 sizes of its input: within 7e-5 of the exact sigmoid
    less 1/2, and never below 0 nor above 16384 before the clamp at 16383, which the
    kernel's code leaves out below (a clamp at 0 would change nothing)."""
    assert _nnet.SIGMOID_CUBICS.shape == (4, 32) and not _nnet.SIGMOID_CUBICS.flags.writeable
    cubics = _nnet.SIGMOID_CUBICS.astype(np.int64)
    size = np.arange(16384)  # |x| in units of 1/1024
    s, t = size >> 9, (size & 511) << 6

    def mulhrs(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return (a * b + 0x4000) >> 15

    y = cubics[2][s] + mulhrs(t, cubics[3][s])
    y = cubics[1][s] + mulhrs(t, y)
    y = cubics[0][s] + mulhrs(t, y)
    assert y.min() == 0 and y.max() == 16384
    exact = 1 / (1 + np.exp(-size / 1024)) - 0.5
    assert np.abs(np.minimum(y, 16383) / 32768 - exact).max() < 7e-5


@pytest.mark.parametrize("units", [128, 256, 300, 512])
@pytest.mark.parametrize("top", [True, False])
def test_int16_output_sums_of_a_block_never_overflow(units: int, top: bool) -> None:
    """The output weights are at most 8191 (13 bits) in size so that a block of 256 units'
    products (each sigmoid less 1/2, at most 16383 in size in Q15) sum in int32 lanes
    (AVX-512): the worst case, every unit's sigmoid at its top (or bottom) and every weight
    at +-8191, one and more blocks, gives the float value (the outputs' bias takes the
    sum back to the sigmoid's middle, where a wrapped sum would be far off)."""
    weight = 8191 / 4096  # scaled by 2^12: exactly 8191
    hidden = np.zeros((198, units))
    bias = np.full(units, 30.0 if top else -30.0)  # the sum clamps at +-16
    signs = np.array([1.0, -1.0, 1.0, -1.0, 1.0])
    output = np.tile(signs * weight, (units, 1))
    sums = units * weight / (1 + np.exp(-bias[0]))
    net = Evaluator("tdgammon", hidden, bias, output, -signs * (sums - 0.5))
    rows = positions("short", 50)
    np.testing.assert_allclose(integer(net).evaluate(rows, probabilities=True),
                               net.evaluate(rows, probabilities=True), atol=0.02)


@pytest.mark.parametrize("game", ["long", "short"])
def test_int16_sums_are_the_same_in_any_order_and_never_wrap(game: str) -> None:
    """Integers sum exactly: a board's value is the same alone, among siblings that share
    the mover's partial sums, and in reverse order. The scale of each unit keeps every
    board's int16 sum in range: networks of one unit with first-layer weights in the tens
    stay near the float values on the edge boards (all checkers on one point) wherever the
    unit is far from its middle (|sum| > 4), where a wrapped sum would flip it."""
    rows = positions(game, 300)
    fast = Evaluator.load(game, "int16", bearoff=False)
    together = fast.evaluate(rows)
    np.testing.assert_array_equal(fast.evaluate(rows[::-1])[::-1], together)
    alone = [fast.value(p) for p in batch.decode(game, rows[:40])]
    np.testing.assert_array_equal(alone, together[:40])
    edges = np.concatenate([stacks(game), rows])
    x = features(game, edges, KINDS[game]).astype(np.float64)
    for seed in range(4):
        rng = np.random.default_rng(seed)
        w1, b1 = rng.normal(0, 20, (x.shape[1], 1)), rng.normal(0, 20, 1)
        net = Evaluator(KINDS[game], w1, b1, rng.normal(0, 1, (1, 5)), rng.normal(0, 1, 5))
        far = np.abs(x @ w1.astype(np.float32) + b1.astype(np.float32))[:, 0] > 4
        assert far.sum() > len(edges) // 2
        gap = np.abs(integer(net).evaluate(edges[far], probabilities=True)
                     - net.evaluate(edges[far], probabilities=True))
        assert gap.max() < 0.05


def test_int16_errors() -> None:
    """A bad arithmetic, a race network of another arithmetic and feature arrays for an int16
    network are FastNardyError; pickles keep the arithmetic and the values."""
    for bad in ("int8", np.array([], np.int8), np.array(["int16"])):  # found by hypothesis
        with pytest.raises(FastNardyError, match="arithmetic must be one of"):
            Evaluator.load("short", bad, bearoff=False)  # type: ignore[arg-type]
    short = Evaluator.load("short", bearoff=False)
    assert short.race is not None
    with pytest.raises(FastNardyError, match="arithmetic"):
        Evaluator(short.kind, short.hidden_weights, short.hidden_bias, short.output_weights,
                  short.output_bias, race=short.race, arithmetic="int16")
    fast = Evaluator.load("short", "int16", bearoff=False)
    with pytest.raises(FastNardyError, match="not feature arrays"):
        fast(features("short", positions("short", 5), fast.kind))
    rows = positions("short", 50)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(fast)).evaluate(rows),
                                  fast.evaluate(rows))
    assert pickle.loads(pickle.dumps(fast.network)).arithmetic == "int16"
