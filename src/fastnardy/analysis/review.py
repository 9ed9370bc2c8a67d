"""Luck and the analysis of recorded games, as GNU Backgammon gives them.

* :func:`luck`: gnubg's luck of a roll, at 0 ply: the value of the best turn of the roll
  rolled minus the mean of that over the 21 rolls (T5 weights).
* :func:`analyse_game` / :func:`analyse`: per turn the played and the best turn, the equity
  lost (>= 0), gnubg's marks (doubtful >= 0.04, bad >= 0.08, very bad >= 0.16 points) and
  the roll's luck; per side the error rate in milli-points per unforced turn (gnubg's mEMG,
  cubeless) and the luck.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from .. import _kernel
from ..basics import BLACK, WHITE, Roll
from ..batch import PROBABILITY, encode
from ..errors import FastNardyError
from ..game import Game
from ..search.network import Evaluator
from ..position import Position, Turn
from ..formats.mat import read_games
from ..record import GameRecord
from ..search.tree import Filters, best_turn, expectimax
from .outputs import best_per_roll, evaluator_for, plies_arg, position_arg, roll_index

__all__ = ["MARKS", "LUCK_MARKS", "luck", "mark", "luck_mark", "AnalysedTurn", "Analysis",
           "analyse_game", "analyse"]


# gnubg's thresholds of a chequer-play error, in points lost (its arSkillLevel)
MARKS = (("very bad", 0.16), ("bad", 0.08), ("doubtful", 0.04))
# gnubg's luck marks, in points (its arLuckLevel)
LUCK_MARKS = (("very lucky", 0.6), ("lucky", 0.3), ("very unlucky", -0.6), ("unlucky", -0.3))


def luck(position: Position, dice: object, evaluator: Optional[Evaluator] = None) -> float:
    """gnubg's luck of ``dice`` for the side to move, at 0 ply: the value of its best turn
    minus the mean of that over the 21 rolls (T5). 0 once the game is over."""
    position = position_arg(position)
    roll = _kernel.dice_pair(dice)
    network = evaluator_for(position.rules, evaluator)
    if position.outcome() is not None:
        return 0.0
    best = best_per_roll(position.rules, encode([position]), network)[0]
    return float(best[roll_index(roll)] - best @ PROBABILITY)


def mark(loss: float) -> Optional[str]:
    """gnubg's mark of a chequer-play error of ``loss`` points, or None."""
    return next((name for name, limit in MARKS if loss >= limit), None)


def luck_mark(value: float) -> Optional[str]:
    """gnubg's mark of a roll's luck, or None."""
    for name, limit in LUCK_MARKS:
        if (limit > 0 and value >= limit) or (limit < 0 and value <= limit):
            return name
    return None


@dataclass(frozen=True)
class AnalysedTurn:
    """One turn of an analysed game: the position before it, the roll, the turn ``played``
    and the ``best`` (Turn), their equities to the mover, ``loss`` (>= 0), the number of
    legal turns, gnubg's ``mark`` and the roll's ``luck``."""

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
    mark: Optional[str] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "mark", mark(self.loss) if self.choices > 1 else None)

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
                "luck_mark": luck_mark(self.luck)}


@dataclass(frozen=True)
class Analysis:
    """:func:`analyse`'s answer: the analysed ``turns`` of every game and the players'
    names (white, black)."""

    turns: Tuple[AnalysedTurn, ...]
    players: Tuple[str, str]
    plies: int
    games: int

    def side(self, side: str) -> Dict[str, Any]:
        """One side's totals: unforced turns, equity lost, error rate (mEMG, cubeless
        milli-points per unforced turn), the marks and the luck (total and per turn)."""
        mine = [t for t in self.turns if t.side == side]
        unforced = [t for t in mine if not t.forced]
        lost = sum(t.loss for t in unforced)
        total_luck = sum(t.luck for t in mine)
        return {"name": self.players[side == BLACK], "turns": len(mine),
                "unforced": len(unforced), "equity_lost": round(lost, 6),
                "error_rate": round(1000 * lost / len(unforced), 3) if unforced else 0.0,
                "marks": {name: sum(t.mark == name for t in unforced) for name, _ in MARKS},
                "luck": round(total_luck, 6),
                "luck_rate": round(1000 * total_luck / len(mine), 3) if mine else 0.0}

    def as_dict(self) -> Dict[str, Any]:
        return {"plies": self.plies, "games": self.games,
                "players": {side: self.side(side) for side in (WHITE, BLACK)},
                "turns": [t.as_dict() for t in self.turns]}


def analyse_game(record: GameRecord, evaluator: Optional[Evaluator] = None, plies: int = 0,
                 filter: Filters = None, *, number: int = 1,
                 progress: Optional[Callable[[int], None]] = None) -> List[AnalysedTurn]:
    """Every turn of a recorded game (replayed by :meth:`fastnardy.Game.from_record`, which
    names an illegal turn's rule) analysed at ``plies``; ``progress(1)`` after each turn."""
    if not isinstance(record, GameRecord):
        raise FastNardyError(f"record must be a GameRecord, not {record!r}")
    depth = plies_arg(plies)
    network = evaluator_for(record.rules, evaluator)
    game = Game.from_record(record)
    if record.start is not None:
        before = record.start
    else:
        assert record.opening is not None
        before = Position.opening(record.rules, *record.opening)[0]
    out = []
    for entry, (roll, played) in zip(record.turns, game.history):
        turns = before.legal_turns(roll)
        found = best_turn(before, roll, network, depth, filter)
        index = next(i for i, t in enumerate(turns) if t.position == played.position)
        played_value = found.values[index]
        if np.isnan(played_value):  # a filter dropped it: valued at full depth anyway
            played_value = -expectimax(before.rules, encode([played.position]), network,
                                       depth)[0]
        best_value = float(np.nanmax(found.values))
        best = found.turn
        if played_value > best_value:
            best, best_value = played, float(played_value)
        out.append(AnalysedTurn(number, entry.number, before.turn, before, roll, played, best,
                                float(played_value), best_value,
                                max(0.0, best_value - float(played_value)), len(turns),
                                luck(before, roll, network)))
        before = played.position
        if progress is not None:
            progress(1)
    return out


def analyse(text: str, name: str = "", evaluator: Optional[Evaluator] = None, plies: int = 0,
            filter: Filters = None,
            progress: Optional[Callable[[int, int], None]] = None) -> Analysis:
    """Analyse every game of a record file's text (a fastnardy record or a GNU Backgammon
    ``.mat`` export, :func:`fastnardy.formats.mat.read_games`); ``progress(done, total)`` counts
    turns."""
    records = read_games(text, name)
    total = sum(len(r.turns) for r in records)
    done = [0]

    def step(count: int) -> None:
        done[0] += count
        if progress is not None:
            progress(done[0], total)

    turns: List[AnalysedTurn] = []
    for number, record in enumerate(records, 1):
        turns += analyse_game(record, evaluator, plies, filter, number=number, progress=step)
    players = records[0].players if records else ("white", "black")
    return Analysis(tuple(turns), players, plies_arg(plies), len(records))
