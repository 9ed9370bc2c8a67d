"""fastnardy.play: the players of the terminal game loop (self-play, a person on stdin)."""

from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import given, settings

from conftest import short_pos
from fastnardy import FastNardyError, Game, Position
from fastnardy.batch import ROW_WIDTH, encode, pips
from fastnardy.cli import main
from fastnardy.analysis import cube_decision, hint
from fastnardy.play.interactive import HINTED, play_game
from fastnardy.play.players import Greedy, Random, Searcher, greedy_scores, player
from fastnardy.search.cubeful import Cube
from fastnardy.search.setting import setting
from strategies import dice, positions

HALF = ROW_WIDTH // 2


def test_pips_count_points_in_own_numbering_and_the_bar_as_25():
    start = Position.start("short")
    assert pips(encode([start])).tolist() == [[167, 167]]  # the backgammon start
    row = np.zeros((1, ROW_WIDTH), dtype=np.int8)
    row[0, HALF - 1] = 2  # two of the side to move's checkers on the bar, nothing else
    assert pips(row).tolist() == [[50, 0]]


def _score(position: Position, side: str) -> int:
    """greedy_scores of ``position`` for ``side``: the score is of a row's second half (the
    side that just moved)."""
    row = encode([position])  # the side to move's half first
    if side == position.turn:
        row = np.concatenate([row[:, HALF:], row[:, :HALF]], axis=1)
    return int(greedy_scores(position.rules, row)[0])


def test_greedy_scores_are_the_race_plus_points_held_minus_blots_S3():
    # white: 2 on 6 (a made point), 1 on 10 (a blot); black: 1 on its 18, 2 on its 1
    position = short_pos({6: 2, 10: 1}, {18: 1, 1: 2})
    race = (18 + 2) - (12 + 10)
    assert _score(position, "white") == race + 2 - 2
    assert _score(position, "black") == -race + 2 - 2


def test_greedy_scores_count_the_other_sides_checkers_on_the_bar_S3():
    position = short_pos({6: 2, 10: 1}, {18: 1}, black_bar=1)
    race = (18 + 25) - (12 + 10)
    assert _score(position, "white") == race + 2 - 2 + 3


def test_greedy_scores_long_count_every_point_held_L3():
    start = Position.start("long")
    assert _score(start, "white") == 0 + 1 + 2  # the head: occupied, and made
    after = start.play("24/18 18/13")
    assert _score(after, "white") == 11 + 2 * 2


def test_greedy_hits_a_blot_S3():
    # white rolls 2-1; 10/8/7* hits black's blot on board point 7 (black's 18)
    position = short_pos({6: 2, 10: 1}, {18: 1, 1: 2})
    turns = position.legal_turns((2, 1))
    chosen = Greedy().turn(position, (2, 1))
    assert chosen in turns
    assert any(step.hit for step in chosen.steps)
    assert _score(chosen.position, "white") == max(_score(t.position, "white") for t in turns)


def test_greedy_takes_the_first_turn_in_T2_order_on_a_tie():
    position = Position.start("long")
    turns = position.legal_turns((3, 3))
    scores = [_score(t.position, "white") for t in turns]
    assert Greedy().turn(position, (3, 3)) == turns[scores.index(max(scores))]
    position = Position.start("short")
    turns = position.legal_turns((1, 2))
    scores = [_score(t.position, "white") for t in turns]
    assert scores.count(max(scores)) == 3  # a tie to break
    assert Greedy().turn(position, (1, 2)) == turns[scores.index(max(scores))]


@settings(max_examples=60, deadline=None)
@given(positions(), dice)
def test_every_player_chooses_a_legal_turn_T1(position, roll):
    turns = position.legal_turns(roll)
    if not turns:  # T4: the game is over
        return
    for name in ("random", "greedy", "net"):
        with player(name, position.rules, 1) as chooser:
            assert chooser.turn(position, roll) in turns


def test_the_random_player_repeats_with_its_seed():
    position = Position.start("short")
    choosers = [player("random", "short", seed) for seed in (5, 5, 6)]
    assert all(isinstance(chooser, Random) for chooser in choosers)
    picks = [[chooser.turn(position, (6, 6)) for _ in range(20)] for chooser in choosers]
    assert picks[0] == picks[1] != picks[2]
    assert len(set(picks[0])) > 1


def test_an_unknown_player_is_an_error():
    with pytest.raises(FastNardyError, match="greedy"):
        player("clever", "short")


def _lines(capsys) -> list:
    return capsys.readouterr().out.splitlines()


def test_self_play_prints_every_turn_and_the_result(capsys):
    game = Game("short", 3)
    play_game(game, player("random", "short", 3), boards=False)
    lines = _lines(capsys)
    outcome = game.outcome()
    assert lines[0].startswith("opening throw: white ")
    assert outcome.kind == "mars"
    assert lines[-1] == f"game over after {len(game.history)} turns: {outcome.winner} wins " \
                        f"2 points, mars (a gammon)"
    played = lines[1:-1]
    assert len(played) == len(game.history)
    for number, (line, (roll, turn)) in enumerate(zip(played, game.history), 1):
        high, low = max(roll), min(roll)  # rolls are printed high die first
        assert line.endswith(f"{high}-{low}: {turn}") and line.startswith(f"{number}. ")


def test_self_play_stops_after_max_turns_with_the_position_string(capsys):
    game = Game.from_position(Position.start("long"), 1)
    play_game(game, player("random", "long", 1), max_turns=3, boards=True)
    out = capsys.readouterr().out
    assert len(game.history) == 3
    assert out.count("long nardy, ") == 4  # the start and each turn's board
    assert out.endswith(f"stopped after 3 turns: {game.position.to_string()}\n")


@pytest.mark.parametrize("text, summary", [
    ("long w 1:2 24:15", "white wins 2 points, mars"),
    ("long(scoring=oin_mars_koks) w 1:2 24:15", "white wins 3 points, koks"),
    ("long(scoring=checkers_left) w 1:2 24:15", "white wins 15 points, 15 of black's "
                                                "checkers left"),
    ("short w 1:2 13:14", "white wins 1 point, oin (a single game)"),
    ("short w 1:2 23:15", "white wins 3 points, backgammon"),
])
def test_a_finished_game_ends_with_its_summary_L10_S9_C9(capsys, text, summary):
    game = Game.from_position(Position.from_string(text), 1)
    play_game(game, Random(1), boards=False)
    assert _lines(capsys)[-1] == f"game over after 1 turn: {summary}"


def test_the_summary_names_the_stake_C1_C4(capsys):
    game = Game.from_position(Position.from_string("long w 1:2 24:15"), 1)
    game.offer()
    game.take()
    play_game(game, Random(1), boards=False)
    assert _lines(capsys)[-1] == "game over after 1 turn: white wins 4 points, mars at stake 2"
    game = Game.from_position(Position.from_string("short(cube_cancels_mars=true) w 1:2 "
                                                   "13:15"), 1)
    game.offer()
    game.take()
    play_game(game, Random(1), boards=False)
    assert _lines(capsys)[-1] == "game over after 1 turn: white wins 2 points, oin (a single " \
                                 "game) at stake 2"


def test_each_board_shows_its_position_string_and_gnubg_id(capsys):
    game = Game.from_position(Position.start("short"), 2)
    play_game(game, Random(2), max_turns=1)
    out = capsys.readouterr().out
    before, after = Position.start("short"), game.position
    for position in (before, after):
        assert f"\nposition: {position.to_string()}   GNU Backgammon Position ID: " \
               f"{position.gnubg_id()}\n" in out
        assert Position.from_string(position.to_string()) == position
    assert "stake" not in out  # no cube, no stake
    game = Game.from_position(Position.start("long"), 2)
    play_game(game, Random(2), max_turns=1)
    out = capsys.readouterr().out
    assert f"\nposition: {Position.start('long').to_string()}\n" in out
    assert f"\nposition: {game.position.to_string()}\n" in out and "Position ID" not in out


def test_with_the_cube_each_board_shows_the_stake_and_its_holder_C1_C2(monkeypatch, capsys):
    _person(monkeypatch, "t\n")
    game = Game.from_position(Position.from_string(BEAR_OFF), 1)  # white, the network, offers
    with player("net", "short") as computer:
        play_game(game, computer, human="black", max_turns=1, cube=True)
    boards = capsys.readouterr().out.split("white offers")
    assert "\nstake 1, the cube is centred\n" in boards[0]
    assert "\nstake 2, black holds the cube\n" in boards[1]


def _person(monkeypatch, text: str) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(text))


def test_a_person_lists_the_turns_and_picks_one_by_number(monkeypatch, capsys):
    _person(monkeypatch, "?\n2\nq\n")
    game = Game.from_position(Position.start("long"), 4)
    game.dice = roll = (3, 3)
    turns = game.legal_turns()
    assert len(turns) == 2
    play_game(game, Greedy(), human="white", boards=False)
    out = capsys.readouterr().out
    for number, turn in enumerate(turns, 1):
        assert f"{number:4}) {turn}\n" in out
    assert game.history[0] == (roll, turns[1])
    assert out.endswith("q\nquit\n")


def _hinted(monkeypatch, capsys, typed: str) -> "tuple[Game, str, list]":
    """A person's short-nardy 4-2 from the start with ``typed`` on stdin and the network's
    hint: the game, what was printed and the hint's turns, best first."""
    _person(monkeypatch, typed)
    game = Game.from_position(Position.start("short"), 4)
    game.dice = (4, 2)
    best = [candidate.turn for candidate in hint(game.position, (4, 2))]
    play_game(game, Greedy(), human="white", boards=False, hint=setting(), max_turns=1)
    return game, capsys.readouterr().out, best


def test_a_number_after_the_hint_picks_the_hints_turn(monkeypatch, capsys):
    game, out, best = _hinted(monkeypatch, capsys, "h\n1\n")
    legal = Position.start("short").legal_turns((4, 2))
    assert best[0] != legal[0]  # the hint's 1 is not the legal list's 1
    assert "the best 5 of 18 turns by net:0 (cubeful equity):\n" in out
    for number, turn in enumerate(best[:HINTED], 1):
        assert f"\n{number:4}) {str(turn):<28} " in out
    assert game.history[0] == ((4, 2), best[0])


def test_play_human_after_h_plays_the_hints_first_turn_for_1(monkeypatch, capsys):
    """fastnardy play --human: "1" after "h" is the hint's best turn, not the first legal
    turn of a list that was never shown."""
    _person(monkeypatch, "h\n1\nq\n")
    game = Game("short", 11)  # white opens with 4-2: the hint's best is not legal turn 1
    best = hint(game.position, game.dice)[0].turn
    assert game.dice == (4, 2) and game.legal_turns()[0] != best
    assert main(["play", "short", "--human", "white", "--seed", "11", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert f"\n   1) {str(best):<28} " in out and f"\n1. white 4-2: {best}\n" in out


def test_play_human_h_at_an_offer_prints_the_cube_decision(monkeypatch, capsys):
    _person(monkeypatch, "h\nt\n")
    assert main(["play", BEAR_OFF, "--human", "black", "--cube", "--player", "net", "--seed",
                 "1", "--turns", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "black, t takes, p passes, h a hint: h\nnet:0 on white's cube: Double, pass; " in out
    assert out.count("black, t takes, p passes") == 2


def test_a_number_picks_from_the_list_shown_last(monkeypatch, capsys):
    legal = Position.start("short").legal_turns((4, 2))
    game, _, best = _hinted(monkeypatch, capsys, "h\n?\n1\n")
    assert game.history[0] == ((4, 2), legal[0])
    game, _, best = _hinted(monkeypatch, capsys, "?\nh\n2\n")
    assert game.history[0] == ((4, 2), best[1])


def test_a_number_before_any_list_or_past_it_is_asked_again(monkeypatch, capsys):
    game, out, best = _hinted(monkeypatch, capsys, "1\nh\n6\n3\n")
    assert "1\nno list yet: ? lists the legal turns, h the hint's best\n" in out
    assert "6\na number picks from the list shown last: 1 to 5\n" in out
    assert game.history[0] == ((4, 2), best[2])


def test_an_illegal_turn_is_named_and_asked_again_L5(monkeypatch, capsys):
    _person(monkeypatch, "24/20 24/22\n24/20 20/18\n")
    game = Game.from_position(Position.start("long"), 0)
    game.dice = (4, 2)
    play_game(game, Greedy(), human="white", boards=False)
    out = capsys.readouterr().out
    assert "illegal: L5: a second checker may not leave the head" in out
    assert "1. white 4-2: 24/20 20/18\n" in out
    assert out.endswith("quit\n")  # the end of the input quits
    assert len(game.history) == 2  # white's turn and the player's reply


def test_a_persons_forced_pass_is_played_for_them_T3(monkeypatch, capsys):
    _person(monkeypatch, "")
    # white's last checker on its 24; 6-6 would land on board point 18, black's 6 (L3)
    position = Position.from_string("long w 24:1 6:1")
    game = Game.from_position(position, 0)
    game.dice = (6, 6)
    play_game(game, Greedy(), human="white", max_turns=1, boards=False)
    assert capsys.readouterr().out.splitlines()[0] == "1. white 6-6: pass"


# -- the cube (C1, C2, C8) ------------------------------------------------------------------

BEAR_OFF = "short w 6:3,5:3,4:3,3:2,2:2 6:4,5:3,4:4,3:2,2:1"  # white far ahead: pass


def test_a_person_offers_and_the_network_passes_a_lost_game_C2(monkeypatch, capsys):
    _person(monkeypatch, "d\n")
    game = Game.from_position(Position.from_string(BEAR_OFF), 1)
    with player("net", "short") as computer:
        play_game(game, computer, human="white", boards=False, cube=True)
    out = capsys.readouterr().out
    assert "white offers: the game for 2" in out and "black passes" in out
    assert game.outcome().kind == "drop" and game.outcome().points == 1
    assert out.endswith("black passes\ngame over after 0 turns: white wins 1 point, black "
                        "passed the offer\n")


def test_the_network_offers_and_a_person_takes_then_plays_for_the_raised_stake_C2_C3(
        monkeypatch, capsys):
    _person(monkeypatch, "x\nt\n")  # "x" is not an answer: asked again
    game = Game.from_position(Position.from_string(BEAR_OFF), 1)  # white, the network, offers
    with player("net", "short") as computer:
        play_game(game, computer, human="black", boards=False, max_turns=1, cube=True)
    out = capsys.readouterr().out
    assert out.count("black, t takes, p passes:") == 2
    assert "black takes: the game is played for 2" in out
    assert game.stake == 2 and game.cube_owner == "black" and len(game.history) == 1


def test_a_player_without_a_cube_never_offers_and_always_takes(monkeypatch, capsys):
    _person(monkeypatch, "d\n")
    game = Game.from_position(Position.from_string(BEAR_OFF), 1)
    computer = player("greedy", "short")
    assert computer.cube_equities("short", encode([game.position]), [Cube()]) is None
    play_game(game, computer, human="white", boards=False, max_turns=2, cube=True)
    out = capsys.readouterr().out
    assert "black takes: the game is played for 2" in out and "black offers" not in out


class _Recording(Searcher):
    """The network's player at 0 ply, recording the cube each of its turns was asked with."""

    def __init__(self) -> None:
        super().__init__("net", "short")
        self.cubes: list = []

    def turn(self, position, dice, cube=None):
        self.cubes.append(cube)
        return super().turn(position, dice, cube)


def test_the_computers_turn_is_its_players_turn_with_the_cube_in_play_C1_C2(
        monkeypatch, capsys):
    _person(monkeypatch, "t\n")
    game = Game.from_position(Position.from_string(BEAR_OFF), 1)  # white, the network, offers
    computer = _Recording()
    play_game(game, computer, human="black", boards=False, max_turns=1, cube=True)
    assert "black takes: the game is played for 2" in capsys.readouterr().out
    # white's turn, knowing that black now holds the cube at 2
    assert computer.cubes == [Cube.money("short")._replace(value=2, owner="opponent")]
    assert game.history[0][1] == computer.turn(Position.from_string(BEAR_OFF),
                                               game.history[0][0], computer.cubes[0])


def test_without_the_cube_the_computers_turn_knows_none(capsys):
    game = Game("short", 3)
    computer = _Recording()
    play_game(game, computer, max_turns=4, boards=False)
    assert computer.cubes == [None] * 4
    assert len(game.history) == 4


def _advice(decision, side: str, to: str, choices) -> str:
    """The cube hint's lines for ``choices`` of (name, equity)."""
    lines = [f"net:0 on {side}'s cube: {decision.action}; {to}'s equity, normalised to the "
             f"stake, best first:"]
    lines += [f"  {name:<13}{value:+.3f}" for name, value in sorted(choices,
                                                                    key=lambda c: -c[1])]
    return "\n".join(lines) + "\n"


def test_a_hint_at_the_take_or_pass_prompt_gives_the_cube_decision_C2(monkeypatch, capsys):
    _person(monkeypatch, "h\nt\n")
    game = Game.from_position(Position.from_string(BEAR_OFF), 1)  # white, the network, offers
    decision = cube_decision(game.position, Cube.of_game(game), setting())
    with player("net", "short") as computer:
        play_game(game, computer, human="black", boards=False, max_turns=1, cube=True,
                  hint=setting())
    out = capsys.readouterr().out
    assert "black, t takes, p passes, h a hint: h\n" + _advice(
        decision, "white", "black", [("take", -decision.double_take),
                                     ("pass", -decision.double_pass)]) in out
    assert "  pass         -1.000\n  take         " in out  # a pass: the better first
    assert "black takes: the game is played for 2" in out


def test_a_hint_at_the_offer_prompt_gives_the_cube_decision_C2(monkeypatch, capsys):
    _person(monkeypatch, "h\nd\n")
    game = Game.from_position(Position.from_string(BEAR_OFF), 1)
    decision = cube_decision(game.position, Cube.of_game(game), setting())
    with player("net", "short") as computer:
        play_game(game, computer, human="white", boards=False, cube=True, hint=setting())
    out = capsys.readouterr().out
    assert "Enter throws, h a hint): h\n" + _advice(
        decision, "white", "white", [("no double", decision.no_double),
                                     ("double, take", decision.double_take),
                                     ("double, pass", decision.double_pass)]) in out
    assert "white offers: the game for 2" in out and "black passes" in out
