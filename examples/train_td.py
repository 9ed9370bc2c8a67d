"""Train a fastnardy.search.network.Evaluator by TD(lambda) self-play, in numpy on the kernel's batches.

``--parallel`` games are played at once. At each step every game rolls, one
``batch.expand`` gives the children of all of them, one ``features`` call encodes them and
one network call values them; each game plays the child best for its mover (0 ply, a
finished game valued by its exact score; no exploration: the dice explore, as in
TD-Gammon). When a game ends, each position it passed
through gets its lambda-return (the forward view of TD(lambda), with the values the network
gave when the position was chosen) as the target of its five outputs: from the end,

    G_T = the exact outcome (L10 / S9),  G_t = flip((1 - lambda) V(s_t+1) + lambda G_t+1)

(``flip`` turns the outputs to the other side's view: each side sees its own win). The
targets of finished games are learnt by Adam on the cross-entropy of each output, in
minibatches, once a ``--buffer`` of positions has gathered.

A run is deterministic for its seed and ``--games`` (numpy's PCG64 for the dice, the
initial weights and the minibatch order; BLAS on one thread). ``--minutes`` stops on CPU
time instead; the file's metadata records the games played, so ``--games`` replays it.

    python examples/train_td.py --game short --games 2000 --out /tmp/short.npz
    nohup nice -n 5 python examples/train_td.py --game long --minutes 35 \\
        --out /tmp/long.npz > /tmp/train-long.log 2>&1 &

Progress goes to stdout every ``--report`` seconds (games, games/s on CPU time, plies a
game, mean loss, the first mover's share of wins); the weights are written to ``--out``
every ``--checkpoint`` seconds and at the end (``Evaluator.load(path)`` reads them).
"""

from __future__ import annotations

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")  # before numpy: one core, the same sums every run

import argparse  # noqa: E402
import shlex  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from typing import Callable, List, Optional  # noqa: E402

import numpy as np  # noqa: E402

from fastnardy import FastNardyError, Position, Rules, features  # noqa: E402
from fastnardy.basics import BLACK  # noqa: E402
from fastnardy.batch import ROW_WIDTH, decode, encode, expand, segment_argmax  # noqa: E402
from fastnardy.search.inputs import WIDTHS  # noqa: E402
from fastnardy.search.network import OUTPUTS, Evaluator, equity  # noqa: E402

KINDS = {"short": "tdgammon", "long": "nardy"}
HALF = ROW_WIDTH // 2  # a row: the mover's 24 points and bar, then the opponent's
# flip: the outputs seen by the other side (win <-> loss, win_mars <-> lose_mars, ...)
FLIP_ORDER = np.array([0, 3, 4, 1, 2])
FLIP_SIGN = np.array([-1.0, 1, 1, 1, 1])
FLIP_ADD = np.array([1.0, 0, 0, 0, 0])


def flip(outputs: np.ndarray) -> np.ndarray:
    """The five outputs (last axis) from the other side's view."""
    return outputs[..., FLIP_ORDER] * FLIP_SIGN + FLIP_ADD


def final_targets(rules: Rules, rows: np.ndarray) -> np.ndarray:
    """The exact outputs of finished games (rows from the loser's view, the side to move
    after the winner bore off its 15th): (N, 5), the score of Position.outcome (L10, S9)."""
    targets = np.zeros((len(rows), len(OUTPUTS)))
    for i, position in enumerate(decode(rules, rows)):  # white: the loser, to move
        outcome = position.outcome()
        assert outcome is not None and outcome.winner == BLACK
        targets[i, 3] = outcome.points >= 2
        targets[i, 4] = outcome.points >= 3
    return targets


def lambda_returns(values: np.ndarray, final: np.ndarray, lam: float) -> np.ndarray:
    """Targets of the positions s_1 .. s_T-1 of one game, given V(s_1) .. V(s_T-1) (each
    from its own side to move's view) and the exact outputs of s_T."""
    targets = np.empty_like(values)
    following = final  # G_t+1
    value_next = final  # V(s_t+1), exact at the end
    for t in range(len(values) - 1, -1, -1):
        following = flip((1.0 - lam) * value_next + lam * following)
        targets[t] = following
        value_next = values[t]
    return targets


class Adam:
    """Adam on a list of float32 arrays, in place."""

    def __init__(self, params: List[np.ndarray], rate: float) -> None:
        self.params, self.rate, self.step = params, rate, 0
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]

    def update(self, grads: List[np.ndarray]) -> None:
        self.step += 1
        b1, b2 = 0.9, 0.999
        scale = self.rate * np.sqrt(1 - b2 ** self.step) / (1 - b1 ** self.step)
        for p, g, m, v in zip(self.params, grads, self.m, self.v):
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * g * g
            p -= (scale * m / (np.sqrt(v) + 1e-8)).astype(np.float32)


def step(params: List[np.ndarray], adam: Adam, xb: np.ndarray, yb: np.ndarray,
         more: Optional[Callable[[np.ndarray], np.ndarray]] = None) -> float:
    """One Adam step on the minibatch (xb, yb float32) on the weights ``params`` (the
    Evaluator's four arrays, updated in place); its summed cross-entropy. ``more(out)``,
    given the outputs, adds another term's gradient with respect to their sums."""
    w1, b1, w2, b2 = params
    with np.errstate(over="ignore"):  # exp of a sum far below 0: inf, the sigmoid 0
        hidden = 1.0 / (1.0 + np.exp(-(xb @ w1 + b1)))
        out = 1.0 / (1.0 + np.exp(-(hidden @ w2 + b2)))
    clipped = np.clip(out, 1e-6, 1 - 1e-6)
    total = float(-(yb * np.log(clipped) + (1 - yb) * np.log(1 - clipped)).sum())
    d_out = (out - yb) / len(xb)  # cross-entropy through the sigmoid
    if more is not None:
        d_out = d_out + more(out)
    d_hidden = (d_out @ w2.T) * hidden * (1 - hidden)
    adam.update([xb.T @ d_hidden, d_hidden.sum(0), hidden.T @ d_out, d_out.sum(0)])
    return total


def learn(params: List[np.ndarray], adam: Adam, x: np.ndarray, y: np.ndarray,
          minibatch: int, rng: np.random.Generator) -> float:
    """One pass of Adam over (x, y) in shuffled minibatches (:func:`step`); the mean
    cross-entropy."""
    order = rng.permutation(len(x))
    total = 0.0
    for start in range(0, len(x), minibatch):
        pick = order[start:start + minibatch]
        total += step(params, adam, x[pick], y[pick].astype(np.float32))
    return total / (len(x) * len(OUTPUTS))


def new_network(kind: str, hidden: int, rng: np.random.Generator) -> Evaluator:
    width = WIDTHS[kind]
    return Evaluator(kind, rng.normal(0, 1 / np.sqrt(width), (width, hidden)),
                     np.zeros(hidden), rng.normal(0, 1 / np.sqrt(hidden), (hidden, 5)),
                     np.zeros(5))


def _start_row(kind: str) -> np.ndarray:
    return encode([Position.start("long" if kind == "nardy" else "short")])[0]


def roll(rng: np.random.Generator, count: int, opening: np.ndarray, short: bool) -> np.ndarray:
    """Dice for ``count`` games; T6: a short game's first turn is never a double (each side
    threw one die, ties thrown again)."""
    dice = rng.integers(1, 7, size=(count, 2), dtype=np.int8)
    if short:
        again = opening & (dice[:, 0] == dice[:, 1])
        while again.any():
            dice[again] = rng.integers(1, 7, size=(int(again.sum()), 2), dtype=np.int8)
            again = opening & (dice[:, 0] == dice[:, 1])
    return dice


def first_best(values: np.ndarray, parent: np.ndarray, count: int) -> np.ndarray:
    """The index of the first highest value among each parent's children (parents sorted,
    each with at least one child; ties to the first in T2 order)."""
    offsets = np.searchsorted(parent, np.arange(count + 1))
    return offsets[:-1] + segment_argmax(values, offsets)


def train(args: argparse.Namespace, command: str) -> Evaluator:
    rules = Rules.of(args.game)
    kind = KINDS[args.game]
    short = args.game == "short"
    rng = np.random.default_rng(args.seed)
    net = Evaluator.load(args.init) if args.init else new_network(kind, args.hidden, rng)
    # the weights being trained: the Evaluator's arrays are read-only, so a new Evaluator
    # (compiled inference) is made from these after each update
    params = [net.hidden_weights.copy(), net.hidden_bias.copy(), net.output_weights.copy(),
              net.output_bias.copy()]
    adam = Adam(params, args.rate)
    start = _start_row(kind)
    n = args.parallel
    rows = np.repeat(start[None], n, axis=0)
    seen: List[List[np.ndarray]] = [[] for _ in range(n)]  # features of s_1, s_2, ...
    valued: List[List[np.ndarray]] = [[] for _ in range(n)]  # their outputs then
    buffer_x: List[np.ndarray] = []
    buffer_y: List[np.ndarray] = []
    buffered = 0
    games = plies_done = first_wins = 0
    losses: List[float] = []
    previous = dict(net.metadata) if args.init else {}
    cpu0 = time.process_time() - float(previous.get("cpu_seconds", 0.0))
    games0 = int(previous.get("games", 0))
    last_report = last_checkpoint = time.monotonic()
    report_games, report_cpu = 0, time.process_time()

    def save() -> None:
        net.metadata = {
            "game": args.game, "variants": rules.variants(), "kind": kind,
            "games": games0 + games, "seed": args.seed,
            "cpu_seconds": round(time.process_time() - cpu0, 1), "lambda": args.lam,
            "rate": args.rate, "hidden": len(net.hidden_bias), "parallel": n,
            "buffer": args.buffer, "minibatch": args.minibatch, "command": command,
            "trained_from": previous.get("command") if args.init else None,
            "numpy": np.__version__, "outputs": list(OUTPUTS)}
        net.save(args.out)

    while True:
        opening = np.array([not s for s in seen])
        dice = roll(rng, n, opening, short)
        children, parent = expand(rules, rows, dice)
        encoded = features(rules, children, kind)
        outputs = net.probabilities(encoded)
        values = -equity(outputs)  # the mover's equity is minus the child's
        won = children[:, HALF:].sum(axis=1) == 0  # the mover bore off its 15th (L9, S9)
        if won.any():  # a finished game is never evaluated: its exact score
            values[won] = 1.0 + final_targets(rules, children[won])[:, 3:].sum(axis=1)
        choice = first_best(values, parent, n)
        rows = children[choice]
        chosen_x, chosen_y = encoded[choice], outputs[choice].astype(np.float64)
        over = won[choice]
        for j in range(n):
            seen[j].append(chosen_x[j])
            valued[j].append(chosen_y[j])
        plies_done += n
        if over.any():
            ends = np.flatnonzero(over)
            finals = final_targets(rules, rows[ends])
            for j, final in zip(ends, finals):
                if len(seen[j]) > 1:
                    buffer_x.append(np.array(seen[j][:-1]))
                    buffer_y.append(lambda_returns(np.array(valued[j][:-1]), final, args.lam))
                    buffered += len(seen[j]) - 1
                first_wins += len(seen[j]) % 2  # the first mover made the last turn
                seen[j], valued[j] = [], []
                rows[j] = start
                games += 1
        stuck = np.array([len(s) >= args.max_plies for s in seen])
        for j in np.flatnonzero(stuck):  # short nardy can stall; such a game is dropped
            seen[j], valued[j] = [], []
            rows[j] = start
        if buffered >= args.buffer:
            losses.append(learn(params, adam, np.concatenate(buffer_x),
                                np.concatenate(buffer_y), args.minibatch, rng))
            net = Evaluator(kind, *params, metadata=net.metadata)
            buffer_x, buffer_y, buffered = [], [], 0
        cpu = time.process_time() - cpu0
        done = games >= args.games or (args.minutes and cpu >= 60 * args.minutes)
        now = time.monotonic()
        if done or now - last_report >= args.report:
            rate = (games - report_games) / max(time.process_time() - report_cpu, 1e-9)
            print(f"games {games0 + games:8d}  {rate:6.1f} games/s  "
                  f"{plies_done / max(games, 1):6.1f} plies/game  "
                  f"loss {np.mean(losses[-20:]) if losses else float('nan'):.4f}  "
                  f"first mover wins {first_wins / max(games, 1):.3f}  cpu {cpu:7.1f}s",
                  flush=True)
            last_report, report_games, report_cpu = now, games, time.process_time()
        if done or now - last_checkpoint >= args.checkpoint:
            save()
            last_checkpoint = now
        if done:
            return net


def parse(argv: Optional[List[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=sorted(KINDS), required=True)
    parser.add_argument("--out", required=True, help="the .npz to write (and checkpoint)")
    parser.add_argument("--games", type=int, default=10 ** 9, help="stop after this many")
    parser.add_argument("--minutes", type=float, default=0.0, help="stop after this CPU time")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--lam", type=float, default=0.7, help="lambda")
    parser.add_argument("--rate", type=float, default=1e-3, help="Adam's learning rate")
    parser.add_argument("--parallel", type=int, default=128, help="games played at once")
    parser.add_argument("--buffer", type=int, default=4096, help="positions per update")
    parser.add_argument("--minibatch", type=int, default=128)
    parser.add_argument("--max-plies", type=int, default=2000)
    parser.add_argument("--init", help="continue from this .npz")
    parser.add_argument("--report", type=float, default=10.0, help="seconds between lines")
    parser.add_argument("--checkpoint", type=float, default=60.0,
                        help="seconds between checkpoints")
    args = parser.parse_args(argv)
    if args.games < 1 or args.parallel < 1 or args.hidden < 1 or not 0 <= args.lam <= 1:
        parser.error("--games, --parallel and --hidden must be positive, --lam in [0, 1]")
    return args


def launch(script: str, argv: Optional[List[str]],
           parse: Callable[[Optional[List[str]]], argparse.Namespace],
           train: Callable[[argparse.Namespace, str], Evaluator], counted: str) -> int:
    """A trainer's command line: train(args, the command that replays it), then one line
    naming the file written and the metadata's ``counted`` (games, rows); 130 on Ctrl-C."""
    args = parse(argv)
    command = f"python examples/{script} " + " ".join(
        shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv))
    try:
        net = train(args, command)
    except KeyboardInterrupt:  # Ctrl-C: one line and the shell's 130, not a traceback
        print("interrupted", file=sys.stderr)
        return 130
    except FastNardyError as error:  # e.g. --out cannot be written: one line, status 2
        print(f"{script}: {error}", file=sys.stderr)
        return 2
    print(f"wrote {args.out}: {net.metadata[counted]} {counted}, "
          f"{net.metadata['cpu_seconds']} s CPU")
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    return launch("train_td.py", argv, parse, train, "games")


if __name__ == "__main__":
    sys.exit(main())
