"""The speed of every level of the installed copy (``fastnardy bench``).

Each level is a way a program gets from positions to their turns, timed over the same
positions x the 21 rolls:

* children: ``batch.expand`` (keys, rows), ``batch.Expander.expand`` (keys, rows: its
  buffers reused from round to round), ``batch.chance_expand`` (keys, rows), and
  ``list(position.legal_turns(roll))`` (every Turn built);
* counts: ``batch.count_turns``, one ``_kernel.count_turns`` call per position-roll (the
  position as 48 ints), one ``position.count_turns(roll)`` call (the packed position), and
  ``len(position.legal_turns(roll))``;
* perft from the start (one thread, no table) and random self-play (``simulate``).

Short nardy runs on the 2,000 GNU Backgammon benchmark positions shipped in
``fastnardy/data`` (the wildbg project's; 1,000 contact and 1,000 race), the positions
bench/speed/peers.py times wildbg and bkgm on; long nardy on positions met in seeded random
playouts. Every figure is this thread's CPU time, the best of rounds repeated for at least
the given seconds; the levels of a game are interleaved round by round.
"""

from __future__ import annotations

import time
from functools import partial
from importlib import resources
from typing import Callable, Dict, List, NamedTuple, Tuple, TypeVar

import numpy as np

from .. import _kernel, batch
from ..basics import ALL_ROLLS
from ..counting import perft
from ..position import Position
from ..rules import LONG, SHORT
from .samples import sample_positions
from ..search.selfplay import simulate

GNUBG_ID_FILES = ("bg_contact_ids.txt", "bg_race_ids.txt")
SAMPLE_SIZE = 2000  # long-nardy positions
PERFT_DEPTH = {LONG: 4, SHORT: 3}
SELFPLAY_GAMES = 2000

T = TypeVar("T")
Run = Callable[[], int]
Setup = Callable[[str, List[Position]], Tuple[int, Run]]


class Timing(NamedTuple):
    """One measurement: ``work`` items (position-rolls, perft nodes or games) in ``seconds``
    of thread CPU time, the best round."""

    game: str
    name: str
    unit: str
    work: int
    seconds: float

    @property
    def per_second(self) -> float:
        return self.work / self.seconds

    @property
    def microseconds_each(self) -> float:
        return self.seconds / self.work * 1e6

    def as_dict(self) -> Dict[str, object]:
        return {**self._asdict(), "per_second": round(self.per_second),
                "microseconds_each": round(self.microseconds_each, 4)}


def gnubg_ids(name: str) -> List[str]:
    """The GNU Backgammon Position IDs of one of ``GNUBG_ID_FILES``, one a line."""
    text = resources.files("fastnardy").joinpath("data", name).read_text()
    return [line.strip() for line in text.splitlines() if line.strip()]


def gnubg_positions() -> List[Position]:
    """The 2,000 short-nardy benchmark positions, contact then race, white to move."""
    return [Position.from_gnubg_id(pid) for name in GNUBG_ID_FILES for pid in gnubg_ids(name)]


def _every_roll(positions: List[Position]) -> Tuple[np.ndarray, np.ndarray]:
    """Each position's row repeated for the 21 rolls, and the rolls."""
    rows = np.repeat(batch.encode(positions), len(ALL_ROLLS), axis=0)
    return rows, np.tile(batch.ROLLS, (len(positions), 1))


def _expand(keys: bool, reused: bool = False) -> Setup:
    """batch.expand, or with ``reused`` the expand of one batch.Expander kept across rounds."""
    def setup(game: str, positions: List[Position]) -> Tuple[int, Run]:
        rows, dice = _every_roll(positions)
        expand = batch.Expander(game, keys=keys).expand if reused else \
            partial(batch.expand, game, keys=keys)
        return len(rows), lambda: len(expand(rows, dice)[1])
    return setup


def _chance(keys: bool) -> Setup:
    def setup(game: str, positions: List[Position]) -> Tuple[int, Run]:
        boards = batch.encode(positions, keys=keys)
        return (len(positions) * len(ALL_ROLLS),
                lambda: len(batch.chance_expand(game, boards, keys=keys).parent))
    return setup


def _count_batch(game: str, positions: List[Position]) -> Tuple[int, Run]:
    rows, dice = _every_roll(positions)
    return len(rows), lambda: int(batch.count_turns(game, rows, dice).sum())


def _count_calls(game: str, positions: List[Position]) -> Tuple[int, Run]:
    code = positions[0].rules.code
    items = [(*p.mover_frame(), d1, d2) for p in positions for d1, d2 in ALL_ROLLS]
    count = _kernel.count_turns

    def run() -> int:
        total = 0
        for me, me_bar, opp, opp_bar, d1, d2 in items:
            total += count(code, me, me_bar, opp, opp_bar, d1, d2)
        return total
    return len(items), run


def _count_positions(game: str, positions: List[Position]) -> Tuple[int, Run]:
    pairs = [(p, roll) for p in positions for roll in ALL_ROLLS]
    return len(pairs), lambda: sum(p.count_turns(roll) for p, roll in pairs)


def _legal_turns(build: bool) -> Setup:
    def setup(game: str, positions: List[Position]) -> Tuple[int, Run]:
        pairs = [(p, roll) for p in positions for roll in ALL_ROLLS]
        if build:
            return len(pairs), lambda: sum(len(list(p.legal_turns(roll))) for p, roll in pairs)
        return len(pairs), lambda: sum(len(p.legal_turns(roll)) for p, roll in pairs)
    return setup


class Level(NamedTuple):
    """A way to get from positions to their turns: its group (children or counts), how it
    is called, and its setup (game, positions) -> (position-rolls, run)."""

    group: str
    how: str
    setup: Setup


LEVELS: Dict[str, Level] = {
    "batch.expand(keys=True)": Level("children", "numpy batch", _expand(True)),
    "batch.expand (rows)": Level("children", "numpy batch", _expand(False)),
    "Expander.expand(keys=True)": Level("children", "numpy batch, buffers reused",
                                        _expand(True, reused=True)),
    "Expander.expand (rows)": Level("children", "numpy batch, buffers reused",
                                    _expand(False, reused=True)),
    "batch.chance_expand(keys=True)": Level("children", "numpy batch, 21 rolls a call",
                                            _chance(True)),
    "batch.chance_expand (rows)": Level("children", "numpy batch, 21 rolls a call",
                                        _chance(False)),
    "list(legal_turns)": Level("children", "Python API, every Turn built", _legal_turns(True)),
    "batch.count_turns": Level("counts", "numpy batch", _count_batch),
    "_kernel.count_turns": Level("counts", "one Python call each, 48 ints", _count_calls),
    "Position.count_turns": Level("counts", "one Python call each, a Position",
                                  _count_positions),
    "len(legal_turns)": Level("counts", "Python API, lazy", _legal_turns(False)),
}


def benchmark_positions(game: str) -> List[Position]:
    """The positions a game's levels are timed on (see the module docstring)."""
    return gnubg_positions() if game == SHORT else sample_positions(LONG, SAMPLE_SIZE)


def best_time(work: Callable[[], T], seconds: float) -> Tuple[T, float]:
    """What ``work`` returns, and the least thread CPU time of its rounds, repeated for at
    least ``seconds`` of it (one round at least)."""
    best, spent = float("inf"), 0.0
    while True:
        start = time.thread_time()
        result = work()
        elapsed = time.thread_time() - start
        best, spent = min(best, elapsed), spent + elapsed
        if spent >= seconds:
            return result, best


def measure(seconds: float = 0.5) -> List[Timing]:
    """Time every level of both games (see the module docstring)."""
    return [timing for game in (LONG, SHORT) for timing in _measure_game(game, seconds)]


def _measure_game(game: str, seconds: float) -> List[Timing]:
    positions = benchmark_positions(game)
    runs = {name: level.setup(game, positions) for name, level in LEVELS.items()}
    start, depth = Position.start(game), PERFT_DEPTH[game]
    work: Dict[str, Tuple[str, int, Callable[[], object]]] = {
        name: ("position-roll", items, run) for name, (items, run) in runs.items()}
    nodes = perft(start, depth)
    work[f"perft({depth}) from the start"] = ("node", nodes, lambda: perft(start, depth))
    work["simulate, random"] = ("game", SELFPLAY_GAMES,
                                lambda: simulate(game, SELFPLAY_GAMES, seed=11))
    best = {name: float("inf") for name in work}
    spent = 0.0
    while True:  # interleaved rounds, one of each level at a time; one round at least
        for name, (_, _, run) in work.items():
            before = time.thread_time()
            run()
            elapsed = time.thread_time() - before
            best[name], spent = min(best[name], elapsed), spent + elapsed
        if spent >= seconds * len(work):
            break
    return [Timing(game, name, unit, items, best[name])
            for name, (unit, items, _) in work.items()]


def report(timings: List[Timing]) -> str:
    """The timings as text: µs per position-roll, nodes per second or games per second."""
    lines = []
    for timing in timings:
        if timing.unit == "node":
            figures = (f"{timing.work:,} nodes in {timing.seconds:.3f} s, "
                       f"{timing.per_second:,.0f} nodes/s")
        elif timing.unit == "game":
            figures = f"{timing.work:,} games in {timing.seconds:.3f} s, {timing.per_second:,.0f} games/s"
        else:
            figures = f"{timing.microseconds_each:.2f} µs per position-roll"
        lines.append(f"{timing.game:<6} {timing.name:<32} {figures}")
    lines.append("(thread CPU time, the best of interleaved rounds; short nardy: the 2,000 GNU "
                 "Backgammon benchmark positions, long: seeded random playouts; x "
                 f"{len(ALL_ROLLS)} rolls. bench/speed/peers.py in the source tree times wildbg, "
                 "bkgm, bgsage and OpenSpiel beside these)")
    return "\n".join(lines)
