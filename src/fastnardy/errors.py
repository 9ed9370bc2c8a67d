"""Exceptions raised on bad input, all subclasses of :class:`ValueError`; the failure of
another engine, a :class:`RuntimeError` (as python-chess's engine errors are: ``except
ValueError`` does not catch a crashed engine); the one check that every entry point
makes of an integer argument; and how an error quotes what it refuses."""

import operator
from typing import Optional

__all__ = ["CountOverflowError", "EngineError", "FastNardyError", "IllegalActionError",
           "IllegalTurnError",
           "InvalidDiceError", "InvalidPositionError", "InvalidRecordError", "InvalidRulesError",
           "MatchEquityError", "NotationError", "ResourceLimitError"]


def integer(value: object) -> Optional[int]:
    """``value`` as an int when it is one (numpy's integers too, not a bool), else None: the
    callers turn None into their documented error."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        return None
    try:
        return operator.index(value)
    except TypeError:  # numpy 2: a one-element array has __index__ but refuses it
        return None


def shown(text: str, limit: int = 60) -> str:
    """``text`` quoted for an error message: its repr, or that of its first ``limit``
    characters and how long it is (a hostile input is never quoted whole)."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text):,} characters)"


class FastNardyError(ValueError):
    """Base class of every error fastnardy raises on bad input."""


class InvalidRulesError(FastNardyError):
    """An unknown game, rule-variant value or rule id; the message lists the allowed ones."""


class InvalidPositionError(FastNardyError):
    """A position that T7 excludes, or a position string / GNU Backgammon ID that does not parse."""


class InvalidDiceError(FastNardyError):
    """Dice that are not two integers from 1 to 6."""


class IllegalTurnError(FastNardyError):
    """A turn that the rules forbid; the message starts with the rule id (``"L5: ..."``).

    ``rule`` holds that id and ``step`` the 1-based index of the offending step (or None).
    """

    def __init__(self, rule: str, message: str, step: "int | None" = None):
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.step = step


class IllegalActionError(IllegalTurnError):
    """An offer, take, drop or undo (section 5) that the rules do not allow now: the message
    starts with the rule id (``"C2: ..."``: no right to offer, during a turn, an answer with
    nothing offered, a turn in a game a drop ended; ``"C7: ..."``: the Crawford game;
    ``"C1: ..."``: past the last stake, 64; ``"C5: ..."``: an undo once the turn is final)."""


class NotationError(FastNardyError):
    """Turn notation that does not read as a turn of the position (T1): an unknown point or
    token, a move no die or combination of dice spans, a hit on the way that is not written
    (``24/13`` over a blot on 18 is ``24/18*/13``). Not an illegal turn: ``rule`` is ``"T1"`` and the message starts
    with it."""

    rule = "T1"

    def __init__(self, message: str):
        super().__init__(f"T1: {message}")


class EngineError(RuntimeError):
    """Another engine failed (one driven by :mod:`fastnardy.engines.crosscheck`, or GNU
    Backgammon as a player): it could not start, it exited or timed out while answering, or
    a line of its answer does not read or is not a legal turn (the message quotes the request
    and the line). Not bad input: a :class:`RuntimeError`, not a :class:`FastNardyError`."""


class ResourceLimitError(FastNardyError, MemoryError):
    """A batch result larger than the caller's limit (``max_children``) or than the memory
    that could be allocated; the message says how large it was and how to split the call."""


class InvalidRecordError(FastNardyError):
    """A game record (fastnardy's text record or a GNU Backgammon ``.mat`` export) that does not
    read: the message names the line (``"line 12: ..."``) where the text says where."""


class MatchEquityError(FastNardyError):
    """A match equity table that does not read (a file that is not one of GNU Backgammon's
    explicit tables, values outside [0, 1]) or a score past the table's length."""


class CountOverflowError(FastNardyError, OverflowError):
    """A count past what the kernel represents (perft: 2**128 - 1), raised instead of a
    wrong number; :func:`fastnardy.perft` splits such a count into subtrees that fit."""
