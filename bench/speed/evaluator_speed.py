"""Issue 20's goals, measured in one run: the compiled evaluator against random self-play and
against GNU Backgammon on the same machine.

    python bench/speed/evaluator_speed.py [--rounds 5] [--positions 40]

1. Self-play games per CPU second with the shipped network as both sides' policy (played
   inside the kernel) against random self-play, short and long (goal: >= 0.2x); and the
   greedy policy's, which also makes and scores every child of every turn (a loop over
   the 24 points each) but has no network: what making the children costs. And the
   network's self-play, in float and in int16 arithmetic, against the greedy policy's
   (issue 39's goal: >= 0.6x).
2. Evaluations per CPU second: batch 1 through the Python API (``Evaluator.value`` of a
   Position, and ``Evaluator.evaluate`` of one row), and batched inside the kernel
   (``Evaluator.evaluate`` of 100,000 rows), against gnubg's own rate: its ``calibrate``
   (single thread) reports evaluations per second (goals: >= 1x and >= 20x). The
   benchmark positions are half races, which the short net's race network values; the
   contact half alone is timed too; both again in int16 arithmetic
   (``Evaluator.load("short", "int16")``, issue 39).
3. Threads: ``simulate`` with the network on ``workers=2`` against one thread, the best wall
   time of each over the rounds (goal: >= 1.7x on 2 cores; meaningful only on an otherwise
   idle machine).
4. 2-ply ``best_turn`` CPU per decision with the default filter of ``hint``, ``analyse``
   and ``match`` (``GNUBG_FILTERS``) and with ``MoveFilter()`` at every level (``--filter
   8,0.16``, the default before) against gnubg's 2-ply ``findbestmove`` (its own CPU
   time inside its process, start-up excluded; set threads 1), on ``--positions`` contact
   positions of the GNU Backgammon benchmark set whose roll has more than three legal turns;
   and how often the two choose the same turn (goals: <= 0.5x gnubg's CPU, >= 85% equal).
   Also the cost per ply (0 to 3) of ``best_turn`` with ``GNUBG_FILTERS``.

Thread CPU time (``time.thread_time``) for fastnardy, interleaved rounds, medians. gnubg
(Debian's ``gnubg``) is skipped, with a line saying so, where it is not installed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from typing import Dict, List, Optional, Tuple

import numpy as np

from boundary import race

from fastnardy import ALL_ROLLS, Position, batch
from fastnardy.testing.speed import gnubg_positions
from fastnardy.search.network import Evaluator, races
from fastnardy.search.tree import GNUBG_FILTERS, MoveFilter, best_turn
from fastnardy.search.selfplay import simulate

GNUBG = shutil.which("gnubg") or ("/usr/games/gnubg" if os.path.exists("/usr/games/gnubg")
                                  else None)

DRIVER = r'''
import os, time
import gnubg
gnubg.command("set threads 1")
gnubg.command("set jacoby off")
gnubg.command("new game")
cube = gnubg.cubeinfo()
out = open(os.environ["FN_OUT"], "w")
for line in open(os.environ["FN_IN"]):
    numbers = [int(x) for x in line.split(",")]
    row, dice = numbers[:50], numbers[50:52]
    board = [row[25:50], row[0:25]]
    context = {"cubeful": 0, "plies": 2, "deterministic": 1, "noise": 0.0, "prune": 1}
    start = time.process_time()
    move = gnubg.findbestmove(board, cube, context, tuple(dice))
    spent = time.process_time() - start
    out.write(f"{spent:.6f} {','.join(map(str, move))}\n")
out.close()
'''


def gnubg_calibrate() -> Optional[float]:
    """gnubg's evaluations per second from its ``calibrate`` (one thread; gnubg times it
    on the wall clock, so a busy machine lowers it), or None."""
    if GNUBG is None:
        return None
    process = subprocess.Popen([GNUBG, "-t", "-q"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("set threads 1\ncalibrate 4000\n")
    process.stdin.flush()  # kept open: gnubg stops at the end of its input
    rate = None
    for line in process.stdout:
        if "static evaluations/second" in line:
            rate = float(line.split(":")[1].split()[0].replace(",", ""))
            break
    process.kill()
    process.wait()
    return rate


def gnubg_two_ply(rows: np.ndarray, rolls: List[Tuple[int, int]]
                  ) -> Optional[Tuple[List[float], List[List[int]]]]:
    """gnubg's CPU seconds and best move (from, to pairs) at 2 ply for each position."""
    if GNUBG is None:
        return None
    with tempfile.TemporaryDirectory() as folder:
        driver = os.path.join(folder, "driver.py")
        with open(driver, "w") as stream:
            stream.write(DRIVER)
        requests = os.path.join(folder, "in.txt")
        with open(requests, "w") as stream:
            for row, roll in zip(rows, rolls):
                stream.write(",".join(map(str, list(row) + list(roll))) + "\n")
        answers = os.path.join(folder, "out.txt")
        subprocess.run([GNUBG, "-t", "-q", "-p", driver], capture_output=True, timeout=3600,
                       env={**os.environ, "FN_IN": requests, "FN_OUT": answers}, check=True)
        spent, moves = [], []
        for line in open(answers):
            seconds, _, move = line.strip().partition(" ")
            spent.append(float(seconds))
            moves.append([int(x) for x in move.split(",")] if move else [])
    return spent, moves


def played(position: Position, roll: Tuple[int, int], move: List[int]) -> Optional[Position]:
    """The position after gnubg's move (one die's (from, to) pair each, its mover's numbering,
    25 the bar, 0 off; none for no legal move), refereed by fastnardy, or None."""
    text = " ".join(f"{'bar' if a == 25 else a}/{'off' if b <= 0 else b}"
                    for a, b in zip(move[0::2], move[1::2]))
    try:
        return position.play(text, dice=roll)
    except ValueError:
        return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--positions", type=int, default=40)
    args = parser.parse_args()
    nets = {game: Evaluator.load(game) for game in ("short", "long")}
    integers = {game: Evaluator.load(game, "int16") for game in nets}

    print("1. self-play, games per thread-CPU second (median of "
          f"{args.rounds} interleaved rounds)")
    for game, net in nets.items():
        sizes = {"random": 4000, "network": 400, "int16": 400, "greedy": 2000}
        spent = race({
            "random": lambda: simulate(game, sizes["random"], 1, "random"),
            "network": lambda: simulate(game, sizes["network"], 1, net),
            "int16": lambda: simulate(game, sizes["int16"], 1, integers[game]),
            "greedy": lambda: simulate(game, sizes["greedy"], 1, "greedy")}, args.rounds)
        rates = {name: sizes[name] / spent[name] for name in spent}
        print(f"   {game:5s} random {rates['random']:8.0f}  network {rates['network']:7.0f}  "
              f"ratio {rates['network'] / rates['random']:.3f}  (goal >= 0.2)  greedy "
              f"{rates['greedy']:7.0f}  ratio {rates['greedy'] / rates['random']:.3f}")
        print(f"   {game:5s} network / greedy {rates['network'] / rates['greedy']:.3f}, in "
              f"int16 {rates['int16']:7.0f} games, {rates['int16'] / rates['greedy']:.3f} "
              f"(issue 39's goal >= 0.6)")

    print("2. evaluations per thread-CPU second")
    calibrate = gnubg_calibrate()
    print(f"   gnubg calibrate (1 thread): "
          f"{'not installed' if calibrate is None else f'{calibrate:,.0f}'}")
    rows = batch.encode(gnubg_positions())
    many = np.repeat(rows, 50, axis=0)[:100_000]
    contact = np.repeat(rows[~races("short", rows)], 100, axis=0)[:100_000]
    positions = batch.decode("short", rows[:1000])
    net = nets["short"]
    spent = race({
        "value": lambda: [net.value(p) for p in positions],
        "row": lambda: [net.evaluate(rows[i:i + 1]) for i in range(1000)],
        "kernel": lambda: net.evaluate(many),
        "contact": lambda: net.evaluate(contact),
        "kernel16": lambda: integers["short"].evaluate(many),
        "contact16": lambda: integers["short"].evaluate(contact)}, args.rounds)
    for name, count in (("value", 1000), ("row", 1000), ("kernel", len(many)),
                        ("contact", len(contact)), ("kernel16", len(many)),
                        ("contact16", len(contact))):
        rate = count / spent[name]
        versus = "" if calibrate is None else f"  {rate / calibrate:5.2f}x gnubg"
        label = {"value": "batch 1, Evaluator.value(Position)",
                 "row": "batch 1, Evaluator.evaluate(one row)",
                 "kernel": "batched, Evaluator.evaluate(100,000 rows)",
                 "contact": "the same, contact positions only",
                 "kernel16": "batched, in int16 arithmetic",
                 "contact16": "the same, contact positions only"}[name]
        print(f"   {label:44s} {rate:12,.0f}{versus}")

    print(f"3. threads: simulate('short', 8000, policy=network), wall seconds, best of "
          f"{args.rounds} interleaved rounds")
    walls: Dict[Optional[int], float] = {None: float("inf"), 2: float("inf")}
    for _ in range(args.rounds):
        for workers in walls:
            start = time.perf_counter()
            simulate("short", 8000, 1, nets["short"], workers=workers)
            walls[workers] = min(walls[workers], time.perf_counter() - start)
    print(f"   one thread {walls[None]:.2f} s, two workers {walls[2]:.2f} s: "
          f"{walls[None] / walls[2]:.2f}x (goal >= 1.7x)")

    print(f"4. 2-ply best_turn on {args.positions} contact positions (> 3 legal turns)")
    rng = np.random.default_rng(5)
    chosen, rolls = [], []
    for index in rng.permutation(len(rows)):
        position = batch.decode("short", rows[index:index + 1])[0]
        roll = ALL_ROLLS[int(index) % 21]
        row = rows[index]
        contact = max(np.flatnonzero(row[:25])) + max(np.flatnonzero(row[25:50])) >= 25
        if contact and len(position.legal_turns(roll)) > 3:
            chosen.append(position)
            rolls.append(roll)
        if len(chosen) == args.positions:
            break
    cost = {}
    picks: Dict[str, List[Position]] = {}
    for name, move_filter, plies in (("MoveFilter()", MoveFilter(), 2),
                                     ("GNUBG_FILTERS", GNUBG_FILTERS, 2),
                                     ("0 ply", None, 0), ("1 ply", GNUBG_FILTERS, 1),
                                     ("3 ply GNUBG_FILTERS", GNUBG_FILTERS, 3)):
        start = time.thread_time()
        found = [best_turn(p, r, net, plies, move_filter) for p, r in zip(chosen, rolls)]
        cost[name] = (time.thread_time() - start) / len(chosen)
        picks[name] = [p.play(f.turn) for p, f in zip(chosen, found)]
    gnubg = gnubg_two_ply(batch.encode(chosen), rolls)
    gnubg_cost = None if gnubg is None else statistics.mean(gnubg[0])
    for name, seconds in cost.items():
        versus = "" if gnubg_cost is None else f"  {seconds / gnubg_cost:5.2f}x gnubg 2-ply"
        print(f"   {name:22s} {1000 * seconds:8.1f} ms a decision{versus}")
    if gnubg is None:
        print("   gnubg: not installed")
        return
    print(f"   gnubg 2-ply findbestmove {1000 * gnubg_cost:8.1f} ms a decision (its own CPU)")
    theirs = [played(p, r, m) for p, r, m in zip(chosen, rolls, gnubg[1])]
    for name in ("MoveFilter()", "GNUBG_FILTERS", "0 ply"):
        same = sum(a == b for a, b in zip(picks[name], theirs))
        print(f"   {name:22s} chooses gnubg's 2-ply turn {same} of {len(chosen)} "
              f"({100 * same / len(chosen):.0f}%, goal >= 85% at 2 ply)")


if __name__ == "__main__":
    main()
