"""Strength of fastnardy's trained evaluators: seeded matches, 95% intervals, points a game.

    python bench/strength/strength.py --game short --a net:0 --b greedy --games 2000
    python bench/strength/strength.py --game short --a net:1 --b gnubg:expert --games 2000
    python bench/strength/strength.py --suite            # every match of issue 16, both games

The harness is :mod:`fastnardy.play.duel` (the ``fastnardy match`` command): its docstring
describes the paired seeded games and the 95% intervals; the players are evaluation settings
made by :func:`fastnardy.play.players.player` (random, greedy, net:P with GNU Backgammon's
move filters at 1 ply or more, a saved FILE.npz[:P], gnubg:beginner / gnubg:expert[:P]).
This script adds ``--suite``, every match of issue 16; ``--weights`` replaces the shipped
evaluator of the game it is for (``net:P`` becomes ``FILE.npz:P``). One JSON line a match:
:meth:`fastnardy.play.duel.Duel.as_dict`.
"""

from __future__ import annotations

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
from typing import Dict, List, Optional  # noqa: E402

from fastnardy.search.network import Evaluator  # noqa: E402
from fastnardy.search.setting import Setting, setting  # noqa: E402
# the harness lives in the package (``fastnardy match``); its names are re-exported here
from fastnardy.play.duel import (Duel, Interval, Result, dice_tables,  # noqa: E402,F401
                                 duel, interval, play_games)
from fastnardy.play.gnubg import Gnubg  # noqa: E402,F401
from fastnardy.play.players import (GnubgPlayer, Greedy, Player,  # noqa: E402,F401
                                    Random, Searcher, greedy_scores, player)


def with_weights(spec: str, weights: Optional[str]) -> Setting:
    """The setting ``spec`` names, its shipped network (``net``) replaced by ``weights`` (a
    FILE.npz, named so in the output; any other file read here)."""
    chosen = setting(spec)
    if weights is not None and chosen.evaluator == "net":
        chosen = chosen.replace(evaluator=weights if weights.endswith(".npz")
                                else Evaluator.load(weights, chosen.precision))
    return chosen


def run(game: str, a_spec: str, b_spec: str, games: int, seed: int,
        weights: Optional[str], parallel: int) -> Dict[str, object]:
    if weights is not None and Evaluator.load(weights).game != game:  # --suite: one game's
        weights = None
    return duel(game, with_weights(a_spec, weights), with_weights(b_spec, weights), games,
                seed, parallel=parallel).as_dict()


SUITE = [("short", "net:0", "random"), ("short", "net:0", "greedy"),
         ("short", "net:1", "net:0"), ("short", "net:0", "gnubg:beginner"),
         ("short", "net:0", "gnubg:expert"), ("short", "net:1", "gnubg:expert"),
         ("long", "net:0", "random"), ("long", "net:0", "greedy"), ("long", "net:1", "net:0")]


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=("long", "short"))
    parser.add_argument("--a", default="net:0")
    parser.add_argument("--b", default="greedy")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--weights", help="an Evaluator .npz (default: the shipped one)")
    parser.add_argument("--parallel", type=int, default=200)
    parser.add_argument("--suite", action="store_true", help="every match of issue 16")
    args = parser.parse_args(argv)
    if args.games < 2 or args.games % 2:
        parser.error("--games must be even (pairs of games with the same dice)")
    matches = SUITE if args.suite else [(args.game or "short", args.a, args.b)]
    for game, a_spec, b_spec in matches:
        print(json.dumps(run(game, a_spec, b_spec, args.games, args.seed, args.weights,
                             args.parallel)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
