"""Benchmark sets of checker play for both games: positions with a roll, each with its
candidate turns' equities from rollouts, in classes; and the error a player makes on them.

A set (:func:`read_set`; shipped as ``fastnardy/data/benchmark_GAME.json``, rebuilt by
:func:`build_set`, ``fastnardy benchmark-build``, the same file from the same arguments):

* **positions** met in seeded games between players of several strengths (random against
  greedy, greedy against itself, the shipped network at 0 ply against greedy and against
  itself; in short nardy also GNU Backgammon's beginner against the network), each with the
  roll thrown there and at least two legal turns (T1: a turn is the position it makes);
* **classes**: long nardy ``contact``, ``race`` (no checker has a checker of the other side
  still to pass, :func:`fastnardy.search.network.races`) and ``bear-off`` (every checker of
  the side to move in its home or off, L9); short nardy ``contact``, ``crashed`` (contact
  where a side has crashed, :func:`fastnardy.search.network.crashes`: at most 6 checkers in
  play, those piled on its 1 and 2 points beyond the first on each not counted) and
  ``race``. The same number of positions of each class, drawn uniformly from those met;
* **candidates**: the union of the best 3 turns by the shipped network at 0 ply, the best 3
  at 1 ply searched full width (``net:1:full``), the greedy policy's best 2 and, in short
  nardy, GNU Backgammon's best 3 at 0 ply (:meth:`fastnardy.play.players.Player.worth`);
* **equities**: each candidate's position rolled out
  (:func:`fastnardy.analysis.rollouts.rollout`: the shipped network at 0 ply playing both
  sides, whole games, gnubg's variance reduction, every candidate of a position on the same
  dice streams), cubeless money equity to the side that played the turn, with its standard
  error.

:func:`errors` scores a player (any setting: ``net:P``, ``FILE.npz[:P]``, either with
``:float`` or ``:int16``, ``greedy``, ``random``, ``gnubg[:PRESET][:P]`` …, made by
:func:`fastnardy.play.players.player`, the same player as at every door) on a set: the equity its turn loses against the best
candidate, in thousandths of a point, per class. A turn outside the candidates (a new
network's may be) is rolled out there as the candidates were (the set's games and seed,
:func:`rollout_settings`) and scored against the best of the candidates and itself; on a
set given without its rollouts' games and seed it is counted apart, its loss unknown. A turn
that ends the game is scored by its exact points, candidate or not. Rollout noise makes the
best candidate's equity an overestimate, so every player's error has the same small upward
bias; compare players on the same set.
"""

from __future__ import annotations

import json
import math
import os
import random
import resource
import time
from concurrent.futures import Executor
from importlib import resources as _resources
from typing import (Any, Callable, Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple,
                    Union)

import numpy as np
import numpy.typing as npt

from .. import checks
from .._utils import files as _files
from .rollouts import rollout
from ..basics import Roll
from ..batch import count_turns, decode, encode, expand
from ..errors import FastNardyError, shown
from ..position import Position, Turn
from ..rules import Rules
from ..search.network import Evaluator, crashes, races
from ..search.setting import Setting
from ..play.games import play
from ..play.players import Player, player

__all__ = ["CLASSES", "BenchmarkPosition", "Candidate", "Difference", "Score", "build_set",
           "classify", "errors", "header", "paired", "read_set", "rollout_settings",
           "write_set"]

CLASSES = {"long": ("contact", "race", "bear-off"), "short": ("contact", "crashed", "race")}
FORMAT = 1  # the version of a set file
_TURNS_PLAYED = 400  # turns at most of a game positions are drawn from (far past any end)

# (white, black) players of the games positions are drawn from: several strengths
_PAIRS = {"long": (("random", "greedy"), ("greedy", "greedy"), ("net:0", "greedy"),
                   ("net:0", "net:0")),
          "short": (("random", "greedy"), ("greedy", "greedy"), ("net:0", "greedy"),
                    ("net:0", "net:0"), ("gnubg:beginner", "net:0"))}


class Candidate(NamedTuple):
    """A candidate turn: its notation, the position it makes, and its rolled-out equity to
    the side that played it with the standard error."""

    turn: str
    position: str
    equity: float
    stderr: float


class BenchmarkPosition(NamedTuple):
    """A position of a set with the roll to play, its class and its candidates (best
    first)."""

    position: Position
    dice: Roll
    kind: str
    candidates: Tuple[Candidate, ...]


class Score(NamedTuple):
    """A player's error on a set: per class (and ``all``) the positions, the mean equity lost
    a move in thousandths of a point over those whose turn is a candidate or was rolled out,
    how many turns were outside the candidates, and the CPU seconds spent choosing (this
    process's, and GNU Backgammon's processes' for a gnubg player). ``rolled_out``: whether
    the turns outside were rolled out and counted (else they are left out of the errors),
    and ``rollout_seconds`` the CPU seconds that took. ``standard_errors``: per class, the
    standard error of its mean over the positions drawn (the losses' sample deviation over
    the square root of their number; nan below two): even 200 positions a class leave a few
    thousandths, so two players' errors closer than that are not told apart by their scores
    alone (:func:`paired` compares them on the same positions).
    ``losses``: per class, each position's loss in the set's order (thousandths; nan for a
    turn outside the candidates not counted), which :func:`paired` compares position by
    position."""

    player: str
    game: str
    classes: Dict[str, Tuple[int, float, int]]
    cpu_seconds: float
    rolled_out: bool = False
    rollout_seconds: float = 0.0
    standard_errors: Optional[Dict[str, float]] = None
    losses: Optional[Dict[str, Tuple[float, ...]]] = None

    def as_dict(self) -> Dict[str, object]:
        """JSON's form (an error or a standard error over too few positions is null)."""
        spread = self.standard_errors or {}
        classes = {kind: {"positions": n, "error": _rounded(e), "outside": o,
                          "standard_error": _rounded(spread.get(kind, float("nan")))}
                   for kind, (n, e, o) in self.classes.items()}
        return {"player": self.player, "game": self.game,
                "cpu_seconds": round(self.cpu_seconds, 3), "rolled_out": self.rolled_out,
                "rollout_seconds": round(self.rollout_seconds, 3), "classes": classes}


def _rounded(value: float) -> Optional[float]:
    """``value`` to two places for JSON, or None for nan."""
    return None if np.isnan(value) else round(value, 2)


def classify(position: Position) -> str:
    """The class of ``position`` (module docstring) for its side to move."""
    position = checks.position(position, Position)
    row = encode([position])
    race = bool(races(position.rules, row)[0])
    if position.rules.is_long:
        me, me_bar = position.mover_frame()[:2]
        if me_bar == 0 and not any(me[6:]):
            return "bear-off"
        return "race" if race else "contact"
    if race:
        return "race"
    return "crashed" if crashes(position.rules, row)[0] else "contact"


# --------------------------------------------------------------------------- players

def _children_cpu() -> float:
    """The CPU seconds of this process's finished children (GNU Backgammon's processes)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _row(position: str) -> bytes:
    """The board row of a position string, as bytes (a child's row is a turn's position)."""
    return bytes(encode([Position.from_string(position)])[0].tobytes())


def _children(position: Position, dice: Roll) -> Tuple[npt.NDArray[np.int8],
                                                       npt.NDArray[np.int8]]:
    rows = encode([position])
    children, _ = expand(position.rules, rows, np.array([dice], dtype=np.int8))
    return rows[0], children


def _equity(made: Position, games: int, seed: int, executor: Optional[Executor] = None
            ) -> Tuple[float, float]:
    """The equity of the position a turn ``made`` to the side that played it, and its
    standard error: its rollout (the shipped network alone at 0 ply, without the bear-off
    database: whole games, as the shipped sets' header says; ``games`` on the dice streams
    of ``seed``), or the exact points of a turn that ended the game (L10, S9)."""
    ended = made.outcome()
    if ended is not None:  # the side that played bore off its last checker: it won
        return float(ended.points), 0.0
    network = Setting(Evaluator.load(made.rules.game, bearoff=False))
    line = rollout(made, None, games, setting=network, seed=seed, executor=executor)[0]
    return -line.mean, line.stderr


# --------------------------------------------------------------------------- scoring

def errors(setting: Union[Setting, str], game: str,
           benchmark: Union[None, str, Sequence[BenchmarkPosition]] = None, seed: int = 0, *,
           rollouts: Optional[Tuple[int, int]] = None) -> Score:
    """The error of the player of ``setting`` on ``benchmark``: the shipped set of ``game``
    (None), a set file (its name, read as :func:`read_set` and :func:`rollout_settings`
    read it) or a sequence of BenchmarkPosition; module docstring. The player is
    :func:`fastnardy.play.players.player`'s (``random`` seeded ``seed``), choosing as at every
    door, cubeless. A turn outside
    the candidates is rolled out with ``rollouts`` = (games, seed), by default the set
    file's own (the shipped network at 0 ply, as :func:`build_set` rolled out the
    candidates), or counted apart when there are none."""
    game = Rules.of(game).game
    if benchmark is None or isinstance(benchmark, str):
        document, where = _document(game if benchmark is None else benchmark)
        positions = _positions_of(document, where)
        rollouts = _rollouts_of(document, where) if rollouts is None else rollouts
    else:
        positions = _positions(benchmark)
    if rollouts is not None:
        if not isinstance(rollouts, tuple) or len(rollouts) != 2:
            raise FastNardyError(f"rollouts is (games, seed), not {shown(repr(rollouts))}")
        rollouts = (checks.number(rollouts[0], "rollout games", 2, 1 << 20),
                    checks.number(rollouts[1], "rollout seed", 0))
    losses: Dict[str, List[float]] = {kind: [] for kind in CLASSES[game]}  # nan: not counted
    outside = dict.fromkeys(CLASSES[game], 0)
    rolling = 0.0
    started, engines = time.process_time(), _children_cpu()
    with player(setting, game, seed) as chooser:
        for item in positions:
            if item.position.rules.game != game:
                raise FastNardyError(f"a {item.position.rules.game}-nardy position in a "
                                     f"{game}-nardy set")
            row, children = _children(item.position, item.dice)
            chosen = children[chooser.pick(item.position.rules, row[None],
                                           np.array([item.dice]),
                                           children, np.array([0, len(children)]))[0]]
            equities = {_row(c.position): c.equity for c in item.candidates}
            best = max(equities.values())  # whatever order the candidates were given in
            loss = float("nan")  # a turn outside the candidates, not rolled out
            if chosen.tobytes() in equities:
                loss = best - equities[chosen.tobytes()]
            else:
                outside[item.kind] += 1
                if rollouts is not None:
                    begun = time.process_time()
                    mine, _ = _equity(decode(item.position.rules, chosen[None])[0], *rollouts)
                    rolling += time.process_time() - begun
                    loss = max(best, mine) - mine
            losses[item.kind].append(1000 * loss)
    seconds = time.process_time() - started - rolling + _children_cpu() - engines
    summaries = {kind: _summary(values) for kind, values in losses.items()}
    summaries["all"] = _summary([x for values in losses.values() for x in values])
    counts = {**{kind: len(values) for kind, values in losses.items()}, "all": len(positions)}
    outside["all"] = sum(outside.values())
    classes = {kind: (counts[kind], mean, outside[kind])
               for kind, (_, mean, _) in summaries.items()}
    spread = {kind: error for kind, (_, _, error) in summaries.items()}
    return Score(chooser.name, game, classes, seconds, rollouts is not None, rolling, spread,
                 {kind: tuple(values) for kind, values in losses.items()})


class Difference(NamedTuple):
    """One class of :func:`paired`: the positions both players' losses are known on, the
    mean of the first's loss less the second's there (thousandths of a point a move), and
    its standard error (nan below two positions)."""

    positions: int
    mean: float
    standard_error: float

    def as_dict(self) -> Dict[str, object]:
        """JSON's form (a mean or a standard error over too few positions is null)."""
        return {"positions": self.positions, "difference": _rounded(self.mean),
                "standard_error": _rounded(self.standard_error)}


def paired(score: Score, other: Score) -> Dict[str, Difference]:
    """``score``'s loss less ``other``'s, position by position, per class and ``all``: two
    :func:`errors` on the same set. On the same positions the noise of which positions were
    drawn cancels, so the interval is narrower than the two scores' own intervals suggest
    (and a difference inside theirs may be told apart here)."""
    mine, theirs = _losses(score), _losses(other)
    if score.game != other.game or {k: len(v) for k, v in mine.items()} != {
            k: len(v) for k, v in theirs.items()}:
        raise FastNardyError(f"{shown(str(score.player))} and {shown(str(other.player))} "
                             f"were not scored on the same set")
    parts = {kind: mine[kind] - theirs[kind] for kind in mine}
    parts["all"] = np.concatenate(list(parts.values())) if parts else np.zeros(0)
    return {kind: Difference(*_summary(values)) for kind, values in parts.items()}


def _losses(score: object) -> Dict[str, npt.NDArray[np.float64]]:
    """A Score's losses per class as arrays (FastNardyError for anything else)."""
    losses = score.losses if isinstance(score, Score) else None
    try:
        if isinstance(losses, dict) and all(isinstance(k, str) for k in losses):
            arrays = {kind: np.array(values, dtype=np.float64) for kind, values in losses.items()}
            if all(values.ndim == 1 for values in arrays.values()):
                return arrays
    except (TypeError, ValueError, OverflowError):
        pass
    raise FastNardyError(f"paired compares two Scores made by errors(), which keep each "
                         f"position's loss, not {shown(repr(score))}")


def _summary(values: Iterable[float]) -> Tuple[int, float, float]:
    """Of the values that are not nan: how many, their mean and its standard error (the
    sample deviation over the square root of their number; nan below one and two values)."""
    known = [float(x) for x in values if not np.isnan(x)]
    mean = float(np.mean(known)) if known else float("nan")
    if len(known) < 2:
        return len(known), mean, float("nan")
    return len(known), mean, float(np.std(known, ddof=1)) / float(np.sqrt(len(known)))


def _positions(value: object) -> List[BenchmarkPosition]:
    """A set given by hand: a sequence of BenchmarkPosition (FastNardyError otherwise)."""
    items = checks.bounded(value, checks.MAX_ITEMS)
    if items is None or len(items) > checks.MAX_ITEMS \
            or not all(isinstance(item, BenchmarkPosition) for item in items):
        raise FastNardyError("a benchmark set is a sequence of BenchmarkPosition")
    for item in items:
        if not (isinstance(item.position, Position)
                and item.kind in CLASSES[item.position.rules.game]
                and isinstance(item.candidates, tuple) and item.candidates
                and all(_is_candidate(c) for c in item.candidates)):
            raise FastNardyError(f"a benchmark position holds a Position, one of its game's "
                                 f"CLASSES and a tuple of Candidates, not {shown(repr(item))}")
    return items


def _is_candidate(value: object) -> bool:
    return isinstance(value, Candidate) and isinstance(value.turn, str) \
        and isinstance(value.position, str) and all(
            isinstance(x, float) and np.isfinite(x) for x in (value.equity, value.stderr))


# --------------------------------------------------------------------------- building

def _games(game: str, count: int, seed: int) -> List[Tuple[Position, Roll]]:
    """(position, roll) pairs met in ``count`` seeded games of each pair of players, where
    the roll has two legal turns or more (the T6 opening not played: white throws first),
    each position from its side to move's view (white to move). The games are played one at
    a time, so the dice come from one stream in the games' order."""
    rules = Rules.of(game)
    met: List[Tuple[Position, Roll]] = []
    start = encode([Position.start(rules)])

    def roll(turn: int, games: npt.NDArray[np.int64]) -> npt.NDArray[np.int8]:
        return np.array([[rng.randint(1, 6), rng.randint(1, 6)]], dtype=np.int8)

    def watch(turn: int, games: npt.NDArray[np.int64], rows: npt.NDArray[np.int8],
              dice: npt.NDArray[np.int8]) -> None:
        if count_turns(rules, rows, dice)[0] > 1:
            met.append((decode(rules, rows)[0], (int(dice[0, 0]), int(dice[0, 1]))))

    for number, (white, black) in enumerate(_PAIRS[game]):
        with player(white, rules, seed + 2 * number) as first, \
                player(black, rules, seed + 2 * number + 1) as second:
            rng = random.Random(seed * 1009 + number)
            for _ in range(count):
                play(rules, start, np.ones(1, dtype=bool), (first, second), roll,
                     turns=_TURNS_PLAYED, watch=watch)
    return met


def _candidates(position: Position, dice: Roll, scorers: Sequence[Tuple[Player, int]]
                ) -> List[Turn]:
    """The union of each scorer's best ``k`` turns (by its worth), in T2 order."""
    row, children = _children(position, dice)
    kept = np.zeros(len(children), dtype=bool)
    for scorer, k in scorers:
        values = scorer.worth(position.rules, children, np.array([0, len(children)]))
        assert values is not None  # every scorer ranks turns
        kept[np.argsort(-values, kind="stable")[:k]] = True
    wanted = {children[i].tobytes() for i in np.flatnonzero(kept)}
    return [turn for turn in position.legal_turns(dice)
            if encode([turn.position])[0].tobytes() in wanted]


# (setting, how many of its best turns) of a set's candidates, per game
_SCORERS = {"long": (("net:0", 3), ("net:1:full", 3), ("greedy", 2)),
            "short": (("net:0", 3), ("net:1:full", 3), ("greedy", 2), ("gnubg:expert", 3))}


def build_set(game: str, per_class: int = 40, games: int = 128, seed: int = 1, *,
              played: int = 60, executor: Optional[Executor] = None,
              progress: Optional[Callable[[int, int], None]] = None) -> List[BenchmarkPosition]:
    """A benchmark set (module docstring): ``per_class`` positions of each class drawn from
    ``played`` games of each pair of players, every candidate rolled out ``games`` times on
    dice streams of ``seed`` (on ``executor`` when given: the same numbers).
    ``progress(done, total)`` counts positions rolled out."""
    game = Rules.of(game).game
    per_class = checks.number(per_class, "per_class", 1, 10_000)
    games = checks.number(games, "games", 2, 1 << 20)
    seed = checks.number(seed, "seed", 0)
    played = checks.number(played, "played", 1, 100_000)
    if executor is not None:
        checks.as_executor(executor)
    checks.callback(progress)
    met = _games(game, played, seed)
    by_kind: Dict[str, Dict[str, Tuple[Position, Roll]]] = {k: {} for k in CLASSES[game]}
    for position, dice in met:
        by_kind[classify(position)].setdefault(f"{position.to_string()} {dice}",
                                               (position, dice))
    rng = random.Random(seed)
    chosen: List[Tuple[str, Position, Roll]] = []
    for kind, found in by_kind.items():
        keys = sorted(found)
        if len(keys) < per_class:
            raise FastNardyError(f"{len(keys)} {kind} positions met in {played} games a pair: "
                                 f"fewer than {per_class}; play more games")
        chosen += [(kind, *found[key]) for key in rng.sample(keys, per_class)]
    scorers = [(player(spec, game), k) for spec, k in _SCORERS[game]]
    try:  # every candidate chosen first: gnubg is done before the rollouts' pool starts
        turns = [_candidates(position, dice, scorers) for _, position, dice in chosen]
    finally:
        for scorer, _ in scorers:
            scorer.close()
    out = []
    for done, ((kind, position, dice), candidates) in enumerate(zip(chosen, turns), 1):
        rolled = []
        for turn in candidates:
            value, stderr = _equity(turn.position, games, seed, executor)
            rolled.append(Candidate(str(turn), turn.position.to_string(), value, stderr))
        rolled.sort(key=lambda c: -c.equity)
        out.append(BenchmarkPosition(position, dice, kind, tuple(rolled)))
        if progress is not None:
            progress(done, len(chosen))
    return out


# --------------------------------------------------------------------------- files

def write_set(path: Union[str, "os.PathLike[str]"], positions: Sequence[BenchmarkPosition],
              about: Dict[str, object]) -> None:
    """Write a set as JSON (whole or not at all), ``about`` its header (how it was made:
    :func:`header`)."""
    positions = _positions(positions)
    if not isinstance(about, dict):
        raise FastNardyError(f"about is a dict (the set's header), not {type(about).__name__}")
    try:
        json.dumps(about)
    except (TypeError, ValueError) as exc:
        raise FastNardyError(f"about must be JSON: {exc}") from None
    lines = [json.dumps({"position": p.position.to_string(), "dice": list(p.dice),
                         "class": p.kind, "candidates": [
                             [c.turn, c.position, round(c.equity, 5), round(c.stderr, 5)]
                             for c in p.candidates]}) for p in positions]
    text = (f'{{"format": {FORMAT}, "about": {json.dumps(about)},\n"positions": [\n'
            + ",\n".join(lines) + "\n]}\n")  # a position a line
    _files.write_whole(path, text.encode())


def _document(game_or_path: str) -> Tuple[Dict[str, Any], str]:
    """The JSON of the shipped set of ``"long"`` or ``"short"`` or of a set file, and the
    words that name it."""
    if not isinstance(game_or_path, str):
        raise FastNardyError(f"a set is 'long', 'short' or a file name, not "
                             f"{type(game_or_path).__name__}")
    if game_or_path in CLASSES:
        text = _resources.files("fastnardy").joinpath("data").joinpath(
            f"benchmark_{game_or_path}.json").read_text(encoding="utf-8")
        where = f"the shipped {game_or_path}-nardy set"
    else:
        try:
            text, where = _files.read_text(checks.text(game_or_path, "set")), game_or_path
        except OSError as exc:
            raise FastNardyError(f"cannot read {game_or_path}: {exc.strerror}") from None
    try:
        document = json.loads(text, parse_constant=_no_constant)
        if not isinstance(document, dict):
            raise ValueError("not a JSON object")
        if document.get("format") != FORMAT:
            raise ValueError(f"format {shown(repr(document.get('format')))}, not {FORMAT}")
    except RecursionError:
        raise FastNardyError(f"{where} is not a benchmark set: its JSON is nested too "
                             f"deeply") from None
    except ValueError as exc:
        raise FastNardyError(f"{where} is not a benchmark set: {exc}") from None
    return document, where


def _no_constant(name: str) -> Any:
    """JSON's NaN and Infinity, which no equity of a set is."""
    raise ValueError(f"{name} is not a number of a benchmark set")


def rollout_settings(game_or_path: str) -> Optional[Tuple[int, int]]:
    """The (games, seed) of the rollouts of the shipped set of ``"long"`` or ``"short"`` or
    of a set file, from its header (:func:`header`); None when the header does not say."""
    return _rollouts_of(*_document(game_or_path))


def _rollouts_of(document: Dict[str, Any], where: str) -> Optional[Tuple[int, int]]:
    about = document.get("about")
    if not isinstance(about, dict) or "games" not in about or "seed" not in about:
        return None
    games, seed = about["games"], about["seed"]
    if type(games) is not int or type(seed) is not int or games < 2 or seed < 0:
        raise FastNardyError(f"{where} is not a benchmark set: its rollouts' games and seed "
                             f"are {shown(repr(games))} and {shown(repr(seed))}")
    return games, seed


def read_set(game_or_path: str) -> List[BenchmarkPosition]:
    """The shipped set of ``"long"`` or ``"short"``, or a set file written by
    :func:`write_set`; FastNardyError for one that does not read."""
    return _positions_of(*_document(game_or_path))


def _positions_of(document: Dict[str, Any], where: str) -> List[BenchmarkPosition]:
    try:
        out = []
        for item in document["positions"]:
            position = Position.from_string(item["position"])
            dice = tuple(item["dice"])
            if len(dice) != 2 or any(type(d) is not int or not 1 <= d <= 6 for d in dice):
                raise ValueError(f"dice {shown(repr(item['dice']))}")
            if item["class"] not in CLASSES[position.rules.game]:
                raise ValueError(f"class {shown(repr(item['class']))}")
            candidates = tuple(Candidate(str(t), str(p), _number(e), _number(s))
                               for t, p, e, s in item["candidates"])
            if len(candidates) < 2:
                raise ValueError("fewer than two candidates")
            out.append(BenchmarkPosition(position, dice, item["class"], candidates))
    except (ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:
        raise FastNardyError(f"{where} is not a benchmark set: {exc}") from None
    return out


def _number(value: Any) -> float:
    """A set's equity or standard error: a finite JSON number (not a string, not a bool)."""
    if type(value) not in (int, float) or not math.isfinite(value) or abs(value) > 64:
        raise ValueError(f"{shown(repr(value))} is not an equity")
    return float(value)


def header(game: str, per_class: int, games: int, seed: int, played: int,
           seconds: float) -> Dict[str, object]:
    """The header of a set built by :func:`build_set` with these arguments in ``seconds`` of
    CPU."""
    game = Rules.of(game).game
    for value, name in ((per_class, "per_class"), (games, "games"), (seed, "seed"),
                        (played, "played")):
        checks.number(value, name, 0)
    seconds = checks.real(seconds, "seconds", 0.0, float("inf"))
    return {"game": game, "per_class": per_class, "games": games, "seed": seed,
            "played": played, "classes": list(CLASSES[game]),
            "players": [list(pair) for pair in _PAIRS[game]],
            "rollout": f"the shipped {game} network at 0 ply, both sides, whole games, "
                       f"variance reduction, {games} games a candidate on dice streams of "
                       f"seed {seed}",
            "command": f"fastnardy benchmark-build {game} --per-class {per_class} --games "
                       f"{games} --seed {seed} --played {played}",
            "cpu_seconds": round(seconds, 1),  # the builder's and its children's
            }
