"""bgsage (Open Sage, ``pip install bgsage``, MPL-2.0, its networks shipped in its wheel) as
an engine of short nardy (standard backgammon) in this process: the engine of the setting
``bgsage[:PLIES]`` (:class:`fastnardy.play.players.BgsagePlayer`) and of the teacher
``bgsage:P`` (:func:`fastnardy.training.labels.labels`). bgsage is imported when the first
engine is made, never before.

PLIES count as fastnardy counts them, one less than bgsage's levels: 0 is bgsage's raw network
(its "1ply"), 1 its "2ply" (its network one roll deeper), 2 its "3ply", 3 its "4ply"
(:data:`LEVELS`). Its raw network is exact in bear-offs (its one-sided database, as bgsage's
analyzer uses it). A turn is bgsage's own choice, the one its analyzer (``BgBotAnalyzer``)
puts first with Jacoby and beavers off (tests/interfaces/test_bgsage.py compares them):
under a cube, its batch checker play's (every turn valued by the raw network at the cube,
the best :data:`FILTER` valued at the setting's level, the best by its cubeful equity); in a
game without the cube, its cubeless analyzer's, batched here (the same filter at a centred
money cube, those turns valued cubeless at the setting's level, then any other turn that its
raw value puts among the best two valued there too). bgsage values a turn with the position
before it in view (its networks are picked by the game plans of both), so a turn's value
there is not always the child's value alone (:meth:`Bgsage.after`).

Its board is :func:`fastnardy.engines.bgsage.to_board`'s: 26 counts from its side to move's
view. bgsage values a board before the roll for its side to move and a board after a turn
(its "post move") for the side that has just moved, which is the view of the player who
chooses it; fastnardy's children are the next mover's rows, so a child's halves are swapped
before bgsage sees it. Its five outputs are :data:`fastnardy.search.network.OUTPUTS`, in
that order (cumulative: a win by backgammon is a win by gammon too).

Where bgsage's conventions are not these rules, the rules hold, and this is what changes:

* C8: no Jacoby option unless the cube context has it, and never a beaver (bgsage's batch
  functions have both on by default); a money game's equities are normalised to the cube
  (double, pass is 1), a match's are its match-winning chances as equities, as gnubg's are.
* S9: no gammon or backgammon for a side once its opponent has borne off a checker, and
  none against a side that has: bgsage's network does not know it (on the short benchmark
  positions it gave a win by gammon 0.91 where the loser had borne off one checker, gnubg
  0), so those outputs are set to 0 (:func:`possible`). Its cube decisions are its own.
* C3, C4: bgsage's cube doubles and counts gammons at every stake: an arithmetic cube or
  ``cube_cancels_mars`` is refused; C1's cap of 64 is not in its cube decisions. A match is
  valued with bgsage's own match equity table, not the cube's ``met``.

bgsage parallelises a batch over threads of its own in C++ (without the GIL): ``threads``,
1 by default, so that players and the labels' workers do not oversubscribe the machine.
Each Python thread that calls bgsage makes its strategies once (about 30 MiB of networks at
0 ply, 70 MiB at 1 ply or more): a search's cache is cleared after each call, which must not
happen while another thread uses it.
Speed on this project's 2-core machine (bgsage 2.0.20260907, one thread, CPU time): labels
(:meth:`Bgsage.probabilities`) of about 60,000 rows a second at 0 ply and 500 at 1 ply;
turns chosen, about 3,400 a second at 0 ply and 200 at 1 ply without the cube, 16 at 1 ply
under a cube (bgsage's cubeful search of each turn it keeps).
"""

from __future__ import annotations

import threading
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np
import numpy.typing as npt

from .. import _features, checks
from ..basics import ROW_WIDTH
from ..batch import decode
from ..engines.bgsage import from_board, to_board
from ..errors import EngineError, FastNardyError
from ..rules import Rules
from ..search.cubeful import Cube, cubes_of
from ..search.network import OUTPUTS, exact_rows, flip, valued
from ..search.setting import BGSAGE_PLIES, Setting, setting as as_setting

__all__ = ["Bgsage", "FILTER", "LEVELS", "chosen", "possible"]

HALF = ROW_WIDTH // 2
Rows = npt.NDArray[np.int8]
Indices = npt.NDArray[np.int64]
Values = npt.NDArray[np.float64]
Board = List[int]

LEVELS = tuple(f"{plies + 1}ply" for plies in range(BGSAGE_PLIES + 1))
"""bgsage's name of each of fastnardy's plies (0: ``"1ply"``, its raw network)."""
FILTER = (5, 0.08)
"""bgsage's own move filter (its defaults): at most 5 turns within 0.08 of the best at its
raw network are valued at the setting's level."""


def _library() -> Tuple[Any, Any, Optional[str]]:
    """bgsage's compiled module, its production weights and its bear-off database's path."""
    try:
        import bgbot_cpp  # type: ignore[import-not-found]
        from bgsage.weights import bearoff_db_path, default_weights  # type: ignore  # untyped
    except ImportError:
        raise EngineError("bgsage is not installed: pip install bgsage") from None
    return bgbot_cpp, default_weights(), bearoff_db_path()


_LOCAL = threading.local()  # each thread's strategies: bgsage's searches hold a cache


def _strategies(plies: int) -> Tuple[Any, Any, Any]:
    """bgsage's module, its raw network (exact in bear-offs with its database, as its
    analyzer is) and the strategy of ``plies`` (the raw network at 0 ply, else its search of
    level ``plies + 1``, whose position cache is cleared after each call as its analyzer
    clears it): made once for each thread that asks (bgsage's own threads share them within
    a call)."""
    made: Dict[int, Tuple[Any, Any, Any]] = _LOCAL.__dict__.setdefault("made", {})
    if plies in made:
        return made[plies]
    cpp, weights, database_path = _library()
    raw = cpp.create_strategy(weights.strategy_type, weights.weight_paths_list,
                              weights.hidden_sizes_list)
    database = None
    if database_path is not None:
        database = cpp.BearoffDB()
        if not database.load(database_path):
            database = None
    if database is not None:
        raw = cpp.BearoffStrategy(raw, database)
    deep = raw
    if plies:
        deep = cpp.create_multipy(weights.strategy_type, weights.weight_paths_list,
                                  weights.hidden_sizes_list, n_plies=plies + 1,
                                  filter_max_moves=FILTER[0], filter_threshold=FILTER[1],
                                  parallel_evaluate=False, parallel_threads=0)
        if database is not None:
            cpp.multipy_set_bearoff_db(deep, database)
    made[plies] = (cpp, raw, deep)
    return made[plies]


def _boards(rows: Rows) -> List[Board]:
    """Board rows (the side to move's view) as bgsage's boards."""
    return [to_board((row[:24], row[24], row[HALF:HALF + 24], row[-1]))
            for row in rows.astype(np.int64).tolist()]


def _swapped(rows: Rows) -> Rows:
    """Rows seen by the other side (the halves swapped)."""
    out: Rows = np.ascontiguousarray(np.concatenate([rows[:, HALF:], rows[:, :HALF]], axis=1))
    return out


def possible(rows: npt.ArrayLike, outputs: npt.ArrayLike) -> Values:
    """S9: ``outputs`` (N, 5) of ``rows`` (N, 50, their side to move's view) with the
    gammons and backgammons no longer possible set to 0: none won once the opponent has
    borne off a checker, none lost once the side has."""
    boards = checks.rows(rows)
    out: Values = np.array(outputs, dtype=np.float64).reshape(len(boards), len(OUTPUTS))
    counts = boards.astype(np.int64)
    out[counts[:, HALF:].sum(axis=1) < 15, 1:3] = 0.0
    out[counts[:, :HALF].sum(axis=1) < 15, 3:5] = 0.0
    return out


class _Context(NamedTuple):
    """A cube context as bgsage's fields."""

    value: int
    owner: int  # bgsage's CubeOwner: 0 centred, 1 the side to move, 2 the other
    match: Tuple[Any, ...]  # away1, away2 and is_crawford; () in money play
    jacoby: bool


_MONEY = _Context(1, 0, (), False)  # a game without the cube: money play's centred cube
_OWNERS = {"centered": 0, "mover": 1, "opponent": 2}


def _context(cube: object) -> _Context:
    """bgsage's fields of a cube context (the side to move's view)."""
    checked = Cube.of(cube)
    if checked.stakes != "geometric" or checked.cancels_mars:
        raise FastNardyError("bgsage's cube doubles and counts gammons at every stake: "
                             "geometric stakes without cube_cancels_mars (C3, C4)")
    match = (*checked.away, checked.crawford) if checked.length else ()
    return _Context(checked.value, _OWNERS[checked.owner], match, checked.jacoby)


def _by_jacoby(contexts: Sequence[_Context]) -> List[Tuple[bool, List[int]]]:
    """The indices of the contexts without the Jacoby option and with it (bgsage takes it
    for a whole batch), each group that has any."""
    groups = [(option, [i for i, context in enumerate(contexts) if context.jacoby == option])
              for option in (False, True)]
    return [(option, members) for option, members in groups if members]


class Bgsage:
    """bgsage at a setting ``bgsage[:PLIES]`` (module docstring): its turns, its cubeless
    evaluations before and after a turn, and its cube decisions, each a batch in one call
    (one for each Jacoby option among its cubes) on ``threads`` threads of its own."""

    def __init__(self, setting: "Setting | str" = "bgsage", threads: int = 1) -> None:
        chosen = as_setting(setting)
        if chosen.evaluator != "bgsage":
            raise FastNardyError(f"a bgsage setting is bgsage[:PLIES], not {chosen}")
        self.setting, self.plies = chosen, chosen.plies
        self.threads = checks.number(threads, "threads", 1, checks.MAX_THREADS)
        _strategies(self.plies)  # bgsage missing: an EngineError here
        self.level = f"{self.plies + 1}-ply"  # how bgsage labels the turns valued at it

    def _call(self, name: str, *arguments: Any, **options: Any) -> List[Dict[str, Any]]:
        """bgsage's batch function ``name`` with this thread's strategy of the setting's
        plies after ``arguments`` (its raw network too before it for a turn), on the
        engine's threads; the search's cache cleared after."""
        cpp, raw, deep = _strategies(self.plies)
        strategies = (raw, deep) if name == "batch_checker_play" and self.plies else \
            (raw,) if name == "batch_checker_play" else (deep,)
        try:
            if name == "batch_checker_play":
                answers: List[Dict[str, Any]] = cpp.batch_checker_play(
                    *arguments, *strategies, FILTER[0], FILTER[1], self.threads, **options)
            else:
                answers = getattr(cpp, name)(*arguments, *strategies, self.threads, **options)
        finally:
            if self.plies:
                deep.clear_cache()
        return answers

    def moves(self, rows: npt.ArrayLike, dice: npt.ArrayLike,
              cubes: Optional[Sequence[Cube]] = None) -> List[Optional[Board]]:
        """bgsage's turn for each row (short nardy) and its dice: the board it leaves, in
        its mover's view (None: no legal turn). Under each row's cube, its batch checker
        play's choice (its cubeful equity); where ``cubes`` is None (a game without the
        cube) its cubeless analyzer's (``BgBotAnalyzer(cubeful=False)``): every turn valued
        by its raw network, the best :data:`FILTER` valued at the setting's level, and any
        other turn that its raw value puts among the best two valued at that level too."""
        boards = _boards(checks.rows(rows))
        thrown = np.asarray(dice, dtype=np.int64).reshape(len(boards), 2).tolist()
        contexts = [_MONEY] * len(boards) if cubes is None \
            else [_context(cube) for cube in cubes_of(cubes, len(boards))]
        cpp = _strategies(self.plies)[0]
        out: List[Optional[Board]] = [None] * len(boards)
        for jacoby, members in _by_jacoby(contexts):
            inputs = []
            for i in members:
                cube = contexts[i]
                fields: Dict[str, Any] = {"board": boards[i], "die1": thrown[i][0],
                                          "die2": thrown[i][1], "cube_value": cube.value,
                                          "cube_owner": cpp.CubeOwner(cube.owner)}
                if cube.match:
                    fields.update(zip(("away1", "away2", "is_crawford"), cube.match))
                inputs.append(fields)
            if cubes is None and self.plies:  # its 1-ply values, then the cubeless search
                cheap = Bgsage(self.setting.replace(plies=0), self.threads)
                answers = cheap._call("batch_checker_play", inputs, jacoby=False, beaver=False)
                chosen = self._cubeless([answer["moves"] for answer in answers])
                for i, board in zip(members, chosen):
                    out[i] = board
                continue
            answers = self._call("batch_checker_play", inputs, jacoby=jacoby, beaver=False)
            for i, answer in zip(members, answers):
                deepest = [move for move in answer["moves"]
                           if move["eval_level"] == self.level] or answer["moves"]
                if deepest:
                    out[i] = _first(deepest, "cubeless_equity" if cubes is None else "equity")
        return out

    def _cubeless(self, candidates: List[List[Dict[str, Any]]]) -> List[Optional[Board]]:
        """bgsage's cubeless analyzer's choice at 1 ply or more of each row's turns valued
        by its raw network (``candidates``, in bgsage's order): the best :data:`FILTER` by
        their cubeful equity at a centred money cube (as its analyzer filters) valued
        cubeless at the setting's level in one call, then, one at a time, any turn still
        valued by its raw network alone that ranks among the best two."""
        values: List[Dict[Tuple[int, ...], Tuple[float, bool]]] = []  # board: value, deep
        asked: List[Tuple[int, Tuple[int, ...]]] = []
        for row, moves in enumerate(candidates):
            values.append({tuple(move["board"]): (float(move["cubeless_equity"]), False)
                           for move in moves})
            if moves:  # filtered as its analyzer does, by the cubeful value at a centred cube
                best = max(float(move["equity"]) for move in moves)
                asked += [(row, tuple(move["board"])) for move in moves
                          if best - float(move["equity"]) < FILTER[1]][:FILTER[0]]
        while asked:
            answers = self._call("batch_evaluate_post_move",
                                 [(list(board), _strategies(0)[0].CubeOwner(0))
                                  for _, board in asked], jacoby=False)
            for (row, board), answer in zip(asked, answers):
                values[row][board] = (float(answer["cubeless_equity"]), True)
            asked = []
            for row, raw in enumerate(values):
                top = sorted(raw.items(), key=lambda item: (-item[1][0], item[0]))[:2]
                stale = [board for board, (_, deep) in top if not deep]
                asked += [(row, stale[0])] if stale else []
        out: List[Optional[Board]] = []
        for raw in values:
            first = min(raw.items(), key=lambda item: (-item[1][0], item[0]), default=None)
            out.append(None if first is None else list(first[0]))
        return out

    def probabilities(self, rows: npt.ArrayLike) -> Values:
        """bgsage's cubeless evaluation at the setting's plies of each board row (short
        nardy) for its side to move, before its roll (money game without Jacoby: gammons
        and backgammons count, S9, and only where still possible, :func:`possible`): (N, 5),
        :data:`fastnardy.search.network.OUTPUTS`; a finished game's exact (S9)."""
        def live(boards: npt.NDArray[np.int8]) -> Values:
            centred = _strategies(self.plies)[0].CubeOwner(0)
            answers = self._call("batch_evaluate_positions",
                                 [(board, 1, centred) for board in _boards(boards)],
                                 jacoby=False, beaver=False)
            return possible(boards, [answer["probs"] for answer in answers])
        return valued(Rules.short(), checks.rows(rows), live)

    def after(self, children: npt.ArrayLike) -> Values:
        """bgsage's cubeless evaluation at the setting's plies of each child (a row of the
        next mover's, short nardy) for the side that has just moved, which chose it (its
        "post move" evaluation; S9 as :meth:`probabilities`): (N, 5); a finished game's
        exact."""
        kids = checks.rows(children, "children")
        out = np.empty((len(kids), len(OUTPUTS)))
        finished = _features.winners(kids) != 0
        out[finished] = flip(exact_rows(Rules.short(), kids[finished]))
        live = np.flatnonzero(~finished)
        if len(live):
            moved = _swapped(kids[live])
            centred = _strategies(self.plies)[0].CubeOwner(0)
            answers = self._call("batch_evaluate_post_move",
                                 [(board, centred) for board in _boards(moved)], jacoby=False)
            out[live] = possible(moved, [answer["probs"] for answer in answers])
        return out

    def cube_decisions(self, rows: npt.ArrayLike, cubes: Sequence[Cube]) -> Values:
        """bgsage's no double, double take and double pass equities (N, 3, normalised) of
        each board row (short nardy, unfinished) for its side to move under its cube, at the
        setting's plies (its cubeless evaluation there and its cube model)."""
        boards = _boards(checks.rows(rows))
        contexts = [_context(cube) for cube in cubes_of(cubes, len(boards))]
        owner = _strategies(self.plies)[0].CubeOwner
        out = np.empty((len(boards), 3))
        for jacoby, members in _by_jacoby(contexts):
            answers = self._call("batch_evaluate_positions",
                                 [(boards[i], contexts[i].value, owner(contexts[i].owner),
                                   *contexts[i].match) for i in members],
                                 jacoby=jacoby, beaver=False)
            out[members] = [[answer["equity_nd"], answer["equity_dt"], answer["equity_dp"]]
                            for answer in answers]
        return out


def _first(moves: List[Dict[str, Any]], key: str) -> Board:
    """The best of bgsage's ``moves`` by ``key`` (then by its cubeless equity, then by the
    board, as its analyzer orders them)."""
    best = min(moves, key=lambda move: (-move[key], -move["cubeless_equity"],
                                        tuple(move["board"])))
    return [int(count) for count in best["board"]]


def chosen(rules: Rules, rows: Rows, dice: npt.NDArray[Any], children: Rows,
           offsets: Indices, asked: Indices, boards: Sequence[Optional[Board]]) -> Indices:
    """The index into ``children`` of bgsage's turn (a board in its mover's view, None for
    none) of each row ``asked`` (indices of ``rows``), each checked to be one of the row's
    legal turns (T1): an EngineError naming the position and the roll when it is not."""
    out = np.empty(len(asked), dtype=np.int64)
    for k, (i, board) in enumerate(zip(asked, boards)):
        group = children[offsets[i]:offsets[i + 1]]
        same = np.empty(0, dtype=np.int64)
        if board is not None and len(board) == 26:
            me, me_bar, opp, opp_bar = from_board(board)
            child = np.array([*opp, opp_bar, *me, me_bar])  # the next mover's view
            same = np.flatnonzero((group == child).all(axis=1))
        if len(same) != 1:
            position = decode(rules, rows[i:i + 1])[0]
            raise EngineError(f"T1: bgsage's turn to {board} with {int(dice[i, 0])}-"
                              f"{int(dice[i, 1])} in {position.to_string()} is not one of "
                              f"its legal turns")
        out[k] = offsets[i] + same[0]
    return out
