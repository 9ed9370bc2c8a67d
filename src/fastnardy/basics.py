"""The basic facts of the two games that every module shares, each in one place.

The sides, the rolls and their probabilities (T5), the mirror between the two sides'
numberings (section 0 of RULES.md), the start counts (L1, S1), the depth limit of perft
(T5), the kinds of win and their points (L10, S9), the L6 six-block test and the dice (T5,
T6: every seeded game's dice stream, the kernel's and Python's). A leaf: it
imports nothing of the package, so that any module (the kernel's Python layer, the
pure-Python twin, the satellites) can import it without a circle.

Vocabulary, one meaning a word: a **side** is ``"white"`` or ``"black"`` (the **mover** is
the side to move); **points** are one side's 24 checker counts in its own numbering (index
0 = its point 1); a **roll** is two dice as a pair of ints; a **row** is the 50-int8 batch
encoding of :mod:`fastnardy.batch`; a **key** is the kernel's 128-bit packed position.
"""

from __future__ import annotations

from math import comb
from typing import Optional, Sequence, Tuple

import numpy as np
import numpy.typing as npt

WHITE, BLACK = "white", "black"
SIDES = (WHITE, BLACK)

LONG_GAME, SHORT_GAME = 0, 1  # the game codes of Rules.code[0]
CHECKERS = 15  # a side's checkers (L1, S1)
ROW_WIDTH = 50  # a board row (fastnardy.batch): each side's 24 points and its bar

# A bound on the legal turns (T1) of one position and roll in either game, proved in the
# docstring of fastnardy.envs.openspiel: multisets of 4 chains' (start, length) over the n <= 15
# locations a side occupies. The size of the action spaces (OpenSpiel, Gymnasium, PettingZoo).
_LOCATIONS = CHECKERS
MAX_TURNS_PER_ROLL = (_LOCATIONS + _LOCATIONS ** 2 + comb(_LOCATIONS + 1, 2)
                      + _LOCATIONS * comb(_LOCATIONS + 1, 2) + comb(_LOCATIONS + 3, 4))

# A game still going after MAX_GAME_TURNS turns is cut off and reported unfinished (in short
# nardy both sides can be forced to pass turn after turn): self-play, rollouts and matches.
# An RL episode (the environments, OpenSpiel's games) is truncated after EPISODE_TURNS by
# default, a limit of the learner's choosing rather than of the game.
MAX_GAME_TURNS = 10_000
EPISODE_TURNS = 1000

Roll = Tuple[int, int]
Points = Tuple[int, ...]  # one side's 24 checker counts, index 0 = its own point 1
StepTuple = Tuple[int, int, bool]  # (src, dst, hit), mover's numbering: 25 = bar, 0 = off
TurnTuple = Tuple[Tuple[StepTuple, ...], Points, int, Points, int]  # steps, me, me_bar, opp, opp_bar

# T5: the 21 distinct rolls (d1 <= d2); a double comes 1 time in 36, any other roll 2
ALL_ROLLS: Tuple[Roll, ...] = tuple((a, b) for a in range(1, 7) for b in range(a, 7))
ROLL_PROBABILITIES: Tuple[float, ...] = tuple((1 if a == b else 2) / 36 for a, b in ALL_ROLLS)

# T5: perft's hard limit on the depth (the kernel keeps one child buffer per ply)
MAX_DEPTH = 64

# L10, S9: the kinds of win, in the order of their codes in self-play, and their points
WIN_KINDS = ("oin", "mars", "koks", "backgammon")
WIN_POINTS = {"oin": 1, "mars": 2, "koks": 3, "backgammon": 3}


def mirror(game: int, point: int) -> int:
    """Section 0: the opponent's point q is my point q+12 / q-12 (long) or 25-q (short).

    The map is its own inverse, so it also turns my point numbers into the opponent's."""
    if game == LONG_GAME:
        return point + 12 if point <= 12 else point - 12
    return 25 - point


# mirror as columns: MIRROR_COLUMNS[game][q - 1] = mirror(q) - 1, the kernel's column order of
# the opponent's points in a key and in a row (indexable by the game's name or its code)
MIRROR_COLUMNS = {name: tuple(mirror(code, q) - 1 for q in range(1, 25))
                  for code, name in ((LONG_GAME, "long"), (SHORT_GAME, "short"))}


def start_points(game: int) -> Points:
    """L1: all 15 checkers on the head, the side's point 24; S1: 2 on 24, 5 on 13, 3 on 8,
    5 on 6. Both sides start alike, each in its own numbering."""
    points = [0] * 24
    if game == LONG_GAME:
        points[23] = CHECKERS
    else:
        for point, count in ((24, 2), (13, 5), (8, 3), (6, 5)):
            points[point - 1] = count
    return tuple(points)


def win_kind(game: int, loser_points: Sequence[int], loser_bar: int, loser_off: int,
             koks: bool, backgammon: bool) -> str:
    """L10/S9, the cube aside: ``"oin"`` when the loser has borne off a checker; else in long
    nardy ``"koks"`` (with the koks scoring) when a loser's checker is outside its home, and
    in short nardy ``"backgammon"`` (when counted) when one is on the bar or in the winner's
    home (the loser's points 19-24); else ``"mars"``. ``loser_points`` are in its numbering."""
    if loser_off:
        return "oin"
    if game == LONG_GAME:
        return "koks" if koks and any(loser_points[6:]) else "mars"
    in_winners_home = loser_bar > 0 or any(loser_points[18:])
    return "backgammon" if backgammon and in_winners_home else "mars"


def win_points(kind: str, stake: int, loser_left: int, checkers_left: bool, plain: bool) -> int:
    """What a won game scores (C1): its kind's L10/S9 points times the stake, or with
    ``plain`` (C4 once the stake is raised, C8 in money play before it is) the stake alone;
    with ``checkers_left`` (long nardy, C9) the loser's checkers not borne off (1 to 15)
    times the stake, whatever the kind."""
    if checkers_left:
        return loser_left * stake
    return (1 if plain else WIN_POINTS[kind]) * stake


def six_block(block_rule: str, me: Sequence[int], opp: Sequence[int]) -> Optional[Tuple[int, int]]:
    """L6 (long nardy): the first run of six or more consecutive points of the opponent's
    path that ``me`` holds and ``block_rule`` does not allow, as (lowest, highest) in the
    opponent's numbering, or None. ``me`` and ``opp`` are each side's own points; the run is
    allowed under ``"opponent_ahead"`` when an opponent checker stands ahead of it (on a lower
    point of its own numbering) or is borne off, under ``"opponent_home"`` when one is in its
    home or borne off, always under ``"none"``. A run never wraps the opponent's 1/24."""
    if block_rule == "none":
        return None
    opponent_off = sum(opp) < CHECKERS
    q = 1
    while q <= 24:
        if not me[mirror(LONG_GAME, q) - 1]:
            q += 1
            continue
        low = q
        while q <= 24 and me[mirror(LONG_GAME, q) - 1]:
            q += 1
        if q - low < 6:
            continue
        ahead = low - 1 if block_rule == "opponent_ahead" else 6
        if not opponent_off and not any(opp[:ahead]):
            return low, q - 1
    return None


# --------------------------------------------------------------------------- dice
# Game ``stream`` of a run seeded ``seed`` throws its dice from one splitmix64 stream, the
# same in the kernel (_dice.pxd: self-play, GameBatch) and here (Game, rollouts, matches):
# the state starts at splitmix64(seed) ^ stream * DICE_STREAM and advances by the golden
# gamma each draw, one draw a die, the die 1 + (the draw's high 32 bits * 6 >> 32). A game
# from the start throws the T6 opening first (one die each, white's first, ties thrown
# again); a game from a given position throws its first roll at once. Draw k of a stream
# is splitmix64's finaliser of state + (k + 1) * gamma, so any die is reached directly.
_GAMMA = 0x9E3779B97F4A7C15
DICE_STREAM = 0xD6E8FEB86659FD93
_MASK = (1 << 64) - 1

def _finalise(z: "npt.NDArray[np.uint64]") -> "npt.NDArray[np.uint64]":
    """splitmix64's finaliser, elementwise (wrapping)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def dice_states(seed: int, streams: "npt.ArrayLike") -> "npt.NDArray[np.uint64]":
    """The first state of each stream of ``seed`` (an int taken modulo 2**64)."""
    with np.errstate(over="ignore"):
        base = _finalise(np.asarray(np.uint64((int(seed) + _GAMMA) & _MASK)))
        ids = np.asarray(streams, dtype=np.int64).astype(np.uint64)
        states: npt.NDArray[np.uint64] = base ^ (ids * np.uint64(DICE_STREAM))
    return states


def dice(states: "npt.NDArray[np.uint64]", draws: "npt.ArrayLike") -> "npt.NDArray[np.int8]":
    """Die number ``draws`` (0 = the first) of each stream state, 1 to 6; ``draws``
    broadcasts against ``states``."""
    with np.errstate(over="ignore"):
        k = np.asarray(draws, dtype=np.int64).astype(np.uint64) + np.uint64(1)
        z = _finalise(states + k * np.uint64(_GAMMA))
    out: npt.NDArray[np.int8] = (1 + (((z >> np.uint64(32)) * np.uint64(6))
                                      >> np.uint64(32))).astype(np.int8)
    return out


class DiceStream:
    """One game's dice, thrown one roll at a time: stream ``stream`` of ``seed``."""

    __slots__ = ("_state", "_draws")

    def __init__(self, seed: int, stream: int = 0) -> None:
        self._state = dice_states(seed, stream)
        self._draws = 0

    def throw(self) -> Roll:
        """The next roll, as thrown: (first die, second die)."""
        first, second = (int(d) for d in dice(self._state, (self._draws, self._draws + 1)))
        self._draws += 2
        return first, second

    def opening(self) -> Roll:
        """The T6 opening throw: (white's die, black's die), never equal (ties thrown again)."""
        while True:
            white, black = self.throw()
            if white != black:
                return white, black

    @property
    def draws(self) -> int:
        """The dice thrown so far."""
        return self._draws
