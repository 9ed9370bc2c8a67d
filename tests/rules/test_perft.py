"""perft_divide for chosen rolls, and the perft data files (tests/data/*.perft): every fast
entry on both backends; the entries marked slow run with ``pytest -m slow`` or
bench/correctness/perft_deep.py (kernel only)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fastnardy import InvalidDiceError, Position, perft, perft_divide
from fastnardy.counting import read_perft_file

DATA = Path(__file__).parents[1] / "data"
ENTRIES = [e for f in sorted(DATA.glob("*.perft")) for e in read_perft_file(f)]


@pytest.mark.parametrize("entry", [e for e in ENTRIES if not e.slow],
                         ids=lambda e: f"{e.id} d{e.depth}")
def test_perft_file(backend, entry):
    assert perft(Position.from_string(entry.position), entry.depth) == entry.count


@pytest.mark.slow
@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.slow],
                         ids=lambda e: f"{e.id} d{e.depth}")
def test_perft_file_deep(entry):
    """Minutes each for the records (short perft(4), long perft(7)): two threads sharing a
    4 GB transposition table."""
    assert perft(Position.from_string(entry.position), entry.depth, backend="kernel",
                 workers=2, tt_mb=4096) == entry.count


def test_perft_files_cover_both_games_and_every_head_rule():
    positions = {e.position.split()[0] for e in ENTRIES}
    assert {"long", "short", "long(head_rule=tournament)", "long(head_rule=blocked)"} <= positions


def test_perft_divide_for_chosen_rolls_T5():
    start = Position.start("short")
    whole = perft_divide(start, 2)
    part = perft_divide(start, 2, rolls=[(6, 5), (3, 3), (5, 6)])
    assert list(part) == [(5, 6), (3, 3)] and part[(5, 6)] == whole[(5, 6)]
    for bad in ([(7, 1)], "65", [(6,)], 5):
        with pytest.raises(InvalidDiceError):
            perft_divide(start, 2, rolls=bad)
