"""Players' errors on the shipped benchmark sets of checker play (issue 39): per class, the
equity a player's turn loses against the best rolled-out candidate, in thousandths of a
point a move (:func:`fastnardy.analysis.benchmarks.errors`), with the CPU seconds each spent
choosing (for GNU Backgammon, its processes'). The same table as ``fastnardy
benchmark-error`` row by row.

    python bench/strength/benchmark_errors.py [--game long|short|both] [--players SETTING ...]

A player is an evaluation setting (:mod:`fastnardy.search.setting`). The default rows:
random, greedy, the shipped network at 0 ply (``net:0``) and at 1 ply searching every turn
(``net:1:full``, full width; ``net:1`` would screen them with GNU Backgammon's filters),
and in short nardy GNU Backgammon's own move at 0, 1 and 2 plies (``gnubg:expert[:P]``,
with its own move filters).
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
from pathlib import Path

from fastnardy.analysis.benchmarks import CLASSES, errors
from fastnardy.play.gnubg import GNUBG

PLAYERS = {"long": ["random", "greedy", "net:0", "net:1:full"],
           "short": ["random", "greedy", "net:0", "net:1:full", "gnubg:expert",
                     "gnubg:expert:1", "gnubg:expert:2"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=("long", "short", "both"), default="both")
    parser.add_argument("--players", nargs="*", default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    has_gnubg = shutil.which("gnubg") is not None or Path(GNUBG).exists()
    rows = []
    for game in (("long", "short") if args.game == "both" else (args.game,)):
        for spec in args.players or PLAYERS[game]:
            if spec.startswith("gnubg") and not has_gnubg:
                print(f"{spec}: GNU Backgammon is not installed, skipped")
                continue
            score = errors(spec, game)
            rows.append(score.as_dict())
            if not args.json:
                spread = score.standard_errors or {}
                cells = "  ".join(
                    f"{kind} {'-' if math.isnan(e) else f'{e:6.1f}'}"
                    + ("" if math.isnan(spread.get(kind, math.nan))
                       else f" +- {1.96 * spread[kind]:4.1f}")
                    + (f" ({o} out)" if o else "") for kind, (_, e, o) in score.classes.items())
                print(f"{game:5} {spec:14} {cells}   {score.cpu_seconds:7.1f} CPU s", flush=True)
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        print("errors: thousandths of a point a move; classes:",
              "; ".join(f"{g}: {', '.join(c)}" for g, c in CLASSES.items()))


if __name__ == "__main__":
    main()
