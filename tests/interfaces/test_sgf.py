"""GNU Backgammon's SGF (fastnardy.formats.sgf), read and written (C1, C2, C6, C7): gnubg's own
saved matches read to the same games, turns, offers, answers, results and scores as its
``.mat`` export of them; fastnardy's SGF of random matches loaded by gnubg and exported as
``.mat`` to the same (gnubg the judge both ways, skipped where it is absent); every command
that reads a record reads an SGF; hostile SGF is one clear error."""

from __future__ import annotations

import re
import subprocess
from typing import List, Tuple

import pytest

from fastnardy import Game, InvalidRecordError, Match
from fastnardy.cli import main
from fastnardy.formats.games import read_games
from fastnardy.formats.mat import MatGame, match_games, read_mat
from fastnardy.formats.sgf import is_sgf, read_sgf, write_sgf
from fastnardy.record import RecordedCube
from fastnardy.play.gnubg import GNUBG

from conftest import needs_gnubg, random_match


def summary(games: List[MatGame]) -> List[Tuple[object, ...]]:
    """Each game as the judge compares it: number, players, scores, result, the positions its
    turns lead to and its offers and answers."""
    out = []
    for game in games:
        replayed = Game.from_record(game.to_record())
        cube = [(a.side, a.action, a.cube) for a in game.actions if isinstance(a, RecordedCube)]
        out.append((game.number, game.players, game.scores, game.match_length,
                    None if game.result is None else (game.result.side, game.result.points),
                    tuple(t.position for _, t in replayed.history), tuple(cube)))
    return out


def _gnubg(script: str) -> str:
    return subprocess.run([str(GNUBG), "-t", "-q"], input=script, capture_output=True,
                          text=True, timeout=900).stdout


@needs_gnubg
def test_gnubgs_saved_matches_read_as_its_mat_exports(tmp_path):
    """gnubg plays itself (cube on, both players at 0 ply: the files, not its strength, are
    tested) matches to 3 and 5 points, saves each as SGF and exports it as .mat: the SGF
    reads to the same games as the .mat, 0 differences."""
    compared = 0
    quick = "".join(f"set player {side} gnubg\nset player {side} chequerplay evaluation "
                    f"plies 0\nset player {side} cubedecision evaluation plies 0\n"
                    for side in (0, 1))
    for seed, length in ((11, 3), (12, 5)):
        sgf, mat = tmp_path / f"m{seed}.sgf", tmp_path / f"m{seed}.mat"
        _gnubg(f"{quick}set seed {seed}\nnew match {length}\n"
               f"save match {sgf}\nexport match mat {mat}\n")
        from_sgf, from_mat = read_sgf(sgf.read_text()), read_mat(mat.read_text())
        assert summary(from_sgf) == summary(from_mat)
        compared += len(from_sgf)
    assert compared >= 3


@needs_gnubg
def test_gnubg_loads_fastnardys_sgf_to_the_same_games(tmp_path):
    """fastnardy's SGF of 12 random matches (lengths 1-7, offers, takes, drops) loaded by
    gnubg and exported as .mat: the same games, turns, offers, results and scores."""
    script = []
    expected = {}
    for seed in range(12):
        match = random_match("short", seed, 1 + seed % 7, 0.1)
        games = match_games(match)
        path = tmp_path / f"ours{seed}.sgf"
        path.write_text(write_sgf(games))
        script.append(f"load match {path}\nexport match mat {tmp_path / f'back{seed}.mat'}\n")
        expected[seed] = summary(games)
    _gnubg("".join(script))
    for seed, games in expected.items():
        back = read_mat((tmp_path / f"back{seed}.mat").read_text())
        assert summary(back) == games, seed


def test_an_sgf_round_trips_and_keeps_names_with_brackets():
    match = random_match("short", 3, 5, 0.1)
    games = match_games(match)
    text = write_sgf(games)
    assert summary(read_sgf(text)) == summary(games) and is_sgf(text)
    odd = [g.__class__(g.match_length, g.number, ("a]b\\c", "d e"), g.scores, g.actions)
           for g in games]
    assert [g.players for g in read_sgf(write_sgf(odd))] == [("a]b\\c", "d e")] * len(odd)


def test_the_commands_read_an_sgf(tmp_path, capsys):
    """check-game and analyse read an SGF; match --record FILE.sgf writes one."""
    path = tmp_path / "m.sgf"
    assert main(["match", "greedy", "random", "--game", "short", "--to", "3", "--games", "2",
                 "--record", str(path), "--no-progress"]) == 0
    assert path.read_text().startswith("(;FF[4]GM[6]")
    assert main(["check-game", str(path)]) == 0
    assert "all legal" in capsys.readouterr().out
    assert main(["analyse", str(path), "--plies", "0", "--no-progress"]) == 0
    assert len(read_games(path.read_text(), str(path))) >= 1


@pytest.mark.parametrize("text, match", [
    ("(;FF[4]GM[1]SZ[19];B[pd])", "not backgammon"),
    ("(;FF[4]GM[6]RU[Nackgammon];W[31hefe])", "Nackgammon"),
    ("(;FF[4]GM[6];W[31hefe]", "ends inside a game"),
    ("(;FF[4]GM[6];W[31hefe", "not closed"),
    ("(;FF[4]GM[6];W[99hefe])", "a move is the roll"),
    ("(;FF[4]GM[6];W[31he])x", r"expected '\('"),
    ("(;FF[4]GM[6]MI[length:x];W[31hefe])", "MI holds numbers"),
    ("(;FF[4]GM[6]RE[W+];W[31hefe])", "result"),
    ("(;FF[4]GM[6]" + "C[" + "x" * (2 << 20) + "])", "not closed within"),
    ("", "no game"),
])
def test_hostile_sgf_is_one_clear_error(text, match):
    with pytest.raises(InvalidRecordError, match=match):
        read_sgf(text)


def test_an_illegal_turn_in_an_sgf_is_refused_with_its_rule(tmp_path, capsys):
    """White's 3-1 written as 8/3 (five pips with four thrown): check-game names the rule,
    the move and exit 1."""
    path = tmp_path / "bad.sgf"
    path.write_text("(;FF[4]GM[6]MI[length:1][game:0][ws:0][bs:0]PW[a]PB[b]\n;W[31hc])\n")
    assert main(["check-game", str(path)]) == 1
    out = capsys.readouterr().out
    assert re.search(r"illegal turn: S[0-9]: .*move 1, white 3-1 8/3", out), out


def test_long_nardy_has_no_sgf():
    match = Match("long", 1, seed=1)
    game = match.game
    while not game.is_over():
        game.play(game.legal_turns()[0])
    with pytest.raises(InvalidRecordError, match="long nardy"):
        write_sgf(match_games(match))


def test_only_the_main_line_of_a_tree_is_read():
    """SGF variations: the first at each branching is the main line; later siblings (and
    what nests in them) are side lines, read over."""
    text = ("(;FF[4]GM[6]MI[length:1][game:0][ws:0][bs:0]PW[a]PB[b];W[31hefe]"
            "(;B[52agaf](;W[64xrxt])(;W[21ab]))(;B[11aaaa]))")
    (game,) = read_sgf(text)
    assert [a.turn for a in game.actions] == ["8/5 6/5", "24/18 24/19", "24/18 24/20"]
