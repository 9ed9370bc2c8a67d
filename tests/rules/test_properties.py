"""Properties of legal turns over hypothesis-generated positions, on both backends."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings, strategies as st

from fastnardy import ALL_ROLLS, IllegalTurnError, Position
from fastnardy.notation import format_point
from strategies import bear_in_positions, dice, positions

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.filter_too_much])


def _t2_key(turn) -> tuple:
    return tuple((-s.src, s.dst) for s in turn.steps)


@SETTINGS
@given(position=positions(), roll=dice)
def test_turns_are_distinct_sorted_and_valid(backend, position, roll):
    turns = position.legal_turns(roll)
    if position.is_game_over():
        assert turns == []  # T4
        return
    assert turns, "T3: there is always at least the pass"
    keys = [_t2_key(t) for t in turns]
    assert keys == sorted(keys)  # T2
    assert len({t.position for t in turns}) == len(turns)  # T1
    for turn in turns:
        after = turn.position
        assert after.turn != position.turn
        # T7 holds after every turn: 15 checkers a side, no shared points, no forbidden block
        assert Position.from_string(after.to_string()) == after
        assert after.white_off >= position.white_off and after.black_off >= position.black_off
        if turn.is_pass():
            assert len(turns) == 1


@SETTINGS
@given(position=positions(), roll=dice)
def test_every_turn_replays_through_play_and_check_turn(backend, position, roll):
    turns = list(position.legal_turns(roll))
    if backend == "reference" and len(turns) > 16:
        # each pure-Python check_turn lists every turn again: 16 spread over the list (the
        # first and the last among them) keep this test at seconds, not minutes, where a
        # double has hundreds; the kernel's referee replays them all
        turns = [turns[i * (len(turns) - 1) // 15] for i in range(16)]
    for turn in turns:
        assert position.check_turn(roll, str(turn)) == turn
        assert position.check_turn(roll, [(s.src, s.dst) for s in turn.steps]) == turn
        assert position.play(str(turn), dice=roll) == turn.position
        try:  # the steps in another order: refused (a step breaks a rule) or the same turn
            again = position.check_turn(roll, list(reversed(turn.steps)))
        except IllegalTurnError:
            continue
        assert again == turn


@SETTINGS
@given(position=positions(), roll=dice, data=st.data())
def test_check_turn_accepts_exactly_the_legal_turns(backend, position, roll, data):
    legal = position.legal_turns(roll)
    n_steps = data.draw(st.integers(0, 4))
    steps = data.draw(st.lists(st.tuples(st.integers(1, 25), st.integers(0, 24)),
                               min_size=n_steps, max_size=n_steps))
    try:
        turn = position.check_turn(roll, steps)
    except IllegalTurnError as exc:
        assert exc.rule[0] in "LSTC" and str(exc).startswith(exc.rule + ": ")
        assert all(_t2_key(t) != tuple((-a, b) for a, b in steps) for t in legal)
    else:
        assert turn in legal


@SETTINGS
@given(position=positions())
def test_position_string_and_repr_round_trip(position):
    assert Position.from_string(position.to_string()) == position
    assert eval(repr(position), {"Position": Position}) == position
    assert hash(Position.from_string(position.to_string())) == hash(position)
    if position.rules.game == "short":
        again = Position.from_gnubg_id(position.gnubg_id(), position.rules, position.turn)
        assert again == position


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much])
@given(position=positions())
def test_pass_and_game_over_over_all_rolls(backend, position):
    for roll in ALL_ROLLS:
        turns = position.legal_turns(roll)
        assert (turns == []) == position.is_game_over()


def _as_paths(turn, join) -> list:
    """The turn written as each checker's path from/to (``24/13``, ``bar/21``), a step that
    starts where an earlier one ended (and did not hit) joined to it when ``join`` says so."""
    paths: list = []  # [src, dst, hit at dst]
    for step in turn.steps:
        ends = [p for p in paths if p[1] == step.src and not p[2]]
        if ends and join():
            ends[0][1:] = [step.dst, step.hit]
        else:
            paths.append([step.src, step.dst, step.hit])
    return [f"{format_point(src)}/{format_point(dst)}" for src, dst, _ in paths]


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much])
@given(position=st.one_of(positions(), bear_in_positions()),
       roll=st.one_of(dice, st.integers(1, 6).map(lambda d: (d, d))),
       rng=st.randoms(use_true_random=False))
def test_every_legal_turn_written_as_paths_is_accepted_T1(position, roll, rng):
    """T1: a legal turn written as each checker's from/to path, the paths in any order, is
    accepted and plays to the same position (checkers' steps may interleave: bar/21(2), S5;
    12/off 10/off, S7; a six-block passed through under every_step, L6)."""
    for turn in position.legal_turns(roll):
        paths = _as_paths(turn, lambda: rng.random() < 0.8)
        rng.shuffle(paths)
        written = " ".join(paths) if paths else "pass"
        assert position.check_turn(roll, written) == turn, written
