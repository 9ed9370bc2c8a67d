"""Matches with planted cube errors, for ``bench/strength/analyse_gnubg.py``: the shipped short network
at 0 ply (``net:0``) plays itself to ``--length`` points with the cube
(:func:`fastnardy.play.duel.play_cube_matches`), white's player (named ``planted``)
reversing its own cube decision (offer or not, take or pass) at a share ``--rate`` of the
chances it has, seeded; each match is written as a GNU Backgammon ``.mat``.

    python bench/strength/planted_matches.py --out /tmp/planted --matches 3 --rate 0.05
    python bench/strength/analyse_gnubg.py --plies 2 /tmp/planted/*.mat
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, List, Optional, Sequence

import numpy as np
import numpy.typing as npt

from fastnardy import Rules
from fastnardy.formats.mat import match_games, write_mat
from fastnardy.play.duel import play_cube_matches
from fastnardy.play.players import Player, Searcher, player

# equities that make the harness offer or not and take or pass as asked: (offer, take)
_FORCED = {(True, True): (0.0, 1.0, 2.0), (True, False): (0.0, 2.0, 1.0),
           (False, True): (0.0, -2.0, -1.0), (False, False): (0.0, -1.0, -2.0)}


class Planted(Searcher):
    """The shipped network at 0 ply (``net:0``) that reverses its cube decision at a share
    ``rate`` of its chances; named ``planted`` in the match files."""

    def __init__(self, rate: float, seed: int) -> None:
        super().__init__("net:0", Rules.short())
        self.rate, self.rng = rate, np.random.default_rng(seed)

    @property
    def name(self) -> str:
        return "planted"

    def cube_equities(self, rules: object, rows: npt.ArrayLike, cubes: Sequence[Any]
                      ) -> Optional[npt.NDArray[np.float64]]:
        seen = super().cube_equities(rules, rows, cubes)
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
    written: List[str] = []
    honest = player("net:0", Rules.short())
    for k in range(args.matches):
        planted: Player = Planted(args.rate, args.seed + k)
        result = play_cube_matches(Rules.short(), planted, honest, 2, args.length,
                                   args.seed + k, parallel=1)
        path = args.out / f"planted_{k + 1:02d}.mat"
        path.write_text(write_mat(match_games(result.first)))
        written.append(str(path))
    print("\n".join(written))


if __name__ == "__main__":
    main()
