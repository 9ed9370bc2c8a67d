"""Issue 67's input pilot: are GNU Backgammon's kind of hand-made contact inputs worth
building into the kernel? Twelve more inputs a side (below), computed here in numpy from
board rows, beside the ``shots`` kind's 206; two contact networks fitted alike to the same
labelled rows (``examples/train_teacher.py``'s ``--data`` files: rows, targets, turn), one
with them and one without; then each network's held-out equity error and the teacher's
equity a turn lost by its first choice, and paired games of the two at 0 ply (race and
crashed children valued by the shipped network, as ``net:0:float`` values them). One JSON
line.

    python bench/strength/inputs_pilot.py --data b2.npz --data b1.npz --games 20000

The inputs of a side A against the other side B (B's point q is A's point 25 - q; A's bar
is its point 25), each written from gnubg's descriptions, not its code:

- break contact: the pips A's checkers ahead of B's rearmost checker must travel to pass
  it, /152; free pips: the pips of A's checkers already past it, /100;
- back anchor: A's rearmost point of two checkers or more among its points 13-24, /24 (0
  without one); forward anchor: its foremost there, (25 - point) / 12;
- entering: where A has a checker on the bar, (B's home points of two or more / 6)
  squared, else 0;
- backgame: A's checkers on its points 19-24 and bar /15 where A holds two points of two
  or more there, else 0; the same where it holds one;
- second moment: the mean squared distance of A's checkers behind their mean point, /100;
- containment: 1 - e/36 and its square, e the fewest escapes (the rolls that carry a
  checker past B's farthest block within 12 pips, as the shots kind counts them) from any
  of A's points 15-24; the same over the points among 13-24 where A has checkers.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import List, Tuple

import numpy as np

from fastnardy import Rules, features
from fastnardy.batch import segment_argmax
from fastnardy.play.duel import interval, play_games
from fastnardy.play.players import Player, Searcher
from fastnardy.search.network import Evaluator, crashes, equity, races

sys.path.insert(0, str(Path(__file__).parents[2] / "examples"))
from train_td import Adam, step  # noqa: E402  (the trainers' Adam and cross-entropy step)

WIDTH = 24  # twelve inputs a side
POINTS = np.arange(1, 26)  # a side's points and its bar (25)


def _escape_counts() -> np.ndarray:
    """The escapes (of 36 rolls) past the blocks of each 12-bit window (bit d - 1: a block
    d pips ahead); 36 without a block."""
    counts = np.zeros(4096, dtype=np.int32)
    for window in range(4096):
        def block(d: int) -> bool:
            return d <= 12 and bool(window >> (d - 1) & 1)
        far = max([d for d in range(1, 13) if block(d)], default=0)
        if far == 0:
            counts[window] = 36
            continue
        for a in range(1, 7):
            for b in range(a, 7):
                if a == b:
                    steps = [a * k for k in range(1, 5)]
                    passed = next((s > far for s in steps if block(s) or s > far), False)
                else:
                    passed = any(d > far and not block(d) for d in (a, b)) or (
                        a + b > far and not block(a + b) and not (block(a) and block(b)))
                counts[window] += passed * (1 if a == b else 2)
    return counts


ESCAPES = _escape_counts()


def _side(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Side A's twelve inputs: ``a`` its (N, 25) points and bar, ``b`` the other side's."""
    count = len(a)
    b_rear = np.where(b[:, 24] > 0, 25, np.where(b[:, :24].any(1),
                                                 24 - np.argmax(b[:, 23::-1] > 0, 1), 0))
    edge = (25 - b_rear)[:, None]  # A's checkers beyond it are in contact
    ahead = POINTS[None, :] > edge
    columns = [(a * ahead * (POINTS[None, :] - edge)).sum(1) / 152,
               (a * ~ahead * POINTS[None, :]).sum(1) / 100]
    anchors = a[:, 12:24] >= 2
    held = anchors.any(1)
    columns += [np.where(held, 24 - np.argmax(anchors[:, ::-1], 1), 0) / 24,
                np.where(held, (12 - np.argmax(anchors, 1)) / 12, 0)]
    closed = (b[:, :6] >= 2).sum(1)
    columns.append((a[:, 24] > 0) * (closed / 6) ** 2)
    home_anchors = (a[:, 18:24] >= 2).sum(1)
    back = a[:, 18:25].sum(1) / 15
    columns += [(home_anchors >= 2) * back, (home_anchors == 1) * back]
    total = np.maximum(a.sum(1), 1)
    mean = (a * POINTS).sum(1) / total
    behind = np.clip(POINTS[None, :] - mean[:, None], 0, None)
    columns.append((a * behind ** 2).sum(1) / total / 100)
    blocks = np.zeros((count, 36), dtype=np.int64)  # column 11 + p: A's point p a B block
    blocks[:, 12:36] = b[:, 23::-1] >= 2
    escapes = np.empty((count, 12), dtype=np.int32)
    for j, point in enumerate(range(13, 25)):
        window = np.zeros(count, dtype=np.int64)
        for d in range(1, 13):
            window |= blocks[:, 11 + point - d] << (d - 1)
        escapes[:, j] = ESCAPES[window]
    contained = 1 - escapes[:, 2:].min(1) / 36
    actual = 1 - np.where(a[:, 12:24] > 0, escapes, 36).min(1) / 36
    columns += [contained, contained ** 2, actual, actual ** 2]
    return np.stack(columns, 1)


def candidates(rows: np.ndarray) -> np.ndarray:
    """The (N, 24) candidate inputs of board rows (N, 50): the mover's twelve, then the
    opponent's."""
    rows = np.asarray(rows, dtype=np.int64)
    mover, other = rows[:, :25], rows[:, 25:]
    return np.concatenate([_side(mover, other), _side(other, mover)], 1).astype(np.float32)


def inputs(rows: np.ndarray, more: bool) -> np.ndarray:
    x = features("short", rows, "shots")
    if more:
        more_x = [candidates(rows[i:i + 100_000]) for i in range(0, len(rows), 100_000)]
        x = np.concatenate([x, np.concatenate(more_x)], 1)
    return x


def forward(params: List[np.ndarray], x: np.ndarray) -> np.ndarray:
    w1, b1, w2, b2 = params
    with np.errstate(over="ignore"):
        hidden = 1 / (1 + np.exp(-(x @ w1 + b1)))
        return 1 / (1 + np.exp(-(hidden @ w2 + b2)))


def fit(args: argparse.Namespace, x: np.ndarray, y: np.ndarray, turn: np.ndarray
        ) -> Tuple[List[np.ndarray], List[dict]]:
    """Adam on the cross-entropy (train_td.py's step) from --init's contact network (the
    candidates' weights 0) or, with --hidden, from random weights; the rate falling linearly
    to a tenth; whole turns held out."""
    rng = np.random.default_rng(args.seed)
    if args.hidden:
        width, units = x.shape[1], args.hidden
        params = [rng.normal(0, 1 / np.sqrt(width), (width, units)), np.zeros(units),
                  rng.normal(0, 1 / np.sqrt(units), (units, 5)), np.zeros(5)]
    else:
        net = Evaluator.load(args.init)
        added = np.zeros((x.shape[1] - len(net.hidden_weights), len(net.hidden_bias)))
        params = [np.vstack([net.hidden_weights, added]), net.hidden_bias, net.output_weights,
                  net.output_bias]
    params = [np.array(p, dtype=np.float32) for p in params]
    adam = Adam(params, args.rate)
    turns = int(turn[-1]) + 1
    held = np.zeros(turns, dtype=bool)
    held[rng.permutation(turns)[:turns // 20]] = True
    shown = held[turn]
    learnt = np.flatnonzero(~shown)
    starts = np.flatnonzero(np.r_[True, np.diff(turn[shown]) != 0])
    teacher = equity(y[shown])
    batches, history = -(-len(learnt) // 512), []
    for epoch in range(args.passes):
        order = learnt[rng.permutation(len(learnt))]
        for batch in range(batches):
            pick = order[batch * 512:(batch + 1) * 512]
            adam.rate = args.rate * (1 - 0.9 * (epoch * batches + batch)
                                     / (args.passes * batches))
            step(params, adam, x[pick], y[pick])
        values = equity(forward(params, x[shown]))
        chosen = starts + segment_argmax(-values, np.append(starts, len(values)))
        history.append({"pass": epoch + 1,
                        "held_out_error": round(float(np.abs(values - teacher).mean()), 5),
                        "lost_a_turn": round(float((teacher[chosen] - np.minimum.reduceat(
                            teacher, starts)).mean()), 5)})
        print(json.dumps(history[-1]), flush=True)
    return params, history


class Fitted(Player):
    """A fitted contact network at 0 ply; the rest as ``net:0:float``."""

    def __init__(self, params: List[np.ndarray], more: bool) -> None:
        self.params, self.more = params, more
        self.shipped = Searcher("net:0:float", "short")
        self.setting = self.shipped.setting

    def _pick(self, rules, rows, dice, children, offsets, cubes):
        worth = np.array(self.shipped.worth(rules, children, offsets), dtype=np.float64)
        contact = np.flatnonzero(~races(rules, children) & ~crashes(rules, children))
        if len(contact):
            worth[contact] = -equity(forward(self.params, inputs(children[contact],
                                                                 self.more)))
        return offsets[:-1] + segment_argmax(worth, offsets)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", action="append", required=True,
                        help="labelled rows (rows, targets, turn), as train_teacher.py saves")
    parser.add_argument("--init", default="short", help="the network to start from")
    parser.add_argument("--hidden", type=int, default=0,
                        help="start from random weights with this many hidden units instead")
    parser.add_argument("--passes", type=int, default=10)
    parser.add_argument("--rate", type=float, default=1e-3)
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=63)
    args = parser.parse_args()
    rows, targets, turns = [], [], []
    for path in args.data:
        data = np.load(path)
        turns.append(data["turn"] + (turns[-1][-1] + 1 if turns else 0))
        rows.append(data["rows"])
        targets.append(data["targets"])
    board, y, turn = np.concatenate(rows), np.concatenate(targets).astype(np.float32), \
        np.concatenate(turns)
    started = time.process_time()
    report: dict = {"data": args.data, "rows": len(board), "passes": args.passes,
                    "rate": args.rate, "seed": args.seed,
                    **({"hidden": args.hidden} if args.hidden else {"init": args.init})}
    fitted = {}
    for more in (False, True):
        params, history = fit(args, inputs(board, more), y, turn)
        fitted[more] = params
        report["with" if more else "without"] = history[-1]
    rules = Rules.of("short")
    games = play_games(rules, Fitted(fitted[True], True), Fitted(fitted[False], False),
                       args.games, args.seed)
    points = interval(games.points)
    report["games"] = {"count": args.games, "with_against_without": round(points[0], 4),
                       "plus_minus": round(points[1], 4)}
    report["cpu_seconds"] = round(time.process_time() - started, 1)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
