"""``crosscheck``: another engine's turns and counts against fastnardy's, the differences
explained rule by rule."""

from __future__ import annotations

import argparse
from typing import List

from typing import TYPE_CHECKING

from ..errors import FastNardyError

if TYPE_CHECKING:
    from ..position import Position

from .options import (EXIT_ILLEGAL, Parser, add_json, add_position, at_least, positive_arg,
                      print_json, read_position, seconds_arg)

# the command line's parts; its API is fastnardy.cli's main and build_parser
__all__: List[str] = []

SHOWN = 3  # a difference's turns of each kind in the text (--json has every one)


def add_crosscheck(sub: "argparse._SubParsersAction[Parser]") -> None:
    p_cross = sub.add_parser(
        "crosscheck", help="compare another engine's divide with fastnardy's (a perftree)",
        description="Run ENGINE through fastnardy.engines.crosscheck's line protocol "
                    "('divide DEPTH ROLL POSITION' on its stdin, 'COUNT CHILD' lines and 'end' "
                    "back), compare its children with fastnardy's by position (T1) and walk "
                    "down to the first position and roll where they differ: a one-line "
                    "summary, the path from the root, the missing turns with the rule each "
                    "depends on and the extra turns with the rule each breaks (the first "
                    f"{SHOWN} of each kind; --json lists every one). Exit 0 when they agree, "
                    "1 on a difference, 2 on bad input or an "
                    "engine failure. Adapters: python -m fastnardy.engines.NAME (reference, "
                    "openspiel, gnubg, bgsage). ENGINE ubgi:COMMAND is a UBGI v0.2 engine: "
                    "its bestmove for every roll of each position to DEPTH - 1 plies (or of "
                    "--random N positions) is read by the referee, the first illegal one "
                    "named with its rule.")
    p_cross.add_argument("engine", metavar="ENGINE",
                         help="the engine's command, one argument ('./engine --flag')")
    add_position(p_cross)
    p_cross.add_argument("depth", type=positive_arg, metavar="DEPTH", help="plies to compare")
    p_cross.add_argument("--movegen", action="store_true",
                         help="ask the engine only 'divide 1' (its children) and walk deeper "
                              "here: any move generator, at any depth")
    p_cross.add_argument("--random", type=positive_arg, metavar="N", default=None,
                         help="check N positions of seeded random games from POSITION "
                              "instead of POSITION itself")
    p_cross.add_argument("--seed", type=at_least(0), default=1, metavar="S",
                         help="the random games' seed (default 1)")
    p_cross.add_argument("--one-shot", action="store_true",
                         help="run 'ENGINE DEPTH ROLL POSITION' once per request instead of "
                              "one long-running process")
    p_cross.add_argument("--format", choices=("string", "gnubg"), default=None,
                         help="how positions are sent: GNU Backgammon Position IDs (default "
                              "for standard backgammon; they cannot carry a rule variant) or "
                              "position strings (default otherwise)")
    p_cross.add_argument("--timeout", type=seconds_arg, default=60.0, metavar="S",
                         help="seconds each answer may take, from its request to its last "
                              "line (default 60)")
    add_json(p_cross)
    p_cross.set_defaults(run=_run_crosscheck)


def _run_crosscheck(args: argparse.Namespace) -> int:
    from ..engines import crosscheck

    position = read_position(args)
    if args.engine.startswith("ubgi:"):
        return _run_ubgi_check(args, position)
    fmt = args.format or crosscheck.default_format(position.rules)
    kind = crosscheck.OneShotEngine if args.one_shot else crosscheck.ProcessEngine
    if args.timeout <= 0:
        raise FastNardyError("--timeout must be more than 0 seconds")
    checked = [position] if args.random is None else \
        crosscheck.random_positions(position, args.random, args.seed)
    difference, count = None, 0
    with kind(args.engine, fmt, args.timeout) as engine:
        for count, start in enumerate(checked, 1):
            difference = crosscheck.crosscheck(engine, start, args.depth,
                                               movegen=args.movegen)
            if difference is not None:
                break
    where = position.to_string() if args.random is None else \
        f"{count} positions of random games from {position.to_string()} (seed {args.seed})"
    if args.json:
        print_json({"engine": args.engine, "position": position.to_string(),
                    "depth": args.depth, "format": fmt, "movegen": args.movegen,
                    "random": args.random, "seed": args.seed, "positions": count,
                    "requests": engine.requests, "agree": difference is None,
                    "difference": None if difference is None else difference.as_dict()})
    elif difference is None:
        print(f"agree: {engine.requests} requests, every roll to depth {args.depth} from "
              f"{where}")

    else:
        if args.random is not None:
            print(f"position {count} of the random games (seed {args.seed}):")
        print(difference.report(SHOWN))
    return 0 if difference is None else EXIT_ILLEGAL


def _run_ubgi_check(args: argparse.Namespace, position: "Position") -> int:
    """A UBGI engine (``ubgi:COMMAND``): its bestmove for every roll of each position to
    DEPTH - 1 plies (or of --random N positions) read by the referee (fastnardy.engines.
    ubgi.check_moves); exit 0 when every move is legal, 1 on the first illegal one."""
    from ..engines import crosscheck, ubgi
    from ..notation import format_rules
    from ..rules import Rules

    if args.movegen or args.one_shot or args.format is not None:
        raise FastNardyError("--movegen, --one-shot and --format are the divide protocol's; "
                             "a UBGI engine is asked its bestmove")
    checked = list(ubgi.positions_to(position, args.depth)) if args.random is None else \
        list(crosscheck.random_positions(position, args.random, args.seed))
    variant = "backgammon" if position.rules == Rules.short() else format_rules(position.rules)
    with ubgi.UbgiEngine(args.engine[len("ubgi:"):], args.timeout) as engine:
        engine.ask(["ubgi"], ("ubgiok",))
        engine.ask([f"set game.variant {variant}", "isready"], ("readyok",))
        illegal = ubgi.check_moves(engine, checked)
    if args.json:
        print_json({"engine": args.engine, "position": position.to_string(),
                    "depth": args.depth, "random": args.random, "seed": args.seed,
                    "positions": len(checked), "requests": engine.requests,
                    "agree": illegal is None,
                    "illegal": None if illegal is None else illegal.as_dict()})
    elif illegal is None:
        print(f"agree: {engine.requests} requests, a legal move for every roll of "
              f"{len(checked)} positions")
    else:
        print(illegal.report())
    return 0 if illegal is None else EXIT_ILLEGAL
