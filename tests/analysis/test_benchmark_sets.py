"""Benchmark sets of checker play (issue 39 item 1): the shipped sets read, hold what their
header says, their candidates are legal turns rolled out as the header says; a set builds
the same from the same arguments, on a process pool too; a player's error is the equity
its turn loses against the best candidate, and a turn outside the candidates is rolled out
as they were (or counted apart when the set does not say how they were rolled out)."""

from __future__ import annotations

import json
import shutil
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from fastnardy import FastNardyError, Position
from fastnardy.analysis import rollout
from fastnardy.analysis import benchmarks
from fastnardy.analysis.benchmarks import (CLASSES, BenchmarkPosition, Candidate, build_set,
                                           classify, errors, paired, read_set, write_set)
from fastnardy.cli import main
from fastnardy.play.gnubg import GNUBG
from fastnardy.play.players import greedy_scores
from fastnardy.batch import encode, expand
from fastnardy.search.network import Evaluator
from fastnardy.search.setting import Setting

SETS = {game: read_set(game) for game in CLASSES}


def test_classes_of_known_positions():
    assert classify(Position.start("long")) == "contact"
    assert classify(Position.start("short")) == "contact"
    assert classify(Position.from_string("short w 6:5,5:5,4:5 6:5,5:5,4:5")) == "race"
    assert classify(Position.from_string("short w 6:5,5:5,4:5 24:5,23:5,22:5")) == "contact"
    # black has 3 checkers in play and 12 off: its board has crashed
    assert classify(Position.from_string("short w 22:2,13:5,8:3,6:5 1:1,2:1,20:1")) == \
        "crashed"
    # 10 of black's in play, 5 on its ace point and 1 on its deuce beyond the first dead
    assert classify(Position.from_string("short w 22:2,13:5,8:3,6:5 1:6,2:2,4:1,20:1")) \
        == "crashed"
    assert classify(Position.from_string("short w 22:2,13:5,8:3,6:5 1:2,2:2,4:2,20:1")) \
        == "crashed"  # 7 in play, 5 of them active
    assert classify(Position.from_string("short w 22:2,13:5,8:3,6:5 1:2,2:2,4:2,5:2,20:1")) \
        == "contact"  # 9 in play, 7 of them active
    assert classify(Position.from_string("long w 6:5,5:5,4:5 6:5,5:5,4:5")) == "bear-off"
    assert classify(Position.from_string("long w 7:1,6:4,5:5,4:5 6:5,5:5,4:5")) == "race"
    with pytest.raises(FastNardyError, match="must be a Position"):
        classify("short")


@pytest.mark.parametrize("game", ["long", "short"])
def test_the_shipped_set_holds_what_its_header_says(game):
    """Every class as many positions as the header's per_class; each position's class is
    its class; each candidate is a legal turn of the position and roll (its notation and
    its position), the best first, with a standard error."""
    about = json.loads(Path(benchmarks.__file__).parent.parent.joinpath(
        "data", f"benchmark_{game}.json").read_text())["about"]
    found = SETS[game]
    for kind in CLASSES[game]:
        assert sum(p.kind == kind for p in found) == about["per_class"]
    assert len({(p.position, p.dice) for p in found}) == len(found)
    for item in found:
        assert item.position.rules.game == game and classify(item.position) == item.kind
        legal = {str(t): t.position.to_string() for t in item.position.legal_turns(item.dice)}
        assert len(legal) >= 2 and len(item.candidates) >= 2
        equities = [c.equity for c in item.candidates]
        assert equities == sorted(equities, reverse=True)
        for candidate in item.candidates:
            # a stderr of 0: every game ends alike (a turn that loses whatever is thrown)
            assert legal[candidate.turn] == candidate.position and candidate.stderr >= 0


def test_a_shipped_equity_is_its_rollout_again():
    """A candidate of the shipped long set rolled out again as the header says (the shipped
    network alone at 0 ply, whole games: no bear-off database; its games and seed) gives its
    equity to the last digit kept."""
    about = json.loads(Path(benchmarks.__file__).parent.parent.joinpath(
        "data", "benchmark_long.json").read_text())["about"]
    for item in (SETS["long"][0], SETS["long"][-1]):
        candidate = item.candidates[-1]
        line = rollout(Position.from_string(candidate.position), None, about["games"],
                       setting=Setting(Evaluator.load("long", bearoff=False)),
                       seed=about["seed"])[0]
        assert round(-line.mean, 5) == candidate.equity
        assert round(line.stderr, 5) == candidate.stderr


def test_a_set_builds_the_same_from_the_same_arguments(tmp_path):
    """Long nardy (no gnubg needed): built twice, once on a process pool, the same set;
    written and read back, the same set."""
    small = {"per_class": 1, "games": 3, "seed": 4, "played": 2}
    first = build_set("long", **small)
    with ProcessPoolExecutor(2) as pool:
        again = build_set("long", **small, executor=pool)
    assert first == again and [p.kind for p in first] == list(CLASSES["long"])
    path = tmp_path / "set.json"
    write_set(path, first, {"note": "test"})
    assert read_set(str(path)) == [item._replace(candidates=tuple(
        c._replace(equity=round(c.equity, 5), stderr=round(c.stderr, 5))
        for c in item.candidates)) for item in first]  # the file keeps 5 decimals


def _turn_of(position: Position, dice, scores) -> str:
    """The notation of the legal turn that ``scores`` (a value per child) puts first."""
    rows = encode([position])
    children, _ = expand(position.rules, rows, np.array([dice], dtype=np.int8))
    best = children[int(np.argmax(scores(children)))].tobytes()
    return next(str(t) for t in position.legal_turns(dice)
                if encode([t.position])[0].tobytes() == best)


def test_the_error_is_the_equity_lost_against_the_best_candidate():
    """A hand-made set: where greedy's turn is the second candidate, 0.3 below the best, its
    error is 300 thousandths; where its turn is not a candidate, it is counted outside."""
    position, dice = Position.start("short"), (6, 5)
    greedy = _turn_of(position, dice, lambda rows: greedy_scores("short", rows))
    other = next(t for t in position.legal_turns(dice) if str(t) != greedy)
    mine = next(t for t in position.legal_turns(dice) if str(t) == greedy)
    listed = BenchmarkPosition(position, dice, "contact", (
        Candidate(str(other), other.position.to_string(), 0.5, 0.01),
        Candidate(greedy, mine.position.to_string(), 0.2, 0.01)))
    third = next(t for t in position.legal_turns(dice) if str(t) not in (greedy, str(other)))
    missing = BenchmarkPosition(position, dice, "race", (
        Candidate(str(other), other.position.to_string(), 0.5, 0.01),
        Candidate(str(third), third.position.to_string(), 0.4, 0.01)))
    score = errors("greedy", "short", [listed, missing])
    assert score.classes["contact"] == (1, pytest.approx(300.0), 0)
    unsorted = listed._replace(candidates=listed.candidates[::-1])  # given worst first
    assert errors("greedy", "short", [unsorted]).classes["contact"][1] == pytest.approx(300.0)
    assert score.classes["race"][0] == 1 and score.classes["race"][2] == 1
    assert score.classes["all"][:1] == (2,) and score.classes["all"][2] == 1
    assert np.isnan(score.classes["crashed"][1]) and score.classes["crashed"][0] == 0
    assert score.as_dict()["classes"]["crashed"] == {"positions": 0, "error": None,
                                                     "outside": 0, "standard_error": None}
    # the standard error of a class's mean: losses 300 and 0, deviation 212.1, over sqrt(2)
    best = listed._replace(candidates=(listed.candidates[1]._replace(equity=0.6),
                                       listed.candidates[0]))
    spread = errors("greedy", "short", [listed, best, missing]).standard_errors
    assert spread is not None and spread["contact"] == pytest.approx(150.0)
    assert np.isnan(spread["crashed"]) and np.isnan(score.standard_errors["contact"])


def test_a_turn_outside_the_candidates_is_rolled_out_as_they_were():
    """Given the rollouts' (games, seed), a turn outside the candidates is rolled out there
    as build_set rolls out a candidate (the shipped network, those games and seed), and
    loses against the best of the candidates and itself: here greedy's turn, not among two
    candidates made up at 1.0 above and below its own rolled-out equity, then at 0.5 and
    1.0 below it."""
    position, dice = SETS["long"][0].position, SETS["long"][0].dice
    greedy = _turn_of(position, dice, lambda rows: greedy_scores("long", rows))
    mine = next(t for t in position.legal_turns(dice) if str(t) == greedy)
    others = [t for t in position.legal_turns(dice) if str(t) != greedy][:2]
    own = -rollout(mine.position, None, 16, seed=3)[0].mean  # to the side that played it

    def scored(high: float, low: float) -> benchmarks.Score:
        item = BenchmarkPosition(position, dice, "contact", tuple(
            Candidate(str(t), t.position.to_string(), e, 0.01)
            for t, e in zip(others, (high, low))))
        return errors("greedy", "long", [item], rollouts=(16, 3))

    score = scored(own + 1.0, own - 1.0)
    assert score.rolled_out and score.rollout_seconds > 0
    assert score.classes["contact"] == (1, pytest.approx(1000.0), 1)
    assert score.classes["all"] == (1, pytest.approx(1000.0), 1)
    assert scored(own - 0.5, own - 1.0).classes["contact"][1] == 0.0  # better than both
    assert score.as_dict()["rolled_out"] is True
    with pytest.raises(FastNardyError, match="rollouts is"):
        errors("greedy", "long", [], rollouts=16)
    with pytest.raises(FastNardyError, match="rollout games"):
        errors("greedy", "long", [], rollouts=(1, 3))


def test_a_turn_that_ends_the_game_is_scored_exactly():
    """A turn that bears off the last checker is not rolled out (there is nothing left to
    play: the rollout refuses it) but scored by its exact points, here a mars (2, L10): the
    network takes it, outside a made-up candidate list, and loses nothing against a
    candidate at 0.5, 0.5 against one at 2.5."""
    position, dice = Position.from_string("long w 3:1,1:1 24:15"), (3, 1)
    turns = {t.position.outcome() is not None: t for t in position.legal_turns(dice)}
    assert turns[True].position.outcome().points == 2

    def scored(equity: float) -> float:
        item = BenchmarkPosition(position, dice, "bear-off", (Candidate(
            str(turns[False]), turns[False].position.to_string(), equity, 0.01),))
        score = errors("net:0", "long", [item], rollouts=(16, 3))
        assert score.classes["bear-off"][2] == 1  # outside the candidates
        return score.classes["bear-off"][1]

    assert scored(0.5) == 0.0 and scored(2.5) == pytest.approx(500.0)


def test_every_turn_of_a_new_player_is_counted():
    """With rollouts, a random player's turns outside the candidates are counted: every
    position has an error; the shipped sets' headers give their rollouts."""
    chosen = SETS["long"][::8]
    score = errors("random", "long", chosen, seed=2, rollouts=(16, 1))
    assert score.rolled_out and score.classes["all"][2] > 0
    assert score.classes["all"][0] == len(chosen) and score.classes["all"][1] > 0
    for kind in CLASSES["long"]:
        assert score.classes[kind][0] == sum(item.kind == kind for item in chosen)
    assert benchmarks.rollout_settings("long") == (128, 1)
    assert benchmarks.rollout_settings("short") == (256, 1)


def test_a_set_file_names_its_rollouts_or_its_turns_outside_are_counted_apart(
        tmp_path, capsys):
    path = tmp_path / "set.json"
    write_set(path, SETS["long"][:3], benchmarks.header("long", 1, 128, 1, 60, 1.0))
    assert benchmarks.rollout_settings(str(path)) == (128, 1)
    assert main(["benchmark-error", "random", "--game", "long", "--set", str(path),
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rolled_out"] is True
    by_name = errors("random", "long", str(path), seed=2)  # a file named: read once, whole
    given = errors("random", "long", SETS["long"][:3], seed=2, rollouts=(128, 1))
    assert by_name.rolled_out and by_name.as_dict()["classes"] == given.as_dict()["classes"]
    write_set(path, SETS["long"][:3], {"note": "no rollouts"})
    assert benchmarks.rollout_settings(str(path)) is None
    assert main(["benchmark-error", "random", "--game", "long", "--set", str(path),
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rolled_out"] is False
    write_set(path, SETS["long"][:3], {"games": "many", "seed": 1})
    with pytest.raises(FastNardyError, match="rollouts' games and seed"):
        benchmarks.rollout_settings(str(path))


@pytest.mark.parametrize("game, players", [("long", ["net:0", "net:1:full", "greedy"]),
                                           ("short", ["net:0", "greedy"])])
def test_the_players_the_candidates_came_from_never_play_outside_them(game, players):
    """The candidates hold the best turns of the shipped network at 0 ply and at 1 ply
    searched full width (net:1:full; net:1 is gnubg's filters since 0.2.0) and of greedy:
    their turns are always among them, so their errors cover every position."""
    per_class = len(SETS[game]) // len(CLASSES[game])
    for player in players:
        score = errors(player, game)
        assert score.classes["all"][0] == len(SETS[game]) and score.classes["all"][2] == 0
        assert score.rolled_out and score.rollout_seconds == 0  # nothing to roll out
        for kind in CLASSES[game]:
            count, error, outside = score.classes[kind]
            assert count == per_class and outside == 0 and error >= 0


def test_a_network_player_in_int16_values_by_the_integer_network(tmp_path):
    """net:P and FILE.npz:P take ``:int16`` (the evaluator in integer arithmetic), in match
    and in benchmark-error alike (one parser, Setting.parse, and one builder,
    players.player): its values are the int16 evaluator's own, its turns scored as any
    player's; the player is named by its setting written back (net:0:int16)."""
    from fastnardy.play.players import Searcher, player
    from fastnardy.search.network import Evaluator
    from fastnardy.search.setting import Setting
    from fastnardy.search.tree import expectimax

    quick = Evaluator.load("long", "int16")
    rows = encode([item.position for item in SETS["long"][:20]])
    for spec, name, plies in (("net:int16", "net:0:int16", 0),
                              ("net:1:int16", "net:1:int16", 1),
                              ("net:0:float", "net:0:float", 0)):
        found = player(spec, "long", 0)
        assert isinstance(found, Searcher) and found.name == name
        assert found.setting.plies == plies
        assert found.search.evaluator.arithmetic == spec.rpartition(":")[2]
    saved = tmp_path / "long.npz"
    Evaluator.load("long").save(saved)
    named = Setting.parse(f"{saved}:2:int16")
    evaluator, plies = named.network("long"), named.plies
    assert evaluator.arithmetic == "int16" and plies == 2
    assert np.array_equal(expectimax("long", rows, evaluator, 0),
                          expectimax("long", rows, quick, 0))
    chooser = player("net:0:int16", "long")
    item = SETS["long"][0]
    children, _ = expand("long", encode([item.position]), [item.dice])
    assert np.array_equal(chooser.worth("long", children, np.array([0, len(children)])),
                          -expectimax("long", children, quick, 0))
    score = errors("net:0:int16", "long", SETS["long"][::10], rollouts=(16, 1))
    assert score.classes["all"][0] == len(SETS["long"][::10]) and score.player == "net:0:int16"
    for bad, message in (("net:1:1", "each at most once"), ("net:0:int8", "'int8' is not"),
                         ("net:4:int16", "plies"), (f"{saved}:float:int16", "at most once")):
        with pytest.raises(FastNardyError, match=message):
            player(bad, "long", 0)
        with pytest.raises(FastNardyError, match=message):
            errors(bad, "long", SETS["long"][:1])
    with pytest.raises(FastNardyError, match="for long nardy"):
        player(f"{saved}:int16", "short", 0)


def test_gnubg_players_choose_by_its_own_evaluation():
    """gnubg:0 (since 0.2.0 gnubg:expert at 0 ply, GNU Backgammon's own move) plays one
    of its best 3 by its 0-ply evaluation, which were candidates: its turn is always among
    them (on every third position of the short set: the whole set's 600 cost a minute of
    CI); its CPU seconds (its processes') are counted."""
    if shutil.which("gnubg") is None and not Path(GNUBG).exists():
        pytest.skip("GNU Backgammon is not installed (apt-get install gnubg)")
    score = errors("gnubg:0", "short", SETS["short"][::3])
    assert score.player == "gnubg:expert"  # named by its setting written back
    assert score.classes["all"][2] == 0 and score.cpu_seconds > 0
    assert all(e >= 0 for _, e, _ in score.classes.values())


@pytest.mark.parametrize("argv, message", [
    (["benchmark-error", "smart"], "unknown setting"),
    (["benchmark-error", "gnubg:0", "--game", "long"], "short nardy"),
    (["benchmark-error", "net:4"], "plies must be an integer between 0 and 3"),
    (["benchmark-error", "net:0", "--set", "/nonexistent.json"], ""),
])
def test_bad_benchmark_input_is_exit_2_with_one_line(capsys, argv, message):
    status = main(argv)
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and message in err


def test_a_file_that_is_not_a_set_is_refused(tmp_path):
    for text in ("[]", '{"format": 2, "positions": []}', "not json",
                 '{"format": 1, "positions": [{"position": "short", "dice": [6, 5], '
                 '"class": "bear-off", "candidates": []}]}'):
        path = tmp_path / "bad.json"
        path.write_text(text)
        with pytest.raises(FastNardyError, match="not a benchmark set"):
            read_set(str(path))


def test_hostile_set_files_are_refused_in_one_line(tmp_path, capsys):
    """Issue 70 item 3: a set nested 100,000 deep was a RecursionError, dice of 1e308 an
    OverflowError (tracebacks at the command line), NaN and Infinity equities were taken."""
    item = {"position": SETS["long"][0].position.to_string(), "dice": list(SETS["long"][0].dice),
            "class": SETS["long"][0].kind,
            "candidates": [[c.turn, c.position, c.equity, c.stderr]
                           for c in SETS["long"][0].candidates]}
    texts = {"nested": "[" * 100_000 + "]" * 100_000}
    for name, value in (("dice", [1e308, 5]), ("dice", [True, 5]), ("dice", [7, 1]),
                        ("equity", float("nan")), ("equity", float("inf")),
                        ("equity", "0.5")):
        bad = json.loads(json.dumps(item))
        if name == "dice":
            bad["dice"] = value
        else:
            bad["candidates"][0][2] = value
        texts[f"{name} {value!r}"] = json.dumps({"format": 1, "positions": [bad]})
    for name, text in texts.items():
        path = tmp_path / "bad.json"
        path.write_text(text)
        with pytest.raises(FastNardyError, match="not a benchmark set"):
            read_set(str(path))
        assert main(["benchmark-error", "greedy", "--game", "long", "--set", str(path)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "not a benchmark set" in err and len(err) < 400, name


def test_the_command_line_reports_per_class(capsys):
    status = main(["benchmark-error", "greedy", "--game", "long", "--json"])
    document = json.loads(capsys.readouterr().out)
    assert status == 0 and set(document["classes"]) == {*CLASSES["long"], "all"}
    assert document["classes"]["all"]["positions"] == len(SETS["long"])
    assert document["classes"]["all"]["standard_error"] > 0
    assert main(["benchmark-error", "greedy", "--game", "long"]) == 0
    assert "+- the 95% interval" in capsys.readouterr().out


def test_paired_differences_are_position_by_position():
    """paired: each position's loss less the other player's, per class and all; positions
    either side did not count (nan) are left out; two sets of different shapes refused."""
    a = benchmarks.Score("a", "short", {}, 0.0, losses={
        "contact": (300.0, 0.0, float("nan")), "crashed": (), "race": (10.0,)})
    b = benchmarks.Score("b", "short", {}, 0.0, losses={
        "contact": (100.0, 100.0, 50.0), "crashed": (), "race": (10.0,)})
    difference = paired(a, b)
    # contact: 200 and -100, mean 50, deviation 212.1 over sqrt(2): 150
    assert difference["contact"] == (2, pytest.approx(50.0), pytest.approx(150.0))
    assert difference["crashed"].positions == 0 and np.isnan(difference["crashed"].mean)
    assert difference["race"] == (1, 0.0, pytest.approx(float("nan"), nan_ok=True))
    assert difference["all"][:2] == (3, pytest.approx(100 / 3))
    assert difference["crashed"].as_dict() == {"positions": 0, "difference": None,
                                               "standard_error": None}
    with pytest.raises(FastNardyError, match="not scored on the same set"):
        paired(a, b._replace(losses={**b.losses, "race": ()}))
    with pytest.raises(FastNardyError, match="keep each position.s loss"):
        paired(a, b._replace(losses=None))


def test_benchmark_error_against_another_player(capsys):
    """--against: both players' scores and the paired difference, which on a set whose turns
    are all candidates is the difference of the two errors, class by class."""
    assert main(["benchmark-error", "net:0", "--game", "long", "--against", "greedy",
                 "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["player"] == "net:0:float" and document["against"]["player"] == "greedy"
    for kind in (*CLASSES["long"], "all"):
        mine, theirs = document["classes"][kind], document["against"]["classes"][kind]
        assert mine["outside"] == theirs["outside"] == 0
        paired_kind = document["paired"][kind]
        assert paired_kind["positions"] == mine["positions"]
        assert paired_kind["difference"] == pytest.approx(
            mine["error"] - theirs["error"], abs=0.011)
    assert document["paired"]["all"]["difference"] < 0  # the network loses less than greedy
    assert main(["benchmark-error", "greedy", "--game", "long", "--against", "greedy"]) == 0
    out = capsys.readouterr().out
    assert "greedy less greedy, position by position" in out and "+0.0 +-   0.0" in out
