"""How soon Ctrl-C stops a perft or a self-play, and whether anything computes afterwards: a
real SIGINT to the main thread during perft(long, 6) (serial, two threads with and without
a table, a two-process pool, a Dask cluster of two worker processes), simulate("short",
10**8, "greedy") (two threads, a process pool, the Dask cluster), long-nardy self-play with
the shipped network in the kernel and with a Python evaluator (two threads), an analysis
rollout (fastnardy.analysis.rollouts, two threads, the Dask cluster) and a trainer's labels
(fastnardy.training.labels: ``net:1`` on two threads and on the Dask cluster,
``gnubg:expert:2`` on the cluster, where gnubg's own processes are not in the CPU column:
they are killed). Reported per mode, median and max over the rounds: the time from the
signal to the KeyboardInterrupt and to the last worker thread's end (wall-clock: what a
person waits), and the CPU seconds spent in the 2 s after the interrupt by this process (its
threads) or, on Dask, by the busiest worker, less what that worker spends idle in 2 s
(measured before the rounds).

    python bench/speed/interrupt_latency.py [--rounds N] [--no-dask]

The tests check generous bounds (tests/interfaces/test_long_runs.py); this measures.
"""

from __future__ import annotations

import argparse
import signal
import statistics
import sys
import threading
import time
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from fastnardy import Position, perft, simulate
from fastnardy.analysis.rollouts import rollout
from fastnardy.batch import encode
from fastnardy.training.labels import labels
from fastnardy.search.network import Evaluator
from fastnardy.testing.speed import gnubg_positions

LONG = Position.start("long")
SHORT_ROWS = np.repeat(encode([Position.start("short")]), 10**6, axis=0)  # labels: minutes
GNUBG_ROWS = encode(gnubg_positions())  # 2,000 distinct (none from gnubg's cache): 2 plies, 25 s
WINDOW = 2.0  # seconds after the interrupt in which CPU is counted


def _python_evaluator(rows: Any) -> Any:
    """A plain callable (self-play returns to Python at every turn-step)."""
    return np.zeros(len(rows))


_python_evaluator.inputs = "rows"  # type: ignore[attr-defined]


def _runs(net: Evaluator) -> Dict[str, Callable[[Optional[Executor]], object]]:
    return {
        "perft serial": lambda pool: perft(LONG, 6),
        "perft threads": lambda pool: perft(LONG, 6, workers=2),
        "perft threads+table": lambda pool: perft(LONG, 6, workers=2, tt_mb=64),
        "perft pool": lambda pool: perft(LONG, 6, executor=pool),
        "perft dask": lambda pool: perft(LONG, 6, executor=pool),
        "simulate threads": lambda pool: simulate("short", 10**8, 1, "greedy", workers=2),
        "simulate pool": lambda pool: simulate("short", 10**6, 1, "greedy", executor=pool),
        "simulate dask": lambda pool: simulate("short", 10**8, 1, "greedy", executor=pool),
        "long network threads": lambda pool: simulate("long", 10**8, 1, net, workers=2),
        "long python threads": lambda pool: simulate("long", 10**8, 1, _python_evaluator,
                                                     workers=2),
        "analysis rollout threads": lambda pool: rollout(LONG, None, 10**6, workers=2),
        "analysis rollout dask": lambda pool: rollout(LONG, None, 10**6, executor=pool),
        "labels threads": lambda pool: labels("short", SHORT_ROWS, "net:1", workers=2),
        "labels dask": lambda pool: labels("short", SHORT_ROWS, "net:1", executor=pool),
        "gnubg labels dask": lambda pool: labels("short", GNUBG_ROWS, "gnubg:expert:2",
                                                 executor=pool),
    }


def _workers_cpu(client: Any) -> Dict[str, float]:
    return dict(client.run(time.process_time))


def _one(run: Callable[[Optional[Executor]], object], pool: Optional[Executor],
         client: Any) -> Tuple[float, float, float]:
    sent: List[float] = []
    cpu: List[float] = []

    def interrupt() -> None:
        sent.append(time.perf_counter())
        cpu.append(time.process_time())
        signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)

    timer = threading.Timer(1.0, interrupt)
    timer.start()
    try:
        run(pool)
        raise SystemExit("a run ended before the interrupt")
    except KeyboardInterrupt:
        raised = time.perf_counter()
    before = _workers_cpu(client) if client is not None else None
    while any(t.name.startswith("ThreadPoolExecutor") for t in threading.enumerate()):
        time.sleep(0.0005)
    quiet = time.perf_counter()
    time.sleep(max(0.0, sent[0] + WINDOW - time.perf_counter()))
    if before is not None:
        after = _workers_cpu(client)
        spent = max(after[w] - before[w] for w in after)
    else:
        spent = time.process_time() - cpu[0]
    return raised - sent[0], quiet - sent[0], spent


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-dask", action="store_true", help="leave out the Dask modes")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    runs = _runs(Evaluator.load("long"))
    client = cluster = None
    idle = 0.0
    if args.no_dask:
        runs = {mode: run for mode, run in runs.items() if "dask" not in mode}
    else:
        import distributed

        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                           dashboard_address=None)
        client = distributed.Client(cluster)
        perft(LONG, 2, executor=client.get_executor())
        start = _workers_cpu(client)
        time.sleep(WINDOW)
        end = _workers_cpu(client)
        idle = max(end[w] - start[w] for w in end)
    results: Dict[str, List[Tuple[float, float, float]]] = {}
    try:
        for _ in range(args.rounds):  # interleaved rounds
            for mode, run in runs.items():
                pool: Optional[Executor] = None
                if mode.endswith("pool"):
                    pool = ProcessPoolExecutor(2)
                    pool.submit(int).result()
                elif mode.endswith("dask"):
                    pool = client.get_executor()
                result = _one(run, pool, client if mode.endswith("dask") else None)
                if mode.endswith("dask"):
                    result = (result[0], result[1], result[2] - idle)
                results.setdefault(mode, []).append(result)
                if isinstance(pool, ProcessPoolExecutor):
                    pool.shutdown(wait=True)
    finally:
        if client is not None:
            client.close()
            cluster.close()
    print(f"{'mode':<26} {'raised (median / max)':>22} {'threads ended':>22} "
          f"{'CPU in the 2 s after':>24}")
    for mode in runs:
        columns = list(zip(*results[mode]))
        cells = [f"{statistics.median(c) * 1e3:>8.1f} / {max(c) * 1e3:6.1f} ms"
                 for c in columns[:2]]
        cpu = columns[2]
        cells.append(f"{statistics.median(cpu):>9.3f} / {max(cpu):6.3f} s")
        print(f"{mode:<26} {cells[0]:>22} {cells[1]:>22} {cells[2]:>24}")
    if not args.no_dask:
        print(f"(Dask: the busiest worker's CPU less {idle:.3f} s, what it spends idle in "
              f"{WINDOW:g} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
