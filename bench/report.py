"""One table of speed figures, measured side by side in one run.

Per (position, roll), grouped by game, phase (contact, race, bear-off) and doubles vs
non-doubles, the median over rounds of the mean time of:

  (a) kernel   ``_kernel.count_turns``: the kernel's enumeration alone (distinct turns);
  (b) API      ``Position.legal_turns()`` on the kernel: the LegalTurns view (Turn objects are
               built when read);
  (b') API all ``list(Position.legal_turns())``: every Turn object built;
  (c) ref      the pure-Python reference's ``enumerate_turns`` (every turn built);

and the ratios ref/kernel, ref/API and ref/API-all (how many times faster), then perft nodes
per second.

    PYTHONPATH=src python bench/report.py [--sample 120] [--rounds 5] [--long-games 60]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from corpus import PHASES, corpus  # noqa: E402

from fastnardy import ALL_ROLLS, Position, _kernel, perft, reference  # noqa: E402

DOUBLES = [r for r in ALL_ROLLS if r[0] == r[1]]
NON_DOUBLES = [r for r in ALL_ROLLS if r[0] != r[1]]


def median_per_item(work, items: list, rounds: int) -> float:
    """Median over rounds of (round time / number of items), in microseconds."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        work(items)
        times.append((time.perf_counter() - start) / len(items) * 1e6)
    return statistics.median(times)


def kernel_counts(items) -> None:
    count = _kernel.count_turns
    for code, me, me_bar, opp, opp_bar, d1, d2, _ in items:
        count(code, me, me_bar, opp, opp_bar, d1, d2)


def api_turns(items) -> None:
    for *_, d1, d2, position in items:
        position.legal_turns((d1, d2))


def api_all_turns(items) -> None:
    for *_, d1, d2, position in items:
        list(position.legal_turns((d1, d2)))


def reference_turns(items) -> None:
    enum = reference.enumerate_turns
    for code, me, me_bar, opp, opp_bar, d1, d2, _ in items:
        enum(code, me, me_bar, opp, opp_bar, d1, d2)


def items_of(positions: list, rolls: list) -> list:
    return [(p.rules.code, *p.mover_frame(), d1, d2, p) for p in positions for d1, d2 in rolls]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sample", type=int, default=120, help="positions per group for (b), (c)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--long-games", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    groups = corpus(args.long_games)

    print("| game | phase | rolls | positions | turns/roll | kernel µs (all) | kernel µs | API µs "
          "| API all µs | ref µs | ref/kernel | ref/API | ref/API all |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for game in ("long", "short"):
        for phase in PHASES:
            positions = groups.get((game, phase), [])
            if not positions:
                continue
            sample = rng.sample(positions, min(args.sample, len(positions)))
            for label, rolls in (("non-doubles", NON_DOUBLES), ("doubles", DOUBLES)):
                everything = items_of(positions, rolls)
                chosen = items_of(sample, rolls)
                k_all = median_per_item(kernel_counts, everything, args.rounds)
                k = median_per_item(kernel_counts, chosen, args.rounds)
                api = median_per_item(api_turns, chosen, args.rounds)
                api_all = median_per_item(api_all_turns, chosen, args.rounds)
                ref = median_per_item(reference_turns, chosen, 1 if args.rounds < 3 else 3)
                turns = sum(_kernel.count_turns(*i[:7]) for i in everything) / len(everything)
                print(f"| {game} | {phase} | {label} | {len(positions)} | {turns:.1f} "
                      f"| {k_all:.2f} | {k:.2f} | {api:.2f} | {api_all:.1f} | {ref:.0f} "
                      f"| {ref / k:,.0f}× | {ref / api:,.0f}× | {ref / api_all:,.0f}× |",
                      flush=True)
    print()
    print("| perft | nodes | seconds (median) | nodes/s |")
    print("|---|---|---|---|")
    for game, depth in (("long", 4), ("short", 3)):
        start_pos = Position.start(game)
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            nodes = perft(start_pos, depth)
            times.append(time.perf_counter() - t0)
        sec = statistics.median(times)
        print(f"| {game} perft({depth}) from the start | {nodes:,} | {sec:.3f} | "
              f"{nodes / sec:,.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
