"""Games played: ``play`` (a game at the terminal, a person or a policy on each side) and
``match`` (bots against bots, GNU Backgammon among them)."""

from __future__ import annotations

import argparse
from typing import List

from ..game import Game, Match
from ..position import Position
from ..basics import Roll
from ..errors import FastNardyError
from ..play.interactive import POLICIES as PLAY_POLICIES
from ..notation import parse_rules
from ..rules import LONG, SHORT, Rules

from .options import (Parser, add_json, add_met, add_position, add_progress, at_least,
                      depth_arg, positive_arg, print_json, progress_printer, read_met_option,
                      read_position, write_file)

# the command line's parts; its API is fastnardy.cli's main and build_parser
__all__: List[str] = []


def add_play(sub: "argparse._SubParsersAction[Parser]") -> None:
    p_play = sub.add_parser(
        "play", help="play a game in the terminal: self-play, or you against the computer",
        description="Self-play (random turns by default), printing each turn and the board; "
                    "or, with --human, you play one side against a policy (greedy by "
                    "default): type a turn in notation, '?' lists the legal turns (then a "
                    "number picks one), 'q' quits.")
    add_position(p_play)
    p_play.add_argument("--seed", type=int, default=None,
                        help="seed the dice and the policy (the same seed plays the same game)")
    p_play.add_argument("--turns", type=positive_arg, default=None, metavar="N",
                        help="stop after N turns")
    p_play.add_argument("--quiet", action="store_true", help="print the turns, not the boards")
    p_play.add_argument("--human", choices=("white", "black"), default=None,
                        help="you play this side, reading turns from stdin")
    p_play.add_argument("--policy", choices=PLAY_POLICIES, default=None,
                        metavar="{random,greedy,net[:PLIES]}",
                        help="how the computer chooses: uniformly at random (self-play's "
                             "default), the turn with the best simple evaluation (the "
                             "default against a person; see "
                             "fastnardy.play.interactive.evaluate) or the "
                             "shipped network searched PLIES deep (0-2, default 0); against "
                             "a person, 'h' prints the network's hint")
    p_play.add_argument("--cube", action="store_true",
                        help="play with the cube (C1-C5, C8): before each throw the side to "
                             "move may offer ('d'), the other takes ('t') or passes ('p'); "
                             "the network policies offer and answer by their cube decision")
    p_play.add_argument("--record", metavar="FILE", default=None,
                        help="write the game as a fastnardy record (check-game reads it)")
    p_play.set_defaults(run=_run_play)


def add_match(sub: "argparse._SubParsersAction[Parser]") -> None:
    p_match = sub.add_parser(
        "match", help="seeded paired games between two players: wins and points a game",
        description="Games of A against B in pairs with the same dice (A white in one, black "
                    "in the other), scored by L10/S9 without a cube: A's wins and points a "
                    "game with 95%% intervals (fastnardy.play.match); with --to N, matches to "
                    "N points with the cube (C1-C7: the bots offer, take and drop), A's match "
                    "wins; with --cube, money games with the cube (C8). Players: random, greedy, "
                    "net:PLIES (the shipped evaluator, 0-2 plies), FILE.npz[:PLIES] (a saved "
                    "one), either with :int16 after it (integer arithmetic: net:0:int16), gnubg:beginner or gnubg:expert (GNU Backgammon, short nardy, when "
                    "installed; gnubg:expert:PLIES at 1 or 2 plies).")
    p_match.add_argument("a", metavar="A", help="the first player")
    p_match.add_argument("b", metavar="B", help="the second player")
    p_match.add_argument("--game", type=_rules_arg, default=None, metavar="RULES",
                         help="long or short, with variants as a position string's rules "
                              "field (long(stakes=arithmetic), short(crawford=False)); default "
                              "long, or short when a player is gnubg")
    p_match.add_argument("--games", type=at_least(2), default=200, metavar="N",
                         help="games (matches with --to), even (pairs with the same dice; "
                              "default 200)")
    cube = p_match.add_mutually_exclusive_group()
    cube.add_argument("--to", type=at_least(1), default=None, metavar="POINTS",
                      help="matches to POINTS with the cube (C6, C7 in the rules' variant)")
    cube.add_argument("--cube", action="store_true",
                      help="money games with the cube (C1-C5, C8)")
    add_met(p_match)
    p_match.add_argument("--record", metavar="FILE", default=None,
                         help="with --to or --cube: write the first match as a record (a "
                              "fastnardy match record, or with FILE.mat in short nardy GNU "
                              "Backgammon's .mat), its players named a and b; analyse reads "
                              "both")
    p_match.add_argument("--seed", type=depth_arg, default=0, metavar="S", help="default 0")
    p_match.add_argument("--weights", metavar="FILE", default=None,
                         help="an evaluator .npz for net:PLIES instead of the shipped one")
    add_progress(p_match)
    add_json(p_match)
    p_match.set_defaults(run=_run_match)


def add_serve(sub: "argparse._SubParsersAction[Parser]") -> None:
    p_serve = sub.add_parser(
        "serve", help="serve the short network as GNU Backgammon's external player",
        description="Listen on HOST:PORT and play for GNU Backgammon's player 1 (in gnubg: "
                    "set player 1 external HOST:PORT, then new match N): gnubg writes a FIBS "
                    "board line at each of the bot's decisions and reads its roll, double, "
                    "take, drop or move (fastnardy.play.external). Prints the address, then "
                    "serves GAMES connections.")
    p_serve.add_argument("--host", default="127.0.0.1", help="default 127.0.0.1")
    p_serve.add_argument("--port", type=_port_arg, default=0, metavar="PORT",
                         help="default 0: any free port (printed)")
    p_serve.add_argument("--games", type=positive_arg, default=1, metavar="N",
                         help="connections to serve, one after another (default 1)")
    p_serve.add_argument("--weights", metavar="FILE", default=None,
                         help="a short-nardy evaluator .npz instead of the shipped one")
    add_met(p_serve)
    p_serve.set_defaults(run=_run_serve)


def _port_arg(text: str) -> int:
    """``--port``: 0 to 65535."""
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 to 65535, not {text[:20]!r}")
    return int(text)


def _run_serve(args: argparse.Namespace) -> int:
    import socket

    from ..play import external
    from ..search.network import Evaluator

    network = Evaluator.load(args.weights or "short")
    try:
        listener = socket.create_server((args.host, args.port))
    except OSError as error:
        raise FastNardyError(f"cannot listen on {args.host}:{args.port}: "
                             f"{error.strerror or error}") from None
    with listener:
        host, port = listener.getsockname()[:2]
        print(f"listening on {host}:{port} (gnubg: set player 1 external {host}:{port})",
              flush=True)
        lines = external.serve(network=network, met=read_met_option(args), ready=listener,
                               games=args.games)
    print(f"served {len(lines)} decisions")
    return 0


def _run_play(args: argparse.Namespace) -> int:
    from ..play import interactive as play

    position = read_position(args)
    if args.position in (LONG, SHORT):
        game = Game(position.rules, args.seed)
    else:
        game = Game.from_position(position, args.seed)
    policy = args.policy or ("greedy" if args.human else "random")
    play.play_game(game, play.policy(policy, args.seed), human=args.human,
                   max_turns=args.turns, boards=not args.quiet,
                   hint=_hint_text if args.human else None, cube=args.cube,
                   cube_choice=play.net_cube if policy.startswith("net") else None)
    if args.record is not None:
        write_file(args.record, game.record().encode("utf-8"))
    return 0


def _rules_arg(text: str) -> Rules:
    """``--game``: a rules field (``long``, ``short(crawford=False)``)."""
    try:
        return parse_rules(text)
    except FastNardyError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _write_match(path: str, played: object) -> None:
    """``fastnardy match --record``: the first match (or money game) as a record file."""
    if path.lower().endswith(".mat"):
        from ..formats.mat import match_games, write_mat

        if not isinstance(played, Match) or played.rules.game != SHORT:
            raise FastNardyError("a .mat file holds a short-nardy match (--to N); write a "
                                 "fastnardy record instead")
        text = write_mat(match_games(played))
    else:
        text = played.record()  # type: ignore[attr-defined]  # Match or Game
    write_file(path, text.encode("utf-8"))


def _hint_text(position: Position, roll: Roll) -> str:
    """The network's five best turns at 0 ply, for play's 'h' key."""
    from .. import analysis

    return "\n".join(f"{rank:4}) {str(move.turn):<28} {move.equity:+.3f}"
                     for rank, move in enumerate(analysis.hint(position, roll)[:5], 1))


def _run_match(args: argparse.Namespace) -> int:
    from ..play import match

    if args.games % 2:
        raise FastNardyError(f"--games must be even (pairs of games with the same dice), not "
                             f"{args.games}")
    gnubg = any(spec.startswith("gnubg:") for spec in (args.a, args.b))
    rules = args.game or Rules.of(SHORT if gnubg else LONG)
    game = rules.game
    if args.to is not None or args.cube:
        length = args.to or 0
        row = match.cube_match(rules, args.a, args.b, args.games, length, args.seed,
                               weights=args.weights, met=read_met_option(args),
                               progress=progress_printer(args, "matches" if length
                                                         else "games"),
                               record=None if args.record is None
                               else lambda played: _write_match(args.record, played))
        if args.json:
            print_json(row)
            return 0
        what = f"{row['matches']} matches to {length}" if length else \
            f"{row['matches']} money games with the cube"
        print(f"{game} nardy, {args.a} against {args.b}: {what} (seed {args.seed}, "
              f"{row['unfinished']} unfinished, {row['games']} games)")
        key = "a points - b's a match" if length else "a points/game"
        wins, half = row["a wins 95%"], row["points 95%"]
        print(f"  {args.a} wins {row['a wins']:.1%} +- "
              f"{'n/a' if wins is None else format(wins, '.1%')}, {row[key]:+.3f} +- "
              f"{'n/a' if half is None else format(half, '.3f')} points "
              f"{'ahead a match' if length else 'a game'} (95%"
              + ("; one pair has no interval)" if half is None else ")"))
        for side, name in (("a", args.a), ("b", args.b)):
            counts = row[f"{side} offers, takes, drops"]
            assert isinstance(counts, list)
            print(f"  {name} offered {counts[0]} times, took {counts[1]}, dropped "
                  f"{counts[2]}")
        return 0
    row = match.match(rules, args.a, args.b, args.games, args.seed, weights=args.weights,
                      progress=progress_printer(args, "games"))
    if args.json:
        print_json(row)
        return 0
    print(f"{game} nardy, {args.a} against {args.b}: {row['games']} games (seed {args.seed}, "
          f"{row['unfinished']} unfinished)")
    wins, half = row["a wins 95%"], row["points 95%"]
    print(f"  {args.a} wins {row['a wins']:.1%} +- "
          f"{'n/a' if wins is None else format(wins, '.1%')}, {row['a points/game']:+.3f} +- "
          f"{'n/a' if half is None else format(half, '.3f')} points a game (95%)")
    return 0
