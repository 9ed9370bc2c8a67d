"""Seeded matches between players (``fastnardy match``; bench/strength.py's harness): wins
and points a game with 95% intervals.

Players (:func:`player`): ``random`` (uniform over the legal turns), ``greedy`` (the policy
of ``fastnardy play``: :func:`fastnardy.play.interactive.evaluate`, first best in T2 order),
``net:P`` (the shipped :class:`fastnardy.search.network.Evaluator` searched P = 0, 1 or 2 plies by
:func:`fastnardy.search.tree.expectimax`, at 1 ply or more with GNU Backgammon's filters,
:data:`fastnardy.search.tree.GNUBG_FILTERS`), ``FILE.npz`` or ``FILE.npz:P`` (a saved evaluator)
and, in short nardy, ``gnubg:beginner`` / ``gnubg:expert`` (GNU Backgammon's presets: 0
ply, cubeless, noise 0.060 / none), driven headless through ``data/gnubg_driver.py``; each
move gnubg returns must be one of fastnardy's legal turns (T1) or the match stops with an
EngineError.

Games are played ``parallel`` at a time in numpy batches (one ``batch.expand`` per player
per step). Game ``g`` draws its dice from stream ``(seed, g // 2)``: games ``2k`` and
``2k + 1`` see the same dice, ``a`` white in the first and black in the second, so the
luck of the dice largely cancels in each pair. The T6 opening: each side throws one die,
ties thrown again; in short nardy the higher plays those two numbers, in long nardy it then
throws both dice. Games are scored by L10 / S9 without a cube. The 95% intervals are
mean +- 1.96 standard errors over the pairs (the two games of a pair are not independent).
"""

from __future__ import annotations

import os
import subprocess
from abc import ABC, abstractmethod
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Dict, List, NamedTuple, Optional, TextIO, Tuple

import numpy as np
import numpy.typing as npt

from .. import checks
from ..batch import MIRROR_COLUMNS, ROW_WIDTH, decode, encode, expand, segment_argmax
from ..errors import EngineError, FastNardyError
from ..search.network import Evaluator
from ..position import Position
from ..rules import Rules
from ..search.tree import GNUBG_FILTERS, _kept, expectimax

__all__ = ["GNUBG", "Gnubg", "Greedy", "Network", "Player", "Random", "Result", "interval",
           "match", "play_match", "player"]

HALF = ROW_WIDTH // 2
GNUBG = "/usr/games/gnubg"
DRIVER = Path(__file__).parent.parent / "data" / "gnubg_driver.py"
NOISE = {"beginner": 0.060, "expert": 0.0}  # gnubg's presets (eval.c aecSettings), 0 ply
MAX_TURNS = 2000
Rows = npt.NDArray[np.int8]
Indices = npt.NDArray[np.int64]


def first_best(values: npt.NDArray[Any], parent: npt.NDArray[Any], count: int) -> Indices:
    """The index of the first highest value among each parent's children (parents sorted,
    each with at least one child; T2 order)."""
    offsets = np.searchsorted(parent, np.arange(count + 1))
    out: Indices = offsets[:-1] + segment_argmax(values, offsets)
    return out


class Player(ABC):
    """Chooses one child of each row for its dice: ``choose`` returns the chosen rows."""

    name = "player"

    def choose(self, rules: Rules, rows: Rows, dice: npt.NDArray[Any]) -> Rows:
        children, parent = expand(rules, rows, dice)
        chosen: Rows = children[self.pick(rules, rows, dice, children, parent)]
        return chosen

    @abstractmethod
    def pick(self, rules: Rules, rows: Rows, dice: npt.NDArray[Any], children: Rows,
             parent: npt.NDArray[Any]) -> Indices:
        """The index into ``children`` of each row's choice."""

    def close(self) -> None:
        """Release what the player holds (a gnubg process)."""


class Random(Player):
    """Uniform over the legal turns, seeded."""

    def __init__(self, seed: int) -> None:
        self.name, self.rng = "random", np.random.default_rng([seed, 7])

    def pick(self, rules: Rules, rows: Rows, dice: npt.NDArray[Any], children: Rows,
             parent: npt.NDArray[Any]) -> Indices:
        counts = np.bincount(parent, minlength=len(rows))
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        out: Indices = starts + (self.rng.random(len(rows)) * counts).astype(np.int64)
        return out


def greedy_scores(rules: Rules, children: Rows) -> npt.NDArray[np.int64]:
    """fastnardy.play.interactive.evaluate of each child for the side that just moved (the child's
    opponent half): the race, +2 a point held by two or more, and in long nardy +1 a point
    occupied; in short nardy -2 a blot and +3 an opponent checker on the bar."""
    pips = np.arange(1, 25)
    rows = children.astype(np.int64)
    own, own_bar = rows[:, HALF:HALF + 24], rows[:, ROW_WIDTH - 1]
    other, other_bar = rows[:, :24], rows[:, 24]
    score: npt.NDArray[np.int64] = (other @ pips + 25 * other_bar) - (
        own @ pips + 25 * own_bar) + 2 * (own >= 2).sum(axis=1)
    if rules.is_long:
        score += (own > 0).sum(axis=1)
    else:
        score += 3 * other_bar - 2 * (own == 1).sum(axis=1)
    return score


class Greedy(Player):
    """The greedy policy of ``fastnardy play``."""

    name = "greedy"

    def pick(self, rules: Rules, rows: Rows, dice: npt.NDArray[Any], children: Rows,
             parent: npt.NDArray[Any]) -> Indices:
        return first_best(greedy_scores(rules, children), parent, len(rows))


class Network(Player):
    """The evaluator searched ``plies`` deep with GNU Backgammon's filters: each child of the
    root screen valued -V_plies (search module)."""

    def __init__(self, evaluator: Evaluator, plies: int, name: str = "") -> None:
        self.evaluator, self.plies = evaluator, plies
        self.name = name or f"net:{plies}"

    def pick(self, rules: Rules, rows: Rows, dice: npt.NDArray[Any], children: Rows,
             parent: npt.NDArray[Any]) -> Indices:
        values = -expectimax(rules, children, self.evaluator, 0)
        if self.plies:
            starts = np.searchsorted(parent, np.arange(len(rows)))
            kept = _kept(values, starts, GNUBG_FILTERS[0])
            values[~kept] = -np.inf
            values[kept] = -expectimax(rules, children[kept], self.evaluator, self.plies,
                                       GNUBG_FILTERS[1:])
        return first_best(values, parent, len(rows))


class _Driver:
    """One ``gnubg -t`` process running :data:`DRIVER`, through two FIFOs."""

    def __init__(self) -> None:
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

    def _open_writer(self, fifo: str, seconds: float = 120.0) -> TextIO:
        """The request FIFO, once gnubg opens it: never a hang on a gnubg that died."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                descriptor = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
                break
            except OSError:  # ENXIO: no reader yet
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.process.kill()
                    raise EngineError(f"gnubg did not start the driver (exit status "
                                      f"{self.process.poll()})") from None
                time.sleep(0.05)
        os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "w")

    def ask(self, head: str, items: List[str]) -> List[str]:
        """One request line, its answer's items."""
        self.requests.write(f"{head} {';'.join(items)}\n")
        self.requests.flush()
        line = self.answers.readline()
        if not line.startswith("@@"):
            raise EngineError(f"gnubg exited ({self.process.poll()})")
        answer = line[2:].strip()
        if answer.startswith("error"):
            raise EngineError(f"gnubg: {answer}")
        return answer.split(";")

    def close(self) -> None:
        self.requests.close()
        self.answers.close()
        self.process.wait(timeout=30)
        self.folder.cleanup()


class Gnubg(Player):
    """GNU Backgammon's 0-ply move (cubeless, money game without Jacoby) for each row, its
    legality checked against fastnardy's children (T1: a turn is the position it makes).
    gnubg's Python calls wait on its task queue (about 10 ms a call however little they
    compute), so a request is shared among ``processes`` gnubg processes asked at once."""

    def __init__(self, setting: str, processes: int = 8) -> None:
        if setting not in NOISE:
            raise FastNardyError(f"gnubg setting must be one of {sorted(NOISE)}, not "
                                 f"{setting!r}")
        processes = checks.number(processes, "processes", 1)
        if not Path(GNUBG).exists():
            raise EngineError(f"{GNUBG} not found: apt-get install -y gnubg")
        self.name, self.noise = f"gnubg:{setting}", NOISE[setting]
        self.drivers: List[_Driver] = []
        try:
            for _ in range(processes):
                self.drivers.append(_Driver())
        except BaseException:
            self.close()
            raise
        self.pool = ThreadPoolExecutor(processes) if processes > 1 else None
        self.lock = threading.Lock()  # one request at a time: the FIFOs carry one line each
        self.seconds = 0.0  # gnubg's wall time (its CPU is other processes')

    def _ask(self, head: str, items: List[str]) -> List[str]:
        """The answers' items to ``items``, shared among the drivers in contiguous parts
        (threads calling at once take turns)."""
        if not items:
            return []
        with self.lock:
            started = time.perf_counter()
            k = min(len(self.drivers), len(items))
            bounds = [len(items) * i // k for i in range(k + 1)]
            parts = [items[bounds[i]:bounds[i + 1]] for i in range(k)]
            if self.pool is None or k == 1:
                answers = [self.drivers[0].ask(head, items)]
            else:
                answers = list(self.pool.map(lambda i: self.drivers[i].ask(head, parts[i]),
                                             range(k)))
            self.seconds += time.perf_counter() - started
        return [item for answer in answers for item in answer]

    def moves(self, rows: Rows, dice: npt.NDArray[Any]) -> List[List[int]]:
        """gnubg's move for each row: from, to pairs in the mover's numbering."""
        items = [",".join(map(str, list(row) + list(d))) for row, d in zip(rows, dice)]
        return [[int(x) for x in part.split(",") if x] for part in self._ask(str(self.noise),
                                                                            items)]

    def probabilities(self, rows: Rows, plies: int = 0) -> npt.NDArray[np.float64]:
        """gnubg's cubeless evaluation at ``plies`` plies of each board row (short nardy,
        none finished) for its side to move: (N, 5), the five outputs of
        :data:`fastnardy.search.network.OUTPUTS` (gnubg's win, win gammon, win backgammon, lose
        gammon, lose backgammon)."""
        boards = np.asarray(rows)
        if boards.ndim != 2 or boards.shape[1] != ROW_WIDTH or boards.dtype.kind not in "iu":
            raise FastNardyError(f"rows must be (N, {ROW_WIDTH}) integers, not "
                                 f"{boards.shape} {boards.dtype}")
        plies = checks.number(plies, "plies", 0, 4)
        items = [",".join(map(str, row)) for row in boards.astype(np.int64)]
        answer = self._ask(f"evaluate {plies}", items)
        return np.array([[float(x) for x in part.split(",")] for part in answer]).reshape(-1, 5)

    def pick(self, rules: Rules, rows: Rows, dice: npt.NDArray[Any], children: Rows,
             parent: npt.NDArray[Any]) -> Indices:
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
                raise EngineError(f"T1: gnubg's move {move} for dice {tuple(dice[i])} in "
                                  f"{position} is not one of its legal turns")
            chosen[i] = starts[i] + same[0]
        return chosen

    def close(self) -> None:
        pool = getattr(self, "pool", None)  # not made when a driver failed to start
        if pool is not None:
            pool.shutdown()
        for driver in self.drivers:
            driver.close()


class Result(NamedTuple):
    """A match: ``points`` a's points in each game (+ won, - lost, 0 unfinished), the turns
    of each game (0 unfinished) and this process's CPU seconds."""

    points: npt.NDArray[np.float64]
    turns: npt.NDArray[np.int64]
    seconds: float


def dice_tables(seed: int, pairs: int, turns: int) -> Tuple[npt.NDArray[np.int8],
                                                            npt.NDArray[np.int8]]:
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
               parallel: int = 200, progress: Optional[Callable[[int, int], None]] = None
               ) -> Result:
    """``games`` (even) games of a against b (see the module docstring); ``progress(done,
    total)`` after each batch of games."""
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
            for one, mine in ((a, a_to_move), (b, ~a_to_move)):
                chosen = live & mine
                if chosen.any():
                    rows[chosen] = one.choose(rules, rows[chosen], dice[chosen])
            won = live & (rows[:, HALF:].sum(axis=1) == 0)
            if won.any():
                at = np.flatnonzero(won)
                score = np.array([position.outcome().points  # type: ignore[union-attr]
                                  for position in decode(rules, rows[at])])
                points[ids[at]] = np.where(a_to_move[at], score, -score)
                turns[ids[at]] = turn + 1
                live &= ~won
            a_to_move = ~a_to_move
        if progress is not None:
            progress(int(ids[-1]) + 1, 2 * pairs)
    return Result(points, turns, time.process_time() - cpu)


def interval(values: npt.NDArray[Any]) -> Tuple[float, float]:
    """Mean and 1.96 standard errors of per-pair means."""
    pairs = values.reshape(-1, 2).mean(axis=1)
    return float(pairs.mean()), float(1.96 * pairs.std(ddof=1) / np.sqrt(len(pairs)))


def player(spec: str, game: str, seed: int, weights: Optional[str] = None) -> Player:
    """The player ``spec`` names (module docstring) for ``game``; ``weights`` replaces the
    shipped evaluator of ``net:P``."""
    if spec == "random":
        return Random(seed)
    if spec == "greedy":
        return Greedy()
    path, _, plies = spec.rpartition(":") if ":" in spec else (spec, ":", "0")
    if plies in ("0", "1", "2") and (path == "net" or path.endswith(".npz")):
        source = weights if path == "net" and weights else (game if path == "net" else path)
        network = Evaluator.load(source)
        if network.game != game:
            raise FastNardyError(f"{spec}: the evaluator is for {network.game} nardy, not "
                                 f"{game}")
        return Network(network, int(plies), spec)
    if spec.startswith("gnubg:"):
        if game != "short":
            raise FastNardyError("GNU Backgammon plays short nardy (backgammon) only")
        return Gnubg(spec[6:])
    raise FastNardyError(f"unknown player {spec!r}: random, greedy, net:PLIES (0-2), "
                         f"FILE.npz[:PLIES] or gnubg:beginner|expert")


def match(game: str, a: str, b: str, games: int, seed: int, *,
          weights: Optional[str] = None, parallel: int = 200,
          progress: Optional[Callable[[int, int], None]] = None) -> Dict[str, object]:
    """Play ``games`` (even, 2 or more) seeded paired games of player ``a`` against ``b``;
    a's wins and points a game with their 95% intervals."""
    rules = Rules.of(game)
    if not isinstance(games, int) or games < 2 or games % 2:
        raise FastNardyError(f"games must be an even number of 2 or more (pairs of games "
                             f"with the same dice), not {games!r}")
    first = player(a, rules.game, seed, weights)
    try:
        second = player(b, rules.game, seed + 1, weights)
    except BaseException:
        first.close()
        raise
    try:
        result = play_match(rules, first, second, games, seed, parallel, progress)
    finally:
        first.close()
        second.close()
    ppg, ppg_half = interval(result.points)
    wins, wins_half = interval((result.points > 0).astype(float))
    row: Dict[str, object] = {
        "game": rules.game, "a": a, "b": b, "games": int(len(result.points)),
        "unfinished": int((result.turns == 0).sum()), "seed": seed,
        "a wins": round(wins, 4), "a wins 95%": round(wins_half, 4),
        "a points/game": round(ppg, 4), "points 95%": round(ppg_half, 4),
        "cpu s": round(result.seconds, 1),
        "games/s": round(len(result.points) / max(result.seconds, 1e-9), 1)}
    for side in (first, second):
        if isinstance(side, Gnubg):
            row["gnubg wall s"] = round(side.seconds, 1)
    return row
