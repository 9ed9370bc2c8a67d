"""Games played: ``play`` (a game at the terminal, a person or a policy on each side) and
``match`` (bots against bots, GNU Backgammon among them)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, List

from ..game import Game, Match
from ..errors import FastNardyError
from ..notation import parse_rules
from ..rules import LONG, SHORT, Rules

if TYPE_CHECKING:
    from ..play.duel import Interval

from .options import (Parser, add_json, add_met, add_position, add_progress, at_least,
                      depth_arg, positive_arg, print_json, progress_printer, read_met_option,
                      read_position, read_state, write_file)

# the command line's parts; its API is fastnardy.cli's main and build_parser
__all__: List[str] = []


def add_play(sub: "argparse._SubParsersAction[Parser]") -> None:
    p_play = sub.add_parser(
        "play", help="play a game in the terminal: self-play, or you against the computer",
        description="Self-play (random turns by default), printing each turn and the board; "
                    "or, with --human, you play one side against a player (greedy by "
                    "default): type a turn in notation, '?' lists the legal turns, 'h' the "
                    "network's best turns (or its cube decision at an offer), a number "
                    "picks from the list shown last, 'q' quits. Each board shows its "
                    "position string (and Position ID in short nardy); a finished game "
                    "ends with a summary.")
    add_position(p_play)
    p_play.add_argument("--seed", type=int, default=None,
                        help="seed the dice and the policy (the same seed plays the same game)")
    p_play.add_argument("--turns", type=positive_arg, default=None, metavar="N",
                        help="stop after N turns")
    p_play.add_argument("--quiet", action="store_true", help="print the turns, not the boards")
    p_play.add_argument("--human", choices=("white", "black"), default=None,
                        help="you play this side, reading turns from stdin")
    p_play.add_argument("--player", metavar="SETTING", default=None,
                        help="the computer's setting (fastnardy.search.setting): random "
                             "(self-play's default), greedy (the default against a person), "
                             "net[:PLIES] (the shipped network), FILE.npz[:PLIES] or, in "
                             "short nardy, gnubg[:PRESET][:PLIES], gnubg-nn[:PLIES] or "
                             "bgsage[:PLIES]")
    p_play.add_argument("--cube", action="store_true",
                        help="play with the cube (C1-C5, C8): before each throw the side to "
                             "move may offer ('d'), the other takes ('t') or passes ('p'); "
                             "a network's, gnubg's or bgsage's player offers and answers by "
                             "its cube decision")
    p_play.add_argument("--record", metavar="FILE", default=None,
                        help="write the game as a fastnardy record (check-game reads it)")
    p_play.set_defaults(run=_run_play)


def add_match(sub: "argparse._SubParsersAction[Parser]") -> None:
    p_match = sub.add_parser(
        "match", help="seeded paired games between two players: wins and points a game",
        description="A duel: games of A against B in pairs with the same dice (A white in "
                    "one, black in the other), scored by L10/S9 without a cube: A's wins and "
                    "points a game with 95% intervals (fastnardy.play.duel); with --to N, "
                    "matches to N points with the cube (C1-C7: the bots offer, take and "
                    "drop), A's match wins; with --cube, money games with the cube (C8). "
                    "Players are settings (fastnardy.search.setting): random, greedy, "
                    "net[:PLIES][:float|:int16][:FILTER] (the shipped network), FILE.npz[...] (a "
                    "saved one), gnubg[:beginner|:expert][:PLIES] (GNU Backgammon, short "
                    "nardy, when installed), gnubg-nn[:PLIES] (its networks in process, "
                    "pip install gnubg-nn; no cube: it takes every offer), bgsage[:PLIES] "
                    "(pip install bgsage; 0 ply is its raw network, its 1ply), ubgi:COMMAND "
                    "(another engine speaking UBGI v0.2, run as COMMAND; it takes every "
                    "offer).")
    p_match.add_argument("a", metavar="A", help="the first player")
    p_match.add_argument("b", metavar="B", help="the second player")
    p_match.add_argument("--game", type=_rules_arg, default=None, metavar="RULES",
                         help="long or short, with variants as a position string's rules "
                              "field (long(stakes=arithmetic), short(crawford=False)); default "
                              "long, or short when a player plays short nardy only "
                              "(gnubg, gnubg-nn, bgsage)")
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
                              "fastnardy match record; GNU Backgammon's .mat with FILE.mat, "
                              "long nardy's with its variation line; GNU Backgammon's SGF "
                              "with FILE.sgf, short nardy), its players named by their "
                              "settings; analyse reads each")
    p_match.add_argument("--seed", type=depth_arg, default=0, metavar="S", help="default 0")
    add_progress(p_match)
    add_json(p_match)
    p_match.set_defaults(run=_run_match)


def add_serve(sub: "argparse._SubParsersAction[Parser]") -> None:
    p_serve = sub.add_parser(
        "serve", help="serve the short network as GNU Backgammon's external player",
        description="Listen on HOST:PORT and play for GNU Backgammon's player 1 (in gnubg: "
                    "set player 1 external HOST:PORT, then new match N): gnubg writes a FIBS "
                    "board line at each of the bot's decisions and reads its roll, double, "
                    "take, drop or move (fastnardy.play.external), the bot's choices those "
                    "of its setting at every door. Prints the address, then serves GAMES "
                    "connections.")
    p_serve.add_argument("--host", default="127.0.0.1", help="default 127.0.0.1")
    p_serve.add_argument("--port", type=_port_arg, default=0, metavar="PORT",
                         help="default 0: any free port (printed)")
    p_serve.add_argument("--games", type=positive_arg, default=1, metavar="N",
                         help="connections to serve, one after another (default 1)")
    p_serve.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                         help="end a connection silent this long (default 600)")
    p_serve.add_argument("--player", metavar="SETTING", default="net:0",
                         help="the bot's setting (fastnardy.search.setting; default net:0: "
                              "the shipped short network at 0 ply)")
    add_met(p_serve)
    p_serve.set_defaults(run=_run_serve)


def add_ubgi(sub: "argparse._SubParsersAction[Parser]") -> None:
    p_ubgi = sub.add_parser(
        "ubgi", help="run as a UBGI engine (Universal Backgammon Interface v0.2) on stdin/stdout",
        description="Read UBGI v0.2 commands on stdin and answer on stdout (bgci and other "
                    "controllers run engines so): ubgi, isready, newgame, position gnubgid|"
                    "xgid|fastnardy, dice, go [chequer|cube|turn], set/get/keys (engine.ply "
                    "1-4 in UBGI's plies, engine.evaluator, game.variant: backgammon, long or "
                    "a rules field), quit (fastnardy.play.ubgi).")
    p_ubgi.set_defaults(run=_run_ubgi)


def _run_ubgi(args: argparse.Namespace) -> int:
    import sys

    from ..play import ubgi

    ubgi.run(sys.stdin, sys.stdout)
    return 0


def _port_arg(text: str) -> int:
    """``--port``: 0 to 65535."""
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 to 65535, not {text[:20]!r}")
    return int(text)


def _run_serve(args: argparse.Namespace) -> int:
    import socket

    from ..play import external

    timeout = external.TIMEOUT if args.timeout is None else external.seconds(args.timeout)
    try:
        listener = socket.create_server((args.host, args.port))
    except OSError as error:
        raise FastNardyError(f"cannot listen on {args.host}:{args.port}: "
                             f"{error.strerror or error}") from None
    with listener:
        host, port = listener.getsockname()[:2]
        print(f"listening on {host}:{port} (gnubg: set player 1 external {host}:{port})",
              flush=True)
        served = external.serve(setting=args.player, met=read_met_option(args),
                                ready=listener, games=args.games, timeout=timeout)
    print(f"served {served.decisions} decisions in {served.games} games"
          + (f" ({served.errors} lines answered with an error)" if served.errors else ""))
    return 0


def _run_play(args: argparse.Namespace) -> int:
    from ..play import interactive
    from ..play.players import player
    from ..search.setting import setting

    position, state = read_position(args), read_state(args)
    if state is not None and (state.length or state.cube > 1 or state.doubled):
        raise FastNardyError("play plays one money game from a position with the cube at 1 "
                             "(--cube): this id holds a match, a raised cube or an offer")
    if args.position in (LONG, SHORT):
        game = Game(position.rules, args.seed)
    else:
        game = Game.from_position(position, args.seed)
        if state is not None and state.dice is not None:
            game.dice = state.dice  # the id's roll is the first to play
    spec = args.player or ("greedy" if args.human else "random")
    with player(spec, position.rules, args.seed or 0) as computer:
        interactive.play_game(game, computer, human=args.human, max_turns=args.turns,
                              boards=not args.quiet, hint=setting() if args.human else None,
                              cube=args.cube)
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
    """``fastnardy match --record``: the first match (or money game) as a record file:
    GNU Backgammon's ``.mat`` or SGF by the extension, else fastnardy's record."""
    if path.lower().endswith((".mat", ".sgf")):
        from ..formats.mat import match_games, write_mat
        from ..formats.sgf import write_sgf

        if not isinstance(played, Match):
            raise FastNardyError("a .mat or SGF file holds a match (--to N); write a "
                                 "fastnardy record instead")
        games = match_games(played)  # a variant the format does not hold: refused
        text = write_mat(games) if path.lower().endswith(".mat") else \
            write_sgf(games, bool(played.rules.crawford))
    else:
        text = played.record()  # type: ignore[attr-defined]  # Match or Game
    write_file(path, text.encode("utf-8"))


def _run_match(args: argparse.Namespace) -> int:
    from ..play import duel
    from ..search.setting import Setting

    if args.games % 2:
        raise FastNardyError(f"--games must be even (pairs of games with the same dice), not "
                             f"{args.games}")
    short_only = any(Setting.parse(spec).short_only for spec in (args.a, args.b))
    rules = args.game or Rules.of(SHORT if short_only else LONG)
    game = rules.game
    if args.to is not None or args.cube:
        length = args.to or 0
        played = duel.cube_duel(rules, args.a, args.b, args.games, length, args.seed,
                                met=read_met_option(args),
                                progress=progress_printer(args, "matches" if length
                                                          else "games"))
        first = played.result.first
        if args.record is not None and first is not None:
            _write_match(args.record, first)
        if args.json:
            print_json(played.as_dict())
            return 0
        what = f"{played.matches} matches to {length}" if length else \
            f"{played.matches} money games with the cube"
        print(f"{game} nardy, {played.a} against {played.b}: {what} (seed {args.seed}, "
              f"{played.unfinished} unfinished, {int(played.result.games.sum())} games)")
        print(f"  {played.a} wins {played.wins.text()}, {_points(played.points)} points "
              f"{'ahead a match' if length else 'a game'} (95%"
              + ("; one pair has no interval)" if played.points.half is None else ")"))
        result = played.result
        for name, offers, takes, drops in ((played.a, result.offers[0], result.takes[0],
                                            result.drops[0]),
                                           (played.b, result.offers[1], result.takes[1],
                                            result.drops[1])):
            print(f"  {name} offered {offers} times, took {takes}, dropped {drops}")
        return 0
    if args.record is not None:
        raise FastNardyError("--record writes a match or a money game with the cube: give "
                             "--to N or --cube with it")
    done = duel.duel(rules, args.a, args.b, args.games, args.seed,
                     progress=progress_printer(args, "games"))
    if args.json:
        print_json(done.as_dict())
        return 0
    print(f"{game} nardy, {done.a} against {done.b}: {done.games} games (seed {args.seed}, "
          f"{done.unfinished} unfinished)")
    print(f"  {done.a} wins {done.wins.text()}, {_points(done.points)} points a game (95%)")
    return 0


def _points(points: "Interval") -> str:
    """Points with their interval."""
    return f"{points.mean:+.3f} +- " + ("n/a" if points.half is None else f"{points.half:.3f}")
