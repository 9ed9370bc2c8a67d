"""Strength of fastnardy's trained evaluators: seeded matches, 95% intervals, points a game.

    python bench/strength.py --game short --a net:0 --b greedy --games 2000
    python bench/strength.py --game short --a net:1 --b gnubg:expert --games 2000
    python bench/strength.py --suite            # every match of issue 16, both games

Players: ``random`` (uniform over the legal turns), ``greedy`` (the policy of ``fastnardy
play``: :func:`fastnardy.play.evaluate`, first best in T2 order), ``net:P`` (an
:class:`fastnardy.network.Evaluator` searched P plies by :func:`fastnardy.search.expectimax`,
P = 0 or 1; at 1 ply with the default :class:`fastnardy.search.MoveFilter`; ``--weights`` a
.npz, else the shipped one) and, in short nardy, ``gnubg:beginner`` / ``gnubg:expert``
(GNU Backgammon's presets: 0 ply, cubeless, noise 0.060 / none), driven headless by
bench/gnubg_driver.py; each move gnubg returns must be one of fastnardy's legal turns (T1)
or the match stops with an error.

Games are played ``--parallel`` at a time in numpy batches (one ``batch.expand`` per player
per step). Game ``g`` draws its dice from stream ``(seed, g // 2)``: games ``2k`` and
``2k + 1`` see the same dice, ``a`` white in the first and black in the second, so the
luck of the dice largely cancels in each pair. The T6 opening: each side throws one die,
ties thrown again; in short nardy the higher plays those two numbers, in long nardy it then
throws both dice. Games are scored by L10 / S9 without a cube. The 95% intervals are
mean +- 1.96 standard errors over the pairs (the two games of a pair are not independent).
"""

from __future__ import annotations

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Dict, List, NamedTuple, Optional, TextIO, Tuple  # noqa: E402

import numpy as np  # noqa: E402

from fastnardy import Position, Rules  # noqa: E402
from fastnardy.batch import (MIRROR_COLUMNS, ROW_WIDTH, decode, encode, expand,  # noqa: E402
                             segment_argmax)
from fastnardy.network import Evaluator  # noqa: E402
from fastnardy.search import MoveFilter, _kept, expectimax  # noqa: E402

HALF = ROW_WIDTH // 2
GNUBG = "/usr/games/gnubg"
DRIVER = Path(__file__).with_name("gnubg_driver.py")
NOISE = {"beginner": 0.060, "expert": 0.0}  # gnubg's presets (eval.c aecSettings), 0 ply
MAX_TURNS = 2000


def first_best(values: np.ndarray, parent: np.ndarray, count: int) -> np.ndarray:
    """The index of the first highest value among each parent's children (parents sorted,
    each with at least one child; ties to the first in T2 order)."""
    offsets = np.searchsorted(parent, np.arange(count + 1))
    return offsets[:-1] + segment_argmax(values, offsets)


class Player:
    """Chooses one child of each row for its dice: ``choose`` returns the chosen rows."""

    name = "player"

    def choose(self, rules: Rules, rows: np.ndarray, dice: np.ndarray) -> np.ndarray:
        children, parent = expand(rules, rows, dice)
        return children[self.pick(rules, rows, dice, children, parent)]

    def pick(self, rules: Rules, rows: np.ndarray, dice: np.ndarray, children: np.ndarray,
             parent: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def close(self) -> None:
        pass


class Random(Player):
    def __init__(self, seed: int) -> None:
        self.name, self.rng = "random", np.random.default_rng([seed, 7])

    def pick(self, rules: Rules, rows: np.ndarray, dice: np.ndarray, children: np.ndarray,
             parent: np.ndarray) -> np.ndarray:
        counts = np.bincount(parent, minlength=len(rows))
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        return starts + (self.rng.random(len(rows)) * counts).astype(np.int64)


def greedy_scores(rules: Rules, children: np.ndarray) -> np.ndarray:
    """fastnardy.play.evaluate of each child for the side that just moved (the child's
    opponent half): the race, +2 a point held by two or more, and in long nardy +1 a point
    occupied; in short nardy -2 a blot and +3 an opponent checker on the bar."""
    pips = np.arange(1, 25)
    rows = children.astype(np.int64)
    own, own_bar = rows[:, HALF:HALF + 24], rows[:, ROW_WIDTH - 1]
    other, other_bar = rows[:, :24], rows[:, 24]
    score = (other @ pips + 25 * other_bar) - (own @ pips + 25 * own_bar) \
        + 2 * (own >= 2).sum(axis=1)
    if rules.is_long:
        return score + (own > 0).sum(axis=1)
    return score - 2 * (own == 1).sum(axis=1) + 3 * other_bar


class Greedy(Player):
    name = "greedy"

    def pick(self, rules: Rules, rows: np.ndarray, dice: np.ndarray, children: np.ndarray,
             parent: np.ndarray) -> np.ndarray:
        return first_best(greedy_scores(rules, children), parent, len(rows))


class Network(Player):
    """The evaluator searched ``plies`` deep: each child valued -V_plies (search module)."""

    def __init__(self, evaluator: Evaluator, plies: int) -> None:
        self.evaluator, self.plies = evaluator, plies
        self.name = f"net:{plies}"

    def pick(self, rules: Rules, rows: np.ndarray, dice: np.ndarray, children: np.ndarray,
             parent: np.ndarray) -> np.ndarray:
        values = -expectimax(rules, children, self.evaluator, 0)
        if self.plies:
            starts = np.searchsorted(parent, np.arange(len(rows)))
            kept = _kept(values, starts, MoveFilter())
            values[~kept] = -np.inf
            values[kept] = -expectimax(rules, children[kept], self.evaluator, self.plies)
        return first_best(values, parent, len(rows))


class Gnubg(Player):
    """GNU Backgammon's 0-ply move (cubeless, money game without Jacoby) for each row, its
    legality checked against fastnardy's children (T1: a turn is the position it makes)."""

    def __init__(self, setting: str) -> None:
        if setting not in NOISE:
            raise SystemExit(f"gnubg setting must be one of {sorted(NOISE)}, not {setting!r}")
        if not Path(GNUBG).exists():
            raise SystemExit(f"{GNUBG} not found: apt-get install -y gnubg")
        self.name, self.noise = f"gnubg:{setting}", NOISE[setting]
        self.folder = tempfile.TemporaryDirectory(prefix="gnubg-driver-")
        fifos = [os.path.join(self.folder.name, name) for name in ("in", "out")]
        for fifo in fifos:
            os.mkfifo(fifo)
        environment = dict(os.environ, GNUBG_DRIVER_IN=fifos[0], GNUBG_DRIVER_OUT=fifos[1])
        self.process = subprocess.Popen([GNUBG, "-t", "-q", "-p", str(DRIVER)],
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, env=environment)
        self.requests = self._open_writer(fifos[0])  # both ends in the driver's order
        self.answers = open(fifos[1])
        self.seconds = 0.0  # gnubg's wall time (its CPU is another process's)

    def _open_writer(self, fifo: str, seconds: float = 120.0) -> "TextIO":
        """The request FIFO, once gnubg opens it: never a hang on a gnubg that died."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                descriptor = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
                break
            except OSError:  # ENXIO: no reader yet
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.process.kill()
                    raise RuntimeError(f"gnubg did not start the driver "
                                       f"(exit status {self.process.poll()})") from None
                time.sleep(0.05)
        os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "w")

    def moves(self, rows: np.ndarray, dice: np.ndarray) -> List[List[int]]:
        request = ";".join(",".join(map(str, list(row) + list(d))) for row, d in zip(rows, dice))
        started = time.perf_counter()
        self.requests.write(f"{self.noise} {request}\n")
        self.requests.flush()
        line = self.answers.readline()
        if not line.startswith("@@"):
            raise RuntimeError(f"gnubg exited ({self.process.poll()})")
        self.seconds += time.perf_counter() - started
        answer = line[2:].strip()
        if answer.startswith("error"):
            raise RuntimeError(f"gnubg: {answer}")
        return [[int(x) for x in part.split(",") if x] for part in answer.split(";")]

    def pick(self, rules: Rules, rows: np.ndarray, dice: np.ndarray, children: np.ndarray,
             parent: np.ndarray) -> np.ndarray:
        mirror = MIRROR_COLUMNS["short"]
        chosen = np.empty(len(rows), dtype=np.int64)
        starts = np.searchsorted(parent, np.arange(len(rows) + 1))
        for i, (row, move) in enumerate(zip(rows, self.moves(rows, dice))):
            after = row.astype(np.int64).copy()
            for source, target in zip(move[::2], move[1::2]):  # 25 the bar, 0 off
                after[source - 1] -= 1
                if target:
                    after[target - 1] += 1
                    hit = HALF + int(mirror[target - 1])
                    if after[hit] == 1:  # a blot of the opponent's: to its bar (S3)
                        after[hit], after[ROW_WIDTH - 1] = 0, after[ROW_WIDTH - 1] + 1
            swapped = np.concatenate([after[HALF:], after[:HALF]])
            group = children[starts[i]:starts[i + 1]]
            same = np.flatnonzero((group == swapped).all(axis=1))
            if len(same) != 1:
                position = decode(rules, row[None])[0]
                raise RuntimeError(f"T1: gnubg's move {move} for dice {tuple(dice[i])} in "
                                   f"{position} is not one of its legal turns")
            chosen[i] = starts[i] + same[0]
        return chosen

    def close(self) -> None:
        self.requests.close()
        self.answers.close()
        self.process.wait(timeout=30)
        self.folder.cleanup()


class Result(NamedTuple):
    points: np.ndarray  # a's points in each game (+ won, - lost), 0 unfinished
    turns: np.ndarray
    seconds: float  # this process's CPU time


def dice_tables(seed: int, pairs: int, turns: int) -> Tuple[np.ndarray, np.ndarray]:
    """Per pair: the T6 opening throw (white's die, black's die, never equal) and the dice
    of every later turn."""
    opening = np.empty((pairs, 2), dtype=np.int8)
    rolls = np.empty((pairs, turns, 2), dtype=np.int8)
    for k in range(pairs):
        rng = np.random.default_rng([seed, k])
        while True:
            throw = rng.integers(1, 7, size=2)
            if throw[0] != throw[1]:
                break
        opening[k] = throw
        rolls[k] = rng.integers(1, 7, size=(turns, 2))
    return opening, rolls


def play_match(rules: Rules, a: Player, b: Player, games: int, seed: int,
               parallel: int = 200) -> Result:
    """``games`` (even) games of a against b (see the module docstring)."""
    pairs = games // 2
    opening, rolls = dice_tables(seed, pairs, MAX_TURNS)
    points = np.zeros(2 * pairs)
    turns = np.zeros(2 * pairs, dtype=np.int64)
    start = encode([Position.start(rules)])[0]
    short = rules.game == "short"
    cpu = time.process_time()
    for first in range(0, 2 * pairs, parallel):
        ids = np.arange(first, min(first + parallel, 2 * pairs))
        a_white = ids % 2 == 0
        throw = opening[ids // 2]
        white_first = throw[:, 0] > throw[:, 1]
        a_to_move = a_white == white_first  # the higher die moves first (T6)
        rows = np.repeat(start[None], len(ids), axis=0)
        live = np.ones(len(ids), dtype=bool)
        for turn in range(MAX_TURNS):
            if not live.any():
                break
            dice = rolls[ids // 2, turn].copy()
            if short:  # the opening throw is the first turn's roll; later turns shift
                dice = rolls[ids // 2, turn - 1].copy() if turn else np.sort(throw, axis=1)
            for player, mine in ((a, a_to_move), (b, ~a_to_move)):
                chosen = live & mine
                if chosen.any():
                    rows[chosen] = player.choose(rules, rows[chosen], dice[chosen])
            won = live & (rows[:, HALF:].sum(axis=1) == 0)
            if won.any():
                at = np.flatnonzero(won)
                score = np.array([position.outcome().points  # type: ignore[union-attr]
                                  for position in decode(rules, rows[at])])
                points[ids[at]] = np.where(a_to_move[at], score, -score)
                turns[ids[at]] = turn + 1
                live &= ~won
            a_to_move = ~a_to_move
    return Result(points, turns, time.process_time() - cpu)


def interval(values: np.ndarray) -> Tuple[float, float]:
    """Mean and 1.96 standard errors of per-pair means."""
    pairs = values.reshape(-1, 2).mean(axis=1)
    return float(pairs.mean()), float(1.96 * pairs.std(ddof=1) / np.sqrt(len(pairs)))


def player(spec: str, game: str, weights: Optional[str], seed: int) -> Player:
    if spec == "random":
        return Random(seed)
    if spec == "greedy":
        return Greedy()
    if spec.startswith("net:") and spec[4:] in ("0", "1"):
        evaluator = Evaluator.load(weights) if weights else None
        if evaluator is None or evaluator.game != game:  # --suite: weights of one game
            evaluator = Evaluator.load(game)
        return Network(evaluator, int(spec[4:]))
    if spec.startswith("gnubg:") and game == "short":
        return Gnubg(spec[6:])
    raise SystemExit(f"unknown player {spec!r} for {game} nardy")


def run(game: str, a_spec: str, b_spec: str, games: int, seed: int,
        weights: Optional[str], parallel: int) -> Dict[str, object]:
    rules = Rules.of(game)
    a, b = player(a_spec, game, weights, seed), player(b_spec, game, weights, seed + 1)
    try:
        result = play_match(rules, a, b, games, seed, parallel)
    finally:
        a.close()
        b.close()
    finished = result.turns > 0
    ppg, ppg_half = interval(result.points)
    wins, wins_half = interval((result.points > 0).astype(float))
    row: Dict[str, object] = {
        "game": game, "a": a_spec, "b": b_spec, "games": int(len(result.points)),
        "unfinished": int((~finished).sum()), "seed": seed,
        "a wins": round(wins, 4), "a wins 95%": round(wins_half, 4),
        "a points/game": round(ppg, 4), "points 95%": round(ppg_half, 4),
        "cpu s": round(result.seconds, 1),
        "games/s": round(len(result.points) / max(result.seconds, 1e-9), 1)}
    for side in (a, b):
        if isinstance(side, Gnubg):
            row["gnubg wall s"] = round(side.seconds, 1)
    return row


SUITE = [("short", "net:0", "random"), ("short", "net:0", "greedy"),
         ("short", "net:1", "net:0"), ("short", "net:0", "gnubg:beginner"),
         ("short", "net:0", "gnubg:expert"), ("short", "net:1", "gnubg:expert"),
         ("long", "net:0", "random"), ("long", "net:0", "greedy"), ("long", "net:1", "net:0")]


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=("long", "short"))
    parser.add_argument("--a", default="net:0")
    parser.add_argument("--b", default="greedy")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--weights", help="an Evaluator .npz (default: the shipped one)")
    parser.add_argument("--parallel", type=int, default=200)
    parser.add_argument("--suite", action="store_true", help="every match of issue 16")
    args = parser.parse_args(argv)
    if args.games < 2 or args.games % 2:
        parser.error("--games must be even (pairs of games with the same dice)")
    matches = SUITE if args.suite else [(args.game or "short", args.a, args.b)]
    for game, a_spec, b_spec in matches:
        print(json.dumps(run(game, a_spec, b_spec, args.games, args.seed, args.weights,
                             args.parallel)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
