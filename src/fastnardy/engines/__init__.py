"""Other engines as cross-check engines: each module of this package speaks
:mod:`fastnardy.engines.crosscheck`'s protocol on stdin/stdout when run as a program::

    fastnardy crosscheck "python -m fastnardy.engines.reference" long 2
    fastnardy crosscheck "python -m fastnardy.engines.openspiel" short 2 --movegen
    fastnardy crosscheck "python -m fastnardy.engines.gnubg" short 2 --movegen
    fastnardy crosscheck "python -m fastnardy.engines.bgsage" short 2 --movegen

* ``reference``: fastnardy's pure-Python reference, whole or broken in one rule
  (``--break RULE``), the checker's own test;
* ``openspiel``: OpenSpiel's C++ backgammon (pyspiel, the ``openspiel`` extra);
* ``gnubg``: GNU Backgammon's move list (its ``hint``), from the ``gnubg`` program;
* ``bgsage``: bgsage's move generator (``pip install bgsage``).

Each imports its engine only when run and, when the engine is absent, exits with status 2
and one line on stderr saying what to install. A move generator that cannot count (every
one but the reference) answers ``divide 1`` only: cross-check it with ``--movegen``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Callable, List, NoReturn, Optional, Sequence, Tuple

from ..notation import encode_position_id, format_rules, format_side
from ..position import Position

Roll = Tuple[int, int]
Frame = Tuple[Sequence[int], int, Sequence[int], int]  # mover's points, bar, opponent's
Divide = Callable[[int, Roll, Position, bool], List[str]]  # depth, roll, position, as an ID


def absent(what: str, remedy: str) -> NoReturn:
    """Exit with status 2 and one line: the engine's dependency is not installed."""
    sys.stderr.write(f"error: {what} is not installed ({remedy})\n")
    raise SystemExit(2)


def read_position(text: str) -> Tuple[Position, bool]:
    """A request's position (a position string or a GNU Backgammon ID) and whether it was
    an ID."""
    if " " not in text:
        return Position.from_gnubg_id(text), True
    return Position.from_string(text), False


def child_text(parent: Position, as_id: bool, child: Frame) -> str:
    """A child, in the parent mover's frame, as the request wrote its position: an ID for
    its player on roll (the opponent), or a position string with the opponent to move. No
    T7 check: a broken engine's impossible child must still be written."""
    me, me_bar, opp, opp_bar = child
    if as_id:
        return encode_position_id(opp, opp_bar, me, me_bar)
    white, black = ((me, me_bar), (opp, opp_bar)) if parent.turn == "white" else \
        ((opp, opp_bar), (me, me_bar))
    other = "b" if parent.turn == "white" else "w"
    return " ".join((format_rules(parent.rules), other, format_side(*white),
                     format_side(*black)))


def _roll(text: str) -> Roll:
    high, _, low = text.partition("-")
    if not (high.isdigit() and low.isdigit()):
        raise ValueError(f"a roll is written HIGH-LOW (6-5), not {text!r}")
    return int(high), int(low)


def _answer(divide: Divide, words: Sequence[str]) -> List[str]:
    depth, roll, text = words
    if not depth.isdigit() or int(depth) < 1:
        raise ValueError(f"a depth is an integer of at least 1, not {depth!r}")
    position, as_id = read_position(text.strip())
    return divide(int(depth), _roll(roll), position, as_id) + ["end"]


def options(description: str) -> argparse.ArgumentParser:
    """An engine's argument parser, with ``--one-shot DEPTH ROLL POSITION``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--one-shot", nargs=3, metavar=("DEPTH", "ROLL", "POSITION"),
                        help="answer one request and exit (perftree's way)")
    return parser


def serve(divide: Divide, one_shot: Optional[Sequence[str]] = None) -> int:
    """Run the protocol: ``divide DEPTH ROLL POSITION`` lines on stdin, answered by
    ``divide`` (its lines, then ``end``; a ValueError, FastNardyError included, is an
    ``error MESSAGE`` line), until ``quit``; or, given ``one_shot`` (DEPTH, ROLL, POSITION),
    that one answer."""
    requests = [["divide", *one_shot]] if one_shot else (line.split(maxsplit=3)
                                                          for line in sys.stdin)
    for words in requests:
        if words == ["quit"]:
            break
        try:
            if len(words) != 4 or words[0] != "divide":
                raise ValueError(f"unknown request {' '.join(words)!r}")
            lines = _answer(divide, words[1:])
        except ValueError as exc:  # FastNardyError too: an answer, not a crash
            lines = [f"error {' '.join(str(exc).split())}"]
        print("\n".join(lines), flush=True)
    return 0


def depth_one(depth: int, engine: str) -> None:
    """A move generator's refusal of a deeper request (ValueError: an ``error`` answer)."""
    if depth != 1:
        raise ValueError(f"{engine} answers divide 1 only (its children): cross-check it with "
                         f"--movegen")
