"""fastnardy._bearoff, compiled: the two-sided bear-off database's build loop (its checks)
and the lookup the network makes without the GIL on each of its paths (rows, keys, a
parent's children as the kernel's self-play values them). The database's values are judged
in tests/search/test_bearoff_database.py."""

from __future__ import annotations

import numpy as np
import pytest

from fastnardy import FastNardyError, Rules, _bearoff, _gamebatch, batch
from fastnardy.batch import encode
from fastnardy.search import bearoff
from fastnardy.search.network import Evaluator

from conftest import bear_off, bearoff_home


@pytest.mark.parametrize("game", ["long", "short"])
def test_rows_keys_and_self_plays_children_read_the_database_alike(db, game):
    # the compiled network's three paths (rows, keys, a parent's children as the kernel's
    # self-play values them) give a covered board its entry, and only a covered one
    rng = np.random.default_rng(7)
    rules = Rules.of(game)
    evaluator = Evaluator.load(game)
    boards = [bear_off(rules, bearoff_home(rng, 6), bearoff_home(rng, 6)) for _ in range(40)]
    boards += [bear_off(rules, bearoff_home(rng, 6), bearoff_home(rng, 9)) for _ in range(10)]
    rows = encode(boards)
    covered = db.covers(rows)
    assert covered.sum() == 40 + sum(sum(b.black_points) <= 6 for b in boards[40:])
    win, _ = db.values(rows[covered])
    network = Evaluator.load(game, bearoff=False).evaluate(rows, probabilities=True)
    for got in (evaluator.evaluate(rows, probabilities=True),
                evaluator.evaluate(encode(boards, keys=True), probabilities=True)):
        assert np.allclose(got[covered, 0], win, atol=1e-6)
        assert np.array_equal(got[~covered], network[~covered])
    children, parent = batch.expand(rules, rows, np.full((len(rows), 2), [6, 5]), keys=True)
    parents = batch.keys_from_rows(rules, rows)
    alone = evaluator.evaluate(children, probabilities=True)
    for first in (0, 1):
        got = _gamebatch._child_probabilities(evaluator.network, parents, children, parent,
                                              first)
        np.testing.assert_array_equal(got, alone)
    held = db.covers(batch.rows_from_keys(rules, children))
    assert held.sum() > len(held) // 2 and np.allclose(
        alone[held, 0], db.values(batch.rows_from_keys(rules, children[held]))[0], atol=1e-6)


def test_solve_refuses_arrays_that_do_not_fit():
    solver = bearoff._Solver(2)
    values = np.zeros(solver.size * solver.size * 4)
    args = [solver.first, solver.kids, bearoff._WEIGHTS, solver.pips, solver.by_pip,
            solver.pip_start]
    _bearoff.solve(values, solver.size, *args, 0, 0, solver.size)
    with pytest.raises(FastNardyError, match="do not fit the database's size"):
        _bearoff.solve(values[:-4], solver.size, *args, 0, 0, solver.size)
    with pytest.raises(FastNardyError, match="positions do not fit"):
        _bearoff.solve(values, solver.size, *args, 0, 0, solver.size + 1)
    with pytest.raises(FastNardyError, match="1 to 14 checkers"):
        _bearoff.Table(np.zeros(1, np.uint32), np.zeros(3, np.int16), 15)
    with pytest.raises(FastNardyError, match="uint32"):
        _bearoff.Table(np.zeros(2, np.uint32), np.zeros(3, np.int16), 1)


def test_one_database_serves_threads_at_once(db):
    # the evaluators' database is read-only and shared: two threads valuing bear-offs and
    # other boards with one evaluator, rows and keys, get what one thread gets
    import threading

    rng = np.random.default_rng(3)
    evaluator = Evaluator.load("short")
    boards = [bear_off(Rules.short(), bearoff_home(rng, 6), bearoff_home(rng, 9))
              for _ in range(400)]
    rows, keys = encode(boards), encode(boards, keys=True)
    assert 0 < db.covers(rows).sum() < len(rows)
    expected = evaluator.evaluate(rows, probabilities=True)
    results, errors = [], []

    def work() -> None:
        try:
            for _ in range(50):
                results.append(evaluator.evaluate(rows, probabilities=True))
                results.append(evaluator.evaluate(keys, probabilities=True))
        except BaseException as error:  # reported below, not lost in the thread
            errors.append(error)

    threads = [threading.Thread(target=work) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and len(results) == 200
    assert all(np.array_equal(result, expected) for result in results)
