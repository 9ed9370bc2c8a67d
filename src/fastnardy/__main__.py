"""Command line: ``fastnardy perft long 4`` (or ``python -m fastnardy perft long 4``) and friends.

    fastnardy perft {long,short,POSITION} DEPTH [--weighted] [--divide] [--roll R] [--only]
                    [--json] [--workers N] [--tt-mb MB] [--checkpoint FILE]
    fastnardy turns POSITION {DICE,all} [--json]
    fastnardy check POSITION DICE TURN [--json]
    fastnardy board POSITION [--svg FILE] [--png FILE] [--flipped] [--highlight TURN] [--json]
    fastnardy play POSITION [--seed S] [--turns N] [--quiet] [--human SIDE] [--record FILE]
    fastnardy bench [--seconds S] [--json]
    fastnardy check-game FILE...   (fastnardy records or GNU Backgammon .mat exports)
    fastnardy rules [RULE_ID]
    fastnardy crosscheck ENGINE POSITION DEPTH [--movegen] [--random N [--seed S]] [--one-shot]
                         [--format F] [--timeout S] [--json]
    fastnardy hint POSITION DICE [--plies N] [--filter KEEP,MARGIN] [--top N] [--json]
    fastnardy eval POSITION [--plies N] [--cube-owner WHO] [--json]
    fastnardy rollout POSITION [DICE] [--games N] [--plies 0|1] [--truncate T] [--workers K]
                      [--seed S] [--json]
    fastnardy analyse FILE [--plies N] [--json] [--html OUT]
    fastnardy match A B [--game G] [--games N] [--seed S] [--json]

POSITION is ``long`` or ``short`` (the start, white to move), a position string or a GNU
Backgammon Position ID (short nardy, white to move). Rolls are printed high die first
(``6-5``). The rule
options (``--head-rule`` …) apply to either: a position string keeps the variants it names,
an option adds one it does not name, and an option that contradicts it, or that belongs to
the other game, is an error.

Exit status: 0 done; 1 an illegal turn (check, check-game) or a difference (crosscheck); 2
bad input, an engine failure, a file that cannot be read or written (the old file is left
whole) or a stdout that cannot be written (full disk), with one line ``error: ...`` on
stderr; 130 Ctrl-C (one line ``interrupted``), on worker threads too; 141 stdout closed early
(``| head``), as for a process that SIGPIPE ends.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import (TYPE_CHECKING, Callable, Dict, List, NoReturn, Optional, Sequence, Set,
                    Tuple)

from . import (ALL_ROLLS, Game, Position, Rules, Turn, __version__, _files, perft, perft_divide,
               rulebook)
from . import backend as _backend
from .basics import Roll
from .counting import PerftProgress
from .errors import FastNardyError, IllegalTurnError, InvalidDiceError, InvalidRecordError
from .gnubg import ID_LENGTH
from .notation import format_roll
from .play import POLICIES as PLAY_POLICIES
from .record import read_games
from .rules import LONG, MOVE_VARIANTS, SHORT, VARIANTS

if TYPE_CHECKING:
    from .network import Evaluator
    from .search import Filters, MoveFilter

# The rule options: the variants that move generation reads (argparse dest = variant name)
_RULE_OPTIONS = {name: VARIANTS[name] for name in MOVE_VARIANTS}

# perft refuses deeper counts without --force: on one core long perft(8) (about 10**15
# nodes at 3*10**7 a second) and short perft(6) (about 2*10**16 at 9*10**7) take a year or
# more, while long perft(7) and short perft(5) take a few days.
UNFORCED_DEPTH = {LONG: 7, SHORT: 5}  # a soft limit per game; the hard one is basics.MAX_DEPTH

EXIT_ILLEGAL, EXIT_USAGE, EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 1, 2, 130, 141


_GNUBG_ID = re.compile(f"[A-Za-z0-9+/]{{{ID_LENGTH}}}")  # a GNU Backgammon Position ID


class _Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors: ``PROG: error: MESSAGE (see PROG --help)``, exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _prog() -> str:
    """The name the user typed: ``fastnardy`` for the console script, else
    ``python -m fastnardy``."""
    return "fastnardy" if Path(sys.argv[0]).stem == "fastnardy" else "python -m fastnardy"


# --------------------------------------------------------------------------- arguments

def _at_least(low: int) -> Callable[[str], int]:
    """An argparse type: an integer of at least ``low``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer, not {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be {low} or more, not {value}")
        return value

    return parse


_depth = _at_least(0)  # DEPTH (T5 defines perft(0) = 1)
_positive = _at_least(1)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, not {text!r}") from None
    if not 0 <= value <= 3600:
        raise argparse.ArgumentTypeError(f"expected 0 to 3600 seconds, not {text}")
    return value


def _add_position(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("position", metavar="POSITION",
                        help="'long' or 'short' (the start, white to move), a position string "
                             "such as 'long w 24:15 24:15', or a GNU Backgammon Position ID "
                             "such as 4HPwATDgc/ABMA (short nardy, white to move)")
    rules = parser.add_argument_group("rule variants ('fastnardy rules ID' explains each; "
                                      "default: the string's own, else the game's default)")
    for dest, (game, values, default, rule, what) in _RULE_OPTIONS.items():
        rules.add_argument(f"--{dest.replace('_', '-')}", choices=values, default=None,
                           help=f"{game} nardy, {rule}: {what} (default {default})")


def _add_backend(parser: argparse._ActionsContainer) -> None:
    parser.add_argument("--backend", choices=_backend.BACKENDS, default=None,
                        help="generate turns with the Cython kernel (default) or the "
                             "pure-Python reference")


def _add_json(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true",
                        help="print one JSON document instead of text")


def build_parser(prog: str = "python -m fastnardy") -> argparse.ArgumentParser:
    """The command line's parser; each subcommand sets ``run``, the function that runs it."""
    parser = _Parser(
        prog=prog, description="Legal turns, perft and games of long and short nardy.",
        epilog="POSITION is 'long' or 'short' (the start), a position string or a GNU "
               "Backgammon Position ID (short nardy); a rule option "
               "adds a variant the string does not name, and contradicting it is an error. "
               "Exit status: 0 done, 1 an illegal turn (check, check-game) or a difference "
               "(crosscheck), 2 bad input or an engine failure, 130 "
               "Ctrl-C, 141 stdout closed early (| head).")
    parser.add_argument("--version", action="version", version=f"fastnardy {__version__}",
                        help="print fastnardy's version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True,
                                help="what to do; 'COMMAND --help' describes each")

    p_perft = sub.add_parser("perft", help="T5 perft: count the positions DEPTH turns ahead",
                             description="T5 perft for depths 1..DEPTH (or only DEPTH), with "
                                         "the time each count took.")
    _add_position(p_perft)
    p_perft.add_argument("depth", type=_depth, metavar="DEPTH",
                         help=f"turns to look ahead, 0 or more (more than "
                              f"{UNFORCED_DEPTH[LONG]} for long or {UNFORCED_DEPTH[SHORT]} for "
                              f"short nardy needs --force)")
    p_perft.add_argument("--weighted", action="store_true",
                         help="count each non-double twice (36 outcomes, not 21 rolls)")
    p_perft.add_argument("--divide", action="store_true",
                         help="split the DEPTH count by roll and first turn, with each "
                              "turn's position (the child other engines can match)")
    p_perft.add_argument("--roll", type=_roll_argument, metavar="ROLL", default=None,
                         help="count only this first roll, '6-5' (DEPTH 1 or more)")
    p_perft.add_argument("--only", action="store_true", help="only DEPTH, not 1..DEPTH")
    p_perft.add_argument("--force", action="store_true",
                         help="count past the depth limit (the deepest counts that finish "
                              "within days on one core)")
    _add_json(p_perft)
    counting = p_perft.add_argument_group("counting")
    _add_backend(counting)
    counting.add_argument("--workers", type=_positive, metavar="N",
                          help="split the tree into subtasks on N threads (the kernel runs "
                               "without the GIL, so N cores)")
    counting.add_argument("--dask", metavar="ADDRESS",
                          help="run the subtasks on a Dask cluster (the scheduler's address, "
                               "e.g. tcp://10.0.0.5:8786; needs dask.distributed)")
    counting.add_argument("--tt-mb", type=_positive, metavar="MB", dest="tt_mb",
                          help="an exact transposition table of MB megabytes per thread or "
                               "process (the hit rate is reported)")
    counting.add_argument("--checkpoint", metavar="FILE",
                          help="keep the finished subtasks of the DEPTH count in FILE, so that "
                               "a run interrupted (Ctrl-C) or killed resumes where it stopped "
                               "when started again with the same FILE")
    counting.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                          help="a progress line over the subtasks on stderr (default: when "
                               "stderr is a terminal)")
    p_perft.set_defaults(run=_run_perft)

    p_turns = sub.add_parser("turns", help="list the legal turns for a roll, in T2 order",
                             description="The legal turns (T1) for a roll, one a line in T2 "
                                         "order; a pass is written 'pass'. With 'all', the "
                                         "turns of the 21 rolls, each line led by its roll.")
    _add_position(p_turns)
    p_turns.add_argument("dice", nargs="+", metavar="DICE",
                         help="the roll: '6 5' or '6-5', or 'all' for the 21 rolls")
    _add_backend(p_turns)
    _add_json(p_turns)
    p_turns.set_defaults(run=_run_turns)

    p_check = sub.add_parser(
        "check", help="referee one turn: is it legal for this position and roll?",
        description="Exit 0 and print the turn in T2 notation when it is legal; exit 1 and "
                    "print the rule it breaks ('L5: ...') when it is not; exit 2 when the "
                    "position, the dice or the notation do not read ('T1: ...'). A checker "
                    "moving several dice may be written as one move, '24/13' for 6-5.")
    _add_position(p_check)
    p_check.add_argument("dice", metavar="DICE", help="the roll: '6-5' or '6 5'")
    p_check.add_argument("turn", nargs="+", metavar="TURN",
                         help="the turn in notation, '24/18 18/13' (quoted or not), or 'pass'")
    _add_json(p_check)
    p_check.set_defaults(run=_run_check)

    p_board = sub.add_parser("board", help="draw the position (text, SVG or PNG)",
                             description="Print the position's board (white's numbering) and "
                                         "optionally write it as a picture.")
    _add_position(p_board)
    _add_picture_options(p_board)
    _add_json(p_board)
    p_board.set_defaults(run=_run_board)

    p_play = sub.add_parser(
        "play", help="play a game in the terminal: self-play, or you against the computer",
        description="Self-play (random turns by default), printing each turn and the board; "
                    "or, with --human, you play one side against a policy (greedy by "
                    "default): type a turn in notation, '?' lists the legal turns (then a "
                    "number picks one), 'q' quits.")
    _add_position(p_play)
    p_play.add_argument("--seed", type=int, default=None,
                        help="seed the dice and the policy (the same seed plays the same game)")
    p_play.add_argument("--turns", type=_positive, default=None, metavar="N",
                        help="stop after N turns")
    p_play.add_argument("--quiet", action="store_true", help="print the turns, not the boards")
    p_play.add_argument("--human", choices=("white", "black"), default=None,
                        help="you play this side, reading turns from stdin")
    p_play.add_argument("--policy", choices=PLAY_POLICIES, default=None,
                        metavar="{random,greedy,net[:PLIES]}",
                        help="how the computer chooses: uniformly at random (self-play's "
                             "default), the turn with the best simple evaluation (the "
                             "default against a person; see fastnardy.play.evaluate) or the "
                             "shipped network searched PLIES deep (0-2, default 0); against "
                             "a person, 'h' prints the network's hint")
    p_play.add_argument("--record", metavar="FILE", default=None,
                        help="write the game as a fastnardy record (check-game reads it)")
    p_play.set_defaults(run=_run_play)

    p_bench = sub.add_parser(
        "bench", help="time every level of the installed copy: children, counts, perft, "
                      "self-play",
        description="Time every level of the installed copy in thread CPU time: batch.expand "
                    "(keys, rows), batch.chance_expand, list(legal_turns), batch.count_turns, "
                    "one _kernel.count_turns call each, len(legal_turns), perft from the "
                    "start and random self-play; short nardy on the 2,000 GNU Backgammon "
                    "benchmark positions, long nardy on seeded random playouts. "
                    "bench/peers.py in the source tree times wildbg, bkgm, bgsage and "
                    "OpenSpiel beside the same levels.")
    p_bench.add_argument("--seconds", type=_seconds, default=0.5, metavar="S",
                         help="repeat each measurement for at least S seconds and report the "
                              "best round (default 0.5; 0 measures once)")
    _add_json(p_bench)
    p_bench.set_defaults(run=_run_bench)

    _add_check_game(sub)
    _add_crosscheck(sub)
    _add_analysis(sub)
    p_rules = sub.add_parser("rules", help="the rule book: every rule id, or one rule",
                             description="The rule book fastnardy implements: without RULE_ID "
                                         "every rule id with its title, with one the rule's "
                                         "full text.")
    p_rules.add_argument("rule_id", nargs="?", help="a rule id such as L5, S8 or T2")
    p_rules.set_defaults(run=_run_rules)
    return parser


def _add_picture_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--svg", metavar="FILE", help="also write the board as an SVG picture")
    parser.add_argument("--png", metavar="FILE",
                        help="also write it as a PNG (through cairosvg or headless Chromium)")
    parser.add_argument("--flipped", action="store_true", help="pictures from black's side")
    parser.add_argument("--highlight", metavar="TURN",
                        help="draw this legal turn's steps as arrows in the pictures")


def _add_check_game(sub: "argparse._SubParsersAction[_Parser]") -> None:
    p_check = sub.add_parser(
        "check-game", help="replay game records and name the first illegal turn of each game",
        description="Replay fastnardy records and GNU Backgammon .mat match exports (chosen by "
                    "the .mat extension or the content). Exit 0 when every turn is legal, 1 when "
                    "one is not, 2 when a file cannot be read.")
    p_check.add_argument("files", nargs="+", metavar="FILE",
                         help="a fastnardy record or a GNU Backgammon .mat export")
    p_check.set_defaults(run=lambda args: _check_game(args.files))


def _add_crosscheck(sub: "argparse._SubParsersAction[_Parser]") -> None:
    p_cross = sub.add_parser(
        "crosscheck", help="compare another engine's divide with fastnardy's (a perftree)",
        description="Run ENGINE through fastnardy.crosscheck's line protocol ('divide DEPTH "
                    "ROLL POSITION' on its stdin, 'COUNT CHILD' lines and 'end' back), compare "
                    "its children with fastnardy's by position (T1) and walk down to the first "
                    "position and roll where they differ: the missing turns with the rule each "
                    "depends on, the extra turns with the rule each breaks, and the path from "
                    "the root. Exit 0 when they agree, 1 on a difference, 2 on bad input or an "
                    "engine failure. Adapters: python -m fastnardy.engines.NAME (reference, "
                    "openspiel, gnubg, bgsage).")
    p_cross.add_argument("engine", metavar="ENGINE",
                         help="the engine's command, one argument ('./engine --flag')")
    _add_position(p_cross)
    p_cross.add_argument("depth", type=_positive, metavar="DEPTH", help="plies to compare")
    p_cross.add_argument("--movegen", action="store_true",
                         help="ask the engine only 'divide 1' (its children) and walk deeper "
                              "here: any move generator, at any depth")
    p_cross.add_argument("--random", type=_positive, metavar="N", default=None,
                         help="check N positions of seeded random games from POSITION "
                              "instead of POSITION itself")
    p_cross.add_argument("--seed", type=_at_least(0), default=1, metavar="S",
                         help="the random games' seed (default 1)")
    p_cross.add_argument("--one-shot", action="store_true",
                         help="run 'ENGINE DEPTH ROLL POSITION' once per request instead of "
                              "one long-running process")
    p_cross.add_argument("--format", choices=("string", "gnubg"), default=None,
                         help="how positions are sent: GNU Backgammon Position IDs (default "
                              "for standard backgammon; they cannot carry a rule variant) or "
                              "position strings (default otherwise)")
    p_cross.add_argument("--timeout", type=_seconds, default=60.0, metavar="S",
                         help="seconds each answer may take, from its request to its last "
                              "line (default 60)")
    _add_json(p_cross)
    p_cross.set_defaults(run=_run_crosscheck)


# --------------------------------------------------------------------------- inputs

def _position(args: argparse.Namespace) -> Position:
    """POSITION with the rule options applied (see the module's docstring)."""
    named: Set[str] = set()  # the variants a position string names
    if args.position in (LONG, SHORT):
        base = Position.start(args.position)
    elif _GNUBG_ID.fullmatch(args.position):
        base = Position.from_gnubg_id(args.position)
    else:
        base = Position.from_string(args.position)
        named = set(re.findall(r"(\w+)\s*=", args.position.split()[0]))  # variants it names
    given = {dest: getattr(args, dest) for dest in _RULE_OPTIONS if getattr(args, dest)}
    for dest, value in given.items():
        game, rule = _RULE_OPTIONS[dest].game, _RULE_OPTIONS[dest].rule
        option = f"--{dest.replace('_', '-')}"
        if game != base.rules.game:
            raise FastNardyError(f"{option} is a {game}-nardy option ({rule}); the position "
                                 f"is {base.rules.game} nardy")
        if dest in named and getattr(base.rules, dest) != value:
            raise FastNardyError(f"{option} {value} contradicts the position string's "
                                 f"{dest}={getattr(base.rules, dest)}")
    rules: Rules = dataclasses.replace(base.rules, **given)
    if rules == base.rules:
        return base
    return Position.from_points(rules, base.white_points, base.black_points, base.turn,
                                base.white_bar, base.black_bar)


def _roll(words: Sequence[str]) -> Roll:
    """DICE as typed: '6 5' (two words), '6-5' or '65'."""
    match = re.fullmatch(r"([1-6])-?([1-6])", "-".join(words))
    if match is None:
        raise InvalidDiceError(f"dice must be two numbers from 1 to 6, as '6 5' or '6-5', not "
                               f"{' '.join(words)!r}")
    return int(match.group(1)), int(match.group(2))


def _roll_argument(text: str) -> Roll:
    """An argparse type: a roll, '6-5' or '65'."""
    try:
        return _roll([text])
    except InvalidDiceError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _print_json(document: object) -> None:
    print(json.dumps(document, ensure_ascii=False))


def _turn_json(turn: Turn) -> Dict[str, object]:
    """A legal turn: its notation, its steps as [src, dst, hit] (mover's numbering) and the
    position it leads to."""
    return {"turn": str(turn), "steps": [list(step) for step in turn.steps],
            "position": turn.position.to_string()}


# --------------------------------------------------------------------------- commands

def _run_perft(args: argparse.Namespace) -> int:
    position = _position(args)
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
        _print_json({**header, "perft": results})
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
            eta = p.seconds * (p.total - p.done) / p.done if p.done else 0.0
            print(f"\r  perft({depth}): {p.done}/{p.total} subtrees, {p.nodes:,} nodes, "
                  f"{rate / 1e6:,.1f} M nodes/s, ETA {eta:,.0f} s   ", end="", file=sys.stderr,
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
    try:
        import distributed
    except ImportError:
        raise FastNardyError("--dask needs dask.distributed: pip install 'dask[distributed]'") \
            from None
    try:
        client = distributed.Client(args.dask, timeout=30)
    except OSError as exc:
        raise FastNardyError(f"cannot reach the Dask scheduler at {args.dask}: {exc}") from None
    with client:
        return perft(position, depth, weighted=args.weighted, backend=args.backend,
                     executor=client.get_executor(), tt_mb=args.tt_mb, progress=progress,
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
        _print_json({**header, "depth": args.depth, "total": total,
                     "divide": [{"roll": sorted(roll, reverse=True), "turn": str(turn),
                                 "count": count, "position": turn.position.to_string()}
                                for roll, turn, count in divide]})
        return 0
    for roll, turn, count in divide:
        print(f"{format_roll(roll)}  {str(turn):<32} {count:>12}  {turn.position.to_string()}")
    print(f"total {total}")
    return 0


def _run_turns(args: argparse.Namespace) -> int:
    """The legal turns of one roll, or with 'all' of the 21 (each line led by its roll)."""
    position = _position(args)
    if args.dice != ["all"]:
        roll = _roll(args.dice)
        turns = position.legal_turns(roll, backend=args.backend)
        if args.json:
            _print_json({"position": position.to_string(), "dice": list(roll),
                         "turns": [_turn_json(turn) for turn in turns]})
        else:
            for turn in turns:
                print(turn)
        return 0
    rolls = sorted(((max(roll), min(roll)) for roll in ALL_ROLLS), reverse=True)
    listed = [(roll, position.legal_turns(roll, backend=args.backend)) for roll in rolls]
    if args.json:
        _print_json({"position": position.to_string(),
                     "rolls": [{"dice": list(roll), "turns": [_turn_json(turn) for turn in turns]}
                               for roll, turns in listed]})
    else:
        for roll, turns in listed:
            for turn in turns:
                print(f"{format_roll(roll)}  {turn}")
    return 0


def _run_check(args: argparse.Namespace) -> int:
    position, words = _position(args), list(args.turn)
    dice = [args.dice]
    if args.dice.isdigit() and words[0].isdigit():  # '6 5 24/18 18/13': the dice in two words
        dice.append(words.pop(0))
    roll = _roll(dice)
    if not words:
        raise FastNardyError("TURN is missing (write 'pass' for a pass)")
    try:
        turn = position.check_turn(roll, " ".join(words))
    except IllegalTurnError as exc:
        if args.json:
            _print_json({"legal": False, "rule": exc.rule, "step": exc.step,
                         "message": str(exc)[len(exc.rule) + 2:]})
        else:
            print(exc)
        return EXIT_ILLEGAL
    if args.json:
        _print_json({"legal": True, **_turn_json(turn)})
    else:
        print(turn)
    return 0


def _run_board(args: argparse.Namespace) -> int:
    position = _position(args)
    pictures = _pictures(args, position)  # a missing PNG renderer fails before any output
    if args.json:
        document: Dict[str, object] = {
            "position": position.to_string(), "turn": position.turn,
            "white_points": list(position.white_points), "white_bar": position.white_bar,
            "white_off": position.white_off, "black_points": list(position.black_points),
            "black_bar": position.black_bar, "black_off": position.black_off}
        if position.rules.game == SHORT:
            document["gnubg_id"] = position.gnubg_id()
        _print_json(document)
    else:
        print(position)
    for path, content in pictures:
        _write_file(path, content)
    return 0


def _pictures(args: argparse.Namespace, position: Position) -> List[Tuple[str, bytes]]:
    """The board command's --svg and --png files (fastnardy.svg), as (path, content)."""
    if args.svg is None and args.png is None:
        return []
    from . import svg

    document = svg.board(position, flipped=args.flipped, highlight=args.highlight)
    pictures = []
    if args.svg is not None:
        pictures.append((args.svg, document.encode("utf-8")))
    if args.png is not None:
        pictures.append((args.png, svg.to_png(document)))
    return pictures


def _write_file(path: str, content: bytes) -> None:
    """Write a file whole, or leave the old one as it was (FastNardyError: exit 2)."""
    _files.write_whole(path, content)


def _run_play(args: argparse.Namespace) -> int:
    from . import play

    position = _position(args)
    if args.position in (LONG, SHORT):
        game = Game(position.rules, args.seed)
    else:
        game = Game.from_position(position, args.seed)
    policy = args.policy or ("greedy" if args.human else "random")
    play.play_game(game, play.policy(policy, args.seed), human=args.human,
                   max_turns=args.turns, boards=not args.quiet,
                   hint=_hint_text if args.human else None)
    if args.record is not None:
        _write_file(args.record, game.record().encode("utf-8"))
    return 0


def _hint_text(position: Position, roll: Roll) -> str:
    """The network's five best turns at 0 ply, for play's 'h' key."""
    from . import analysis

    return "\n".join(f"{rank:4}) {str(move.turn):<28} {move.equity:+.3f}"
                     for rank, move in enumerate(analysis.hint(position, roll)[:5], 1))


def _run_bench(args: argparse.Namespace) -> int:
    from . import benchmark

    timings = benchmark.measure(args.seconds)
    if args.json:
        _print_json({"version": __version__, "python": sys.version.split()[0],
                     "timings": [timing.as_dict() for timing in timings]})
    else:
        print(benchmark.report(timings))
    return 0


def _run_crosscheck(args: argparse.Namespace) -> int:
    from . import crosscheck

    position = _position(args)
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
        _print_json({"engine": args.engine, "position": position.to_string(),
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
        print(difference.report())
    return 0 if difference is None else EXIT_ILLEGAL


def _check_game(files: List[str]) -> int:
    """check-game: 0 all legal, 1 an illegal turn (named with its game, move, roll, rule and
    line), 2 a file that cannot be read or parsed."""
    status = 0
    for path in files:
        try:
            records = read_games(_files.read_text(path), path)
        except (OSError, FastNardyError) as exc:
            print(f"{path}: error: {exc}", file=sys.stderr)
            status = 2
            continue
        illegal = unreadable = 0
        for number, record in enumerate(records, 1):
            try:
                Game.from_record(record)
            except IllegalTurnError as exc:
                print(f"{path}: game {number}: illegal turn: {exc}")
                illegal += 1
            except InvalidRecordError as exc:  # a turn whose notation does not read (T1)
                print(f"{path}: game {number}: error: {exc}", file=sys.stderr)
                unreadable += 1
        if unreadable:
            status = 2
        elif illegal:
            status = max(status, 1)
        else:
            turns = sum(len(record.turns) for record in records)
            print(f"{path}: {len(records)} game{'s' * (len(records) != 1)}, {turns} turns, "
                  f"all legal")
    return status


def _run_rules(args: argparse.Namespace) -> int:
    """Print one rule of the rule book, or every id with its title; an unknown id is an
    InvalidRulesError (exit 2)."""
    if args.rule_id is None:
        for rule_id, title in rulebook.titles().items():
            print(f"{rule_id:<4} {title}")
    else:
        print(rulebook.describe(args.rule_id))
    return 0


# --------------------------------------------------------------------------- analysis

def _add_search_options(parser: argparse.ArgumentParser, plies: Sequence[int] = (0, 1, 2)
                        ) -> None:
    parser.add_argument("--plies", type=int, choices=plies, default=0,
                        help="search depth of the evaluator (default 0)")
    parser.add_argument("--weights", metavar="FILE", default=None,
                        help="an evaluator .npz (Evaluator.save); default: the shipped one")


def _add_filter(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--filter", type=_move_filter, metavar="KEEP,MARGIN", default=None,
                        help="at 1 ply or more, search only the KEEP best turns within MARGIN "
                             "points at 0 ply deeper, at every level (default: gnubg's filters, "
                             "8,0.16 at the root and the best turn at 0 ply of each roll "
                             "inside the tree)")


def _add_progress(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="a progress line on stderr (default: when stderr is a terminal)")


def _move_filter(text: str) -> "MoveFilter":
    from .search import MoveFilter

    match = re.fullmatch(r"([0-9]+),([0-9]*\.?[0-9]+)", text.strip())
    if match is None or int(match.group(1)) < 1:
        raise argparse.ArgumentTypeError(f"expected KEEP,MARGIN such as 8,0.16 (KEEP 1 or "
                                         f"more), not {text!r}")
    return MoveFilter(int(match.group(1)), float(match.group(2)))


def _add_analysis(sub: "argparse._SubParsersAction[_Parser]") -> None:
    p_hint = sub.add_parser(
        "hint", help="the legal turns of a roll, best first, with equities and probabilities",
        description="Every legal turn of DICE, best first: its equity to the side to move "
                    "(cubeless points), the difference to the best and the network's "
                    "probabilities of the position after it (win, win by mars/gammon, by "
                    "koks/backgammon, the same lost).")
    _add_position(p_hint)
    p_hint.add_argument("dice", nargs="+", metavar="DICE", help="the roll: '6 5' or '6-5'")
    _add_search_options(p_hint)
    _add_filter(p_hint)
    p_hint.add_argument("--top", type=_positive, default=None, metavar="N",
                        help="list only the N best turns")
    _add_json(p_hint)
    p_hint.set_defaults(run=_run_hint)

    p_eval = sub.add_parser(
        "eval", help="the probabilities, cubeless equity and money cube action of a position",
        description="The network's probabilities and the cubeless equity of the side to "
                    "move, and the money-game cube action from cubeful equities by "
                    "Janowski's model as GNU Backgammon approximates it (fastnardy.analysis).")
    _add_position(p_eval)
    _add_search_options(p_eval)
    _add_filter(p_eval)
    p_eval.add_argument("--cube-owner", choices=("centered", "mover", "opponent"),
                        default="centered", help="who may double (default centered)")
    _add_json(p_eval)
    p_eval.set_defaults(run=_run_eval)

    p_roll = sub.add_parser(
        "rollout", help="roll out a position, or every turn of a roll, with 95%% intervals",
        description="Games played on by the evaluator from the position (or from each legal "
                    "turn of DICE), each game's result minus the luck of its rolls (gnubg's "
                    "variance reduction); per candidate the mean equity and its 95%% interval. "
                    "The same seed gives the same result however the games are split.")
    _add_position(p_roll)
    p_roll.add_argument("dice", nargs="*", metavar="DICE",
                        help="a roll ('6 5' or '6-5'): roll out each of its legal turns")
    p_roll.add_argument("--games", type=_at_least(2), default=144, metavar="N",
                        help="games per candidate (default 144)")
    _add_search_options(p_roll, (0, 1))
    p_roll.add_argument("--truncate", type=_depth, default=None, metavar="T",
                        help="stop each game after T turns and take the evaluator's value")
    p_roll.add_argument("--seed", type=_depth, default=0, metavar="S", help="default 0")
    p_roll.add_argument("--workers", type=_positive, default=None, metavar="K",
                        help="play the games on K threads (the same result)")
    _add_progress(p_roll)
    _add_json(p_roll)
    p_roll.set_defaults(run=_run_rollout)

    p_an = sub.add_parser(
        "analyse", help="analyse a recorded game or a GNU Backgammon .mat match",
        description="Every turn of FILE (a fastnardy record or a GNU Backgammon .mat "
                    "export): the turn played, the best turn, the equity lost, gnubg's "
                    "marks (doubtful >= 0.04, bad >= 0.08, very bad >= 0.16), the roll's "
                    "luck; per side the error rate (mEMG: milli-points lost per unforced "
                    "turn, cubeless) and the luck.")
    p_an.add_argument("file", metavar="FILE", help="a fastnardy record or a .mat export")
    _add_search_options(p_an)
    _add_filter(p_an)
    p_an.add_argument("--html", metavar="OUT", default=None,
                      help="also write one self-contained page walking the game(s), with "
                           "the board of every turn")
    _add_progress(p_an)
    _add_json(p_an)
    p_an.set_defaults(run=_run_analyse)

    p_match = sub.add_parser(
        "match", help="seeded paired games between two players: wins and points a game",
        description="Games of A against B in pairs with the same dice (A white in one, black "
                    "in the other), scored by L10/S9 without a cube: A's wins and points a "
                    "game with 95%% intervals (fastnardy.match). Players: random, greedy, "
                    "net:PLIES (the shipped evaluator, 0-2 plies), FILE.npz[:PLIES] (a saved "
                    "one), gnubg:beginner or gnubg:expert (GNU Backgammon, short nardy, when "
                    "installed).")
    p_match.add_argument("a", metavar="A", help="the first player")
    p_match.add_argument("b", metavar="B", help="the second player")
    p_match.add_argument("--game", choices=(LONG, SHORT), default=None,
                         help="default long, or short when a player is gnubg")
    p_match.add_argument("--games", type=_at_least(2), default=200, metavar="N",
                         help="games, even (pairs with the same dice; default 200)")
    p_match.add_argument("--seed", type=_depth, default=0, metavar="S", help="default 0")
    p_match.add_argument("--weights", metavar="FILE", default=None,
                         help="an evaluator .npz for net:PLIES instead of the shipped one")
    _add_progress(p_match)
    _add_json(p_match)
    p_match.set_defaults(run=_run_match)


def _search_filter(args: argparse.Namespace) -> "Filters":
    """--filter at every level, by default GNU Backgammon's filters (search.GNUBG_FILTERS)
    at 1 ply or more."""
    from .search import GNUBG_FILTERS

    return args.filter if args.filter is not None or not args.plies else GNUBG_FILTERS


def _network(args: argparse.Namespace, game: str) -> "Evaluator":
    from .network import Evaluator

    network = Evaluator.load(args.weights if args.weights is not None else game)
    if network.game != game:
        raise FastNardyError(f"{args.weights} is an evaluator for {network.game} nardy, not "
                             f"{game}")
    return network


def _progress(args: argparse.Namespace, what: str) -> "Optional[Callable[[int, int], None]]":
    """A progress line on stderr (``--progress``, default when stderr is a terminal)."""
    if not (args.progress if args.progress is not None else sys.stderr.isatty()):
        return None
    started = time.perf_counter()

    def show(done: int, total: int) -> None:
        seconds = time.perf_counter() - started
        eta = seconds * (total - done) / done if done else 0.0
        print(f"\r  {what}: {done}/{total}, {seconds:,.0f} s, ETA {eta:,.0f} s   ",
              end="\n" if done == total else "", file=sys.stderr, flush=True)

    return show


def _percent(value: float) -> str:
    return f"{100 * value:5.1f}%"


def _run_hint(args: argparse.Namespace) -> int:
    from . import analysis

    position = _position(args)
    roll = _roll(args.dice)
    moves = analysis.hint(position, roll, _network(args, position.rules.game), args.plies,
                          _search_filter(args))
    shown = moves[:args.top] if args.top else moves
    if args.json:
        _print_json({"position": position.to_string(), "dice": list(roll),
                     "plies": args.plies, "moves": [m.as_dict() for m in shown]})
        return 0
    print(f"{position.to_string()}   {position.turn} to play {format_roll(roll)}, "
          f"{args.plies} ply")
    print(f"{'':4} {'turn':<28} {'equity':>8} {'diff':>8}   "
          + " ".join(f"{name:>9}" for name in ("win", "win mars", "win koks", "lose mars",
                                                "lose koks")))
    for rank, move in enumerate(shown, 1):
        ply = "" if move.plies == args.plies else f"  ({move.plies} ply)"
        print(f"{rank:3}. {str(move.turn):<28} {move.equity:+8.3f} {move.difference:+8.3f}   "
              + " ".join(f"{_percent(p):>9}" for p in move.probabilities) + ply)
    return 0


def _run_eval(args: argparse.Namespace) -> int:
    from . import analysis

    position = _position(args)
    if position.outcome() is not None:
        raise IllegalTurnError("T4", "the game is over: there is nothing to evaluate")
    result = analysis.evaluate(position, _network(args, position.rules.game), args.plies,
                               _search_filter(args), args.cube_owner)
    if args.json:
        _print_json({"position": position.to_string(), **result.as_dict()})
        return 0
    names = ("win", "win by mars/gammon", "win by koks/backgammon", "lose by mars/gammon",
             "lose by koks/backgammon")
    print(f"{position.to_string()}   {position.turn} on roll, {args.plies} ply")
    for name, value in zip(names, result.probabilities):
        print(f"  {name:<26} {_percent(value)}")
    print(f"  cubeless equity            {result.equity:+.3f}")
    cube = result.cube
    print(f"money cube ({args.cube_owner}; Janowski's model as gnubg approximates it, "
          f"x = {cube.efficiency:.2f}):")
    print(f"  no double     {cube.no_double:+.3f}")
    print(f"  double, take  {cube.double_take:+.3f}")
    print(f"  double, pass  {cube.double_pass:+.3f}")
    print(f"  proper action: {cube.action}")
    return 0


def _run_rollout(args: argparse.Namespace) -> int:
    from . import analysis

    position = _position(args)
    roll = _roll(args.dice) if args.dice else None
    moves = analysis.rollout(position, roll, args.games,
                             evaluator=_network(args, position.rules.game),
                             plies=args.plies, truncate=args.truncate, seed=args.seed,
                             workers=args.workers, progress=_progress(args, "rollout chunks"))
    if args.json:
        _print_json({"position": position.to_string(),
                     "dice": None if roll is None else list(roll), "games": args.games,
                     "plies": args.plies, "truncate": args.truncate, "seed": args.seed,
                     "moves": [m.as_dict() for m in moves]})
        return 0
    print(f"{position.to_string()}   {args.games} games a candidate, {args.plies} ply, "
          f"seed {args.seed}" + (f", truncated at {args.truncate}" if args.truncate else ""))
    for move in moves:
        name = "(no roll)" if move.turn is None else str(move.turn)
        print(f"  {name:<28} {move.mean:+.3f}  95% [{move.ci[0]:+.3f}, {move.ci[1]:+.3f}]"
              f"   without variance reduction {move.plain_mean:+.3f} "
              f"+- {1.96 * move.plain_stderr:.3f}")
    return 0


def _run_analyse(args: argparse.Namespace) -> int:
    from . import analysis

    try:
        text = _files.read_text(args.file)
    except OSError as exc:
        raise FastNardyError(f"cannot read {args.file}: {exc.strerror or exc}") from None
    games = read_games(text, args.file)
    if not games:
        raise InvalidRecordError(f"{args.file} holds no game")
    result = analysis.analyse(text, args.file, _network(args, games[0].rules.game),
                              args.plies, _search_filter(args),
                              _progress(args, "turns analysed"))
    if args.html is not None:
        from . import analysis_page

        _write_file(args.html, analysis_page.page(result, Path(args.file).name).encode("utf-8"))
    if args.json:
        _print_json({"file": args.file, **result.as_dict()})
        return 0
    for turn in result.turns:
        note = "" if turn.forced else f"  lost {turn.loss:.3f}"
        if turn.mark:
            note += f"  {turn.mark}: best {turn.best}"
        print(f"{turn.game}.{turn.number:<3} {turn.side:<5} {format_roll(turn.roll)}  "
              f"{str(turn.played):<26} luck {turn.luck:+.3f}{note}")
    for side in ("white", "black"):
        totals = result.side(side)
        marks = ", ".join(f"{count} {name}" for name, count in totals["marks"].items())
        print(f"{side} ({totals['name']}): error rate {totals['error_rate']:.1f} mEMG over "
              f"{totals['unforced']} unforced turns ({marks}); luck {totals['luck']:+.3f}")
    return 0


def _run_match(args: argparse.Namespace) -> int:
    from . import match

    if args.games % 2:
        raise FastNardyError(f"--games must be even (pairs of games with the same dice), not "
                             f"{args.games}")
    gnubg = any(spec.startswith("gnubg:") for spec in (args.a, args.b))
    game = args.game or (SHORT if gnubg else LONG)
    row = match.match(game, args.a, args.b, args.games, args.seed, weights=args.weights,
                      progress=_progress(args, "games"))
    if args.json:
        _print_json(row)
        return 0
    print(f"{game} nardy, {args.a} against {args.b}: {row['games']} games (seed {args.seed}, "
          f"{row['unfinished']} unfinished)")
    print(f"  {args.a} wins {row['a wins']:.1%} +- {row['a wins 95%']:.1%}, "
          f"{row['a points/game']:+.3f} +- {row['points 95%']:.3f} points a game (95%)")
    return 0


# --------------------------------------------------------------------------- main

def _run(argv: Optional[Sequence[str]]) -> int:
    try:
        args = build_parser(_prog()).parse_args(argv)
    except SystemExit as exc:  # --help, --version and usage errors have been printed
        return exc.code if isinstance(exc.code, int) else 0
    status: int = args.run(args)
    return status


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command line on ``argv`` (default ``sys.argv[1:]``) and return the exit status:
    errors of input are one line on stderr, never a traceback."""
    try:
        status = _run(argv)
        sys.stdout.flush()  # inside the try: a reader that went away shows here
        return status
    except FastNardyError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:  # Ctrl-C, wherever it came: the kernel stops within milliseconds
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # `fastnardy turns ... | head -3`: exit as a process that SIGPIPE ends (128 + 13)
        _drop_stdout()
        return EXIT_BROKEN_PIPE
    except OSError as exc:  # stdout on a full disk (/dev/full), a file system gone away
        _drop_stdout()
        print(f"error: cannot write: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE


def _drop_stdout() -> None:
    """Point stdout at devnull, so that Python's last flush does not fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


if __name__ == "__main__":
    sys.exit(main())
