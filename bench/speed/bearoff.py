"""The two-sided bear-off database's costs beside the network's (issue 66), in one run:

    python bench/speed/bearoff.py [--rounds 5]

1. A lookup in the compiled evaluator against a network evaluation: ``Evaluator.evaluate``
   of the same 100,000 bear-off rows (each side 1 to 6 checkers, all home: the database
   holds them all) by the evaluator with the database and by the same network without it,
   float and int16 (each row checked first on both paths, T7); the lookup alone
   (``Table.entries``: the coverage test and the two ranks) on those rows, beside the
   network on them and on 100,000 positions of random games (``sample_positions``)
   (goal: the lookup under a tenth of the network).
2. ``analysis.hint`` in bear-offs (30 positions of each game, each side 1 to 8 checkers home,
   a random roll) at 0, 1 and 2 plies, cubeful money play (the command line's request), with
   the database and with the network alone (the same code with ``bearoff=False``: what hint
   did before the database; goal: faster).

Thread CPU time (``time.thread_time``), the two sides interleaved in every round, medians.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Callable, Dict, List, Tuple

import numpy as np

from fastnardy import ALL_ROLLS, Position, analysis
from fastnardy.batch import encode
from fastnardy.search.network import Evaluator
from fastnardy.search.setting import Setting
from fastnardy.testing.samples import sample_positions


def homes(rng: np.random.Generator, count: int, most: int) -> List[List[int]]:
    return [np.bincount(rng.integers(0, 6, size=int(rng.integers(1, most + 1))),
                        minlength=6).tolist() + [0] * 18 for _ in range(count)]


def positions(game: str, count: int, most: int, seed: int) -> List[Position]:
    rng = np.random.default_rng(seed)
    return [Position.from_points(game, white, black)
            for white, black in zip(homes(rng, count, most), homes(rng, count, most))]


def timed(work: Callable[[], object]) -> float:
    started = time.thread_time()
    work()
    return time.thread_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    for game in ("long", "short"):
        rows = encode(positions(game, 100_000, 6, 1))
        for arithmetic in ("float", "int16"):
            with_db = Evaluator.load(game, arithmetic)
            alone = Evaluator.load(game, arithmetic, bearoff=False)
            assert with_db.bearoff is not None and with_db.bearoff.covers(rows).all()
            times: Dict[str, List[float]] = {"database": [], "network": []}
            for _ in range(args.rounds):
                times["database"].append(timed(lambda: with_db.evaluate(rows)))
                times["network"].append(timed(lambda: alone.evaluate(rows)))
            lookup, network = (statistics.median(times[k]) for k in ("database", "network"))
            print(f"{game} {arithmetic}: 100,000 bear-off rows, database {lookup * 1e3:.1f} ms"
                  f" ({lookup * 1e4:.1f} ns a row), network {network * 1e3:.1f} ms "
                  f"({network * 1e4:.1f} ns a row): lookup / network = "
                  f"{lookup / network:.3f}")
        games = encode(sample_positions(game, 100_000, 1))
        alone = Evaluator.load(game, bearoff=False)
        table = Evaluator.load(game).bearoff.table  # type: ignore[union-attr]
        spent: Dict[str, List[float]] = {"lookup": [], "bear-offs": [], "games": []}
        for _ in range(args.rounds):
            spent["lookup"].append(timed(lambda: table.entries(rows)))
            spent["bear-offs"].append(timed(lambda: alone.evaluate(rows)))
            spent["games"].append(timed(lambda: alone.evaluate(games)))
        lookup, offs, played = (statistics.median(spent[k]) * 1e4 for k in spent)
        print(f"{game}: the lookup alone {lookup:.1f} ns a row; the float network "
              f"{offs:.1f} ns on those rows ({lookup / offs:.2f}x), {played:.1f} ns on "
              f"random games' positions ({lookup / played:.2f}x)")
    rng = np.random.default_rng(2)
    for game in ("long", "short"):
        found = positions(game, 30, 8, 3)
        rolls = [ALL_ROLLS[int(i)] for i in rng.integers(0, len(ALL_ROLLS), len(found))]
        for plies in (0, 1, 2):
            settings: Dict[str, Setting] = {
                "database": Setting(Evaluator.load(game), plies),
                "network": Setting(Evaluator.load(game, bearoff=False), plies)}
            spent: Dict[str, List[float]] = {name: [] for name in settings}
            for _ in range(args.rounds):
                for name, setting in settings.items():
                    spent[name].append(timed(lambda: [analysis.hint(p, roll, setting)
                                                      for p, roll in zip(found, rolls)]))
            medians: Tuple[float, ...] = tuple(statistics.median(spent[name])
                                               for name in settings)
            print(f"{game} hint at {plies} ply, 30 bear-offs (up to 8 checkers a side): "
                  f"database {medians[0] * 1e3 / 30:.2f} ms a hint, network alone "
                  f"{medians[1] * 1e3 / 30:.2f} ms: {medians[0] / medians[1]:.2f}x")


if __name__ == "__main__":
    main()
