"""A rollout on a Dask cluster against the same rollout in one process (issue 39): the
games of ``rollout(position, games=N)`` played serially and on a ``LocalCluster`` of two
worker processes (one thread each), interleaved, several rounds. Checks that the two give
the same equities game for game, and reports per mode the median and min wall-clock seconds
(what a person waits: the cluster's speed-up is in wall-clock time), the CPU seconds of this
process and of the workers, and the speed-up serial / cluster.

    python bench/rollout_dask.py [--games N] [--rounds R] [--game short|long]
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Dict, List

import numpy as np

from fastnardy import Position
from fastnardy.analysis import rollout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--game", choices=("short", "long"), default="short")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    import distributed

    position = Position.start(args.game)
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
                moves = rollout(position, None, args.games, seed=args.seed,
                                executor=client if mode == "dask" else None)
                wall = time.perf_counter() - wall
                spent = time.process_time() - cpu + sum(
                    end - workers[w] for w, end in client.run(time.process_time).items())
                walls[mode].append(wall)
                cpus[mode].append(spent)
                if reference is None:
                    reference = moves[0].equities
                assert np.array_equal(moves[0].equities, reference), mode
                print(f"round {round_ + 1} {mode:6}: {wall:7.2f} s wall, {spent:7.2f} s CPU, "
                      f"equity {moves[0].mean:+.4f} +- {1.96 * moves[0].stderr:.4f}",
                      flush=True)
    print(f"\n{args.games:,} games of {args.game} nardy from the start, 0 ply, seed "
          f"{args.seed}; the two modes gave the same {args.games:,} equities")
    for mode in walls:
        print(f"  {mode:6}: wall median {statistics.median(walls[mode]):7.2f} s, min "
              f"{min(walls[mode]):7.2f} s; CPU median {statistics.median(cpus[mode]):7.2f} s")
    print(f"  speed-up (serial / 2-worker cluster, median wall): "
          f"{statistics.median(walls['serial']) / statistics.median(walls['dask']):.2f}x")


if __name__ == "__main__":
    main()
