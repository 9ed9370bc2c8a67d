"""The search-path rows that the previous main also has, for a side-by-side run: install each
version in its own venv (a non-editable ``pip install`` of the previous main), then run this
script with each venv's Python, alternately, several times; it measures the installed package:

    for i in 1 2 3; do OLD/bin/python bench/speed/against_main.py; NEW/bin/python bench/speed/against_main.py; done

Prints thread CPU µs per position-roll (median of 5) over the 2,000 GNU Backgammon positions
shipped in fastnardy/data x 21 rolls, and short perft(3) in thread CPU seconds (median of 3; perft without
workers runs in the calling thread); then the shipped short network's batched evaluations
(``Evaluator.evaluate`` of 100,000 rows, those positions 50 times each, as
bench/speed/evaluator_speed.py times them) in millions per thread CPU second (best of 5), in
float and, where the version has it, in int16 (issue 39's goal: twice the float rate of
the main before the issue, 07b0436, at the same width).
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Callable

import numpy as np

from fastnardy import ALL_ROLLS, Position, _kernel, batch, perft
from fastnardy.search.network import Evaluator

# read from this tree (the previous main, installed in the other venv, may not ship them)
DATA = Path(__file__).resolve().parents[2] / "src" / "fastnardy" / "data"


def main() -> None:
    ids = [line.split()[0] for name in ("bg_contact_ids.txt", "bg_race_ids.txt")
           for line in (DATA / name).read_text().splitlines() if line.strip()]
    positions = [Position.from_gnubg_id(pid) for pid in ids]
    pairs = [(p, roll) for p in positions for roll in ALL_ROLLS]
    code = positions[0].rules.code
    frames = [(p.mover_frame(), roll) for p, roll in pairs]
    encoded = batch.encode(positions)
    rows = np.repeat(encoded, 21, axis=0)
    dice = np.tile(np.array(ALL_ROLLS), (len(positions), 1))

    def single() -> None:
        count = _kernel.count_turns
        for (me, me_bar, opp, opp_bar), (d1, d2) in frames:
            count(code, me, me_bar, opp, opp_bar, d1, d2)

    def lazy() -> None:
        for position, roll in pairs:
            len(position.legal_turns(roll))

    def built() -> None:
        for position, roll in pairs:
            list(position.legal_turns(roll))

    work = {"batch.count_turns": lambda: batch.count_turns("short", rows, dice),
            "_kernel.count_turns": single, "len(legal_turns)": lazy,
            "list(legal_turns)": built, "batch.expand (rows)": lambda: batch.expand("short", rows, dice)}
    for name, run in work.items():
        times = []
        for _ in range(5):
            start = time.thread_time()
            run()
            times.append((time.thread_time() - start) / len(pairs) * 1e6)
        print(f"{name:<24} {statistics.median(times):8.3f} µs")
    times = []
    for _ in range(3):
        start = time.thread_time()
        perft(Position.start("short"), 3)
        times.append(time.thread_time() - start)
    print(f"{'short perft(3)':<24} {statistics.median(times):8.3f} s")
    many = np.repeat(encoded, 50, axis=0)[:100_000]
    for arithmetic in ("float", "int16"):
        try:
            net = Evaluator.load("short", arithmetic)
        except TypeError:  # a version before the int16 arithmetic: float only
            if arithmetic != "float":
                print(f"{'evaluate ' + arithmetic:<24}      n/a")
                continue
            net = Evaluator.load("short")
        best = min(_thread_seconds(lambda: net.evaluate(many)) for _ in range(5))
        print(f"{'evaluate ' + arithmetic:<24} {len(many) / best / 1e6:8.3f} M/s")


def _thread_seconds(run: Callable[[], object]) -> float:
    """The thread CPU seconds of one call of ``run``."""
    start = time.thread_time()
    run()
    return time.thread_time() - start


if __name__ == "__main__":
    main()
