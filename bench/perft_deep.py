"""Run every entry of tests/data/*.perft (the deep, slow ones included) on the kernel and
print count, time and nodes per second; exit 1 on any mismatch.

    PYTHONPATH=src python bench/perft_deep.py [--max-depth N]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from fastnardy import Position, perft
from fastnardy.perft import read_perft_file

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--max-depth", type=int, default=99)
    args = parser.parse_args(argv)
    failures = 0
    for path in sorted(DATA.glob("*.perft")):
        for entry in read_perft_file(path):
            if entry.depth > args.max_depth:
                continue
            start = time.perf_counter()
            count = perft(Position.from_string(entry.position), entry.depth, backend="kernel")
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
