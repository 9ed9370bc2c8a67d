"""Differential test: the Cython kernel against the pure-Python reference, turn for turn.

For every rule variant (long: head_rule x block_rule x block_check = 18; short: hit_and_hide
= 2) it builds positions of two kinds,

* random playouts: random turns (the kernel's) from the start of the game, positions sampled
  along the way, and
* random placements: random T7-valid positions (15 checkers a side, no shared point, no bar in
  long nardy, not both sides off, no forbidden six-block under the variant), biased toward the
  hard cases: bar and bear-off positions for short, first-turn/head and six-block positions
  for long,

and compares, for all 21 rolls, the full result lists of ``enumerate_turns`` (same order,
same steps with hit flags, same boards). It also checks ``count_turns``,
``count_turns_batch`` and ``perft_count(depth=1)`` against the reference lists, and the
kernel's shortcuts (non-increasing search of doubles, canonical pruning of non-doubles)
against its general search (``_set_fast_paths(False)``).

Every mismatch is printed with the inputs that reproduce it and both outputs; the exit status
is 1 on any mismatch. One summary line per variant.

    python bench/correctness/differential.py --positions 40 --seed 1 [--game long|short|both]
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time

import numpy as np

from fastnardy import _kernel as K
from fastnardy.basics import ALL_ROLLS as ROLLS, start_points
from fastnardy.rules import BLOCK_CHECKS, BLOCK_RULES, HEAD_RULES, HIT_AND_HIDE as HIDE
from fastnardy.testing.samples import placements, playouts

try:
    from fastnardy import reference as R
except ImportError:  # pragma: no cover - the reference is written in parallel
    R = None



def variants(game: str):
    if game in ("long", "both"):
        for h, b, c in itertools.product(range(3), range(3), range(2)):
            yield (0, h, b, c, 0), f"long head={HEAD_RULES[h]} block={BLOCK_RULES[b]} check={BLOCK_CHECKS[c]}"
    if game in ("short", "both"):
        for hh in range(2):
            yield (1, 0, 0, 0, hh), f"short hit_and_hide={HIDE[hh]}"


def position_string(code, me, me_bar, opp, opp_bar) -> str:
    """The position as a fastnardy position string (the side to move as white), for
    ``Position.from_string`` and ``python -m fastnardy turns``."""
    from fastnardy import FastNardyError, Position, Rules

    if code[0] == 0:
        rules = Rules.long(head_rule=HEAD_RULES[code[1]], block_rule=BLOCK_RULES[code[2]],
                           block_check=BLOCK_CHECKS[code[3]])
    else:
        rules = Rules.short(hit_and_hide=HIDE[code[4]])
    try:
        return Position.from_points(rules, me, opp, "white", me_bar, opp_bar).to_string()
    except FastNardyError as exc:
        return f"(not a valid Position: {exc})"


# --------------------------------------------------------------------------- comparison

def show(turns) -> str:
    if isinstance(turns, Exception):
        return f"    raised {type(turns).__name__}: {turns}"
    lines = [f"    {len(turns)} turns"]
    for t in turns:
        lines.append(f"      {t!r}")
    return "\n".join(lines)


def call(fn, *args):
    try:
        return fn(*args)
    except Exception as exc:  # noqa: BLE001 - reported as a mismatch
        return exc


def check_variant(code, label, positions, args) -> tuple:
    mismatches = 0
    rolls_done = 0
    t_ref = t_ker = 0.0
    boards = []
    dice = []
    expect = []
    for pos in positions:
        me, me_bar, opp, opp_bar = pos
        per_pos = 0
        per_pos_w = 0
        game_over = sum(me) + me_bar == 0 or sum(opp) + opp_bar == 0
        for d1, d2 in ROLLS:
            if args.swap_dice and d1 != d2 and random.random() < 0.5:
                d1, d2 = d2, d1
            t0 = time.perf_counter()
            ref = call(R.enumerate_turns, code, me, me_bar, opp, opp_bar, d1, d2) if R else None
            t1 = time.perf_counter()
            ker = call(K.enumerate_turns, code, me, me_bar, opp, opp_bar, d1, d2)
            t2 = time.perf_counter()
            t_ref += t1 - t0
            t_ker += t2 - t1
            rolls_done += 1
            problems = []
            if R is not None and (isinstance(ref, Exception) or isinstance(ker, Exception)
                                  or ref != ker):
                problems.append("enumerate_turns differs from the reference")
            if not isinstance(ker, Exception):
                cnt = call(K.count_turns, code, me, me_bar, opp, opp_bar, d1, d2)
                if cnt != len(ker):
                    problems.append(f"count_turns = {cnt!r}, enumerate_turns has {len(ker)}")
                K._set_fast_paths(False)
                gen = call(K.enumerate_turns, code, me, me_bar, opp, opp_bar, d1, d2)
                K._set_fast_paths(True)
                if gen != ker:
                    problems.append("the kernel's general search differs from its shortcut")
                per_pos += len(ker)
                per_pos_w += len(ker) * (1 if d1 == d2 else 2)
                boards.append(list(me) + [me_bar] + list(opp) + [opp_bar])
                dice.append((d1, d2))
                expect.append(len(ker))
            if problems:
                mismatches += 1
                print(f"MISMATCH [{label}] " + "; ".join(problems))
                print(f"  code={code!r}\n  me={me!r} me_bar={me_bar}\n  opp={opp!r} "
                      f"opp_bar={opp_bar}\n  dice=({d1}, {d2})\n  position: "
                      f"{position_string(code, me, me_bar, opp, opp_bar)!r}")
                if R is not None:
                    print("  reference:\n" + show(ref))
                print("  kernel:\n" + show(ker))
                if "general search" in problems[-1]:
                    print("  kernel (general search):\n" + show(gen))
                sys.stdout.flush()
        # perft(1) = the sum of the 21 rolls' turn counts (T5), game over counts 1
        for weighted, want in ((False, per_pos), (True, per_pos_w)):
            want = 1 if game_over else want
            got = call(K.perft_count, code, me, me_bar, opp, opp_bar, 1, weighted)
            if got != want:
                mismatches += 1
                print(f"MISMATCH [{label}] perft_count(depth=1, weighted={weighted}) = {got!r},"
                      f" the turn lists give {want}\n  code={code!r}\n  me={me!r} "
                      f"me_bar={me_bar}\n  opp={opp!r} opp_bar={opp_bar}")
    if boards:
        got = K.count_turns_batch(code, np.array(boards, dtype=np.int8),
                                  np.array(dice, dtype=np.int8))
        bad = np.nonzero(got != np.array(expect))[0]
        for i in bad:
            mismatches += 1
            b = boards[i]
            print(f"MISMATCH [{label}] count_turns_batch row {i} = {got[i]}, expected "
                  f"{expect[i]}\n  code={code!r}\n  me={tuple(b[:24])!r} me_bar={b[24]}\n  "
                  f"opp={tuple(b[25:49])!r} opp_bar={b[49]}\n  dice={dice[i]}")
    return mismatches, rolls_done, t_ref, t_ker


def known_examples() -> int:
    """RULES.md §4 examples and the short perft figure (used while the reference is missing)."""
    bad = 0
    L = (0, 0, 0, 0, 0)
    start = [0] * 23 + [15]
    t = K.enumerate_turns(L, start, 0, start, 0, 6, 6)
    if len(t) != 1 or t[0][0] != ((24, 18, False), (24, 18, False)):
        print("MISMATCH §4.1 6-6 opening:", t)
        bad += 1
    t = K.enumerate_turns(L, start, 0, start, 0, 3, 3)
    boards = sorted(tuple(i + 1 for i in range(24) for _ in range(x[1][i]) if i + 1 != 24)
                    for x in t)
    if boards != [(15, 21), (18, 18)]:
        print("MISMATCH §4.2 3-3 opening:", t)
        bad += 1
    t = K.enumerate_turns(L, start, 0, start, 0, 6, 5)
    if [x[0] for x in t] != [((24, 18, False), (18, 13, False))]:
        print("MISMATCH T2 6-5 opening:", t)
        bad += 1
    me, mb, opp, ob = start_points(1), 0, start_points(1), 0
    got = K.perft_count((1, 0, 0, 0, 0), me, mb, opp, ob, 3, False)
    if got != 116_154_993:
        print(f"MISMATCH short perft(3) from the start = {got}, not 116,154,993")
        bad += 1
    return bad


def bench(args) -> int:
    """Kernel timings per position-roll over random-playout positions (all 21 rolls each):
    count_turns_batch (the bulk path), count_turns and enumerate_turns (one Python call each),
    and perft from the start."""
    for code, label in variants(args.game):
        if code[0] == 0 and code[1:] != (0, 0, 0, 0) and not args.all_variants:
            continue
        rng = random.Random(args.seed)
        positions = playouts(rng, code, args.positions)
        rows = [list(me) + [mb] + list(opp) + [ob] for me, mb, opp, ob in positions
                for _ in ROLLS]
        boards = np.array(rows, dtype=np.int8)
        dice = np.array([r for _ in positions for r in ROLLS], dtype=np.int8)
        K.count_turns_batch(code, boards[:2000], dice[:2000])
        best = min(_timed(K.count_turns_batch, code, boards, dice) for _ in range(3))
        n = len(rows)
        sub = positions[: max(1, min(len(positions), 500))]
        t_cnt = _timed(_each, K.count_turns, code, sub)
        t_enum = _timed(_each, K.enumerate_turns, code, sub)
        m = len(sub) * len(ROLLS)
        print(f"{label:62s} batch {best / n * 1e6:6.3f} us/position-roll ({n} position-rolls);"
              f" count_turns {t_cnt / m * 1e6:6.3f} us; enumerate_turns {t_enum / m * 1e6:6.2f} us")
    for code, depth in (((1, 0, 0, 0, 0), 3), ((0, 0, 0, 0, 0), 4)):
        me, mb, opp, ob = start_points(code[0]), 0, start_points(code[0]), 0
        for d in range(1, depth + 1):
            t0 = time.perf_counter()
            got = K.perft_count(code, me, mb, opp, ob, d, False)
            print(f"{'short' if code[0] else 'long'} perft({d}) from the start = {got:,}"
                  f"  ({time.perf_counter() - t0:.3f} s)")
    return 0


def _each(fn, code, positions) -> None:
    for me, mb, opp, ob in positions:  # results dropped at once (no GC pressure in the timing)
        for d1, d2 in ROLLS:
            fn(code, me, mb, opp, ob, d1, d2)


def _timed(fn, *a) -> float:
    t0 = time.perf_counter()
    fn(*a)
    return time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=30, help="positions per variant")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--game", choices=("long", "short", "both"), default="both")
    ap.add_argument("--swap-dice", action="store_true",
                    help="also pass non-doubles as (high, low) at random")
    ap.add_argument("--bench", action="store_true",
                    help="time the kernel instead (positions = random-playout positions)")
    ap.add_argument("--all-variants", action="store_true",
                    help="with --bench, time every long variant, not only the default")
    args = ap.parse_args(argv)
    if args.bench:
        return bench(args)
    if R is None:
        print("fastnardy.reference is missing: checking the RULES.md §4 examples only")
    total_bad = known_examples()
    total_rolls = 0
    for vi, (code, label) in enumerate(variants(args.game)):
        rng = random.Random(args.seed * 1000 + vi)
        random.seed(args.seed * 1000 + vi)
        n_play = args.positions // 2
        positions = playouts(rng, code, n_play) + placements(rng, code, args.positions - n_play)
        bad, rolls, t_ref, t_ker = check_variant(code, label, positions, args)
        total_bad += bad
        total_rolls += rolls
        print(f"{label:62s} positions={len(positions):4d} position-rolls={rolls:6d} "
              f"mismatches={bad}  (reference {t_ref:6.1f}s, kernel {t_ker:5.2f}s)")
        sys.stdout.flush()
    print(f"TOTAL position-rolls={total_rolls} mismatches={total_bad}")
    return 1 if total_bad else 0


if __name__ == "__main__":
    sys.exit(main())
