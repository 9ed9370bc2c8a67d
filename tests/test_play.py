"""fastnardy.play: the policies and the terminal game loop (self-play, a person on stdin)."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings

from conftest import short_pos
from fastnardy import FastNardyError, Game, Position
from fastnardy.play.interactive import evaluate, greedy, net_cube, pips, play_game, policy
from strategies import dice, positions


def test_pips_count_points_in_own_numbering_and_the_bar_as_25():
    start = Position.start("short")
    assert pips(start.white_points, start.white_bar) == 167  # the backgammon start
    assert pips((0,) * 24, 2) == 50


def test_evaluate_is_the_race_plus_points_held_minus_blots_S3():
    # white: 2 on 6 (a made point), 1 on 10 (a blot); black: 1 on its 18, 2 on its 1
    position = short_pos({6: 2, 10: 1}, {18: 1, 1: 2})
    race = (18 + 2) - (12 + 10)
    assert evaluate(position, "white") == race + 2 - 2
    assert evaluate(position, "black") == -race + 2 - 2


def test_evaluate_long_counts_every_point_held_L3():
    start = Position.start("long")
    assert evaluate(start, "white") == 0 + 1 + 2  # the head: occupied, and made
    after = start.play("24/18 18/13")
    assert evaluate(after, "white") == 11 + 2 * 2


def test_greedy_hits_a_blot_S3():
    # white rolls 2-1; 10/8/7* hits black's blot on board point 7 (black's 18)
    position = short_pos({6: 2, 10: 1}, {18: 1, 1: 2})
    turns = position.legal_turns((2, 1))
    chosen = greedy(position, turns)
    assert any(step.hit for step in chosen.steps)
    assert evaluate(chosen.position, "white") == max(evaluate(t.position, "white")
                                                     for t in turns)


def test_greedy_takes_the_first_turn_in_T2_order_on_a_tie():
    position = Position.start("long")
    turns = position.legal_turns((3, 3))
    scores = [evaluate(t.position, "white") for t in turns]
    assert greedy(position, turns) == turns[scores.index(max(scores))]


@settings(max_examples=60, deadline=None)
@given(positions(), dice)
def test_every_policy_chooses_a_legal_turn_T1(position, roll):
    turns = position.legal_turns(roll)
    if not turns:  # T4: the game is over
        return
    for name in ("random", "greedy"):
        assert policy(name, 1)(position, turns) in turns


def test_the_random_policy_repeats_with_its_seed():
    position = Position.start("short")
    turns = position.legal_turns((6, 6))
    choosers = [policy("random", seed) for seed in (5, 5, 6)]
    picks = [[choose(position, turns) for _ in range(20)] for choose in choosers]
    assert picks[0] == picks[1] != picks[2]
    assert len(set(picks[0])) > 1


def test_an_unknown_policy_is_an_error():
    with pytest.raises(FastNardyError, match="greedy"):
        policy("clever")


def _lines(capsys) -> list:
    return capsys.readouterr().out.splitlines()


def test_self_play_prints_every_turn_and_the_result(capsys):
    game = Game("short", 3)
    play_game(game, policy("random", 3), boards=False)
    lines = _lines(capsys)
    assert lines[0].startswith("opening throw: white ")
    assert lines[-1] == f"{game.outcome().winner} wins: {game.outcome().kind}, " \
                        f"{game.outcome().points} point{'s' * (game.outcome().points != 1)}"
    played = lines[1:-1]
    assert len(played) == len(game.history)
    for number, (line, (roll, turn)) in enumerate(zip(played, game.history), 1):
        high, low = max(roll), min(roll)  # rolls are printed high die first
        assert line.endswith(f"{high}-{low}: {turn}") and line.startswith(f"{number}. ")


def test_self_play_stops_after_max_turns_with_the_position_string(capsys):
    game = Game.from_position(Position.start("long"), 1)
    play_game(game, policy("random", 1), max_turns=3, boards=True)
    out = capsys.readouterr().out
    assert len(game.history) == 3
    assert out.count("long nardy, ") == 4  # the start and each turn's board
    assert out.endswith(f"stopped after 3 turns: {game.position.to_string()}\n")


def _person(monkeypatch, text: str) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(text))


def test_a_person_lists_the_turns_and_picks_one_by_number(monkeypatch, capsys):
    _person(monkeypatch, "?\n2\nq\n")
    game = Game.from_position(Position.start("long"), 4)
    game.dice = roll = (3, 3)
    turns = game.legal_turns()
    assert len(turns) == 2
    play_game(game, greedy, human="white", boards=False)
    out = capsys.readouterr().out
    for number, turn in enumerate(turns, 1):
        assert f"{number:4}) {turn}\n" in out
    assert game.history[0] == (roll, turns[1])
    assert out.endswith("q\nquit\n")


def test_an_illegal_turn_is_named_and_asked_again_L5(monkeypatch, capsys):
    _person(monkeypatch, "24/20 24/22\n24/20 20/18\n")
    game = Game.from_position(Position.start("long"), 0)
    game.dice = (4, 2)
    play_game(game, greedy, human="white", boards=False)
    out = capsys.readouterr().out
    assert "illegal: L5: a second checker may not leave the head" in out
    assert "1. white 4-2: 24/20 20/18\n" in out
    assert out.endswith("quit\n")  # the end of the input quits
    assert len(game.history) == 2  # white's turn and the policy's reply


def test_a_persons_forced_pass_is_played_for_them_T3(monkeypatch, capsys):
    _person(monkeypatch, "")
    # white's last checker on its 24; 6-6 would land on board point 18, black's 6 (L3)
    position = Position.from_string("long w 24:1 6:1")
    game = Game.from_position(position, 0)
    game.dice = (6, 6)
    play_game(game, greedy, human="white", max_turns=1, boards=False)
    assert capsys.readouterr().out.splitlines()[0] == "1. white 6-6: pass"


# -- the cube (C1, C2, C8) ------------------------------------------------------------------

BEAR_OFF = "short w 6:3,5:3,4:3,3:2,2:2 6:4,5:3,4:4,3:2,2:1"  # white far ahead: pass


def test_a_person_offers_and_the_network_passes_a_lost_game_C2(monkeypatch, capsys):
    _person(monkeypatch, "d\n")
    game = Game.from_position(Position.from_string(BEAR_OFF), 1)
    play_game(game, policy("net"), human="white", boards=False, cube=True,
              cube_choice=net_cube)
    out = capsys.readouterr().out
    assert "white offers: the game for 2" in out and "black passes" in out
    assert game.outcome().kind == "drop" and game.outcome().points == 1


def test_the_network_offers_and_a_person_takes_then_plays_for_the_raised_stake_C2_C3(
        monkeypatch, capsys):
    _person(monkeypatch, "x\nt\n")  # "x" is not an answer: asked again
    game = Game.from_position(Position.from_string(BEAR_OFF), 1)  # white, the network, offers
    play_game(game, policy("net"), human="black", boards=False, max_turns=1, cube=True,
              cube_choice=net_cube)
    out = capsys.readouterr().out
    assert out.count("black, t takes, p passes:") == 2
    assert "black takes: the game is played for 2" in out
    assert game.stake == 2 and game.cube_owner == "black" and len(game.history) == 1


def test_without_a_cube_choice_the_computer_never_offers_and_always_takes(monkeypatch, capsys):
    _person(monkeypatch, "d\n")
    game = Game.from_position(Position.from_string(BEAR_OFF), 1)
    play_game(game, policy("greedy"), human="white", boards=False, max_turns=2, cube=True)
    out = capsys.readouterr().out
    assert "black takes: the game is played for 2" in out and "black offers" not in out
