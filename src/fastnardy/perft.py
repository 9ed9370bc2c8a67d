"""Perft (T5): count the positions reached after a number of turns, over the 21 rolls."""

from __future__ import annotations

from typing import NamedTuple, Optional

from . import backend as _backend
from .errors import FastNardyError
from .reference import ALL_ROLLS


def _depth(depth: object) -> int:
    if isinstance(depth, bool) or not hasattr(depth, "__index__") or depth.__index__() < 0:
        raise FastNardyError(f"depth must be a non-negative integer, not {depth!r}")
    return depth.__index__()


def perft(position, depth: int, *, weighted: bool = False, backend: Optional[str] = None) -> int:
    """T5: ``perft(pos, 0) = 1``; a finished game counts 1; otherwise the sum over the 21
    rolls of the children's perft at ``depth - 1`` (a pass is one child). ``weighted`` counts
    each non-double twice (36 outcomes)."""
    me, me_bar, opp, opp_bar = position.mover_frame()
    return _backend.get(backend).perft_count(position.rules.code, me, me_bar, opp, opp_bar,
                                             _depth(depth), bool(weighted))


def perft_divide(position, depth: int, *, weighted: bool = False,
                 backend: Optional[str] = None) -> dict:
    """T5 split by roll and turn: ``{(d1, d2): [(turn, count), ...]}`` with the turns in T2
    order; the counts add up to ``perft(position, depth)``. Depth must be at least 1."""
    depth = _depth(depth)
    if depth < 1:
        raise FastNardyError("perft_divide needs depth >= 1")
    return {
        roll: [(turn, perft(turn.position, depth - 1, weighted=weighted, backend=backend)
                * (2 if weighted and roll[0] != roll[1] else 1))
               for turn in position.legal_turns(roll, backend=backend)]
        for roll in ALL_ROLLS
    }


class PerftEntry(NamedTuple):
    """One expected count of a ``.perft`` file."""

    id: str
    position: str
    depth: int
    count: int
    slow: bool


def read_perft_file(path) -> list:
    """Parse a ``.perft`` file: blocks of ``id NAME``, ``position STRING`` and
    ``perft DEPTH COUNT [slow]`` lines; ``#`` starts a comment. Returns PerftEntry values."""
    entries, name, position = [], None, None
    with open(path, encoding="utf-8") as handle:
        for number, raw in enumerate(handle, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            word, _, rest = line.partition(" ")
            if word == "id":
                name, position = rest.strip(), None
            elif word == "position":
                position = rest.strip()
            elif word == "perft" and name is not None and position is not None:
                fields = rest.split()
                if len(fields) not in (2, 3) or not all(f.isdigit() for f in fields[:2]) \
                        or fields[2:] not in ([], ["slow"]):
                    raise FastNardyError(f"{path}:{number}: expected 'perft DEPTH COUNT [slow]'")
                entries.append(PerftEntry(name, position, int(fields[0]), int(fields[1]),
                                          fields[2:] == ["slow"]))
            else:
                raise FastNardyError(f"{path}:{number}: cannot read {line!r}")
    return entries
