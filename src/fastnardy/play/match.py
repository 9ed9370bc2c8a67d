"""Seeded matches between players (``fastnardy match``; bench/strength.py's harness): wins
and points a game with 95% intervals.

Players (:func:`player`, from :mod:`fastnardy.play.players` and :mod:`fastnardy.play.gnubg`):
``random``, ``greedy``, ``net:P`` (the shipped network searched P = 0, 1 or 2 plies),
``FILE.npz`` or ``FILE.npz:P`` (a saved evaluator), either with ``:int16`` after it (the
evaluator in integer arithmetic: ``net:0:int16``) and, in short nardy, ``gnubg:beginner`` /
``gnubg:expert`` (GNU Backgammon's presets at 0 ply) or ``gnubg:expert:P`` (at P = 1 or 2
plies, its own move filters).

Games are played ``parallel`` at a time in numpy batches (one ``batch.expand`` per player
per step). Game ``g`` draws its dice from stream ``g // 2`` of the seed
(:class:`fastnardy.basics.DiceStream`, the kernel's and Game's): games ``2k`` and
``2k + 1`` see the same dice, ``a`` white in the first and black in the second, so the
luck of the dice largely cancels in each pair. The T6 opening: each side throws one die,
ties thrown again; in short nardy the higher plays those two numbers, in long nardy it then
throws both dice. Games are scored by L10 / S9 without a cube. The 95% intervals are
mean +- 1.96 standard errors over the pairs (the two games of a pair are not independent).
"""

from __future__ import annotations

import math
import time
from contextlib import contextmanager
from typing import (TYPE_CHECKING, Any, Callable, Dict, Iterator, List, NamedTuple, Optional,
                    Tuple)

import numpy as np
import numpy.typing as npt

from .. import checks
from ..basics import BLACK, MAX_TURNS, WHITE, DiceStream, dice, dice_states
from ..batch import decode, encode
from ..errors import FastNardyError, integer
from ..game import Game, Match
from ..search.network import ARITHMETICS, Evaluator
from ..position import Position
from ..rules import Rules

from .gnubg import GNUBG as GNUBG
from .gnubg import Gnubg as Gnubg
from .players import Greedy as Greedy
from .players import Network as Network
from .players import Player as Player
from .players import Random as Random
from .players import first_best as first_best
from .players import greedy_scores as greedy_scores
from .players import HALF

if TYPE_CHECKING:
    from ..analysis.met import MatchEquityTable

# the players' names are read from here too, as before they had modules of their own
__all__ = ["CubeResult", "Result", "cube_match", "interval", "match", "play_cube_matches",
           "play_match", "player"]

class Result(NamedTuple):
    """A match: ``points`` a's points in each game (+ won, - lost, 0 unfinished), the turns
    of each game (0 unfinished) and this process's CPU seconds."""

    points: npt.NDArray[np.float64]
    turns: npt.NDArray[np.int64]
    seconds: float


class _Dice(NamedTuple):
    """The dice of a match's pairs: pair k throws stream k of the seed (T6 first)."""

    states: npt.NDArray[np.uint64]
    opening: npt.NDArray[np.int8]  # the T6 throw of each pair: (white's die, black's die)
    after: npt.NDArray[np.int64]  # the dice the opening threw, per pair
    white_first: npt.NDArray[np.bool_]  # the opening's higher die is white's (T6)
    first: Optional[npt.NDArray[np.int8]]  # short nardy: the opening throw is the first roll

    def roll(self, pairs: npt.NDArray[np.int64], after_opening: int) -> npt.NDArray[np.int8]:
        """Roll number ``after_opening`` (0: the first thrown after the opening) of pairs."""
        draws = self.after[pairs, None] + 2 * after_opening + np.arange(2)
        rolled: npt.NDArray[np.int8] = dice(self.states[pairs, None], draws)
        return rolled


def _dice(rules: Rules, seed: int, pairs: int) -> _Dice:
    """Each pair's opening (Position.opening, the one T6 of Python) and dice stream."""
    opening = np.empty((pairs, 2), dtype=np.int8)
    white_first = np.empty(pairs, dtype=bool)
    after = np.empty(pairs, dtype=np.int64)
    first = np.empty((pairs, 2), dtype=np.int8)
    for k in range(pairs):
        stream = DiceStream(seed, k)
        opening[k] = stream.opening()
        position, roll = Position.opening(rules, *opening[k].tolist())
        white_first[k], after[k] = position.turn == WHITE, stream.draws
        if roll is not None:
            first[k] = roll
    return _Dice(dice_states(seed, np.arange(pairs)), opening, after, white_first,
                 first if rules.game == "short" else None)


def dice_tables(seed: int, pairs: int, turns: int) -> Tuple[npt.NDArray[np.int8],
                                                            npt.NDArray[np.int8]]:
    """Per pair k (stream k of the seed): the T6 opening throw (white's die, black's die,
    never equal) and the dice of the ``turns`` rolls thrown after it."""
    thrown = _dice(Rules.of("long"), seed, pairs)  # the rolls after the opening, either game
    rolls = np.stack([thrown.roll(np.arange(pairs), t) for t in range(turns)], axis=1) \
        if turns else np.empty((pairs, 0, 2), dtype=np.int8)
    return thrown.opening, rolls


def play_match(rules: Rules, a: Player, b: Player, games: int, seed: int,
               parallel: int = 200, progress: Optional[Callable[[int, int], None]] = None
               ) -> Result:
    """``games`` (even) games of a against b (see the module docstring); ``progress(done,
    total)`` after each batch of games."""
    rules, games, seed, parallel = _checked(rules, a, b, games, "games", seed, parallel,
                                            progress)
    pairs = games // 2
    thrown = _dice(rules, seed, pairs)
    points = np.zeros(2 * pairs)
    turns = np.zeros(2 * pairs, dtype=np.int64)
    start = encode([Position.start(rules)])[0]
    cpu = time.process_time()
    for first in range(0, 2 * pairs, parallel):
        ids = np.arange(first, min(first + parallel, 2 * pairs))
        pair = ids // 2
        a_white = ids % 2 == 0
        a_to_move = a_white == thrown.white_first[pair]  # the higher die moves first (T6)
        rows = np.repeat(start[None], len(ids), axis=0)
        live = np.ones(len(ids), dtype=bool)
        for turn in range(MAX_TURNS):
            if not live.any():
                break
            if thrown.first is None:  # long: the first player throws again
                dice_now = thrown.roll(pair, turn)
            else:  # short: the opening throw is the first turn's roll
                dice_now = thrown.roll(pair, turn - 1) if turn else thrown.first[pair]
            for one, mine in ((a, a_to_move), (b, ~a_to_move)):
                chosen = live & mine
                if chosen.any():
                    rows[chosen] = one.choose(rules, rows[chosen], dice_now[chosen])
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


def _checked(rules: object, a: object, b: object, count: object, name: str, seed: object,
             parallel: object, progress: object) -> Tuple[Rules, int, int, int]:
    """The arguments of :func:`play_match` and :func:`play_cube_matches` checked: the rules,
    two players, an even count of games or matches (pairs with the same dice), the seed,
    ``parallel`` and ``progress``."""
    for side, one in (("a", a), ("b", b)):
        if not isinstance(one, Player):
            raise FastNardyError(f"{side} must be a fastnardy.play.players.Player, not "
                                 f"{one!r}")
    counted = integer(count)
    if counted is None or counted < 2 or counted % 2 or counted > checks.MAX_ITEMS:
        raise FastNardyError(f"{name} must be an even number from 2 to {checks.MAX_ITEMS} "
                             f"(pairs with the same dice), not {count!r}")
    checks.callback(progress)
    return (Rules.of(rules), counted, checks.number(seed, "seed", 0),
            checks.number(parallel, "parallel", 1, checks.MAX_ITEMS))


def interval(values: npt.ArrayLike) -> Tuple[float, float]:
    """Mean and 1.96 standard errors of per-pair means (NaN for a single pair): ``values``
    one number per game, games 2k and 2k + 1 a pair."""
    array = checks.array(values, "values")
    if array.ndim != 1 or len(array) < 2 or len(array) % 2 or array.dtype.kind not in "biuf":
        raise FastNardyError(f"values must be numbers, one per game of pairs of games (an "
                             f"even count of 2 or more), not {array.dtype} {array.shape}")
    pairs = array.astype(float).reshape(-1, 2).mean(axis=1)
    if len(pairs) < 2:
        return float(pairs.mean()), math.nan
    return float(pairs.mean()), float(1.96 * pairs.std(ddof=1) / np.sqrt(len(pairs)))


def network_spec(spec: str, game: str, weights: Optional[str] = None
                 ) -> Optional[Tuple[Evaluator, int]]:
    """The evaluator and plies that a network player's ``spec`` names for ``game``: ``net``
    (the shipped evaluator, or ``weights``) or ``FILE.npz``, then ``:P`` (plies, 0 to 2;
    default 0) and ``:int16`` or ``:float`` (its arithmetic, default float), in that order;
    None for a spec of another kind."""
    body, _, arithmetic = spec.rpartition(":")
    if not body or arithmetic not in ARITHMETICS:
        body, arithmetic = spec, "float"
    path, _, plies = body.rpartition(":") if ":" in body else (body, ":", "0")
    if plies not in ("0", "1", "2") or not (path == "net" or path.endswith(".npz")):
        return None
    source = weights if path == "net" and weights else (game if path == "net" else path)
    network = Evaluator.load(source, arithmetic)
    if network.game != game:
        raise FastNardyError(f"{spec}: the evaluator is for {network.game} nardy, not {game}")
    return network, int(plies)


def player(spec: str, game: str, seed: int, weights: Optional[str] = None) -> Player:
    """The player ``spec`` names (module docstring) for ``game``; ``weights`` replaces the
    shipped evaluator of ``net:P``."""
    spec, game = checks.text(spec, "player"), Rules.of(game).game
    seed = checks.number(seed, "seed", 0)
    if spec == "random":
        return Random(seed)
    if spec == "greedy":
        return Greedy()
    named = network_spec(spec, game, weights)
    if named is not None:
        return Network(*named, spec)
    if spec.startswith("gnubg:"):
        if game != "short":
            raise FastNardyError("GNU Backgammon plays short nardy (backgammon) only")
        setting, _, depth = spec[6:].partition(":")
        if depth in ("", "0", "1", "2"):
            return Gnubg(setting, plies=int(depth or 0))
    raise FastNardyError(f"unknown player {spec!r}: random, greedy, net[:PLIES][:int16] "
                         f"(PLIES 0-2), FILE.npz[:PLIES][:int16] or "
                         f"gnubg:beginner|expert[:PLIES] (0-2)")


@contextmanager
def _players(a: str, b: str, game: str, seed: int, weights: Optional[str]
             ) -> Iterator[Tuple[Player, Player]]:
    """Players ``a`` (seeded ``seed``) and ``b`` (``seed + 1``), both closed afterwards (a
    gnubg process), the first also when the second cannot be made."""
    first = player(a, game, seed, weights)
    try:
        second = player(b, game, seed + 1, weights)
    except BaseException:
        first.close()
        raise
    try:
        yield first, second
    finally:
        first.close()
        second.close()


def match(game: object, a: str, b: str, games: int, seed: int, *,
          weights: Optional[str] = None, parallel: int = 200,
          progress: Optional[Callable[[int, int], None]] = None) -> Dict[str, object]:
    """Play ``games`` (even, 2 or more) seeded paired games of player ``a`` against ``b``;
    a's wins and points a game with their 95% intervals."""
    rules = Rules.of(game)
    _checked(rules, Greedy(), Greedy(), games, "games", seed, parallel, progress)
    with _players(a, b, rules.game, seed, weights) as (first, second):
        result = play_match(rules, first, second, games, seed, parallel, progress)
    ppg, ppg_half = interval(result.points)
    wins, wins_half = interval((result.points > 0).astype(float))
    row: Dict[str, object] = {
        "game": rules.game, "a": a, "b": b, "games": int(len(result.points)),
        "unfinished": int((result.turns == 0).sum()), "seed": seed,
        "a wins": round(wins, 4), "a wins 95%": _half(wins_half),
        "a points/game": round(ppg, 4), "points 95%": _half(ppg_half),
        "cpu s": round(result.seconds, 1),
        "games/s": round(len(result.points) / max(result.seconds, 1e-9), 1)}
    for side in (first, second):
        if isinstance(side, Gnubg):
            row["gnubg wall s"] = round(side.seconds, 1)
    return row


class CubeResult(NamedTuple):
    """Matches (or money games) with the cube: per match whether a won it (1, 0; -1 when a
    game ran past MAX_TURNS), a's points minus b's, its games; the offers, takes and drops
    of each player (a's, b's) and this process's CPU seconds."""

    won: npt.NDArray[np.int8]
    points: npt.NDArray[np.float64]
    games: npt.NDArray[np.int64]
    offers: Tuple[int, int]
    takes: Tuple[int, int]
    drops: Tuple[int, int]
    seconds: float
    first: Any = None  # match 0's Match (or money Game), once it is over


def play_cube_matches(rules: Rules, a: Player, b: Player, matches: int, length: int,
                      seed: int, parallel: int = 100, met: "Optional[MatchEquityTable]" = None,
                      progress: Optional[Callable[[int, int], None]] = None) -> CubeResult:
    """``matches`` (even) matches to ``length`` points of a against b with the cube, or
    with ``length`` 0 as many money games with the cube, played by :class:`fastnardy.Match`
    and :class:`fastnardy.Game` (the rules' referee: C1-C8, T6 in every game), ``parallel``
    at a time in batches. Before each roll the side to move offers when its
    :meth:`~fastnardy.play.players.Player.cube_equities` make doubling proper (double, take
    and double, pass both at least no double) and its cube may gain (C2, C6, C7); the other
    takes when taking is no worse for it by its own equities; each plays its turn by
    :meth:`~fastnardy.play.players.Player.choose_cubeful`. Matches 2k and 2k + 1 throw the
    same dice game by game (seed + k), a white in the first; ``met`` is the table the
    networks value match scores with (the game's own unless given)."""
    from ..analysis.cube import Cube, shipped_met
    from ..analysis.met import MatchEquityTable

    rules, matches, seed, parallel = _checked(rules, a, b, matches, "matches", seed,
                                              parallel, progress)
    length = checks.number(length, "length", 0, 64)
    if met is not None and not isinstance(met, MatchEquityTable):
        raise FastNardyError(f"met must be a MatchEquityTable or None, not {met!r}")
    table = met if met is not None or not length else shipped_met(rules.game)
    won = np.full(matches, -1, dtype=np.int8)
    points = np.zeros(matches)
    games = np.zeros(matches, dtype=np.int64)
    offers, takes, drops = [0, 0], [0, 0], [0, 0]
    first: List[Any] = []
    cpu = time.process_time()
    started = 0
    slots: List[Tuple[int, Any]] = []  # (match id, Match or Game)

    def start() -> None:
        nonlocal started
        while len(slots) < parallel and started < matches:
            pair_seed = seed + started // 2
            names = ("a", "b") if started % 2 == 0 else ("b", "a")
            slot = Match(rules, length, pair_seed, players=names) if length else \
                Game(rules, pair_seed, players=names)
            slots.append((started, slot))
            started += 1

    def finish(index: int, slot: Any, complete: bool) -> None:
        if index == 0:
            first.append(slot)
        a_white = slot.players[0] == "a"
        if length:
            white, black = slot.score
            mine, theirs = (white, black) if a_white else (black, white)
            games[index] = len(slot.games)
            if complete:
                won[index] = int(slot.winner == (WHITE if a_white else BLACK))
        else:
            outcome = slot.outcome()
            mine = theirs = 0
            games[index] = 1
            if complete:
                assert outcome is not None
                mine, theirs = (outcome.points, 0) if (outcome.winner == WHITE) == a_white \
                    else (0, outcome.points)
                won[index] = int(mine > 0)
        points[index] = mine - theirs

    start()
    while slots:
        current = [(index, slot, slot.game if length else slot) for index, slot in slots]
        # the offers (C2): the side to move's player, then the other's answer
        cubes = [Cube.of_game(game, slot if length else None) for _, slot, game in current]
        a_moves = np.array([(game.position.turn == WHITE) == (slot.players[0] == "a")
                            for _, slot, game in current])
        may = np.array([game.may_offer() and cube.may_offer
                        for (_, _, game), cube in zip(current, cubes)])
        before = encode([game.position for _, _, game in current])
        doubles = np.zeros(len(current), dtype=bool)
        for one, mine in ((a, a_moves), (b, ~a_moves)):
            asked = np.flatnonzero(may & mine)
            if len(asked):
                seen = one.cube_equities(rules, before[asked], [cubes[i] for i in asked],
                                         table)
                if seen is not None:
                    doubles[asked] = (seen[:, 1] >= seen[:, 0]) & (seen[:, 2] >= seen[:, 0])
        taken = np.ones(len(current), dtype=bool)
        for one, mine in ((b, a_moves), (a, ~a_moves)):  # the other side answers
            asked = np.flatnonzero(doubles & mine)
            if len(asked):
                seen = one.cube_equities(rules, before[asked], [cubes[i] for i in asked],
                                         table)
                if seen is not None:
                    taken[asked] = seen[:, 1] <= seen[:, 2]
        for doubled in np.flatnonzero(doubles).tolist():
            game, offerer = current[doubled][2], 0 if a_moves[doubled] else 1  # 0: a, 1: b
            game.offer()
            offers[offerer] += 1
            if taken[doubled]:
                game.take()
                takes[1 - offerer] += 1
            else:
                game.drop()
                drops[1 - offerer] += 1
        # the turns, each game with its cube after the offers
        playing = [i for i, (_, _, game) in enumerate(current) if not game.is_over()]
        if playing:
            dice = np.array([current[i][2].dice for i in playing], dtype=np.int8)
            rows = encode([current[i][2].position for i in playing])
            after = [Cube.of_game(current[i][2], current[i][1] if length else None)
                     for i in playing]
            chosen = np.empty_like(rows)
            for one, mine in ((a, a_moves[playing]), (b, ~a_moves[playing])):
                at = np.flatnonzero(mine)
                if len(at):
                    chosen[at] = one.choose_cubeful(rules, rows[at], dice[at],
                                                    [after[j] for j in at], table)
            for k, i in enumerate(playing):
                game = current[i][2]
                turns = game.legal_turns()
                same = np.flatnonzero((encode([t.position for t in turns]) == chosen[k])
                                      .all(axis=1))
                game.play(turns[int(same[0])])
        # finished games and matches
        kept: List[Tuple[int, Any]] = []
        for index, slot, game in current:
            if not game.is_over() and len(game.history) < MAX_TURNS:
                kept.append((index, slot))
            elif not game.is_over():  # past MAX_TURNS: the match is left unfinished
                finish(index, slot, False)
            elif length and not slot.is_over():
                slot.next_game()
                kept.append((index, slot))
            else:
                finish(index, slot, True)
                if progress is not None:
                    progress(int((won >= 0).sum()), matches)
        slots[:] = kept
        start()
    return CubeResult(won, points, games, (offers[0], offers[1]), (takes[0], takes[1]),
                      (drops[0], drops[1]), time.process_time() - cpu,
                      first[0] if first else None)


def _half(width: float) -> Optional[float]:
    """An interval's half width for JSON: None for a single pair."""
    return None if math.isnan(width) else round(width, 4)


def cube_match(game: object, a: str, b: str, matches: int, length: int, seed: int, *,
               weights: Optional[str] = None, parallel: int = 100,
               met: "Optional[MatchEquityTable]" = None,
               progress: Optional[Callable[[int, int], None]] = None,
               record: Optional[Callable[[Any], None]] = None) -> Dict[str, object]:
    """Play ``matches`` (even, 2 or more) seeded paired matches to ``length`` points (0:
    money games) of player ``a`` against ``b`` with the cube (:func:`play_cube_matches`);
    a's match wins and points with their 95% intervals, and each side's offers, takes and
    drops. ``record`` is called with match 0's :class:`fastnardy.Match` (or money
    :class:`fastnardy.Game`), its players named a and b."""
    rules = Rules.of(game)
    _checked(rules, Greedy(), Greedy(), matches, "matches", seed, parallel, progress)
    length = checks.number(length, "length", 0, 64)
    checks.callback(record, "record")
    with _players(a, b, rules.game, seed, weights) as (first, second):
        result = play_cube_matches(rules, first, second, matches, length, seed, parallel,
                                   met, progress)
    if record is not None and result.first is not None:
        record(result.first)
    done = result.won >= 0
    wins, wins_half = interval(np.where(done, result.won, 0.5).astype(float))
    mean, half = interval(result.points)
    return {"game": rules.game, "a": a, "b": b, "length": length,
            "matches": matches, "unfinished": int((~done).sum()), "seed": seed,
            "a wins": round(wins, 4), "a wins 95%": _half(wins_half),
            ("a points/game" if not length else "a points - b's a match"): round(mean, 4),
            "points 95%": _half(half), "games": int(result.games.sum()),
            "a offers, takes, drops": [result.offers[0], result.takes[0], result.drops[0]],
            "b offers, takes, drops": [result.offers[1], result.takes[1], result.drops[1]],
            "cpu s": round(result.seconds, 1)}
