"""The players of matches (:mod:`fastnardy.play.match`): ``random`` (uniform over the legal
turns), ``greedy`` (the policy of ``fastnardy play``: :func:`fastnardy.play.interactive.evaluate`,
first best in T2 order) and a network (an :class:`fastnardy.search.network.Evaluator`
searched 0, 1 or 2 plies by :func:`fastnardy.search.tree.expectimax`, at 1 ply or more with
GNU Backgammon's filters, :data:`fastnardy.search.tree.GNUBG_FILTERS`). A player chooses one
child of each row of a numpy batch for its dice.

With the cube (C1-C8, matches to N points), a player also sees each row's cube decision
(:meth:`Player.cube_equities`: a network by :func:`fastnardy.analysis.cube.cube_equities`
from its own 0-ply outputs; random and greedy have none: they never offer and always take)
and chooses its turn knowing the cube (:meth:`Player.choose_cubeful`: a network at 0 ply by
the opponent's proper cube action after each turn, at 1-2 ply by its cubeless search)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, Optional, Sequence

import numpy as np
import numpy.typing as npt

from .. import checks
from ..batch import ROW_WIDTH, expand, segment_argmax
from ..errors import FastNardyError, InvalidDiceError, InvalidPositionError
from ..search.network import Evaluator
from ..rules import Rules
from ..search.tree import GNUBG_FILTERS, expectimax, filter_kept

if TYPE_CHECKING:
    from ..analysis.cube import Cube
    from ..analysis.met import MatchEquityTable


__all__ = ["Greedy", "Network", "Player", "Random", "first_best", "greedy_scores"]

HALF = ROW_WIDTH // 2
Rows = npt.NDArray[np.int8]
Indices = npt.NDArray[np.int64]


def first_best(values: npt.NDArray[Any], parent: npt.NDArray[Any], count: int) -> Indices:
    """The index of the first highest value among each parent's children (parents sorted,
    each with at least one child; T2 order)."""
    values = checks.array(values, "values")
    if values.ndim != 1 or values.dtype.kind not in "biuf":
        raise FastNardyError(f"values must be one number per child, not {values.dtype} "
                             f"{values.shape}")
    count = checks.number(count, "count", 0, checks.MAX_ITEMS)
    return _first_best(values, _parents(parent, len(values), count), count)


def _first_best(values: npt.NDArray[Any], parent: Indices, count: int) -> Indices:
    """:func:`first_best` of checked input (what a player's ``_pick`` is given)."""
    offsets = np.searchsorted(parent, np.arange(count + 1))
    out: Indices = offsets[:-1] + segment_argmax(values, offsets)
    return out


def _boards(value: object, name: str) -> Rows:
    """(N, 50) board rows, integers (the kernel checks the checkers where it reads them)."""
    rows = checks.array(value, name, InvalidPositionError)
    if rows.ndim != 2 or rows.shape[1] != ROW_WIDTH or rows.dtype.kind not in "iu" \
            or not ((rows >= 0) & (rows <= 15)).all():
        raise InvalidPositionError(f"{name} must be board rows, integers from 0 to 15 of "
                                   f"shape (N, {ROW_WIDTH}), not {rows.dtype} {rows.shape}")
    return rows.astype(np.int8)


def _parents(parent: object, children: int, rows: int) -> Indices:
    """The row of each of ``children`` children, sorted, every one of ``rows`` rows with a
    child."""
    owner = checks.array(parent, "parent")
    if owner.shape != (children,) or owner.dtype.kind not in "iu" \
            or not np.array_equal(np.unique(owner), np.arange(rows)) \
            or (np.diff(owner.astype(np.int64)) < 0).any():
        raise FastNardyError(f"parent must be the sorted row of each child, every one of "
                             f"the {rows} rows with a child, not {owner.dtype} {owner.shape}")
    return owner.astype(np.int64)


def _batch(rules: object, rows: object, dice: object) -> "tuple[Rules, Rows, Rows]":
    """The rules, (N, 50) rows and their (N, 2) dice, each die from 1 to 6."""
    boards = _boards(rows, "rows")
    thrown = checks.array(dice, "dice", InvalidDiceError)
    if thrown.shape != (len(boards), 2) or thrown.dtype.kind not in "iu" \
            or not ((thrown >= 1) & (thrown <= 6)).all():
        raise InvalidDiceError(f"dice must be two dice from 1 to 6 for each of the "
                               f"{len(boards)} rows, not {thrown.dtype} {thrown.shape}")
    return Rules.of(rules), boards, thrown.astype(np.int8)


class Player(ABC):
    """Chooses one child of each row for its dice: ``choose`` returns the chosen rows. A
    player is made by overriding ``_pick`` (what :meth:`pick` does with checked input)."""

    name = "player"

    def choose(self, rules: object, rows: npt.ArrayLike, dice: npt.ArrayLike) -> Rows:
        """The chosen child of each of the (N, 50) ``rows`` for its (N, 2) ``dice``."""
        checked, boards, thrown = _batch(rules, rows, dice)
        children, parent = expand(checked, boards, thrown)
        chosen: Rows = children[self._pick(checked, boards, thrown, children,
                                           parent.astype(np.int64))]
        return chosen

    def pick(self, rules: object, rows: npt.ArrayLike, dice: npt.ArrayLike,
             children: npt.ArrayLike, parent: npt.ArrayLike) -> Indices:
        """The index into ``children`` (the rows' legal turns, :func:`fastnardy.batch.expand`)
        of each row's choice; ``parent`` the row of each child, sorted, every row with one
        child or more."""
        checked, boards, thrown = _batch(rules, rows, dice)
        kids = _boards(children, "children")
        return self._pick(checked, boards, thrown, kids, _parents(parent, len(kids),
                                                                  len(boards)))

    @abstractmethod
    def _pick(self, rules: Rules, rows: Rows, dice: Rows, children: Rows,
              parent: Indices) -> Indices:
        """The index into ``children`` of each row's choice (the input checked)."""

    def cube_equities(self, rules: Rules, rows: Rows, cubes: "Sequence[Cube]",
                      met: "Optional[MatchEquityTable]") -> Optional[npt.NDArray[np.float64]]:
        """The no double, double take and double pass equities (N, 3, normalised) this
        player sees for each row's side to move under its cube, or None for a player without
        a cube: it never offers and always takes."""
        return None

    def choose_cubeful(self, rules: Rules, rows: Rows, dice: npt.NDArray[Any],
                       cubes: "Sequence[Cube]", met: "Optional[MatchEquityTable]") -> Rows:
        """The chosen child of each row with its cube in play (the mover's view); by
        default the cubeless choice."""
        return self.choose(rules, rows, dice)

    def close(self) -> None:
        """Release what the player holds (a gnubg process)."""


class Random(Player):
    """Uniform over the legal turns, seeded."""

    def __init__(self, seed: int) -> None:
        self.name, self.rng = "random", np.random.default_rng([checks.number(seed, "seed", 0),
                                                                7])

    def _pick(self, rules: Rules, rows: Rows, dice: Rows, children: Rows,
              parent: Indices) -> Indices:
        counts = np.bincount(parent, minlength=len(rows))
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        out: Indices = starts + (self.rng.random(len(rows)) * counts).astype(np.int64)
        return out


def greedy_scores(rules: Rules, children: Rows) -> npt.NDArray[np.int64]:
    """The greedy policy's score of each child for the side that just moved (the child's
    opponent half), higher is better: the race (the other side's pips minus its own), plus 2
    for each point it holds with two or more checkers; in long nardy plus 1 for each point it
    occupies (one checker closes a point, L3); in short nardy minus 2 for each of its blots
    (a lone checker can be hit, S3) and plus 3 for each of the other side's checkers on the
    bar. The one home of that score in Python (:func:`fastnardy.play.interactive.evaluate`
    asks it of one position; the kernel's greedy policy is its compiled twin)."""
    return _greedy_scores(Rules.of(rules), _boards(children, "children"))


def _greedy_scores(rules: Rules, children: Rows) -> npt.NDArray[np.int64]:
    """:func:`greedy_scores` of checked input."""
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

    def _pick(self, rules: Rules, rows: Rows, dice: Rows, children: Rows,
              parent: Indices) -> Indices:
        return _first_best(_greedy_scores(rules, children), parent, len(rows))


class Network(Player):
    """The evaluator searched ``plies`` deep with GNU Backgammon's filters: each child of the
    root screen valued -V_plies (search module)."""

    def __init__(self, evaluator: Evaluator, plies: int, name: str = "") -> None:
        if not isinstance(evaluator, Evaluator):
            raise FastNardyError(f"evaluator must be a fastnardy.search.network.Evaluator, "
                                 f"not {type(evaluator).__name__}")
        self.evaluator, self.plies = evaluator, checks.number(plies, "plies", 0, 2)
        self.name = checks.text(name, "name") or f"net:{self.plies}"

    def _pick(self, rules: Rules, rows: Rows, dice: Rows, children: Rows,
              parent: Indices) -> Indices:
        values = -expectimax(rules, children, self.evaluator, 0)
        if self.plies:
            starts = np.searchsorted(parent, np.arange(len(rows)))
            kept = filter_kept(values, starts, GNUBG_FILTERS[0])
            values[~kept] = -np.inf
            values[kept] = -expectimax(rules, children[kept], self.evaluator, self.plies,
                                       GNUBG_FILTERS[1:])
        return _first_best(values, parent, len(rows))

    def cube_equities(self, rules: Rules, rows: Rows, cubes: "Sequence[Cube]",
                      met: "Optional[MatchEquityTable]") -> Optional[npt.NDArray[np.float64]]:
        from ..analysis.cube import cube_equities, leaves

        outputs, x, _ = leaves(rules, self.evaluator, rows)
        return cube_equities(outputs, x, cubes, met)

    def choose_cubeful(self, rules: Rules, rows: Rows, dice: npt.NDArray[Any],
                       cubes: "Sequence[Cube]", met: "Optional[MatchEquityTable]") -> Rows:
        if self.plies:
            return self.choose(rules, rows, dice)
        from ..analysis.cube import choose_cubeful

        return choose_cubeful(rules, self.evaluator, rows, dice, cubes, met)
