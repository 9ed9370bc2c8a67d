"""GNU Backgammon reads the .mat files fastnardy writes (C1, C2, C6): matches fastnardy played,
with and without offers, written by formats.mat.write_mat, imported by GNU Backgammon 1.07
(`gnubg -t`: import mat, export match mat) and read back: the same games, turn for turn
(each turn compared by the position it leads to, as GNU Backgammon orders a move's steps its
own way), the same offers and answers, wins and scores. Skipped where gnubg is absent."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from fastnardy import Game
from fastnardy.formats.mat import match_games, read_mat, write_mat

from conftest import random_match

GNUBG = Path("/usr/games/gnubg")
pytestmark = pytest.mark.skipif(not GNUBG.exists(), reason="GNU Backgammon (gnubg) is absent: "
                                                         "apt-get install gnubg")


def through_gnubg(text: str, folder: Path) -> str:
    ours, theirs = folder / "ours.mat", folder / "theirs.mat"
    ours.write_text(text)
    subprocess.run([str(GNUBG), "-t", "-q"], input=f"import mat {ours}\nexport match mat "
                   f"{theirs}\nquit\n", capture_output=True, text=True, timeout=120, check=True)
    return theirs.read_text()


def replayed(game) -> tuple:
    """What a .mat game is, whatever the order of a move's steps: the positions its turns
    lead to, its offers and answers, and its result."""
    replay = Game.from_record(game.to_record())
    return ([turn.position for _, turn in replay.history],
            [(event.side, event.action, event.stake) for event in replay.cube_history],
            game.result, game.scores, game.players, game.match_length)


@pytest.mark.parametrize("seed, length, offers", [(11, 5, 0.08), (3, 3, 0.0), (7, 7, 0.15)])
def test_C1_C2_C6_gnubg_reads_our_mat_files_as_we_wrote_them(tmp_path, seed, length, offers):
    match = random_match("short", seed, length, offers)
    games = match_games(match)
    text = write_mat(games)
    assert read_mat(text) == games  # our own reader first
    back = read_mat(through_gnubg(text, tmp_path))
    assert len(back) == len(games) == len(match.games)
    assert [replayed(game) for game in back] == [replayed(game) for game in games]
    if offers:
        assert any(event.action == "take" for game in match.games for event in game.cube_history)
    # the last game's win brings the winner's total to the length (C6)
    last = back[-1]
    assert last.scores[last.result.side == "black"] + last.result.points >= length
