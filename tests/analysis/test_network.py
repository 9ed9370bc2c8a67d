"""fastnardy.search.network: the shipped evaluators (loader, inference, use in the search), the
trainer's determinism for a seed (examples/train_td.py) and the players of the strength
harness (bench/strength/strength.py, ``fastnardy match``: fastnardy.play.players and
fastnardy.play.duel; GNU Backgammon's player is skipped where gnubg is absent)."""

from __future__ import annotations

import importlib.util
import io
import json
import sys
import time
import tracemalloc
import zipfile
import os
from pathlib import Path
from types import ModuleType
from typing import List

import numpy as np
import pytest

from fastnardy import FastNardyError, Position, Rules, batch, features
from fastnardy.errors import EngineError
from fastnardy.search.network import OUTPUTS, Evaluator, crashes, equity, races
from fastnardy.play.duel import play_games, wilson
from fastnardy.play.players import GnubgPlayer, Greedy, Random, greedy_scores, player
from fastnardy.search.setting import Setting
from fastnardy.search.tree import MoveFilter, best_turn, expectimax
from fastnardy.training.labels import labels
from fastnardy import search

from conftest import needs_gnubg

ROOT = Path(__file__).resolve().parents[2]
KINDS = {"long": "nardy", "short": "shots"}  # the shipped networks' inputs
WIDTHS = {"long": 248, "short": 206}


def _module(path: Path, name: str) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _middle_rows(game: str, count: int = 40) -> np.ndarray:
    """Positions of a seeded random game (both sides' checkers spread out)."""
    rng = np.random.default_rng(3)
    rows = batch.encode([Position.start(game)])
    found = []
    while len(found) < count:
        children, _ = batch.expand(game, rows, rng.integers(1, 7, (1, 2)))
        rows = children[rng.integers(len(children))][None]
        if rows[0, 25:].sum() == 0 or rows[0, :25].sum() == 0:
            rows = batch.encode([Position.start(game)])
        found.append(rows[0])
    return np.array(found)


@pytest.mark.parametrize("game", ["long", "short"])
def test_shipped_evaluator_loads_small_with_how_it_was_trained(game: str) -> None:
    path = ROOT / "src" / "fastnardy" / "weights" / f"{game}.npz"
    assert path.stat().st_size < 1 << 20
    net = Evaluator.load(game)
    assert search.Evaluator is Evaluator
    assert (net.game, net.kind, net.inputs) == (game, KINDS[game], ("features", KINDS[game]))
    assert net.hidden_weights.shape == (WIDTHS[game], len(net.hidden_bias))
    assert net.output_weights.shape == (len(net.hidden_bias), len(OUTPUTS))
    meta = net.metadata
    assert meta["game"] == game and meta["variants"] == {}  # the default rules
    assert meta["cpu_seconds"] > 0
    if "train_td.py" in meta["command"]:
        assert meta["games"] > 0
    else:  # a teacher's evaluations learnt: gnubg's in short nardy
        assert "train_teacher.py" in meta["command"] and meta["rows"] > 0
        assert meta["teacher"] == "gnubg" or game == "long"
    assert isinstance(meta["seed"], int)
    # a network of the races: gnubg's race evaluations learnt (short), or the 1-ply search
    # of the long network's races (long)
    assert net.race is not None and net.race.metadata["race"] is True
    assert "--race" in net.race.metadata["command"] and net.race.metadata["rows"] > 0
    assert net.race.metadata["teacher"] == ("gnubg" if game == "short" else "long")


@pytest.mark.parametrize("game", ["long", "short"])
def test_inference_is_the_equity_of_the_five_outputs(game: str) -> None:
    net = Evaluator.load(game)
    rows = _middle_rows(game)
    inputs = features(game, rows, KINDS[game])
    p = net.probabilities(inputs)
    assert p.shape == (len(rows), 5) and p.dtype == np.float32
    assert ((p > 0) & (p < 1)).all()
    # by hand: one hidden sigmoid layer, five sigmoid outputs, equity of L10/S9 points
    hidden = 1 / (1 + np.exp(-(inputs.astype(np.float64) @ net.hidden_weights
                               + net.hidden_bias)))
    expected = 1 / (1 + np.exp(-(hidden @ net.output_weights + net.output_bias)))
    np.testing.assert_allclose(p, expected, rtol=1e-4, atol=1e-5)
    win, win2, win3, lose2, lose3 = expected.T
    values = net(inputs)
    assert values.shape == (len(rows),) and values.dtype == np.float64
    np.testing.assert_allclose(values, 2 * win - 1 + win2 + win3 - lose2 - lose3, atol=1e-4)
    np.testing.assert_allclose(equity(p), values)
    assert (np.abs(values) <= 3).all()
    assert len(net(np.empty((0, WIDTHS[game]), np.float32))) == 0


def test_shipped_evaluators_know_who_is_ahead() -> None:
    """A sanity check of the training, not only of the file: a side with all its checkers
    home and the other's all on the start sees itself far ahead."""
    short = Evaluator.load("short")
    home, far = [3, 3, 3, 2, 2, 2] + [0] * 18, [0] * 12 + [15] + [0] * 11
    ahead = Position.from_points("short", home, far, "white")
    behind = Position.from_points("short", far, home, "white")
    values = short(features("short", batch.encode([ahead, behind]), "shots"))
    assert values[0] > 0.9 and values[1] < -0.9


@pytest.mark.parametrize("game", ["long", "short"])
def test_usable_by_best_turn_and_expectimax(game: str) -> None:
    net = Evaluator.load(game)
    rules = Rules.of(game)
    rows = _middle_rows(game, 6)
    zero = expectimax(rules, rows, net, plies=0)  # compiled on the rows, not the features
    np.testing.assert_allclose(zero, net(features(rules, rows, KINDS[game])), atol=1e-6)
    one = expectimax(rules, rows[:2], net, plies=1, filter=MoveFilter(4, 0.2))
    assert one.shape == (2,) and np.isfinite(one).all()
    position = Position.start(game)
    found = best_turn(position, (6, 5), net, plies=1, filter=MoveFilter(3, 0.1))
    assert found.turn == position.legal_turns((6, 5))[found.choice]
    assert np.nanmax(found.values) == found.values[found.choice]


def test_wrong_features_and_files_are_clear_errors(tmp_path: Path) -> None:
    net = Evaluator.load("short")
    with pytest.raises(FastNardyError, match=r"\(N, 206\)"):
        net(np.zeros((3, 248), np.float32))
    with pytest.raises(FastNardyError, match="numbers"):
        net.probabilities([["x"]])
    with pytest.raises(FastNardyError, match="for short nardy only"):
        expectimax("long", batch.encode([Position.start("long")]), net)
    with pytest.raises(FastNardyError, match="'long', 'short' or the path"):
        Evaluator.load(3)  # type: ignore[arg-type]
    with pytest.raises(FastNardyError, match="no evaluator file"):
        Evaluator.load(tmp_path / "missing.npz")
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(FastNardyError, match="not an evaluator file"):
        Evaluator.load(bad)
    np.savez(tmp_path / "other.npz", x=np.zeros(3))
    with pytest.raises(FastNardyError, match="not an evaluator file"):
        Evaluator.load(tmp_path / "other.npz")
    with pytest.raises(FastNardyError, match="ending in .npz"):
        net.save(tmp_path / "weights.txt")
    with pytest.raises(FastNardyError, match="kind"):
        Evaluator("raw", net.hidden_weights, net.hidden_bias, net.output_weights,
                  net.output_bias)
    with pytest.raises(FastNardyError, match="must be"):
        Evaluator("nardy", net.hidden_weights, net.hidden_bias, net.output_weights,
                  net.output_bias)
    with pytest.raises(FastNardyError, match="not finite"):
        Evaluator("tdgammon", net.hidden_weights, net.hidden_bias * np.nan,
                  net.output_weights, net.output_bias)


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    net = Evaluator.load("long")
    path = tmp_path / "copy.npz"
    net.save(path)
    again = Evaluator.load(path)
    assert again.metadata == net.metadata and again.kind == net.kind
    for name in ("hidden_weights", "hidden_bias", "output_weights", "output_bias"):
        np.testing.assert_array_equal(getattr(again, name), getattr(net, name))
    assert [p.name for p in tmp_path.iterdir()] == ["copy.npz"]  # no partial file left


def test_trainer_is_deterministic_for_a_seed(tmp_path: Path) -> None:
    train = _module(ROOT / "examples" / "train_td.py", "train_td")
    common = ["--game", "short", "--games", "60", "--parallel", "16", "--hidden", "8",
              "--buffer", "300", "--report", "1000"]
    outs = []
    for name, seed in (("a", "5"), ("b", "5"), ("c", "6")):
        path = tmp_path / f"{name}.npz"
        assert train.main(common + ["--seed", seed, "--out", str(path)]) == 0
        outs.append(Evaluator.load(path))
    a, b, c = outs
    np.testing.assert_array_equal(a.hidden_weights, b.hidden_weights)
    np.testing.assert_array_equal(a.output_bias, b.output_bias)
    assert a.metadata["games"] == b.metadata["games"] >= 60
    assert not np.array_equal(a.hidden_weights, c.hidden_weights)
    # it learnt: the weights moved from their seeded start
    start = train.new_network("tdgammon", 8, np.random.default_rng(5))
    assert not np.allclose(a.output_weights, start.output_weights)


def test_a_widened_network_gives_the_same_outputs(tmp_path: Path) -> None:
    """examples/widen_network.py: the shipped long network widened by 32 units has the same
    equities (the new units' output weights are 0) and its old units unchanged; the same
    seed gives the same file; narrowing is refused (exit 2)."""
    widen = _module(ROOT / "examples" / "widen_network.py", "widen_network")
    net = Evaluator.load("long")
    units = len(net.hidden_bias)
    paths = [tmp_path / "a.npz", tmp_path / "b.npz"]
    for path in paths:
        assert widen.main(["long", str(units + 32), str(path), "--seed", "3"]) == 0
    a, b = (Evaluator.load(p) for p in paths)
    rows = batch.encode([Position.start("long")] + [t.position for t in
                                                    Position.start("long").legal_turns((3, 3))])
    np.testing.assert_allclose(a.evaluate(rows), net.evaluate(rows), atol=1e-6)
    assert a.hidden_weights.shape == (248, units + 32)
    assert a.metadata["widened_to"] == units + 32
    np.testing.assert_array_equal(a.hidden_weights[:, :units], net.hidden_weights)
    np.testing.assert_array_equal(a.hidden_weights, b.hidden_weights)
    assert np.abs(a.hidden_weights[:, units:]).max() > 0
    with pytest.raises(SystemExit) as stopped:
        widen.main(["long", str(units - 1), str(tmp_path / "c.npz")])
    assert stopped.value.code == 2 and not (tmp_path / "c.npz").exists()


def _teacher() -> ModuleType:
    _module(ROOT / "examples" / "train_td.py", "train_td")  # what train_teacher imports
    return _module(ROOT / "examples" / "train_teacher.py", "train_teacher")


def test_teacher_trainer_is_deterministic_and_caches_its_labels(tmp_path: Path) -> None:
    train = _teacher()
    common = ["--game", "long", "--teacher", "long", "--plies", "1", "--positions", "400",
              "--parallel", "16", "--hidden", "8", "--epochs", "2", "--top", "2"]
    outs = []
    for name, seed in (("a", "5"), ("b", "5"), ("c", "6")):
        path = tmp_path / f"{name}.npz"
        assert train.main(common + ["--seed", seed, "--out", str(path), "--data",
                                    str(tmp_path / f"data-{name}.npz")]) == 0
        outs.append(Evaluator.load(path))
    a, b, c = outs
    np.testing.assert_array_equal(a.hidden_weights, b.hidden_weights)
    assert not np.array_equal(a.hidden_weights, c.hidden_weights)
    assert (a.metadata["teacher"], a.metadata["plies"], a.metadata["kind"]) == \
        ("long", 1, "nardy")
    assert a.metadata["rows"] >= 400 * 0.5 and "train_teacher.py" in a.metadata["command"]
    # the labelled rows are cached: a second fit on them, with another file as --extra
    again = tmp_path / "again.npz"
    assert train.main(common + ["--seed", "5", "--out", str(again), "--data",
                                str(tmp_path / "data-a.npz"), "--extra",
                                str(tmp_path / "data-c.npz")]) == 0
    assert Evaluator.load(again).metadata["rows"] == a.metadata["rows"] + c.metadata["rows"]
    # a file of another teacher (the same network under another name): refused as --extra,
    # learnt as --extra-by naming that teacher, which the metadata lists
    other = tmp_path / "other-teacher.npz"
    Evaluator.load("long").save(other)
    mixed = ["--seed", "5", "--out", str(tmp_path / "mixed.npz"), "--data",
             str(tmp_path / "data-a.npz")]
    assert train.main([*common[:3], str(other), *common[4:], "--seed", "6", "--out",
                       str(tmp_path / "d.npz"), "--data", str(tmp_path / "data-d.npz")]) == 0
    with pytest.raises(SystemExit, match=r"data-d.npz was labelled by .*other-teacher.npz"):
        train.main(common + mixed + ["--extra", str(tmp_path / "data-d.npz")])
    with pytest.raises(SystemExit, match=r"data-d.npz was labelled by .*other-teacher.npz"):
        train.main(common + mixed + ["--extra-by", "long", str(tmp_path / "data-d.npz")])
    assert train.main(common + mixed + ["--extra-by", str(other),
                                        str(tmp_path / "data-d.npz")]) == 0
    made = Evaluator.load(tmp_path / "mixed.npz").metadata
    assert made["rows"] == a.metadata["rows"] + Evaluator.load(tmp_path / "d.npz").metadata[
        "rows"] and made["extra_teachers"] == [str(other)]
    # labels of another depth are refused, not recorded under this run's teacher
    with pytest.raises(SystemExit,
                       match=r"labelled by long at 1 plies \(all positions\), not long at 0"):
        train.main([*common[:5], "0", *common[6:], "--seed", "5", "--out",
                    str(tmp_path / "other.npz"), "--data", str(tmp_path / "data-a.npz")])


def test_teacher_trainer_learns_two_ply_labels_and_records_their_filter(
        tmp_path: Path) -> None:
    """``--plies 2 --filter KEEP MARGIN``: the rows' labels are fastnardy.training.labels' at 2
    plies with that filter; the data file records it, and a run with another filter (or
    none) refuses the file; --filter is for an Evaluator's 2-ply labels only."""
    train = _teacher()
    data = tmp_path / "data.npz"
    common = ["--game", "long", "--teacher", "long", "--plies", "2", "--positions", "60",
              "--parallel", "8", "--hidden", "8", "--epochs", "1", "--seed", "3", "--data",
              str(data)]
    assert train.main(common + ["--filter", "2", "0.04", "--out", str(tmp_path / "a.npz")]) == 0
    with np.load(data) as made:
        rows, targets = made["rows"], made["targets"]
        assert str(made["filter"]) == " with --filter 2 0.04" and int(made["plies"]) == 2
    want = labels("long", rows, Setting(Evaluator.load("long"), 2, MoveFilter(2, 0.04)))
    assert np.array_equal(targets, want)
    assert Evaluator.load(tmp_path / "a.npz").metadata["filter"] == [2, 0.04]
    with pytest.raises(SystemExit, match=r"labelled by long at 2 plies with --filter 2 0.04 "
                                         r"\(all positions\), not long at 2 \(all positions\)"):
        train.main(common + ["--out", str(tmp_path / "b.npz")])
    for bad in (["--plies", "1", "--filter", "2", "0.04"], ["--plies", "2", "--filter", "0",
                                                            "0.04"],
                ["--plies", "2", "--filter", "1.5", "0.04"], ["--plies", "3"]):
        with pytest.raises(SystemExit):
            train.parse(["--game", "long", "--teacher", "long", "--out", "x.npz", *bad])


def test_teacher_trainer_labels_the_same_on_threads_and_on_a_dask_cluster(
        tmp_path: Path) -> None:
    """Issue 39 item 2: ``--workers 2`` and ``--dask ADDRESS`` label the same rows with the
    same bits as one thread (fastnardy.training.labels), so the fit is the same too."""
    distributed = pytest.importorskip("distributed", reason="dask.distributed is not "
                                      "installed (pip install 'dask[distributed]')")
    train = _teacher()
    common = ["--game", "short", "--teacher", "short", "--plies", "1", "--positions", "600",
              "--parallel", "16", "--hidden", "8", "--epochs", "1", "--seed", "4"]
    runs = {"serial": [], "threads": ["--workers", "2"]}
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        runs["dask"] = ["--dask", cluster.scheduler_address]
        for name, extra in runs.items():
            assert train.main(common + extra + ["--out", str(tmp_path / f"{name}.npz"),
                                                "--data", str(tmp_path / f"d-{name}.npz")]) == 0
    data = {name: np.load(tmp_path / f"d-{name}.npz") for name in runs}
    for name in ("threads", "dask"):
        assert np.array_equal(data[name]["rows"], data["serial"]["rows"])
        assert np.array_equal(data[name]["targets"], data["serial"]["targets"])
        np.testing.assert_array_equal(Evaluator.load(tmp_path / f"{name}.npz").hidden_weights,
                                      Evaluator.load(tmp_path / "serial.npz").hidden_weights)
    with pytest.raises(SystemExit):
        train.parse(common + ["--out", "x.npz", "--workers", "2", "--dask", "tcp://x:1"])
    with pytest.raises(SystemExit):  # read in parse(): a usage error, not a traceback
        train.parse(common + ["--out", "x.npz", "--attach", str(tmp_path / "none.npz")])


def test_teacher_trainer_fits_a_race_network(tmp_path: Path) -> None:
    """--race keeps the races only (fastnardy.search.network.races) and records it in its data,
    whose labels a run without --race refuses; --attach writes the fit as the race network
    of another Evaluator, which the search and self-play then use for races; --contact keeps
    the other positions, and --attach then writes the fit beside the other's race network."""
    train = _teacher()
    data, out = tmp_path / "races.npz", tmp_path / "split.npz"
    common = ["--game", "short", "--teacher", "short", "--positions", "300", "--parallel", "32",
              "--hidden", "8", "--epochs", "2", "--seed", "3", "--data", str(data)]
    assert train.main(common + ["--race", "--attach", "short", "--out", str(out)]) == 0
    with np.load(data) as cached:
        rows, race = cached["rows"], bool(cached["race"])
    assert race and len(rows) >= 150 and races("short", rows).all()
    split, shipped = Evaluator.load(out, bearoff=False), Evaluator.load("short")
    assert split.race is not None and split.race.metadata["race"] is True
    assert split.race.metadata["rows"] == len(rows) and len(split.race.hidden_bias) == 8
    np.testing.assert_array_equal(split.hidden_weights, shipped.hidden_weights)
    assert split.metadata == shipped.metadata
    np.testing.assert_array_equal(split.evaluate(rows), split.race.evaluate(rows))
    with pytest.raises(SystemExit, match=r"labelled by short at 0 plies \(races\), not short"):
        train.main(common + ["--out", str(tmp_path / "other.npz")])
    # --contact: the other positions, the fit written beside the race network of --attach
    contact = ["--data", str(tmp_path / "contact.npz"), "--contact", "--attach", str(out)]
    assert train.main(common[:-2] + contact + ["--out", str(tmp_path / "beside.npz")]) == 0
    beside = Evaluator.load(tmp_path / "beside.npz")
    with np.load(tmp_path / "contact.npz") as cached:
        assert not races("short", cached["rows"]).any() and bool(cached["contact"])
    assert beside.race is not None and len(beside.hidden_bias) == 8
    np.testing.assert_array_equal(beside.race.hidden_weights, split.race.hidden_weights)
    with pytest.raises(SystemExit):
        train.main(common + ["--race", "--contact", "--out", str(tmp_path / "x.npz")])
    # a tdgammon race fit beside the shipped shots network: padded with weights of 0
    lean = tmp_path / "lean.npz"
    assert train.main(common + ["--race", "--inputs", "tdgammon", "--attach", "short",
                                "--out", str(lean)]) == 0
    padded = Evaluator.load(lean).race
    assert padded is not None and padded.kind == "shots" and shipped.kind == "shots"
    td = search.inputs.WIDTHS["tdgammon"]
    assert not padded.hidden_weights[td:].any()
    np.testing.assert_array_equal(padded.evaluate(rows),
                                  Evaluator("tdgammon", padded.hidden_weights[:td],
                                            padded.hidden_bias, padded.output_weights,
                                            padded.output_bias).evaluate(rows))


def test_teacher_trainer_fits_a_crashed_network(tmp_path: Path) -> None:
    """--crashed keeps short nardy's crashed boards only (fastnardy.search.network.crashes)
    and records it; --attach writes the fit as the crashed network of another Evaluator,
    beside its own network and race network; a --contact fit attached to that file keeps
    both; --crashed is short nardy's and keeps positions apart from --race."""
    train = _teacher()
    data, out = tmp_path / "crashed.npz", tmp_path / "three.npz"
    common = ["--game", "short", "--teacher", "short", "--positions", "2000", "--parallel",
              "64", "--hidden", "8", "--epochs", "2", "--seed", "3", "--explore", "1"]
    assert train.main(common + ["--data", str(data), "--crashed", "--attach", "short",
                                "--out", str(out)]) == 0
    with np.load(data) as cached:
        rows, crashed = cached["rows"], bool(cached["crashed"])
    assert crashed and len(rows) >= 20 and crashes("short", rows).all()
    three, shipped = Evaluator.load(out), Evaluator.load("short")
    assert three.crashed is not None and three.crashed.metadata["crashed"] is True
    assert len(three.crashed.hidden_bias) == 8 and three.race is not None
    np.testing.assert_array_equal(three.hidden_weights, shipped.hidden_weights)
    np.testing.assert_array_equal(three.race.hidden_weights, shipped.race.hidden_weights)
    np.testing.assert_array_equal(three.evaluate(rows), three.crashed.evaluate(rows))
    with pytest.raises(SystemExit, match=r"\(crashed\), not short at 0 \(races\)"):
        train.main(common + ["--data", str(data), "--race", "--out", str(tmp_path / "o.npz")])
    beside = tmp_path / "beside.npz"
    assert train.main(common + ["--contact", "--attach", str(out), "--out", str(beside)]) == 0
    again = Evaluator.load(beside)
    assert again.crashed is not None and again.race is not None
    np.testing.assert_array_equal(again.crashed.hidden_weights, three.crashed.hidden_weights)
    for bad in (["--crashed", "--race"], ["--crashed", "--game", "long"]):
        with pytest.raises(SystemExit):
            train.main(common + bad + ["--out", str(tmp_path / "x.npz")])


def test_teacher_trainer_walks_from_the_rows_of_earlier_runs(tmp_path: Path) -> None:
    """--from FILE takes stage 1's positions from an earlier run's rows (those of the run's
    kind, each once, in file order), labelled again by this run's teacher; with --walk N, the
    new rows reached in N turns from them instead: each a turn's result from the row before,
    of the run's kind, none among the start's, at most --positions, the same for a seed."""
    train = _teacher()
    first = tmp_path / "all.npz"
    common = ["--game", "short", "--teacher", "short", "--hidden", "8", "--epochs", "1"]
    assert train.main(common + ["--positions", "400", "--parallel", "32", "--seed", "3",
                                "--data", str(first), "--out", str(tmp_path / "a.npz")]) == 0
    with np.load(first) as cached:
        contact = cached["rows"]
    assert not races("short", contact).any()
    race = np.zeros((1, 50), dtype=np.int8)  # both sides home: a race, left out below
    race[0, :6] = race[0, 25:31] = (3, 3, 3, 2, 2, 2)
    rolls = [(a, b) for a in range(1, 7) for b in range(a, 7)]
    one_turn = {}  # every result of every roll of every contact row
    for dice in rolls:
        children, _ = batch.expand("short", contact, np.tile(dice, (len(contact), 1)))
        one_turn.update((bytes(row), row) for row in children)
    near = np.concatenate([batch.expand("short", contact[:5], np.tile(dice, (5, 1)))[0]
                           for dice in rolls])  # the walks reach some: never kept
    mixed = tmp_path / "mixed.npz"  # another run's rows: a race, repeats, children
    np.savez(mixed, rows=np.concatenate([contact[:200], race, near, contact[:50],
                                         contact[200:]]))
    start, known = [], set()  # the contact rows of mixed, each once, in order
    for row in np.load(mixed)["rows"]:
        if bytes(row) not in known and not races("short", row[None])[0]:
            known.add(bytes(row))
            start.append(row)
    same = tmp_path / "same.npz"
    assert train.main(common + ["--contact", "--from", str(mixed), "--data", str(same),
                                "--out", str(tmp_path / "b.npz")]) == 0
    with np.load(same) as cached:
        assert bool(cached["contact"]) and np.array_equal(cached["rows"], np.array(start))
        np.testing.assert_allclose(cached["targets"], Evaluator.load("short").evaluate(
            np.array(start), probabilities=True), atol=1e-6)
    walks = {}
    for name, seed, turns, limit in (("a", "5", "1", "99999"), ("b", "5", "1", "99999"),
                                     ("c", "6", "1", "99999"), ("d", "5", "2", "300")):
        data = tmp_path / f"walk-{name}.npz"
        assert train.main(common + ["--contact", "--from", str(mixed), "--walk", turns,
                                    "--positions", limit, "--seed", seed, "--data", str(data),
                                    "--out", str(tmp_path / f"w-{name}.npz")]) == 0
        with np.load(data) as cached:
            walks[name] = cached["rows"]
    assert np.array_equal(walks["a"], walks["b"]) and not np.array_equal(walks["a"], walks["c"])
    for dice in rolls:  # and of the rows added
        children, _ = batch.expand("short", near, np.tile(dice, (len(near), 1)))
        one_turn.update((bytes(row), row) for row in children)
    for name, rows in walks.items():
        assert 0 < len(rows) <= (300 if name == "d" else len(one_turn))
        assert len(np.unique(rows, axis=0)) == len(rows)
        assert not races("short", rows).any() and (rows[:, 25:].sum(axis=1) > 0).all()
        assert not known & set(map(bytes, rows))
        if name != "d":
            assert set(map(bytes, rows)) <= one_turn.keys()
    assert not set(map(bytes, walks["d"])) <= one_turn.keys()  # two turns reach further
    (tmp_path / "text.npz").write_text("not a data file")
    for bad in (["--walk", "1"], ["--from", str(tmp_path / "none.npz")],
                ["--from", str(tmp_path / "text.npz")], ["--from", str(tmp_path / "a.npz")],
                ["--from", str(first), "--walk", "-1"]):
        with pytest.raises(SystemExit):
            train.parse(common + bad + ["--out", str(tmp_path / "x.npz")])


def test_lambda_returns_end_in_the_outcome_and_flip_sides() -> None:
    train = _module(ROOT / "examples" / "train_td.py", "train_td")
    final = np.array([0.0, 0, 0, 1, 0])  # the loser's view: lost by mars
    values = np.full((2, 5), 0.5)
    last = train.lambda_returns(values, final, 1.0)
    # lambda 1: every target is the outcome, seen by the position's own side to move
    np.testing.assert_allclose(last[1], [1, 1, 0, 0, 0])  # the winner's view
    np.testing.assert_allclose(last[0], final)
    zero = train.lambda_returns(values, final, 0.0)  # TD(0): the next position's value
    np.testing.assert_allclose(zero[0], train.flip(values[1]))


def _greedy_oracle(position: Position, side: str) -> int:
    """The greedy score as its docstring states it, point by point: the race, +2 a point held
    by two or more checkers; long +1 a point occupied; short -2 a blot, +3 an opponent checker
    on the bar."""
    own = position.white_points if side == "white" else position.black_points
    other = position.black_points if side == "white" else position.white_points
    own_bar = position.white_bar if side == "white" else position.black_bar
    other_bar = position.black_bar if side == "white" else position.white_bar

    def pips(points, bar):
        return sum(p * n for p, n in enumerate(points, 1)) + 25 * bar

    score = pips(other, other_bar) - pips(own, own_bar) + sum(2 for n in own if n >= 2)
    if position.rules.is_long:
        return score + sum(1 for n in own if n)
    return score - sum(2 for n in own if n == 1) + 3 * other_bar


@pytest.mark.parametrize("game", ["long", "short"])
def test_harness_greedy_scores_are_the_documented_score(game: str) -> None:
    rules = Rules.of(game)
    rows = _middle_rows(game, 10)
    children, parent = batch.expand(rules, rows, np.full((len(rows), 2), 3))
    scores = greedy_scores(rules, children)
    # a child is from the next mover's view: the side that moved is black there
    positions = batch.decode(rules, children, "white")
    np.testing.assert_array_equal(scores, [_greedy_oracle(p, "black") for p in positions])
    # the same rows with the colours swapped: the side that moved is white, the same score
    swapped = batch.decode(rules, children, "black")
    np.testing.assert_array_equal(scores, [_greedy_oracle(p, "white") for p in swapped])
    # the greedy player ranks the turns by that score, and plays the first best (T2)
    offsets = batch.offsets(parent, len(rows))
    worth = Greedy().worth(rules, children, offsets)
    np.testing.assert_array_equal(worth, scores.astype(np.float64))
    picked = Greedy().pick(rules, rows, np.full((len(rows), 2), 3), children, offsets)
    for i, at in enumerate(picked):
        group = scores[offsets[i]:offsets[i + 1]]
        assert at == offsets[i] + int(np.flatnonzero(group == group.max())[0])


def test_harness_match_is_seeded_and_paired() -> None:
    rules = Rules.of("short")
    one = play_games(rules, Greedy(), Random(1), 8, seed=4)
    two = play_games(rules, Greedy(), Random(1), 8, seed=4)
    np.testing.assert_array_equal(one.points, two.points)
    assert (one.turns > 0).all() and set(np.abs(one.points)) <= {1, 2, 3}
    same = play_games(rules, Greedy(), Greedy(), 8, seed=4)
    # the same player on both sides of a pair, with the same dice: the same game twice
    np.testing.assert_array_equal(same.points[0::2], -same.points[1::2])


def test_a_share_of_wins_has_wilsons_interval_never_empty_at_the_ends() -> None:
    """Issue 70 item 14: 100 wins of 100 had the interval 100.0% +- 0.0% (a normal
    approximation, empty at either end); Wilson's score interval is 96.3% to 100%."""
    assert wilson(100, 100) == pytest.approx((1.0, 0.96301, 1.0), abs=1e-5)
    assert wilson(0, 100) == pytest.approx((0.0, 0.0, 0.03699), abs=1e-5)
    assert wilson(54, 100) == pytest.approx((0.54, 0.44265, 0.63439), abs=1e-5)
    for wins, games in ((0, 1), (1, 2), (7.5, 20), (1999, 2000)):  # symmetric, inside 0-1
        share, mirrored = wilson(wins, games), wilson(games - wins, games)
        assert 0 <= share.low < share.mean < share.high <= 1 or wins in (0, games)
        assert share.low == pytest.approx(1 - mirrored.high)
    assert wilson(100, 100).text() == "100.0% (95% interval 96.3% to 100.0%)"
    assert wilson(1, 4).as_dict() == {"mean": 0.25, "low": 0.0456, "high": 0.6994}
    for wins, games in ((3, 2), (-1, 2), (1, 0), (float("nan"), 2), (True, 2), (1, 2.0)):
        with pytest.raises(FastNardyError):
            wilson(wins, games)


def test_match_prints_each_share_of_wins_as_its_interval(
        capsys: pytest.CaptureFixture[str]) -> None:
    """`fastnardy match` printed "greedy wins 100.0% +- n/a" for one pair and "100.0% +-
    0.0%" for any sweep; the share's interval, low to high, and its JSON's ends."""
    from fastnardy.cli import main

    assert main(["match", "greedy", "random", "--games", "2", "--no-progress"]) == 0
    assert "  greedy wins 100.0% (95% interval 34.2% to 100.0%), +1.000 +- n/a points a " \
        "game" in capsys.readouterr().out
    assert main(["match", "greedy", "random", "--games", "2", "--cube", "--no-progress",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["wins"] == {"mean": 1.0, "low": 0.3424,
                                                           "high": 1.0}


@needs_gnubg
def test_gnubg_driver_moves_are_legal_turns() -> None:
    rules = Rules.of("short")
    with player("gnubg:expert", rules) as gnubg:
        assert isinstance(gnubg, GnubgPlayer)
        result = play_games(rules, Greedy(), gnubg, 4, seed=2)
    assert (result.turns > 0).all()  # every move gnubg chose was one of the legal turns


@needs_gnubg
def test_gnubg_players_search_at_their_plies() -> None:
    """gnubg:expert:1 and :2 (issue 39's "1 ply against gnubg 1 ply"): gnubg's own search at
    that depth, so on some benchmark positions its move differs from its 0-ply move; each
    move is a legal turn (T1, checked by the match); gnubg's plies are 0 to 4, deeper is
    refused."""
    from fastnardy.play.gnubg import Gnubg
    from fastnardy.testing.speed import gnubg_positions
    rules = Rules.of("short")
    rows = batch.encode(gnubg_positions()[:60])  # contact positions
    dice = np.tile([[6, 2]], (len(rows), 1))
    players = [player(f"gnubg:expert{depth}", "short") for depth in ("", ":1", ":2")]
    try:
        assert [p.name for p in players] == ["gnubg:expert", "gnubg:expert:1", "gnubg:expert:2"]
        assert [p.setting.plies for p in players] == [0, 1, 2]
        zero, one, two = (p.engine.moves(rows, dice) for p in players)
        assert one != zero and two != zero and two != one
        result = play_games(rules, players[1], Greedy(), 2, seed=3)
        assert (result.turns > 0).all()
    finally:
        for p in players:
            p.close()
    assert [Setting.parse(f"gnubg:expert:{depth}").plies for depth in (3, 4)] == [3, 4]
    with pytest.raises(FastNardyError, match="plies"):
        player("gnubg:expert:5", "short")
    with pytest.raises(FastNardyError, match="plies"):
        Gnubg(Setting("gnubg:expert", 5), processes=1)
    with pytest.raises(FastNardyError, match="short nardy"):
        player("gnubg:expert", "long")


@needs_gnubg
def test_gnubg_probabilities_shared_among_processes_are_one_process_s() -> None:
    """S9 outputs from gnubg's 0 ply: the same rows, in order, whatever the processes."""
    from fastnardy.play.gnubg import Gnubg
    rules = Rules.of("short")
    start = batch.encode([Position.start("short")])
    children, _ = batch.expand(rules, start, np.array([[3, 1]]))
    rows = np.concatenate([start, children])
    one, three = Gnubg("gnubg:expert", processes=1), Gnubg("gnubg:expert", processes=3)
    try:
        alone, shared = one.probabilities(rows), three.probabilities(rows)
        empty = three.probabilities(rows[:0])
    finally:
        one.close()
        three.close()
    np.testing.assert_array_equal(alone, shared)
    assert alone.shape == (len(rows), 5) and empty.shape == (0, 5)
    # gnubg 1.07's nets at the start: on roll wins 52.1%, equity +0.067 (its `eval`)
    assert alone[0, 0] == pytest.approx(0.52148, abs=1e-4)
    assert equity(alone[:1])[0] == pytest.approx(0.0670, abs=1e-3)
    # cumulative outputs: win >= win gammon >= win backgammon, likewise for losses
    assert (alone[:, 0] >= alone[:, 1]).all() and (alone[:, 1] >= alone[:, 2]).all()
    assert (1 - alone[:, 0] >= alone[:, 3]).all() and (alone[:, 3] >= alone[:, 4]).all()
    with pytest.raises(FastNardyError, match="processes"):
        Gnubg("gnubg:expert", processes=0)
    with pytest.raises(FastNardyError, match="plies"):
        one.probabilities(rows, plies=9)
    with pytest.raises(FastNardyError, match=r"\(N, 50\)"):
        one.probabilities(rows[:, :49])


@needs_gnubg
def test_gnubg_closes_when_a_process_forked_since_holds_its_fifo() -> None:
    """A process pool forked after gnubg started (a benchmark build's rollouts) inherits the
    request FIFO's write end, so gnubg never sees it close: close() kills it after 2 s
    instead of raising subprocess.TimeoutExpired after 30."""
    import os
    import signal

    from fastnardy.play.gnubg import Gnubg
    gnubg = Gnubg("gnubg:expert", processes=1)
    gnubg.probabilities(batch.encode([Position.start("short")]))
    child = os.fork()
    if child == 0:  # holds every descriptor the parent had
        time.sleep(60)
        os._exit(0)
    try:
        gnubg.close()
        assert all(driver is None or driver.process.poll() is not None
                   for driver in gnubg.drivers)
    finally:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)


def _count_gnubg_starts(monkeypatch: pytest.MonkeyPatch) -> list:
    """The gnubg processes started from now on, each as its Popen."""
    import subprocess

    from fastnardy.play import gnubg as gnubg_module
    started = []

    class Counted(subprocess.Popen):  # type: ignore[type-arg]
        def __init__(self, args: list, *rest: object, **options: object) -> None:
            super().__init__(args, *rest, **options)  # type: ignore[arg-type]
            if args[0] == gnubg_module.GNUBG:
                started.append(self)

    monkeypatch.setattr(gnubg_module.subprocess, "Popen", Counted)
    return started


@needs_gnubg
def test_a_match_against_gnubg_starts_one_gnubg_for_the_whole_run(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 70 item 14: `fastnardy match gnubg:expert net:0 --games 2` started 8 gnubg
    processes for its one pair of games. One serves the whole run (its requests have a row
    or two), reused across games and decisions, and is ended when the run ends."""
    from fastnardy.cli import main

    started = _count_gnubg_starts(monkeypatch)
    assert main(["match", "gnubg:expert", "net:0", "--games", "2", "--no-progress"]) == 0
    assert "gnubg:expert wins" in capsys.readouterr().out
    assert len(started) == 1 and started[0].poll() is not None
    assert main(["match", "gnubg:expert", "net:0", "--games", "2", "--to", "3",
                 "--no-progress"]) == 0  # matches of several games, with cube decisions
    assert len(started) == 2 and started[1].poll() is not None


def _running(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] not in "ZX"
    except (OSError, IndexError):
        return False


@needs_gnubg
def test_ctrl_c_in_a_match_against_gnubg_ends_its_gnubg() -> None:
    """Ctrl-C in the middle of a long match: exit 130, and the run's one gnubg is ended."""
    import signal
    import subprocess

    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.Popen([sys.executable, "-m", "fastnardy", "match", "gnubg:expert",
                              "net:0", "--games", "2000", "--no-progress"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        seen: set = set()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and child.poll() is None:
            seen |= set(subprocess.run(["pgrep", "-P", str(child.pid), "gnubg"],
                                       capture_output=True, text=True).stdout.split())
            if seen:
                time.sleep(1.0)  # under way: gnubg answers the match's requests
                break
            time.sleep(0.02)
        seen |= set(subprocess.run(["pgrep", "-P", str(child.pid), "gnubg"],
                                   capture_output=True, text=True).stdout.split())
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=60)
    finally:
        child.kill()
    assert child.returncode == 130 and b"Traceback" not in err
    assert 1 <= len(seen) <= 8  # 2,000 games: a batch of 200 shares its requests
    for _ in range(200):
        if not any(_running(int(pid)) for pid in seen):
            break
        time.sleep(0.05)
    assert not any(_running(int(pid)) for pid in seen)


@needs_gnubg
def test_gnubg_starts_a_process_more_only_for_a_large_request(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """One process at first; a request of many rows (a batch of games) is shared among up
    to ``processes``, one for each ROWS_PER_PROCESS rows, kept for the next requests."""
    from fastnardy.play.gnubg import ROWS_PER_PROCESS, Gnubg

    started = _count_gnubg_starts(monkeypatch)
    rows = batch.encode([Position.start("short")] * (2 * ROWS_PER_PROCESS + 1))
    dice = np.tile([[6, 5]], (len(rows), 1))
    gnubg = Gnubg("gnubg:expert", processes=2)
    try:
        assert len(started) == 1
        one = gnubg.moves(rows[:ROWS_PER_PROCESS], dice[:ROWS_PER_PROCESS])
        assert len(started) == 1
        many = gnubg.moves(rows, dice)
        assert len(started) == 2 and many[:ROWS_PER_PROCESS] == one  # capped at processes
        gnubg.moves(rows[:1], dice[:1])
        assert len(started) == 2
    finally:
        gnubg.close()
    assert all(process.poll() is not None for process in started)


def test_harness_catches_an_illegal_gnubg_move(monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace
    gnubg = GnubgPlayer.__new__(GnubgPlayer)  # no gnubg process: its engine's move is stubbed
    monkeypatch.setattr(gnubg, "setting", Setting("gnubg:expert"), raising=False)
    monkeypatch.setattr(gnubg, "engine", SimpleNamespace(
        moves=lambda rows, dice: [[24, 20]] * len(rows)), raising=False)
    rows = batch.encode([Position.start("short")])
    with pytest.raises(EngineError, match="T1: gnubg's move"):
        gnubg.choose(Rules.of("short"), rows, np.array([[6, 5]]))


def _hostile(tmp_path: Path, name: str, content: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(content)
    return path


def _npz_with(tmp_path: Path, name: str, **members: bytes) -> Path:
    """An .npz whose members are the given raw .npy bytes (headers that may lie)."""
    path = tmp_path / name
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for member, raw in members.items():
            archive.writestr(f"{member}.npy", raw)
    return path


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def test_hostile_evaluator_files_are_clear_errors(tmp_path: Path) -> None:
    """Truncated, flipped, empty, a .npy named .npz, metadata nested 100 000 deep, weights
    whose header declares 4 GB, complex or NaN weights: each a FastNardyError naming the
    file (and the member), read without allocating the declared size."""
    net = Evaluator.load("short")
    good = tmp_path / "good.npz"
    net.save(good)
    content = good.read_bytes()
    members = {name: _npy(np.asarray(value)) for name, value in (
        ("kind", np.array(net.kind)), ("metadata", np.array(json.dumps(net.metadata))),
        ("hidden_weights", net.hidden_weights), ("hidden_bias", net.hidden_bias),
        ("output_weights", net.output_weights), ("output_bias", net.output_bias))}
    cases = {
        "truncated.npz": (_hostile(tmp_path, "truncated.npz", content[:len(content) // 2]),
                          "damaged or not an .npz file"),
        "empty.npz": (_hostile(tmp_path, "empty.npz", b""), "damaged or not an .npz file"),
        "array.npz": (_hostile(tmp_path, "array.npz", _npy(np.zeros(3))),
                      "damaged or not an .npz file"),
        "nested.npz": (_npz_with(tmp_path, "nested.npz", **{
            **members, "metadata": _npy(np.array("[" * 100_000 + "]" * 100_000))}),
            "member 'metadata': JSON nested 100000 deep"),
        "bomb.npz": (_npz_with(tmp_path, "bomb.npz", **{
            **members, "hidden_weights": _header((198, 5_000_000))}),
            "member 'hidden_weights': 3,960,000,000 bytes of data, more than"),
        "complex.npz": (_npz_with(tmp_path, "complex.npz", **{
            **members, "hidden_weights": _npy(net.hidden_weights.astype(np.complex64))}),
            r"member 'hidden_weights': dtype complex64 .*\(complex numbers are refused\)"),
        "nan.npz": (_npz_with(tmp_path, "nan.npz", **{
            **members, "output_bias": _npy(net.output_bias * np.nan)}),
            "member 'output_bias': holds a value that is not finite"),
        "missing.npz": (_npz_with(tmp_path, "missing.npz", kind=members["kind"]),
                        "has no member 'metadata'"),
    }
    for name, (path, message) in cases.items():
        tracemalloc.start()
        with pytest.raises(FastNardyError, match=message) as caught:
            Evaluator.load(path)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert name in str(caught.value) and peak < 16 << 20, (name, peak)
    for offset in _flip_offsets(good):  # one byte flipped: in the format's own bytes or data
        flipped = bytearray(content)
        flipped[offset] ^= 0x5A
        try:
            loaded = Evaluator.load(_hostile(tmp_path, "flipped.npz", bytes(flipped)))
        except FastNardyError:
            continue
        assert loaded.kind == net.kind  # a flip the format does not see (e.g. a zip date)


def _flip_offsets(path: Path) -> List[int]:
    """Where to flip a byte of the .npz ``path``: every third byte of its zip headers (each
    member's local header and the central directory: what the format reads before any
    data) and every 997th byte of the file (most of it compressed data, which only its
    checksum guards)."""
    with zipfile.ZipFile(path) as archive:
        members = archive.infolist()
        directory = archive.start_dir
    size = path.stat().st_size
    headers = set(range(directory, size, 3))
    for member in members:
        end = member.header_offset + 30 + len(member.filename) + len(member.extra)
        headers.update(range(member.header_offset, end, 3))
    return sorted(headers | set(range(0, size, 997)))


def _header(shape: tuple) -> bytes:
    """A float32 .npy header declaring ``shape``, with 1 KB of data."""
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buffer, {"descr": "<f4", "fortran_order": False, "shape": shape})
    return buffer.getvalue() + bytes(1024)


def test_a_failed_save_leaves_no_file(tmp_path: Path, monkeypatch) -> None:
    net = Evaluator.load("short")
    target = tmp_path / "taken.npz"
    target.mkdir()  # not a file: refused before anything is written
    with pytest.raises(FastNardyError, match="not a regular file"):
        net.save(target)
    assert [p.name for p in tmp_path.iterdir()] == ["taken.npz"]

    def refused(source: str, destination: str) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refused)  # the rename fails once the file is written
    with pytest.raises(FastNardyError, match="cannot write .*Permission denied"):
        net.save(tmp_path / "new.npz")
    assert [p.name for p in tmp_path.iterdir()] == ["taken.npz"]  # the temporary removed


def test_trainer_reports_an_unwritable_out_in_one_line(tmp_path: Path, capsys) -> None:
    """Issue 40 item 10: a failed --out write was a traceback; now one line and status 2."""
    train = _module(ROOT / "examples" / "train_td.py", "train_td")
    out = tmp_path / "missing-folder" / "net.npz"
    assert train.main(["--game", "short", "--games", "4", "--parallel", "4", "--hidden", "4",
                       "--buffer", "50", "--report", "1000", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "cannot write" in err and len(err.splitlines()) == 1


def test_teacher_trainer_learns_the_order_of_siblings(tmp_path: Path) -> None:
    """--rank keeps each turn's rows together (siblings: in long nardy, without hits, they
    share their side to move) with their turns in the data file, and adds to the fit the
    Kullback-Leibler divergence of the network's softmax over each turn's siblings (minus
    their equities over --tau) from the teacher's: its gradient is checked against finite
    differences. A --rank fit needs the turns (a run without --rank made its rows
    distinct); --rank learns from games, not --from."""
    train = _teacher()
    common = ["--game", "long", "--teacher", "long", "--plies", "1", "--positions", "600",
              "--parallel", "16", "--top", "3", "--per-turn", "2", "--hidden", "8",
              "--epochs", "2", "--minibatch", "64"]
    data = tmp_path / "turns-a.npz"
    for name in ("a", "b"):
        assert train.main(common + ["--rank", "2", "--seed", "5", "--data",
                                    str(tmp_path / f"turns-{name}.npz"),
                                    "--out", str(tmp_path / f"{name}.npz")]) == 0
    a, b = Evaluator.load(tmp_path / "a.npz"), Evaluator.load(tmp_path / "b.npz")
    np.testing.assert_array_equal(a.hidden_weights, b.hidden_weights)
    assert np.array_equal(np.load(data)["turn"], np.load(tmp_path / "turns-b.npz")["turn"])
    assert (a.metadata["rank"], a.metadata["tau"]) == (2.0, 0.05)
    with np.load(data) as cached:
        rows, turn = cached["rows"], cached["turn"]
    assert len(rows) == a.metadata["rows"] >= 600 and turn[0] == 0
    assert set(np.diff(turn).tolist()) <= {0, 1}  # turn after turn, 0, 1, 2, ...
    first = np.searchsorted(turn, np.arange(turn[-1] + 2))
    assert (np.diff(first) <= 5).all() and (np.diff(first) >= 2).sum() > turn[-1] / 2
    for start, end in zip(first[:-1], first[1:]):
        siblings = rows[start:end]
        assert (siblings[:, :25] == siblings[0, :25]).all()
        assert len(np.unique(siblings, axis=0)) == len(siblings)
    plain = tmp_path / "plain.npz"  # without --rank: distinct rows, no turns
    assert train.main(common + ["--seed", "5", "--data", str(plain),
                                "--out", str(tmp_path / "c.npz")]) == 0
    assert "turn" not in np.load(plain).files
    with pytest.raises(SystemExit, match="holds no turns"):
        train.main(common + ["--rank", "1", "--data", str(plain),
                             "--out", str(tmp_path / "d.npz")])
    # the gradient of the order term, against central differences of the divergence
    args = train.parse(common + ["--rank", "3", "--tau", "0.07", "--out", "x.npz"])
    rng = np.random.default_rng(0)
    logits = rng.normal(0, 1, (7, 5))
    teacher = rng.normal(0, 0.3, 7)
    starts = np.array([0, 3, 4])  # turns of 3, 1 and 3 siblings

    def divergence(sums: np.ndarray) -> float:
        values = equity(1 / (1 + np.exp(-sums)))
        total = 0.0
        for low, high in zip(starts, [3, 4, 7]):
            p = np.exp(-teacher[low:high] / args.tau)
            q = np.exp(-values[low:high] / args.tau)
            p, q = p / p.sum(), q / q.sum()
            total += float((p * np.log(p / q)).sum())
        return args.rank * total / len(starts)

    gradient = train.order_term(1 / (1 + np.exp(-logits)), teacher, starts, args)
    numeric = np.zeros_like(logits)
    for index in np.ndindex(*logits.shape):
        step = np.zeros_like(logits)
        step[index] = 1e-5
        numeric[index] = (divergence(logits + step) - divergence(logits - step)) / 2e-5
    np.testing.assert_allclose(gradient, numeric, rtol=1e-3, atol=1e-7)
    assert not gradient[3].any()  # a turn of one row has no order to learn
    for bad in (["--rank", "-1"], ["--rank", "1", "--tau", "0"],
                ["--rank", "1", "--from", str(data)]):
        with pytest.raises(SystemExit):
            train.parse(common + bad + ["--out", str(tmp_path / "x.npz")])
