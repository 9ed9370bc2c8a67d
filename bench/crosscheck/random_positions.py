"""Cross-check an engine at depth 1 on positions of seeded random games (short nardy by
default): the README's OpenSpiel finding.

    python bench/crosscheck/random_positions.py "python bench/crosscheck/openspiel_engine.py" \\
        --seed 1 --positions 300 --stop 0.05

Each game is played from the start with random rolls and random legal turns and stopped after
each turn with probability STOP (0.05 stops early, 0.01 reaches races and bear-offs); the
position it stops at is checked for the 21 rolls. Prints the differences, one per kind.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from typing import Dict, List, Tuple

from fastnardy import Position, crosscheck as xc


def positions(game: str, count: int, stop: float, seed: int) -> List[Position]:
    rng = random.Random(seed)
    found: List[Position] = []
    while len(found) < count:
        position = Position.start(game)
        while not position.is_game_over():
            roll = (rng.randint(1, 6), rng.randint(1, 6))
            position = rng.choice(position.legal_turns(roll)).position
            if rng.random() < stop:
                found.append(position)
                break
    return found


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("engine")
    parser.add_argument("--game", choices=("long", "short"), default="short")
    parser.add_argument("--format", choices=xc.FORMATS, default=None)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--stop", type=float, default=0.05)
    args = parser.parse_args(argv)
    fmt = args.format or ("gnubg" if args.game == "short" else "string")
    start = time.perf_counter()
    kinds: Dict[Tuple[object, ...], xc.Difference] = {}
    checked = positions(args.game, args.positions, args.stop, args.seed)
    with xc.ProcessEngine(args.engine, fmt) as engine:
        for position in checked:
            found = xc.crosscheck(engine, position, 1)
            if found is not None:
                kind = (tuple(sorted({e.rule for e in found.extra})), bool(found.missing),
                        bool(found.duplicates))
                kinds.setdefault(kind, found)
    print(f"{len(checked)} positions, {engine.requests} position-rolls, "
          f"{len(kinds)} kinds of difference, {time.perf_counter() - start:.1f} s")
    for found in kinds.values():
        print(found.report(), end="\n\n")
    return 1 if kinds else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
