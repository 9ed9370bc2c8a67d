"""Rebuild ``src/fastnardy/data/met.json``: the rates of mars and koks that fastnardy's match
equity tables (:func:`fastnardy.search.cubeful.model_met`) are made from, measured in
self-play of each game's shipped network at 0 ply (the kernel's self-play, hashed dice:
the same numbers on every machine), and report the short table's distance to GNU
Backgammon's Kazaross-XG2 when Debian's ``gnubg-data`` is installed.

    python bench/strength/match_equity.py --games 20000 --seed 1
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from fastnardy.search.cubeful import model_met
from fastnardy.search.met import read_met
from fastnardy.search.network import Evaluator
from fastnardy.search.selfplay import KINDS, simulate

OUT = Path(__file__).parents[2] / "src" / "fastnardy" / "data" / "met.json"
KAZAROSS = Path("/usr/share/gnubg/met/Kazaross-XG2.xml")


def rates(game: str, games: int, seed: int) -> dict:
    started = time.process_time()
    played = simulate(game, games, seed, Evaluator.load(game))
    done = played.winner >= 0
    kinds = [KINDS[k] for k in played.kind[done]]
    points = played.points[done]
    mars = float(np.mean(points == 2))
    koks = float(np.mean(points >= 3))
    return {"mars": round(mars, 4), "koks": round(koks, 4), "games": int(done.sum()),
            "seed": seed, "kinds": sorted(set(kinds)),
            "cpu_seconds": round(time.process_time() - started, 1),
            "command": f"python bench/strength/match_equity.py --games {games} --seed {seed}",
            "efficiency": 0.68, "length": 64}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    table = {game: rates(game, args.games, args.seed) for game in ("short", "long")}
    OUT.write_text(json.dumps(table, indent=1) + "\n")
    for game, entry in table.items():
        print(game, {k: entry[k] for k in ("mars", "koks", "games", "cpu_seconds")})
    if KAZAROSS.exists():
        ours = model_met(table["short"]["mars"], table["short"]["koks"], 25)
        judge = read_met(KAZAROSS)
        gap = np.abs(ours.pre - judge.pre)
        print(f"short against Kazaross-XG2 (25 away): pre-Crawford max {gap.max():.4f} "
              f"mean {gap.mean():.4f}; to 11 away max {gap[:11, :11].max():.4f}; "
              f"post-Crawford max {np.abs(ours.post - judge.post).max():.4f}")


if __name__ == "__main__":
    main()
