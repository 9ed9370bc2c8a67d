"""Game: the T6 opening, dice (seeded, lazy, or set by the caller), play, undo, history,
L10/S9 outcomes and records."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastnardy import (FastNardyError, Game, IllegalTurnError, InvalidDiceError,
                       InvalidRecordError, InvalidRulesError, Match, NotationError, Outcome,
                       Position, Rules, Turn)
from fastnardy import _kernel
from fastnardy.basics import DiceStream
from fastnardy.play.duel import dice_tables
from fastnardy.record import read_record
from strategies import ALL_RULES, positions


def play_randomly(game: Game, turns: int, seed: int) -> Game:
    """Play up to ``turns`` random legal turns (or to the end of the game)."""
    chooser = random.Random(seed)
    while not game.is_over() and len(game.history) < turns:
        game.play(chooser.choice(game.legal_turns()))
    return game


# --------------------------------------------------------------------------- T6 opening

@pytest.mark.parametrize("seed", range(20))
def test_t6_opening_throw_higher_die_moves_first(seed):
    for game_name in ("long", "short"):
        game = Game(game_name, seed=seed)
        white_die, black_die = game.opening
        assert white_die != black_die
        assert game.position.turn == ("white" if white_die > black_die else "black")
        assert game.position.white_points == Position.start(game_name).white_points


def test_t6_short_first_player_plays_the_opening_numbers():
    game = Game("short", opening=(3, 5))
    assert game.position.turn == "black"
    assert game.dice == (5, 3)
    assert game.legal_turns() == Position.opening("short", 3, 5)[0].legal_turns((5, 3))


def test_t6_short_first_roll_cannot_be_set_to_other_numbers():
    game = Game("short", opening=(6, 1))
    game.dice = (1, 6)  # the same numbers in another order
    assert game.dice == (1, 6)
    with pytest.raises(InvalidDiceError, match="T6"):
        game.dice = (6, 2)


def test_t6_long_first_player_throws_both_dice_again():
    game = Game("long", seed=5, opening=(2, 4))
    assert game.position.turn == "black"
    assert game.dice == DiceStream(5).throw()  # a given opening leaves the stream untouched
    game.dice = (6, 6)  # long nardy's first roll is free
    assert game.dice == (6, 6)


def test_t6_ties_are_thrown_again():
    def throws(seed):
        stream = DiceStream(seed)
        return [stream.throw() for _ in range(40)]

    first_untied = next(t for t in throws(0) if t[0] != t[1])
    seed_with_a_tie = next(s for s in range(200) if len(set(throws(s)[0])) == 1)
    assert Game("long", seed=0).opening == first_untied
    game = Game("long", seed=seed_with_a_tie)
    assert game.opening[0] != game.opening[1]
    assert game.opening == next(t for t in throws(seed_with_a_tie) if t[0] != t[1])


@pytest.mark.parametrize("game_name", ["long", "short"])
def test_t5_t6_one_seed_throws_one_stream_in_game_the_kernel_and_matches(game_name):
    """Game(seed) throws stream 0 of its seed: the opening and the dice the kernel's
    GameBatch throws for its game 0 of that seed (and self-play, and a match's first pair)."""
    rules = Rules.of(game_name)
    for seed in (0, 7, 2 ** 63 + 5):
        batch = _kernel.GameBatch(rules.code, False, True, 3, seed, (2, 2))
        batch.start(np.arange(3, dtype=np.int64), np.arange(3, dtype=np.int64))
        _, sides, dice, _ = batch.state()
        for stream in range(3):
            opening = DiceStream(seed, stream).opening()
            assert sides[stream] == (0 if opening[0] > opening[1] else 1)
            if game_name == "short":  # the opening throw is the first roll
                assert tuple(dice.reshape(-1, 2)[stream]) == opening
        game = Game(rules, seed=seed)
        stream = DiceStream(seed)
        assert game.opening == stream.opening()
        first_roll = game.dice
        assert first_roll == (tuple(sorted(game.opening, reverse=True)) if game_name == "short"
                              else stream.throw())
        assert dice_tables(seed, 1, 0)[0][0].tolist() == list(game.opening)


def test_from_position_skips_t6():
    start = Position.from_string("long b 24:14,20:1 24:15")
    game = Game.from_position(start, seed=1)
    assert game.opening is None
    assert game.position == start
    assert game.record().splitlines()[3] == "start long b 24:14,20:1 24:15"


# --------------------------------------------------------------------------- dice

def test_same_seed_same_game():
    assert play_randomly(Game("long", seed=11), 30, 1).record() == \
        play_randomly(Game("long", seed=11), 30, 1).record()


def test_dice_are_thrown_lazily_so_set_dice_leave_the_generator_alone():
    start = Position.start("long")
    mine, fresh = Game.from_position(start, seed=3), Game.from_position(start, seed=3)
    mine.dice = (6, 5)
    mine.play("24/18 18/13")
    assert mine.dice == fresh.dice  # the first throw of the generator


def test_setting_dice_replaces_a_thrown_roll():
    game = Game.from_position(Position.start("short"), seed=2)
    assert game.dice is not None
    game.dice = (2, 1)
    assert game.dice == (2, 1)
    assert game.legal_turns() == game.position.legal_turns((2, 1))


@pytest.mark.parametrize("bad", [(0, 1), (1, 7), (1,), (1, 2, 3), "65", b"65", None, 65,
                                 (1.0, 2), (True, 1), ("6", "5")])
def test_bad_dice_raise_invalid_dice_error(bad):
    game = Game("long", seed=1)
    with pytest.raises(InvalidDiceError):
        game.dice = bad


def test_dice_accept_integer_like_values():
    game = Game.from_position(Position.start("long"))
    game.dice = np.array([6, 5])
    assert game.dice == (6, 5) and all(type(d) is int for d in game.dice)


# --------------------------------------------------------------------------- play, pass, undo

def test_play_returns_the_legal_turn_and_records_it():
    game = Game.from_position(Position.start("long"), seed=1)
    game.dice = (6, 5)
    turn = game.play("24/19 19/13")  # any legal order of the steps
    assert str(turn) == "24/18 18/13"
    assert game.history == (((6, 5), turn),)
    assert game.position == turn.position and game.position.turn == "black"


def test_play_accepts_a_turn_object():
    game = Game("short", opening=(4, 2))
    turn = game.legal_turns()[-1]
    assert game.play(turn) == turn


def _referee_forbidden(monkeypatch):
    """Make any referee call fail the test."""
    from fastnardy import referee

    def called(*args, **kwargs):
        raise AssertionError("the referee was called")
    monkeypatch.setattr(referee, "check_played", called)


@pytest.mark.parametrize("game_name", ["long", "short"])
def test_t1_play_of_the_games_own_legal_turn_skips_the_referee(monkeypatch, game_name):
    game = Game(game_name, seed=3)
    _referee_forbidden(monkeypatch)
    for _ in range(12):
        turn = game.legal_turns()[-1]
        assert game.play(turn) is turn
        assert game.position is turn.position
        game.undo()
        assert game.play(turn) is turn


def test_t1_play_of_a_foreign_or_hand_built_turn_is_refereed():
    from fastnardy import referee

    calls = []
    original = referee.check_played

    def counting(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    game = Game.from_position(Position.start("long"), seed=1)
    game.dice = (6, 5)
    own = game.legal_turns()[0]
    hand_built = Turn(own.steps, own.position)  # equal, but not generated here
    other_roll = Position.start("long").legal_turns((4, 2))[0]  # same position, other dice
    tampered = Turn(own.steps, other_roll.position)  # steps of one turn, position of another
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(referee, "check_played", counting)
        with pytest.raises(IllegalTurnError) as caught:
            game.play(other_roll)  # its steps are not a 6-5 turn
        assert caught.value.rule == "L4" and len(calls) == 1
        with pytest.raises(IllegalTurnError) as caught:
            game.play(tampered)
        assert caught.value.rule == "T1" and len(calls) == 2
        assert game.history == ()
        assert game.play(hand_built) == own and len(calls) == 3


def test_illegal_turn_names_the_rule_and_changes_nothing():
    game = Game.from_position(Position.start("long"), seed=1)
    game.dice = (4, 2)
    with pytest.raises(IllegalTurnError, match="L5") as caught:
        game.play("24/20 24/22")
    assert caught.value.rule == "L5"
    assert game.history == () and game.dice == (4, 2)
    assert game.position == Position.start("long")


CLOSED_OUT = "short w bar:1,6:14 13:3,6:2,5:2,4:2,3:2,2:2,1:2"


@pytest.mark.parametrize("roll", [(6, 6), (5, 2), (1, 1)])
def test_t3_a_roll_with_no_legal_step_is_a_pass(roll):
    game = Game.from_position(Position.from_string(CLOSED_OUT))
    game.dice = roll
    turn = game.play("pass")
    assert turn.is_pass() and game.position.turn == "black"


def test_s6_pass_refused_when_a_step_is_legal():
    game = Game("short", opening=(6, 1))
    with pytest.raises(IllegalTurnError, match="S6"):
        game.play("pass")


def test_undo_restores_position_and_roll():
    game = play_randomly(Game("short", seed=4), 6, 2)
    before, (roll, turn) = game.history[:-1], game.history[-1]
    position = game.position
    assert game.undo() == (roll, turn)
    assert game.history == before and game.dice == roll
    assert game.play(turn) == turn and game.position == position


def test_undo_of_the_first_short_turn_gives_back_the_opening_roll():
    game = Game("short", opening=(2, 5))
    game.play(game.legal_turns()[0])
    game.undo()
    assert game.dice == (5, 2) and game.position == Position.opening("short", 2, 5)[0]


def test_undo_with_nothing_played_raises():
    with pytest.raises(FastNardyError, match="undo"):
        Game("long", seed=1).undo()


# --------------------------------------------------------------------------- the end (L9, L10, S9)

@pytest.mark.parametrize("text, outcome", [
    ("long w 1:1 24:15", Outcome("white", 2, "mars")),                       # L10
    ("long w 1:1 24:14", Outcome("white", 1, "oin")),
    ("long(scoring=oin_mars_koks) w 1:1 24:15", Outcome("white", 3, "koks")),
    ("short w 1:1 bar:1,6:14", Outcome("white", 3, "backgammon")),          # S9
    ("short w 1:1 6:15", Outcome("white", 2, "mars")),
    ("short w 1:1 6:14", Outcome("white", 1, "oin")),
])
def test_l9_s9_game_ends_with_the_last_checker_off_and_scores(text, outcome):
    game = Game.from_position(Position.from_string(text), seed=1)
    game.dice = (1, 2)
    game.play("1/off")
    assert game.is_over()
    assert game.outcome() == outcome
    assert game.outcome(cube=2).points == 2 * outcome.points


def test_t4_no_dice_and_no_turns_once_the_game_is_over():
    game = Game.from_position(Position.from_string("long w 1:1 24:15"))
    assert game.outcome() is None
    game.dice = (3, 1)
    game.play("1/off")
    assert game.dice is None and game.legal_turns() == ()
    with pytest.raises(IllegalTurnError, match="T4"):
        game.play("pass")
    with pytest.raises(InvalidDiceError, match="T4"):
        game.dice = (1, 2)
    game.undo()
    assert not game.is_over() and game.dice == (3, 1)


# --------------------------------------------------------------------------- records

def test_record_text():
    game = Game("short", opening=(3, 5), players=("Alice", "Bob"))
    game.play("8/3 6/3")
    game.dice = (6, 6)
    game.play("24/18 24/18 13/7 13/7")
    assert game.record() == (
        "rules short\n"
        "white Alice\n"
        "black Bob\n"
        "opening 3 5\n"
        "1 black 5-3 8/3 6/3\n"
        "2 white 6-6 24/18 24/18 13/7 13/7\n")


def test_from_record_names_rule_move_and_line_of_an_illegal_turn():
    text = "rules long\nwhite a\nblack b\nopening 6 1\n1 white 6-5 24/18 18/13\n" \
           "2 black 4-2 24/20 24/22\n"
    with pytest.raises(IllegalTurnError) as caught:
        Game.from_record(text)
    assert caught.value.rule == "L5"
    message = str(caught.value)
    assert message.startswith("L5: ") and "move 2" in message and "4-2" in message \
        and "line 6" in message


def test_from_record_t4_turn_after_the_end():
    text = "rules long\nwhite a\nblack b\nstart long w 1:1 24:15\n1 white 1-2 1/off\n" \
           "2 black 6-5 24/18 18/13\n"
    with pytest.raises(IllegalTurnError, match="T4.*move 2.*line 6"):
        Game.from_record(text)


def test_from_record_reads_a_game_record_value_and_keeps_seeding_the_dice():
    game = play_randomly(Game("long", seed=8), 10, 3)
    again = Game.from_record(game.to_record(), seed=8)
    assert again.history == game.history and again.position == game.position
    assert again.dice is not None


@settings(max_examples=100, deadline=None)
@given(rules=st.sampled_from(ALL_RULES), seed=st.integers(0, 2**32 - 1),
       turns=st.integers(0, 200), chooser=st.integers(0, 1000))
def test_record_round_trip_of_random_games(rules, seed, turns, chooser):
    game = play_randomly(Game(rules, seed=seed, players=("Ann Lee", "Bo")), turns, chooser)
    text = game.record()
    again = Game.from_record(text)
    assert again.record() == text
    assert again.history == game.history and again.position == game.position
    assert again.opening == game.opening and again.players == game.players
    assert again.outcome() == game.outcome()
    assert read_record(text) == game.to_record()


@settings(max_examples=100, deadline=None)
@given(start=positions(), seed=st.integers(0, 2**32 - 1), turns=st.integers(0, 30))
def test_record_round_trip_from_a_set_position(start, seed, turns):
    game = play_randomly(Game.from_position(start, seed=seed), turns, seed)
    again = Game.from_record(game.record())
    assert again.record() == game.record() and again.position == game.position


# --------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("call, error", [
    (lambda: Game("chess"), InvalidRulesError),
    (lambda: Game("long", seed="x"), FastNardyError),
    (lambda: Game("long", seed=-1), FastNardyError),
    (lambda: Game("long", seed=True), FastNardyError),
    (lambda: Game("long", players=("a",)), FastNardyError),
    (lambda: Game("long", players=["a", "b"]), FastNardyError),
    (lambda: Game("long", players=("", "b")), InvalidRecordError),
    (lambda: Game("long", players=("a\nb", "c")), InvalidRecordError),
    (lambda: Game("long", players=(" a", "b")), InvalidRecordError),
    (lambda: Game("long", opening=(3, 3)), InvalidDiceError),
    (lambda: Game("long", opening="35"), InvalidDiceError),
    (lambda: Game.from_position("long w 24:15 24:15"), FastNardyError),
    (lambda: Game.from_record(12), InvalidRecordError),
    (lambda: Game("long", seed=1).play(123), NotationError),
    (lambda: Game("long", seed=1).play("24/xx"), NotationError),
])
def test_bad_input_raises_documented_errors(call, error):
    with pytest.raises(error):
        call()
    assert issubclass(error, ValueError)


def test_rules_value_and_repr():
    game = Game(Rules.long(head_rule="tournament"), seed=1)
    assert game.rules == Rules.long(head_rule="tournament")
    assert "long(head_rule=tournament)" in repr(game)


def _hammer(match, seed, failures):
    """One of four threads playing the one shared ``match`` to its end, as careless callers
    would: no lock of their own, any call may find the game moved on under it (anything
    but a refusal goes to ``failures``)."""
    try:
        _play_along(match, random.Random(seed))
    except BaseException as error:
        failures.append(error)


def _play_along(match, chooser):
    while not match.is_over():
        game = match.game
        try:
            if game.is_over():
                match.next_game()
            elif game.may_offer() and chooser.random() < 0.05:
                game.offer()
                (game.take if chooser.random() < 0.7 else game.drop)()
            else:
                turns = game.legal_turns()  # none if another thread ended the game
                if turns:
                    game.play(chooser.choice(turns))
        except FastNardyError:  # another thread's call came first: refused whole
            pass


@pytest.mark.parametrize("game_name", ["long", "short"])
def test_a_match_shared_by_four_threads_stays_whole_C5_C6(game_name):
    """Issue 70, item 6: a Match played by 4 threads at once ended corrupted in 9 of 15
    runs (its record would not replay). Each call on a Game or a Match is whole: the match
    ends with a record that replays to the same games, rolls and score."""
    import sys
    import threading

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter can
    try:
        for seed in range(3):
            match, failures = Match(game_name, 5, seed=seed), []
            threads = [threading.Thread(target=_hammer, args=(match, seed * 4 + k, failures))
                       for k in range(4)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(120)
            assert not failures
            replayed = Match.from_record(match.record(), seed=seed)
            assert replayed.record() == match.record()
            assert replayed.score == match.score and match.is_over()
            for game, again in zip(match.games, replayed.games):
                assert game.history == again.history
                assert game.to_record() == again.to_record()
    finally:
        sys.setswitchinterval(interval)


def test_a_game_pickles_and_copies_without_its_lock():
    import copy
    import pickle

    game = Game("short", 1)
    game.play(game.legal_turns()[0])
    for other in (pickle.loads(pickle.dumps(game)), copy.deepcopy(game)):
        assert other.record() == game.record()
        other.play(other.legal_turns()[0])  # each copy has its own state and lock
    assert len(game.history) == 1
    match = pickle.loads(pickle.dumps(Match("short", 3, seed=2)))
    assert match.score == (0, 0) and not match.is_over()
