"""pytest-benchmark suite: kernel enumeration, the Python API and the reference over the
benchmark corpus (bench/speed/corpus.py), and perft from the start.

    python -m pytest bench/speed/test_bench.py --benchmark-enable \
        --benchmark-columns=median,iqr,rounds [--benchmark-compare]

Each benchmark runs over a group of (position, roll) items; divide the median by the item
count in ``extra_info`` for the time per position-roll. bench/speed/report.py prints the same
figures as one table with the ratios.
"""

from __future__ import annotations

import random

import pytest

from corpus import PHASES, corpus
from report import (DOUBLES, NON_DOUBLES, api_all_turns, api_turns, items_of,
                    kernel_counts, reference_turns)

from fastnardy import Position, perft

GROUPS = corpus(40)
CASES = [(game, phase, label) for game in ("long", "short") for phase in PHASES
         for label in ("non-doubles", "doubles") if GROUPS.get((game, phase))]


def _items(game, phase, label, size):
    positions = GROUPS[(game, phase)]
    sample = random.Random(0).sample(positions, min(size, len(positions)))
    return items_of(sample, NON_DOUBLES if label == "non-doubles" else DOUBLES)


@pytest.mark.parametrize("game, phase, label", CASES)
def test_kernel_enumeration(benchmark, game, phase, label):
    items = _items(game, phase, label, 400)
    benchmark.extra_info["items"] = len(items)
    benchmark(kernel_counts, items)


@pytest.mark.parametrize("game, phase, label", CASES)
def test_api_legal_turns(benchmark, game, phase, label):
    items = _items(game, phase, label, 100)
    benchmark.extra_info["items"] = len(items)
    benchmark(api_turns, items)


@pytest.mark.parametrize("game, phase, label", CASES)
def test_api_all_turns_built(benchmark, game, phase, label):
    items = _items(game, phase, label, 100)
    benchmark.extra_info["items"] = len(items)
    benchmark(api_all_turns, items)


@pytest.mark.parametrize("game, phase, label", CASES)
def test_reference(benchmark, game, phase, label):
    items = _items(game, phase, label, 10)
    benchmark.extra_info["items"] = len(items)
    benchmark.pedantic(reference_turns, args=(items,), rounds=3, iterations=1)


@pytest.mark.parametrize("game, depth", [("long", 4), ("short", 3)])
def test_perft_from_the_start(benchmark, game, depth):
    nodes = benchmark.pedantic(perft, args=(Position.start(game), depth), rounds=3,
                               iterations=1)
    benchmark.extra_info["nodes"] = nodes
