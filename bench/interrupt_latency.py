"""How soon Ctrl-C stops a perft or a self-play: a real SIGINT to the main thread during
perft(long, 6), serial, on two threads (with and without a table) and on a two-process pool,
and during simulate("short", 10**8, "greedy") on two threads and (10**6 games) on a
caller's two-process pool; the time from the signal to the KeyboardInterrupt and to the last worker thread's end,
median and max over the rounds (wall-clock: this is what a person waits). A self-play chunk
running on a thread is abandoned, not stopped: its thread ends with the chunk.

    python bench/interrupt_latency.py [--rounds N]

The tests check only a generous bound (tests/test_long_runs.py); this measures.
"""

from __future__ import annotations

import argparse
import signal
import statistics
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Dict, List, Optional

from fastnardy import Position, perft, simulate

LONG = Position.start("long")


def _one(mode: str, pool: Optional[ProcessPoolExecutor]) -> tuple:
    sent: List[float] = []

    def interrupt() -> None:
        sent.append(time.perf_counter())
        signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)

    timer = threading.Timer(0.5, interrupt)
    timer.start()
    try:
        if mode.startswith("simulate"):
            simulate("short", 10**6 if pool else 10**8, 1, "greedy", workers=None if pool else 2,
                     executor=pool)
        else:
            perft(LONG, 6, workers=2 if mode.startswith("threads") else None, executor=pool,
                  tt_mb=64 if mode == "threads+table" else None)
        raise SystemExit(f"{mode} ended before the interrupt")
    except KeyboardInterrupt:
        raised = time.perf_counter()
    while any(t.name.startswith("ThreadPoolExecutor") for t in threading.enumerate()):
        time.sleep(0.0005)
    quiet = time.perf_counter()
    return raised - sent[0], quiet - sent[0]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    results: Dict[str, List[tuple]] = {}
    modes = ["serial", "threads", "threads+table", "process pool", "simulate threads",
             "simulate pool"]
    for _ in range(args.rounds):  # interleaved rounds
        for mode in modes:
            pool = ProcessPoolExecutor(2) if mode.endswith("pool") else None
            if pool is not None:
                pool.submit(int).result()
            results.setdefault(mode, []).append(_one(mode, pool))
            if pool is not None:
                pool.shutdown(wait=True)
    print(f"{'mode':<16} {'raised (median / max)':>24} {'threads ended (median / max)':>32}")
    for mode in modes:
        raised = [r for r, _ in results[mode]]
        ended = [q for _, q in results[mode]]
        print(f"{mode:<16} {statistics.median(raised) * 1e3:>10.1f} / {max(raised) * 1e3:6.1f} ms"
              f" {statistics.median(ended) * 1e3:>17.1f} / {max(ended) * 1e3:6.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
