"""Another engine that speaks UBGI v0.2 (:mod:`fastnardy.play.ubgi` is fastnardy's own side of
the protocol), driven as the cross-checker drives its engines
(:class:`~fastnardy.engines.protocol.ProcessEngine`): one process in a process group of its
own under a keeper, every answer bounded in time, lines and bytes, killed with everything it
forked when it ends, fails, hangs or when Ctrl-C comes. An ``error`` line, an engine that
exits or an answer that does not read raises :class:`~fastnardy.errors.EngineError` naming
the request.

:func:`check_moves` is the cross-check of a UBGI engine (``fastnardy crosscheck ubgi:COMMAND``):
UBGI has no perft divide, so its ``bestmove`` for every roll of each position is read by the
referee, and the first illegal one is named with its rule.
"""

from __future__ import annotations

from typing import Dict, Iterable, Iterator, NamedTuple, Optional, Sequence, Tuple, Union

from .. import checks
from ..basics import ALL_ROLLS, Roll
from ..errors import EngineError, IllegalTurnError, NotationError
from ..notation import format_roll
from ..position import Position
from ..rules import SHORT, Rules
from .protocol import ProcessEngine, _Pipes

__all__ = ["IllegalMove", "UbgiEngine", "check_moves", "positions_to"]


class UbgiEngine(ProcessEngine):
    """A UBGI engine's process (a context manager: leaving it sends ``quit`` and ends the
    process group); ``timeout`` seconds for each answer."""

    def __init__(self, command: Union[str, Sequence[str]], timeout: float = 60.0) -> None:
        super().__init__(command, "gnubg", timeout)

    def ask(self, requests: Sequence[str], final: Tuple[str, ...]) -> str:
        """Send ``requests`` (one a line; only the last is answered) and return the first
        answer line that begins with one of ``final`` (``info`` lines before it read over)."""
        request = requests[-1]

        def answer(pipes: _Pipes, deadline: float) -> str:
            pipes.start()
            while True:
                line = pipes.line(deadline, request)
                if line is None:
                    raise self._failure(f"the engine {self.name!r} exited while answering "
                                        f"{request!r}")
                if line.startswith("error"):
                    raise EngineError(f"the engine {self.name!r} answered {requests!r}: "
                                      f"{line[:200]!r}")
                if line.startswith(final):
                    return line

        return self._exchange("".join(f"{line}\n" for line in requests).encode(), request,
                              answer)


class IllegalMove(NamedTuple):
    """A move a UBGI engine chose that is not a legal turn: the position, the roll, the
    ``bestmove`` text and the rule it breaks (its id first)."""

    position: Position
    roll: Roll
    move: str
    rule: str
    reason: str

    def report(self) -> str:
        """One line: what the engine played where, and the rule."""
        return (f"the engine plays an illegal move ({self.rule}): bestmove {self.move!r} with "
                f"{format_roll(self.roll)} in {self.position.to_string()}: {self.reason}")

    def as_dict(self) -> Dict[str, object]:
        return {"position": self.position.to_string(), "dice": list(self.roll),
                "move": self.move, "rule": self.rule, "reason": self.reason}


def check_moves(engine: UbgiEngine, positions: Iterable[Position]) -> Optional[IllegalMove]:
    """The first of the engine's moves, over the 21 rolls of each of ``positions``,
    that the referee refuses (T1: a move that does not read is T1; ``pass`` where a turn
    exists breaks the rule the referee names), or None when every move is legal."""
    for position in positions:
        if position.is_game_over():
            continue
        for roll in ALL_ROLLS:
            where = (f"position gnubgid {position.gnubg_id()}" if position.rules.game == SHORT
                     and position.rules == Rules.short()
                     else f"position fastnardy {position.to_string()}")
            answer = engine.ask(["newgame", where, f"dice {roll[0]} {roll[1]}", "go"],
                                ("bestmove ",))
            move = answer[len("bestmove "):].strip()
            try:
                position.check_turn(roll, move)
            except IllegalTurnError as error:
                return IllegalMove(position, roll, move, error.rule,
                                   str(error)[len(error.rule) + 2:])
            except NotationError as error:
                return IllegalMove(position, roll, move, "T1", str(error))
    return None


def positions_to(position: Position, depth: int) -> Iterator[Position]:
    """``position`` and every position its turns reach in fewer than ``depth`` plies (each
    once), ply by ply."""
    level, seen = [position], {position}
    for ply in range(checks.depth(depth)):
        yield from level
        if ply == depth - 1:
            return
        following = []
        for one in level:
            if one.is_game_over():
                continue
            for roll in ALL_ROLLS:
                for turn in one.legal_turns(roll):
                    if turn.position not in seen:
                        seen.add(turn.position)
                        following.append(turn.position)
        level = following
