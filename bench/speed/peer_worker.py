"""One measurement of one program in a process of its own; prints one JSON line.

bench/speed/peers.py runs this once per program and round (interleaved), beside the native
drivers of wildbg and bkgm, which print the same JSON:

    python bench/speed/peer_worker.py movegen PROGRAM CONTACT_IDS RACE_IDS PASSES
        {"contact": {"calls", "count", "cpu", "cpu_min"}, "race": {...}}: every position x
        the 21 rolls, one untimed warm-up pass, then PASSES timed passes; "cpu" is this
        thread's CPU seconds per pass (the mean), "cpu_min" the fastest pass
    python bench/speed/peer_worker.py perft PROGRAM DEPTH      short nardy from the start
    python bench/speed/peer_worker.py playout PROGRAM GAMES SEED   random self-play
    python bench/speed/peer_worker.py features fastnardy KIND SOURCE CONTACT_IDS RACE_IDS PASSES
        {"features": {"ratio", "us"}}: fastnardy.features of the positions' keys or rows
        (SOURCE) against numpy filling an array of the same shape (np.full), each pass
        timed for both, interleaved; "ratio" the least of the passes' ratios, "us" the
        features' least µs a row

The positions are GNU Backgammon Position IDs (bench/data); converting them is not timed.
"""

from __future__ import annotations

import json
import random
import sys
import time
from typing import Callable, Dict, List, Tuple

from fastnardy import ALL_ROLLS, Position, perft, simulate
from fastnardy.testing.speed import LEVELS

Setup = Callable[[List[Position]], Tuple[int, Callable[[], int]]]


def fastnardy_level(name: str) -> Setup:
    """One level of fastnardy.testing.speed.LEVELS (the levels ``fastnardy bench`` times)."""
    return lambda positions: LEVELS[name].setup("short", positions)


def bgsage_moves(positions: List[Position]) -> Tuple[int, Callable[[], int]]:
    """bgsage's possible_moves (Python -> C++): a 26-int board, index p = the mover's point
    p (its checkers positive, the opponent's negative), 25 its bar, 0 the opponent's bar."""
    import bgsage

    items = []
    for position in positions:
        me, me_bar, opp, opp_bar = position.mover_frame()
        board = [-opp_bar, *me, me_bar]
        for q in range(1, 25):
            if opp[q - 1]:
                board[25 - q] = -opp[q - 1]
        items += [(board, d1, d2) for d1, d2 in ALL_ROLLS]
    moves = bgsage.possible_moves
    return len(items), lambda: sum(len(moves(board, d1, d2)) for board, d1, d2 in items)


def openspiel_actions(positions: List[Position]) -> Tuple[int, Callable[[], int]]:
    """OpenSpiel's backgammon legal_actions() (Python -> C++) at as many player nodes of
    seeded random OpenSpiel games as there are position-rolls (it cannot be set to a given
    position from Python); its actions are half-turns, so the count differs."""
    import pyspiel

    game = pyspiel.load_game("backgammon")
    rng = random.Random(7)
    states = []
    wanted = len(positions) * len(ALL_ROLLS)
    while len(states) < wanted:
        state = game.new_initial_state()
        while not state.is_terminal() and len(states) < wanted:
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probs)[0])
            else:
                states.append(state.clone())
                state.apply_action(rng.choice(state.legal_actions()))
    return len(states), lambda: sum(len(state.legal_actions()) for state in states)


MOVEGEN: Dict[str, Setup] = {
    **{f"fastnardy:{name}": fastnardy_level(name) for name in LEVELS},
    "bgsage.possible_moves": bgsage_moves,
    "openspiel.legal_actions": openspiel_actions,
}


def gnubg_file(path: str) -> List[Position]:
    """The positions of a file of GNU Backgammon Position IDs, one a line."""
    with open(path) as ids:
        return [Position.from_gnubg_id(line.strip()) for line in ids if line.strip()]


def movegen(program: str, contact: str, race: str, passes: int) -> Dict[str, object]:
    out: Dict[str, object] = {}
    for label, path in (("contact", contact), ("race", race)):
        calls, run = MOVEGEN[program](gnubg_file(path))
        count = run()  # the warm-up pass
        cpus = []
        for _ in range(passes):
            start = time.thread_time()
            run()
            cpus.append(time.thread_time() - start)
        out[label] = {"calls": calls, "count": count, "cpu": sum(cpus) / passes,
                      "cpu_min": min(cpus)}
    return out


def perft_serial(depth: int) -> Dict[str, object]:
    """Short perft from the start on one thread, no transposition table (as the drivers)."""
    start = time.thread_time()
    nodes = perft(Position.start("short"), depth)
    return {"perft": {"depth": depth, "nodes": nodes, "cpu": time.thread_time() - start}}


def playout(games: int, seed: int) -> Dict[str, object]:
    """fastnardy.simulate, short nardy, both sides random, one thread."""
    simulate("short", max(1, games // 50), seed + 1)  # warm-up
    start = time.thread_time()
    run = simulate("short", games, seed)
    cpu = time.thread_time() - start
    return {"playout": {"games": games, "turns": int(run.turns.sum()), "cpu": cpu}}


def features_ratio(kind: str, source: str, contact: str, race: str,
                   passes: int) -> Dict[str, object]:
    """fastnardy.features (short nardy) of every position as keys or rows, against np.full of
    the same (N, F) float32 output, interleaved in this process."""
    import numpy as np

    from fastnardy import batch, features

    boards = batch.encode(gnubg_file(contact) + gnubg_file(race), keys=source == "keys")
    shape = features("short", boards[:1], kind).shape[1]
    ratios, spent = [], []
    for _ in range(passes + 1):  # the first is a warm-up
        start = time.thread_time()
        for _ in range(20):
            features("short", boards, kind)
        mine = time.thread_time() - start
        start = time.thread_time()
        for _ in range(20):
            np.full((len(boards), shape), 0.5, dtype=np.float32)
        full = time.thread_time() - start
        ratios.append(mine / full)
        spent.append(mine / (20 * len(boards)) * 1e6)
    return {"features": {"ratio": min(ratios[1:]), "us": min(spent[1:])}}


def main(argv: List[str]) -> int:
    mode, program, *rest = argv
    if mode == "movegen":
        result = movegen(program, rest[0], rest[1], int(rest[2]))
    elif mode == "perft" and program == "fastnardy":
        result = perft_serial(int(rest[0]))
    elif mode == "playout" and program == "fastnardy":
        result = playout(int(rest[0]), int(rest[1]))
    elif mode == "features" and program == "fastnardy":
        result = features_ratio(rest[0], rest[1], rest[2], rest[3], int(rest[4]))
    else:
        raise SystemExit(f"unknown measurement: {' '.join(argv)}")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
