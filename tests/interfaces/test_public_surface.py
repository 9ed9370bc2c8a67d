"""Bad input, completely: every public callable of the package, fed garbage, raises only
FastNardyError subclasses (or returns a result).

The surface is walked, not listed: every public function and class of the modules in
``MODULES`` (their ``__all__``, else the public names they define), and of every class its
constructor, its public methods, classmethods and staticmethods (its own and those of the
package's base classes, so the compiled PackedPosition/PackedTurn methods of Position and
Turn are in) and its property setters. Each argument is drawn from garbage (None, bools,
floats with nan and inf, huge and negative ints, text, bytes, lists, dicts, numpy scalars and
arrays of many dtypes and shapes, 0-d and one-element ones included, bare objects) or, for
parameter names in ``VALID``, from values that are right, so that a garbage argument is also
met deep in a call whose other arguments are fine. An argument with a default may be left
out.

Nothing is left out silently: ``NOT_WALKED`` names the modules outside the walk and why
(and a test checks that every module is walked, named there, or private); a callable
without parameters has no argument to garble, and a compiled class's constructor without a
signature (LegalTurns, made by ``legal_turns``; the exception classes) is taken to have none;
``OTHER_ERRORS`` lists each callable that may raise something else, with the exception types
and the reason, and ``CALLBACKS`` the parameters whose callable's own errors come out.
``NOT_WALKED_NAMES`` names the few public names of walked modules left out, each with why.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
import inspect
import tempfile
import operator
import pkgutil
import sys
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, NamedTuple, Optional, Tuple, Type
from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import fastnardy
from fastnardy import FastNardyError, Game, Position, Rules, batch, checks, simulate
from fastnardy.formats.mat import read_mat
from fastnardy.search.network import Evaluator
from fastnardy.search.cubeful import Cube, shipped_met
from fastnardy.play.players import Greedy, Random
from fastnardy.search.setting import Setting
from fastnardy.search.tree import GNUBG_FILTERS, MoveFilter, evaluator

MODULES = ("fastnardy", "fastnardy.batch", "fastnardy.search.inputs",
           "fastnardy.search.bearoff", "fastnardy.game", "fastnardy.record",
           "fastnardy.formats.mat", "fastnardy.formats.ids",
           "fastnardy.formats.sgf", "fastnardy.formats.games",
           "fastnardy.formats.svg", "fastnardy.counting", "fastnardy.rules",
           "fastnardy.search.selfplay", "fastnardy.engines.crosscheck",
           "fastnardy.engines.protocol", "fastnardy.engines.explain", "fastnardy.search.tree",
           "fastnardy.notation", "fastnardy.referee", "fastnardy.search.network",
           "fastnardy.envs.vector", "fastnardy.envs.steps", "fastnardy.search.setting",
           "fastnardy.search.cubeful", "fastnardy.search.met",
           "fastnardy.analysis.evaluation", "fastnardy.analysis.review",
           "fastnardy.analysis.rollouts", "fastnardy.analysis.page",
           "fastnardy.analysis.benchmarks", "fastnardy.training.labels", "fastnardy.play.duel",
           "fastnardy.play.games", "fastnardy.play.players", "fastnardy.play.external",
           "fastnardy.play.ubgi") + tuple(
    # the RL adapters, where their libraries are installed (the rl extra)
    name for name, library in (("fastnardy.envs.gymnasium", "gymnasium"),
                               ("fastnardy.envs.pettingzoo", "pettingzoo"))
    if importlib.util.find_spec(library) is not None)
# the two functions of fastnardy.reference that the README documents (the rest of the module
# is the reference's machinery in the mover's frame, checked by the differential tests)
EXTRA = ("fastnardy.reference.legal_turns", "fastnardy.reference.perft")
NOT_WALKED = {
    "fastnardy.envs.openspiel": "OpenSpiel's Game and State API, called by OpenSpiel with its "
                                "own values (test_openspiel checks its actions and chance "
                                "outcomes); what a caller builds, the games and states, is "
                                "walked by test_openspiel_constructors_raise_only_documented_"
                                "errors",
    "fastnardy.cli": "the command line: its bad input is exit status 2 (test_cli)",
    "fastnardy.play": "the names of its players module, which is walked",
    "fastnardy.testing.speed": "the CLI's bench command (timings)",
    "fastnardy.analysis": "the names of its modules, which are walked",
    "fastnardy.reference": "the reference's machinery in the mover's frame (test_differential); "
                           "its two documented functions are in EXTRA",
    "fastnardy.notation": "helpers of Position.from_gnubg_id and gnubg_id, which are walked",
    "fastnardy.backend": "backend selection, walked through every backend= argument",
    "fastnardy.testing.samples": "random positions for the tests and benchmarks (a "
                                 "random.Random and a rules code in; "
                                 "bench/correctness/differential.py and tests/strategies.py "
                                 "use it)",
    "fastnardy.checks": "the argument checks, walked through every entry point that calls "
                        "them (their own parameters, a name and bounds, are the package's)",
    "fastnardy.engines": "the cross-check engine adapters, programs run as python -m "
                         "fastnardy.engines.NAME (test_crosscheck drives them as engines and "
                         "runs each without its engine)",
    "fastnardy.basics": "the shared facts (sides, rolls, mirror, start, scoring, six-block): "
                        "their functions take values that their callers (Position, the twin, "
                        "svg, which are walked) have validated",
}
# the folders' modules whose reasons are their folder's
NOT_WALKED["fastnardy.play.interactive"] = ("the CLI's play command: a terminal loop on stdin "
                                            "(test_cli and test_play drive it)")
NOT_WALKED["fastnardy.engines.ubgi"] = ("a UBGI engine's process, whose every call runs it "
                                        "(test_ubgi drives fake and real engines)")
NOT_WALKED["fastnardy.play.gnubg"] = ("GNU Backgammon's engine, whose every call runs gnubg "
                                      "processes (test_gnubg drives it, with a hostile gnubg "
                                      "in test_threads_and_signals)")
NOT_WALKED["fastnardy.play.bgsage"] = ("bgsage's engine, an optional package's (the test extra) "
                                       "whose every call runs it (test_bgsage drives it)")
NOT_WALKED["fastnardy.play.gnubg_nn"] = ("gnubg-nn's engine, an optional package's (the test "
                                         "extra) whose every call runs it (test_gnubg_nn "
                                         "drives it)")
for _name in ("analysis", "crosscheck", "options", "perft", "play", "turns"):
    NOT_WALKED[f"fastnardy.cli.{_name}"] = NOT_WALKED["fastnardy.cli"]
for _name in ("bgsage", "gnubg", "openspiel", "reference"):
    NOT_WALKED[f"fastnardy.engines.{_name}"] = (
        "a cross-check engine: a program on stdin and stdout, run by test_crosscheck")
for _name in ("fastnardy.envs.gymnasium", "fastnardy.envs.pettingzoo"):
    if _name not in MODULES:
        NOT_WALKED[_name] = "its library is not installed here (the rl extra)"
# public names of walked modules left out of the walk
NOT_WALKED_NAMES = {
    "fastnardy.play.ubgi.run": "the ubgi command's loop, which reads its stream until quit "
                               "or its end (tests/interfaces/test_ubgi.py drives it)",
    "fastnardy.play.external.serve": "the serve command's socket server, which runs until "
    "its games are played (test_external plays gnubg against it, with bad board lines)",
    "fastnardy.play.players.GnubgPlayer": NOT_WALKED["fastnardy.play.gnubg"] + ": the "
    "player holds that engine, made by its constructor (a missing gnubg is an EngineError)",
    "fastnardy.play.players.UbgiPlayer": NOT_WALKED["fastnardy.engines.ubgi"] + ": the "
    "player holds that process, started by its constructor",
    "fastnardy.play.players.BgsagePlayer": NOT_WALKED["fastnardy.play.bgsage"] + ": the "
    "player holds that engine (a missing bgsage is an EngineError)",
    "fastnardy.play.players.GnubgNnPlayer": NOT_WALKED["fastnardy.play.gnubg_nn"] + ": the "
    "player holds that engine (a missing gnubg-nn is an EngineError)",
}

# parameters that take the caller's callback: when one is given a callable, what that
# callable raises comes out of the call (the garbage has callables, e.g. ``object``, which
# takes no argument)
CALLBACKS = {"progress": "perft's progress callback",
             "evaluate": "the search's evaluator, called with a batch of positions",
             "policy": "simulate's and playouts' evaluator policy, called with a batch",
             "roll": "games.play's dice of the live games, called before each turn",
             "watch": "games.play's look at each turn, called before it is played",
             "live": "network.valued's engine, called with the unfinished rows"}
OTHER_ERRORS: Dict[str, Tuple[Tuple[Type[BaseException], ...], str]] = {
    "LegalTurns.index": ((ValueError, TypeError), "the Sequence protocol, as list.index: a "
                         "value that is not there is a ValueError, a start or stop that is "
                         "not an int a TypeError; and numpy's own errors of comparing an "
                         "array with a Turn, as for a list"),
    "LegalTurns.count": ((ValueError, TypeError), "the Sequence protocol, as list.count: "
                         "numpy's own errors of comparing an array with a Turn (an elementwise "
                         "result whose truth is a ValueError; a TypeError for a structured "
                         "array), as for a list"),
    "LegalTurns.from_turns": ((TypeError, ValueError), "the backends' hook that "
                              "Position.legal_turns uses to view the reference's result: it "
                              "takes a backend's tuples (the contract of fastnardy.backend), "
                              "not a caller's input; Cython types its origin and unpacks the "
                              "tuples"),
    "fastnardy.counting.read_perft_file": ((OSError,), "a path that does not open is the "
                                           "operating system's error about that file"),
}

START = Position.start("long")
SHORT = Position.start("short")
SHORT_NET, LONG_NET = Evaluator.load("short"), Evaluator.load("long")
MIDDLE = SHORT.play("13/7 8/7").play("24/22 13/10")  # short nardy: blots, a hit possible
TURN = START.legal_turns((6, 5))[0]
GAME_TEXT = Game("short", seed=5).record()
MAT_TEXT = (Path(__file__).parents[1] / "data" / "gnubg" / "selfplay_0001.mat").read_text()
MAT_GAMES = read_mat(MAT_TEXT)
CHILDREN = batch.expand("short", batch.encode([MIDDLE]), [[2, 1]])[0]
MATCH_CUBE = Cube(2, "opponent", 5, (1, 3))

# right values for parameters of these names (the walk draws from them as well as garbage)
VALID: Dict[str, List[Any]] = {
    "rules": ["long", "short", Rules.long(block_check="turn_end"), Rules.short()],
    "game_or_rules": ["long", Rules.short(hit_and_hide="forbidden")],
    "position": [START, SHORT, MIDDLE],
    "dice": [(6, 5), (1, 1), [2, 3], np.array([4, 4]), np.array([[6, 5], [2, 1]]),
             np.array([[2, 1]])],
    "turn": ["24/18 18/13", "13/7 8/7", "pass", TURN, "white", "black"],
    "white": [START.white_points, SHORT.white_points],
    "black": [START.black_points, SHORT.black_points],
    "white_bar": [0], "black_bar": [0], "white_die": [6, 2], "black_die": [5, 3],
    "text": [START.to_string(), MIDDLE.to_string(), GAME_TEXT, MAT_TEXT],
    "pid": [SHORT.gnubg_id()],
    "depth": [0, 1], "weighted": [False, True], "backend": [None, "kernel", "reference"],
    "workers": [None, 2], "executor": [None], "tt_mb": [None, 1], "progress": [None, print],
    "cube": [1, 2, None, Cube(), MATCH_CUBE, Cube(length=7, score=(4, 2), met=shipped_met(
        "short"))], "seed": [None, 7], "players": [("Anna", "Boris")], "opening": [(6, 5)],
    "boards": [batch.encode([START, MIDDLE]), batch.encode([SHORT], keys=True)],
    "keys": [False, True], "max_children": [None, 1000], "kind": ["raw", "nardy", "tdgammon"],
    "record": [GAME_TEXT], "games": [MAT_GAMES], "name": ["x.mat", ""],
    "rule_id": ["L5", "t2"], "highlight": [None, "24/18 18/13"], "size": [None, 300],
    "flipped": [False], "numbering": ["white", "mover"],
    "n_games": [0, 3], "policy": ["random", ("greedy", "random")], "max_turns": [40],
    "roll": [(6, 5), (1, 1)], "format": ["string", "gnubg"], "timeout": [5, 0.5],
    "steps": [None, "24/18 18/13", ((24, 18, False), (18, 13, False)), ()],
    "evaluate": [evaluator(lambda inputs: inputs[:, 0] - inputs[:, 25], "rows"),
                 evaluator(lambda inputs: inputs.sum(axis=1), ("features", "raw"))],
    "function": [np.sum], "inputs": ["rows", "keys", ("features", "raw")], "plies": [0, 1],
    "filter": [None, MoveFilter(2, 0.1), GNUBG_FILTERS], "n": [1, 3], "start": [None, [MIDDLE]],
    "num_envs": [1, 3], "actions": [np.zeros(3, dtype=np.int64), "turns", "steps"],
    "width": [1, 30], "render_mode": [None, "ansi"], "src": [24, 25], "die": [1, 6],
    "observation": ["rows", "keys", ("features", "raw")], "opponent": ["random", "greedy"],
    "side": ["white", "black"], "action": [0, 1], "agent": ["player_0", "player_1"],
    "options": [None],
    "checkpoint": [None], "points": [START.white_points], "bar": [0, 1], "who": ["white"],
    "point": [0, 7, 25], "step": [(24, 18, False), (13, 7, True)],
    "notation": ["24/18 18/13", "pass"],
    "filename": ["walk.npz"],  # in the walked call's own directory
    "features": [np.zeros((2, 198), np.float32), np.zeros((1, 248), np.float32)],
    "probabilities": [np.full((2, 5), 0.5)],
    # the cube, matches and analysis
    "outputs": [[0.6, 0.2, 0.01, 0.15, 0.005], np.full((2, 5), 0.2)],
    "x": [0.68, np.array([0.6, 0.7])],
    "owner": [None, "centered", "mover", "opponent"],
    "cubes": [[Cube()], [MATCH_CUBE, Cube(4, "mover")],
              [Cube(length=3, score=(1, 0), met=shipped_met("long"))] * 2],
    "met": [None, shipped_met("short"), shipped_met("long")],
    "evaluator": [None, SHORT_NET, LONG_NET], "network": [SHORT_NET, LONG_NET],
    "positions": [[START], [SHORT, MIDDLE]],
    "rows": [batch.encode([SHORT, MIDDLE]), batch.encode([MIDDLE])],
    "children": [CHILDREN],
    "parent": [np.zeros(len(CHILDREN), dtype=np.int64)],
    # the groups of CHILDREN (MIDDLE's one row), and of ``values``
    "offsets": [np.array([0, len(CHILDREN)]), np.array([0, 1, 4])],
    "values": [np.array([1.0, -2.0, 0.0, 3.0]), np.full((2, 2), 0.5)], "count": [1],
    "a": ["random", "greedy", Setting("greedy"), Random(1)], "b": ["greedy", "net:0", Greedy()],
    "spec": ["random", "net:0", Setting("greedy")], "matches": [2], "length": [0, 1, 3],
    "parallel": [None, 1],
    "away": [1, 3], "other": [2], "post_crawford": [False, True],
    "mars": [0.2], "koks": [0.01], "loss": [0.0, 0.05], "value": [(6, 5), 0.03],
    "truncate": [None, 2],
    # the evaluation setting (at 0 ply: a deeper search of the walk's positions takes long)
    "setting": [None, "net:0", "greedy", "random", "net:0:cubeless",
                Setting(precision="int16"), Setting(SHORT_NET), Setting(LONG_NET, cubeful=False)],
    "teacher": ["net:0", "net:0:int16", Setting(SHORT_NET)],
    "precision": ["float", "int16"], "cubeful": [True, False],
    "given": [None, MoveFilter(2, 0.1), GNUBG_FILTERS, Cube(), MATCH_CUBE],
    "level": [0, 1], "top": [False, True], "stop": [None], "number": [1, 2],
    "states": [[Cube(), Cube().taken()], [MATCH_CUBE, None]],
    "p": [np.full((2, 5), 0.2), np.array([[0.6, 0.2, 0.01, 0.15, 0.005]])],
    "won": [0, 1, 2], "lost": [0, 2], "no_double": [0.1], "take": [0.3], "drop": [1.0],
    "gammons": [False, True], "no_double_value": [0.1], "take_value": [0.3],
}


# right values for a parameter of one callable, where its name means another thing elsewhere
VALID_IN: Dict[str, Dict[str, List[Any]]] = {
    "fastnardy.search.bearoff.build": {"checkers": [1, 3]},
    "fastnardy.search.bearoff.shared": {"checkers": [2]},
    "fastnardy.analysis.rollouts.rollout": {"games": [2, 4], "dice": [None, (6, 5)]},
    "fastnardy.analysis.rollouts.cube_rollout": {"games": [2]},
    "fastnardy.analysis.rollouts.dice_stream": {"games": [np.arange(3)], "turn": [0, 5]},
    "fastnardy.play.duel.duel": {"game": ["short", Rules.long()], "games": [2]},
    "fastnardy.play.duel.cube_duel": {"game": ["short", Rules.long()]},
    "fastnardy.play.duel.play_games": {"games": [2], "a": [Greedy(), Random(1)],
                                       "b": [Random(2), Greedy()]},
    "fastnardy.play.duel.play_cube_matches": {"a": [Greedy(), Random(1)],
                                              "b": [Random(2), Greedy()]},
    "Setting()": {"evaluator": ["net", "greedy", "random", "gnubg:expert", "walk.npz",
                                SHORT_NET]},
    "Setting.parse": {"text": ["net:1", "greedy", "gnubg:beginner:2", "walk.npz:1",
                               "net:2:int16:2,0.04:cubeless"]},
    "fastnardy.search.setting.parse_filter": {"text": ["full", "8,0.16/1,0"]},
    "fastnardy.search.setting.setting": {"value": [None, "net:1", Setting()]},
    "fastnardy.search.network.checked": {"value": [SHORT_NET, LONG_NET]},
    "fastnardy.play.games.play": {
        "players": [[Greedy(), Random(1)], (Random(2), Random(3))],
        "first": [np.array([True, False]), [False]],
        "roll": [lambda turn, games: np.random.default_rng(turn).integers(
            1, 7, (len(games), 2)).astype(np.int8)],
        "turns": [1, 40], "watch": [None, lambda turn, games, rows, dice: None]},
}


def _analysed() -> Dict[str, Any]:
    """An analysed game, a rollout and a cube rollout, made once (their classes' methods are
    read-only)."""
    from fastnardy.analysis.review import analyse
    from fastnardy.analysis.rollouts import cube_rollout, rollout

    analysis = analyse(MAT_TEXT, "walk.mat")
    return {"analysis": analysis, "rolled": rollout(MIDDLE, (6, 5), 2),
            "cube": cube_rollout(MIDDLE, games=2)}


ANALYSED = _analysed()


def _samples() -> Dict[type, Callable[[], List[Any]]]:
    """A few instances of every public class with instance methods (built fresh per example:
    a Game is mutable)."""
    from fastnardy.analysis.evaluation import (Candidate, Evaluation, Hint, cube_decision,
                                               evaluate, hint)
    from fastnardy.analysis.review import AnalysedTurn, Analysis, CubeReview
    from fastnardy.analysis.rollouts import CubeRollout, RolledCandidate
    from fastnardy.analysis.benchmarks import Difference, Score, errors, paired
    from fastnardy.play.duel import CubeDuel, Duel, Interval, Share, cube_duel, duel, wilson
    from fastnardy.play.players import Player, Searcher
    from fastnardy.search import bearoff
    from fastnardy.search.cubeful import CubeDecision
    from fastnardy.search.met import MatchEquityTable
    from fastnardy.search.network import Probabilities
    from fastnardy.search.tree import Ranked, Search
    from fastnardy.engines import crosscheck
    from fastnardy.batch import ChanceNodes
    from fastnardy.formats.ids import read_gnubg_ids, read_xgid
    from fastnardy.formats.mat import MatGame
    from fastnardy.play.ubgi import Engine
    from fastnardy.record import GameRecord
    from fastnardy.search.selfplay import Simulation
    from fastnardy.envs.steps import TurnInProgress
    from fastnardy.envs.vector import TurnState, VectorEnv

    def environments() -> List[Any]:
        ready = VectorEnv("short", 3, 1)
        ready.reset()
        steps = VectorEnv("long", 2, 1, actions="steps")
        steps.reset()
        return [VectorEnv("long", 2), ready, steps]

    engine = [sys.executable, "-m", "fastnardy.engines.reference"]
    difference = crosscheck.Difference(START, (), START, (6, 6), 1, (TURN,), (), (("x", 2),))

    def game() -> List[Any]:
        return [Game("long", seed=1), Game.from_position(MIDDLE, seed=2),
                Game.from_record(GAME_TEXT)]

    return {
        Position: lambda: [START, SHORT, MIDDLE],
        fastnardy.Turn: lambda: [TURN, MIDDLE.legal_turns((6, 6))[0]],
        fastnardy.LegalTurns: lambda: [START.legal_turns((3, 3)), MIDDLE.legal_turns((2, 1))],
        Rules: lambda: [Rules.long(), Rules.short()],
        Game: game,
        fastnardy.Match: lambda: [fastnardy.Match("short", 3, seed=1),
                                  fastnardy.Match(Rules.long(stakes="arithmetic"), 1, seed=2)],
        MatGame: lambda: MAT_GAMES[:1],
        Engine: lambda: [Engine()],
        read_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10").__class__: lambda: [
            read_xgid("XGID=-b----E-C---eE---c-e----B-:1:-1:1:00:2:3:0:7:10"),
            read_gnubg_ids("4HPwATDgc/ABMA:cAkAAAAAAAAA")],
        GameRecord: lambda: [Game.from_record(GAME_TEXT).to_record(), MAT_GAMES[0].to_record()],
        ChanceNodes: lambda: [batch.chance_expand("long", batch.encode([START]))],
        batch.Expander: lambda: [batch.Expander("long"), batch.Expander("short", keys=True)],
        Simulation: lambda: [simulate("short", 3, seed=1), simulate("long", 0)],
        VectorEnv: environments,
        **_rl_samples(),
        TurnState: lambda: [VectorEnv("long", 2, 3).reset()],
        TurnInProgress: lambda: [TurnInProgress(START, (6, 5)), TurnInProgress(MIDDLE, (2, 2))],
        crosscheck.ProcessEngine: lambda: [crosscheck.ProcessEngine(engine, timeout=20)],
        crosscheck.OneShotEngine: lambda: [crosscheck.OneShotEngine(engine + ["--one-shot"],
                                                                    timeout=20)],
        crosscheck.Difference: lambda: [difference],
        Evaluator: lambda: [LONG_NET, SHORT_NET],
        bearoff.Database: lambda: [bearoff.database()],
        Cube: lambda: [Cube(), Cube(2, "mover", 5, (1, 3)), Cube(4, "opponent", 3, (2, 1)),
                       Cube(length=3, score=(1, 1), met=shipped_met("long"))],
        CubeDecision: lambda: [cube_decision(MIDDLE), cube_decision(MIDDLE, MATCH_CUBE)],
        Candidate: lambda: list(hint(MIDDLE, (6, 5))[:2]) + [hint(MIDDLE, (6, 5),
                                                                  "net:0:cubeless")[0]],
        Hint: lambda: [hint(MIDDLE, (6, 5)), hint(START, (6, 6), "net:0:cubeless")],
        Evaluation: lambda: [evaluate(MIDDLE), evaluate(START, cube=MATCH_CUBE)],
        Probabilities: lambda: [evaluate(MIDDLE).probabilities,
                                Probabilities.exact(Position.from_string("long w 1:1 24:15"))],
        Setting: lambda: [Setting(), Setting("net", 1, precision="int16"), Setting("greedy"),
                          Setting(SHORT_NET, 1, cubeful=False), Setting("gnubg:expert", 2),
                          Setting("walk.npz")],
        Search: lambda: [Search(Rules.short(), SHORT_NET, None),
                         Search(Rules.long(), LONG_NET, GNUBG_FILTERS),
                         Search(Rules.short(), VALID["evaluate"][0], MoveFilter(2, 0.1))],
        Ranked: lambda: [Search(Rules.short(), SHORT_NET, None).rank(
            CHILDREN, np.array([0, len(CHILDREN)]), 0, MATCH_CUBE, True)],
        Duel: lambda: [duel("short", "greedy", "random", 2, 1)],
        CubeDuel: lambda: [cube_duel("short", "greedy", "random", 2, 1, 1),
                           cube_duel("long", "random", "greedy", 2, 0, 2)],
        Interval: lambda: [Interval(0.25, 0.5), Interval(1.0, None)],
        Share: lambda: [wilson(3, 4), wilson(0, 2)],
        MatchEquityTable: lambda: [shipped_met("short"), shipped_met("long")],
        Analysis: lambda: [ANALYSED["analysis"]],
        AnalysedTurn: lambda: list(ANALYSED["analysis"].turns[:2]),
        CubeReview: lambda: list(ANALYSED["analysis"].cube_decisions[:2]),
        RolledCandidate: lambda: ANALYSED["rolled"][:2],
        CubeRollout: lambda: [ANALYSED["cube"]],
        Score: lambda: [errors("greedy", "long")],
        Difference: lambda: list(paired(errors("net:0", "long"), errors("greedy", "long"))
                                 .values()),
        Player: lambda: [Greedy(), Random(3), Searcher("net:0", "short")],
        Greedy: lambda: [Greedy()],
        Random: lambda: [Random(1)],
        Searcher: lambda: [Searcher("net:0", "short"), Searcher(Setting(LONG_NET, 1), "long"),
                           Searcher("net:0:cubeless", Rules.short())],
    }


def _rl_samples() -> Dict[type, Callable[[], List[Any]]]:
    """Environments of the RL adapters, fresh and reset, where their libraries are installed."""
    samples: Dict[type, Callable[[], List[Any]]] = {}
    if "fastnardy.envs.gymnasium" in MODULES:
        from fastnardy.envs.gymnasium import (OBSERVATION_LAYOUT, NardyEnv, NardyVectorEnv,
                                              ObservationLayout)

        def gym() -> List[Any]:
            ready = NardyEnv("short", "greedy")
            ready.reset(seed=1)
            steps = NardyEnv("long", actions="steps", render_mode="ansi")
            steps.reset(seed=2)
            return [NardyEnv("long"), ready, steps]

        def vector() -> List[Any]:
            ready = NardyVectorEnv("short", 3, "greedy")
            ready.reset(seed=1)
            steps = NardyVectorEnv("long", 2, actions="steps")
            steps.reset(seed=2)
            return [NardyVectorEnv("long", 2), ready, steps]

        samples[NardyEnv] = gym
        samples[NardyVectorEnv] = vector
        samples[ObservationLayout] = lambda: list(OBSERVATION_LAYOUT.values())
    if "fastnardy.envs.pettingzoo" in MODULES:
        from fastnardy.envs.pettingzoo import NardyAEC

        def zoo() -> List[Any]:
            ready = NardyAEC("long")
            ready.reset(seed=2)
            steps = NardyAEC("short", actions="steps", render_mode="ansi")
            steps.reset(seed=3)
            return [ready, steps]

        samples[NardyAEC] = zoo
    return samples


SAMPLES = _samples()


class Entry(NamedTuple):
    name: str
    target: Callable[[], List[Callable[..., Any]]]  # the callables to call (bound, fresh)
    params: List[inspect.Parameter]


def _params(function: Callable[..., Any], drop_first: bool) -> List[inspect.Parameter]:
    try:
        params = list(inspect.signature(function).parameters.values())
    except ValueError:  # a compiled class's constructor: no signature, called with none
        assert isinstance(function, type), function
        return []
    return params[1:] if drop_first else params


def _public(module: Any) -> List[Tuple[str, Any]]:
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n, v in vars(module).items() if not n.startswith("_")
                 and getattr(v, "__module__", None) == module.__name__]
    return [(n, getattr(module, n)) for n in names]


def _class_entries(cls: type) -> List[Entry]:
    entries = [Entry(f"{cls.__name__}()", lambda: [cls], _params(cls, False))]
    bases = [c for c in cls.__mro__ if c.__module__.startswith("fastnardy")]
    seen = set()
    for base in bases:
        for name, attr in vars(base).items():
            if name.startswith("_") or name in seen:
                continue
            seen.add(name)
            qual = f"{cls.__name__}.{name}"
            if isinstance(attr, (classmethod, staticmethod)):
                entries.append(Entry(qual, lambda n=name: [getattr(cls, n)],
                                     _params(getattr(cls, name), False)))
            elif isinstance(attr, property):
                if attr.fset is not None:
                    def setter(n: str = name) -> List[Callable[..., Any]]:
                        return [lambda value, s=s: setattr(s, n, value)
                                for s in SAMPLES[cls]()]
                    entries.append(Entry(f"{qual} = ", setter, [inspect.Parameter(
                        "value", inspect.Parameter.POSITIONAL_ONLY)]))
            elif callable(attr):
                assert cls in SAMPLES, f"{cls.__name__} has methods but no samples"
                entries.append(Entry(qual, lambda n=name: [getattr(s, n) for s in SAMPLES[cls]()],
                                     _params(attr, True)))
    return entries


WALKED = set()  # ids of the functions and classes walked (a re-export once, where first met)


def _surface() -> List[Entry]:
    entries = []
    for module_name in MODULES:
        for name, value in _public(importlib.import_module(module_name)):
            if id(value) in WALKED or f"{module_name}.{name}" in NOT_WALKED_NAMES:
                continue
            WALKED.add(id(value))
            if isinstance(value, type):
                entries += _class_entries(value)
            elif callable(value):
                entries.append(Entry(f"{module_name}.{name}", lambda v=value: [v],
                                     _params(value, False)))
    for path in EXTRA:
        module_name, _, name = path.rpartition(".")
        function = getattr(importlib.import_module(module_name), name)
        WALKED.add(id(function))
        entries.append(Entry(path, lambda f=function: [f], _params(function, False)))
    # a callable without parameters has no argument to garble (bearoff.table, Game.undo, ...)
    return sorted((e for e in entries if e.params), key=lambda e: e.name)


SURFACE = _surface()


class _ReadTooFar(BaseException):
    """An endless iterator read past READ_LIMIT items: a read without a bound (a hang, then
    memory gone, without the guard). A BaseException, so no ``except Exception`` hides it."""


READ_LIMIT = 10_000  # more than any legal length in the walk (checks.MAX_ITEMS is set lower)


class _Endless:
    """An endless iterator of one item that fails the walk when read too far."""

    def __init__(self, item: Any) -> None:
        self.item, self.read = item, 0

    def __iter__(self) -> "_Endless":
        return self

    def __next__(self) -> Any:
        self.read += 1
        if self.read > READ_LIMIT:
            raise _ReadTooFar(f"an endless iterator of {self.item!r} was read past "
                              f"{READ_LIMIT} items")
        return self.item

    def __repr__(self) -> str:
        return f"<endless {self.item!r}>"


ENDLESS = st.builds(_Endless, st.sampled_from([0, 6, "24/18", (24, 18), (24, 18, False),
                                               START, TURN, None]))
RAGGED = st.sampled_from([[[1, 2], [3]], [[6, 5], [1]], [[0] * 50, [0] * 49], [[0] * 6, [1]],
                          [[0] * 198, [0]], [[1, [2]]]])

_ARRAY_DTYPES = st.sampled_from([np.int8, np.uint8, np.int32, np.int64, np.uint64, np.float64,
                                 np.bool_, np.dtype("U5"), np.dtype("S3"), np.complex64,
                                 batch.KEY_DTYPE])
GARBAGE = st.one_of(
    st.none(), st.booleans(), st.floats(), st.sampled_from([float("nan"), float("inf"), -0.0]),
    st.integers(-2 ** 70, 2 ** 70), st.sampled_from([-1, 0, 1, 2, 6, 7, 15, 25, 65, 2 ** 64]),
    st.text(max_size=10),
    st.sampled_from(["long", "short", "white", "black", "Reference", "24/18 18/13", "bar/off",
                     "L5", "raw", "long w 24:15 24:15", "4HPwATDgc/ABMA"]),
    st.binary(max_size=6),
    st.lists(st.integers(-2, 30) | st.none() | st.text(max_size=2), max_size=26).map(list),
    st.lists(st.integers(0, 7), min_size=1, max_size=4).map(tuple),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=3),
    st.sampled_from([np.int64(3), np.float32(1.5), np.bool_(True), np.str_("long"),
                     np.uint8(200), np.int8(-1)]),
    hnp.arrays(_ARRAY_DTYPES, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)),
    st.sampled_from([np.array(5), np.array([5]), np.array([[6, 5]]), np.array("long"),
                     np.array(["white", "black"]), np.array([24, 18]), np.zeros((2, 50)),
                     np.full((1, 50), 16, dtype=np.int8), np.zeros(3, dtype=batch.KEY_DTYPE)]),
    st.builds(object), st.sampled_from([object, Ellipsis, print, START.legal_turns]),
    ENDLESS, RAGGED,
)


def _integer_in(low: int, high: Optional[int] = None) -> Callable[[Any], bool]:
    """Whether a value is an integer (not a bool) from ``low`` to ``high`` (no bound when
    None): right, but long work for the walk."""
    def long_work(value: Any) -> bool:
        try:
            number = operator.index(value)
        except TypeError:
            return False
        return not isinstance(value, bool) and low <= number and (high is None or number <= high)
    return long_work


def _a_file_name(value: Any) -> bool:
    """Text that would name a file: perft's checkpoint would write it (the walk's right
    checkpoint is None; tests/interfaces/test_long_runs.py checks the files)."""
    return isinstance(value, str)


# the values of a parameter that are right but long work, by its name; the walk draws none
_MANY_GAMES = _integer_in(100)  # self-play for seconds or more (the walk's: 0 and 3)
LONG_WORK = {
    "depth": _integer_in(2, 64),  # perft for minutes (the walk's depths: 0 and 1)
    # every right one builds a benchmark set, seconds to minutes (test_benchmark_sets
    # builds small ones): the walk gives only wrong ones
    "per_class": _integer_in(1),
    "n_games": _MANY_GAMES, "n": _MANY_GAMES, "num_envs": _MANY_GAMES, "games": _MANY_GAMES,
    "matches": _MANY_GAMES,
    # a bear-off database's build: seconds to minutes and gigabytes (the walk's: 1 to 3)
    "checkers": _integer_in(4),
    "length": _integer_in(4),  # Python Games one turn at a time (the walk's: 0, 1 and 3)
    "plies": _integer_in(2),  # a full-width 2-ply search, seconds (the walk's: 0 and 1)
    "checkpoint": _a_file_name}


def _argument(name: str, entry: str) -> st.SearchStrategy[Any]:
    long_work = LONG_WORK.get(name)
    garbage = GARBAGE.filter(lambda v: not long_work(v)) if long_work else GARBAGE
    valid = VALID_IN.get(entry, {}).get(name, VALID.get(name))
    return st.sampled_from(valid) | garbage if valid else garbage


@st.composite
def _call(draw: st.DrawFn, entry: Entry) -> Tuple[List[Any], Dict[str, Any]]:
    args: List[Any] = []
    kwargs: Dict[str, Any] = {}
    for p in entry.params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        long_default = p.name in LONG_WORK and LONG_WORK[p.name](p.default)
        if p.default is not p.empty and not long_default and draw(st.booleans()):
            continue  # left out: the default (never a default that is long work)
        value = draw(_argument(p.name, entry.name))
        if p.kind == p.POSITIONAL_ONLY:
            args.append(value)
        else:
            kwargs[p.name] = value
    return args, kwargs


MEMORY_HEADROOM = 4 << 30  # bytes of address space a walked call may take beyond the walk's


@contextlib.contextmanager
def _memory_capped() -> Iterator[None]:
    """The address space capped at MEMORY_HEADROOM beyond what the process holds, inside the
    block (where Linux tells it): an unchecked size drawn from the garbage (a count of 2**40)
    is numpy's MemoryError, a failure of the walk, not the machine's OOM killer ending it."""
    statm = Path("/proc/self/statm")
    if not statm.exists():
        yield
        return
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = int(statm.read_text().split()[0]) * os.sysconf("SC_PAGE_SIZE") + MEMORY_HEADROOM
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


@contextlib.contextmanager
def _working_in(folder: str) -> Iterator[None]:
    """The current directory is ``folder`` inside the block (contextlib.chdir, before 3.11)."""
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


@pytest.mark.parametrize("entry", SURFACE, ids=lambda e: e.name)
@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(data=st.data())
def test_garbage_raises_only_documented_errors(entry: Entry, data: st.DataObject) -> None:
    """Each walked callable with arguments right and wrong; in a directory of its own, since
    a file name drawn from the walk's text (a writer's ``path``, such as write_set's) is
    written where the test runs."""
    args, kwargs = data.draw(_call(entry), label="arguments")
    other, _reason = OTHER_ERRORS.get(entry.name, ((), ""))
    if any(callable(kwargs.get(name)) for name in CALLBACKS):
        other = (Exception,)  # the callback's own error
    with tempfile.TemporaryDirectory(prefix="fastnardy-walk-") as here, _working_in(here):
        for function in entry.target():
            # MAX_ITEMS: iterators of positions, games
            with patch.object(checks, "MAX_ITEMS", 100), _memory_capped():
                try:
                    function(*args, **kwargs)
                except (FastNardyError, *other):
                    pass


def test_the_walk_covers_the_public_surface() -> None:
    names = {entry.name for entry in SURFACE}
    for expected in ("Position.from_points", "Position.legal_turns", "Position.check_played",
                     "Turn()", "LegalTurns.index", "Rules()", "Rules.of",
                     "Game()", "Game.play", "Game.dice = ", "fastnardy.batch.expand",
                     "fastnardy.features", "fastnardy.search.bearoff.expected_rolls",
                     "fastnardy.formats.mat.read_mat", "fastnardy.formats.svg.board",
                     "fastnardy.formats.svg.to_png",
                     "fastnardy.perft", "fastnardy.perft_divide",
                     "fastnardy.rules.describe", "fastnardy.reference.perft",
                     "fastnardy.search.tree.best_turn", "fastnardy.search.tree.expectimax",
                     "fastnardy.search.tree.evaluator",
                     "fastnardy.notation.parse_turn", "fastnardy.notation.format_steps",
                     "fastnardy.referee.play", "fastnardy.referee.check_played"):
        assert expected in names, expected
    assert set(OTHER_ERRORS) <= names  # every exception to the rule names a walked callable
    assert all(p.name in CALLBACKS for e in SURFACE for p in e.params
               if "Callable" in str(p.annotation))


def test_every_module_is_walked_or_named() -> None:
    """A module of the package is in MODULES, in NOT_WALKED with its reason, private, or
    has every public function and class walked through another module (position's values
    through the package's __all__)."""
    for info in pkgutil.walk_packages(fastnardy.__path__, "fastnardy."):
        if (info.name in MODULES or info.name in NOT_WALKED
                or any(part.startswith("_") for part in info.name.split("."))):
            continue
        module = importlib.import_module(info.name)
        missing = [name for name, value in _public(module)
                   if (isinstance(value, type) or inspect.isfunction(value))
                   and id(value) not in WALKED and not _left_out(value)]
        assert not missing, (info.name, missing)
    for name in NOT_WALKED_NAMES:  # each names a public name of a walked module
        module_name, _, attribute = name.rpartition(".")
        assert module_name in MODULES, name
        assert attribute in dict(_public(importlib.import_module(module_name))), name


def _left_out(value: Any) -> bool:
    """``value`` is a name NOT_WALKED_NAMES leaves out."""
    return any(getattr(importlib.import_module(name.rpartition(".")[0]),
                       name.rpartition(".")[2]) is value for name in NOT_WALKED_NAMES)


def test_openspiel_constructors_raise_only_documented_errors() -> None:
    """The games and states a caller builds refuse garbage with FastNardyError; none kills
    the interpreter (NardyState(None) did, through pyspiel)."""
    openspiel = pytest.importorskip("fastnardy.envs.openspiel", exc_type=ImportError)
    garbage = [None, object(), "long", 3, 2.5, np.array([[6, 5]]), [1, 2], {"max_turns": "x"},
               {"max_turns": -1}, {"unknown": 1}, {"max_turns": np.array([5])},
               _Endless(3), [[1, 2], [3]]]
    for make in (openspiel.LongNardyGame, openspiel.ShortNardyGame, openspiel.NardyState):
        for value in garbage:
            try:
                make(value)
            except FastNardyError:
                pass
    game = openspiel.LongNardyGame()
    for value in garbage[1:]:
        for call in (lambda: game.make_py_observer(value),
                     lambda: game.make_py_observer(None, value)):
            try:
                call()
            except FastNardyError:
                pass
    state = openspiel.NardyState(game)
    assert state.is_chance_node()
    for value in garbage:
        for call in (state.apply_action, state.action_to_string, state.legal_actions):
            try:
                call(value)
            except (FastNardyError, TypeError):  # pyspiel's own signature check: TypeError
                pass


def _without_stable_baselines3(call: Callable[[], object]) -> Callable[[], object]:
    """``call`` as it runs where stable-baselines3 is not installed."""
    def run() -> object:
        with patch.dict(sys.modules, {"stable_baselines3": None,
                                      "stable_baselines3.common.vec_env": None,
                                      "fastnardy.envs._sb3": None}):
            return call()
    return run


def _round_four() -> List[Tuple[str, Callable[[], object]]]:
    """The escapes issue 40 found (item 8), each its own call: all are documented errors."""
    from fastnardy.analysis import rollouts
    from fastnardy.play import duel, players
    from fastnardy.play.players import Searcher
    from fastnardy.search import cubeful

    long, short = Position.start("long"), Position.start("short")
    rows = batch.encode([short])
    children, parent = batch.expand("short", rows, np.array([[6, 5]]))
    offsets = batch.offsets(parent, 1)
    network = SHORT_NET.network
    cases: List[Tuple[str, Callable[[], object]]] = [
        ("duel(a=[])", lambda: duel.duel("short", [], "greedy", 2, 0)),
        ("duel(parallel=0)", lambda: duel.duel("short", "greedy", "random", 2, 0,
                                               parallel=0)),
        ("player(spec=array)", lambda: players.player(np.zeros(3), "short", 0)),
        ("play_games(a=object)", lambda: duel.play_games(Rules.short(), object(), Greedy(),
                                                         2, 0)),
        ("interval(values=Position)", lambda: duel.interval(long)),
        ("Greedy.pick(rules='short', rows=garbage)", lambda: Greedy().pick(
            "short", [[1, 2]], [[6, 5]], children, offsets)),
        ("Greedy.pick(offsets=unsorted)", lambda: Greedy().pick(
            "short", rows, [[6, 5]], children, offsets[::-1])),
        ("cube_action(outputs=[])", lambda: cubeful.cube_action([], 0.68)),
        ("cube_action(outputs=0)", lambda: cubeful.cube_action(0, 0.68)),
        ("cube_action(outputs=2-D)", lambda: cubeful.cube_action(np.zeros((2, 5)), 0.68)),
        ("rollout(workers=array)", lambda: rollouts.rollout(short, games=2,
                                                            workers=np.array([1, 2]))),
        ("rollout(progress=3)", lambda: rollouts.rollout(short, games=2, progress=3)),
        ("cube_rollout(met=False)", lambda: rollouts.cube_rollout(
            long, Cube(length=3, met=False), games=2)),
        ("cube_rollout(money cube, a match's table)", lambda: rollouts.cube_rollout(
            long, Cube(met=cubeful.shipped_met("long")), games=2).no_double),
        ("Searcher(plies=-1)", lambda: Searcher(Setting(SHORT_NET, -1), "short")),
        ("NardyVectorEnv.sb3() without stable-baselines3", _without_stable_baselines3(
            lambda: pytest.importorskip("fastnardy.envs.gymnasium", exc_type=ImportError)
            .NardyVectorEnv("short", 2).sb3())),
    ]
    for lo in (-1, 10**30, -np.inf, np.nan, "1"):
        cases.append((f"Network.key_equity(lo={lo!r})",
                      lambda lo=lo: network.key_equity(lo, 0)))
    ragged = [[0] * 50, [0] * 49]
    cases += [("Network.equities(ragged)", lambda: network.equities(ragged)),
              ("Network.probabilities(ragged)", lambda: network.probabilities(ragged))]
    return cases


@pytest.mark.parametrize("name, call", _round_four(), ids=[n for n, _ in _round_four()])
def test_the_escapes_of_round_four_are_documented_errors(name: str, call: Callable[[], object]
                                                         ) -> None:
    """Each raised AttributeError, IndexError, TypeError, OverflowError, numpy's ValueError
    or ModuleNotFoundError at main ee49613 (their 0.2.0 names: duel was match, play_games
    play_match, Searcher Network; the table is the cube's); the money cube with a match's
    table rolled out divided by zero. The last is not an error: a money cube uses no
    table."""
    if name == "cube_rollout(money cube, a match's table)":
        assert np.isfinite(call().mean)
        return
    with pytest.raises(FastNardyError):
        call()
