"""fastnardy.envs.openspiel: both games as OpenSpiel Python games (T5 rolls, T6 opening, T2
actions, L10/S9 returns, rule-variant parameters, the max_turns cut-off)."""

from __future__ import annotations

import importlib
import random
from itertools import combinations_with_replacement
from math import comb

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="OpenSpiel is not installed (pip install 'fastnardy[openspiel]')")

from open_spiel.python.algorithms import mcts  # noqa: E402

from fastnardy import (ALL_ROLLS, IllegalTurnError, InvalidDiceError,  # noqa: E402
                       InvalidRulesError, Position, Rules, features)
from fastnardy.envs import openspiel  # noqa: E402
from fastnardy.batch import encode  # noqa: E402

GAMES = (openspiel.LONG_NAME, openspiel.SHORT_NAME)
DOUBLE_55, DOUBLE_44 = ALL_ROLLS.index((5, 5)), ALL_ROLLS.index((4, 4))


def sample_chance(state, rng: random.Random) -> int:
    actions, probabilities = zip(*state.chance_outcomes())
    return rng.choices(actions, probabilities)[0]


def random_game(game, rng: random.Random, on_player_node=None):
    """Play a random game to the end; call ``on_player_node(state)`` at each player node."""
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
        else:
            if on_player_node is not None:
                on_player_node(state)
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_both_games_registered_and_reimport_harmless():
    assert set(GAMES) <= set(pyspiel.registered_names())
    importlib.reload(openspiel)
    for name in GAMES:
        assert pyspiel.load_game(name).get_type().short_name == name


@pytest.mark.parametrize("name", [
    "python_long_nardy", "python_long_nardy(head_rule=tournament,block_check=turn_end)",
    "python_long_nardy(head_rule=blocked,block_rule=opponent_home,scoring=oin_mars_koks)",
    "python_short_nardy", "python_short_nardy(hit_and_hide=forbidden,backgammon=false)",
])
def test_openspiel_random_sim_test(name):
    pyspiel.random_sim_test(pyspiel.load_game(name), num_sims=2, serialize=True,
                            verbose=False)


@pytest.mark.parametrize("name", GAMES)
def test_mcts_bot_plays_games_to_the_end(name):
    game = pyspiel.load_game(name)
    rng = np.random.RandomState(7)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bots = [mcts.MCTSBot(game, uct_c=2.0, max_simulations=3, evaluator=evaluator,
                         random_state=rng) for _ in range(2)]
    for _ in range(2):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probabilities = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(actions, p=probabilities)))
            else:
                action = bots[state.current_player()].step(state)
                assert action in state.legal_actions()
                state.apply_action(action)
        outcome = state.position.outcome()
        assert outcome is not None and sum(state.returns()) == 0
        assert max(state.returns()) == outcome.points <= game.max_utility()


@pytest.mark.parametrize("name", GAMES)
def test_t5_roll_nodes_have_21_rolls_with_their_probabilities(name):
    game = pyspiel.load_game(name)
    expected = [(i, (1 if d1 == d2 else 2) / 36) for i, (d1, d2) in enumerate(ALL_ROLLS)]
    rng = random.Random(3)
    state = game.new_initial_state()
    state.apply_action(sample_chance(state, rng))  # the T6 opening
    roll_nodes = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert [a for a, _ in outcomes] == list(range(21))
            assert [p for _, p in outcomes] == pytest.approx([p for _, p in expected])
            assert sum(p for _, p in outcomes) == pytest.approx(1.0)
            roll_nodes += 1
            state.apply_action(sample_chance(state, rng))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    assert roll_nodes > 20
    state = game.new_initial_state().child(0)
    if not state.is_chance_node():  # short nardy: the opening was the first roll
        state.apply_action(0)
    for action, (d1, d2) in enumerate(ALL_ROLLS):
        assert state.action_to_string(pyspiel.PlayerId.CHANCE, action) == \
            f"roll {max(d1, d2)}-{min(d1, d2)}"


def test_t6_long_opening_decides_the_starter_only():
    game = pyspiel.load_game("python_long_nardy")
    state = game.new_initial_state()
    assert state.chance_outcomes() == [(0, 0.5), (1, 0.5)]
    for action, side in enumerate(("white", "black")):
        child = state.child(action)
        assert child.is_chance_node() and child.dice is None
        assert child.position == Position.from_points(
            game.rules, Position.start("long").white_points,
            Position.start("long").black_points, side)
        assert state.action_to_string(pyspiel.PlayerId.CHANCE, action) == f"{side} starts"


def test_t6_short_opening_is_the_first_roll():
    game = pyspiel.load_game("python_short_nardy")
    state = game.new_initial_state()
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 30 and sum(p for _, p in outcomes) == pytest.approx(1.0)
    white_starts, unordered = 0.0, {}
    for action, probability in outcomes:
        assert probability == pytest.approx(1 / 30)
        w, b = openspiel.SHORT_OPENING[action]
        assert action == 5 * (w - 1) + b - 1 - (b > w)  # the module docstring's formula
        child = state.child(action)
        position, dice = Position.opening(game.rules, w, b)
        assert (child.position, child.dice) == (position, dice)
        assert child.current_player() == (0 if w > b else 1)
        white_starts += probability * (w > b)
        key = (max(w, b), min(w, b))
        unordered[key] = unordered.get(key, 0.0) + probability
    assert white_starts == pytest.approx(0.5)
    # each unequal roll: P(roll | no tie) = (2/36) / (30/36)
    assert unordered == pytest.approx({key: 2 / 30 for key in unordered}) and len(unordered) == 15


@pytest.mark.parametrize("name", GAMES)
def test_t2_actions_are_the_legal_turns_in_order(name):
    game = pyspiel.load_game(name)
    passes = 0

    def check(state):
        nonlocal passes
        turns = state.position.legal_turns(state.dice)
        assert state.legal_actions() == list(range(len(turns)))
        assert list(turns) == state.legal_turns()
        assert [state.action_to_string(a) for a in state.legal_actions()] == \
            [str(t) for t in turns]
        assert len(turns) <= game.num_distinct_actions()
        if turns[0].is_pass():  # T3
            assert state.legal_actions() == [0]
            passes += 1
        action = random.Random(len(turns)).randrange(len(turns))
        assert state.child(action).position == turns[action].position

    rng = random.Random(11)
    for _ in range(20):
        random_game(game, rng, check)
        if passes:
            break
    assert passes, "no pass (T3) in 20 random games"


@pytest.mark.parametrize("name", GAMES)
def test_l10_s9_returns_are_the_outcome_points(name):
    game = pyspiel.load_game(name)
    rng = random.Random(5)
    for _ in range(10):
        state = random_game(game, rng)
        outcome = state.position.outcome()
        white = outcome.points if outcome.winner == "white" else -outcome.points
        assert state.returns() == [white, -white]
        assert [state.player_return(p) for p in (0, 1)] == [white, -white]
        assert state.current_player() == pyspiel.PlayerId.TERMINAL
        assert state.legal_actions() == []


def play_to_black_44(name):
    """White starts, rolls 5-5 and plays its one legal turn (24/4); black rolls 4-4."""
    state = pyspiel.load_game(name).new_initial_state()
    for action in (0, DOUBLE_55):
        state.apply_action(action)
    assert state.legal_actions() == [0] and state.action_to_string(0) == "24/19 19/14 14/9 9/4"
    for action in (0, DOUBLE_44):
        state.apply_action(action)
    return state


def test_l5_head_rule_parameter_changes_the_legal_turns():
    """RULES.md section 4, example 3: black's 4-4 after white's 5-5 (24/4)."""
    for head_rule in ("classic", "tournament"):
        state = play_to_black_44(f"python_long_nardy(head_rule={head_rule})")
        rules = Rules.long(head_rule=head_rule)
        expected = Position.start(rules).play("24/19 19/14 14/9 9/4").legal_turns((4, 4))
        assert state.position.rules == rules
        assert [state.action_to_string(a) for a in state.legal_actions()] == \
            [str(t) for t in expected]
    classic = play_to_black_44("python_long_nardy")
    tournament = play_to_black_44("python_long_nardy(head_rule=tournament)")
    assert {classic.action_to_string(a) for a in classic.legal_actions()} != \
        {tournament.action_to_string(a) for a in tournament.legal_actions()}
    assert all(len(tournament.legal_turns()[a].steps) == 1 for a in tournament.legal_actions())


@pytest.mark.parametrize("name, rules, top", [
    ("python_long_nardy", Rules.long(), 2),
    ("python_long_nardy(scoring=oin_mars_koks)", Rules.long(scoring="oin_mars_koks"), 3),
    ("python_long_nardy(block_rule=none,block_check=turn_end)",
     Rules.long(block_rule="none", block_check="turn_end"), 2),
    ("python_short_nardy", Rules.short(), 3),
    ("python_short_nardy(backgammon=false)", Rules.short(backgammon=False), 2),
    ("python_short_nardy(hit_and_hide=forbidden)", Rules.short(hit_and_hide="forbidden"), 3),
])
def test_parameters_map_to_rules_and_utility(name, rules, top):
    game = pyspiel.load_game(name)
    assert game.rules == rules and game.new_initial_state().position.rules == rules
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (-top, top, 0)
    assert game.max_chance_outcomes() == (21 if rules.is_long else 30)


@pytest.mark.parametrize("name", ["python_long_nardy(head_rule=sometimes)",
                                  "python_short_nardy(hit_and_hide=never)",
                                  "python_short_nardy(max_turns=0)"])
def test_bad_parameters_raise_invalid_rules_error(name):
    with pytest.raises(InvalidRulesError):
        pyspiel.load_game(name)


@pytest.mark.parametrize("name", GAMES)
def test_max_turns_cuts_the_game_off_as_a_draw(name):
    game = pyspiel.load_game(f"{name}(max_turns=6)")
    assert game.max_game_length() == 6
    turns = []
    state = random_game(game, random.Random(1), lambda s: turns.append(s.dice))
    assert len(turns) == 6 and not state.position.is_game_over()
    assert state.is_terminal() and state.returns() == [0.0, 0.0]
    assert "cut off after 6 turns" in state.observation_string(0)
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)


def passing_roll(position):
    """A roll for which the side to move must pass (T3), and the pass; or None."""
    for roll in ALL_ROLLS:
        turns = position.legal_turns(roll)
        if turns[0].is_pass():
            return roll, turns[0]
    return None


@pytest.mark.parametrize("game", ["long", "short"])
def test_passes_can_alternate_so_no_finite_max_game_length_exists(game):
    """The module docstring's reason for the max_turns cut-off: a position reached in play
    where the mover has a roll it must pass and then so has the opponent, so the two rolls
    alternating give a game of any length."""
    rng = random.Random(0)
    for _ in range(20):
        position = Position.start(game)
        while not position.is_game_over():
            first = passing_roll(position)
            second = first and passing_roll(first[1].position)
            if second:
                assert second[1].position == position  # back where it started: a cycle
                return
            turns = position.legal_turns(rng.choice(ALL_ROLLS))
            position = turns[rng.randrange(len(turns))].position
    pytest.fail("no alternating passes found in 20 random games")


def chain_multisets(locations: int, dice: int) -> int:
    """Brute force: multisets of chains (start, length) with the lengths summing to dice."""
    chains = [(p, k) for p in range(locations) for k in range(1, dice + 1)]
    return sum(1 for size in range(1, dice + 1)
               for group in combinations_with_replacement(chains, size)
               if sum(k for _, k in group) == dice)


def test_num_distinct_actions_is_the_chain_bound():
    """The arithmetic of the module docstring's proof of MAX_TURNS_PER_ROLL."""
    assert [chain_multisets(15, m) for m in (4, 3, 2, 1)] == [5220, 920, 135, 15]
    assert sum(chain_multisets(4, m) for m in (4, 3, 2, 1)) == 163
    n = 15
    assert n * n + 2 * n + 2 * n == 285 < 5220
    assert 5220 == n + n * n + comb(n + 1, 2) + n * comb(n + 1, 2) + comb(n + 3, 4)
    assert openspiel.MAX_TURNS_PER_ROLL == 5220
    for name in GAMES:
        assert pyspiel.load_game(name).num_distinct_actions() == 5220


@pytest.mark.parametrize("name, kind", [("python_long_nardy", "nardy"),
                                        ("python_short_nardy", "tdgammon")])
def test_observation_is_the_movers_features_and_the_roll(name, kind):
    game = pyspiel.load_game(name)
    width = {"nardy": 248, "tdgammon": 198}[kind]
    assert game.observation_tensor_shape() == [width + 21]
    state = game.new_initial_state()
    rng = random.Random(2)
    for _ in range(40):
        board = features(game.rules, encode([state.position]), kind)[0]
        roll = np.zeros(21, np.float32)
        if state.dice is not None:
            roll[ALL_ROLLS.index(tuple(sorted(state.dice)))] = 1
        for player in (0, 1):
            tensor = np.asarray(state.observation_tensor(player))
            assert np.array_equal(tensor, np.concatenate([board, roll]))
            text = state.observation_string(player)
            assert text.startswith(state.position.to_string() + ", ")
        if state.dice is not None:
            assert text.endswith(f"plays {max(state.dice)}-{min(state.dice)}")
        assert state.information_state_string(0) == state.history_str()
        state.apply_action(sample_chance(state, rng) if state.is_chance_node()
                           else rng.choice(state.legal_actions()))


@pytest.mark.parametrize("name", ["python_long_nardy(head_rule=blocked)",
                                  "python_short_nardy(hit_and_hide=forbidden)"])
def test_clone_and_serialize(name):
    game = pyspiel.load_game(name)
    state = game.new_initial_state()
    rng = random.Random(4)
    for _ in range(30):
        state.apply_action(sample_chance(state, rng) if state.is_chance_node()
                           else rng.choice(state.legal_actions()))
    clone = state.clone()
    assert str(clone) == str(state) and clone.history() == state.history()
    clone.apply_action(clone.legal_actions()[0] if not clone.is_chance_node()
                       else sample_chance(clone, rng))
    assert clone.history() != state.history()
    text = pyspiel.serialize_game_and_state(game, state)
    game_back, state_back = pyspiel.deserialize_game_and_state(text)
    assert str(game_back) == str(game) and game_back.rules == game.rules
    assert str(state_back) == str(state) and state_back.history() == state.history()
    assert state_back.position == state.position and state_back.dice == state.dice


def test_bad_actions_raise_documented_errors():
    game = pyspiel.load_game("python_short_nardy")
    state = game.new_initial_state()
    with pytest.raises(InvalidDiceError, match="T6"):
        state.apply_action(30)
    state.apply_action(29)  # white 6, black 5: white plays 6-5
    with pytest.raises(IllegalTurnError, match="T1") as error:
        state.apply_action(len(state.legal_actions()))
    assert error.value.rule == "T1"
    with pytest.raises(IllegalTurnError, match="T1"):
        state.action_to_string(0, len(state.legal_actions()))
    state.apply_action(0)
    with pytest.raises(InvalidDiceError, match="T5"):
        state.apply_action(21)


def test_T1_T5_a_state_from_a_position_plays_on_from_there():
    from fastnardy.errors import InvalidPositionError, InvalidRulesError

    game = pyspiel.load_game("python_short_nardy")
    start = Position.start("short")
    middle = start.play(start.legal_turns((6, 5))[0])
    state = game.new_state_from(middle)
    assert state.is_chance_node() and state.position == middle
    state.apply_action(0)  # the first of the 21 rolls
    assert state.legal_turns() == list(middle.legal_turns(ALL_ROLLS[0]))
    playing = game.new_state_from(middle, (3, 1))
    assert playing.current_player() == (0 if middle.turn == "white" else 1)
    assert playing.legal_actions() == list(range(len(middle.legal_turns((3, 1)))))
    bot = mcts.MCTSBot(game, 2, 4, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)),
                       random_state=np.random.RandomState(1))
    assert 0 <= bot.step(playing) < len(middle.legal_turns((3, 1)))
    with pytest.raises(InvalidRulesError):
        game.new_state_from(Position.start("long"))
    with pytest.raises(InvalidPositionError):
        game.new_state_from("start")


def test_L9_a_finished_position_is_a_terminal_state_with_its_returns():
    game = pyspiel.load_game("python_long_nardy")
    white = [0] * 24
    white[0] = 1
    position = Position.from_points("long", white, Position.start("long").black_points, "white")
    state = game.new_state_from(position, (1, 2))
    state.apply_action(0)
    assert state.is_terminal() and state.returns() == [2.0, -2.0]
