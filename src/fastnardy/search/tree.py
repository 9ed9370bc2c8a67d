"""Search over batches: n-ply expectimax, the evaluator called once per level of the tree;
cubeless, or over cube states (the cubeful search of GNU Backgammon).

**Values.** The value of a position is the equity in points of its side to move, before it
rolls: +2 is a mars won, -1 an oin lost (L10, S9). An evaluator estimates it; the search
computes it from the values of the positions further on:

    V_0(x) = evaluate(x)
    V_k(x) = sum over the 21 rolls r (T5) of p(r) * max over the children c of (x, r) of -V_{k-1}(c)

with p(r) = 1/36 for a double and 2/36 otherwise. A child is the position after one legal
turn (T1; a pass is one child), the other side to move, so its value is negated. A finished
game (L9/S9: a side has borne off its 15th checker) is never evaluated: at every depth its
value is the exact score of :meth:`fastnardy.Position.outcome` (no cube), +points when the
side to move has won, -points when it has lost (:func:`fastnardy.batch.scores`).

**Cubeful values** (:meth:`Search.cubeful`, an :class:`~fastnardy.search.network.Evaluator`'s
search) are the same recursion over cube states (:class:`~fastnardy.search.cubeful.Cube`), as
gnubg's ``EvaluatePositionCubeful``: at 0 ply the cube model of the five outputs
(:mod:`fastnardy.search.cubeful`); deeper, for each roll the turn the mover takes (by its
cubeful value under the first cube, among those the filter keeps), the opponent taking its
proper cube action at every node below; the mean over the rolls, in money equity per stake
or, in a match, as a match-winning chance.

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
position of ``legal_turns(roll)[i]``. Children grouped by their max node are given with the
``offsets`` of the groups (group i is ``children[offsets[i]:offsets[i + 1]]``, every group
non-empty), the one layout of :func:`fastnardy.batch.segment_argmax`.

**Move filters** (as GNU Backgammon's): at a max node whose children are searched one ply or
more deeper, every child is first valued at 0 ply (one evaluator call for the whole level)
and only the ``keep`` best within ``margin`` points of the best are searched deeper; the
others cannot be chosen, and keep their 0-ply value. Without a filter the search is
full-width. ``filter`` is one MoveFilter for every level, or a tuple of them, one per level
of max nodes from the root down (the last one for the levels below it). :data:`GNUBG_FILTERS`
is GNU Backgammon's way: the root's candidates screened by ``MoveFilter(8, 0.16)``, and at
every max node inside the tree only the best child at 0 ply searched deeper
(``MoveFilter(1, 0.0)``: gnubg chooses the move of each roll of its look-ahead at 0 ply).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

from .. import _features, _kernel, checks
from .._utils.executors import Flag
from ..batch import (PROBABILITY, chance_expand, encode, expand, keys_from_rows, roll_mean,
                     rows_from_keys, scores, segment_argmax)
from ..errors import FastNardyError, IllegalTurnError, InvalidPositionError, integer
from ..position import Position, Turn
from ..rules import Rules
from .cubeful import (BEAROFF_EFFICIENCY, Cube, cubes_of, decide, exact_money, leaves_of,
                      normalised, offered, offers, under)
from .inputs import ENCODINGS, features
from .met import MatchEquityTable
from .network import OUTPUTS, Evaluator, equity, exact_rows, flip

__all__ = ["BestTurn", "Evaluator", "GNUBG_FILTERS", "MAX_PLIES", "MoveFilter", "Ranked",
           "Search", "best_turn", "evaluator", "expectimax"]

Inputs = Union[str, Tuple[str, str]]
Evaluate = Callable[[npt.NDArray[Any]], npt.ArrayLike]
MAX_PLIES = 3  # the deepest search of an evaluator
# at most this many rows' chance nodes are expanded together, so that a search's memory is
# bounded at any depth and width (long nardy's full 2 ply of its benchmark set had asked for
# 18 GB at once)
EXPAND_ROWS = 4096
# with a stop flag (Search.line), rows expanded at a time: a look at the flag every few
# hundredths of a second at 2 plies
STOP_ROWS = 128
_ROLLS = len(PROBABILITY)  # T5: the 21 rolls of a chance node


class MoveFilter(NamedTuple):
    """Search at most ``keep`` children of a max node deeper, those within ``margin`` points
    of the best at 0 ply."""

    keep: int = 8
    margin: float = 0.16


GNUBG_FILTERS = (MoveFilter(8, 0.16), MoveFilter(1, 0.0))
Filters = Union[None, MoveFilter, Tuple[MoveFilter, ...]]


class BestTurn(NamedTuple):
    """:func:`best_turn`'s answer."""

    turn: Turn
    """The chosen turn: the first best in T2 order."""
    choice: int
    """Its index in ``legal_turns(dice)``."""
    values: npt.NDArray[np.float64]
    """The value of every candidate to the side to move, in T2 order (float64), at the depth
    in ``plies``."""
    plies: npt.NDArray[np.int64]
    """The depth each candidate was valued at: the search's, or 0 for one the filter
    dropped (which cannot be chosen)."""


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


Values = npt.NDArray[np.float64]
# a level's values (N,) or (N, cubes), and the five outputs of its line (N, 5) or None
_Searched = Tuple[Values, Optional[Values]]


class _Cubeless:
    """How a level of a cubeless search values its rows: V of each for its side to move, and
    with ``outputs`` the five outputs of the line (:meth:`Search.line`)."""

    shape: Tuple[int, ...] = ()

    def __init__(self, outputs: bool) -> None:
        self.outputs = outputs

    def below(self) -> "_Cubeless":
        return self

    def first(self) -> "_Cubeless":
        return self

    def leaf(self, search: "Search", rows: npt.NDArray[np.int8]) -> _Searched:
        if not self.outputs:
            return search.leaves(rows), None
        assert search.network is not None
        search.evaluations += len(rows)
        out = search.network.probabilities(rows).astype(np.float64)
        return equity(out), out

    def exact(self, search: "Search", rows: npt.NDArray[np.int8]) -> _Searched:
        return scores(search.rules, rows), exact_rows(search.rules, rows) if self.outputs \
            else None

    def worth(self, values: Values) -> Values:
        """The worth of children to the mover who chooses among them: -V."""
        return -values

    def up(self, values: Values, worth: Values) -> Values:
        """A level's values from its chosen children's, (N, 21, ...) per roll."""
        return roll_mean(worth)


class _Cubes:
    """How a level of a cubeful search values its rows: the model's value (money equity per
    stake, or a match-winning chance) of each row for its side to move under each of
    ``cubes``, the mover taking its proper cube action unless ``top`` (gnubg's ``GetECF3``);
    the five outputs of the line beside them."""

    outputs = True

    def __init__(self, rules: Rules, cubes: Sequence[Cube], top: bool) -> None:
        self.rules, self.cubes = rules, list(cubes)
        self.table: Optional[MatchEquityTable] = self.cubes[0].table(rules.game)
        self.shape = (len(self.cubes),)
        self.states: List[Optional[Cube]] = []  # each cube's no double, then double, take
        for cube in self.cubes:
            self.states += [cube, cube.taken() if (not top and cube.may_offer) else None]
        # the bear-off database's money equities value its positions (geometric stakes, C3)
        self.exact_money = self.table is None and all(
            s is None or s.stakes == "geometric" for s in self.states)

    def below(self) -> "_Cubes":
        """The children's cubes: each state's, turned to the opponent, who decides."""
        return _Cubes(self.rules, [s.turned() for s in self.states if s is not None], False)

    def first(self) -> "_Cubes":
        """The way of the first cube alone: what the mover chooses its turn by."""
        if len(self.cubes) == 1:
            return self
        return _Cubes(self.rules, self.cubes[:1], not self.states[1])

    def leaf(self, search: "Search", rows: npt.NDArray[np.int8]) -> _Searched:
        assert search.evaluator is not None
        p, x, over = leaves_of(self.rules, search.evaluator, rows)
        search.evaluations += int((~over).sum())
        database = getattr(search.evaluator, "bearoff", None)
        # a bear-off (every checker home) has the bear-off efficiency: none, no lookup
        if database is None or not self.exact_money or not (x == BEAROFF_EFFICIENCY).any():
            return decide(under(p, x, self.states, self.table), self.states, self.table), p
        held, exact = exact_money(rows, self.states, database)
        if not len(exact):
            return decide(under(p, x, self.states, self.table), self.states, self.table), p
        values = np.empty((len(rows), len(self.states)))
        values[held] = exact
        if not held.all():
            values[~held] = under(p[~held], x[~held], self.states, self.table)
        return decide(values, self.states, self.table), p

    exact = leaf  # a finished game's outputs are exact, its efficiency 0: the score

    def worth(self, values: Values) -> Values:
        """The worth of children to the mover who chooses among them: its normalised
        equity under its first cube (the children's first, turned back)."""
        mine = -values[:, 0] if self.table is None else 1.0 - values[:, 0]
        out: Values = normalised(mine, self.cubes[0].turned(), self.table)
        return out

    def up(self, values: Values, worth: Values) -> Values:
        """A level's values from its chosen children's, (N, 21, cubes below) per roll: the
        mean over the rolls, to this level's mover, who then takes its proper action."""
        mean = roll_mean(values)
        full = np.zeros((len(mean), len(self.states)))
        full[:, [i for i, s in enumerate(self.states) if s is not None]] = mean
        mine = -full if self.table is None else 1.0 - full
        return decide(mine, self.states, self.table)


_Way = Union[_Cubeless, _Cubes]


class Ranked(NamedTuple):
    """:meth:`Search.rank`'s answer: per child, to the mover who chooses it."""

    worth: Values
    """What the child is worth to the mover: -V (cubeless points), or its cubeful equity,
    normalised, in stakes; a child the filter dropped keeps its 0-ply worth."""
    equity: Values
    """The cubeless equity of the same search (``worth`` when cubeless): what breaks a
    cubeful tie."""
    outputs: Optional[Values]
    """The five outputs of the child's line (N, 5), the mover's view, when asked."""
    plies: npt.NDArray[np.int64]
    """The depth the child was valued at: the search's, or 0 for one the filter dropped."""

    def best(self, offsets: npt.ArrayLike) -> npt.NDArray[np.int64]:
        """The index of each group's choice: the highest worth among those searched to the
        full depth, then the highest cubeless equity, then the first in T2 order."""
        offsets = checks.offsets(offsets, len(self.worth))
        searched = self.plies == self.plies.max(initial=0)
        worth = np.where(searched, self.worth, -np.inf)
        if self.equity is self.worth:  # cubeless: the worth is the equity
            out: npt.NDArray[np.int64] = offsets[:-1] + segment_argmax(worth, offsets)
            return out
        group = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
        order = np.lexsort((np.arange(len(worth)), -self.equity, -worth, group))
        chosen: npt.NDArray[np.int64] = order[offsets[:-1]]
        return chosen

    def order(self) -> List[int]:
        """The children of one max node best first (:meth:`best`'s order), those the filter
        dropped last."""
        dropped = self.plies != self.plies.max(initial=0)
        order: List[int] = np.lexsort((np.arange(len(self.worth)), -self.equity, -self.worth,
                                       dropped)).tolist()
        return order


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
        self.evaluator = evaluate if isinstance(evaluate, Evaluator) else None
        self.network = None if self.evaluator is None else self.evaluator.network
        self.filters = check_filters(filter)
        self.evaluations = 0  # positions handed to the evaluator so far

    def leaves(self, rows: npt.ArrayLike) -> Values:
        """The evaluator on rows of unfinished games: one call."""
        rows = checks.rows(rows)
        if not len(rows):
            return np.empty(0)
        self.evaluations += len(rows)
        if self.network is not None:
            values: Values = self.network.equities(rows)
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

    def values(self, rows: npt.ArrayLike, plies: int, level: int = 0) -> Values:
        """V_plies of every row, for its side to move; ``level``: the level of max nodes
        below these rows (0 at the root's children), which picks the filter."""
        return self._search(checks.rows(rows), check_plies(plies), _level(level),
                            _Cubeless(False), None)[0]

    def line(self, rows: npt.ArrayLike, plies: int, level: int = 0,
             stop: Optional[Flag] = None) -> Tuple[Values, Values]:
        """:meth:`values`' floats and the five outputs (N, 5) of the line they value, to each
        row's side to move: at 0 ply the network's (their :func:`~fastnardy.search.network.equity`
        is the value, bit for bit), a finished game's exact ones (L10, S9); at 1 ply or more
        the mean over the 21 rolls (T5) of the outputs at ``plies - 1`` of the child the
        search takes at each roll (the best among those the filter keeps, the first of equals
        in T2 order), flipped. An :class:`~fastnardy.search.network.Evaluator`'s search only.
        With a ``stop`` flag, STOP_ROWS rows are expanded at a time and KeyboardInterrupt
        comes before the next group once it is set."""
        self._needs_network("the outputs of a search")
        if stop is not None and not callable(getattr(stop, "is_set", None)):
            raise FastNardyError(f"stop must be None or a flag with is_set(), not {stop!r}")
        values, outputs = self._search(checks.rows(rows), check_plies(plies), _level(level),
                                       _Cubeless(True), stop)
        assert outputs is not None
        return values, outputs

    def cubeful(self, rows: npt.ArrayLike, cubes: Sequence[Cube], plies: int,
                level: int = 0, top: bool = False) -> Tuple[Values, Values]:
        """The cubeful values (N, len(cubes)) of the rows for their side to move under each
        of ``cubes`` (the mover's view; one match score and table for all), at ``plies``
        (module docstring), in money equity per stake or a match-winning chance, the mover
        taking its proper cube action unless ``top``; and the cubeless outputs (N, 5) of the
        line the cubeful search follows. An Evaluator's search only."""
        self._needs_network("a cubeful search")
        given = cubes_of(cubes)
        if len({(cube.length, cube.score, cube.crawford, id(cube.met)) for cube in given}) > 1:
            raise FastNardyError("the cubes of one cubeful search share one match: its "
                                 "length, score, Crawford game and table")
        way = _Cubes(self.rules, given, checks.flag(top, "top"))
        values, outputs = self._search(checks.rows(rows), check_plies(plies), _level(level),
                                       way, None)
        assert outputs is not None
        return values, outputs

    def cube_equities(self, rows: npt.ArrayLike, cubes: Sequence[Cube], plies: int
                      ) -> Tuple[Values, Values]:
        """For each row of an unfinished game and its own cube (the side to move's view), the
        no double, double take and double pass equities at ``plies``, normalised (N, 3;
        double, take NaN past 64), and the outputs (N, 5) of the line (the no double's)."""
        rows = checks.rows(rows)
        given = cubes_of(cubes, len(rows))
        plies = check_plies(plies)
        equities, outputs = np.empty((len(rows), 3)), np.empty((len(rows), len(OUTPUTS)))
        groups: Dict[Cube, List[int]] = {}
        for i, cube in enumerate(given):
            groups.setdefault(cube, []).append(i)
        for cube, members in groups.items():
            at = np.array(members)
            values, outputs[at] = self.cubeful(rows[at], offered(cube), plies, top=True)
            equities[at] = offers(values, cube, cube.table(self.rules.game))
        return equities, outputs

    def choose(self, children: npt.ArrayLike, offsets: npt.ArrayLike,
               plies: int, level: int = 0) -> Values:
        """-V_plies of children grouped by max node (module docstring), to the mover of the
        node; -inf for those a filter drops. ``level`` is the level of these max nodes (0:
        the root)."""
        children = checks.rows(children, "children")
        bounds = checks.offsets(offsets, len(children))
        return self._choose(children, bounds[:-1], check_plies(plies), _level(level),
                            _Cubeless(False), None)[2]

    def rank(self, children: npt.ArrayLike, offsets: npt.ArrayLike,
             plies: int, cube: Optional[Cube] = None, outputs: bool = False) -> Ranked:
        """Every child of root max nodes valued for the mover who chooses it (:class:`Ranked`),
        cubeless, or cubeful under ``cube`` (the mover's: the opponent to move after the turn
        takes its proper cube action), the root filter keeping those searched to ``plies``;
        with ``outputs`` the five outputs of each child's line (always with a cube)."""
        plies = check_plies(plies)
        children = checks.rows(children, "children")
        bounds = checks.offsets(offsets, len(children))
        if cube is None:
            way: _Way = _Cubeless(checks.flag(outputs, "outputs"))
        else:
            self._needs_network("a cubeful search")
            way = _Cubes(self.rules, [Cube.of(cube).turned()], False)
        values, out, keys = self._choose(children, bounds[:-1], plies, 0, way, None)
        kept = keys > -np.inf
        worth = way.worth(values)
        mine = None if out is None else flip(out)
        equities = worth if cube is None or mine is None else equity(mine)
        return Ranked(worth, equities, mine, np.where(kept, plies, 0))

    def _needs_network(self, what: str) -> None:
        if self.evaluator is None:
            raise FastNardyError(f"{what} needs an Evaluator, not {self.evaluate!r}")

    def _search(self, rows: npt.NDArray[np.int8], plies: int, level: int, way: _Way,
                stop: Optional[Flag]) -> _Searched:
        """The one recursion: the values of rows under ``way`` at ``plies``, with the
        outputs of their line when ``way`` carries them (else None)."""
        finished = _features.winners(rows) != 0
        held = self._held(rows, plies, way)
        if not finished.any() and not held.any():
            return self._live(rows, plies, level, way, stop)
        values = np.empty((len(rows),) + way.shape)
        out: Optional[Values] = np.empty((len(rows), len(OUTPUTS)))
        live = ~(finished | held)
        parts: Tuple[Tuple[npt.NDArray[np.bool_], Callable[[], _Searched]], ...] = (
            (finished, lambda: way.exact(self, rows[finished])),
            (held, lambda: way.leaf(self, rows[held])),
            (live, lambda: self._live(rows[live], plies, level, way, stop)))
        for part, searched in parts:
            if not part.any():
                continue
            found, seen = searched()
            values[part] = found
            if seen is None:
                out = None
            elif out is not None:
                out[part] = seen
        return values, out

    def _held(self, rows: npt.NDArray[np.int8], plies: int, way: _Way) -> npt.NDArray[np.bool_]:
        """The rows whose value at any plies is their value at 0 ply: those the evaluator's
        bear-off database holds (exact), cubeless or in money play (a match's cube keeps
        the model, searched)."""
        database = getattr(self.evaluator, "bearoff", None)
        if plies == 0 or database is None or not getattr(way, "exact_money", True):
            return np.zeros(len(rows), dtype=bool)
        found: npt.NDArray[np.bool_] = database.covers(rows)
        return found

    def _live(self, rows: npt.NDArray[np.int8], plies: int, level: int, way: _Way,
              stop: Optional[Flag]) -> _Searched:
        """:meth:`_search` of rows of unfinished games; EXPAND_ROWS rows at a time, or
        STOP_ROWS with a ``stop`` flag (each row's value is its own subtree's, so the same
        values in any split)."""
        if plies == 0 or not len(rows):
            return way.leaf(self, rows)
        group = EXPAND_ROWS if stop is None else STOP_ROWS
        if len(rows) > group:
            parts = [self._live(rows[i:i + group], plies, level, way, stop)
                     for i in range(0, len(rows), group)]
            outputs = [part[1] for part in parts if part[1] is not None]
            return (np.concatenate([part[0] for part in parts]),
                    np.concatenate(outputs) if outputs else None)
        if stop is not None and stop.is_set():
            raise KeyboardInterrupt("the search was stopped")
        node = chance_expand(self.rules, rows)
        starts = node.offsets[:-1]
        below = way.below()
        values, out, keys = self._choose(node.children, starts, plies - 1, level + 1, below,
                                         stop)
        if out is None and isinstance(way, _Cubeless):  # each roll's best value is enough
            best_values = np.maximum.reduceat(keys, starts)
            return roll_mean(best_values.reshape(-1, _ROLLS)), None
        best = starts + segment_argmax(keys, node.offsets)
        up = way.up(values[best].reshape((-1, _ROLLS) + below.shape),
                    keys[best].reshape(-1, _ROLLS))
        if out is None:
            return up, None
        return up, roll_mean(flip(out[best]).reshape(-1, _ROLLS, len(OUTPUTS)))

    def _choose(self, children: npt.NDArray[np.int8], starts: npt.NDArray[np.int64],
                plies: int, level: int, way: _Way, stop: Optional[Flag]
                ) -> Tuple[Values, Optional[Values], Values]:
        """The children of max nodes (``starts``: the first child of each) at ``level``:
        their values under ``way`` at ``plies`` (a child the filter drops keeps its 0-ply
        value), their outputs when ``way`` carries them, and their worth to the mover who
        chooses (-inf for a child the filter drops)."""
        move_filter = filter_at(self.filters, level)
        first = way.first()  # what the mover chooses by; the same way where one cube
        if (move_filter is None and plies) or (first is way and plies == 0):
            values, out = self._search(children, plies, level, way, stop)
            return values, out, way.worth(values)
        quick, out = self._search(children, 0, level, first, stop)
        worth = first.worth(quick)
        if plies == 0:  # each max node's choice, valued under every cube
            kept = np.zeros(len(children), dtype=bool)
            kept[starts + segment_argmax(worth, np.append(starts, len(children)))] = True
        else:
            assert move_filter is not None
            kept = filter_kept(worth, starts, move_filter)
        # a child the filter drops keeps its 0-ply value (read where there is one cube)
        values = quick if first is way else np.full((len(children),) + way.shape, np.nan)
        values[kept], deep_out = self._search(children[kept], plies, level, way, stop)
        if out is not None:
            out[kept] = deep_out
        if plies:
            worth[~kept] = -np.inf
            worth[kept] = way.worth(values[kept])
        return values, out, worth


def _level(level: object) -> int:
    """A level of max nodes: 0 (the root) to MAX_PLIES."""
    return checks.number(level, "level", 0, MAX_PLIES)


def filter_kept(values: Values, starts: npt.NDArray[np.int64],
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


def check_plies(plies: object) -> int:
    """A depth of the search: 0 to :data:`MAX_PLIES`."""
    return checks.number(plies, "plies", 0, MAX_PLIES)


def expectimax(rules: object, boards: object, evaluate: Evaluate, plies: int = 1,
               filter: Filters = None) -> Values:
    """V_plies (module docstring) of every board row or packed key, for its side to move:
    a float64 array of N."""
    rules = Rules.of(rules)
    depth = check_plies(plies)
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
    position = checks.position(position, Position)
    roll = _kernel.dice_pair(dice)
    depth = check_plies(plies)
    search = Search(position.rules, evaluate, filter)
    turns = position.legal_turns(roll)
    if not turns:
        raise IllegalTurnError("T4", "the game is over: there is no legal turn")
    children, _ = expand(position.rules, encode([position]), np.array([roll]))
    ranked = search.rank(children, np.array([0, len(children)]), depth)
    choice = int(ranked.best(np.array([0, len(children)]))[0])
    return BestTurn(turns[choice], choice, ranked.worth, ranked.plies)
