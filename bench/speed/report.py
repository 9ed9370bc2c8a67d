"""One table of speed figures, measured side by side in one run.

Per (position, roll), grouped by game, phase (contact, race, bear-off) and doubles vs
non-doubles, the median over rounds of the mean thread CPU time of:

  (a) kernel   ``_kernel.count_turns``: the kernel's enumeration alone (distinct turns);
  (b) API      ``Position.legal_turns()`` on the kernel: the LegalTurns view (Turn objects are
               built when read);
  (b') API all ``list(Position.legal_turns())``: every Turn object built;
  (c) ref      the pure-Python reference's ``enumerate_turns`` (every turn built);

and the ratios ref/kernel, ref/API and ref/API-all (how many times faster), then perft nodes
per second. ``--plot FILE`` also draws the speed table as a bar chart (needs matplotlib).

    python bench/speed/report.py [--sample 120] [--rounds 5] [--long-games 60]
                                          [--plot speed.png]
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import statistics
import sys
import time
from typing import NamedTuple, Sequence

from corpus import PHASES, corpus
from searchpath import fastnardy_workloads, measure, thread_scaling

from fastnardy import ALL_ROLLS, Position, _kernel, perft, reference

DOUBLES = [r for r in ALL_ROLLS if r[0] == r[1]]
NON_DOUBLES = [r for r in ALL_ROLLS if r[0] != r[1]]


def median_per_item(work, items: list, rounds: int) -> float:
    """Median over rounds of (round time / number of items), in microseconds."""
    times = []
    for _ in range(rounds):
        start = time.thread_time()
        work(items)
        times.append((time.thread_time() - start) / len(items) * 1e6)
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


class SpeedRow(NamedTuple):
    """One line of the speed table; times in µs per (position, roll)."""

    game: str
    phase: str
    rolls: str
    positions: int
    turns: float
    kernel_all: float
    kernel: float
    api: float
    api_all: float
    ref: float

    def markdown(self) -> str:
        return (f"| {self.game} | {self.phase} | {self.rolls} | {self.positions} "
                f"| {self.turns:.1f} | {self.kernel_all:.2f} | {self.kernel:.2f} "
                f"| {self.api:.2f} | {self.api_all:.1f} | {self.ref:.0f} "
                f"| {self.ref / self.kernel:,.0f}× | {self.ref / self.api:,.0f}× "
                f"| {self.ref / self.api_all:,.0f}× |")


def plot_speed(rows: Sequence[SpeedRow], path: str) -> None:
    """The speed table as a bar chart: per row of the table, the kernel, API, API-all and
    reference times on a log scale. Written to ``path`` (the format follows its suffix)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series = (("kernel", "kernel"), ("api", "API"), ("api_all", "API all"), ("ref", "ref"))
    width = 0.8 / len(series)
    figure, axes = plt.subplots(figsize=(max(6.0, 0.9 * len(rows) + 2), 4.5))
    for number, (field, label) in enumerate(series):
        xs = [i + (number - (len(series) - 1) / 2) * width for i in range(len(rows))]
        axes.bar(xs, [getattr(row, field) for row in rows], width, label=label)
    axes.set_yscale("log")
    axes.set_ylabel("µs per (position, roll)")
    axes.set_xticks(range(len(rows)))
    axes.set_xticklabels([f"{r.game} {r.phase}\n{r.rolls}" for r in rows], fontsize=8)
    axes.set_title("legal turns: time per (position, roll)")
    axes.grid(axis="y", which="major", alpha=0.3)
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def print_search_path(groups: dict, rounds: int) -> None:
    """Issue 6's table for fastnardy (bench/speed/peers.py adds the peers to the same run): the
    short corpus (all phases) and long contact, then the scaling from one thread to two."""
    for game, phases in (("short", PHASES), ("long", ("contact",))):
        positions = [p for ph in phases for p in groups.get((game, ph), [])]
        results = measure(fastnardy_workloads(positions), rounds)
        print(f"| {game}: {len(positions)} positions x 21 rolls | thread CPU µs per "
              f"position-roll |")
        print("|---|---|")
        for name, micros in results.items():
            print(f"| {name} | {micros:.2f} |")
        print()
    print("| two threads vs one (same work twice) | throughput ratio |")
    print("|---|---|")
    for name, ratio in thread_scaling(groups[("short", "contact")][:500]):
        print(f"| {name} | {ratio:.2f}× |")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sample", type=int, default=120, help="positions per group for (b), (c)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--long-games", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--plot", metavar="FILE", help="also draw the speed table as a chart")
    args = parser.parse_args(argv)
    if args.plot and importlib.util.find_spec("matplotlib") is None:
        parser.error("--plot needs matplotlib (pip install matplotlib)")
    rng = random.Random(args.seed)
    groups = corpus(args.long_games)

    print("| game | phase | rolls | positions | turns/roll | kernel µs (all) | kernel µs | API µs "
          "| API all µs | ref µs | ref/kernel | ref/API | ref/API all |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    rows: list[SpeedRow] = []
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
                row = SpeedRow(game, phase, label, len(positions), turns, k_all, k, api,
                               api_all, ref)
                rows.append(row)
                print(row.markdown(), flush=True)
    if args.plot:
        plot_speed(rows, args.plot)
    print()
    print_search_path(groups, args.rounds)
    print()
    print("| perft | nodes | CPU seconds (median) | nodes per CPU s |")
    print("|---|---|---|---|")
    for game, depth in (("long", 4), ("short", 3)):
        start_pos = Position.start(game)
        times = []
        for _ in range(3):
            t0 = time.thread_time()
            nodes = perft(start_pos, depth)
            times.append(time.thread_time() - t0)
        sec = statistics.median(times)
        print(f"| {game} perft({depth}) from the start | {nodes:,} | {sec:.3f} | "
              f"{nodes / sec:,.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
