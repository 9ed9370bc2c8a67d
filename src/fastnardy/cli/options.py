"""The options every command takes, read in one place: the position and its rule variants,
the dice, ``--json``, ``--backend``, the search and progress options, and the exit statuses."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import logging
import re
import signal
import sys
import threading
import time
from concurrent.futures import Executor
from pathlib import Path
from types import FrameType
from typing import (TYPE_CHECKING, Callable, Dict, Iterator, List, NoReturn, Optional, Sequence,
                    Set, Tuple)

from ..position import Position, Turn
from .._utils import files as _files
from .. import backend as _backend
from ..basics import Roll
from ..errors import FastNardyError, InvalidDiceError
from ..notation import ID_LENGTH
from ..rules import LONG, MOVE_VARIANTS, SHORT, VARIANTS, Rules

if TYPE_CHECKING:
    from ..formats.ids import MatchState
    from ..search.cubeful import Cube
    from ..search.met import MatchEquityTable
    from ..search.setting import Setting

# the command line's parts; its API is fastnardy.cli's main and build_parser
__all__: List[str] = []


# The rule options: the variants that move generation reads (argparse dest = variant name)
RULE_OPTIONS = {name: VARIANTS[name] for name in MOVE_VARIANTS}

EXIT_ILLEGAL, EXIT_USAGE, EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 1, 2, 130, 141

GNUBG_ID = re.compile(f"[A-Za-z0-9+/]{{{ID_LENGTH}}}")  # a GNU Backgammon Position ID


class Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors: ``PROG: error: MESSAGE (see PROG --help)``, exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def prog_name() -> str:
    """The name the user typed: ``fastnardy`` for the console script, else
    ``python -m fastnardy``."""
    return "fastnardy" if Path(sys.argv[0]).stem == "fastnardy" else "python -m fastnardy"


def at_least(low: int) -> Callable[[str], int]:
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


depth_arg = at_least(0)  # DEPTH (T5 defines perft(0) = 1)
positive_arg = at_least(1)


def seconds_arg(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, not {text!r}") from None
    if not 0 <= value <= 3600:
        raise argparse.ArgumentTypeError(f"expected 0 to 3600 seconds, not {text}")
    return value


def add_position(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("position", metavar="POSITION",
                        help="'long' or 'short' (the start, white to move), a position string "
                             "such as 'long w 24:15 24:15', a GNU Backgammon Position ID "
                             "such as 4HPwATDgc/ABMA (short nardy, white to move), or short "
                             "nardy with its dice, cube and score: an XGID "
                             "(XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10) or "
                             "gnubg's ids (4HPwATDgc/ABMA:cAkAAAAAAAAA)")
    rules = parser.add_argument_group("rule variants ('fastnardy rules ID' explains each; "
                                      "default: the string's own, else the game's default)")
    for dest, (game, values, default, rule, what) in RULE_OPTIONS.items():
        rules.add_argument(f"--{dest.replace('_', '-')}", choices=values, default=None,
                           help=f"{game} nardy, {rule}: {what} (default {default})")


def add_backend(parser: argparse._ActionsContainer) -> None:
    parser.add_argument("--backend", choices=_backend.BACKENDS, default=None,
                        help="generate turns with the Cython kernel (default) or the "
                             "pure-Python reference")


def add_dask(parser: "argparse._ActionsContainer", what: str) -> None:
    parser.add_argument("--dask", metavar="ADDRESS",
                        help=f"run the {what} on a Dask cluster (the scheduler's address, "
                             f"e.g. tcp://10.0.0.5:8786; needs dask.distributed)")


def _quiet_dask() -> None:
    """The command is ending: the Dask client's reports of the work it stops (tornado's and
    Dask's logs of answers no longer awaited, of connections closed) are not printed. Every
    logger of theirs, since Dask's configuration gives some their own level and handler
    (``distributed.client``'s "Couldn't gather 1 keys, rescheduling" was printed)."""
    for name in list(logging.root.manager.loggerDict):
        if name.partition(".")[0] in ("distributed", "tornado"):
            logging.getLogger(name).setLevel(logging.CRITICAL + 1)


def _interrupted_quietly(signum: int, frame: Optional[FrameType]) -> None:
    """Ctrl-C while a Dask client works: quiet its logs (_quiet_dask) before the
    KeyboardInterrupt, since stopping the call's work on the cluster (its halt) makes the
    client report on it."""
    _quiet_dask()
    signal.default_int_handler(signum, frame)


@contextlib.contextmanager
def dask_executor(address: str) -> Iterator[Executor]:
    """The executor of a Dask client of the scheduler at ``address``, closed on the way out:
    after Ctrl-C, what is left is cancelled in one message, before the client closes, and
    the client's reports on the work stopped and the answers no longer awaited are not
    printed, from the moment Ctrl-C is pressed (_interrupted_quietly, where Python's own
    handler was in place) or any other exception ends the command: its one line
    ``interrupted`` (or its error) is its report."""
    try:
        import distributed
    except ImportError:
        raise FastNardyError("--dask needs dask.distributed: pip install 'dask[distributed]'") \
            from None
    try:
        client = distributed.Client(address, timeout=30)
    except OSError as exc:
        raise FastNardyError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
    quiet_on_ctrl_c = (threading.current_thread() is threading.main_thread()
                       and signal.getsignal(signal.SIGINT) is signal.default_int_handler)
    with client:
        executor = client.get_executor()
        if quiet_on_ctrl_c:
            signal.signal(signal.SIGINT, _interrupted_quietly)
        try:
            yield executor
        except BaseException:
            _quiet_dask()
            raise
        finally:
            if quiet_on_ctrl_c:
                signal.signal(signal.SIGINT, signal.default_int_handler)
            executor.shutdown(wait=False)  # (its pending answers would be tracebacks)


def add_json(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true",
                        help="print one JSON document instead of text")


def add_picture_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--svg", metavar="FILE", help="also write the board as an SVG picture")
    parser.add_argument("--png", metavar="FILE",
                        help="also write it as a PNG (through cairosvg or headless Chromium)")
    parser.add_argument("--flipped", action="store_true", help="pictures from black's side")
    parser.add_argument("--highlight", metavar="TURN",
                        help="draw this legal turn's steps as arrows in the pictures")


def add_setting_options(parser: argparse.ArgumentParser, cubeless: bool = False) -> None:
    """The evaluation setting's options (:mod:`fastnardy.search.setting`, whose defaults
    they show); with ``cubeless`` the option to rank turns cubeless."""
    from ..search.network import ARITHMETICS
    from ..search.setting import NET_PRECISION, Setting
    from ..search.tree import MAX_PLIES

    default = Setting()
    group = parser.add_argument_group("the evaluation setting (fastnardy.search.setting)")
    group.add_argument("--plies", type=int, choices=range(MAX_PLIES + 1), default=default.plies,
                       help=f"search depth of the network (default {default.plies})")
    group.add_argument("--weights", metavar="FILE", default=None,
                       help="an evaluator .npz (Evaluator.save); default: the shipped one")
    group.add_argument("--filter", type=filter_arg, metavar="FILTER", default=None,
                       help="at 1 ply or more, the move filters: KEEP,MARGIN per level of the "
                            "tree, joined by / (the last for the levels below), or full "
                            "(default: GNU Backgammon's, 8,0.16/1,0: the 8 best turns within "
                            "0.16 at the root, the best turn at 0 ply of each roll inside the "
                            "tree)")
    group.add_argument("--precision", choices=ARITHMETICS, default=None,
                       help="the network's arithmetic (default: the game's, "
                            + ", ".join(f"{precision} in {game} nardy"
                                        for game, precision in NET_PRECISION.items())
                            + "; float for --weights)")
    if cubeless:
        group.add_argument("--cubeless", action="store_true",
                           help="rank turns by their cubeless equity (default: cubeful, under "
                                "the cube options)")


def filter_arg(text: str) -> str:
    """An argparse type: a setting's filter as text, checked
    (:func:`fastnardy.search.setting.parse_filter` reads it)."""
    from ..search.setting import parse_filter

    try:
        parse_filter(text)
    except FastNardyError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def read_setting(args: argparse.Namespace) -> "Setting":
    """The evaluation setting of the options of :func:`add_setting_options`."""
    from ..search.setting import Setting, parse_filter

    given = {"filter": parse_filter(args.filter)} if args.filter is not None else {}
    return Setting(args.weights or "net", args.plies, precision=args.precision,
                   cubeful=not getattr(args, "cubeless", False), **given)


def score_arg(text: str) -> Tuple[int, int]:
    """``A-B``: the side to move's points, then the opponent's."""
    parts = text.split("-")
    if len(parts) != 2 or not all(p.isdigit() and len(p) <= 4 for p in parts):
        raise argparse.ArgumentTypeError(f"a score is A-B (the side to move's points first), "
                                         f"not {text[:40]!r}")
    return int(parts[0]), int(parts[1])


def add_cube_options(parser: argparse.ArgumentParser) -> None:
    """The cube and the match score (C1-C8) the cubeful equities are for (each default is
    :class:`fastnardy.search.cubeful.Cube`'s; an XGID or gnubg's ids carry their own)."""
    group = parser.add_argument_group("the cube and the score (money play by default, or "
                                      "those of an XGID or gnubg's ids)")
    group.add_argument("--match", type=at_least(1), default=None, metavar="N",
                       help="a match to N points (C6); default: money play (C8)")
    group.add_argument("--score", type=score_arg, default=None, metavar="A-B",
                       help="the match score, the side to move's points first (default 0-0)")
    group.add_argument("--cube", type=at_least(1), default=None, metavar="V",
                       help="the stake the cube shows (C1, default 1)")
    from ..search.cubeful import OWNERS

    group.add_argument("--owner", "--cube-owner", choices=OWNERS, default=None,
                       help="who holds the right to offer (C2, default centered: both)")
    group.add_argument("--crawford", action="store_true",
                       help="this game is the Crawford game (C7: no offers)")
    group.add_argument("--jacoby", action="store_true",
                       help="money play: mars and koks count only once the stake is raised (C8)")
    add_met(group)


def add_met(parser: "argparse._ActionsContainer") -> None:
    parser.add_argument("--met", metavar="FILE", default=None,
                        help="a GNU Backgammon match equity table (.xml, explicit tables, e.g. "
                             "/usr/share/gnubg/met/Kazaross-XG2.xml); default: fastnardy's "
                             "table of the game")


def read_met_option(args: argparse.Namespace) -> "Optional[MatchEquityTable]":
    """The table of ``--met``, or None for the game's own."""
    from ..search.met import read_met

    return read_met(args.met) if args.met else None


#: The cube options (:func:`add_cube_options`) and the Cube field each sets.
CUBE_OPTIONS = {"match": "length", "score": "score", "cube": "value", "owner": "owner",
                "crawford": "crawford", "jacoby": "jacoby"}


def read_cube(args: argparse.Namespace, rules: "Rules") -> "Cube":
    """The cube context of the cube options (:func:`add_cube_options`), checked: those
    given over the money cube of ``rules``, or an XGID's or gnubg's ids' own (an option
    beside one is refused)."""
    from ..search.cubeful import Cube

    given = {field: getattr(args, option) for option, field in CUBE_OPTIONS.items()
             if getattr(args, option) not in (None, False)}
    state = read_state(args)
    if state is not None:
        if given:
            named = ", ".join(f"--{option}" for option, field in CUBE_OPTIONS.items()
                              if field in given)
            raise FastNardyError(f"{named}: the id gives the cube and the score; change them "
                                 f"in it, not beside it")
        return state.cube_context(rules)._replace(met=read_met_option(args))
    money = Cube.money(rules)
    if given.get("length"):
        money = money._replace(jacoby=False)  # C8 is money play's
    return Cube.of(money._replace(**given, met=read_met_option(args)))


def read_state(args: argparse.Namespace) -> "Optional[MatchState]":
    """The match state of POSITION when it is an XGID or GNU Backgammon's POSITION:MATCH ids
    (fastnardy.formats.ids), else None."""
    text = args.position.strip()
    if ":" not in text or " " in text:  # a position string has spaces; ids have none
        return None
    from ..formats import ids

    if text.startswith("XGID="):
        return ids.read_xgid(text)
    return ids.read_gnubg_ids(text) if ids.is_id(text) else None


def conditions(setting: "Setting", cube: "Optional[Cube]", stake: bool = True) -> str:
    """What an answer was valued at, in words: the setting (its text names its precision;
    its plies and filter) and the cube conditions (money play and the Jacoby option, or the
    match, its score and table; with ``stake`` the cube's value and owner), or cubeless."""
    from ..search.setting import describe_filter

    valued = (f"{setting} ({setting.plies} ply"
              + (f", filter {describe_filter(setting.filter)}" if setting.plies else "") + ")")
    if cube is None:
        return valued + "; cubeless"
    if not cube.length:
        where = "money play, " + ("Jacoby" if cube.jacoby else "no Jacoby (C8; gnubg's "
                                                               "default is on: --jacoby)")
    else:
        table = "fastnardy's" if cube.met is None else (cube.met.name or "given")
        where = (f"match to {cube.length}" + (
            f" at {cube.score[0]}-{cube.score[1]} ({cube.away[0]}-away {cube.away[1]}-away"
            + (", Crawford game" if cube.crawford else ", post-Crawford"
               if cube.post_crawford else "") + ")" if stake else "") + f", table {table}")
    if not stake:
        return f"{valued}; cubeful, {where}"
    owner = {"centered": "centred", "mover": "owned by the side to move",
             "opponent": "owned by the opponent"}[cube.owner]
    return f"{valued}; {where}; cube {cube.value} {owner}"


def add_progress(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="a progress line on stderr (default: when stderr is a terminal)")


def read_position(args: argparse.Namespace) -> Position:
    """POSITION with the rule options applied (see the module's docstring)."""
    named: Set[str] = set()  # the variants a position string names
    state = read_state(args)
    if state is not None:
        base = state.position
    elif args.position in (LONG, SHORT):
        base = Position.start(args.position)
    elif GNUBG_ID.fullmatch(args.position):
        base = Position.from_gnubg_id(args.position)
    else:
        base = Position.from_string(args.position)
        named = set(re.findall(r"(\w+)\s*=", args.position.split()[0]))  # variants it names
    given = {dest: getattr(args, dest) for dest in RULE_OPTIONS if getattr(args, dest)}
    for dest, value in given.items():
        game, rule = RULE_OPTIONS[dest].game, RULE_OPTIONS[dest].rule
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


def read_roll(words: Sequence[str]) -> Roll:
    """DICE as typed: '6 5' (two words), '6-5' or '65'."""
    match = re.fullmatch(r"([1-6])-?([1-6])", "-".join(words))
    if match is None:
        raise InvalidDiceError(f"dice must be two numbers from 1 to 6, as '6 5' or '6-5', not "
                               f"{' '.join(words)!r}")
    return int(match.group(1)), int(match.group(2))


def read_dice(args: argparse.Namespace) -> Optional[Roll]:
    """DICE as typed, else the dice an XGID or gnubg's ids carry (None: neither); DICE
    other than the id's are refused."""
    state = read_state(args)
    thrown = None if state is None else state.dice
    if not args.dice:
        return thrown
    roll = read_roll(args.dice)
    if thrown is not None and sorted(roll) != sorted(thrown):
        raise InvalidDiceError(f"DICE {roll[0]}-{roll[1]} differ from the id's "
                               f"{thrown[0]}-{thrown[1]}")
    return roll


def roll_arg(text: str) -> Roll:
    """An argparse type: a roll, '6-5' or '65'."""
    try:
        return read_roll([text])
    except InvalidDiceError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def print_json(document: object) -> None:
    print(json.dumps(document, ensure_ascii=False))


def turn_json(turn: Turn) -> Dict[str, object]:
    """A legal turn: its notation, its steps as [src, dst, hit] (mover's numbering) and the
    position it leads to."""
    return {"turn": str(turn), "steps": [list(step) for step in turn.steps],
            "position": turn.position.to_string()}


def write_file(path: str, content: bytes) -> None:
    """Write a file whole, or leave the old one as it was (FastNardyError: exit 2)."""
    _files.write_whole(path, content)


def progress_printer(args: argparse.Namespace, what: str) -> "Optional[Callable[[int, int], None]]":
    """A progress line on stderr (``--progress``, default when stderr is a terminal),
    redrawn at most five times a second and at the end, however often it is called."""
    if not (args.progress if args.progress is not None else sys.stderr.isatty()):
        return None
    started = time.perf_counter()
    shown = [-1.0]  # when the line was last drawn

    def show(done: int, total: int) -> None:
        now = time.perf_counter()
        if done != total and now - shown[0] < 0.2:
            return
        shown[0] = now
        seconds = now - started
        print(f"\r  {what}: {done:,}/{total:,}, {seconds:,.0f} s, "
              f"ETA {eta(seconds, done, total - done):,.0f} s   ",
              end="\n" if done == total else "", file=sys.stderr, flush=True)

    return show


def eta(seconds: float, done: int, left: int) -> float:
    """The seconds ``left`` more pieces of work take at this run's rate, ``done`` of them in
    ``seconds`` (work read from a checkpoint is not this run's); 0 before the first."""
    return seconds * left / done if done else 0.0


def percent(value: float) -> str:
    return f"{100 * value:5.1f}%"
