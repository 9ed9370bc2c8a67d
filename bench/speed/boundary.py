"""The boundary between fastnardy and a search or learning program, at kernel speed
(issue 15): ``features`` against numpy filling an array of the same shape, and
``batch.encode`` / ``batch.decode`` per position.

    python bench/speed/boundary.py [--rounds 9]

Positions: the 2,000 GNU Backgammon positions shipped in fastnardy/data (short nardy) and the positions
of random long-nardy games (the kernel's self-play is not needed: random children of
``batch.expand``). Thread CPU time (``time.thread_time``), the contenders interleaved round
by round, the median per contender. Prints µs a row and the ratio features / ``np.full``
(the goal is at most 3) per kind and game; then ``Game.play`` + ``undo`` of a Turn taken from
the game's ``legal_turns`` (no referee call) against an equal Turn built by hand (refereed).
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Callable, Dict, List

import numpy as np

from fastnardy import Game, Position, Turn, batch, features
from fastnardy.testing.speed import gnubg_positions

GAME_KINDS = {"short": ("tdgammon", "raw"), "long": ("nardy", "raw")}


def gnubg_rows() -> np.ndarray:
    """The 2,000 wildbg benchmark positions as board rows, mover's view."""
    return batch.encode(gnubg_positions())


def random_play_rows(game: str, games: int, turns: int, seed: int) -> np.ndarray:
    """The positions of ``games`` random games (restarted when over), ``turns`` turns each."""
    rng = np.random.default_rng(seed)
    start = batch.encode([Position.start(game)])
    rows = np.repeat(start, games, axis=0)
    seen = [rows]
    for _ in range(turns):
        children, parent = batch.expand(game, rows, rng.integers(1, 7, size=(games, 2)))
        counts = np.bincount(parent, minlength=games)
        first = np.concatenate([[0], np.cumsum(counts)[:-1]])
        pick = first + (rng.random(games) * np.maximum(counts, 1)).astype(np.int64)
        rows = np.where((counts > 0)[:, None], children[np.minimum(pick, len(children) - 1)],
                        start)
        seen.append(rows)
    return np.concatenate(seen)


def race(contenders: Dict[str, Callable[[], object]], rounds: int) -> Dict[str, float]:
    """Median thread CPU seconds of each contender, run interleaved round by round."""
    times: Dict[str, List[float]] = {name: [] for name in contenders}
    for _ in range(rounds):
        for name, run in contenders.items():
            start = time.thread_time()
            run()
            times[name].append(time.thread_time() - start)
    return {name: statistics.median(spent) for name, spent in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    boards = {"short": gnubg_rows(), "long": random_play_rows("long", 100, 200, seed=1)}
    print(f"features: µs a row (median of {args.rounds} interleaved rounds, thread CPU time)")
    print(f"{'game':6} {'kind':9} {'rows':>6} {'from':5} {'features':>9} {'np.full':>8} "
          f"{'ratio':>6}")
    for game, rows in boards.items():
        n = len(rows)
        keys = batch.encode(batch.decode(game, rows), keys=True)
        for kind in GAME_KINDS[game]:
            width = features(game, rows[:1], kind).shape[1]
            for source, given in (("rows", rows), ("keys", keys)):
                timed = race({
                    "features": lambda: features(game, given, kind),
                    "full": lambda: np.full((n, width), 0.5, dtype=np.float32),
                }, args.rounds)
                print(f"{game:6} {kind:9} {n:6} {source:5} {1e6 * timed['features'] / n:9.3f} "
                      f"{1e6 * timed['full'] / n:8.3f} {timed['features'] / timed['full']:6.2f}")
    print(f"\nencode/decode: µs a position (median of {args.rounds} interleaved rounds)")
    for game, rows in boards.items():
        positions = batch.decode(game, rows)
        keys = batch.encode(positions, keys=True)
        timed = race({
            "encode rows": lambda: batch.encode(positions),
            "encode keys": lambda: batch.encode(positions, keys=True),
            "decode rows": lambda: batch.decode(game, rows),
            "decode keys": lambda: batch.decode(game, keys),
        }, args.rounds)
        print(f"{game:6} " + "  ".join(f"{name} {1e6 * spent / len(rows):.3f}"
                                       for name, spent in timed.items()))
    print(f"\nGame.play + undo: µs a turn (median of {args.rounds} interleaved rounds)")
    for game_name in ("long", "short"):
        game = Game(game_name, seed=1)
        own = game.legal_turns()[0]
        hand_built = Turn(own.steps, own.position)

        def play_undo(turn: Turn, times: int) -> None:
            for _ in range(times):
                game.play(turn)
                game.undo()

        timed = race({"own": lambda: play_undo(own, 2000),
                      "hand-built": lambda: play_undo(hand_built, 20)}, args.rounds)
        print(f"{game_name:6} own Turn {1e6 * timed['own'] / 2000:.3f}  hand-built Turn "
              f"(refereed) {1e6 * timed['hand-built'] / 20:.1f}")


if __name__ == "__main__":
    main()
