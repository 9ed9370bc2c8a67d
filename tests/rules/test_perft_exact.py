"""T5 perft is exact at any depth: past 2**64 (the kernel adds in 128 bits, every sum
checked) and past 2**128 (a subtree the kernel cannot count is split into subtrees that it
can), on one core, with the table, on threads, a process pool and a checkpoint, weighted
too; all against a memoised big-integer recursion over ``legal_turns``."""

from __future__ import annotations

import functools
from concurrent.futures import ProcessPoolExecutor
from typing import List, Tuple

import pytest

from fastnardy import ALL_ROLLS, CountOverflowError, Position, _kernel, perft, perft_divide

TINY = Position.from_string("short w 24:1 24:1")  # one checker each: few positions, deep trees


@functools.lru_cache(maxsize=None)
def _children(position: Position) -> List[Tuple[int, List[Position]]]:
    """Per roll: its weight (T5 weighted: 2 for a non-double) and the children."""
    return [(2 if roll[0] != roll[1] else 1, [t.position for t in position.legal_turns(roll)])
            for roll in ALL_ROLLS]


@functools.lru_cache(maxsize=None)
def exact(position: Position, depth: int, weighted: bool) -> int:
    """T5 by definition, in Python ints, each (position, depth) counted once."""
    if depth == 0 or position.is_game_over():
        return 1
    return sum((weight if weighted else 1) * exact(child, depth - 1, weighted)
               for weight, children in _children(position) for child in children)


def test_T5_the_recursion_is_perft_where_both_fit():
    for depth in range(0, 6):
        assert exact(TINY, depth, False) == perft(TINY, depth)
        assert exact(TINY, depth, True) == perft(TINY, depth, weighted=True)
    for depth in range(6, 17):
        assert exact(TINY, depth, False) == perft(TINY, depth, tt_mb=16) < 2 ** 64


def test_T5_the_issue_13_count_past_2_64():
    """perft(20) of the tiny position: 85,034,403,559,791,281,652,391 (it was the count
    mod 2**64 on one core and neither on two workers)."""
    want = 85_034_403_559_791_281_652_391
    assert exact(TINY, 20, False) == want > 2 ** 64
    assert perft(TINY, 20, tt_mb=16) == want
    assert perft(TINY, 20, tt_mb=16, workers=2) == want
    assert perft(TINY, 20, tt_mb=16, weighted=True) == exact(TINY, 20, True) > 2 ** 64


@pytest.mark.parametrize("weighted, depth", [(False, 35), (True, 34)])
def test_T5_past_2_128_serial_table_threads_and_processes_agree(weighted, depth):
    want = exact(TINY, depth, weighted)
    assert want > 2 ** 128
    assert perft(TINY, depth, tt_mb=16, weighted=weighted) == want
    assert perft(TINY, depth, tt_mb=16, weighted=weighted, workers=2) == want
    if not weighted:  # the same path, and the slowest: each worker splits on its own
        with ProcessPoolExecutor(2) as pool:
            assert perft(TINY, depth, tt_mb=16, executor=pool) == want


def test_T5_perft_divide_past_2_128_adds_up():
    divide = perft_divide(TINY, 35, tt_mb=16)
    assert sum(count for turns in divide.values() for _, count in turns) == exact(TINY, 35, False)


def test_T5_the_kernel_refuses_a_count_it_cannot_hold():
    """The kernel's own limit is an error, never a wrapped number."""
    me, me_bar, opp, opp_bar = TINY.mover_frame()
    table = _kernel.PerftTable(16)
    assert _kernel.perft_count(TINY.rules.code, me, me_bar, opp, opp_bar, 30, False, table) \
        == exact(TINY, 30, False)
    with pytest.raises(CountOverflowError, match="2\\*\\*128"):
        _kernel.perft_count(TINY.rules.code, me, me_bar, opp, opp_bar, 35, False, table)
    assert issubclass(CountOverflowError, ValueError)


def test_T5_a_dask_cluster_gives_the_exact_count_past_2_64_and_2_128():
    distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed "
                                      "(pip install 'dask[distributed]')")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        executor = client.get_executor()
        assert perft(TINY, 20, tt_mb=16, executor=executor) == exact(TINY, 20, False)
        assert perft(TINY, 35, tt_mb=16, executor=executor) == exact(TINY, 35, False)
