"""The one player protocol: a :class:`Player` is made from an evaluation setting
(:class:`~fastnardy.search.setting.Setting`, or its text: ``net:2``, ``greedy``,
``gnubg:expert`` …) by :func:`player`, the same at every door (``fastnardy match``,
``benchmark-error``, ``play``, ``serve``, the analysis, the rollouts). It plays games over
numpy batches of board rows: one turn for each row and its dice, and with the cube (C1-C8)
its offers and answers. A player is a context manager: ``with player("gnubg:expert",
"short") as bot: ...`` closes what it holds (GNU Backgammon's processes).

* ``random``: uniform over the legal turns, seeded; ``greedy``: the first best turn by
  :func:`greedy_scores` (the kernel's greedy policy, compiled, is its twin). Neither knows the
  cube: they never offer and always take.
* a network's setting (:class:`Searcher`): the turn :meth:`fastnardy.search.tree.Search.rank`
  puts first at the setting's plies and filter, as :func:`fastnardy.analysis.evaluation.hint` ranks
  them (with a cube in play cubeful, the opponent taking its proper cube action after the
  turn, unless the setting is cubeless); its cube decisions those of
  :func:`fastnardy.analysis.evaluation.cube_decision` at the setting's plies.
* ``gnubg:PRESET[:PLIES]`` (:class:`GnubgPlayer`, short nardy): GNU
  Backgammon's own move and cube decisions.
* ``gnubg-nn[:PLIES]`` (:class:`GnubgNnPlayer`, short nardy): GNU Backgammon's networks in
  process, its cubeless moves; no cube.
* ``bgsage[:PLIES]`` (:class:`BgsagePlayer`, short nardy): bgsage's own move and cube
  decisions.

Another engine plugs in here: subclass :class:`Player` (its :meth:`Player.pick`, and
:meth:`Player.cube_equities` to use the cube) and every door plays it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from types import TracebackType
from typing import Dict, List, Optional, Sequence, Tuple, Type, Union

import numpy as np
import numpy.typing as npt

from .. import _kernel, checks
from ..basics import ROW_WIDTH
from ..basics import Roll
from ..batch import decode, encode, expand, offsets as offsets_of, segment_argmax
from ..errors import EngineError, FastNardyError, IllegalTurnError, InvalidDiceError
from ..notation import format_rules
from ..position import Position, Turn
from ..rules import Rules
from ..search.cubeful import Cube, cubes_of
from ..search.network import equity
from ..search.setting import Setting, setting as as_setting
from ..search.tree import Search
from .bgsage import Bgsage, chosen as bgsage_chosen
from .gnubg import Gnubg, chosen
from .gnubg_nn import GnubgNn

__all__ = ["BgsagePlayer", "GnubgNnPlayer", "GnubgPlayer", "Greedy", "Player", "Random",
           "Searcher", "UbgiPlayer", "greedy_scores", "player"]

HALF = ROW_WIDTH // 2
Rows = npt.NDArray[np.int8]
Indices = npt.NDArray[np.int64]
Values = npt.NDArray[np.float64]


def _rolls(value: object, count: int) -> Rows:
    """The dice of ``count`` rows: (count, 2) integers from 1 to 6."""
    thrown = checks.array(value, "dice", InvalidDiceError)
    if thrown.shape != (count, 2) or thrown.dtype.kind not in "iu" \
            or not ((thrown >= 1) & (thrown <= 6)).all():
        raise InvalidDiceError(f"dice must be two dice from 1 to 6 for each of the {count} "
                               f"rows, not {thrown.dtype} {thrown.shape}")
    return thrown.astype(np.int8)


def _cubes(value: object, rows: int) -> Optional[List[Cube]]:
    """One cube context per row, or None (a game without the cube)."""
    return None if value is None else cubes_of(value, rows)


def _cube_rows(rules: object, rows: object, cubes: object) -> Tuple[Rows, List[Cube]]:
    """Board rows of ``rules`` and one cube context each (the checks of a cube decision)."""
    Rules.of(rules)
    checked = checks.rows(rows)
    return checked, cubes_of(cubes, len(checked))


class Player(ABC):
    """A player of games over board rows, made from a setting (module docstring)."""

    setting: Setting

    @property
    def name(self) -> str:
        """The player's setting as text; another engine's player without a setting: its
        class's name."""
        setting = getattr(self, "setting", None)
        return type(self).__name__ if setting is None else str(setting)

    def __enter__(self) -> "Player":
        return self

    def __exit__(self, kind: Optional[Type[BaseException]], error: Optional[BaseException],
                 trace: Optional[TracebackType]) -> None:
        self.close()

    def close(self) -> None:
        """Release what the player holds (GNU Backgammon's processes)."""

    def choose(self, rules: object, rows: npt.ArrayLike, dice: npt.ArrayLike,
               cubes: Optional[Sequence[Cube]] = None) -> Rows:
        """The chosen child of each of the (N, 50) ``rows`` for its (N, 2) ``dice``, with
        each row's cube in play (the side to move's view) or None for a game without it."""
        checked = Rules.of(rules)
        boards = checks.rows(rows)
        thrown = _rolls(dice, len(boards))
        children, parent = expand(checked, boards, thrown)
        at = self._pick(checked, boards, thrown, children, offsets_of(parent, len(boards)),
                        _cubes(cubes, len(boards)))
        chosen: Rows = children[at]
        return chosen

    def pick(self, rules: object, rows: npt.ArrayLike, dice: npt.ArrayLike,
             children: npt.ArrayLike, offsets: npt.ArrayLike,
             cubes: Optional[Sequence[Cube]] = None) -> Indices:
        """The index into ``children`` (the rows' legal turns, T2 order, in the groups of
        ``offsets``) of each row's choice, with each row's cube or None (:meth:`choose`)."""
        checked = Rules.of(rules)
        boards = checks.rows(rows)
        kids = checks.rows(children, "children")
        return self._pick(checked, boards, _rolls(dice, len(boards)), kids,
                          checks.offsets(offsets, len(kids), len(boards)),
                          _cubes(cubes, len(boards)))

    def turn(self, position: Position, dice: object, cube: Optional[Cube] = None) -> Turn:
        """The player's turn (T1) of one position for ``dice``, with ``cube`` in play or
        None; IllegalTurnError (T4) once the game is over."""
        position = checks.position(position, Position)
        roll = _kernel.dice_pair(dice)
        turns = position.legal_turns(roll)
        if not turns:
            raise IllegalTurnError("T4", "the game is over: there is no legal turn")
        rows = encode([position])
        children, _ = expand(position.rules, rows, np.array([roll], dtype=np.int8))
        at = self._pick(position.rules, rows, np.array([roll], dtype=np.int8), children,
                        np.array([0, len(children)]), None if cube is None else
                        [Cube.of(cube, position.rules)])
        return turns[int(at[0])]

    @abstractmethod
    def _pick(self, rules: Rules, rows: Rows, dice: Rows, children: Rows, offsets: Indices,
              cubes: Optional[List[Cube]]) -> Indices:
        """:meth:`pick` of checked input."""

    def worth(self, rules: object, children: npt.ArrayLike, offsets: npt.ArrayLike
              ) -> Optional[Values]:
        """What each child is worth to the mover who chooses it, cubeless, higher better
        (the order the player ranks turns by), or None for a player that ranks none."""
        return None

    def cube_equities(self, rules: object, rows: npt.ArrayLike, cubes: Sequence[Cube]
                      ) -> Optional[Values]:
        """The no double, double take and double pass equities (N, 3, normalised) this
        player sees for each row's side to move under its cube, or None for a player without
        a cube: it never offers and always takes."""
        return None

    def doubles(self, rules: object, rows: npt.ArrayLike, cubes: Sequence[Cube]
                ) -> npt.NDArray[np.bool_]:
        """Whether the player offers before each row's roll (C2): its cube may still gain
        (:attr:`~fastnardy.search.cubeful.Cube.may_offer`) and its equities make doubling
        proper (double, take and double, pass no worse than no double); never for a player
        without a cube."""
        rows, cubes = _cube_rows(rules, rows, cubes)
        seen = self.cube_equities(rules, rows, cubes)
        may = np.array([cube.may_offer for cube in cubes], dtype=bool)
        if seen is None:
            return np.zeros(len(may), dtype=bool)
        proper: npt.NDArray[np.bool_] = may & (seen[:, 1] >= seen[:, 0]) \
            & (seen[:, 2] >= seen[:, 0])
        return proper

    def takes(self, rules: object, rows: npt.ArrayLike, cubes: Sequence[Cube]
              ) -> npt.NDArray[np.bool_]:
        """Whether the player takes each row's offer (C2), the rows and cubes the doubler's
        (on roll): when taking is no worse for it than passing; always for a player without
        a cube."""
        rows, cubes = _cube_rows(rules, rows, cubes)
        seen = self.cube_equities(rules, rows, cubes)
        if seen is None:
            return np.ones(len(cubes), dtype=bool)
        taken: npt.NDArray[np.bool_] = seen[:, 1] <= seen[:, 2]
        return taken

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class Random(Player):
    """Uniform over the legal turns, seeded."""

    def __init__(self, seed: int = 0) -> None:
        self.setting = Setting("random")
        self.rng = np.random.default_rng([checks.number(seed, "seed", 0), 7])

    def _pick(self, rules: Rules, rows: Rows, dice: Rows, children: Rows, offsets: Indices,
              cubes: Optional[List[Cube]]) -> Indices:
        counts = np.diff(offsets)
        out: Indices = offsets[:-1] + (self.rng.random(len(rows)) * counts).astype(np.int64)
        return out


def greedy_scores(rules: object, children: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """The greedy policy's score of each child for the side that just moved (the child's
    opponent half), higher is better: the race (the other side's pips minus its own), plus 2
    for each point it holds with two or more checkers; in long nardy plus 1 for each point it
    occupies (one checker closes a point, L3); in short nardy minus 2 for each of its blots
    (a lone checker can be hit, S3) and plus 3 for each of the other side's checkers on the
    bar. The one home of that score in Python (the kernel's greedy policy is its compiled
    twin)."""
    return _greedy_scores(Rules.of(rules), checks.rows(children, "children"))


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
    """The greedy policy: the first best turn by :func:`greedy_scores`."""

    def __init__(self) -> None:
        self.setting = Setting("greedy")

    def _pick(self, rules: Rules, rows: Rows, dice: Rows, children: Rows, offsets: Indices,
              cubes: Optional[List[Cube]]) -> Indices:
        out: Indices = offsets[:-1] + segment_argmax(_greedy_scores(rules, children), offsets)
        return out

    def worth(self, rules: object, children: npt.ArrayLike, offsets: npt.ArrayLike
              ) -> Optional[Values]:
        kids = checks.rows(children, "children")
        checks.offsets(offsets, len(kids))
        return greedy_scores(rules, kids).astype(np.float64)


class Searcher(Player):
    """A network's setting: the search's choice and cube decisions (module docstring). Its
    setting names the precision it plays ``rules`` in (``net:0:int16`` in short nardy)."""

    def __init__(self, setting: Union[Setting, str], rules: object) -> None:
        self.rules = Rules.of(rules)
        self.setting = as_setting(setting).resolved(self.rules)  # named by its precision
        self.search = self.setting.search(self.rules)

    def _checked(self, rules: Rules) -> Search:
        """The search, for the rules it was made for."""
        if rules != self.rules:
            raise FastNardyError(f"{self.name} plays {self.rules}, not {rules}")
        return self.search

    def _pick(self, rules: Rules, rows: Rows, dice: Rows, children: Rows, offsets: Indices,
              cubes: Optional[List[Cube]]) -> Indices:
        search = self._checked(rules)
        plies = self.setting.plies
        if cubes is None or not self.setting.cubeful:
            return search.rank(children, offsets, plies).best(offsets)
        chosen = np.empty(len(rows), dtype=np.int64)
        groups: Dict[Cube, List[int]] = {}
        for i, cube in enumerate(cubes):
            groups.setdefault(cube, []).append(i)
        for cube, members in groups.items():
            spans = [np.arange(offsets[i], offsets[i + 1]) for i in members]
            picked = np.concatenate(spans)
            bounds = np.concatenate([[0], np.cumsum([len(span) for span in spans])])
            best = search.rank(children[picked], bounds, plies, cube).best(bounds)
            chosen[members] = picked[best]
        return chosen

    def worth(self, rules: object, children: npt.ArrayLike, offsets: npt.ArrayLike
              ) -> Optional[Values]:
        kids = checks.rows(children, "children")
        return self._checked(Rules.of(rules)).rank(kids, checks.offsets(offsets, len(kids)),
                                                   self.setting.plies).worth

    def cube_equities(self, rules: object, rows: npt.ArrayLike, cubes: Sequence[Cube]
                      ) -> Optional[Values]:
        search = self._checked(Rules.of(rules))
        return search.cube_equities(rows, cubes, self.setting.plies)[0]


class GnubgPlayer(Player):
    """GNU Backgammon's setting (short nardy): its own move and cube decisions
    (:class:`fastnardy.play.gnubg.Gnubg`), each move checked to be a legal turn (T1)."""

    def __init__(self, setting: Union[Setting, str] = "gnubg:expert") -> None:
        self.engine = Gnubg(setting)
        self.setting = self.engine.setting

    @property
    def seconds(self) -> float:
        """The wall seconds gnubg's processes took."""
        return self.engine.seconds

    def _pick(self, rules: Rules, rows: Rows, dice: Rows, children: Rows, offsets: Indices,
              cubes: Optional[List[Cube]]) -> Indices:
        moves = self.engine.moves(rows, dice) if cubes is None or not self.setting.cubeful \
            else self.engine.cubeful_moves(rows, dice, cubes)
        return chosen(rules, rows, dice, children, offsets, moves)

    def worth(self, rules: object, children: npt.ArrayLike, offsets: npt.ArrayLike
              ) -> Optional[Values]:
        """gnubg's cubeless equity at its plies of each child, to the mover who chooses it."""
        kids = checks.rows(children, "children")
        checks.offsets(offsets, len(kids))
        return -equity(self.engine.probabilities(kids, self.setting.plies))

    def cube_equities(self, rules: object, rows: npt.ArrayLike, cubes: Sequence[Cube]
                      ) -> Optional[Values]:
        """gnubg's own cube decision at its plies (its table, not the cube's)."""
        return self.engine.cube_decisions(checks.rows(rows), list(cubes),
                                          self.setting.plies)[1]

    def close(self) -> None:
        self.engine.close()


def _short(rules: object, name: str) -> Rules:
    """``rules``, which must be short nardy's: a backgammon engine plays no other game."""
    checked = Rules.of(rules)
    if checked.game != "short":
        raise FastNardyError(f"{name} plays short nardy (backgammon) only, not {checked}")
    return checked


class GnubgNnPlayer(Player):
    """GNU Backgammon's networks in process (``gnubg-nn[:PLIES]``, short nardy;
    :class:`fastnardy.play.gnubg_nn.GnubgNn`): its cubeless move at its plies, each checked
    to be a legal turn (T1). It has no cube: it never offers and always takes (gnubg-nn's
    cube decisions are a match's only)."""

    def __init__(self, setting: Union[Setting, str] = "gnubg-nn") -> None:
        self.engine = GnubgNn(setting)
        self.setting = self.engine.setting

    def _pick(self, rules: Rules, rows: Rows, dice: Rows, children: Rows, offsets: Indices,
              cubes: Optional[List[Cube]]) -> Indices:
        _short(rules, self.name)
        return chosen(rules, rows, dice, children, offsets, self.engine.moves(rows, dice))

    def worth(self, rules: object, children: npt.ArrayLike, offsets: npt.ArrayLike
              ) -> Optional[Values]:
        """gnubg-nn's cubeless equity at its plies of each child, to the mover who chooses
        it."""
        _short(rules, self.name)
        kids = checks.rows(children, "children")
        checks.offsets(offsets, len(kids))
        return -equity(self.engine.probabilities(kids))


class BgsagePlayer(Player):
    """bgsage's setting (``bgsage[:PLIES]``, short nardy; :mod:`fastnardy.play.bgsage`):
    its own turn at its plies (by its cubeful equity under each row's cube, by its cubeless
    equity in a game without the cube), each checked to be a legal turn (T1), and its own
    cube decisions, a batch of rows in one call on ``threads`` threads of bgsage's."""

    def __init__(self, setting: Union[Setting, str] = "bgsage", threads: int = 1) -> None:
        self.engine = Bgsage(setting, threads)
        self.setting = self.engine.setting

    def _pick(self, rules: Rules, rows: Rows, dice: Rows, children: Rows, offsets: Indices,
              cubes: Optional[List[Cube]]) -> Indices:
        _short(rules, self.name)
        out: Indices = np.array(offsets[:-1], dtype=np.int64)
        asked = np.flatnonzero(np.diff(offsets) > 1)  # forced turns and passes: not asked
        if len(asked):
            under = None if cubes is None or not self.setting.cubeful else \
                [cubes[i] for i in asked]
            boards = self.engine.moves(rows[asked], dice[asked], under)
            out[asked] = bgsage_chosen(rules, rows, dice, children, offsets, asked, boards)
        return out

    def worth(self, rules: object, children: npt.ArrayLike, offsets: npt.ArrayLike
              ) -> Optional[Values]:
        """bgsage's cubeless equity at its plies of each child to the mover who chooses it:
        its evaluation after a turn (:meth:`fastnardy.play.bgsage.Bgsage.after`), which
        values the child alone. Its choice values each child with its parent in view (its
        networks are picked by the position before the turn), so the two may differ."""
        _short(rules, self.name)
        kids = checks.rows(children, "children")
        checks.offsets(offsets, len(kids))
        return equity(self.engine.after(kids))

    def cube_equities(self, rules: object, rows: npt.ArrayLike, cubes: Sequence[Cube]
                      ) -> Optional[Values]:
        """bgsage's own cube decision at its plies (its equities, normalised)."""
        _short(rules, self.name)
        return self.engine.cube_decisions(checks.rows(rows), list(cubes))


class UbgiPlayer(Player):
    """Another engine speaking UBGI v0.2 (``ubgi:COMMAND``; :mod:`fastnardy.engines.ubgi`):
    each turn its ``bestmove`` for the position (short nardy: ``position gnubgid`` with the
    Match ID of the cube in play; long nardy: ``position fastnardy``, which fastnardy's own
    engine reads) and dice, read by the referee (T1: an illegal move is an EngineError with
    its rule); each offer its ``bestcube`` (short nardy). UBGI v0.2 has no take decision:
    the engine takes every offer, and offers nothing in long nardy."""

    def __init__(self, setting: Setting, rules: Rules, timeout: float = 60.0) -> None:
        from ..engines.ubgi import UbgiEngine

        self.setting, self.rules = setting, rules
        self.engine = UbgiEngine(str(setting.evaluator)[len("ubgi:"):], timeout)
        try:
            self.engine.ask(["ubgi"], ("ubgiok",))
            variant = "backgammon" if rules == Rules.short() else format_rules(rules)
            self.engine.ask([f"set game.variant {variant}", "isready"], ("readyok",))
        except BaseException:
            self.engine.close()
            raise

    def _where(self, position: Position, cube: Optional[Cube], dice: Optional[Roll]) -> str:
        """The engine's ``position`` line: gnubg's ids with the cube, or a position string."""
        if position.rules.game != "short":
            return f"position fastnardy {position.to_string()}"
        from ..formats.ids import MatchState, write_gnubg_ids

        return f"position gnubgid {write_gnubg_ids(MatchState.of(position, cube, dice))}"

    def _pick(self, rules: Rules, rows: Rows, dice: Rows, children: Rows, offsets: Indices,
              cubes: Optional[List[Cube]]) -> Indices:
        out = np.array(offsets[:-1], dtype=np.int64)
        for i, position in enumerate(decode(rules, rows)):
            if offsets[i + 1] - offsets[i] == 1:
                continue  # forced (or a pass): nothing to ask
            roll = (int(dice[i, 0]), int(dice[i, 1]))
            answer = self.engine.ask(
                ["newgame", self._where(position, None if cubes is None else cubes[i], roll),
                 f"dice {roll[0]} {roll[1]}", "go"], ("bestmove ",))
            move = answer[len("bestmove "):].strip()
            try:
                turn = position.check_turn(roll, "pass" if move == "pass" else move)
            except FastNardyError as error:
                raise EngineError(f"the engine {self.name!r} played {move!r} with "
                                  f"{roll[0]}-{roll[1]} in {position.to_string()}: "
                                  f"{error}") from None
            out[i] += list(position.legal_turns(roll)).index(turn)
        return out

    def doubles(self, rules: object, rows: npt.ArrayLike, cubes: Sequence[Cube]
                ) -> npt.NDArray[np.bool_]:
        checked, cubes = _cube_rows(rules, rows, cubes)
        game = Rules.of(rules)
        out = np.zeros(len(checked), dtype=bool)
        if game.game != "short":
            return out
        for i, position in enumerate(decode(game, checked)):
            if cubes[i].may_offer:
                answer = self.engine.ask(["newgame", self._where(position, cubes[i], None),
                                          "go cube"], ("bestcube ",))
                out[i] = answer.split()[1:2] == ["double"]
        return out

    def close(self) -> None:
        self.engine.close()


def player(spec: Union[Setting, str, None], rules: object, seed: int = 0) -> Player:
    """The player of a setting (or its text; None: ``net:0``) for ``rules``' game, or of
    another engine (``ubgi:COMMAND``: :class:`~fastnardy.play.players.UbgiPlayer`), the one
    builder of every door; ``seed`` seeds ``random``."""
    chosen = as_setting(spec)
    rules = Rules.of(rules)
    seed = checks.number(seed, "seed", 0)
    if isinstance(chosen.evaluator, str) and chosen.evaluator.startswith("ubgi:"):
        return UbgiPlayer(chosen, rules)
    if chosen.evaluator == "random":
        return Random(seed)
    if chosen.evaluator == "greedy":
        return Greedy()
    if chosen.is_network:
        return Searcher(chosen, rules)
    if rules.game != "short":
        raise FastNardyError(f"{'bgsage' if chosen.evaluator == 'bgsage' else 'GNU Backgammon'} "
                             f"plays short nardy (backgammon) only")
    if chosen.evaluator == "bgsage":
        return BgsagePlayer(chosen)
    if chosen.evaluator == "gnubg-nn":
        return GnubgNnPlayer(chosen)
    return GnubgPlayer(chosen)
