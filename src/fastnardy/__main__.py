"""Command line: ``python -m fastnardy perft long 4`` and friends.

    python -m fastnardy perft {long,short,POSITION} DEPTH [--weighted] [--divide]
                                [--backend kernel|reference] [--head-rule ...] ...
    python -m fastnardy turns POSITION D1 D2
    python -m fastnardy board POSITION
    python -m fastnardy rules [RULE_ID]
"""

from __future__ import annotations

import argparse
import sys
import time

from . import Position, Rules, perft, perft_divide, rulebook
from .errors import FastNardyError
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
    _add_rules_command(sub)
    args = parser.parse_args(argv)
    if args.command == "rules":
        return _run_rules(args)
    try:
        position = _position(args)
        if args.command == "board":
            print(position)
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
