"""The example programs run (tiny settings) and print their result lines."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(autouse=True)
def _examples_on_path(monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLES))


def test_T1_expectimax_player(capsys):
    import expectimax_player

    expectimax_player.main(["--games", "1", "--plies", "2"])
    assert "2-ply against 0-ply" in capsys.readouterr().out


def test_L10_td_learner(capsys):
    import td_learner

    td_learner.main(["--envs", "16", "--steps", "20", "--game", "long"])
    out = capsys.readouterr().out
    assert "20 steps of 16 games" in out and "against greedy" in out


def test_T5_openspiel_mcts(capsys):
    pytest.importorskip("pyspiel", reason="OpenSpiel is not installed: pip install "
                        "'fastnardy[openspiel]'")
    import openspiel_mcts

    openspiel_mcts.main(["--games", "1", "--simulations", "4", "--rollouts", "4"])
    assert "points for MCTS" in capsys.readouterr().out


def test_T1_maskable_ppo_plays_by_steps(capsys):
    pytest.importorskip("sb3_contrib", reason="sb3-contrib (and torch) are not installed: "
                        "pip install torch sb3-contrib")
    import maskable_ppo

    maskable_ppo.main(["--game", "short", "--cpu-minutes", "0", "--envs", "1", "--games", "1"])
    out = capsys.readouterr().out
    assert "trained 0 steps" in out and "against random: wins" in out
    assert "against greedy: wins" in out
