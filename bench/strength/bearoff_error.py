"""What the two-sided bear-off database changes in checker play (issue 66), measured exactly:

    python bench/strength/bearoff_error.py [--checkers 10] [--positions 2000] [--seed 5]

Random bear-offs of each game (each side 1 to ``--checkers`` checkers on its home points, a
random roll with at least two legal turns): the equity the shipped network alone at 0 ply
(``Evaluator.load(game, bearoff=False)``) loses a move against the best turn, both valued by
the database of ``--checkers`` checkers (exact: cubeless, no mars left), and how often it
chooses a worse turn. With the database the evaluator's choice is the exact best (0). The
database is read from ``fastnardy.search.bearoff.folder()`` (``fastnardy bearoff-build
--checkers N``), or built in memory."""

from __future__ import annotations

import argparse

import numpy as np

from fastnardy import ALL_ROLLS, Position
from fastnardy.batch import encode
from fastnardy.search import bearoff
from fastnardy.search.network import Evaluator


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkers", type=int, default=10)
    parser.add_argument("--positions", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    path = bearoff.folder() / bearoff.file_name(args.checkers)
    database = bearoff.load(path) if path.is_file() else bearoff.shared(args.checkers)
    rng = np.random.default_rng(args.seed)

    def home() -> list:
        points = rng.integers(0, 6, size=int(rng.integers(1, args.checkers + 1)))
        return np.bincount(points, minlength=6).tolist() + [0] * 18

    for game in ("long", "short"):
        alone = Evaluator.load(game, bearoff=False)
        lost, wrong = [], 0
        while len(lost) < args.positions:
            legal = Position.from_points(game, home(), home()).legal_turns(
                ALL_ROLLS[int(rng.integers(0, len(ALL_ROLLS)))])
            if len(legal) < 2:
                continue
            rows = encode([turn.position for turn in legal])
            over = np.array([turn.position.outcome() is not None for turn in legal])
            exact, chosen = np.ones(len(rows)), np.ones(len(rows))  # bearing off the last: +1
            if (~over).any():
                exact[~over] = 1.0 - 2.0 * database.values(rows[~over])[0]
                chosen[~over] = -alone.evaluate(rows[~over])
            lost.append(exact.max() - exact[int(np.argmax(chosen))])
            wrong += lost[-1] > 1e-9
        print(f"{game}: {args.positions:,} bear-offs of 1 to {args.checkers} checkers a side: "
              f"the network alone at 0 ply loses {1000 * np.mean(lost):.2f} thousandths of a "
              f"point a move (exact), a worse turn in {wrong}; with the database 0")


if __name__ == "__main__":
    main()
