"""fastnardy beside the installable peers, in one run on the same positions: bgsage's
``possible_moves`` (Python -> C++) and OpenSpiel's backgammon ``legal_actions`` (Python ->
C++), with every fastnardy row of bench/searchpath.py. Peers that are not installed are
left out (``pip install ".[peers]"`` installs both).

    PYTHONPATH=src python bench/peers.py [--rounds 5] [--positions 2000]

Positions: the GNU Backgammon benchmark IDs of ``../shared/data`` (contact and race), each
with the 21 rolls; OpenSpiel cannot be set to a given position from Python, so it is timed
on the player nodes of seeded random OpenSpiel games (as many as there are position-rolls,
at most 20,000). Times are thread CPU µs per (position, roll), the median of interleaved
rounds. wildbg and bkgm (native Rust) cannot be built here: their figures are the ones
quoted in issue 6, measured on this machine class with the same corpus, shown for reference.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import sys

from corpus import short_positions
from searchpath import Workload, fastnardy_workloads, measure, short_perft_seconds

from fastnardy import ALL_ROLLS, Position

QUOTED = [  # issue 6: native loops, not measured in this run
    ("wildbg all_positions_after_moving (quoted)", "native Rust loop", 0.33),
    ("bkgm legal_positions (quoted)", "native Rust loop", 0.36),
]


def bgsage_board(position: Position) -> list:
    """bgsage's 26-int board: index p = the mover's point p (its checkers positive, the
    opponent's negative), 25 = the mover's bar, 0 = the opponent's bar (negative)."""
    me, me_bar, opp, opp_bar = position.mover_frame()
    board = [-opp_bar, *me, me_bar]
    for q in range(1, 25):
        if opp[q - 1]:
            board[25 - q] = -opp[q - 1]
    return board


def bgsage_workload(positions: list) -> "tuple[Workload, int]":
    """bgsage's possible_moves over the corpus, and how many position-rolls disagree with
    fastnardy's count (a pass is one turn here, none there)."""
    import bgsage

    pairs = [(bgsage_board(p), roll) for p in positions for roll in ALL_ROLLS]
    moves = bgsage.possible_moves

    def run() -> None:
        for board, (d1, d2) in pairs:
            moves(board, d1, d2)

    disagree = sum(max(1, len(moves(bgsage_board(p), *roll))) != len(p.legal_turns(roll))
                   for p in positions for roll in ALL_ROLLS)
    return Workload("bgsage possible_moves", "Python -> C++", run, len(pairs)), disagree


def openspiel_workload(count: int, seed: int = 7) -> Workload:
    """OpenSpiel's legal_actions at ``count`` player nodes of seeded random games."""
    import pyspiel

    game = pyspiel.load_game("backgammon")
    rng = random.Random(seed)
    states = []
    while len(states) < count:
        state = game.new_initial_state()
        while not state.is_terminal() and len(states) < count:
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probs)[0])
            else:
                states.append(state.clone())
                state.apply_action(rng.choice(state.legal_actions()))

    def run() -> None:
        for state in states:
            state.legal_actions()

    return Workload("OpenSpiel state.legal_actions() (half-turn actions)", "Python -> C++",
                    run, len(states))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--positions", type=int, default=2000)
    args = parser.parse_args(argv)
    positions = short_positions()[:args.positions]
    workloads = fastnardy_workloads(positions)
    notes = []
    if importlib.util.find_spec("bgsage"):
        workload, disagree = bgsage_workload(positions)
        workloads.append(workload)
        notes.append(f"bgsage and fastnardy agree on the number of turns of "
                     f"{workload.items - disagree:,} of {workload.items:,} position-rolls")
    else:
        notes.append("bgsage is not installed: left out")
    if importlib.util.find_spec("pyspiel"):
        workloads.append(openspiel_workload(min(20_000, len(positions) * 21)))
    else:
        notes.append("open_spiel is not installed: left out")
    results = measure(workloads, args.rounds)
    table = [(w.name, w.level, results[w.name]) for w in workloads] + QUOTED
    base = results.get("bgsage possible_moves")
    print(f"{len(positions)} positions x 21 rolls, thread CPU µs per position-roll, "
          f"median of {args.rounds} interleaved rounds\n")
    print("| program | level | µs per position-roll | bgsage / this |")
    print("|---|---|---|---|")
    for name, level, micros in sorted(table, key=lambda row: row[2]):
        ratio = f"{base / micros:.1f}×" if base else "-"
        print(f"| {name} | {level} | {micros:.2f} | {ratio} |")
    print()
    print(f"short perft(3) from the start: {short_perft_seconds():.2f} s "
          f"(issue 6 quotes wildbg 1.64 s, bkgm 1.75 s)")
    for note in notes:
        print(note)
    return 0


if __name__ == "__main__":
    sys.exit(main())
