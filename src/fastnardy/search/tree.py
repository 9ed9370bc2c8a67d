"""Search over batches: n-ply expectimax, the evaluator called once per level of the tree.

**Values.** The value of a position is the equity in points of its side to move, before it
rolls: +2 is a mars won, -1 an oin lost (L10, S9). An evaluator estimates it; the search
computes it from the values of the positions further on:

    V_0(x) = evaluate(x)
    V_k(x) = sum over the 21 rolls r (T5) of p(r) * max over the children c of (x, r) of -V_{k-1}(c)

with p(r) = 1/36 for a double and 2/36 otherwise. A child is the position after one legal
turn (T1; a pass is one child), the other side to move, so its value is negated. A finished
game (L9/S9: a side has borne off its 15th checker) is never evaluated: at every depth its
value is the exact score of :meth:`fastnardy.Position.outcome` (no cube), +points when the
side to move has won, -points when it has lost.

**Evaluators.** An evaluator is a callable that takes one numpy batch of N positions, each
from its side to move's view, and returns N floats: the value above, for each position's
side to move. Its attribute ``inputs`` says what batch it takes:

* ``"rows"``: (N, 50) int8 board rows (:mod:`fastnardy.batch`);
* ``"keys"``: (N,) ``KEY_DTYPE`` packed keys;
* ``("features", kind)``: the (N, F) float32 array ``features(rules, rows, kind)``.

A callable without ``inputs`` takes rows; :func:`evaluator` attaches one. Trained evaluators
for both games ship with the package: ``Evaluator.load("long" | "short")``
(:class:`fastnardy.search.network.Evaluator`, re-exported here); the search runs such an evaluator
in compiled code on the rows themselves (no feature array, no return to Python per
position). Any other evaluator is a Python call, made once per level of the tree for all
the positions of that level, never once per position and never with an empty batch: once
at 0 and 1 ply, and deeper once for the leaves plus once per level that a
:class:`MoveFilter` screens; a level of more than ``EXPAND_ROWS`` (4,096) rows is searched
that many rows at a time (their chance nodes expanded together, so that memory stays
bounded), with these calls for each group. It is handed a read-only array: an evaluator
cannot change the search's own buffers.

**Children and turns.** The children of one (position, roll) that :func:`fastnardy.batch.expand`
returns are in T2 order, the order of :meth:`fastnardy.Position.legal_turns`: child i is the
position of ``legal_turns(roll)[i]``. :func:`best_turn` returns its values in that order.

**Move filters** (as GNU Backgammon's): at a max node whose children are searched one ply or
more deeper, every child is first valued at 0 ply (one evaluator call for the whole level)
and only the ``keep`` best within ``margin`` points of the best are searched deeper; the
others cannot be chosen. Without a filter the search is full-width. ``filter`` is one
MoveFilter for every level, or a tuple of them, one per level of max nodes from the root
down (the last one for the levels below it). :data:`GNUBG_FILTERS` is GNU Backgammon's
way: the root's candidates screened by ``MoveFilter(8, 0.16)``, and at every max node
inside the tree only the best child at 0 ply searched deeper (``MoveFilter(1, 0.0)``:
gnubg chooses the move of each roll of its look-ahead at 0 ply).
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

from .. import _features, _kernel, checks
from .._utils.executors import Flag
from ..batch import (PROBABILITY, chance_expand, decode, encode, expand, keys_from_rows,
                     roll_mean, rows_from_keys, segment_argmax)
from ..errors import FastNardyError, IllegalTurnError, InvalidPositionError, integer
from .inputs import ENCODINGS, features
from .network import OUTPUTS, Evaluator, equity, exact_rows, flip
from ..basics import WHITE
from ..position import Position, Turn
from ..rules import Rules

__all__ = ["BestTurn", "Evaluator", "GNUBG_FILTERS", "MoveFilter", "best_turn", "evaluator",
           "expectimax"]

Inputs = Union[str, Tuple[str, str]]
Evaluate = Callable[[npt.NDArray[Any]], npt.ArrayLike]
MAX_PLIES = 3
# at most this many rows' chance nodes are expanded together, so that a search's memory is
# bounded at any depth and width (long nardy's full 2 ply of its benchmark set had asked for
# 18 GB at once)
EXPAND_ROWS = 4096
# with a stop flag (Search.line), rows expanded at a time: a look at the flag every few
# hundredths of a second at 2 plies
STOP_ROWS = 128


# V of rows, and their outputs when asked (Search.line)
_Searched = Tuple[npt.NDArray[np.float64], Optional[npt.NDArray[np.float64]]]


class MoveFilter(NamedTuple):
    """Search at most ``keep`` children of a max node deeper, those within ``margin`` points
    of the best at 0 ply."""

    keep: int = 8
    margin: float = 0.16


GNUBG_FILTERS = (MoveFilter(8, 0.16), MoveFilter(1, 0.0))
Filters = Union[None, MoveFilter, Tuple[MoveFilter, ...]]


class BestTurn(NamedTuple):
    """:func:`best_turn`'s answer: the Turn, ``choice`` its index in ``legal_turns(dice)``,
    and the value of every candidate to the side to move, in that order (float64; NaN for a
    candidate a filter dropped)."""

    turn: Turn
    choice: int
    values: npt.NDArray[np.float64]


class _Evaluator:
    """A callable with its ``inputs`` attached (:func:`evaluator`)."""

    __slots__ = ("function", "inputs")

    def __init__(self, function: Evaluate, inputs: Inputs) -> None:
        self.function = function
        self.inputs = inputs

    def __call__(self, boards: npt.NDArray[Any]) -> npt.ArrayLike:
        return self.function(boards)

    def __repr__(self) -> str:
        return f"evaluator({self.function!r}, inputs={self.inputs!r})"


def evaluator(function: Evaluate, inputs: Inputs = "rows") -> Evaluate:
    """``function`` as an evaluator taking ``inputs`` (``"rows"``, ``"keys"`` or
    ``("features", kind)``; see the module docstring)."""
    if not callable(function):
        raise FastNardyError(f"an evaluator must be callable, not {function!r}")
    _check_inputs(inputs)
    return _Evaluator(function, inputs)


def _check_inputs(inputs: object) -> Inputs:
    if isinstance(inputs, str) and inputs in ("rows", "keys"):
        return inputs
    if (isinstance(inputs, tuple) and len(inputs) == 2 and isinstance(inputs[0], str)
            and inputs[0] == "features" and isinstance(inputs[1], str) and inputs[1] in ENCODINGS):
        return inputs
    raise FastNardyError(f"an evaluator's inputs are 'rows', 'keys' or ('features', kind) "
                         f"with kind one of {', '.join(map(repr, ENCODINGS))}, not {inputs!r}")


class Search:
    """One search: the rules, the evaluator and the filter, checked once."""

    def __init__(self, rules: Rules, evaluate: object, filter: object) -> None:
        if not callable(evaluate):
            raise FastNardyError(f"evaluate must be callable, not {evaluate!r}")
        self.inputs = _check_inputs(getattr(evaluate, "inputs", "rows"))
        if isinstance(self.inputs, tuple):
            game = ENCODINGS[self.inputs[1]]
            if game is not None and game != rules.game:
                raise FastNardyError(f"the evaluator takes {self.inputs[1]!r} features, which "
                                     f"are for {game} nardy only, not {rules.game}")
        self.rules = rules
        self.evaluate: Evaluate = evaluate
        # a shipped or saved network runs compiled on the rows (Evaluator.evaluate)
        self.network = evaluate.network if isinstance(evaluate, Evaluator) else None
        self.filters = check_filters(filter)
        self.evaluations = 0  # positions handed to the evaluator so far

    def leaves(self, rows: npt.NDArray[np.int8]) -> npt.NDArray[np.float64]:
        """The evaluator on rows of unfinished games: one call."""
        if not len(rows):
            return np.empty(0)
        self.evaluations += len(rows)
        if self.network is not None:
            values: npt.NDArray[np.float64] = self.network.equities(rows)
            return values
        if self.inputs == "rows":
            given: npt.NDArray[Any] = rows.view()
        elif self.inputs == "keys":
            given = keys_from_rows(self.rules, rows)
        else:
            given = features(self.rules, rows, self.inputs[1])
        given.flags.writeable = False  # the evaluator gets a read-only view
        returned = self.evaluate(given)  # the evaluator's own errors come out as they are
        try:
            values = np.asarray(returned, dtype=np.float64)
        except (TypeError, ValueError):
            raise FastNardyError(f"the evaluator must return numbers, not "
                                 f"{type(returned).__name__}") from None
        if values.shape != (len(rows),):
            raise FastNardyError(f"the evaluator returned shape {values.shape} for "
                                 f"{len(rows)} positions; it must return one value each")
        if not np.isfinite(values).all():
            raise FastNardyError("the evaluator returned a value that is not finite")
        return values

    def values(self, rows: npt.NDArray[np.int8], plies: int,
               level: int = 0) -> npt.NDArray[np.float64]:
        """V_plies of every row, for its side to move; ``level``: the level of max nodes
        below these rows (0 at the root's children), which picks the filter."""
        return self._search(rows, plies, level, False, None)[0]

    def line(self, rows: npt.NDArray[np.int8], plies: int, level: int = 0,
             stop: Optional[Flag] = None
             ) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """:meth:`values`' floats and the five outputs (N, 5) of the line they value, to each
        row's side to move: at 0 ply the network's (their :func:`~fastnardy.search.network.equity`
        is the value, bit for bit), a finished game's exact ones (L10, S9); at 1 ply or more
        the mean over the 21 rolls (T5) of the outputs at ``plies - 1`` of the child the
        search takes at each roll (the best among those the filter keeps, the first of equals
        in T2 order), flipped. An :class:`~fastnardy.search.network.Evaluator`'s search only.
        With a ``stop`` flag, STOP_ROWS rows are expanded at a time and KeyboardInterrupt
        comes before the next group once it is set."""
        if self.network is None:
            raise FastNardyError("the outputs of a search need an Evaluator, not "
                                 f"{self.evaluate!r}")
        values, outputs = self._search(rows, plies, level, True, stop)
        assert outputs is not None
        return values, outputs

    def choose(self, children: npt.NDArray[np.int8], starts: npt.NDArray[np.int64],
               plies: int, level: int = 0) -> npt.NDArray[np.float64]:
        """-V_plies of children grouped by max node (``starts``: the first child of each,
        every group non-empty), to the mover of the node; -inf for those a filter drops.
        ``level`` is the level of these max nodes (0: the root)."""
        return self._choose(children, starts, plies, level, False, None)[0]

    def _search(self, rows: npt.NDArray[np.int8], plies: int, level: int, outputs: bool,
                stop: Optional[Flag]) -> _Searched:
        """:meth:`values`, with :meth:`line`'s outputs when ``outputs`` (else None)."""
        finished = _features.winners(rows) != 0
        if not finished.any():
            return self._live(rows, plies, level, outputs, stop)
        values = np.empty(len(rows))
        values[finished] = self.scores(rows[finished])
        values[~finished], alive = self._live(rows[~finished], plies, level, outputs, stop)
        if alive is None:
            return values, None
        out = np.empty((len(rows), len(OUTPUTS)))
        out[finished] = exact_rows(self.rules, rows[finished])
        out[~finished] = alive
        return values, out

    def _live(self, rows: npt.NDArray[np.int8], plies: int, level: int, outputs: bool,
              stop: Optional[Flag]) -> _Searched:
        """:meth:`_search` of rows of unfinished games; EXPAND_ROWS rows at a time, or
        STOP_ROWS with a ``stop`` flag (each row's value is its own subtree's, so the same
        values in any split)."""
        if plies == 0 or not len(rows):
            if not outputs:
                return self.leaves(rows), None
            assert self.network is not None
            self.evaluations += len(rows)
            out = self.network.probabilities(rows).astype(np.float64)
            return equity(out), out
        group = EXPAND_ROWS if stop is None else STOP_ROWS
        if len(rows) > group:
            parts = [self._live(rows[i:i + group], plies, level, outputs, stop)
                     for i in range(0, len(rows), group)]
            return (np.concatenate([part[0] for part in parts]),
                    None if not outputs else np.concatenate([part[1] for part in parts]))
        if stop is not None and stop.is_set():
            raise KeyboardInterrupt("the search was stopped")
        node = chance_expand(self.rules, rows)
        starts = node.offsets[:-1]
        chosen, below = self._choose(node.children, starts, plies - 1, level + 1, outputs,
                                     stop)
        if below is None:  # the best value of each roll; its place only for its outputs
            best_values = np.maximum.reduceat(chosen, starts)
            return roll_mean(best_values.reshape(-1, len(PROBABILITY))), None
        best = starts + segment_argmax(chosen, node.offsets)
        return (roll_mean(chosen[best].reshape(-1, len(PROBABILITY))),
                roll_mean(flip(below[best]).reshape(-1, len(PROBABILITY), len(OUTPUTS))))

    def _choose(self, children: npt.NDArray[np.int8], starts: npt.NDArray[np.int64],
                plies: int, level: int, outputs: bool, stop: Optional[Flag]) -> _Searched:
        """:meth:`choose`, with the children's outputs (:meth:`line`) when ``outputs``."""
        move_filter = filter_at(self.filters, level)
        if move_filter is None or plies == 0:
            values, out = self._search(children, plies, level, outputs, stop)
            return -values, out
        quick, out = self._search(children, 0, level, outputs, stop)
        kept = filter_kept(-quick, starts, move_filter)
        chosen = np.full(len(children), -np.inf)
        deep, deep_out = self._search(children[kept], plies, level, outputs, stop)
        chosen[kept] = -deep
        if out is not None:
            out[kept] = deep_out
        return chosen, out

    def scores(self, rows: npt.NDArray[np.int8]) -> npt.NDArray[np.float64]:
        """L10/S9: the exact score of finished games, for the side to move (the one
        definition, Position.outcome, once per distinct row)."""
        distinct, inverse = np.unique(rows, axis=0, return_inverse=True)
        points = np.empty(len(distinct))
        for i, position in enumerate(decode(self.rules, distinct)):  # white: the mover
            outcome = position.outcome()
            assert outcome is not None  # a side has borne off 15
            points[i] = outcome.points if outcome.winner == WHITE else -outcome.points
        return points[inverse.reshape(-1)]


def filter_kept(values: npt.NDArray[np.float64], starts: npt.NDArray[np.int64],
          move_filter: MoveFilter) -> npt.NDArray[np.bool_]:
    """The children a filter keeps: per group, the ``keep`` best (ties in T2 order) within
    ``margin`` of the group's best."""
    sizes = np.diff(np.append(starts, len(values)))
    group = np.repeat(np.arange(len(starts)), sizes)
    best = np.maximum.reduceat(values, starts)
    order = np.lexsort((-values, group))  # by group, best first, ties in T2 order (stable)
    rank = np.empty(len(values), dtype=np.int64)
    rank[order] = np.arange(len(values)) - np.repeat(starts, sizes)
    kept: npt.NDArray[np.bool_] = (values >= best[group] - move_filter.margin) & (
        rank < move_filter.keep)
    return kept


def filter_at(filters: Optional[Tuple[MoveFilter, ...]], level: int) -> Optional[MoveFilter]:
    """The filter of the max nodes at ``level`` (0: the root; the last for every level
    below), or None."""
    return None if filters is None else filters[min(level, len(filters) - 1)]


def check_filters(given: object) -> Optional[Tuple[MoveFilter, ...]]:
    """The filters per level of max nodes (the last for every level below), or None."""
    if given is None:
        return None
    filters = (given,) if isinstance(given, MoveFilter) else given
    if isinstance(filters, tuple) and 1 <= len(filters) <= MAX_PLIES:
        checked = []
        for move_filter in filters:
            keep = integer(move_filter.keep) if isinstance(move_filter, MoveFilter) else None
            margin = getattr(move_filter, "margin", None)
            if (keep is None or keep < 1 or not isinstance(margin, (int, float))
                    or isinstance(margin, bool) or not margin >= 0):
                break
            checked.append(MoveFilter(keep, float(margin)))
        else:
            return tuple(checked)
    raise FastNardyError(f"filter must be None, MoveFilter(keep >= 1, margin >= 0) or a tuple "
                         f"of 1 to {MAX_PLIES} of them (one per level), not {given!r}")


def _plies(plies: object) -> int:
    number = integer(plies)
    if number is None or not 0 <= number <= MAX_PLIES:
        raise FastNardyError(f"plies must be an int from 0 to {MAX_PLIES}, not {plies!r}")
    return number


def expectimax(rules: object, boards: object, evaluate: Evaluate, plies: int = 1,
               filter: Filters = None) -> npt.NDArray[np.float64]:
    """V_plies (module docstring) of every board row or packed key, for its side to move:
    a float64 array of N."""
    rules = Rules.of(rules)
    depth = _plies(plies)
    search = Search(rules, evaluate, filter)
    array = checks.array(boards, "boards", InvalidPositionError)
    if array.dtype == _kernel.KEY_DTYPE:
        rows = rows_from_keys(rules, array)
    else:
        keys_from_rows(rules, array)  # checks the rows (InvalidPositionError)
        rows = np.ascontiguousarray(array, dtype=np.int8)
    return search.values(rows, depth)


def best_turn(position: Position, dice: object, evaluate: Evaluate, plies: int = 0,
              filter: Filters = None) -> BestTurn:
    """The legal turn (T1) of ``position`` for ``dice`` whose child has the highest value to
    the side to move, ``-V_plies(child)``: at 0 ply the evaluator on each child, at 1 ply the
    mean over the opponent's 21 rolls of its best reply valued by the evaluator, at 2 ply one
    level more. Ties go to the first in T2 order. IllegalTurnError (T4) once the game is
    over."""
    if not isinstance(position, Position):
        raise InvalidPositionError(f"position must be a Position, not {position!r}")
    roll = _kernel.dice_pair(dice)
    depth = _plies(plies)
    search = Search(position.rules, evaluate, filter)
    turns = position.legal_turns(roll)
    if not turns:
        raise IllegalTurnError("T4", "the game is over: there is no legal turn")
    children, _ = expand(position.rules, encode([position]), np.array([roll]))
    values = search.choose(children, np.zeros(1, dtype=np.int64), depth)
    choice = int(np.argmax(values))
    values[np.isneginf(values)] = np.nan
    return BestTurn(turns[choice], choice, values)
