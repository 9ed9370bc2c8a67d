"""Self-play figures for the README: games per second on one core (thread CPU time, median
of 3) and the statistics of random and greedy play, greedy against random included.

    python bench/speed/selfplay_stats.py [--games 20000] [--seed 1]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from fastnardy import Rules, simulate


def games_per_second(rules: Rules, policy: str, games: int, seed: int) -> float:
    times = []
    for _ in range(3):
        start = time.thread_time()
        simulate(rules, games, seed=seed, policy=policy)
        times.append(time.thread_time() - start)
    return games / statistics.median(times)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    print("| game | white | black | games/s (one core) | mean turns | white wins | oin | mars "
          "| koks | backgammon |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for rules in (Rules.long(scoring="oin_mars_koks"), Rules.short()):
        for white, black in (("random", "random"), ("greedy", "greedy"), ("greedy", "random"),
                             ("random", "greedy")):
            run = simulate(rules, args.games, seed=args.seed, policy=(white, black))
            s = run.summary()
            speed = (f"{games_per_second(rules, white, args.games, args.seed):,.0f}"
                     if white == black else "")
            print(f"| {rules.game} | {white} | {black} | {speed} | {s['mean turns']:.1f} "
                  f"| {s['white wins']:.1%} | {s['oin']:.1%} | {s['mars']:.1%} | {s['koks']:.1%} "
                  f"| {s['backgammon']:.1%} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
