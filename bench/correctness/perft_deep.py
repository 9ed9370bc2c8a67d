"""Run every entry of tests/data/*.perft (the deep, slow ones included) on the kernel and
print count, time and nodes per second; exit 1 on any mismatch.

    python bench/correctness/perft_deep.py [--max-depth N] [--workers N] [--tt-mb MB] [--checkpoints DIR]

The records (long perft(6), short perft(4)) need --workers and --tt-mb to finish in minutes:
``--workers 2 --tt-mb 8192`` on the project's 2-core machine. With ``--checkpoints DIR`` each
count keeps its finished subtasks in DIR, so a run interrupted or killed resumes there.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from fastnardy import Position, perft
from fastnardy.counting import read_perft_file

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--max-depth", type=int, default=99)
    parser.add_argument("--workers", type=int, default=None, help="split each count on N threads")
    parser.add_argument("--tt-mb", type=int, default=None, help="an exact transposition table")
    parser.add_argument("--checkpoints", type=Path, default=None, metavar="DIR",
                        help="keep each count's finished subtasks in DIR (resumable)")
    args = parser.parse_args(argv)
    failures = 0
    for path in sorted(DATA.glob("*.perft")):
        for entry in read_perft_file(path):
            if entry.depth > args.max_depth:
                continue
            start = time.perf_counter()
            checkpoint = (None if args.checkpoints is None else
                          args.checkpoints / f"{path.stem}-{entry.id}-d{entry.depth}.json")
            count = perft(Position.from_string(entry.position), entry.depth, backend="kernel",
                          workers=args.workers, tt_mb=args.tt_mb, checkpoint=checkpoint)
            seconds = time.perf_counter() - start
            ok = count == entry.count
            failures += not ok
            print(f"{'ok ' if ok else 'BAD'} {entry.id:<48} d{entry.depth} {count:>14,} "
                  f"{seconds:8.3f} s {count / max(seconds, 1e-9):>14,.0f} nodes/s"
                  + ("" if ok else f"  expected {entry.count:,}"), flush=True)
    print("all perft entries match" if not failures else f"{failures} MISMATCHES")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
