"""Differential test of the step encoding: the kernel's partial turns (fastnardy._steps, what
TurnInProgress and the environments play) against the pure-Python reference's step orders
(``reference.step_orders``), position-roll by position-roll (issue 38's goal: >= 10**5).

For every rule variant (18 long, 2 short) it builds random playouts and random placements
(fastnardy.testing.samples, as bench/correctness/differential.py) and, for all 21 rolls of each, walks
every sequence of allowed actions (the kernel's masks, each branch copied) and compares:

* the set of complete action sequences, each with the position it plays, to the
  reference's set of legal step orders (equal, not just a subset: every order of every legal
  turn's steps that can be played, under S8 each choice of which checker moved), and
* the positions reached to the kernel's own legal turns (every legal turn reached, T1).

A mismatch or an exception is printed with the position and roll; the exit status is 1 on
any. One summary line per variant.

    python bench/correctness/step_orders.py --positions 120 --seed 1 [--game long|short|both]
"""

from __future__ import annotations

import argparse
import copy
import random
import sys
import time

import numpy as np

from fastnardy import Position, Rules, reference as ref
from fastnardy.basics import ALL_ROLLS
from fastnardy.envs.steps import TurnInProgress
from fastnardy.rules import BLOCK_CHECKS, BLOCK_RULES, HEAD_RULES, HIT_AND_HIDE
from fastnardy.testing.samples import placements, playouts


def kernel_orders(position: Position, roll) -> dict:
    out = {}
    stack = [TurnInProgress(position, roll)]
    while stack:
        turn = stack.pop()
        if turn.done:
            out[tuple((a // 6 + 1, a % 6 + 1) for a in turn.taken)] = turn.turn.position
            continue
        allowed = np.flatnonzero(turn.mask())
        if not len(allowed):
            raise AssertionError(f"a turn in progress with no allowed step: {turn.taken}")
        for action in allowed:
            branch = copy.copy(turn)
            branch.play(int(action))
            stack.append(branch)
    return out


def reference_orders(position: Position, roll) -> dict:
    rules = ref.parse_code(position.rules.code)
    start = ref.to_state(rules, *position.mover_frame())
    return {path: position._from_mover_frame(*ref.from_state(rules, state))
            for path, state in ref.step_orders(rules, start, roll).items()}


def variants(game: str):
    if game in ("long", "both"):
        for head in HEAD_RULES:
            for block in BLOCK_RULES:
                for check in BLOCK_CHECKS:
                    yield Rules.long(head_rule=head, block_rule=block, block_check=check)
    if game in ("short", "both"):
        for hide in HIT_AND_HIDE:
            yield Rules.short(hit_and_hide=hide)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=120, help="per variant, half "
                        "playouts, half placements")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--game", default="both", choices=["long", "short", "both"])
    args = parser.parse_args()
    total = bad = orders = 0
    start = time.time()
    for rules in variants(args.game):
        rng = random.Random(args.seed)
        sides = playouts(rng, rules.code, args.positions // 2) + placements(
            rng, rules.code, args.positions - args.positions // 2)
        found = [Position(rules, "white", *side) for side in sides]
        done = problems = walked = 0
        for position in found:
            if position.is_game_over():
                continue
            for roll in ALL_ROLLS:
                done += 1
                try:
                    mine = kernel_orders(position, roll)
                    walked += len(mine)
                    if mine != reference_orders(position, roll):
                        raise AssertionError("the step orders differ from the reference's")
                    if set(mine.values()) != {t.position for t in position.legal_turns(roll)}:
                        raise AssertionError("the step orders do not reach every legal turn")
                except Exception as error:  # reported, counted, never hidden
                    problems += 1
                    print(f"  MISMATCH {position.to_string()} {roll}: {error!r}")
        total += done
        bad += problems
        orders += walked
        print(f"{str(rules):60s} {done:6d} position-rolls, {walked:8d} step orders, "
              f"{problems} problems", flush=True)
    print(f"total: {total} position-rolls, {orders} step orders, {bad} problems, "
          f"{time.time() - start:.0f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
