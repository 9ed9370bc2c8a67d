"""The rules at work on one position or a game: ``turns``, ``check``, ``board``,
``check-game`` and ``rules`` (the rule book)."""

from __future__ import annotations

import argparse
import sys
from typing import Dict, List, Tuple

from ..basics import ALL_ROLLS
from ..game import Game
from ..position import Position
from .. import rules as rulebook
from .._utils import files as _files
from ..errors import FastNardyError, IllegalTurnError, InvalidRecordError
from ..formats.games import iter_games
from ..notation import format_roll
from ..rules import SHORT

from .options import (EXIT_ILLEGAL, Parser, add_backend, add_json, add_picture_options,
                      add_position, add_progress, print_json, progress_printer, read_position,
                      read_roll, read_state, turn_json, write_file)

# the command line's parts; its API is fastnardy.cli's main and build_parser
__all__: List[str] = []


def add_turns(sub: "argparse._SubParsersAction[Parser]") -> None:
    p_turns = sub.add_parser("turns", help="list the legal turns for a roll, in T2 order",
                             description="The legal turns (T1) for a roll, one a line in T2 "
                                         "order; a pass is written 'pass'. With 'all', the "
                                         "turns of the 21 rolls, each line led by its roll.")
    add_position(p_turns)
    p_turns.add_argument("dice", nargs="+", metavar="DICE",
                         help="the roll: '6 5' or '6-5', or 'all' for the 21 rolls")
    add_backend(p_turns)
    add_json(p_turns)
    p_turns.set_defaults(run=_run_turns)


def add_check(sub: "argparse._SubParsersAction[Parser]") -> None:
    p_check = sub.add_parser(
        "check", help="referee one turn: is it legal for this position and roll?",
        description="Exit 0 and print the turn in T2 notation when it is legal; exit 1 and "
                    "print the rule it breaks ('L5: ...') when it is not; exit 2 when the "
                    "position, the dice or the notation do not read ('T1: ...'). A checker "
                    "moving several dice may be written as one move, '24/13' for 6-5.")
    add_position(p_check)
    p_check.add_argument("dice", metavar="DICE", help="the roll: '6-5' or '6 5'")
    p_check.add_argument("turn", nargs="+", metavar="TURN",
                         help="the turn in notation, '24/18 18/13' (quoted or not), or 'pass'")
    add_json(p_check)
    p_check.set_defaults(run=_run_check)


def add_board(sub: "argparse._SubParsersAction[Parser]") -> None:
    p_board = sub.add_parser("board", help="draw the position (text, SVG or PNG)",
                             description="Print the position's board (white's numbering) and "
                                         "optionally write it as a picture.")
    add_position(p_board)
    add_picture_options(p_board)
    add_json(p_board)
    p_board.set_defaults(run=_run_board)


def add_check_game(sub: "argparse._SubParsersAction[Parser]") -> None:
    p_check = sub.add_parser(
        "check-game", help="replay game records and name the first illegal turn of each game",
        description="Replay fastnardy records and GNU Backgammon .mat match exports (chosen by "
                    "the .mat extension or the content). Exit 0 when every turn is legal, 1 when "
                    "one is not, 2 when a file cannot be read.")
    p_check.add_argument("files", nargs="+", metavar="FILE",
                         help="a fastnardy record or a GNU Backgammon .mat export")
    add_progress(p_check)
    p_check.set_defaults(run=_check_game)


def add_rules(sub: "argparse._SubParsersAction[Parser]") -> None:
    p_rules = sub.add_parser("rules", help="the rule book: every rule id, or one rule",
                             description="The rule book fastnardy implements: without RULE_ID "
                                         "every rule id with its title, with one the rule's "
                                         "full text.")
    p_rules.add_argument("rule_id", nargs="?", help="a rule id such as L5, S8 or T2")
    p_rules.set_defaults(run=_run_rules)


def _run_turns(args: argparse.Namespace) -> int:
    """The legal turns of one roll, or with 'all' of the 21 (each line led by its roll)."""
    position = read_position(args)
    if args.dice != ["all"]:
        roll = read_roll(args.dice)
        turns = position.legal_turns(roll, backend=args.backend)
        if args.json:
            print_json({"position": position.to_string(), "dice": list(roll),
                         "turns": [turn_json(turn) for turn in turns]})
        else:
            for turn in turns:
                print(turn)
        return 0
    rolls = sorted(((max(roll), min(roll)) for roll in ALL_ROLLS), reverse=True)
    listed = [(roll, position.legal_turns(roll, backend=args.backend)) for roll in rolls]
    if args.json:
        print_json({"position": position.to_string(),
                     "rolls": [{"dice": list(roll), "turns": [turn_json(turn) for turn in turns]}
                               for roll, turns in listed]})
    else:
        for roll, turns in listed:
            for turn in turns:
                print(f"{format_roll(roll)}  {turn}")
    return 0


def _run_check(args: argparse.Namespace) -> int:
    position, words = read_position(args), list(args.turn)
    dice = [args.dice]
    if args.dice.isdigit() and words[0].isdigit():  # '6 5 24/18 18/13': the dice in two words
        dice.append(words.pop(0))
    roll = read_roll(dice)
    if not words:
        raise FastNardyError("TURN is missing (write 'pass' for a pass)")
    try:
        turn = position.check_turn(roll, " ".join(words))
    except IllegalTurnError as exc:
        if args.json:
            print_json({"legal": False, "rule": exc.rule, "step": exc.step,
                         "message": str(exc)[len(exc.rule) + 2:]})
        else:
            print(exc)
        return EXIT_ILLEGAL
    if args.json:
        print_json({"legal": True, **turn_json(turn)})
    else:
        print(turn)
    return 0


def _run_board(args: argparse.Namespace) -> int:
    position = read_position(args)
    pictures = _pictures(args, position)  # a missing PNG renderer fails before any output
    if args.json:
        document: Dict[str, object] = {
            "position": position.to_string(), "turn": position.turn,
            "white_points": list(position.white_points), "white_bar": position.white_bar,
            "white_off": position.white_off, "black_points": list(position.black_points),
            "black_bar": position.black_bar, "black_off": position.black_off}
        if position.rules.game == SHORT:
            document.update(gnubg_id=position.gnubg_id(), **_ids(args, position))
        print_json(document)
    else:
        print(position)
        if position.rules.game == SHORT and not position.is_game_over():
            print("\n".join(f"{name}: {text}" for name, text in _ids(args, position).items()))
    for path, content in pictures:
        write_file(path, content)
    return 0


def _ids(args: argparse.Namespace, position: Position) -> Dict[str, str]:
    """A short-nardy position's XGID and GNU Backgammon's ids, with the dice, cube and score
    of the id it was read from (else money play before the roll); none once it is over."""
    from ..formats import ids

    if position.is_game_over():
        return {}
    state = read_state(args)
    state = ids.MatchState(position) if state is None else state._replace(position=position)
    written = {"gnubg_ids": ids.write_gnubg_ids(state)}
    if not state.doubled:  # an offer has no XGID (fastnardy.formats.ids)
        written = {"xgid": ids.write_xgid(state), **written}
    return written


def _pictures(args: argparse.Namespace, position: Position) -> List[Tuple[str, bytes]]:
    """The board command's --svg and --png files (fastnardy.formats.svg), as (path, content)."""
    if args.svg is None and args.png is None:
        return []
    from ..formats import svg

    document = svg.board(position, flipped=args.flipped, highlight=args.highlight)
    pictures = []
    if args.svg is not None:
        pictures.append((args.svg, document.encode("utf-8")))
    if args.png is not None:
        pictures.append((args.png, svg.to_png(document)))
    return pictures


def _check_game(args: argparse.Namespace) -> int:
    """check-game: 0 all legal, 1 an illegal turn (named with its game, move, roll, rule and
    line), 2 a file that cannot be read or parsed. A .mat is replayed as it is read, a game
    at a time (memory for one game), with a progress line over the characters read."""
    status = 0
    for path in args.files:
        illegal = unreadable = games = turns = 0
        try:
            text = _files.read_text(path)
            for games, record in enumerate(iter_games(text, path, progress_printer(
                    args, f"{path}: characters read")), 1):
                turns += len(record.turns)
                try:
                    Game.from_record(record)
                except IllegalTurnError as exc:
                    print(f"{path}: game {games}: illegal turn: {exc}")
                    illegal += 1
                except InvalidRecordError as exc:  # a turn whose notation does not read (T1)
                    print(f"{path}: game {games}: error: {exc}", file=sys.stderr)
                    unreadable += 1
        except (OSError, FastNardyError) as exc:  # the file, or a line of it, does not read
            print(f"{path}: error: {exc}", file=sys.stderr)
            status = 2
            continue
        if unreadable:
            status = 2
        elif illegal:
            status = max(status, 1)
        else:
            print(f"{path}: {games} game{'s' * (games != 1)}, {turns} turns, all legal")
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
