"""A bot other programs can play: GNU Backgammon's external-player interface served for a
fastnardy network (short nardy, ``fastnardy serve``).

GNU Backgammon plays an external player through a socket (``set player 1 external
HOST:PORT``): whenever that player has a decision, gnubg writes one FIBS board line
(``board:You:Opponent:MatchLength:YourScore:OpponentScore:`` then 26 board counts, whose
turn, the dice, the cube and its flags …, gnubg's ``FIBSBoard``) and reads one line back:
before the roll ``roll`` or ``double``; to an offer ``take`` or ``drop``; with the dice, the
move as from/to pairs in the mover's numbering (25 the bar, 0 off; an empty line for no legal
move). As gnubg 1.07 writes the line, the names and scores are the side on roll's first
(the doubler's, to an offer), the turn field 1 when player 1 is on roll, and the board and
the may-double flags are player 1's whoever is on roll: positive counts its checkers on its
points 1-24, negative the other's, entry 0 the other's bar and 25 its own. So the bot is
served as gnubg's **player 1**.

The bot is a player of any setting of short nardy (``net:0`` by default), deciding as at
every other door (:mod:`fastnardy.play.players`): it offers when its cube decision makes
doubling proper and the cube can gain (C2, C6, C7), takes when taking is no worse for it,
and plays the turn its setting ranks first with the cube in play. Every line is checked: a
board that is not a legal short-nardy position (T7), a roll that does not fit, a line longer
than ``MAX_LINE`` bytes (one answer for the whole line) or bytes that are not ASCII
(quoted as ``\\xNN``) are answered ``Error (...)``, which gnubg prints and stops on. The
server survives any client: a connection that closes, resets, leaves answers unread or stays
silent for ``timeout`` seconds ends that game only, and nothing a client sends is kept (the
memory stays flat)."""

from __future__ import annotations

import socket
from typing import NamedTuple, Optional, Tuple

from .. import checks
from .._utils.files import bounded_lines
from ..basics import BLACK, WHITE
from ..batch import encode
from ..errors import FastNardyError
from ..position import Position, Turn
from ..rules import Rules
from ..search.cubeful import Cube
from ..search.met import MatchEquityTable
from ..search.setting import Setting
from .players import Player, player

__all__ = ["FibsBoard", "Served", "read_board", "answer", "seconds", "serve"]

MAX_LINE = 4096  # a FIBS board line is about 150 characters
TIMEOUT = 600.0  # seconds a client may stay silent (gnubg's side may be a human thinking)
MAX_TIMEOUT = 1e6  # seconds: about 11 days


class FibsBoard(NamedTuple):
    """One FIBS board line, read (module docstring): the names (the side on roll first), the
    match length (0: money play), the scores (the side on roll's first), the ``position``
    (player 1 as white, the side on roll to move), its ``dice`` (None before the roll), the
    cube's ``value``, whether the side on roll and the other may double, whether an offer
    awaits its answer, and the Crawford flag."""

    you: str
    opponent: str
    length: int
    score: Tuple[int, int]
    position: Position
    dice: Optional[Tuple[int, int]]
    value: int
    mover_may_double: bool
    other_may_double: bool
    doubled: bool
    crawford: bool

    @property
    def cube(self) -> Cube:
        """The cube from the side on roll's view (C1, C2, C6, C7)."""
        owner = "centered"
        if self.value > 1 and self.mover_may_double != self.other_may_double:
            owner = "mover" if self.mover_may_double else "opponent"
        length = self.length
        leaders = sum(score == length - 1 for score in self.score)  # C7: one needs 1
        crawford = self.crawford and bool(length) and leaders == 1
        return Cube.of(Cube(value=self.value, owner=owner, length=length,
                            score=self.score if length else (0, 0), crawford=crawford))


def read_board(line: str) -> FibsBoard:
    """A FIBS board line (module docstring); FastNardyError names what does not read, and
    a board that is no legal position raises InvalidPositionError (T7)."""
    line = checks.text(line, "a FIBS board line")
    if len(line) > MAX_LINE:
        raise FastNardyError(f"a FIBS board line is at most {MAX_LINE:,} characters, not "
                             f"{len(line):,}")
    fields = line.strip().strip("\0").split(":")
    if len(fields) < 52 or fields[0] != "board":
        raise FastNardyError(f"not a FIBS board line: {line[:60]!r}")
    try:
        numbers = [int(x) for x in fields[3:52]]
    except ValueError:
        raise FastNardyError(f"a FIBS board's fields 3-51 are numbers: {line[:60]!r}") from None
    length, mine, theirs = numbers[0:3]
    board = numbers[3:29]
    turn, die1, die2 = numbers[29:32]
    value, first_may, second_may, doubled = numbers[34:38]
    if turn not in (1, -1) or value < 1:
        raise FastNardyError(f"a FIBS board's turn is 1 or -1 and its cube 1 or more, not "
                             f"{turn} and {value}")
    if length == 9999:  # FIBS's unlimited match: money play
        length = 0
    own = [max(board[k], 0) for k in range(1, 25)]
    other = [0] * 24
    for k in range(1, 25):
        if board[k] < 0:
            other[24 - k] = -board[k]  # the other's own point 25 - k
    position = Position.from_points(Rules.short(), own, other, WHITE if turn == 1 else BLACK,
                                    white_bar=board[25], black_bar=-board[0])
    dice = None if die1 == 0 else (die1, die2)
    if dice is not None and not all(1 <= d <= 6 for d in dice):
        raise FastNardyError(f"the dice of a FIBS board are 1-6, not {dice}")
    may = (bool(first_may), bool(second_may)) if turn == 1 else \
        (bool(second_may), bool(first_may))
    return FibsBoard(fields[1], fields[2], length, (mine, theirs), position, dice, value,
                     may[0], may[1], bool(doubled), bool(numbers[48]))


def _move_text(turn: Turn) -> str:
    """A turn as gnubg reads a move: from/to pairs, 25 the bar, 0 off."""
    return " ".join(f"{src}/{dst}" for src, dst, *_ in turn.steps)


def answer(line: str, bot: Player, met: Optional[MatchEquityTable] = None) -> str:
    """The bot's answer to one FIBS board line (module docstring); ``met`` the match's
    table (fastnardy's own of short nardy unless given)."""
    if not isinstance(bot, Player):
        raise FastNardyError(f"bot must be a fastnardy.play.players.Player, not {bot!r}")
    if met is not None and not isinstance(met, MatchEquityTable):
        raise FastNardyError(f"met must be a MatchEquityTable or None, not {met!r}")
    board = read_board(line)
    rules = Rules.short()
    cube = board.cube._replace(met=met)
    rows = encode([board.position])  # the side on roll's view
    if board.doubled:  # the doubler on roll: take when it is no worse for the bot
        return "take" if bot.takes(rules, rows, [cube])[0] else "drop"
    if board.position.turn != WHITE:
        raise FastNardyError("the bot is gnubg's player 1: it decides on its own roll or "
                             "on an offer to it")
    if board.dice is None:
        return "double" if bot.doubles(rules, rows, [cube])[0] else "roll"
    turns = board.position.legal_turns(board.dice)
    if len(turns) == 1 and turns[0].is_pass():
        return ""
    return _move_text(bot.turn(board.position, board.dice, cube))


class Served(NamedTuple):
    """What :func:`serve` served: the connections accepted, the lines answered with a
    decision and the lines answered ``Error (...)``."""

    games: int
    decisions: int
    errors: int


def serve(port: int = 0, setting: "Setting | str | None" = None,
          met: Optional[MatchEquityTable] = None, host: str = "127.0.0.1",
          ready: Optional["socket.socket"] = None, games: int = 1,
          timeout: float = TIMEOUT) -> Served:
    """Listen on ``host:port`` (0: any free port; ``ready``: an already bound listening
    socket), accept ``games`` connections one after another and answer each one's board
    lines with the player of ``setting`` (short nardy; ``net:0`` by default) until it
    closes, fails or stays silent ``timeout`` seconds (module docstring)."""
    games = checks.number(games, "games", 1)
    timeout = seconds(timeout)
    with player(setting, Rules.short()) as bot:
        listener = ready if ready is not None else socket.create_server((host, port))
        served = Served(0, 0, 0)
        try:
            for _ in range(games):
                connection, _ = listener.accept()
                with connection:
                    connection.settimeout(timeout)
                    decisions, errors = _serve_one(connection, bot, met)
                served = Served(served.games + 1, served.decisions + decisions,
                                served.errors + errors)
        finally:
            if ready is None:
                listener.close()
    return served


def seconds(timeout: object) -> float:
    """A client's ``timeout``: more than 0 seconds, at most MAX_TIMEOUT."""
    return checks.real(timeout, "timeout", 0.001, MAX_TIMEOUT)


def _serve_one(connection: socket.socket, bot: Player,
               met: Optional[MatchEquityTable]) -> Tuple[int, int]:
    """Answer one connection's lines until it ends (module docstring): the decisions and
    the errors answered."""
    decisions = errors = 0
    try:
        with connection.makefile("rb") as stream:
            for raw in bounded_lines(stream, MAX_LINE):
                # NULs dropped, bytes beyond ASCII quoted \xNN
                line = "" if raw is None else \
                    raw.replace(b"\0", b"").decode("ascii", "backslashreplace").strip()
                if raw is not None and not line:
                    continue
                reply = f"Error (a FIBS board line is at most {MAX_LINE:,} bytes)" \
                    if raw is None else _reply(line, bot, met)
                failed = reply.startswith("Error (")
                errors, decisions = errors + failed, decisions + (not failed)
                connection.sendall(reply.encode("ascii", "backslashreplace") + b"\n",
                                   _NO_SIGNAL)
    except OSError:  # the client left, reset the connection or stayed silent (a timeout)
        pass
    return decisions, errors


def _reply(line: str, bot: Player, met: Optional[MatchEquityTable]) -> str:
    """The answer to one whole line: the bot's, or ``Error (...)`` on one line."""
    try:
        return answer(line, bot, met)
    except FastNardyError as error:
        return "Error ({})".format(" ".join(str(error).split()))


_NO_SIGNAL = getattr(socket, "MSG_NOSIGNAL", 0)  # a client gone: an error, not SIGPIPE
