"""A 1-ply (or 2-ply) expectimax player against the same evaluator at 0 ply, on the batch
API: ``fastnardy.search.tree.best_turn`` values every candidate turn with one kernel call for the
chance node of all the candidates and ONE evaluator call per level of the tree.

    python examples/expectimax_player.py [--game short] [--games 10] [--plies 1] [--seed 1]

The evaluator is the user's: a linear function of the ``raw`` features (checker counts /15,
mover's view), the pip race plus a penalty for blots in short nardy. At 2 ply a move filter
(GNU Backgammon's idea) keeps the search affordable.
"""

from __future__ import annotations

import argparse
from typing import Optional, Sequence

import numpy as np

from fastnardy import Position, Rules
from fastnardy.search.tree import MoveFilter, best_turn, evaluator


def make_evaluator(rules: Rules):
    """A linear evaluator on raw features (52 columns: the mover's 24 points and bar, the
    opponent's, borne off): a tenth of the pip lead, minus a blot penalty in short nardy."""
    pips = np.arange(1, 25, dtype=np.float32) * 15  # a column is count / 15
    weights = np.zeros(52, dtype=np.float32)
    weights[:24] = -pips / 10
    weights[24] = -25 * 15 / 10
    weights[25:49] = pips / 10
    weights[49] = 25 * 15 / 10
    blots = rules.game == "short"

    def value(x: np.ndarray) -> np.ndarray:
        v = x @ weights / 50
        if blots:
            v -= 0.05 * (np.abs(x[:, :24] - 1 / 15) < 1e-6).sum(axis=1)
        return v

    return evaluator(value, ("features", "raw"))


def play(rules: Rules, plies: int, rng: np.random.Generator, evaluate,
         max_turns: int = 2000) -> int:
    """One game, white the expectimax player at ``plies``, black at 0 ply: white's points
    (negative when black won)."""
    white, black = rng.integers(1, 7, 2)
    while white == black:
        white, black = rng.integers(1, 7, 2)
    position, dice = Position.opening(rules, int(white), int(black))
    filter = MoveFilter(4, 0.2) if plies == 2 else None
    for _ in range(max_turns):
        if dice is None:
            dice = tuple(int(d) for d in rng.integers(1, 7, 2))
        depth = plies if position.turn == "white" else 0
        found = best_turn(position, dice, evaluate, plies=depth, filter=filter)
        position = position.play(found.turn)
        dice = None
        outcome = position.outcome()
        if outcome is not None:
            return outcome.points if outcome.winner == "white" else -outcome.points
    return 0


def main(argv: Optional[Sequence[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="short", choices=["long", "short"])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--plies", type=int, default=1, choices=[1, 2])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rules = Rules.of(args.game)
    evaluate = make_evaluator(rules)
    rng = np.random.default_rng(args.seed)
    points = [play(rules, args.plies, rng, evaluate) for _ in range(args.games)]
    wins = sum(p > 0 for p in points)
    print(f"{args.game} nardy, {args.plies}-ply against 0-ply: {wins}/{args.games} games won, "
          f"{np.mean(points):+.2f} points a game")


if __name__ == "__main__":
    main()
