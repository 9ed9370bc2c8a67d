"""Analysis as GNU Backgammon's users read it: ``hint``, ``eval``, ``rollout`` and
``analyse`` (with its HTML page)."""

from __future__ import annotations

import argparse
import contextlib
import math
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional

from .._utils import files as _files
from ..errors import FastNardyError, IllegalTurnError, InvalidDiceError, InvalidRecordError
from ..formats.games import iter_games
from ..notation import format_roll

from .options import (Parser, add_cube_options, add_dask, add_json, add_met, add_position,
                      add_progress, add_setting_options, at_least, conditions, dask_executor,
                      depth_arg, percent, positive_arg, print_json, progress_printer,
                      read_cube, read_dice, read_met_option, read_position, read_setting,
                      write_file)

if TYPE_CHECKING:
    from ..position import Position

# the command line's parts; its API is fastnardy.cli's main and build_parser
__all__: List[str] = []


def add_hint(sub: "argparse._SubParsersAction[Parser]") -> None:
    p_hint = sub.add_parser(
        "hint", help="the legal turns of a roll, best first, with equities and probabilities",
        description="Every legal turn of DICE, best first by its cubeful equity to the side to "
                    "move (normalised money equity in stakes, the opponent taking its proper "
                    "cube action after it; money play with a centred cube unless --match, "
                    "--score, --cube, --owner say otherwise; ties by the cubeless equity), "
                    "or by its cubeless equity with --cubeless, with the difference to the "
                    "best, the cubeless equity beside it and the network's probabilities of "
                    "the position after it (win, win by mars/gammon, by koks/backgammon, the "
                    "same lost). The same ranking as fastnardy.analysis.hint and as every "
                    "player of the setting.")
    add_position(p_hint)
    p_hint.add_argument("dice", nargs="*", metavar="DICE",
                        help="the roll: '6 5' or '6-5' (an XGID's or gnubg ids' own if "
                             "omitted)")
    add_setting_options(p_hint, cubeless=True)
    add_cube_options(p_hint)
    p_hint.add_argument("--top", type=positive_arg, default=None, metavar="N",
                        help="list only the N best turns")
    add_json(p_hint)
    p_hint.set_defaults(run=_run_hint)


def add_eval(sub: "argparse._SubParsersAction[Parser]") -> None:
    p_eval = sub.add_parser(
        "eval", help="the probabilities, cubeless equity and cube decision of a position",
        description="The network's probabilities and the cubeless equity of the side to "
                    "move, and its cube decision from cubeful equities (no double, double "
                    "take, double pass, the proper action, the take point) by Janowski's "
                    "model as GNU Backgammon computes it, for money play or a match score "
                    "(fastnardy.search.cubeful).")
    add_position(p_eval)
    add_setting_options(p_eval)
    add_cube_options(p_eval)
    add_json(p_eval)
    p_eval.set_defaults(run=_run_eval)


def add_rollout(sub: "argparse._SubParsersAction[Parser]") -> None:
    p_roll = sub.add_parser(
        "rollout", help="roll out a position, or every turn of a roll, with 95%% intervals",
        description="Games played on by the evaluator from the position (or from each legal "
                    "turn of DICE), each game's result minus the luck of its rolls (gnubg's "
                    "variance reduction); per candidate the mean equity and its 95% interval. "
                    "The same seed gives the same result however the games are split.")
    add_position(p_roll)
    p_roll.add_argument("dice", nargs="*", metavar="DICE",
                        help="a roll ('6 5' or '6-5'): roll out each of its legal turns (an "
                             "XGID's or gnubg ids' own if omitted)")
    p_roll.add_argument("--games", type=at_least(2), default=144, metavar="N",
                        help="games per candidate (default 144)")
    add_setting_options(p_roll)
    p_roll.add_argument("--truncate", type=depth_arg, default=None, metavar="T",
                        help="stop each game after T turns and take the evaluator's value")
    p_roll.add_argument("--seed", type=depth_arg, default=0, metavar="S", help="default 0")
    p_roll.add_argument("--workers", type=positive_arg, default=None, metavar="K",
                        help="play the games on K threads (the same result)")
    add_dask(p_roll, "games (the same result)")
    p_roll.add_argument("--cube-decision", action="store_true",
                        help="roll out the side to move's cube decision instead (no double "
                             "and double, take, cubeful, the cube live; at 0 ply), under the "
                             "cube options")
    add_cube_options(p_roll)
    add_progress(p_roll)
    add_json(p_roll)
    p_roll.set_defaults(run=_run_rollout)


def add_analyse(sub: "argparse._SubParsersAction[Parser]") -> None:
    p_an = sub.add_parser(
        "analyse", help="analyse a recorded game or a GNU Backgammon .mat match",
        description="Every turn and cube decision of FILE (a fastnardy record or a GNU "
                    "Backgammon .mat export), cubeful at the match score as GNU Backgammon "
                    "analyses: the turn played, the best turn, the equity lost (EMG), gnubg's "
                    "marks (doubtful >= 0.04, bad >= 0.08, very bad >= 0.16), the roll's "
                    "luck; each chance to double, each offer and answer with the proper "
                    "action and gnubg's kind of error; per side the chequer, cube and "
                    "overall error rates (mEMG per decision) with gnubg's ratings, and the "
                    "luck.")
    p_an.add_argument("file", metavar="FILE", help="a fastnardy record or a .mat export")
    add_setting_options(p_an, cubeless=True)
    add_met(p_an)
    p_an.add_argument("--html", metavar="OUT", default=None,
                      help="also write one self-contained page walking the game(s), with "
                           "the board of every turn")
    add_progress(p_an)
    add_json(p_an)
    p_an.set_defaults(run=_run_analyse)


def _run_hint(args: argparse.Namespace) -> int:
    from .. import analysis

    position = read_position(args)
    roll = read_dice(args)
    if roll is None:
        raise InvalidDiceError("give DICE: the roll to play")
    ranked = analysis.hint(position, roll, read_setting(args),
                           cube=read_cube(args, position.rules))
    shown = ranked[:args.top] if args.top else ranked
    if args.json:
        document = ranked.as_dict()
        document["moves"] = [move.as_dict() for move in shown]
        print_json(document)
        return 0
    print(f"{position.to_string()}   {position.turn} to play {format_roll(roll)}; "
          f"{conditions(ranked.setting, ranked.cube)}")
    cubeful = ranked.cube is not None
    print(f"{'':4} {'turn':<28} {'cubeful' if cubeful else '':>8} {'diff':>8} "
          f"{'cubeless':>9}   " + " ".join(f"{name:>9}" for name in (
              "win", "win mars", "win koks", "lose mars", "lose koks")))
    for rank, move in enumerate(shown, 1):
        ply = "" if move.plies == ranked.setting.plies else f"  ({move.plies} ply)"
        worth = "" if move.cubeful is None else f"{move.cubeful:+8.3f}"
        print(f"{rank:3}. {str(move.turn):<28} {worth:>8} {move.difference:+8.3f} "
              f"{move.equity:+9.3f}   "
              + " ".join(f"{percent(p):>9}" for p in move.probabilities) + ply)
    return 0


def _run_eval(args: argparse.Namespace) -> int:
    from .. import analysis

    position = read_position(args)
    if position.outcome() is not None:
        raise IllegalTurnError("T4", "the game is over: there is nothing to evaluate")
    result = analysis.evaluate(position, read_setting(args),
                               cube=read_cube(args, position.rules))
    if args.json:
        print_json(result.as_dict())
        return 0
    names = ("win", "win by mars/gammon", "win by koks/backgammon", "lose by mars/gammon",
             "lose by koks/backgammon")
    print(f"{position.to_string()}   {position.turn} on roll; "
          f"{conditions(result.setting, result.cube)}")
    for name, value in zip(names, result.probabilities):
        print(f"  {name:<26} {percent(value)}")
    print(f"  cubeless equity            {result.equity:+.3f}")
    decision = result.decision
    print(f"cube decision (Janowski's model as GNU Backgammon computes it, x = "
          f"{decision.efficiency:.2f}), cubeful equities in stakes"
          + (", match-winning chances beside:" if decision.mwc else ":"))
    rows = (("no double", decision.no_double), ("double, take", decision.double_take),
            ("double, pass", decision.double_pass))
    for i, (name, value) in enumerate(rows):
        mwc = f"   {percent(decision.mwc[i])}" if decision.mwc else ""
        print(f"  {name:<13} {value:+.3f}{mwc}")
    print(f"  proper action: {decision.action}  (cubeful equity {decision.optimal:+.3f}, "
          f"cubeless {decision.cubeless:+.3f})")
    if decision.take_point is not None:
        print(f"  the opponent's take point: {percent(decision.take_point)}")
    return 0


def _run_rollout(args: argparse.Namespace) -> int:
    from .. import analysis

    position = read_position(args)
    if args.cube_decision:
        return _run_cube_rollout(args, position)
    roll = read_dice(args)
    if args.workers is not None and args.dask is not None:
        raise FastNardyError("give --workers or --dask, not both")
    setting = read_setting(args).resolved(position.rules)
    with contextlib.ExitStack() as stack:
        executor = None if args.dask is None else stack.enter_context(dask_executor(args.dask))
        moves = analysis.rollout(position, roll, args.games, setting=setting,
                                 truncate=args.truncate, seed=args.seed, workers=args.workers,
                                 executor=executor,
                                 progress=progress_printer(args, "rollout chunks"))
    if args.json:
        print_json({"position": position.to_string(),
                     "dice": None if roll is None else list(roll), "games": args.games,
                     **setting.as_dict(), "truncate": args.truncate, "seed": args.seed,
                     "moves": [m.as_dict() for m in moves]})
        return 0
    print(f"{position.to_string()}   {args.games} games a candidate, seed {args.seed}"
          + (f", truncated at {args.truncate}" if args.truncate else "")
          + f"; {conditions(setting, None)}")
    for move in moves:
        name = "(no roll)" if move.turn is None else str(move.turn)
        print(f"  {name:<28} {move.mean:+.3f}  95% [{move.ci[0]:+.3f}, {move.ci[1]:+.3f}]"
              f"   without variance reduction {move.plain_mean:+.3f} "
              f"+- {1.96 * move.plain_stderr:.3f}")
    return 0


def _run_cube_rollout(args: argparse.Namespace, position: "Position") -> int:
    from ..analysis.rollouts import cube_rollout

    if args.dice:
        raise FastNardyError("a cube decision comes before the roll: give no DICE with "
                             "--cube-decision")
    if args.workers is not None or args.dask is not None:
        raise FastNardyError("--cube-decision plays its games here: --workers and --dask are "
                             "for a rollout of turns")
    cube, setting = read_cube(args, position.rules), read_setting(args).resolved(position.rules)
    result = cube_rollout(position, cube, args.games, setting=setting, seed=args.seed)
    if args.json:
        print_json({"position": position.to_string(), "games": args.games, "seed": args.seed,
                    **setting.as_dict(), "cube": cube.as_dict(), **result.as_dict()})
        return 0
    print(f"{position.to_string()}   {args.games} games each, the cube live, seed "
          f"{args.seed}; {conditions(setting, cube)}")
    for name, line in (("no double", result.no_double), ("double, take", result.double_take)):
        print(f"  {name:<13} {line.mean:+.3f}  95% [{line.ci[0]:+.3f}, {line.ci[1]:+.3f}]"
              f"   without variance reduction {line.plain_mean:+.3f} "
              f"+- {1.96 * line.plain_stderr:.3f}")
    print(f"  double, pass  {result.double_pass:+.3f}")
    print(f"  proper action: {result.action}")
    return 0


def _run_analyse(args: argparse.Namespace) -> int:
    from .. import analysis

    try:
        text = _files.read_text(args.file)
    except OSError as exc:
        raise FastNardyError(f"cannot read {args.file}: {exc.strerror or exc}") from None
    first = next(iter_games(text, args.file), None)  # its game names the network
    if first is None:
        raise InvalidRecordError(f"{args.file} holds no game")
    result = analysis.analyse(text, args.file, read_setting(args),
                              progress_printer(args, "turns analysed"),
                              met=read_met_option(args))
    if args.html is not None:
        from ..analysis import page as analysis_page

        write_file(args.html, analysis_page.page(result, Path(args.file).name).encode("utf-8"))
    if args.json:
        print_json({"file": args.file, **result.as_dict()})
        return 0
    cube = next((turn.cube for turn in result.turns if turn.cube is not None), None)
    print(f"{args.file}: {result.games} game{'s' * (result.games != 1)}; "
          f"{conditions(result.setting, cube, stake=False)}")
    for item in result.in_order():
        if isinstance(item, analysis.CubeReview):
            note = f"  lost {item.loss:.3f} ({item.error})" if item.error else ""
            print(f"{item.game}.{item.number:<3} {item.side:<5} {item.played:<12} "
                  f"cube {item.cube.value}: {item.decision.action}{note}"
                  + (f"  {item.mark}" if item.mark else ""))
            continue
        note = "" if item.forced else f"  lost {item.loss:.3f}"
        if item.mark:
            note += f"  {item.mark}: best {item.best}"
        print(f"{item.game}.{item.number:<3} {item.side:<5} {format_roll(item.roll)}  "
              f"{str(item.played):<26} luck {item.luck:+.3f}{note}")
    unit = "mEMG" if result.cubeful else "milli-points (cubeless)"
    scores = result.scores()
    if result.games > 1:
        for number in sorted({t.game for t in result.turns}):
            score = scores.get(number)
            at = f" at {score[0]}-{score[1]}" if score and result.length else ""
            rates = ", ".join(
                f"{side} {result.side(side, number)['overall_error_rate' if result.cubeful else 'error_rate']:.1f}"
                for side in ("white", "black"))
            print(f"game {number}{at}: {'overall' if result.cubeful else 'chequer'} error "
                  f"rate {unit}: {rates}")
    for side in ("white", "black"):
        totals = result.side(side)
        marks = ", ".join(f"{count} {name}" for name, count in totals["marks"].items())
        print(f"{side} ({totals['name']}): chequer error rate {totals['error_rate']:.1f} "
              f"{unit} over {totals['unforced']} unforced turns ({marks}); luck "
              f"{totals['luck']:+.3f} ({totals['luck_rating']})")
        if not result.cubeful:
            continue
        cube, ratings = totals["cube"], totals["ratings"]
        errors = ", ".join(f"{cube[kind]} {kind}" for kind in analysis.CUBE_ERRORS)
        print(f"  cube error rate {cube['error_rate']:.1f} mEMG over {cube['close']} close or "
              f"actual decisions of {cube['decisions']} ({errors}); overall "
              f"{totals['overall_error_rate']:.1f} mEMG: {ratings['overall']} "
              f"(chequer {ratings['chequer']}, cube {ratings['cube']})")
    return 0


def add_benchmark(sub: "argparse._SubParsersAction[Parser]") -> None:
    p_err = sub.add_parser(
        "benchmark-error", help="a player's error on a benchmark set, per class",
        description="The equity a player's turn loses against the best rolled-out candidate, "
                    "in thousandths of a point a move, per class, on the shipped benchmark "
                    "set of the game (or --set FILE); a turn outside the candidates is rolled "
                    "out as they were (the set's games and seed). See "
                    "fastnardy.analysis.benchmarks.")
    p_err.add_argument("player", metavar="PLAYER",
                       help="a player's setting: net[:PLIES][:float|:int16][:FILTER] (the shipped "
                            "network), FILE.npz[...] (a saved one), greedy, random or, in "
                            "short nardy, gnubg[:beginner|:expert][:PLIES], "
                            "gnubg-nn[:PLIES] or bgsage[:PLIES] (fastnardy.search.setting)")
    p_err.add_argument("--game", choices=("long", "short"), default="short",
                       help="the game whose set (default short)")
    p_err.add_argument("--set", metavar="FILE", default=None,
                       help="a set written by benchmark-build (default: the shipped one)")
    p_err.add_argument("--against", metavar="OTHER", default=None,
                       help="score OTHER (a player as PLAYER) too, and PLAYER's loss less "
                            "OTHER's position by position: the paired difference per class")
    add_json(p_err)
    p_err.set_defaults(run=_run_benchmark_error)
    p_build = sub.add_parser(
        "benchmark-build", help="build a benchmark set (the shipped ones: the defaults)",
        description="Positions met in seeded games of players of several strengths, per "
                    "class, each candidate turn rolled out; the same file from the same "
                    "arguments. See fastnardy.analysis.benchmarks.")
    p_build.add_argument("game", choices=("long", "short"), help="the game of the set")
    p_build.add_argument("--per-class", type=positive_arg, default=40, metavar="N",
                         help="positions of each class (default 40)")
    p_build.add_argument("--games", type=at_least(2), default=128, metavar="G",
                         help="rollout games a candidate (default 128)")
    p_build.add_argument("--seed", type=depth_arg, default=1, metavar="S",
                         help="the games' and the rollouts' seed (default 1)")
    p_build.add_argument("--played", type=positive_arg, default=60, metavar="P",
                         help="games of each pair of players the positions come from")
    where = p_build.add_mutually_exclusive_group()
    where.add_argument("--processes", type=positive_arg, default=None, metavar="K",
                       help="roll out on K worker processes (the same numbers)")
    add_dask(where, "rollouts (the same numbers)")
    p_build.add_argument("--out", metavar="FILE", default=None,
                         help="default benchmark_GAME.json here")
    add_progress(p_build)
    p_build.set_defaults(run=_run_benchmark_build)
    p_bearoff = sub.add_parser(
        "bearoff-build", help="build the two-sided bear-off database of N checkers a side",
        description="Exact win chances and cubeful money equities of every bear-off of 1 to "
                    "N checkers a side, both games (fastnardy.search.bearoff), into a file "
                    "that the evaluators then use (the largest in the folder). The same bytes "
                    "on every machine; Ctrl-C keeps the work done and the next build resumes "
                    "it.")
    p_bearoff.add_argument("--checkers", type=positive_arg, default=8, metavar="N",
                           help="checkers a side, 1 to 12 (default 8; 6 is built in memory "
                                "when no file is found)")
    p_bearoff.add_argument("--out", metavar="FILE", default=None,
                           help="default: bearoff-N.bin in $FASTNARDY_DATA, else "
                                "$XDG_CACHE_HOME/fastnardy, else ~/.cache/fastnardy")
    add_progress(p_bearoff)
    add_json(p_bearoff)
    p_bearoff.set_defaults(run=_run_bearoff_build)


def _run_benchmark_error(args: argparse.Namespace) -> int:
    from ..analysis.benchmarks import errors, paired

    scores = [errors(player, args.game, args.set)
              for player in [args.player] + ([args.against] if args.against else [])]
    difference = paired(*scores) if len(scores) == 2 else None
    if args.json:
        document = scores[0].as_dict()
        if difference is not None:
            document["against"] = scores[1].as_dict()
            document["paired"] = {kind: d.as_dict() for kind, d in difference.items()}
        print_json(document)
        return 0
    for score in scores:
        rolled = f", {score.rollout_seconds:.1f} rolling out" if score.rolled_out else ""
        print(f"{score.player} on the {score.game}-nardy benchmark set: equity lost a move, "
              f"thousandths of a point, +- the 95% interval of the positions drawn "
              f"({score.cpu_seconds:.1f} CPU s choosing{rolled})")
        how = "rolled out here" if score.rolled_out else "not counted"
        spread = score.standard_errors or {}
        for kind, (count, error, outside) in score.classes.items():
            turns = "turn" if outside == 1 else "turns"
            note = f", {outside} {turns} outside the candidates, {how}" if outside else ""
            print(f"  {kind:<9} {error:7.1f}{_interval(spread.get(kind, math.nan))}   "
                  f"({count} positions{note})")
    if difference is not None:
        print(f"{scores[0].player} less {scores[1].player}, position by position: "
              f"thousandths of a point a move, +- the 95% interval")
        for kind, d in difference.items():
            print(f"  {kind:<9} {d.mean:+7.1f}{_interval(d.standard_error)}   "
                  f"({d.positions} positions)")
    return 0


def _interval(standard_error: float) -> str:
    """`` +- `` the 95% interval of a mean with this standard error, or blanks for nan."""
    return " " * 9 if math.isnan(standard_error) else f" +- {1.96 * standard_error:5.1f}"


def _run_bearoff_build(args: argparse.Namespace) -> int:
    import resource
    import time

    from ..search import bearoff

    started = time.process_time()
    path = bearoff.build(args.checkers, args.out,
                         progress=progress_printer(args, "pip levels"))
    seconds = time.process_time() - started
    size = path.stat().st_size
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB
    if args.json:
        print_json({"path": str(path), "checkers": args.checkers, "bytes": size,
                    "cpu_seconds": round(seconds, 3), "peak_memory_bytes": peak})
        return 0
    print(f"{path}: the bear-off database of {args.checkers} checkers a side, "
          f"{size / 2**20:,.1f} MiB, {seconds:,.1f} CPU s, peak memory {peak / 2**20:,.0f} MiB")
    return 0


def _run_benchmark_build(args: argparse.Namespace) -> int:
    import resource
    import time
    from concurrent.futures import Executor, ProcessPoolExecutor

    from ..analysis.benchmarks import build_set, header, write_set

    def spent() -> float:  # this process's CPU and its children's (a pool's, gnubg's)
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        return time.process_time() + children.ru_utime + children.ru_stime

    started = spent()
    with contextlib.ExitStack() as stack:
        executor: Optional[Executor] = None
        if args.dask is not None:
            executor = stack.enter_context(dask_executor(args.dask))
        elif args.processes is not None:
            executor = stack.enter_context(ProcessPoolExecutor(args.processes))
        positions = build_set(args.game, args.per_class, args.games, args.seed,
                              played=args.played, executor=executor,
                              progress=progress_printer(args, "positions rolled out"))
    out = args.out or f"benchmark_{args.game}.json"
    write_set(out, positions, header(args.game, args.per_class, args.games, args.seed,
                                     args.played, spent() - started))
    print(f"{out}: {len(positions)} positions, "
          f"{sum(len(p.candidates) for p in positions)} candidates")
    return 0
