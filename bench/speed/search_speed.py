"""A 1-ply ``fastnardy.search.tree.best_turn`` against the sum of its parts timed alone (issue
15's goal: at most 1.5x), with a linear evaluator on features.

    python bench/speed/search_speed.py [--positions 200] [--rounds 5]

For each (position, roll): the parts are one ``batch.chance_expand`` of all the candidate
children (the children are made beforehand, outside the timing), ``features`` of the
resulting positions, and one evaluator call (a float32 matrix-vector product). Positions:
every k-th of the 2,000 GNU Backgammon positions of bench/data (short nardy, "tdgammon"
features), and positions of random long-nardy games ("nardy" features); the roll of position
i is ``ALL_ROLLS[i % 21]``. Thread CPU time, the two contenders interleaved round by round,
median over the rounds of the total over the positions.
"""

from __future__ import annotations

import argparse

import numpy as np

from boundary import gnubg_rows, race, random_play_rows

from fastnardy import ALL_ROLLS, batch, features
from fastnardy.search.tree import best_turn, evaluator


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(f"1-ply best_turn against its parts, thread CPU ms over {args.positions} positions "
          f"(median of {args.rounds} interleaved rounds)")
    for game, kind, rows in (("short", "tdgammon", gnubg_rows()),
                             ("long", "nardy", random_play_rows("long", 20, 100, seed=2))):
        rows = rows[np.linspace(0, len(rows) - 1, args.positions).astype(int)]
        positions = batch.decode(game, rows)
        rolls = [ALL_ROLLS[i % 21] for i in range(len(positions))]
        keep = [i for i, (p, roll) in enumerate(zip(positions, rolls)) if p.legal_turns(roll)]
        positions = [positions[i] for i in keep]
        rolls = [rolls[i] for i in keep]
        width = features(game, rows[:1], kind).shape[1]
        weights = np.random.default_rng(0).normal(0, 0.1, width).astype(np.float32)
        linear = evaluator(lambda inputs: inputs @ weights, ("features", kind))
        candidates = [batch.expand(game, batch.encode([p]), np.array([roll]))[0]
                      for p, roll in zip(positions, rolls)]
        grandchildren = [batch.chance_expand(game, c).children for c in candidates]
        inputs = [features(game, g, kind) for g in grandchildren]

        def search() -> None:
            for position, roll in zip(positions, rolls):
                best_turn(position, roll, linear, 1)

        def expand_part() -> None:
            for children in candidates:
                batch.chance_expand(game, children)

        def features_part() -> None:
            for children in grandchildren:
                features(game, children, kind)

        def evaluate_part() -> None:
            for batch_inputs in inputs:
                linear(batch_inputs)

        timed = race({"best_turn": search, "chance_expand": expand_part,
                      "features": features_part, "evaluate": evaluate_part}, args.rounds)
        parts = timed["chance_expand"] + timed["features"] + timed["evaluate"]
        leaves = sum(len(g) for g in grandchildren)
        print(f"{game:6} {kind:9} {len(positions)} positions, {leaves} leaves: best_turn "
              f"{1e3 * timed['best_turn']:.1f}, parts {1e3 * parts:.1f} (chance_expand "
              f"{1e3 * timed['chance_expand']:.1f}, features {1e3 * timed['features']:.1f}, "
              f"evaluate {1e3 * timed['evaluate']:.1f}): ratio {timed['best_turn'] / parts:.2f}")


if __name__ == "__main__":
    main()
