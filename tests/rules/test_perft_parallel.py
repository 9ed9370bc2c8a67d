"""T5 perft split into subtasks: threads, a process pool and a real Dask cluster all give
the serial count; the transposition table is exact; bad options are clean errors."""

from __future__ import annotations

import pickle
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from fastnardy import FastNardyError, Position, Rules, _kernel, perft, perft_divide
from fastnardy.counting import PerftProgress, _split, _Options
from strategies import positions

CASES = [
    (Position.start("long"), 3),
    (Position.start(Rules.long(head_rule="blocked", block_check="turn_end")), 3),
    (Position.start("short"), 2),
    (Position.from_string("short w bar:1,13:5,8:3,6:5 24:2,13:5,8:3,6:4"), 2),
    (Position.from_string("long b 24:14,4:1 24:15"), 3),
]
SERIAL = {(p, d, w): perft(p, d, weighted=w) for p, d in CASES for w in (False, True)}


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("position, depth", CASES)
def test_T5_threads_and_table_give_the_serial_count(position, depth, weighted):
    want = SERIAL[(position, depth, weighted)]
    assert perft(position, depth, weighted=weighted, workers=2) == want
    assert perft(position, depth, weighted=weighted, tt_mb=8) == want
    assert perft(position, depth, weighted=weighted, workers=3, tt_mb=8) == want
    with ThreadPoolExecutor(2) as pool:
        assert perft(position, depth, weighted=weighted, executor=pool) == want
        assert pool.submit(lambda: 7).result() == 7  # not shut down by perft


def test_T5_a_process_pool_gives_the_serial_count():
    with ProcessPoolExecutor(2) as pool:
        for position, depth in CASES[:3]:
            assert perft(position, depth, executor=pool, tt_mb=4) == SERIAL[(position, depth, False)]
        got = perft_divide(Position.start("long"), 3, executor=pool)
    assert got == perft_divide(Position.start("long"), 3)


def test_T5_a_dask_cluster_gives_the_serial_count():
    distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed "
                                      "(pip install 'dask[distributed]')")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        executor = client.get_executor()
        for position, depth in CASES[:3]:
            for weighted in (False, True):
                assert perft(position, depth, weighted=weighted, executor=executor, tt_mb=4) \
                    == SERIAL[(position, depth, weighted)]
        position, depth = CASES[0]  # the Client itself: its executor
        assert perft(position, depth, executor=client) == SERIAL[(position, depth, False)]


def test_the_split_covers_every_path_once():
    position = Position.start("short")
    tasks = _split(position, 3, _Options(False, None, None), 4)
    assert len(tasks) >= 64 and all(left == 2 for _, left in tasks)
    assert sum(tasks.values()) == perft(position, 1)
    assert pickle.loads(pickle.dumps(list(tasks))) == list(tasks)


def test_progress_is_reported_per_subtask():
    seen = []
    total = perft(Position.start("long"), 4, workers=2, tt_mb=8, progress=seen.append)
    assert seen and all(isinstance(p, PerftProgress) for p in seen)
    assert [p.done for p in seen] == list(range(1, seen[-1].total + 1))
    assert seen[-1].nodes == total == 2_411_418 and seen[-1].hits <= seen[-1].probes


def test_the_table_is_exact_and_reports_hits():
    table = _kernel.PerftTable(16)
    start = Position.start("long")
    me, me_bar, opp, opp_bar = start.mover_frame()
    assert _kernel.perft_count(start.rules.code, me, me_bar, opp, opp_bar, 4, False, table) \
        == 2_411_418
    assert table.probes > 0 and 0 < table.hit_rate < 1 and table.stores > 0
    # the same table under other rules and weighting: its entries must not leak across
    other = Position.start(Rules.long(head_rule="blocked"))
    assert _kernel.perft_count(other.rules.code, me, me_bar, opp, opp_bar, 4, False, table) \
        == 2_472_202
    assert _kernel.perft_count(start.rules.code, me, me_bar, opp, opp_bar, 4, True, table) \
        == perft(start, 4, weighted=True)
    assert "PerftTable" in repr(table)


@pytest.mark.parametrize("kwargs", [
    {"workers": 0}, {"workers": 1.5}, {"workers": True}, {"executor": "pool"},
    {"workers": 2, "executor": ThreadPoolExecutor(1)}, {"tt_mb": 0}, {"tt_mb": "64"},
    {"tt_mb": 8, "backend": "reference"}, {"weighted": "yes"},
])
def test_bad_perft_options_are_clean_errors(kwargs):
    with pytest.raises(FastNardyError):
        perft(Position.start("long"), 2, **kwargs)
    with pytest.raises(FastNardyError):
        _kernel.PerftTable(-1)


_SHARED_TABLE = _kernel.PerftTable(8)  # shared by every example: entries meet other positions


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(positions(), st.integers(1, 2), st.booleans())
def test_T5_table_counts_are_exact_across_positions_and_variants(position, depth, weighted):
    """One table serves all the examples, so a depth-1 entry (keyed by what perft(., 1)
    depends on: the mover's checkers, the opponent's blots and closed points, L6's forbidden
    points) is met again by other positions, rules and weightings."""
    me, me_bar, opp, opp_bar = position.mover_frame()
    with_table = _kernel.perft_count(position.rules.code, me, me_bar, opp, opp_bar, depth,
                                     weighted, _SHARED_TABLE)
    assert with_table == perft(position, depth, weighted=weighted)


def test_T5_the_perft_pages_ray_adapter_gives_the_serial_count():
    ray = pytest.importorskip("ray", reason="Ray is not installed (the Perft page's adapter is "
                                            "tested only where it is)")
    import concurrent.futures

    class RayExecutor(concurrent.futures.Executor):  # the Perft page's adapter
        def submit(self, fn, /, *args, **kwargs):
            return ray.remote(fn).remote(*args, **kwargs).future()

    ray.init(num_cpus=2, include_dashboard=False, ignore_reinit_error=True)
    try:
        position, depth = CASES[0]
        assert perft(position, depth, executor=RayExecutor()) == SERIAL[(position, depth, False)]
    finally:
        ray.shutdown()
