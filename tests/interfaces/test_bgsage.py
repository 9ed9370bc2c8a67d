"""bgsage (Open Sage, ``pip install bgsage``, the test extra) as the setting ``bgsage[:PLIES]``
(fastnardy.play.bgsage, players.BgsagePlayer): its player's turn is bgsage's own choice
(its analyzer's, at a cube or without one) mapped to the equal child in T2 order and
checked (T1); its values agree with GNU Backgammon's in sign and size, seen from the right
side (before a roll: the side to move; after a turn: the side that chose it); its cube
decisions follow the cube context (C2, C7, C8) and refuse what bgsage's cube is not (C3,
C4); it plays at every door through the one builder. Its labels are tested with the other
teachers' (tests/analysis/test_labels.py). Skipped where bgsage is not installed, and the
comparisons with gnubg where GNU Backgammon is not."""

from __future__ import annotations

import importlib.util
import json
import sys
import threading

import numpy as np
import pytest

from fastnardy import Position, Rules
from fastnardy.batch import encode, expand, offsets as offsets_of
from fastnardy.errors import EngineError, FastNardyError
from fastnardy.play import bgsage as engine
from fastnardy.play.players import BgsagePlayer, player
from fastnardy.search.cubeful import Cube
from fastnardy.search.network import equity
from fastnardy.search.setting import Setting

from conftest import needs_gnubg, rolls_with_choices

NEEDS_BGSAGE = pytest.mark.skipif(importlib.util.find_spec("bgsage") is None,
                                  reason="bgsage is not installed (pip install bgsage: the "
                                         "test extra)")
SHORT = Rules.short()


def _rolls(count: int, seed: int):
    return rolls_with_choices(SHORT, count, seed, 40)


def test_S9_no_gammon_is_left_once_the_loser_has_a_checker_off():
    """bgsage's network may give a gammon that S9 rules out (a benchmark race: 0.91 won by
    gammon, the loser with one checker off): possible() sets those outputs to 0 only."""
    race = Position.from_string("short w 5:2,3:3,2:4,1:2 21:1,13:5,8:3,6:4,1:1")
    theirs_off = Position.from_string("short w 24:2,13:5,8:3,6:5 6:14")
    start = Position.start("short")
    rows = encode([race, theirs_off, start])
    outputs = np.array([[0.98, 0.91, 0.01, 0.0, 0.0], [0.5, 0.3, 0.02, 0.2, 0.01],
                        [0.5, 0.15, 0.01, 0.13, 0.01]])
    got = engine.possible(rows, outputs)
    assert got[0].tolist() == [0.98, 0.0, 0.0, 0.0, 0.0]  # both sides have one off
    assert got[1].tolist() == [0.5, 0.0, 0.0, 0.2, 0.01]  # the opponent has one off
    assert np.array_equal(got[2], outputs[2])  # the start: nothing off, nothing changed


def test_a_missing_bgsage_is_an_engine_error_naming_its_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "bgbot_cpp", None)  # import bgbot_cpp: ImportError
    monkeypatch.setattr(engine, "_LOCAL", threading.local())  # no strategies made yet
    with pytest.raises(EngineError, match="pip install bgsage"):
        engine.Bgsage("bgsage")
    with pytest.raises(EngineError, match="pip install bgsage"):
        player("bgsage:1", "short")


def test_bgsage_plays_short_nardy_only_and_its_own_setting():
    with pytest.raises(FastNardyError, match="bgsage plays short nardy"):
        player("bgsage", "long")
    with pytest.raises(FastNardyError, match="a bgsage setting is"):
        engine.Bgsage("gnubg:expert")
    with pytest.raises(FastNardyError, match="plies"):
        player("bgsage:4", "short")


@NEEDS_BGSAGE
def test_the_players_turn_is_bgsages_own_choice_T1_T2():
    """At 0 ply without the cube, under a money cube and under a match's cube, and at 1 ply
    without the cube (its cubeless analyzer's filter and search, batched here), the child
    the player picks is the one bgsage's analyzer puts first (Jacoby and beavers off)."""
    from bgsage import BgBotAnalyzer

    rows, dice, children, offsets = _rolls(40, 21)
    boards = engine._boards(rows)
    owners = {"centered": "centered", "mover": "player", "opponent": "opponent"}
    for plies, cube, count in ((0, None, 40), (0, Cube(2, "mover"), 40),
                               (0, Cube(2, "opponent", 7, (3, 5)), 40), (1, None, 12)):
        bot = player(f"bgsage:{plies}", SHORT)
        assert isinstance(bot, BgsagePlayer) and bot.name == str(Setting("bgsage", plies))
        some = np.arange(count)
        picked = bot.pick(SHORT, rows[:count], dice[:count], children[:offsets[count]],
                          offsets[:count + 1], None if cube is None else [cube] * count)
        analyzer = BgBotAnalyzer(eval_level=engine.LEVELS[plies], cubeful=cube is not None,
                                 parallel_threads=1)
        options = dict(jacoby=False, beaver=False)
        if cube is not None:
            options.update(cube_value=cube.value, cube_owner=owners[cube.owner])
            if cube.length:
                options.update(away1=cube.away[0], away2=cube.away[1],
                               is_crawford=cube.crawford)
        theirs = [analyzer.checker_play(boards[i], int(dice[i, 0]), int(dice[i, 1]),
                                        **options).moves[0].board for i in some]
        wanted = engine.chosen(SHORT, rows, dice, children, offsets, some, theirs)
        assert np.array_equal(picked, wanted), (plies, cube)


@NEEDS_BGSAGE
def test_a_turn_that_is_not_a_legal_one_is_an_engine_error_naming_where(monkeypatch):
    rows, dice, children, offsets = _rolls(3, 5)
    bot = player("bgsage", SHORT)
    monkeypatch.setattr(bot.engine, "moves", lambda *args: [[0] * 26] * len(rows))
    with pytest.raises(EngineError, match=r"T1: bgsage's turn .* with \d-\d in short "):
        bot.pick(SHORT, rows, dice, children, offsets)


@NEEDS_BGSAGE
@needs_gnubg
def test_bgsage_values_agree_with_gnubgs_in_sign_and_size():
    """On 50 of the short benchmark positions (gnubg's own games) bgsage's cubeless equity
    for the side to move is gnubg's (0 ply) within 0.15 in 45 or more, and in sign wherever
    gnubg's is beyond 0.1; after a turn, each child's worth to the mover who chooses it
    (bgsage's post-move evaluation) is gnubg's worth, and minus the child's value for its
    next mover (bgsage's two views of one board agree)."""
    from fastnardy.play.gnubg import Gnubg
    from fastnardy.testing.speed import gnubg_positions

    rows = encode(gnubg_positions()[::40])
    gnubg = Gnubg("gnubg:expert", 1)
    ours = engine.Bgsage("bgsage")
    try:
        theirs = equity(gnubg.probabilities(rows, 0))
        mine = equity(ours.probabilities(rows))
        dice = np.tile([[5, 2]], (10, 1))
        children, parent = expand(SHORT, rows[:10], dice)
        their_worth = -equity(gnubg.probabilities(children, 0))
    finally:
        gnubg.close()
    near = np.abs(mine - theirs) < 0.15
    assert near.sum() >= 45 and np.corrcoef(mine, theirs)[0, 1] > 0.95
    clear = np.abs(theirs) > 0.1
    assert (np.sign(mine[clear]) == np.sign(theirs[clear])).all()
    offsets = offsets_of(parent, 10)
    worth = player("bgsage", SHORT).worth(SHORT, children, offsets)
    assert np.corrcoef(worth, their_worth)[0, 1] > 0.9
    assert np.abs(worth - their_worth).mean() < 0.1
    np.testing.assert_allclose(worth, -equity(ours.probabilities(children)), atol=1e-5)


@NEEDS_BGSAGE
def test_bgsage_beats_random_clearly():
    from fastnardy.play.duel import duel

    played_out = duel("short", "bgsage", "random", 10, 3)
    assert played_out.wins.mean >= 0.9 and played_out.points.mean > 1.0


@NEEDS_BGSAGE
def test_bgsages_cube_decisions_follow_the_cube_context_C2_C7_C8():
    """A strong position: bgsage doubles at a centred money cube and the opponent passes;
    not with the cube on the other side (C2) nor in the Crawford game (C7); the Jacoby
    option (C8) changes its equities only where the cube context has it; double, pass is
    1 (normalised). An arithmetic cube (C3) or C4 is not bgsage's cube: refused."""
    from fastnardy.testing.speed import gnubg_positions

    positions = gnubg_positions()[:400:4]
    rows = encode(positions)
    bot = player("bgsage", SHORT)
    values = equity(bot.engine.probabilities(rows))
    strong = rows[np.flatnonzero((values > 0.75) & (values < 0.95))[:1]]
    even = rows[np.argsort(np.abs(values))[:1]]
    assert len(strong) == 1
    assert bot.doubles(SHORT, strong, [Cube()])[0]
    assert not bot.takes(SHORT, strong, [Cube()])[0]  # the doubler's rows: its opponent's
    assert not bot.doubles(SHORT, strong, [Cube(2, "opponent")])[0]
    assert not bot.doubles(SHORT, strong, [Cube(length=5, score=(4, 2), crawford=True)])[0]
    assert not bot.doubles(SHORT, even, [Cube()])[0]
    both = np.concatenate([strong, even])
    cubes = [Cube(), Cube(2, "mover"), Cube(jacoby=True), Cube(4, "opponent", 9, (2, 5))]
    seen = np.array([bot.cube_equities(SHORT, both, [cube] * 2) for cube in cubes])
    assert np.isfinite(seen).all() and (seen[:, :, 2] == 1.0).all()
    assert not np.array_equal(seen[0], seen[2])  # Jacoby, given by the cube, counts
    for cube in (Cube(stakes="arithmetic", value=3), Cube(cancels_mars=True)):
        with pytest.raises(FastNardyError, match="C3, C4"):
            bot.cube_equities(SHORT, strong, [cube])


@NEEDS_BGSAGE
def test_bgsage_at_the_doors_match_and_benchmark_error(capsys):
    """The one builder at every door: ``fastnardy match`` (short nardy by default with a
    bgsage player) and benchmark-error's scoring."""
    from fastnardy.analysis.benchmarks import errors, read_set
    from fastnardy.cli import main

    assert main(["match", "bgsage", "random", "--games", "2", "--seed", "1", "--cube",
                 "--json", "--no-progress"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["game"] == "short" and result["a"] == "bgsage"
    score = errors("bgsage:1", "short", read_set("short")[::60], rollouts=(8, 1))
    assert score.player == "bgsage:1" and score.classes["all"][0] == 10
