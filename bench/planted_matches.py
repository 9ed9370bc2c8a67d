"""Matches with planted cube errors, for ``bench/analyse_gnubg.py``: the shipped short network
at 0 ply plays itself to ``--length`` points with the cube (``fastnardy.play.match``), white's
player reversing its own cube decision (offer or not, take or pass) at a share ``--rate`` of
the chances it has, seeded; each match is written as a GNU Backgammon ``.mat``.

    python bench/planted_matches.py --out /tmp/planted --matches 3 --rate 0.05
    python bench/analyse_gnubg.py --plies 2 /tmp/planted/*.mat
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, List, Optional, Sequence

import numpy as np
import numpy.typing as npt

from fastnardy import Rules
from fastnardy.formats.mat import match_games, write_mat
from fastnardy.play.match import Network, play_cube_matches
from fastnardy.play.players import Player, Rows
from fastnardy.search.network import Evaluator

# equities that make the harness offer or not and take or pass as asked: (offer, take)
_FORCED = {(True, True): (0.0, 1.0, 2.0), (True, False): (0.0, 2.0, 1.0),
           (False, True): (0.0, -2.0, -1.0), (False, False): (0.0, -1.0, -2.0)}


class Planted(Network):
    """A network that reverses its cube decision at a share ``rate`` of its chances."""

    def __init__(self, evaluator: Evaluator, rate: float, seed: int) -> None:
        super().__init__(evaluator, 0, "planted")
        self.rate, self.rng = rate, np.random.default_rng(seed)

    def cube_equities(self, rules: Rules, rows: Rows, cubes: Sequence[Any],
                      met: Any) -> Optional[npt.NDArray[np.float64]]:
        seen = super().cube_equities(rules, rows, cubes, met)
        assert seen is not None
        for i in np.flatnonzero(self.rng.random(len(seen)) < self.rate):
            offer = bool(seen[i, 1] >= seen[i, 0] and seen[i, 2] >= seen[i, 0])
            take = bool(seen[i, 1] <= seen[i, 2])
            seen[i] = _FORCED[(not offer, not take)]
        return seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--length", type=int, default=5)
    parser.add_argument("--rate", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    network = Evaluator.load("short")
    written: List[str] = []
    for k in range(args.matches):
        planted: Player = Planted(network, args.rate, args.seed + k)
        result = play_cube_matches(Rules.short(), planted, Network(network, 0), 2,
                                   args.length, args.seed + k, parallel=1)
        path = args.out / f"planted_{k + 1:02d}.mat"
        path.write_text(write_mat(match_games(result.first)))
        written.append(str(path))
    print("\n".join(written))


if __name__ == "__main__":
    main()
