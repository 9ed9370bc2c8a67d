"""fastnardy.testing.speed: the quick kernel timing behind ``fastnardy bench``."""

from __future__ import annotations

import pytest

from fastnardy.testing import speed
from fastnardy import ALL_ROLLS, Position
from fastnardy.testing.speed import (Timing, best_time, gnubg_ids, measure, report,
                                     sample_positions)


def test_sample_positions_are_seeded_and_never_finished_T4():
    positions = sample_positions("short", 150, seed=3)
    assert len(positions) == 150 and positions == sample_positions("short", 150, seed=3)
    assert not any(position.is_game_over() for position in positions)
    assert len(set(positions)) > 100
    assert all(position.rules.game == "long" for position in sample_positions("long", 10))


def test_best_time_runs_at_least_once_and_keeps_the_fastest_round():
    calls = []
    result, seconds = best_time(lambda: calls.append(1) or len(calls), 0)
    assert (result, len(calls)) == (1, 1) and seconds >= 0
    result, seconds = best_time(lambda: calls.append(1) or len(calls), 0.02)
    assert len(calls) > 3 and result == len(calls)


def test_timing_rates():
    timing = Timing("long", "perft(4) from the start", "node", 2_000_000, 0.5)
    assert timing.per_second == 4_000_000
    assert timing.microseconds_each == pytest.approx(0.25)
    assert timing.as_dict() == {"game": "long", "name": "perft(4) from the start",
                                "unit": "node", "work": 2_000_000, "seconds": 0.5,
                                "per_second": 4_000_000, "microseconds_each": 0.25}


def test_measure_times_every_level_of_both_games_and_counts_perft_T5(monkeypatch):
    monkeypatch.setattr(speed, "PERFT_DEPTH", {"long": 2, "short": 1})
    monkeypatch.setattr(speed, "SAMPLE_SIZE", 20)
    monkeypatch.setattr(speed, "SELFPLAY_GAMES", 10)
    monkeypatch.setattr(speed, "gnubg_positions",
                        lambda: [Position.from_gnubg_id(pid) for pid in gnubg_ids("bg_race_ids.txt")[:30]])
    timings = measure(0)
    levels = list(speed.LEVELS)
    assert [(t.game, t.name) for t in timings] == [
        (game, name) for game, depth in (("long", 2), ("short", 1))
        for name in [*levels, f"perft({depth}) from the start", "simulate, random"]]
    per_game = [20 * 21] * len(levels), [30 * 21] * len(levels)
    assert [t.work for t in timings] == [*per_game[0], 484, 10, *per_game[1], 447, 10]
    assert all(t.seconds > 0 for t in timings)


def test_every_level_counts_the_same_turns_T1():
    positions = sample_positions("short", 15, seed=5) + speed.gnubg_positions()[::200]
    expected = sum(len(p.legal_turns(roll)) for p in positions for roll in ALL_ROLLS)
    for name, level in speed.LEVELS.items():
        items, run = level.setup("short", positions)
        assert (name, items, run()) == (name, len(positions) * 21, expected)


def test_the_benchmark_positions_ship_with_the_package():
    positions = speed.gnubg_positions()
    assert len(positions) == 2000 == len(set(positions))
    assert positions[0].gnubg_id() == gnubg_ids("bg_contact_ids.txt")[0]


def test_report_lines():
    text = report([Timing("short", "legal_turns", "position-roll", 4200, 0.0021),
                   Timing("short", "perft(3) from the start", "node", 116154993, 1.25)])
    lines = text.splitlines()
    assert lines[0] == "short  legal_turns                      0.50 µs per position-roll"
    assert lines[1] == ("short  perft(3) from the start          116,154,993 nodes in 1.250 s, "
                        "92,923,994 nodes/s")
    assert "bench/speed/peers.py" in lines[-1]

