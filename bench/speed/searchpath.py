"""The search-path workloads of issue 6, measured side by side: every level at which a search
program gets from positions to their children, on the same positions and the 21 rolls.

A *workload* is a callable over the whole corpus; ``measure`` runs all of them in interleaved
rounds (so that load on the shared machine hits every workload alike) and reports, for
each, the median over rounds of its thread CPU time per (position, roll). bench/speed/report.py
prints fastnardy's rows; bench/speed/peers.py adds bgsage and OpenSpiel to the same run.
"""

from __future__ import annotations

import statistics
import threading
import time
from typing import Callable, NamedTuple, Sequence

import numpy as np

from fastnardy import ALL_ROLLS, Position, _kernel, batch, perft


class Workload(NamedTuple):
    """One row: a name, its level (how it is called) and the work over the corpus, which
    covers ``items`` (position, roll) pairs."""

    name: str
    level: str
    run: Callable[[], object]
    items: int


def fastnardy_workloads(positions: Sequence[Position]) -> list:
    """fastnardy's rows of the table, over ``positions`` x the 21 rolls."""
    rules = positions[0].rules
    code = rules.code
    pairs = [(p, roll) for p in positions for roll in ALL_ROLLS]
    frames = [(p.mover_frame(), roll) for p, roll in pairs]
    rows = batch.encode(positions)
    keys = batch.encode(positions, keys=True)
    every_row = np.repeat(rows, 21, axis=0)
    every_roll = np.tile(batch.ROLLS, (len(positions), 1))
    n = len(pairs)

    def single_calls() -> None:
        count = _kernel.count_turns
        for (me, me_bar, opp, opp_bar), (d1, d2) in frames:
            count(code, me, me_bar, opp, opp_bar, d1, d2)

    def lazy_views() -> None:
        for position, roll in pairs:
            len(position.legal_turns(roll))

    def every_turn_built() -> None:
        for position, roll in pairs:
            list(position.legal_turns(roll))

    return [
        Workload("fastnardy batch.count_turns", "numpy batch",
                 lambda: batch.count_turns(rules, every_row, every_roll), n),
        Workload("fastnardy _kernel.count_turns", "one Python call each", single_calls, n),
        Workload("fastnardy batch.expand (keys)", "numpy batch",
                 lambda: batch.expand(rules, every_row, every_roll, keys=True), n),
        Workload("fastnardy batch.expand (rows)", "numpy batch",
                 lambda: batch.expand(rules, every_row, every_roll), n),
        Workload("fastnardy batch.chance_expand (keys)", "numpy batch, 21 rolls a call",
                 lambda: batch.chance_expand(rules, keys, keys=True), n),
        Workload("fastnardy batch.chance_expand (rows)", "numpy batch, 21 rolls a call",
                 lambda: batch.chance_expand(rules, rows), n),
        Workload("fastnardy len(pos.legal_turns(roll))", "Python API, lazy", lazy_views, n),
        Workload("fastnardy list(pos.legal_turns(roll))", "Python API, every Turn built",
                 every_turn_built, n),
    ]


def measure(workloads: Sequence[Workload], rounds: int) -> dict:
    """{name: median µs of thread CPU time per (position, roll)}, rounds interleaved."""
    times: dict = {w.name: [] for w in workloads}
    for _ in range(rounds):
        for w in workloads:
            start = time.thread_time()
            w.run()
            times[w.name].append((time.thread_time() - start) / w.items * 1e6)
    return {name: statistics.median(values) for name, values in times.items()}


def short_perft_seconds(rounds: int = 3) -> float:
    """Median thread CPU seconds of short perft(3) from the start."""
    start = Position.start("short")
    times = []
    for _ in range(rounds):
        t0 = time.thread_time()
        perft(start, 3)
        times.append(time.thread_time() - t0)
    return statistics.median(times)


def thread_scaling(positions: Sequence[Position], rounds: int = 3) -> list:
    """(name, one thread's throughput / two threads') for count_turns, expand and perft:
    the same work done twice, one after the other in one thread, then at once in two. The
    one figure in wall time: what two threads buy is elapsed time, and their CPU time is
    the same by construction."""
    rules = positions[0].rules
    rows = np.repeat(batch.encode(positions), 21, axis=0)
    dice = np.tile(batch.ROLLS, (len(positions), 1))
    times = max(1, 200_000 // len(rows))  # some tens of ms of work a job: thread start-up
    many_rows, many_dice = np.tile(rows, (times, 1)), np.tile(dice, (times, 1))  # is noise
    some = max(1, times // 5)
    some_rows, some_dice = np.tile(rows, (some, 1)), np.tile(dice, (some, 1))
    jobs = {
        "batch.count_turns": lambda: batch.count_turns(rules, many_rows, many_dice),
        "batch.expand": lambda: batch.expand(rules, some_rows, some_dice),
        "perft(long start, 4)": lambda: perft(Position.start("long"), 4),
    }
    out = []
    for name, job in jobs.items():
        serial, parallel = [], []
        for _ in range(rounds):
            t0 = time.perf_counter()
            job()
            job()
            serial.append(time.perf_counter() - t0)
            threads = [threading.Thread(target=job) for _ in range(2)]
            t0 = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            parallel.append(time.perf_counter() - t0)
        out.append((name, statistics.median(serial) / statistics.median(parallel)))
    return out
