"""The one loop of games over board rows, without the cube: duels
(:func:`fastnardy.play.duel.play_games`), rollouts (:func:`fastnardy.analysis.rollouts.rollout`) and the
games a benchmark set's positions come from all play through :func:`play`.

N games go on side by side, one numpy batch per player per turn: each live game throws its
dice (``roll``), its side to move's player chooses a turn (T1; a pass is one), and a game
ends when a side has borne off its 15th checker (L9, S9: :func:`fastnardy.batch.scores`, at
stake 1, no cube)."""

from __future__ import annotations

from typing import Callable, NamedTuple, Optional, Sequence

import numpy as np
import numpy.typing as npt

from .. import checks
from ..basics import MAX_GAME_TURNS
from ..batch import scores
from ..errors import FastNardyError
from ..rules import Rules
from ..search.bearoff import Database
from .players import Player

__all__ = ["Games", "play"]

Indices = npt.NDArray[np.int64]
# the dice of the live games ``games`` at turn ``turn`` (0: the first), (n, 2)
Roll = Callable[[int, Indices], npt.NDArray[np.int8]]
# called before each turn with the turn, the live games, their rows and their dice
Watch = Callable[[int, Indices, npt.NDArray[np.int8], npt.NDArray[np.int8]], None]


class Games(NamedTuple):
    """:func:`play`'s answer, per game."""

    points: npt.NDArray[np.float64]
    """Player 0's points (+ won, - lost, L10, S9), or its exact equity where the bear-off
    database settled the game; 0 for a game still going."""
    turns: npt.NDArray[np.int64]
    """The turns a finished or settled game took (0 for a game still going)."""
    rows: npt.NDArray[np.int8]
    """The last board row of each game, its side to move's view."""
    first: npt.NDArray[np.bool_]
    """Whether player 0 is to move in that last row."""


def play(rules: Rules, rows: npt.ArrayLike, first: npt.ArrayLike,
         players: Sequence[Player], roll: Roll, *, turns: int = MAX_GAME_TURNS,
         watch: Optional[Watch] = None, settle: Optional[Database] = None) -> Games:
    """Play the games of ``rows`` (N, 50) on, at most ``turns`` turns: player 0 moves where
    ``first`` (N,) is True, ``players[1]`` elsewhere, then they alternate, each throwing
    ``roll(turn, games)``; ``watch`` sees each turn before it is played (module
    docstring). With ``settle``, a game ends where the bear-off database holds its
    position, scored its exact cubeless equity (a rollout's: no mars is left there)."""
    board = checks.rows(rows).copy()
    if not callable(roll):
        raise FastNardyError(f"roll must be a callable, not {roll!r}")
    checks.callback(watch, "watch")
    turns = checks.number(turns, "turns", 0, 1 << 30)
    zero = np.array(checks.array(first, "first"), dtype=bool)
    if zero.shape != (len(board),) or len(players) != 2:
        raise FastNardyError(f"first must be one bool per row ({len(board)}) and players "
                             f"two, not {zero.shape} and {len(players)}")
    points = np.zeros(len(board))
    played = np.zeros(len(board), dtype=np.int64)
    live = np.ones(len(board), dtype=bool)
    for turn in range(turns):
        at = np.flatnonzero(live)
        if not len(at):
            break
        dice = roll(turn, at)
        if watch is not None:
            watch(turn, at, board[at], dice)
        for player, mine in zip(players, (zero[at], ~zero[at])):
            if mine.any():
                board[at[mine]] = player.choose(rules, board[at[mine]], dice[mine])
        score = scores(rules, board[at])  # the side to move now has lost, or plays on
        won = ~np.isnan(score)
        ended = at[won]
        points[ended] = np.where(zero[ended], -score[won], score[won])
        played[ended] = turn + 1
        live[ended] = False
        if settle is not None:
            going = at[~won]
            covered, wins, _ = settle.lookup(board[going])
            held = going[covered]
            if len(held):
                value = 2.0 * wins - 1.0  # to the side to move
                points[held] = np.where(zero[held], -value, value)
                played[held] = turn + 1
                live[held] = False
        zero[at] = ~zero[at]
    return Games(points, played, board, zero)
