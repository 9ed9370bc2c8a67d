"""A rollout, or a trainer's labels, on a Dask cluster against the same work in one process
(issue 39): the games of ``rollout(position, games=N)`` (``--job rollout``), or the labels
of N rows (``--job labels``: the shipped network at 1 ply, ``net:1``; ``--job gnubg``:
gnubg at 0 ply, ``gnubg:expert``, one process a worker;
:func:`fastnardy.training.labels.labels`), serially and on a
``LocalCluster`` of two worker processes (one thread each), interleaved, several rounds.
The rows are the positions of seeded games of random turns. Checks that
the two give the same numbers, and reports per mode the median and min wall-clock seconds
(what a person waits: the cluster's speed-up is in wall-clock time), the CPU seconds of this
process and of the workers (gnubg's own processes not counted), and the speed-up serial /
cluster.

    python bench/speed/rollout_dask.py [--job rollout|labels|gnubg] [--games N] [--rounds R]
        [--game short|long]
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Dict, List

import numpy as np

from fastnardy import Position, Rules
from fastnardy.analysis import rollout
from fastnardy.batch import ROW_WIDTH, encode, expand
from fastnardy.training.labels import labels

PARALLEL = 64  # games of random turns played at once for the rows


def _rows(game: str, count: int, seed: int) -> np.ndarray:
    """``count`` positions of seeded games of random turns (finished ones left out)."""
    rules, rng = Rules.of(game), np.random.default_rng(seed)
    start = encode([Position.start(game)] * PARALLEL)
    rows, kept = start.copy(), []
    while sum(map(len, kept)) < count:
        children, parent = expand(rules, rows, rng.integers(1, 7, (PARALLEL, 2)))
        offsets = np.searchsorted(parent, np.arange(PARALLEL + 1))
        rows = children[offsets[:-1] + (rng.random(PARALLEL) * np.diff(offsets)).astype(int)]
        over = rows[:, ROW_WIDTH // 2:].sum(axis=1) == 0  # the mover bore off its 15th (L9, S9)
        kept.append(rows[~over])
        rows[over] = start[over]
    return np.concatenate(kept)[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--job", choices=("rollout", "labels", "gnubg"), default="rollout")
    parser.add_argument("--games", type=int, default=10_000, help="games, or rows labelled")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--game", choices=("short", "long"), default="short")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    import distributed

    position = Position.start(args.game)
    rows = _rows(args.game, args.games, args.seed)

    def run(executor: object) -> np.ndarray:
        if args.job == "rollout":
            moves = rollout(position, None, args.games, seed=args.seed, executor=executor)
            return moves[0].equities
        teacher = "gnubg:expert" if args.job == "gnubg" else "net:1"
        return labels(args.game, rows, teacher, executor=executor)

    walls: Dict[str, List[float]] = {"serial": [], "dask": []}
    cpus: Dict[str, List[float]] = {"serial": [], "dask": []}
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        rollout(position, None, 2, executor=client)  # the workers are up, fastnardy imported
        reference = None
        for round_ in range(args.rounds):
            for mode in ("serial", "dask"):
                workers = client.run(time.process_time)
                cpu, wall = time.process_time(), time.perf_counter()
                numbers = run(client if mode == "dask" else None)
                wall = time.perf_counter() - wall
                spent = time.process_time() - cpu + sum(
                    end - workers[w] for w, end in client.run(time.process_time).items())
                walls[mode].append(wall)
                cpus[mode].append(spent)
                if reference is None:
                    reference = numbers
                assert np.array_equal(numbers, reference), mode
                print(f"round {round_ + 1} {mode:6}: {wall:7.2f} s wall, {spent:7.2f} s CPU, "
                      f"mean {numbers.mean():+.4f}", flush=True)
    what = {"rollout": f"{args.games:,} games of {args.game} nardy from the start, 0 ply",
            "labels": f"labels of {args.games:,} {args.game} rows, the shipped net at 1 ply",
            "gnubg": f"labels of {args.games:,} {args.game} rows, gnubg at 0 ply"}[args.job]
    print(f"\n{what}, seed {args.seed}; the two modes gave the same numbers")
    for mode in walls:
        print(f"  {mode:6}: wall median {statistics.median(walls[mode]):7.2f} s, min "
              f"{min(walls[mode]):7.2f} s; CPU median {statistics.median(cpus[mode]):7.2f} s")
    print(f"  speed-up (serial / 2-worker cluster, median wall): "
          f"{statistics.median(walls['serial']) / statistics.median(walls['dask']):.2f}x")


if __name__ == "__main__":
    main()
