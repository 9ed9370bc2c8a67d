"""Duels: seeded paired games between two players (``fastnardy match``; bench/strength/strength.py's
harness): wins and points a game with 95% intervals, and matches to N points (or money games)
with the cube.

The players are made from their settings by :func:`fastnardy.play.players.player` (``random``,
``greedy``, ``net:P``, ``FILE.npz:P``, either with ``:float`` or ``:int16``,
``gnubg:PRESET[:P]`` …, the one player protocol). Games are played ``parallel`` at a time in
numpy batches (one ``batch.expand`` per player per step). Game ``g`` draws its dice from stream
``g // 2`` of the seed (:class:`fastnardy.basics.DiceStream`, the kernel's and Game's): games
``2k`` and ``2k + 1`` see the same dice, ``a`` white in the first and black in the second, so
the luck of the dice largely cancels in each pair. The T6 opening: each side throws one die,
ties thrown again; in short nardy the higher plays those two numbers, in long nardy it then
throws both dice. Games are scored by L10 / S9 without a cube. A share of wins has Wilson's 95%
score interval (:func:`wilson`), which stays within 0 to 100% and is not empty at either end
(100 wins of 100: 96.3% to 100%); it counts the games as independent, while the dice a pair
shares usually make the true spread of wins narrower. Points a game have the mean's 95%
interval, +- 1.96 standard errors over the pairs (:func:`interval`: the two games of a pair are
not independent).
"""

from __future__ import annotations

import dataclasses
import math
import time
from typing import Callable, Dict, List, NamedTuple, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

from .. import checks
from ..basics import BLACK, MAX_GAME_TURNS, WHITE, DiceStream, dice, dice_states
from ..batch import encode
from ..errors import FastNardyError, integer
from ..game import Game, Match
from ..notation import format_rules
from ..position import Position
from ..rules import Rules
from ..search.cubeful import Cube
from ..search.met import MatchEquityTable
from ..search.setting import Setting, setting as as_setting
from .games import play as games_play
from .players import Player, player

__all__ = ["CubeDuel", "CubeResult", "Duel", "Interval", "Result", "Share", "cube_duel", "duel",
           "interval", "play_cube_matches", "play_games", "wilson"]


class Result(NamedTuple):
    """Games of a duel."""

    points: npt.NDArray[np.float64]
    """a's points in each game: + won, - lost, 0 unfinished."""
    turns: npt.NDArray[np.int64]
    """The turns of each game (0 unfinished)."""
    seconds: float
    """This process's CPU seconds."""


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


def play_games(rules: Rules, a: Player, b: Player, games: int, seed: int,
               parallel: int = 200, progress: Optional[Callable[[int, int], None]] = None
               ) -> Result:
    """``games`` (even) games of a against b (see the module docstring); ``progress(done,
    total)`` after each batch of games."""
    _sides(a, b)
    rules, games, seed, parallel = _checked(rules, games, "games", seed, parallel, progress)
    pairs = games // 2
    thrown = _dice(rules, seed, pairs)
    points = np.zeros(2 * pairs)
    turns = np.zeros(2 * pairs, dtype=np.int64)
    start = encode([Position.start(rules)])
    cpu = time.process_time()
    for first in range(0, 2 * pairs, parallel):
        ids = np.arange(first, min(first + parallel, 2 * pairs))
        pair = ids // 2

        def roll(turn: int, at: npt.NDArray[np.int64]) -> npt.NDArray[np.int8]:
            if thrown.first is None:  # long: the first player throws again
                return thrown.roll(pair[at], turn)
            # short: the opening throw is the first turn's roll
            return thrown.roll(pair[at], turn - 1) if turn else thrown.first[pair[at]]

        a_white = ids % 2 == 0
        done = games_play(rules, np.repeat(start, len(ids), axis=0),
                          a_white == thrown.white_first[pair], (a, b), roll)
        points[ids], turns[ids] = done.points, done.turns
        if progress is not None:
            progress(int(ids[-1]) + 1, 2 * pairs)
    return Result(points, turns, time.process_time() - cpu)


def _checked(rules: object, count: object, name: str, seed: object, parallel: object,
             progress: object) -> Tuple[Rules, int, int, int]:
    """The arguments of a duel checked: the rules, an even count of games or matches (pairs
    with the same dice), the seed, ``parallel`` and ``progress``."""
    counted = integer(count)
    if counted is None or counted < 2 or counted % 2 or counted > checks.MAX_ITEMS:
        raise FastNardyError(f"{name} must be an even number from 2 to {checks.MAX_ITEMS} "
                             f"(pairs with the same dice), not {count!r}")
    checks.callback(progress)
    return (Rules.of(rules), counted, checks.number(seed, "seed", 0),
            checks.number(parallel, "parallel", 1, checks.MAX_ITEMS))


def _sides(a: object, b: object) -> None:
    """Two players."""
    for side, one in (("a", a), ("b", b)):
        if not isinstance(one, Player):
            raise FastNardyError(f"{side} must be a fastnardy.play.players.Player, not "
                                 f"{one!r}")


class Interval(NamedTuple):
    """A mean over pairs of games and its 95% interval."""

    mean: float
    """The mean."""
    half: Optional[float]
    """Half the width of its 95% interval (1.96 standard errors); None for a single
    pair."""

    def as_dict(self) -> Dict[str, Optional[float]]:
        """For JSON, to 4 places."""
        return {"mean": round(self.mean, 4),
                "half": None if self.half is None else round(self.half, 4)}


def interval(values: npt.ArrayLike) -> Interval:
    """The mean and 95% interval of per-pair means: ``values`` one number per game, games
    2k and 2k + 1 a pair."""
    array = checks.array(values, "values")
    if array.ndim != 1 or len(array) < 2 or len(array) % 2 or array.dtype.kind not in "biuf":
        raise FastNardyError(f"values must be numbers, one per game of pairs of games (an "
                             f"even count of 2 or more), not {array.dtype} {array.shape}")
    pairs = array.astype(float).reshape(-1, 2).mean(axis=1)
    if len(pairs) < 2:
        return Interval(float(pairs.mean()), None)
    return Interval(float(pairs.mean()), float(1.96 * pairs.std(ddof=1) / np.sqrt(len(pairs))))


class Share(NamedTuple):
    """A share of wins and its 95% interval (:func:`wilson`)."""

    mean: float
    """The share won, 0 to 1."""
    low: float
    """The interval's lower end."""
    high: float
    """The interval's upper end."""

    def text(self) -> str:
        """In percent: ``54.0% (95% interval 44.3% to 63.4%)``."""
        return f"{self.mean:.1%} (95% interval {self.low:.1%} to {self.high:.1%})"

    def as_dict(self) -> Dict[str, float]:
        """For JSON, to 4 places."""
        return {"mean": round(self.mean, 4), "low": round(self.low, 4),
                "high": round(self.high, 4)}


Z95 = 1.96  # the normal quantile of a two-sided 95% interval


def wilson(wins: float, games: int) -> Share:
    """The share ``wins / games`` with Wilson's 95% score interval: the shares p whose
    binomial spread puts ``wins`` within 1.96 standard errors. ``wins`` may hold halves (an
    unfinished match counts a half); ``games`` is 1 or more."""
    count = checks.number(games, "games", 1, checks.MAX_ITEMS)
    won = checks.real(wins, "wins", 0.0, float(count))
    share = won / count
    z2 = Z95 * Z95 / count
    centre = (share + z2 / 2) / (1 + z2)
    half = Z95 / (1 + z2) * math.sqrt(share * (1 - share) / count + z2 / (4 * count))
    return Share(share, max(0.0, centre - half), min(1.0, centre + half))


@dataclasses.dataclass(frozen=True)
class Duel:
    """:func:`duel`'s answer: games of a against b without the cube."""

    rules: Rules
    """The rules played."""
    a: Setting
    """The first player's setting."""
    b: Setting
    """The second player's setting."""
    seed: int
    """The seed of the dice."""
    result: Result
    """Each game's points and turns, and the CPU seconds."""
    engine_seconds: float = 0.0
    """The wall seconds GNU Backgammon's processes took (a gnubg player's)."""

    @property
    def games(self) -> int:
        """How many games."""
        return len(self.result.points)

    @property
    def unfinished(self) -> int:
        """Games still going after MAX_GAME_TURNS turns (scored 0)."""
        return int((self.result.turns == 0).sum())

    @property
    def wins(self) -> Share:
        """a's share of the games won."""
        return wilson(float((self.result.points > 0).sum()), self.games)

    @property
    def points(self) -> Interval:
        """a's points a game (+ won, - lost)."""
        return interval(self.result.points)

    def as_dict(self) -> Dict[str, object]:
        """For JSON."""
        seconds = self.result.seconds
        return {"game": self.rules.game, "rules": format_rules(self.rules), "a": str(self.a),
                "b": str(self.b), "games": self.games, "unfinished": self.unfinished,
                "seed": self.seed, "wins": self.wins.as_dict(),
                "points": self.points.as_dict(), "cpu_seconds": round(seconds, 1),
                "games_per_second": round(self.games / max(seconds, 1e-9), 1),
                "engine_seconds": round(self.engine_seconds, 1)}


def duel(game: object, a: Union[Setting, str], b: Union[Setting, str], games: int,
         seed: int, *, parallel: int = 200,
         progress: Optional[Callable[[int, int], None]] = None) -> Duel:
    """Play ``games`` (even, 2 or more) seeded paired games of the player of setting ``a``
    against ``b``'s (a seeded ``seed``, b ``seed + 1`` where random)."""
    rules = Rules.of(game)  # each setting with its precision named, as its player is
    first, second = as_setting(a).resolved(rules), as_setting(b).resolved(rules)
    _checked(rules, games, "games", seed, parallel, progress)
    with player(first, rules, seed) as one, player(second, rules, seed + 1) as other:
        result = play_games(rules, one, other, games, seed, parallel, progress)
        engine = sum(getattr(side, "seconds", 0.0) for side in (one, other))
    return Duel(rules, first, second, seed, result, engine)


class CubeResult(NamedTuple):
    """Matches (or money games) with the cube."""

    won: npt.NDArray[np.int8]
    """Per match, whether a won it: 1, 0; -1 when a game ran past MAX_GAME_TURNS."""
    points: npt.NDArray[np.float64]
    """Per match, a's points less b's."""
    games: npt.NDArray[np.int64]
    """Per match, its games."""
    offers: Tuple[int, int]
    """The offers of a and of b (C2)."""
    takes: Tuple[int, int]
    """The takes of a and of b."""
    drops: Tuple[int, int]
    """The drops of a and of b."""
    seconds: float
    """This process's CPU seconds."""
    first: Union[Match, Game, None] = None
    """Match 0 (a money Game with ``length`` 0), once it is over."""


def play_cube_matches(rules: Rules, a: Player, b: Player, matches: int, length: int,
                      seed: int, parallel: int = 100, met: Optional[MatchEquityTable] = None,
                      progress: Optional[Callable[[int, int], None]] = None) -> CubeResult:
    """``matches`` (even) matches to ``length`` points of a against b with the cube, or
    with ``length`` 0 as many money games with the cube, played by :class:`fastnardy.Match`
    and :class:`fastnardy.Game` (the rules' referee: C1-C8, T6 in every game), ``parallel``
    at a time in batches. Before each roll the side to move offers when its
    :meth:`~fastnardy.play.players.Player.cube_equities` make doubling proper (double, take
    and double, pass both at least no double) and its cube may gain (C2, C6, C7); the other
    takes when taking is no worse for it by its own equities; each plays its turn by
    :meth:`~fastnardy.play.players.Player.choose` with its cube in play. Matches 2k and
    2k + 1 throw the same dice game by game (seed + k), a white in the first, the players
    named by their settings; ``met`` is the table of the matches' cube contexts (the game's
    own unless given)."""
    _sides(a, b)
    rules, matches, seed, parallel = _checked(rules, matches, "matches", seed, parallel,
                                              progress)
    length = checks.number(length, "length", 0, 64)
    if met is not None and not isinstance(met, MatchEquityTable):
        raise FastNardyError(f"met must be a MatchEquityTable or None, not {met!r}")
    won = np.full(matches, -1, dtype=np.int8)
    points = np.zeros(matches)
    games = np.zeros(matches, dtype=np.int64)
    offers, takes, drops = [0, 0], [0, 0], [0, 0]
    first: List[Union[Match, Game]] = []
    cpu = time.process_time()
    started = 0
    slots: List[Tuple[int, Union[Match, Game]]] = []  # (match id, Match or Game)

    def start() -> None:
        nonlocal started
        while len(slots) < parallel and started < matches:
            pair_seed = seed + started // 2
            names = (a.name, b.name) if started % 2 == 0 else (b.name, a.name)
            slot: Union[Match, Game] = Match(rules, length, pair_seed, players=names) \
                if length else Game(rules, pair_seed, players=names)
            slots.append((started, slot))
            started += 1

    def game_of(slot: Union[Match, Game]) -> Game:
        return slot.game if isinstance(slot, Match) else slot

    def cube_of(slot: Union[Match, Game]) -> Cube:
        return Cube.of_game(game_of(slot), slot if isinstance(slot, Match) else None
                            )._replace(met=met)

    def finish(index: int, slot: Union[Match, Game], complete: bool) -> None:
        if index == 0:
            first.append(slot)
        a_white = index % 2 == 0
        if isinstance(slot, Match):
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
        current = [(index, slot, game_of(slot)) for index, slot in slots]
        # the offers (C2): the side to move's player, then the other's answer
        cubes = [cube_of(slot) for _, slot, _ in current]
        a_moves = np.array([(game.position.turn == WHITE) == (index % 2 == 0)
                            for index, _, game in current])
        may = np.array([game.may_offer() and cube.may_offer
                        for (_, _, game), cube in zip(current, cubes)])
        before = encode([game.position for _, _, game in current])
        doubles = np.zeros(len(current), dtype=bool)
        for one, mine in ((a, a_moves), (b, ~a_moves)):
            asked = np.flatnonzero(may & mine)
            if len(asked):
                doubles[asked] = one.doubles(rules, before[asked], [cubes[i] for i in asked])
        taken = np.ones(len(current), dtype=bool)
        for one, mine in ((b, a_moves), (a, ~a_moves)):  # the other side answers
            asked = np.flatnonzero(doubles & mine)
            if len(asked):
                taken[asked] = one.takes(rules, before[asked], [cubes[i] for i in asked])
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
            after = [cube_of(current[i][1]) for i in playing]
            chosen = np.empty_like(rows)
            for one, mine in ((a, a_moves[playing]), (b, ~a_moves[playing])):
                at = np.flatnonzero(mine)
                if len(at):
                    chosen[at] = one.choose(rules, rows[at], dice[at], [after[j] for j in at])
            for k, i in enumerate(playing):
                game = current[i][2]
                turns = game.legal_turns()
                same = np.flatnonzero((encode([t.position for t in turns]) == chosen[k])
                                      .all(axis=1))
                game.play(turns[int(same[0])])
        # finished games and matches
        kept: List[Tuple[int, Union[Match, Game]]] = []
        for index, slot, game in current:
            if not game.is_over() and len(game.history) < MAX_GAME_TURNS:
                kept.append((index, slot))
            elif not game.is_over():  # past MAX_GAME_TURNS: the match is left unfinished
                finish(index, slot, False)
            elif isinstance(slot, Match) and not slot.is_over():
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


@dataclasses.dataclass(frozen=True)
class CubeDuel:
    """:func:`cube_duel`'s answer: matches (or money games) of a against b with the cube."""

    rules: Rules
    """The rules played."""
    a: Setting
    """The first player's setting."""
    b: Setting
    """The second player's setting."""
    length: int
    """The matches' length; 0: money games."""
    seed: int
    """The seed of the dice."""
    result: CubeResult
    """Each match's result, the cube actions and the CPU seconds."""

    @property
    def matches(self) -> int:
        """How many matches (money games)."""
        return len(self.result.won)

    @property
    def unfinished(self) -> int:
        """Matches with a game still going after MAX_GAME_TURNS turns."""
        return int((self.result.won < 0).sum())

    @property
    def wins(self) -> Share:
        """a's share of the matches won (an unfinished one counts a half)."""
        return wilson(float(np.where(self.result.won >= 0, self.result.won, 0.5).sum()),
                      self.matches)

    @property
    def points(self) -> Interval:
        """a's points less b's, a match (a money game)."""
        return interval(self.result.points)

    def as_dict(self) -> Dict[str, object]:
        """For JSON."""
        result = self.result
        return {"game": self.rules.game, "rules": format_rules(self.rules), "a": str(self.a),
                "b": str(self.b), "length": self.length, "matches": self.matches,
                "unfinished": self.unfinished, "seed": self.seed,
                "wins": self.wins.as_dict(), "points": self.points.as_dict(),
                "games": int(result.games.sum()),
                "a_cube": dict(zip(("offers", "takes", "drops"),
                                   (result.offers[0], result.takes[0], result.drops[0]))),
                "b_cube": dict(zip(("offers", "takes", "drops"),
                                   (result.offers[1], result.takes[1], result.drops[1]))),
                "cpu_seconds": round(result.seconds, 1)}


def cube_duel(game: object, a: Union[Setting, str], b: Union[Setting, str], matches: int,
              length: int, seed: int, *, parallel: int = 100,
              met: Optional[MatchEquityTable] = None,
              progress: Optional[Callable[[int, int], None]] = None) -> CubeDuel:
    """Play ``matches`` (even, 2 or more) seeded paired matches to ``length`` points (0:
    money games) of the player of setting ``a`` against ``b``'s with the cube
    (:func:`play_cube_matches`); match 0 is the answer's ``result.first``."""
    rules = Rules.of(game)  # each setting with its precision named, as its player is
    first, second = as_setting(a).resolved(rules), as_setting(b).resolved(rules)
    _checked(rules, matches, "matches", seed, parallel, progress)
    length = checks.number(length, "length", 0, 64)
    with player(first, rules, seed) as one, player(second, rules, seed + 1) as other:
        result = play_cube_matches(rules, one, other, matches, length, seed, parallel, met,
                                   progress)
    return CubeDuel(rules, first, second, length, seed, result)
