"""Command line: ``fastnardy perft long 4`` (or ``python -m fastnardy perft long 4``) and friends::

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
                      [--dask ADDRESS] [--seed S] [--json]
    fastnardy analyse FILE [--plies N] [--json] [--html OUT]
    fastnardy match A B [--game G] [--games N] [--seed S] [--json]
    fastnardy benchmark-error PLAYER [--game G] [--set FILE] [--against OTHER] [--json]
    fastnardy benchmark-build GAME [--per-class N] [--games G] [--seed S] [--played P]
                              [--processes K | --dask ADDRESS] [--out FILE]
    fastnardy bearoff-build [--checkers N] [--out FILE] [--progress] [--json]

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
import os
import sys
from typing import Optional, Sequence

from .. import __version__
from ..errors import EngineError, FastNardyError
from . import analysis, crosscheck, perft, play, turns
from .options import EXIT_BROKEN_PIPE, EXIT_INTERRUPTED, EXIT_USAGE, Parser, prog_name

__all__ = ["build_parser", "main"]


def build_parser(prog: str = "python -m fastnardy") -> argparse.ArgumentParser:
    """The command line's parser; each subcommand sets ``run``, the function that runs it."""
    parser = Parser(
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

    perft.add_perft(sub)
    turns.add_turns(sub)
    turns.add_check(sub)
    turns.add_board(sub)
    play.add_play(sub)
    perft.add_bench(sub)
    turns.add_check_game(sub)
    crosscheck.add_crosscheck(sub)
    analysis.add_hint(sub)
    analysis.add_eval(sub)
    analysis.add_rollout(sub)
    analysis.add_analyse(sub)
    analysis.add_benchmark(sub)
    play.add_match(sub)
    play.add_serve(sub)
    play.add_ubgi(sub)
    turns.add_rules(sub)
    return parser


def _run(argv: Optional[Sequence[str]]) -> int:
    try:
        args = build_parser(prog_name()).parse_args(argv)
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
    except (FastNardyError, EngineError) as exc:  # bad input, or another engine failed
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
