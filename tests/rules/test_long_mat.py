"""Long-nardy match files in GNU Backgammon's ``.mat`` move-line style (fastnardy.formats.mat):
the ``; [Variation "Long Nardy"]`` line makes a file long nardy, its games replayed from the
long start under the long rules (L1-L10, T6, C1-C9), written back the same; every illegal
turn refused with its rule."""

from __future__ import annotations


import pytest

from fastnardy import Game, InvalidRecordError, Match
from fastnardy.cli import main
from fastnardy.formats.games import iter_games
from fastnardy.formats.mat import LONG_VARIATION, match_games, read_mat, write_mat

from conftest import random_match


def test_long_matches_round_trip_through_mat_files_L1_T6_C2():
    """300 games of 100 random long-nardy matches written and read back: each game the same
    turns (by the positions they lead to), the same offers and answers and the same result;
    the written file read again writes the same text."""
    games = 0
    for seed in range(100):
        match = random_match("long", seed, 1 + seed % 7)
        text = write_mat(match_games(match))
        assert text.startswith(f'; [Variation "{LONG_VARIATION}"]\n')
        read = read_mat(text)
        assert write_mat(read) == text and len(read) == len(match.games)
        for mat_game, game in zip(read, match.games):
            replayed = Game.from_record(mat_game.to_record())
            assert replayed.rules == game.rules and replayed.rules.is_long
            assert [t.position for _, t in replayed.history] == \
                [t.position for _, t in game.history]
            assert [(e.side, e.action, e.stake) for e in replayed.cube_history] == \
                [(e.side, e.action, e.stake) for e in game.cube_history]
            assert replayed.outcome() == game.outcome()
            games += 1
    assert games >= 100


def test_a_long_mat_game_may_begin_with_a_double_and_either_side_T6():
    """Long nardy's first mover throws both dice again (T6): a first roll may be a double,
    and the first line's mover begins (the opening throw is not in the file)."""
    text = (f'; [Variation "{LONG_VARIATION}"]\n\n 1 point match\n\n Game 1\n'
            f' alice : 0                      bob : 0\n'
            f'  1)                             55: 24/19 19/14 14/9 9/4\n')
    (game,) = read_mat(text)
    replayed = Game.from_record(game.to_record())
    assert replayed.history[0][1].position.turn == "white"  # black moved first
    assert str(replayed.history[0][1]) == "24/19 19/14 14/9 9/4"


def test_an_illegal_long_turn_is_refused_with_its_rule_L5(tmp_path, capsys):
    """check-game of a long .mat whose first turn takes two checkers from the head with 5-4:
    L5, the line and the move named, exit 1. Without the variation line the same file is
    short nardy, and its first move breaks S3."""
    text = (f'; [Variation "{LONG_VARIATION}"]\n\n 3 point match\n\n Game 1\n'
            f' alice : 0                      bob : 0\n'
            f'  1) 54: 24/19 24/20             54: 24/19 19/15\n')
    path = tmp_path / "long.mat"
    path.write_text(text)
    assert main(["check-game", str(path)]) == 1
    out = capsys.readouterr().out
    assert "L5: a second checker may not leave the head" in out and "line 7" in out
    path.write_text(text.replace("24/19 24/20", "24/19 19/15"))
    assert main(["check-game", str(path)]) == 0
    path.write_text(text.split("\n", 1)[1].replace("24/19 24/20", "24/19 19/15"))
    assert main(["check-game", str(path)]) == 1
    assert "S3: point 19 is closed" in capsys.readouterr().out


@pytest.mark.parametrize("header, match", [
    ('; [Variation "Nackgammon"]\n', "Nackgammon"),
    ('; [Variation "Long Nardy"]\n; [Variation "Backgammon"]\n', "once"),
])
def test_a_variation_fastnardy_does_not_play_is_refused(header, match):
    text = header + "\n 1 point match\n\n Game 1\n a : 0                      b : 0\n"
    with pytest.raises(InvalidRecordError, match=match):
        list(iter_games(text, "x.mat"))


def test_gnubgs_own_variation_line_reads_as_short_nardy():
    text = ('; [Variation "Backgammon"]\n\n 1 point match\n\n Game 1\n'
            ' a : 0                      b : 0\n  1) 31: 8/5 6/5\n')
    (game,) = read_mat(text)
    assert not game.rules.is_long and Game.from_record(game.to_record()).rules.game == "short"


def test_an_offer_before_the_first_long_turn_reads_back_C2_T6(tmp_path):
    """Long nardy's first mover throws again after the opening (T6), so it may offer before
    its first turn: a game of one offer, dropped, keeps its offer, its drop and its winner
    (1,943 games of 1,000 random matches had 15 such games lose them before)."""
    match = Match("long", 3, seed=5, players=("alice", "bob"))
    game = match.game
    offerer = game.position.turn
    game.offer()
    game.drop()
    match.next_game()
    (mat_game, _) = read_mat(write_mat(match_games(match)))
    replayed = Game.from_record(mat_game.to_record())
    assert [(e.side, e.action) for e in replayed.cube_history] == \
        [(offerer, "offer"), ("black" if offerer == "white" else "white", "drop")]
    assert replayed.outcome() == match.games[0].outcome()
