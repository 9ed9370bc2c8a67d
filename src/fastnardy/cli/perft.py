"""``perft`` (T5 counts, divided, checkpointed, on threads or a Dask cluster) and ``bench``
(the installed copy's timings)."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Callable, Dict, List, Optional, Tuple

from .. import __version__
from ..counting import perft, perft_divide
from ..position import Position
from .. import backend as _backend
from ..counting import PerftProgress
from ..errors import FastNardyError
from ..notation import format_roll
from ..rules import LONG, SHORT

from .options import (Parser, add_backend, add_dask, add_json, add_position, dask_executor,
                      depth_arg, eta, positive_arg, print_json, read_position, roll_arg,
                      seconds_arg)

# the command line's parts; its API is fastnardy.cli's main and build_parser
__all__: List[str] = []


# perft refuses deeper counts without --force: on one core long perft(8) (about 10**15
# nodes at 3*10**7 a second) and short perft(6) (about 2*10**16 at 9*10**7) take a year or
# more, while long perft(7) and short perft(5) take a few days.
UNFORCED_DEPTH = {LONG: 7, SHORT: 5}  # a soft limit per game; the hard one is basics.MAX_DEPTH


def add_perft(sub: "argparse._SubParsersAction[Parser]") -> None:
    p_perft = sub.add_parser("perft", help="T5 perft: count the positions DEPTH turns ahead",
                             description="T5 perft for depths 1..DEPTH (or only DEPTH), with "
                                         "the time each count took.")
    add_position(p_perft)
    p_perft.add_argument("depth", type=depth_arg, metavar="DEPTH",
                         help=f"turns to look ahead, 0 or more (more than "
                              f"{UNFORCED_DEPTH[LONG]} for long or {UNFORCED_DEPTH[SHORT]} for "
                              f"short nardy needs --force)")
    p_perft.add_argument("--weighted", action="store_true",
                         help="count each non-double twice (36 outcomes, not 21 rolls)")
    p_perft.add_argument("--divide", action="store_true",
                         help="split the DEPTH count by roll and first turn, with each "
                              "turn's position (the child other engines can match)")
    p_perft.add_argument("--roll", type=roll_arg, metavar="ROLL", default=None,
                         help="count only this first roll, '6-5' (DEPTH 1 or more)")
    p_perft.add_argument("--only", action="store_true", help="only DEPTH, not 1..DEPTH")
    p_perft.add_argument("--force", action="store_true",
                         help="count past the depth limit (the deepest counts that finish "
                              "within days on one core)")
    add_json(p_perft)
    counting = p_perft.add_argument_group("counting")
    add_backend(counting)
    counting.add_argument("--workers", type=positive_arg, metavar="N",
                          help="split the tree into subtasks on N threads (the kernel runs "
                               "without the GIL, so N cores)")
    add_dask(counting, "subtasks")
    counting.add_argument("--tt-mb", type=positive_arg, metavar="MB", dest="tt_mb",
                          help="an exact transposition table of MB megabytes, shared by "
                               "the count's threads (one a process on --dask or a pool); the "
                               "hit rate is reported")
    counting.add_argument("--checkpoint", metavar="FILE",
                          help="keep the finished subtasks of the DEPTH count in FILE, so that "
                               "a run interrupted (Ctrl-C) or killed resumes where it stopped "
                               "when started again with the same FILE")
    counting.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                          help="a progress line over the subtasks on stderr (default: when "
                               "stderr is a terminal)")
    p_perft.set_defaults(run=_run_perft)


def add_bench(sub: "argparse._SubParsersAction[Parser]") -> None:
    p_bench = sub.add_parser(
        "bench", help="time every level of the installed copy: children, counts, perft, "
                      "self-play",
        description="Time every level of the installed copy in thread CPU time: batch.expand "
                    "(keys, rows), batch.chance_expand, list(legal_turns), batch.count_turns, "
                    "one _kernel.count_turns call each, len(legal_turns), perft from the "
                    "start and random self-play; short nardy on the 2,000 GNU Backgammon "
                    "benchmark positions, long nardy on seeded random playouts. "
                    "bench/speed/peers.py in the source tree times wildbg, bkgm, bgsage and "
                    "OpenSpiel beside the same levels.")
    p_bench.add_argument("--seconds", type=seconds_arg, default=0.5, metavar="S",
                         help="repeat each measurement for at least S seconds and report the "
                              "best round (default 0.5; 0 measures once)")
    add_json(p_bench)
    p_bench.set_defaults(run=_run_bench)


def _run_perft(args: argparse.Namespace) -> int:
    position = read_position(args)
    depth = args.depth
    if not isinstance(depth, int):  # argparse (3.11) gives [] for DEPTH after a second '--'
        raise FastNardyError("DEPTH is missing")
    game = position.rules.game
    if depth > UNFORCED_DEPTH[game] and not args.force:
        raise FastNardyError(f"perft depth {depth} would take a year or more: {game} nardy "
                             f"counts finish within days up to depth {UNFORCED_DEPTH[game]}; add "
                             f"--force to count it anyway")
    backend = args.backend or _backend.DEFAULT_BACKEND
    header: Dict[str, object] = {"position": position.to_string(), "weighted": args.weighted,
                                 "backend": backend}
    if args.roll is not None:
        if depth < 1:
            raise FastNardyError("--roll needs DEPTH 1 or more (the roll is the first ply)")
        if args.dask is not None:
            raise FastNardyError("--roll runs here (serial or --workers), not on --dask")
        header["roll"] = sorted(args.roll, reverse=True)
    if args.checkpoint is not None and (args.divide or args.roll is not None):
        raise FastNardyError("--checkpoint keeps a count's subtasks; --divide and --roll "
                             "have none")
    if args.divide:
        return _perft_divide(args, position, header)
    depths = [depth] if args.only or depth == 0 else list(range(1, depth + 1))
    if not args.json:
        roll = "" if args.roll is None else f"   roll {format_roll(args.roll)}"
        print(position.to_string() + roll, flush=True)
    results = []
    if args.workers is not None and args.dask is not None:
        raise FastNardyError("give --workers or --dask, not both")
    for each in depths:
        start = time.perf_counter()
        count, counted, note = _count(args, position, each,
                                      args.checkpoint if each == depth else None)
        seconds = time.perf_counter() - start
        rate = counted / seconds if seconds else 0.0
        results.append({"depth": each, "count": count, "seconds": round(seconds, 6),
                        "nodes_per_second": round(rate)})
        if not args.json:
            print(f"perft({each}) = {count:>15,}   {seconds:8.3f} s   "
                  f"{rate / 1e6:10,.1f} M nodes/s{note}", flush=True)
    if args.json:
        print_json({**header, "perft": results})
    return 0


def _count(args: argparse.Namespace, position: Position, depth: int,
           checkpoint: Optional[str]) -> Tuple[int, int, str]:
    """One perft count with the counting options, the nodes counted in this run (not read
    from the checkpoint: the rate's), and a note on the table's hit rate and the resumed
    nodes."""
    shown = args.progress if args.progress is not None else sys.stderr.isatty()
    last: List[PerftProgress] = []

    def progress(p: PerftProgress) -> None:
        last[:] = [p]
        if shown:
            rate = (p.nodes - p.resumed) / p.seconds if p.seconds else 0.0
            left = eta(p.seconds, p.done - p.resumed_subtasks, p.total - p.done)
            print(f"\r  perft({depth}): {p.done}/{p.total} subtrees, {p.nodes:,} nodes, "
                  f"{rate / 1e6:,.1f} M nodes/s, ETA {left:,.0f} s   ", end="", file=sys.stderr,
                  flush=True)

    if args.roll is not None:
        divide = perft_divide(position, depth, weighted=args.weighted, backend=args.backend,
                              workers=args.workers, tt_mb=args.tt_mb, rolls=[args.roll])
        count = sum(each for turns in divide.values() for _, each in turns)
    elif args.dask is not None:
        count = _count_on_dask(args, position, depth, progress, checkpoint)
    else:
        count = perft(position, depth, weighted=args.weighted, backend=args.backend,
                      workers=args.workers, tt_mb=args.tt_mb, progress=progress,
                      checkpoint=checkpoint)
    if shown and last and last[0].total > 1:
        print(file=sys.stderr)
    note = ""
    if args.tt_mb is not None and last and last[0].probes:
        note = f"   table hits {last[0].hits / last[0].probes:.1%}"
    resumed = last[0].resumed if last else count if checkpoint is not None else 0
    if resumed:
        note += f"   {resumed:,} nodes from the checkpoint"
    return count, count - resumed, note


def _count_on_dask(args: argparse.Namespace, position: Position, depth: int,
                   progress: "Callable[[PerftProgress], None]",
                   checkpoint: Optional[str]) -> int:
    with dask_executor(args.dask) as executor:
        return perft(position, depth, weighted=args.weighted, backend=args.backend,
                     executor=executor, tt_mb=args.tt_mb, progress=progress,
                     checkpoint=checkpoint)


def _perft_divide(args: argparse.Namespace, position: Position,
                  header: Dict[str, object]) -> int:
    """perft --divide: per roll (high die first) and first turn, the count below it and the
    turn's position, which another engine's divide can be matched on (T1)."""
    rolls = None if args.roll is None else [args.roll]
    divide = [(roll, turn, count)
              for roll, turns in sorted(perft_divide(
                  position, args.depth, weighted=args.weighted, backend=args.backend,
                  workers=args.workers, tt_mb=args.tt_mb, rolls=rolls).items(),
                  key=lambda item: sorted(item[0], reverse=True))
              for turn, count in turns]
    total = sum(count for _, _, count in divide)
    if args.json:
        print_json({**header, "depth": args.depth, "total": total,
                    "divide": [{"roll": sorted(roll, reverse=True), "turn": str(turn),
                                "count": count, "position": turn.position.to_string()}
                               for roll, turn, count in divide]})
        return 0
    for roll, turn, count in divide:
        print(f"{format_roll(roll)}  {str(turn):<32} {count:>12}  {turn.position.to_string()}")
    print(f"total {total}")
    return 0


def _run_bench(args: argparse.Namespace) -> int:
    from ..testing import speed

    timings = speed.measure(args.seconds)
    if args.json:
        print_json({"version": __version__, "python": sys.version.split()[0],
                    "timings": [timing.as_dict() for timing in timings]})
    else:
        print(speed.report(timings))

    return 0
