"""Trained evaluators: a small network on :func:`fastnardy.features`, inference compiled.

An :class:`Evaluator` is an evaluator of :mod:`fastnardy.search` (``inputs`` is
``("features", kind)``): one hidden layer of sigmoid units, then five sigmoid outputs, the
probabilities for the side to move (before it rolls) of

    win, win by mars or more, win by koks / backgammon, lose by mars or more,
    lose by koks / backgammon

(L10, S9: 1, 2 and 3 points, no cube). Its value is the equity in points of those
probabilities: ``2 win - 1 + win_mars + win_3 - lose_mars - lose_3``.

An Evaluator may hold a second network of the same inputs for **races**, as GNU Backgammon
splits its own: positions where each side's checkers have passed the other's (no checker on
a bar, and the mover's rearmost checker ahead of every point the opponent's checkers still
pass), so that no hit or block can happen any more. ``Evaluator(..., race=other)`` values
those by ``other`` and every other position by its own weights, on every path (features,
rows, keys, positions, the search and self-play). In short nardy it may hold a third for
**crashed** boards, as GNU Backgammon does: positions in contact where a side has at most
6 checkers in play, those piled on its 1 and 2 points beyond the first on each not counted
(:func:`crashes`); ``Evaluator(..., race=r, crashed=c)`` values them by ``c``.

An Evaluator may hold a two-sided bear-off database (:mod:`fastnardy.search.bearoff`):
the positions it holds, each side bearing off with at most its checkers, are valued by their
exact entry (win chance, no mars left) on every path but feature arrays, float and int16
alike; :meth:`Evaluator.load` attaches :func:`fastnardy.search.bearoff.database`.

``Evaluator.load("long")`` and ``Evaluator.load("short")`` read the weights shipped in
``fastnardy/weights/`` (fitted by ``examples/train_teacher.py`` to GNU Backgammon's
evaluations in short nardy and to its own 1-ply search in long nardy; ``examples/train_td.py``
trains by TD(lambda) self-play; how each was trained is in its ``metadata`` and in
``docs/weights.md`` in the source tree); ``Evaluator.load(path)`` reads any ``.npz`` that
:meth:`Evaluator.save` wrote.

Inference runs in compiled code (:mod:`fastnardy._nnet`, float32, no BLAS and no thread
pool, without the GIL): on feature arrays (``evaluator(features)``,
:meth:`Evaluator.probabilities`), and straight on board rows, packed keys or positions
(:meth:`Evaluator.evaluate`, :meth:`Evaluator.value`),
whose features are never materialised. The search, self-play and rollouts call the
compiled network directly. An Evaluator is immutable (its arrays are read-only), so one
may be shared by any number of threads.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Callable, Dict, Mapping, NamedTuple, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

from .. import _features, _nnet, checks
from .._utils import npz as _npz
from .bearoff import Database, database
from ..batch import MIRROR_COLUMNS, decode, encode
from ..errors import FastNardyError, InvalidPositionError
from .inputs import ENCODING_CODES, ENCODINGS, WIDTHS
from ..position import Position
from ..rules import Rules

__all__ = ["ARITHMETICS", "OUTPUTS", "Evaluator", "Probabilities", "checked", "crashes",
           "equity", "exact", "exact_rows", "flip", "races", "valued"]

# how an Evaluator values boards: "float" (float32, the oracle) or "int16" (its class docstring)
ARITHMETICS: Tuple[str, ...] = _nnet.ARITHMETICS

# the five outputs, in order (cumulative: a win by 3 points is also a win by mars)
OUTPUTS = ("win", "win_mars", "win_3", "lose_mars", "lose_3")
# the other side's win_mars, win_3, lose_mars, lose_3 (flip)
_FLIP = [3, 4, 1, 2]
_SHIPPED = Path(__file__).parent.parent / "weights"
_ARRAYS = ("hidden_weights", "hidden_bias", "output_weights", "output_bias")
# the networks an Evaluator may hold beside its own (contact): ("race", "crashed")
_CLASSES: Tuple[str, ...] = _features.CLASSES[1:]


class Evaluator:
    """A trained network for one game's feature kind: ``evaluator(features)`` gives the
    equity of each row for its side to move (float64), :meth:`probabilities` the five
    outputs; :meth:`evaluate` and :meth:`value` the same of boards and positions.
    ``hidden_weights`` (F, H), ``hidden_bias`` (H,), ``output_weights`` (H, 5),
    ``output_bias`` (5,), float32 and read-only; ``race`` the Evaluator of races and
    ``crashed`` that of crashed boards (short nardy; module docstring), or None;
    ``bearoff`` the two-sided bear-off database that values the positions it holds instead
    of any network (boards, keys and positions; not feature arrays), or None.
    ``arithmetic`` is how boards are valued: ``"float"`` (float32, the oracle) or
    ``"int16"`` (integer first-layer sums and sigmoids: the same values on every CPU,
    within about 0.001 of the float equity; feature arrays are refused); the race and
    crashed networks have the same."""

    kind: str
    race: Optional["Evaluator"]
    crashed: Optional["Evaluator"]
    bearoff: Optional[Database]
    arithmetic: str

    def __init__(self, kind: str, hidden_weights: npt.ArrayLike, hidden_bias: npt.ArrayLike,
                 output_weights: npt.ArrayLike, output_bias: npt.ArrayLike,
                 metadata: Optional[Mapping[str, Any]] = None,
                 race: Optional["Evaluator"] = None, arithmetic: str = "float",
                 crashed: Optional["Evaluator"] = None,
                 bearoff: Optional[Database] = None) -> None:
        if not isinstance(kind, str) or ENCODINGS.get(kind) is None:
            games = [k for k, game in ENCODINGS.items() if game is not None]
            raise FastNardyError(f"an Evaluator's kind is one of {games}, not {kind!r}")
        arrays = []
        for name, value in zip(_ARRAYS, (hidden_weights, hidden_bias, output_weights,
                                         output_bias)):
            try:
                with np.errstate(over="ignore", invalid="ignore"):  # refused below
                    array = np.array(value, dtype=np.float32)
            except (TypeError, ValueError, OverflowError):
                raise FastNardyError(f"{name} must be an array of numbers, not "
                                     f"{type(value).__name__}") from None
            if not np.isfinite(array).all():
                raise FastNardyError(f"{name} holds a value that is not finite as a float32 "
                                     f"(beyond +-3.4e38, or NaN)")
            arrays.append(array)
        width, (w1, b1, w2, b2) = WIDTHS[kind], arrays
        hidden = w1.shape[1] if w1.ndim == 2 else -1
        if (w1.shape != (width, hidden) or hidden < 1 or b1.shape != (hidden,)
                or w2.shape != (hidden, len(OUTPUTS)) or b2.shape != (len(OUTPUTS),)):
            raise FastNardyError(
                f"{kind!r} weights must be ({width}, H), (H,), (H, {len(OUTPUTS)}), "
                f"({len(OUTPUTS)},), not {w1.shape}, {b1.shape}, {w2.shape}, {b2.shape}")
        checks.choice(arithmetic, "arithmetic", ARITHMETICS)
        for name, other in zip(_CLASSES, (race, crashed)):
            if other is not None and (not isinstance(other, Evaluator) or other.kind != kind
                                      or other.race is not None or other.crashed is not None
                                      or other.arithmetic != arithmetic):
                raise FastNardyError(f"{name} must be an Evaluator of kind {kind!r} and "
                                     f"arithmetic {arithmetic!r} without a race or crashed "
                                     f"network of its own, not {other!r}")
        if bearoff is not None and not isinstance(bearoff, Database):
            raise FastNardyError(f"bearoff must be a fastnardy.search.bearoff.Database or "
                                 f"None, not {bearoff!r}")
        if crashed is not None and ENCODINGS[kind] != "short":
            raise FastNardyError(f"a crashed network is short nardy's; {kind!r} is "
                                 f"{ENCODINGS[kind]} nardy's")
        self.arithmetic = arithmetic
        self.race = race
        self.crashed = crashed
        self.bearoff = bearoff
        self.kind = kind
        self.game: str = ENCODINGS[kind]  # type: ignore[assignment]  # not None: checked
        self.inputs: Tuple[str, str] = ("features", kind)
        for array in arrays:
            array.setflags(write=False)
        self.hidden_weights, self.hidden_bias, self.output_weights, self.output_bias = arrays
        self._network = _nnet.Network(ENCODING_CODES[kind], self.game == "short",
                                      MIRROR_COLUMNS[self.game], w1, b1, w2, b2,
                                      race=None if race is None else race.network,
                                      arithmetic=arithmetic,
                                      crashed=None if crashed is None else crashed.network,
                                      bearoff=None if bearoff is None else bearoff.table)
        try:
            self.metadata: Dict[str, Any] = json.loads(json.dumps(dict(metadata or {})))
        except (TypeError, ValueError):
            raise FastNardyError("metadata must be a mapping that JSON can hold") from None

    @classmethod
    def load(cls, name: Union[str, "os.PathLike[str]"], arithmetic: str = "float",
             bearoff: Union[bool, Database] = True) -> "Evaluator":
        """The shipped evaluator of ``"long"`` or ``"short"`` nardy (default rules), or the
        one saved in the ``.npz`` file at a path, in the ``arithmetic`` given, with the
        two-sided bear-off database (``True``: :func:`fastnardy.search.bearoff.database`;
        ``False``: none; or a :class:`~fastnardy.search.bearoff.Database`)."""
        if not isinstance(bearoff, (bool, Database)):
            raise FastNardyError(f"bearoff must be True, False or a Database, not {bearoff!r}")
        if isinstance(name, str) and name in ("long", "short"):
            path = _SHIPPED / f"{name}.npz"
        elif isinstance(name, (str, os.PathLike)):
            path = Path(name)
        else:
            raise FastNardyError(f"Evaluator.load takes 'long', 'short' or the path of a "
                                 f".npz file, not {name!r}")
        schema = {"kind": _npz.Member("U", ())}
        # the network's, then each other class's under its prefix: race_*, crashed_*
        for prefix, optional in (("", False), *((c + "_", True) for c in _CLASSES)):
            schema.update({prefix + "metadata": _npz.Member("U", (), optional),
                           prefix + "hidden_weights": _npz.Member("f", (None, None), optional),
                           prefix + "hidden_bias": _npz.Member("f", (None,), optional),
                           prefix + "output_weights": _npz.Member("f", (None, None), optional),
                           prefix + "output_bias": _npz.Member("f", (None,), optional)})
        try:
            data = _npz.read(path, schema)
        except FileNotFoundError:
            raise FastNardyError(f"no evaluator file {str(path)!r}") from None
        except FastNardyError as error:
            raise FastNardyError(f"not an evaluator file: {error}") from None
        kind = str(data["kind"][()])
        others: Dict[str, Optional[Evaluator]] = {}
        for name in _CLASSES:
            prefix = name + "_"
            present = [key for key in schema if key.startswith(prefix) and key in data]
            if present and len(present) != 1 + len(_ARRAYS):
                raise FastNardyError(f"not an evaluator file: {str(path)!r} has only "
                                     f"{present} of its {name} network")
            if present:
                w1, b1, w2, b2 = (data[prefix + key] for key in _ARRAYS)
                others[name] = cls(kind, w1, b1, w2, b2, metadata=_npz.json_text(
                    data[prefix + "metadata"], path, prefix + "metadata"), arithmetic=arithmetic)
            else:
                others[name] = None
        w1, b1, w2, b2 = (data[key] for key in _ARRAYS)
        return cls(kind, w1, b1, w2, b2,
                   metadata=_npz.json_text(data["metadata"], path, "metadata"),
                   race=others["race"], arithmetic=arithmetic, crashed=others["crashed"],
                   bearoff=database() if bearoff is True else bearoff or None)

    def __reduce__(self) -> Tuple[Any, ...]:
        # its arrays and parts, not the compiled network (rebuilt where it is unpickled)
        return Evaluator, (self.kind, self.hidden_weights, self.hidden_bias,
                           self.output_weights, self.output_bias, self.metadata, self.race,
                           self.arithmetic, self.crashed, self.bearoff)

    def save(self, filename: Union[str, "os.PathLike[str]"]) -> None:
        """Write the weights and metadata to a ``.npz`` file (compressed, no pickles), written
        whole beside and renamed into place, so a reader never sees half a file and a failed
        write leaves none. FastNardyError when the file cannot be written."""
        if not isinstance(filename, (str, os.PathLike)) or not str(filename).endswith(".npz"):
            raise FastNardyError(f"an evaluator is saved to a path ending in .npz, not "
                                 f"{filename!r}")
        members = {"kind": np.array(self.kind)}
        for prefix, net in (("", self), ("race_", self.race), ("crashed_", self.crashed)):
            if net is not None:
                members[prefix + "metadata"] = np.array(json.dumps(net.metadata, sort_keys=True))
                members.update({prefix + key: getattr(net, key) for key in _ARRAYS})
        _npz.write(filename, members)

    def probabilities(self, features: npt.ArrayLike) -> npt.NDArray[np.float32]:
        """The five outputs (``OUTPUTS``) of each row of an (N, F) feature array: (N, 5)."""
        rows = _real(features, f"{self.kind!r} features", len(self.hidden_weights),
                     np.float32)
        return self._network.of_features(np.ascontiguousarray(rows))

    def __call__(self, features: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """The equity of each row for its side to move: (N,) float64."""
        return equity(self.probabilities(features))

    def evaluate(self, boards: object, probabilities: bool = False) -> npt.NDArray[Any]:
        """The equity (N,) float64 for the side to move of each board row (N, 50), packed
        key (KEY_DTYPE) or Position (or a list of them) of the evaluator's game, or with
        ``probabilities`` the five outputs (N, 5) float32; no feature array is made."""
        if not isinstance(probabilities, bool):
            raise FastNardyError(f"probabilities must be True or False, not {probabilities!r}")
        if isinstance(boards, Position):
            boards = [boards]
        if isinstance(boards, (list, tuple)) and boards and all(
                isinstance(b, Position) for b in boards):
            if any(b.rules.game != self.game for b in boards):
                raise InvalidPositionError(f"this evaluator values {self.game} nardy "
                                           f"positions only")
            boards = encode(list(boards), keys=True)
        else:
            boards = checks.array(boards, "boards", InvalidPositionError)
        network = self._network
        return network.probabilities(boards) if probabilities else network.equities(boards)

    def value(self, position: Position) -> float:
        """The equity of ``position`` for its side to move (no look-ahead)."""
        position = checks.position(position, Position)
        if position.rules.game != self.game:
            raise InvalidPositionError(f"this evaluator values {self.game} nardy positions only")
        lo, hi = position.key
        return self._network.key_equity(lo, hi)

    @property
    def network(self) -> "_nnet.Network":
        """The compiled network (what the search and self-play call, without Python)."""
        return self._network

    def __repr__(self) -> str:
        others = "".join(f" {name} hidden={len(net.hidden_bias)}"
                         for name, net in zip(_CLASSES, (self.race, self.crashed))
                         if net is not None)
        arithmetic = "" if self.arithmetic == "float" else f" {self.arithmetic}"
        return f"<Evaluator {self.kind!r} hidden={len(self.hidden_bias)}{others}{arithmetic}>"


def checked(value: object, rules: object) -> Evaluator:
    """``value``, checked to be an :class:`Evaluator` of the game of ``rules``."""
    game = Rules.of(rules).game
    if not isinstance(value, Evaluator):
        raise FastNardyError(f"evaluator must be a fastnardy.search.network.Evaluator, not "
                             f"{value!r}")
    if value.game != game:
        raise FastNardyError(f"the evaluator is for {value.game} nardy, not {game} nardy")
    return value


def races(rules: object, boards: object) -> npt.NDArray[np.bool_]:
    """True for each board row (N, 50) or packed key (``KEY_DTYPE``) of the game of
    ``rules`` that is a race (module docstring), the positions a race network values;
    checked as :func:`fastnardy.features` checks them (InvalidPositionError)."""
    game = Rules.of(rules).game
    found: npt.NDArray[np.bool_] = _classes(game, boards) == _features.CLASSES.index("race")
    return found


def crashes(rules: object, boards: object) -> npt.NDArray[np.bool_]:
    """True for each board row (N, 50) or packed key (``KEY_DTYPE``) of short nardy (as
    ``rules`` say) that is crashed (module docstring: in contact, a side with at most 6
    checkers in play), the positions a crashed network values; checked as
    :func:`fastnardy.features` checks them (InvalidPositionError)."""
    if Rules.of(rules).game != "short":
        raise FastNardyError("crashed boards are short nardy's (GNU Backgammon's class)")
    code = _features.CLASSES.index("crashed")
    found: npt.NDArray[np.bool_] = _classes("short", boards) == code
    return found


def _classes(game: str, boards: object) -> npt.NDArray[np.int8]:
    """_features.classes of board rows or packed keys of ``game``."""
    array = checks.array(boards, "boards", InvalidPositionError)
    if array.dtype.names is not None:  # packed keys, as fastnardy._features reads boards
        array = _features.rows_of_keys(game == "short", array)
    found: npt.NDArray[np.int8] = _features.classes(game == "short", array,
                                                    MIRROR_COLUMNS[game])
    return found


def equity(probabilities: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """The equity in points of (N, 5) outputs, for their side to move: ``2 win - 1 +
    win_mars + win_3 - lose_mars - lose_3``, summed in that order in float64 as the compiled
    network sums it (so the equity of :meth:`Evaluator.evaluate`'s outputs is its equity,
    bit for bit)."""
    p = _real(probabilities, "probabilities", len(OUTPUTS), np.float64)
    values: npt.NDArray[np.float64] = 2.0 * p[:, 0] + p[:, 1]
    values += p[:, 2]
    values -= p[:, 3]
    values -= p[:, 4]
    values -= 1.0
    return values


def flip(probabilities: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """The five outputs seen by the other side: win <-> lose, mars and koks swapped."""
    p = checks.array(probabilities, "probabilities")
    if p.ndim < 1 or p.shape[-1] != len(OUTPUTS) or p.dtype.kind not in "biuf":
        raise FastNardyError(f"probabilities must be numbers, {len(OUTPUTS)} of them in "
                             f"each row, not {p.dtype} {p.shape}")
    p = p.astype(np.float64)
    out = np.empty_like(p)
    out[..., 0] = 1.0 - p[..., 0]
    out[..., 1:] = p[..., _FLIP]
    return out


class Probabilities(NamedTuple):
    """The five outputs (:data:`~fastnardy.search.network.OUTPUTS`) of a position for its
    side to move, before it rolls (L10, S9: 1, 2 and 3 points, no cube; cumulative: a win by
    koks is a win by mars too), as wildbg's ``Probabilities``."""

    win: float
    """The chance to win."""
    win_mars: float
    """The chance to win by mars / gammon or more."""
    win_3: float
    """The chance to win by koks / backgammon (3 points)."""
    lose_mars: float
    """The chance to lose by mars / gammon or more."""
    lose_3: float
    """The chance to lose by koks / backgammon."""

    @classmethod
    def of(cls, outputs: npt.ArrayLike) -> "Probabilities":
        """The Probabilities of five outputs (one row of an (N, 5) array)."""
        row = _real(np.reshape(checks.array(outputs, "probabilities"), (1, -1)),
                    "probabilities", len(OUTPUTS), np.float64)
        return cls(*(float(p) for p in row[0]))

    @classmethod
    def exact(cls, position: Position) -> "Probabilities":
        """L10/S9: those of a finished game, to its side to move (who has lost)."""
        return cls.of(exact(position))

    @property
    def equity(self) -> float:
        """The equity in points (:func:`equity`: ``2 win - 1 + win_mars + win_3 - lose_mars
        - lose_3``)."""
        return float(equity(np.array([self]))[0])

    def flipped(self) -> "Probabilities":
        """The same seen by the other side."""
        return Probabilities.of(flip(np.array(self)))

    def as_dict(self) -> Dict[str, float]:
        """For JSON: each output by name, to 6 places."""
        return {name: round(p, 6) for name, p in zip(OUTPUTS, self)}


def exact(position: Position) -> npt.NDArray[np.float64]:
    """L10/S9: the outputs of a finished game to its side to move (who has lost)."""
    position = checks.position(position, Position)
    outcome = position.outcome()
    if outcome is None:
        raise FastNardyError("the game is not over: its outputs are not exact")
    won = np.array([1.0, outcome.points >= 2, outcome.points >= 3, 0.0, 0.0])
    return won if outcome.winner == position.turn else flip(won)


def exact_rows(rules: object, rows: npt.NDArray[np.int8]) -> npt.NDArray[np.float64]:
    """:func:`exact` of board rows of finished games, (N, 5)."""
    return np.array([exact(position) for position in decode(Rules.of(rules), rows)]
                    ).reshape(-1, len(OUTPUTS))


def valued(rules: object, rows: npt.NDArray[np.int8],
           live: Callable[[npt.NDArray[np.int8]], npt.ArrayLike]) -> npt.NDArray[np.float64]:
    """(N, 5) outputs of board rows to their side to move: a finished game's exact
    (:func:`exact_rows`, L10, S9), the others ``live``'s of those rows (one call, none when
    every game is finished): an engine's values with the rules' own at the end."""
    game = Rules.of(rules)
    boards = checks.rows(rows)
    if not callable(live):
        raise FastNardyError(f"live must be a function of rows, not {type(live).__name__}")
    out = np.empty((len(boards), len(OUTPUTS)))
    finished = _features.winners(boards) != 0
    out[finished] = exact_rows(game, boards[finished])
    if not finished.all():
        out[~finished] = live(boards[~finished])
    return out


def _real(given: object, name: str, width: int, dtype: type) -> npt.NDArray[Any]:
    """An (N, width) array of finite real numbers as ``dtype``, or FastNardyError."""
    try:
        array = np.asarray(given)
    except (TypeError, ValueError):  # ragged nesting
        array = np.empty(0, dtype=object)
    if array.dtype.kind not in "biuf":
        raise FastNardyError(f"{name} must be an array of real numbers, not "
                             f"{type(given).__name__} of {array.dtype}")
    if array.ndim != 2 or array.shape[1] != width:
        raise FastNardyError(f"{name} must be (N, {width}), not {array.shape}")
    if array.dtype == dtype:
        out: npt.NDArray[Any] = array.copy()
    else:
        with np.errstate(over="ignore"):  # a float64 past float32's range: inf, refused
            out = array.astype(dtype)
    if not np.isfinite(out).all():
        raise FastNardyError(f"{name} must be finite {np.dtype(dtype).name} numbers")
    return out
