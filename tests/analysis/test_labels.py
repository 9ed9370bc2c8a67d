"""fastnardy.training.labels (issue 39 item 2): a trainer's labels of many rows, by a teacher
setting (a network's at 0 to 3 plies, GNU Backgammon's or bgsage's), the same here, on
threads, on a process pool and on a Dask cluster; finished games exact (L10, S9); bad input
refused before any work is split."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import threading
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest

from fastnardy import Position, Rules, _features, analysis
from fastnardy._utils import executors as _executors
from fastnardy.batch import chance_expand, encode
from fastnardy.errors import FastNardyError, InvalidPositionError
from fastnardy.play.gnubg import Gnubg
from fastnardy.search.network import Evaluator, equity, exact
from fastnardy.search.setting import Setting
from fastnardy.search.tree import GNUBG_FILTERS, STOP_ROWS, MoveFilter, Search, expectimax
from fastnardy.testing.speed import gnubg_positions
from fastnardy.training import labels as play_labels
from fastnardy.training.labels import labels

from conftest import needs_gnubg, played

NEEDS_BGSAGE = pytest.mark.skipif(importlib.util.find_spec("bgsage") is None,
                                  reason="bgsage is not installed (pip install bgsage: the "
                                         "test extra)")


@pytest.mark.parametrize("game", ["long", "short"])
@pytest.mark.parametrize("plies", [0, 1])
def test_labels_are_the_outputs_of_analysis_probabilities(game, plies):
    """T5, T2: a row's label is analysis.probabilities of its position at the same setting,
    the same floats (one search, Search.line); a finished game's is exact (L10, S9)."""
    rules = Rules.of(game)
    positions = played(rules, 700, 1)
    finished = [i for i, p in enumerate(positions) if p.outcome() is not None]
    assert finished and len(finished) < len(positions)
    teacher = Setting("net", plies, filter=None)
    got = labels(rules, encode(positions), teacher)
    assert got.shape == (len(positions), 5) and got.dtype == np.float64
    sample = sorted(set(finished) | set(range(0, len(positions), 7)))
    want = np.array([analysis.probabilities(positions[i], teacher) for i in sample])
    np.testing.assert_array_equal(got[sample], want)
    for i in finished:
        assert np.array_equal(got[i], exact(positions[i]))


@pytest.mark.parametrize("game", ["long", "short"])
def test_the_equity_of_a_one_ply_label_is_expectimax(game):
    """At 1 ply the label's equity is expectimax's (no filter), finished games (L10, S9)
    scored exactly, on middle-game and bear-off rows."""
    rules, network = Rules.of(game), Evaluator.load(game)
    home = Position.from_points(game, [2, 0, 1, 0, 0, 0] + [0] * 18,
                                [3, 3, 3, 2, 2, 2] + [0] * 18, "white")
    rows = np.concatenate([encode(played(rules, 60, 5)), encode([home])])
    outputs = labels(rules, rows, Setting(network, 1, filter=None))
    np.testing.assert_allclose(equity(outputs), expectimax(rules, rows, network, 1), atol=1e-9)
    assert outputs[-1, 0] > 0.5  # 1-3 pips to bear off against a full home board


@pytest.mark.parametrize("game", ["long", "short"])
def test_the_equity_of_a_two_ply_label_is_expectimax_with_its_filter(game):
    """At 2 plies the label (the mean of the 1-ply labels of the best turn of each roll at 1
    ply among those the filter keeps) has expectimax's 2-ply value as its equity with the
    same filter (a tuple's entry for the rows' children), full width with None, GNU
    Backgammon's filters when none is given; the same bits on two threads."""
    rules, network = Rules.of(game), Evaluator.load(game)
    home = Position.from_points(game, [2, 0, 1, 0, 0, 0] + [0] * 18,
                                [3, 3, 3, 2, 2, 2] + [0] * 18, "white")
    rows = np.concatenate([encode(played(rules, 40, 6)), encode([home])])
    for move_filter in (MoveFilter(2, 0.04), MoveFilter(1, 0.0), GNUBG_FILTERS):
        outputs = labels(rules, rows, Setting(network, 2, move_filter))
        np.testing.assert_allclose(equity(outputs), expectimax(rules, rows, network, 2,
                                                               move_filter), atol=1e-9)
        assert outputs[-1, 0] > 0.5
    assert np.array_equal(labels(rules, rows, Setting(network, 2, GNUBG_FILTERS), workers=2),
                          outputs)
    assert np.array_equal(labels(rules, rows, Setting(network, 2)), outputs)  # the default
    few = rows[::10]
    full = labels(rules, few, Setting(network, 2, filter=None))
    np.testing.assert_allclose(equity(full), expectimax(rules, few, network, 2), atol=1e-9)
    assert not np.allclose(full, labels(rules, few, Setting(network, 1, filter=None)))


def test_a_stopped_two_ply_search_ends_within_its_inner_groups():
    """Labels' Ctrl-C: Search.line with a stop flag checks it before each group of STOP_ROWS
    (128) rows at every level. A full-width 2-ply search of 128 long nardy rows (thousands
    of children) with a flag set from its third reading on ends after the first group of
    its children, counted in positions evaluated, not in seconds."""
    class SetAfter:
        """A stop flag that is set from its ``count + 1``-th reading on."""

        def __init__(self, count: int) -> None:
            self.count, self.read = count, 0

        def is_set(self) -> bool:
            self.read += 1
            return self.read > self.count

    rules = Rules.of("long")
    rows = encode(played(rules, 400, 7)[-STOP_ROWS:])
    search = Search(rules, Evaluator.load("long"), None)
    with pytest.raises(KeyboardInterrupt):
        search.line(rows, 2, 0, SetAfter(2))
    # the bear-offs the database holds are valued where they are met (exact at any plies),
    # before any group, at the root and among the children
    database = search.evaluator.bearoff
    roots = rows[_features.winners(rows) == 0]
    held_roots = database.covers(roots)
    children = chance_expand(rules, roots[~held_roots]).children
    assert len(children) > 10 * STOP_ROWS
    live = children[_features.winners(children) == 0]
    held = database.covers(live)
    first = chance_expand(rules, live[~held][:STOP_ROWS]).children  # the first group's
    assert held.any()
    assert search.evaluations == held_roots.sum() + held.sum() + np.count_nonzero(
        _features.winners(first) == 0) > 0


def test_labels_are_the_same_however_split(monkeypatch):
    """A row's label is its own: serial, two threads (in other pieces), a process pool and a
    Dask cluster (its Client and its executor) give the same bits; progress counts every
    row once. At most 5 subtasks here (64 in the package), so a subtask labels several
    pieces, finished rows among them; many threads get 4 subtasks each at least."""
    distributed = pytest.importorskip("distributed", reason="dask.distributed is not "
                                      "installed (pip install 'dask[distributed]')")
    rules = Rules.of("short")
    rows = encode(played(rules, 2000, 2))  # 16 pieces of 128
    network = Evaluator.load("short")
    monkeypatch.setattr(play_labels, "_SUBTASKS", 5)  # read by the caller: 4 of 512 rows
    teacher = Setting(network, 1, filter=None)
    serial = labels(rules, rows, teacher)
    with monkeypatch.context() as patch:
        patch.setattr(play_labels, "_SUBTASKS", 16)  # 16 of 128: other pieces
        assert np.array_equal(labels(rules, rows, teacher, workers=2), serial)
    seen: list = []  # 4 subtasks a thread at least, so few are idle at the end
    assert np.array_equal(labels(rules, rows, teacher, workers=4,
                                 progress=lambda *done: seen.append(done)), serial)
    assert len(seen) == 16
    with ProcessPoolExecutor(2) as pool:
        assert np.array_equal(labels(rules, rows, teacher, executor=pool), serial)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        for executor in (client, client.get_executor()):
            seen = []
            got = labels(rules, rows, teacher, executor=executor,
                         progress=lambda *done: seen.append(done))
            assert np.array_equal(got, serial)
            assert seen[-1] == (len(rows), len(rows)) and len(seen) == 4
            assert all(a[0] < b[0] for a, b in zip(seen, seen[1:]))


@needs_gnubg
def test_gnubg_labels_are_its_evaluations():
    """gnubg's label is Gnubg.probabilities (cubeless, S9) on two threads as on one
    process; a finished row's exact (L10, S9): gnubg is never asked it."""
    rules = Rules.of("short")
    positions = played(rules, 150, 3)
    rows = encode(positions)
    live = [i for i, p in enumerate(positions) if p.outcome() is None]
    assert len(live) < len(positions)  # a finished game among them
    engine = Gnubg("gnubg:expert", 1)
    try:
        want = engine.probabilities(rows[live], 0)
    finally:
        engine.close()
    got = labels(rules, rows, "gnubg:expert", workers=2)
    assert np.array_equal(got[live], want)
    for i in set(range(len(positions))) - set(live):
        assert np.array_equal(got[i], exact(positions[i]))


@NEEDS_BGSAGE
@pytest.mark.parametrize("plies", [0, 1])
def test_bgsage_labels_are_its_evaluations(plies):
    """bgsage's label at 0 and 1 ply is Bgsage.probabilities (its cubeless evaluation before
    the roll, money game without Jacoby, gammons where S9 leaves them possible), the same on
    two threads as in one call; a finished row's exact (L10, S9): bgsage is never asked
    it. Its outputs are probabilities, cumulative as OUTPUTS are."""
    from fastnardy.play.bgsage import Bgsage

    rules = Rules.of("short")
    positions = played(rules, 300, 3)
    if plies:  # fewer at 1 ply (2 ms a row): the finished ones and every tenth
        positions = [p for i, p in enumerate(positions) if p.outcome() is not None or i % 10 == 0]
    rows = encode(positions)
    live = [i for i, p in enumerate(positions) if p.outcome() is None]
    assert len(live) < len(positions)  # a finished game among them
    want = Bgsage(Setting("bgsage", plies)).probabilities(rows[live])
    got = labels(rules, rows, f"bgsage:{plies}", workers=2)
    np.testing.assert_allclose(got[live], want, rtol=0, atol=1e-6)
    assert np.array_equal(got, labels(rules, rows, Setting("bgsage", plies)))
    for i in set(range(len(positions))) - set(live):
        assert np.array_equal(got[i], exact(positions[i]))
    assert ((0 <= got) & (got <= 1)).all()
    assert (got[:, 1] <= got[:, 0] + 1e-6).all() and (got[:, 2] <= got[:, 1] + 1e-6).all()
    assert (got[:, 3] <= 1 - got[:, 0] + 1e-6).all() and (got[:, 4] <= got[:, 3] + 1e-6).all()


@pytest.mark.parametrize("call, error, message", [
    (lambda rows: labels("short", _more_than_15(rows), "net:1"), InvalidPositionError,
     r"more than 15 checkers of a side \(T7\)"),
    (lambda rows: labels("short", np.zeros((2, 7), np.int8), "net:1"), InvalidPositionError,
     r"shape \(N, 50\)"),
    (lambda rows: labels("short", rows, "net:4"), FastNardyError, "plies"),  # MAX_PLIES 3
    (lambda rows: labels("short", rows, Setting("net", 2, MoveFilter(0, 0.1))),
     FastNardyError, "filter must be"),
    (lambda rows: labels("short", rows, "gnubg:expert:5"), FastNardyError, "plies"),
    (lambda rows: labels("short", rows, Setting(Evaluator.load("long"), 1)), FastNardyError,
     "long nardy"),
    (lambda rows: labels("long", encode([Position.start("long")]), "gnubg:expert"),
     FastNardyError, "short nardy only"),
    (lambda rows: labels("long", encode([Position.start("long")]), "bgsage"),
     FastNardyError, "bgsage labels short nardy only"),
    (lambda rows: labels("short", rows, "bgsage:4"), FastNardyError, "plies"),
    (lambda rows: labels("short", rows, "net:1", workers=0), FastNardyError, "workers"),
    (lambda rows: labels("short", rows, "net:1", workers=1025), FastNardyError,
     "between 1 and 1024"),  # checks.MAX_THREADS
    (lambda rows: labels("short", rows, "net:1", workers=2, executor=ProcessPoolExecutor(1)),
     FastNardyError, "not both"),
    (lambda rows: labels("short", rows, "net:1", executor="pool"), FastNardyError,
     "executor must be"),
    (lambda rows: labels("short", rows, "net:1", progress=3), FastNardyError, "progress"),
    (lambda rows: labels("short", rows, "gnubg:beginner"), FastNardyError,
     "a teacher is a network's setting, gnubg:expert.* or bgsage"),
    (lambda rows: labels("short", rows, "greedy"), FastNardyError,
     "a teacher is a network's setting, gnubg:expert.* or bgsage"),
    (lambda rows: labels("short", rows, "gnubg-nn"), FastNardyError,
     "a teacher is a network's setting, gnubg:expert.* or bgsage"),
    (lambda rows: labels("short", rows, "clever"), FastNardyError, "unknown setting"),
])
def test_bad_input_is_refused_before_any_work(call, error, message):
    rows = encode(played(Rules.of("short"), 5, 4))
    with pytest.raises(error, match=message):
        call(rows)


def _more_than_15(rows: np.ndarray) -> np.ndarray:
    bad = rows.copy()
    bad[-1, 0] += 15  # T7: a side has 15 checkers
    return bad


def test_no_rows_no_labels():
    assert labels("long", np.zeros((0, 50), np.int8), "net:1").shape == (0, 5)


def test_a_subtask_queued_on_a_worker_after_the_halt_starts_no_gnubg(monkeypatch):
    """A subtask that a Dask worker starts after its call was halted there (halt_here: the
    worker's queued subtasks are not cancelled one by one) ends at once and quietly (None),
    without starting a gnubg process first (CI saw a worker's queue start one gnubg after
    another for many seconds after a Ctrl-C)."""
    def no_gnubg(*args, **kwargs):
        raise AssertionError("a gnubg process was started")

    monkeypatch.setattr(play_labels, "Gnubg", no_gnubg)
    token = (0, 10 ** 9)  # another process's call: this process is its worker
    _executors.halt_here(token)
    plan = play_labels._Plan(Rules.of("short"), Setting("gnubg:expert"))
    assert play_labels._labelled((plan, encode(gnubg_positions()[:10]), token)) is None


@needs_gnubg
def test_a_stopped_gnubg_piece_ends_at_once_with_keyboard_interrupt():
    """A stop flag set during one of gnubg's requests kills its process (a watcher thread):
    the piece ends within a fraction of a second with KeyboardInterrupt, which a Dask
    worker's subtask ends quietly on (fastnardy._utils.executors.watching), not with the
    failed request's EngineError."""
    # 2,000 distinct positions at 2 plies: ~80 s (one position repeated is answered from
    # gnubg's cache: CI once finished it before the stop)
    rows = encode(gnubg_positions())
    stop = threading.Event()
    timer = threading.Timer(1.0, stop.set)
    timer.start()
    started = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            play_labels._gnubg(rows, Setting("gnubg:expert", 2), stop)
    finally:
        timer.cancel()
    assert time.monotonic() - started < 1.0 + 5.0  # generous: about 1.05 s
    children = subprocess.run(["pgrep", "-c", "-P", str(os.getpid()), "gnubg"],
                              capture_output=True, text=True).stdout.strip()
    assert children == "0"  # killed and reaped: no zombie left
