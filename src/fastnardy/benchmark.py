"""A quick timing of the kernel that an installed package can run (``fastnardy bench``).

For each game: :func:`fastnardy.batch.count_turns` and ``Position.legal_turns`` over the 21
rolls of positions sampled from seeded random playouts (µs per position-roll), and perft
from the start (long perft(4), short perft(3); nodes per second). Each measurement is
repeated for at least the given seconds and the best round is kept. The README's full table
(game phases, the reference backend, building every Turn) is ``bench/report.py`` in the
source tree.
"""

from __future__ import annotations

import time
from typing import Callable, Dict, List, NamedTuple, Tuple, TypeVar

from . import batch
from .basics import ALL_ROLLS
from .counting import perft
from .position import Position
from .rules import LONG, SHORT
from .samples import sample_positions

SAMPLE_SIZE = 200  # positions per game
PERFT_DEPTH = {LONG: 4, SHORT: 3}

T = TypeVar("T")


class Timing(NamedTuple):
    """One measurement: ``work`` items (position-rolls or perft nodes) in ``seconds``, the
    best round."""

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


def best_time(work: Callable[[], T], seconds: float) -> Tuple[T, float]:
    """What ``work`` returns, and the fastest of its rounds repeated for at least ``seconds``
    (one round at least)."""
    best, spent = float("inf"), 0.0
    while True:
        start = time.perf_counter()
        result = work()
        elapsed = time.perf_counter() - start
        best, spent = min(best, elapsed), spent + elapsed
        if spent >= seconds:
            return result, best


def measure(seconds: float = 0.5) -> List[Timing]:
    """Time the kernel on both games (see the module's docstring)."""
    return [timing for game in (LONG, SHORT) for timing in _measure_game(game, seconds)]


def _measure_game(game: str, seconds: float) -> List[Timing]:
    positions = sample_positions(game, SAMPLE_SIZE)
    rows = batch.encode(positions)
    position_rolls = len(positions) * len(ALL_ROLLS)

    def count_all() -> None:
        for roll in batch.ROLLS:
            batch.count_turns(game, rows, roll)

    def enumerate_all() -> None:
        for position in positions:
            for roll in ALL_ROLLS:
                position.legal_turns(roll)

    start, depth = Position.start(game), PERFT_DEPTH[game]
    nodes, perft_seconds = best_time(lambda: perft(start, depth), seconds)
    return [
        Timing(game, "batch.count_turns", "position-roll", position_rolls,
               best_time(count_all, seconds)[1]),
        Timing(game, "legal_turns", "position-roll", position_rolls,
               best_time(enumerate_all, seconds)[1]),
        Timing(game, f"perft({depth}) from the start", "node", nodes, perft_seconds),
    ]


def report(timings: List[Timing]) -> str:
    """The timings as text: µs per position-roll, or nodes and nodes per second."""
    lines = []
    for timing in timings:
        if timing.unit == "node":
            figures = (f"{timing.work:,} nodes in {timing.seconds:.3f} s, "
                       f"{timing.per_second:,.0f} nodes/s")
        else:
            figures = f"{timing.microseconds_each:.2f} µs per position-roll"
        lines.append(f"{timing.game:<6} {timing.name:<26} {figures}")
    lines.append(f"(positions from seeded random playouts x {len(ALL_ROLLS)} rolls; the full "
                 f"table is bench/report.py in the source tree)")
    return "\n".join(lines)
