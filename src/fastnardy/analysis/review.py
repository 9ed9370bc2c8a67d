"""Luck and the analysis of recorded games, as GNU Backgammon gives them.

* :func:`luck`: gnubg's luck of a roll, at 0 ply: the value of the best turn of the roll
  rolled minus the mean of that over the 21 rolls (T5 weights).
* :func:`analyse_game` / :func:`analyse`: per turn the played and the best turn, the equity
  lost (>= 0), gnubg's marks (doubtful >= 0.04, bad >= 0.08, very bad >= 0.16) and the
  roll's luck; per cube decision (:class:`CubeReview`: each chance the side to move had to
  offer, each offer and each answer, C2) the proper action, the equity lost and gnubg's kind
  of error (missed double, wrong double, wrong take, wrong pass); per side the chequer, cube
  and overall error rates and gnubg's rating of each.

By default the analysis is **cubeful**, as GNU Backgammon's: turns are valued by
:func:`fastnardy.analysis.evaluation.hint` with the cube in play (C1, C2) and the match
score (C6, C7: the Crawford game is the first at which a player needs 1 point), losses are
normalised money equity (EMG, in stakes) and in a match also match-winning chances (MWC);
a game of a fastnardy record is money play, those of a fastnardy match record are the
match's. ``cubeful=False`` gives the cubeless analysis
(points, no cube decisions). gnubg's counting: a turn is unforced when it had more than one
legal choice; a cube decision counts when an action was taken or when doubling is not a
very bad error (its ``isCloseCubedecision``: the proper action's equity less that of double,
take capped at 1, under 0.16); the chequer rate is per unforced turn, the cube rate per
counted decision, the overall rate per both; the cube is not judged in a game's first
position.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

from .. import _features, _kernel, checks
from ..basics import BLACK, WHITE, Roll
from ..batch import PROBABILITY, ChanceNodes, chance_expand, encode, pips, roll_index
from ..errors import FastNardyError, IllegalTurnError
from ..formats.games import match_file
from ..game import Game, Match
from ..position import Position, Turn
from ..record import RecordedCube, GameRecord, is_match_record, read_match, read_record
from ..search.cubeful import Cube, CubeDecision, mwc_scale
from ..search.met import MatchEquityTable
from ..search.setting import Setting, setting as as_setting
from ..search.tree import Search
from .evaluation import Candidate, cube_decision, hint

__all__ = ["MARKS", "LUCK_MARKS", "LUCK_RATINGS", "RATINGS", "CLOSE_CUBE", "CANDIDATES",
           "CUBE_PLAYS", "CUBE_ERRORS", "luck", "mark", "luck_mark", "luck_rating", "rating",
           "AnalysedTurn", "CubeReview", "Analysis", "analyse_game", "analyse", "roll_luck"]


# gnubg's thresholds of a chequer-play error, in points lost (its arSkillLevel)
MARKS = (("very bad", 0.16), ("bad", 0.08), ("doubtful", 0.04))
# gnubg's luck marks, in points (its arLuckLevel)
LUCK_MARKS = (("very lucky", 0.6), ("lucky", 0.3), ("very unlucky", -0.6), ("unlucky", -0.3))
# gnubg's ratings by error per decision in EMG (its arThrsRating); "Awful!" above the last
RATINGS = (("Supernatural", 0.002), ("World class", 0.005), ("Expert", 0.008),
           ("Advanced", 0.012), ("Intermediate", 0.018), ("Casual player", 0.026),
           ("Beginner", 0.035))
CLOSE_CUBE = 0.16  # gnubg's isCloseCubedecision: doubling is less than a very bad error
CANDIDATES = 5  # the candidates kept with each analysed turn
# gnubg's luck rating of a player's luck per turn, times ten, by the luck marks (its
# getLuckRating, aszLuckRating)
LUCK_RATINGS = {"very lucky": "Go to Las Vegas", "lucky": "Good dice, man!", None: "None",
                "unlucky": "Bad dice, man!", "very unlucky": "Go to bed"}


def luck(position: Position, dice: object, setting: Union[Setting, str, None] = None
         ) -> float:
    """gnubg's luck of ``dice`` for the side to move, at 0 ply of the setting's network: the
    value of its best turn minus the mean of that over the 21 rolls (T5). 0 once the game is
    over."""
    position = checks.position(position, Position)
    roll = _kernel.dice_pair(dice)
    search = as_setting(setting).replace(plies=0).search(position.rules)
    if position.outcome() is not None:
        return 0.0
    return float(roll_luck(search, encode([position]), np.array([roll_index(roll)]))[0][0])


def roll_luck(search: Search, rows: npt.NDArray[np.int8], rolled: npt.NDArray[np.int64]
              ) -> Tuple[npt.NDArray[np.float64], ChanceNodes, npt.NDArray[np.float64]]:
    """gnubg's luck of the roll ``rolled`` (an index into ROLLS) of each row of an unfinished
    game, at 0 ply: its best turn's value less the mean of that over the 21 rolls; with the
    chance nodes of the rows and the 0-ply worth of every child to its mover (what a 0-ply
    player chooses by)."""
    if not isinstance(search, Search):
        raise FastNardyError(f"search must be a fastnardy.search.tree.Search, not {search!r}")
    rows = checks.rows(rows)
    index = checks.array(rolled, "rolled")
    if index.shape != (len(rows),) or index.dtype.kind not in "iu" or (
            index.size and not ((index >= 0) & (index < len(PROBABILITY))).all()):
        raise FastNardyError(f"rolled must be one index into ROLLS (0 to 20) per row, not "
                             f"{index.dtype} {index.shape}")
    if (_features.winners(rows) != 0).any():
        raise IllegalTurnError("T4", "a game of these rows is over: it has no roll")
    node = chance_expand(search.rules, rows)
    worth = search.choose(node.children, node.offsets, 0)
    best = np.maximum.reduceat(worth, node.offsets[:-1]).reshape(-1, len(PROBABILITY))
    lucky: npt.NDArray[np.float64] = best[np.arange(len(rows)), index] - best @ PROBABILITY
    return lucky, node, worth


def mark(loss: float) -> Optional[str]:
    """gnubg's mark of a chequer-play error of ``loss`` points, or None."""
    loss = checks.real(loss, "loss", -math.inf, math.inf)
    return next((name for name, limit in MARKS if loss >= limit), None)


def rating(error_rate: float) -> str:
    """gnubg's rating of an error rate in EMG per decision (0.004: "World class")."""
    error_rate = checks.real(error_rate, "error_rate", -math.inf, math.inf)
    return next((name for name, limit in RATINGS if error_rate < limit), "Awful!")


def luck_rating(rate: float) -> str:
    """gnubg's luck rating of a player's luck per turn (0.04: "Good dice, man!")."""
    return LUCK_RATINGS[luck_mark(10 * checks.real(rate, "rate", -math.inf, math.inf))]


def luck_mark(value: float) -> Optional[str]:
    """gnubg's mark of a roll's luck, or None."""
    value = checks.real(value, "value", -math.inf, math.inf)
    for name, limit in LUCK_MARKS:
        if (limit > 0 and value >= limit) or (limit < 0 and value <= limit):
            return name
    return None


@dataclass(frozen=True)
class AnalysedTurn:
    """One turn of an analysed game: the position before it, the roll, the turn ``played``
    and the ``best`` (Turn), their equities to the mover (cubeful EMG, or cubeless points),
    ``loss`` (>= 0), the number of legal turns, the roll's ``luck`` (cubeless), the ``cube``
    in play from the mover's side (None: cubeless), ``mwc_loss`` (the loss in match-winning
    chance, in a match), the best ``candidates`` (up to five
    :class:`~fastnardy.analysis.evaluation.Candidate`, ranked as
    :func:`~fastnardy.analysis.evaluation.hint` ranks them) and gnubg's ``mark``."""

    game: int
    number: int
    side: str
    position: Position
    roll: Roll
    played: Turn
    best: Turn
    played_equity: float
    best_equity: float
    loss: float
    choices: int
    luck: float
    cube: Optional[Cube] = None
    mwc_loss: float = 0.0
    candidates: Tuple[Candidate, ...] = ()
    mark: Optional[str] = field(init=False)

    def __post_init__(self) -> None:
        choices = checks.number(self.choices, "choices", 0)
        object.__setattr__(self, "mark", mark(self.loss) if choices > 1 else None)

    @property
    def pips(self) -> Tuple[int, int]:
        """The pip counts before the turn: the mover's, then the other's."""
        mine, theirs = pips(encode([self.position]))[0]
        return int(mine), int(theirs)

    @property
    def forced(self) -> bool:
        """A pass or the only legal turn (T3): not counted in the error rate."""
        return self.choices == 1

    def as_dict(self) -> Dict[str, Any]:
        return {"game": self.game, "number": self.number, "side": self.side,
                "position": self.position.to_string(), "dice": list(self.roll),
                "played": str(self.played), "best": str(self.best),
                "played_equity": round(self.played_equity, 6),
                "best_equity": round(self.best_equity, 6), "loss": round(self.loss, 6),
                "forced": self.forced, "mark": self.mark, "luck": round(self.luck, 6),
                "luck_mark": luck_mark(self.luck), "mwc_loss": round(self.mwc_loss, 6),
                "pips": list(self.pips),
                "cube": None if self.cube is None else self.cube.as_dict(),
                "candidates": [c.as_dict() for c in self.candidates]}


# what was done at a cube decision, and gnubg's name of each error
CUBE_PLAYS = ("no double", "double", "take", "pass")
CUBE_ERRORS = ("missed double", "wrong double", "wrong take", "wrong pass")


@dataclass(frozen=True)
class CubeReview:
    """One cube decision of an analysed game (C2), at move ``number`` of the record, after
    ``before`` of the game's turns: ``side`` decided (the side to move for "no double" and "double", its opponent for "take"
    and "pass"), ``position`` (the side to move's, before its roll), ``cube`` from the side
    to move's view, the ``decision`` (:class:`~fastnardy.search.cubeful.CubeDecision`, the
    side to move's view), what was ``played``, the equity lost to the proper action (>= 0,
    EMG, from the decider's side), ``mwc_loss`` in a match, ``close`` (counted: an action
    taken, or doubling not a very bad error), gnubg's ``error`` kind and ``mark``."""

    game: int
    number: int
    before: int
    side: str
    position: Position
    cube: Cube
    decision: CubeDecision
    played: str
    loss: float
    mwc_loss: float
    close: bool
    error: Optional[str] = field(init=False)
    mark: Optional[str] = field(init=False)

    def __post_init__(self) -> None:
        if not isinstance(self.played, str) or self.played not in CUBE_PLAYS:
            raise FastNardyError(f"played must be one of {', '.join(CUBE_PLAYS)}, not "
                                 f"{self.played!r}")
        kind = None
        if checks.real(self.loss, "loss", -math.inf, math.inf) > 0:
            kind = CUBE_ERRORS[CUBE_PLAYS.index(self.played)]
        object.__setattr__(self, "error", kind)
        object.__setattr__(self, "mark", mark(self.loss))

    def as_dict(self) -> Dict[str, Any]:
        return {"game": self.game, "number": self.number, "before": self.before,
                "side": self.side, "position": self.position.to_string(),
                "cube": self.cube.as_dict(),
                "played": self.played, "proper": self.decision.action,
                "loss": round(self.loss, 6), "mwc_loss": round(self.mwc_loss, 6),
                "close": self.close, "error": self.error, "mark": self.mark,
                "decision": self.decision.as_dict()}


def _cube_review(game: int, number: int, before: int, side: str, position: Position,
                 cube: Cube, decision: CubeDecision, played: str, scale: float) -> CubeReview:
    """A CubeReview: the loss from the decision's errors (gnubg's ``updateStatcontext``)."""
    loss = -decision.error["no_double" if played == "no double" else played]
    loss = max(0.0, float(loss))
    close = played != "no double" or \
        decision.optimal - min(decision.double_take, 1.0) < CLOSE_CUBE
    return CubeReview(game, number, before, side, position, cube, decision, played, loss,
                      loss * scale if cube.length else 0.0, close)


@dataclass(frozen=True)
class Analysis:
    """:func:`analyse`'s answer."""

    turns: Tuple[AnalysedTurn, ...]
    """Every analysed turn of every game, in order."""
    players: Tuple[str, str]
    """The players' names: white's, black's."""
    setting: Setting
    """The evaluation setting of the analysis."""
    games: int
    """How many games."""
    cube_decisions: Tuple[CubeReview, ...] = ()
    """Every cube decision of every game (none when cubeless)."""
    length: int = 0
    """The match length; 0: money play."""

    @property
    def plies(self) -> int:
        """The depth of the analysis (its setting's)."""
        return self.setting.plies

    @property
    def cubeful(self) -> bool:
        """Whether it is cubeful (its setting's), in EMG, or cubeless, in points."""
        return self.setting.cubeful

    def side(self, side: str, game: Optional[int] = None) -> Dict[str, Any]:
        """One side's totals (module docstring), over every game or over ``game`` (1, 2 …)
        alone: unforced turns, equity lost and the chequer ``error_rate`` (milli-EMG per
        unforced turn; cubeless milli-points when not cubeful), the marks, the luck (total and
        per turn), the ``cube`` decisions' counts, errors and rate, the
        ``overall_error_rate`` and gnubg's ``ratings``."""
        side = checks.side(side, "side")
        if game is not None:
            game = checks.number(game, "game", 1)
            return replace(self, turns=tuple(t for t in self.turns if t.game == game),
                           cube_decisions=tuple(c for c in self.cube_decisions
                                                if c.game == game)).side(side)
        mine = [t for t in self.turns if t.side == side]
        unforced = [t for t in mine if not t.forced]
        lost = sum(t.loss for t in unforced)
        total_luck = sum(t.luck for t in mine)
        cube = [c for c in self.cube_decisions if c.side == side]
        close = [c for c in cube if c.close]
        cube_lost = sum(c.loss for c in close)
        both = len(unforced) + len(close)
        rates = {"chequer": lost / len(unforced) if unforced else 0.0,
                 "cube": cube_lost / len(close) if close else 0.0,
                 "overall": (lost + cube_lost) / both if both else 0.0}
        return {"name": self.players[side == BLACK], "turns": len(mine),
                "unforced": len(unforced), "equity_lost": round(lost, 6),
                "error_rate": round(1000 * rates["chequer"], 3),
                "mwc_lost": round(sum(t.mwc_loss for t in unforced), 6),
                "marks": {name: sum(t.mark == name for t in unforced) for name, _ in MARKS},
                "luck": round(total_luck, 6),
                "luck_rate": round(1000 * total_luck / len(mine), 3) if mine else 0.0,
                "luck_rating": luck_rating(total_luck / len(mine)) if mine else "N/A",
                "cube": {"decisions": len(cube), "close": len(close),
                         **{plays: sum(c.played == plays for c in cube)
                            for plays in CUBE_PLAYS[1:]},
                         **{kind: sum(c.error == kind for c in close) for kind in CUBE_ERRORS},
                         "equity_lost": round(cube_lost, 6),
                         "mwc_lost": round(sum(c.mwc_loss for c in close), 6),
                         "error_rate": round(1000 * rates["cube"], 3)},
                "overall_error_rate": round(1000 * rates["overall"], 3),
                "ratings": ({kind: rating(rate) if count else "N/A" for (kind, rate), count
                             in zip(rates.items(), (len(unforced), len(close), both))}
                            if self.cubeful else {})}

    def in_order(self) -> Iterator["AnalysedTurn | CubeReview"]:
        """The turns and cube decisions in the order they were made."""
        waiting: Dict[Tuple[int, int], List[CubeReview]] = {}
        for review in self.cube_decisions:
            waiting.setdefault((review.game, review.before), []).append(review)
        played: Dict[int, int] = {}
        for turn in self.turns:
            if turn.game not in played:  # the decisions of earlier games with no turn left
                for key in sorted(k for k in waiting if k[0] < turn.game):
                    yield from waiting.pop(key)
            before = played.get(turn.game, 0)
            played[turn.game] = before + 1
            yield from waiting.pop((turn.game, before), [])
            yield turn
        for key in sorted(waiting):  # an offer dropped after a game's last turn
            yield from waiting[key]

    def scores(self) -> Dict[int, Tuple[int, int]]:
        """The match score (white's, black's) as each game began, by game number (a cubeful
        analysis of a match; 0-0 in money play)."""
        out: Dict[int, Tuple[int, int]] = {}
        for turn in self.turns:
            if turn.game not in out and turn.cube is not None:
                mine, theirs = turn.cube.score
                out[turn.game] = (mine, theirs) if turn.side == WHITE else (theirs, mine)
        return out

    def as_dict(self) -> Dict[str, Any]:
        scores = self.scores()
        return {**self.setting.as_dict(), "games": self.games, "length": self.length,
                "players": {side: self.side(side) for side in (WHITE, BLACK)},
                "per_game": [{"game": number, "score": list(scores.get(number, (0, 0))),
                              "players": {side: self.side(side, number)
                                          for side in (WHITE, BLACK)}}
                             for number in sorted({t.game for t in self.turns})],
                "turns": [t.as_dict() for t in self.turns],
                "cube_decisions": [c.as_dict() for c in self.cube_decisions]}


def _chequer(chosen: Setting, number: int, entry_number: int, before: Position, roll: Roll,
             played: Turn, cube: Optional[Cube]) -> AnalysedTurn:
    """One turn analysed by :func:`~fastnardy.analysis.evaluation.hint`: cubeful under the
    cube, or cubeless (no cube, a cubeless setting)."""
    ranked = hint(before, roll, chosen, cube=cube)

    def value(candidate: Candidate) -> float:
        return candidate.equity if candidate.cubeful is None else candidate.cubeful

    mine = next(c for c in ranked if c.turn.position == played.position)
    played_value = value(mine)
    if mine.plies < chosen.plies:  # a filter dropped it: valued at full depth anyway
        alone = chosen.search(before.rules).rank(encode([played.position]), np.array([0, 1]),
                                                 chosen.plies, ranked.cube)
        played_value = float(alone.worth[0])
    best, best_value = ranked[0].turn, value(ranked[0])
    if played_value > best_value:
        best, best_value = played, played_value
    loss = max(0.0, best_value - played_value)
    scale = mwc_scale(ranked.cube, before.rules.game) if ranked.cube is not None \
        and ranked.cube.length else 0.0
    return AnalysedTurn(number, entry_number, before.turn, before, roll, played, best,
                        played_value, best_value, loss, len(ranked),
                        luck(before, roll, chosen), ranked.cube, loss * scale,
                        tuple(ranked[:CANDIDATES]))


def _walk(record: GameRecord) -> Iterator[Tuple[Game, Any, Optional[Turn], Optional[Roll]]]:
    """The record's actions in order, each with the game just before it (replayed through
    Game's own offer, take, drop and play, so that its stake and cube owner are the
    referee's) and, for a turn, the turn played and its roll. The record is checked first by
    :meth:`fastnardy.Game.from_record`, whose errors name the rule and the line."""
    history = iter(Game.from_record(record).history)
    game = Game.from_position(record.start) if record.start is not None else \
        Game(record.rules, opening=record.opening)
    for action in record.actions():
        if isinstance(action, RecordedCube):
            yield game, action, None, None
            {"double": game.offer, "take": game.take, "drop": game.drop}[action.action]()
            continue
        roll, played = next(history)
        yield game, action, played, roll
        game.dice = roll
        game.play(played)


def analyse_game(record: GameRecord, setting: Union[Setting, str, None] = None, *,
                 number: int = 1, progress: Optional[Callable[[int], None]] = None,
                 cube: Optional[Cube] = None) -> Analysis:
    """Every turn and cube decision of a recorded game (replayed by
    :meth:`fastnardy.Game.from_record`, which names an illegal turn's or offer's rule)
    analysed at the setting (module docstring), as game ``number``; ``progress(1)`` after
    each turn. Cubeful unless the setting is cubeless, under ``cube``: the cube context as
    the game begins, from white's side (its ``length``, ``score`` (white, black),
    ``crawford`` and ``met`` the match's; money play with the rules' cube by default)."""
    if not isinstance(record, GameRecord):
        raise FastNardyError(f"record must be a GameRecord, not {record!r}")
    checks.callback(progress)
    chosen = as_setting(setting).resolved(record.rules)
    chosen.network(record.rules)
    start = Cube.of(cube, record.rules) if chosen.cubeful else None
    first = encode([Position.start(record.rules)])[0]
    offer: Optional[CubeDecision] = None
    turns: List[AnalysedTurn] = []
    cubes: List[CubeReview] = []
    for game, action, played, roll in _walk(record):
        before = game.position
        view = None if start is None else Cube.of_game(game)._replace(
            length=start.length, crawford=start.crawford, jacoby=start.jacoby, met=start.met,
            score=start.score if before.turn == WHITE else start.score[::-1])
        scale = 0.0 if view is None else mwc_scale(view, record.rules.game)
        if view is not None and isinstance(action, RecordedCube):
            if action.action == "double":
                offer = cube_decision(before, view, chosen)
                cubes.append(_cube_review(number, action.number, len(turns), before.turn,
                                          before, view, offer, "double", scale))
            elif offer is not None:  # the answer to the offer just judged
                cubes.append(_cube_review(number, action.number, len(turns), action.side,
                                          before, view, offer,
                                          "take" if action.action == "take" else "pass",
                                          scale))
                offer = None
        elif view is not None and offer is None and view.may_offer and \
                not np.array_equal(encode([before])[0], first):
            made = cube_decision(before, view, chosen)
            cubes.append(_cube_review(number, action.number, len(turns), before.turn, before,
                                      view, made, "no double", scale))
        if played is not None:
            assert roll is not None
            offer = None
            turns.append(_chequer(chosen, number, action.number, before, roll, played, view))
            if progress is not None:
                progress(1)
    return Analysis(tuple(turns), record.players, chosen, 1, tuple(cubes),
                    0 if start is None else start.length)


def _crawford(length: int, scores: Sequence[Tuple[int, int]], rule: bool) -> List[bool]:
    """C7: which games of a match are the Crawford game: the first at whose start a player
    needs 1 point (when the rule is in play; none in a match to 1 point)."""
    out, seen = [], False
    for score in scores:
        here = rule and length > 1 and not seen and length - 1 in score
        seen = seen or (length > 1 and length - 1 in score)
        out.append(here)
    return out


def analyse(text: str, name: str = "", setting: Union[Setting, str, None] = None,
            progress: Optional[Callable[[int, int], None]] = None, *,
            met: Optional[MatchEquityTable] = None) -> Analysis:
    """Analyse every game of a record file's text (a fastnardy record, a GNU Backgammon SGF
    or ``.mat`` export: :func:`fastnardy.formats.games.read_games`) at the setting, cubeful at the
    match's scores unless the setting is cubeless (module docstring; ``met`` the match's
    table, the game's own unless given); ``progress(done, total)`` counts turns."""
    checks.callback(progress)
    chosen = as_setting(setting)
    if met is not None and not isinstance(met, MatchEquityTable):
        raise FastNardyError(f"met must be a MatchEquityTable or None, not {met!r}")
    length = 0
    games_read = match_file(text, name)
    if games_read is not None:  # gnubg's SGF or .mat, read once: its games, scores and length
        games = list(games_read)
        records = [game.to_record() for game in games]
        length, starts = (games[0].match_length if games else 0), [g.scores for g in games]
        crawford = _crawford(length, starts, bool(records[0].rules.crawford) if records
                             else True)
    elif is_match_record(text):
        recorded = read_match(text)
        records = list(recorded.games)
        match = Match.from_record(recorded)  # the scores and the Crawford game by replay
        length, starts, crawford = match.length, [], []
        totals = [0, 0]
        for number, game in enumerate(match.games):
            starts.append((totals[0], totals[1]))
            crawford.append(number == match.crawford_game)
            outcome = game.outcome()
            if outcome is not None:
                totals[outcome.winner == BLACK] += outcome.points
    else:
        records = [read_record(text)]
        starts, crawford = [(0, 0)], [False]
    if records:
        chosen = chosen.resolved(records[0].rules)
    total = sum(len(r.turns) for r in records)
    done = [0]

    def step(count: int) -> None:
        done[0] += count
        if progress is not None:
            progress(done[0], total)

    turns: List[AnalysedTurn] = []
    cubes: List[CubeReview] = []
    for number, record in enumerate(records, 1):
        score = starts[number - 1] if length else (0, 0)
        cube = Cube.money(record.rules)._replace(
            length=length, score=score, crawford=crawford[number - 1], met=met,
            jacoby=bool(record.rules.jacoby) and not length)
        one = analyse_game(record, chosen, number=number, progress=step, cube=cube)
        turns += one.turns
        cubes += one.cube_decisions
    players = records[0].players if records else ("white", "black")
    return Analysis(tuple(turns), players, chosen, len(records), tuple(cubes), length)
