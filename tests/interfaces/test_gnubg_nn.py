"""gnubg-nn (``pip install gnubg-nn``, GPL, the test extra: a tool for tests and training,
never a dependency) as the setting ``gnubg-nn[:PLIES]`` (fastnardy.play.gnubg_nn,
players.GnubgNnPlayer): GNU Backgammon's networks in process, a faster gnubg player. Its
moves are legal turns (T1) and nearly always the gnubg process player's: the agreement
measured here is pinned. Skipped where gnubg-nn is not installed, and the comparison with
the process where GNU Backgammon is not."""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest

from fastnardy import Rules
from fastnardy.errors import EngineError, FastNardyError
from fastnardy.play.gnubg_nn import GnubgNn
from fastnardy.play.players import GnubgNnPlayer, player
from fastnardy.search.network import equity

from conftest import needs_gnubg, rolls_with_choices

NEEDS_GNUBG_NN = pytest.mark.skipif(importlib.util.find_spec("gnubg_nn") is None,
                                    reason="gnubg-nn is not installed (pip install gnubg-nn: "
                                           "the test extra)")
SHORT = Rules.short()


def _rolls(count: int, seed: int):
    return rolls_with_choices(SHORT, count, seed, 20)


def test_a_missing_gnubg_nn_is_an_engine_error_naming_its_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "gnubg_nn", None)  # import gnubg_nn: ImportError
    with pytest.raises(EngineError, match="pip install gnubg-nn"):
        player("gnubg-nn", "short")


def test_gnubg_nn_plays_short_nardy_only_and_its_own_setting():
    with pytest.raises(FastNardyError, match="short nardy"):
        player("gnubg-nn", "long")
    with pytest.raises(FastNardyError, match="a gnubg-nn setting is"):
        GnubgNn("bgsage")
    with pytest.raises(FastNardyError, match="plies"):
        player("gnubg-nn:5", "short")


@NEEDS_GNUBG_NN
@needs_gnubg
def test_gnubg_nn_moves_are_the_gnubg_process_players_but_1_in_200():
    """On 200 random position-rolls with two legal turns or more, gnubg-nn's move at 0 ply
    is the gnubg process player's (gnubg:expert, Debian's gnubg 1.07) in 199 (measured; 197
    at 1 ply): its contact network values positions a little differently
    (fastnardy.play.gnubg_nn). Its values agree closely too (its worth of 20 rolls' children
    within 0.1 of the process's, 0.005 on average)."""
    from fastnardy.play.gnubg import Gnubg, chosen

    rows, dice, children, offsets = _rolls(200, 11)
    assert len(rows) == 200
    bot = player("gnubg-nn", SHORT)
    assert isinstance(bot, GnubgNnPlayer) and bot.name == "gnubg-nn"
    mine = bot.pick(SHORT, rows, dice, children, offsets)
    gnubg = Gnubg("gnubg:expert", 1)
    try:
        theirs = chosen(SHORT, rows, dice, children, offsets, gnubg.moves(rows, dice))
        some = children[:offsets[20]]
        their_worth = -equity(gnubg.probabilities(some, 0))
    finally:
        gnubg.close()
    assert int((mine == theirs).sum()) == 199
    worth = bot.worth(SHORT, some, offsets[:21])
    assert np.abs(worth - their_worth).max() < 0.1
    assert np.abs(worth - their_worth).mean() < 0.005


@NEEDS_GNUBG_NN
def test_gnubg_nn_beats_random_clearly_and_plays_at_the_doors(capsys):
    """Through the one builder: a duel, and ``fastnardy match`` (short nardy by default);
    without a cube of its own it never offers and takes every offer."""
    import json

    from fastnardy.cli import main
    from fastnardy.play.duel import duel

    played_out = duel("short", "gnubg-nn", "random", 10, 3)
    assert played_out.wins.mean >= 0.9 and played_out.points.mean > 1.0
    assert main(["match", "gnubg-nn", "greedy", "--games", "2", "--cube", "--json",
                 "--no-progress"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["game"] == "short" and result["a_cube"]["offers"] == 0
    bot = player("gnubg-nn:1", SHORT)
    rows, dice, children, offsets = _rolls(5, 2)
    picked = bot.pick(SHORT, rows, dice, children, offsets)
    assert ((offsets[:-1] <= picked) & (picked < offsets[1:])).all()
    assert not bot.doubles(SHORT, rows, [None] * 5).any()
