"""Command line: ``python -m fastnardy perft long 4`` and friends.

    python -m fastnardy perft {long,short,POSITION} DEPTH [--weighted] [--divide]
                                [--backend kernel|reference] [--head-rule ...] ...
    python -m fastnardy turns POSITION D1 D2
    python -m fastnardy board POSITION [--svg FILE] [--png FILE] [--flipped] [--highlight TURN]
    python -m fastnardy check-game FILE...   (fastnardy records or GNU Backgammon .mat exports)
    python -m fastnardy rules [RULE_ID]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import List

from . import Game, Position, Rules, perft, perft_divide, rulebook
from .errors import FastNardyError, IllegalTurnError
from .record import read_games
from .rules import BLOCK_CHECKS, BLOCK_RULES, HEAD_RULES, HIT_AND_HIDE


def _position(args) -> Position:
    if args.position in ("long", "short"):
        if args.position == "long":
            rules = Rules.long(head_rule=args.head_rule, block_rule=args.block_rule,
                               block_check=args.block_check)
        else:
            rules = Rules.short(hit_and_hide=args.hit_and_hide)
        return Position.start(rules)
    return Position.from_string(args.position)


def _add_position(parser) -> None:
    parser.add_argument("position", help="'long', 'short' (the start) or a position string")
    parser.add_argument("--head-rule", choices=HEAD_RULES, default="classic")
    parser.add_argument("--block-rule", choices=BLOCK_RULES, default="opponent_ahead")
    parser.add_argument("--block-check", choices=BLOCK_CHECKS, default="every_step")
    parser.add_argument("--hit-and-hide", choices=HIT_AND_HIDE, default="allowed")
    parser.add_argument("--backend", choices=("kernel", "reference"), default=None)


def _add_picture_options(parser) -> None:
    parser.add_argument("--svg", metavar="FILE", help="also write the board as an SVG picture")
    parser.add_argument("--png", metavar="FILE",
                        help="also write it as a PNG (through cairosvg or headless Chromium)")
    parser.add_argument("--flipped", action="store_true", help="pictures from black's side")
    parser.add_argument("--highlight", metavar="TURN",
                        help="draw this legal turn's steps as arrows in the pictures")


def _write_pictures(args, position: Position) -> None:
    """The board command's --svg and --png files (fastnardy.svg)."""
    if args.svg is None and args.png is None:
        return
    from . import svg

    document = svg.board(position, flipped=args.flipped, highlight=args.highlight)
    if args.svg is not None:
        _write_file(args.svg, document.encode("utf-8"))
    if args.png is not None:
        _write_file(args.png, svg.to_png(document))


def _write_file(path: str, content: bytes) -> None:
    try:
        Path(path).write_bytes(content)
    except OSError as exc:
        raise FastNardyError(f"cannot write {path}: {exc.strerror}") from None


def _add_rules_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p_rules = sub.add_parser("rules", help="the rule book: every rule id, or one rule")
    p_rules.add_argument("rule_id", nargs="?", help="a rule id such as L5, S8 or T2")


def _run_rules(args: argparse.Namespace) -> int:
    """Print one rule of docs/rules.md, or every id with its title; an unknown id exits 2."""
    if args.rule_id is None:
        for rule_id, title in rulebook.titles().items():
            print(f"{rule_id:<4} {title}")
        return 0
    try:
        print(rulebook.describe(args.rule_id))
    except FastNardyError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fastnardy", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_perft = sub.add_parser("perft", help="T5 perft for depths 1..DEPTH (or only DEPTH)")
    _add_position(p_perft)
    p_perft.add_argument("depth", type=int)
    p_perft.add_argument("--weighted", action="store_true", help="36 outcomes, not 21 rolls")
    p_perft.add_argument("--divide", action="store_true", help="split the count by roll and turn")
    p_perft.add_argument("--only", action="store_true", help="only DEPTH, not 1..DEPTH")
    p_turns = sub.add_parser("turns", help="the legal turns for a roll")
    _add_position(p_turns)
    p_turns.add_argument("dice", type=int, nargs=2)
    p_board = sub.add_parser("board", help="draw the position")
    _add_position(p_board)
    _add_picture_options(p_board)
    _add_check_game(sub)
    _add_rules_command(sub)
    args = parser.parse_args(argv)
    if args.command == "check-game":
        return _check_game(args.files)
    if args.command == "rules":
        return _run_rules(args)
    try:
        position = _position(args)
        if args.command == "board":
            print(position)
            _write_pictures(args, position)
        elif args.command == "turns":
            for turn in position.legal_turns(args.dice, backend=args.backend):
                print(turn)
        elif args.divide:
            total = 0
            for roll, turns in perft_divide(position, args.depth, weighted=args.weighted,
                                            backend=args.backend).items():
                for turn, count in turns:
                    print(f"{roll[0]}-{roll[1]}  {str(turn):<32} {count}")
                    total += count
            print(f"total {total}")
        else:
            print(f"{position.to_string()}")
            depths = [args.depth] if args.only else range(1, args.depth + 1)
            for depth in depths:
                start = time.perf_counter()
                count = perft(position, depth, weighted=args.weighted, backend=args.backend)
                seconds = time.perf_counter() - start
                print(f"perft({depth}) = {count:>15,}   {seconds:8.3f} s")
    except FastNardyError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C: the kernel stops within milliseconds
        print("interrupted", file=sys.stderr)
        return 130
    return 0


def _add_check_game(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p_check = sub.add_parser(
        "check-game", help="replay game records and name the first illegal turn of each game",
        description="Replay fastnardy records and GNU Backgammon .mat match exports (chosen by "
                    "the .mat extension or the content). Exit 0 when every turn is legal, 1 when "
                    "one is not, 2 when a file cannot be read.")
    p_check.add_argument("files", nargs="+", metavar="FILE")


def _check_game(files: List[str]) -> int:
    """check-game: 0 all legal, 1 an illegal turn (named with its game, move, roll, rule and
    line), 2 a file that cannot be read or parsed."""
    status = 0
    for path in files:
        try:
            with open(path, encoding="utf-8") as handle:
                records = read_games(handle.read(), path)
        except (OSError, UnicodeDecodeError, FastNardyError) as exc:
            print(f"{path}: error: {exc}", file=sys.stderr)
            status = 2
            continue
        illegal = 0
        for number, record in enumerate(records, 1):
            try:
                Game.from_record(record)
            except IllegalTurnError as exc:
                print(f"{path}: game {number}: illegal turn: {exc}")
                illegal += 1
        if illegal:
            status = max(status, 1)
        else:
            turns = sum(len(record.turns) for record in records)
            print(f"{path}: {len(records)} game{'s' * (len(records) != 1)}, {turns} turns, "
                  f"all legal")
    return status


if __name__ == "__main__":
    sys.exit(main())
