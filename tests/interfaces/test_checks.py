"""One check for each kind of argument (fastnardy.checks, and the kernel's dice parser): every
entry point taking that kind of argument refuses a bad one with the same message."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import fastnardy
from fastnardy import (FastNardyError, Game, InvalidDiceError, InvalidPositionError, Position,
                       batch, reference, simulate)


def _message(call) -> str:
    with pytest.raises(FastNardyError) as info:
        call()
    return str(info.value)


def test_depth_one_message_for_both_backends_and_perft_divide():
    start = Position.start("short")
    me, me_bar, opp, opp_bar = start.mover_frame()
    messages = {_message(lambda: fastnardy.perft(start, 65)),
                _message(lambda: fastnardy.perft(start, -1, backend="reference")),
                _message(lambda: fastnardy.perft_divide(start, 99)),
                _message(lambda: reference.perft_count(start.rules.code, me, me_bar, opp,
                                                       opp_bar, 65))}
    assert messages == {f"depth must be an integer between 0 and 64, not {depth}"
                        for depth in (65, -1, 99)}


def test_workers_one_message_for_perft_and_simulate():
    start = Position.start("long")
    for workers in (0, "2", 1.5):
        assert _message(lambda: fastnardy.perft(start, 1, workers=workers)) == _message(
            lambda: simulate("long", 1, workers=workers))


def test_side_one_message_for_position_and_batch():
    start = Position.start("long")
    rows = batch.encode([start])
    for side in ("White", None, 0):
        with pytest.raises(InvalidPositionError) as a:
            Position.from_points("long", start.white_points, start.black_points, side)
        with pytest.raises(InvalidPositionError) as b:
            batch.decode("long", rows, side)
        assert str(a.value) == str(b.value) == f"turn must be 'white' or 'black', not {side!r}"


def test_dice_one_parser_for_positions_games_and_the_twin():
    start, game = Position.start("short"), Game("short", seed=1)
    for make in (lambda: (0, 3), lambda: (1, 7), lambda: (True, 2), lambda: "65",
                 lambda: (1, 2, 3), lambda: np.array([6])):
        with pytest.raises(InvalidDiceError) as position:
            start.legal_turns(make())
        with pytest.raises(InvalidDiceError) as played:
            game.dice = make()
        assert str(position.value) == str(played.value)
    with pytest.raises(InvalidDiceError, match=r"not \(1, 2, 3\)"):  # read no further
        game.dice = itertools.count(1)
    me, me_bar, opp, opp_bar = start.mover_frame()
    with pytest.raises(InvalidDiceError) as twin:
        reference.enumerate_turns(start.rules.code, me, me_bar, opp, opp_bar, 1, 7)
    with pytest.raises(InvalidDiceError) as kernel:
        start.legal_turns((1, 7))
    assert str(twin.value) == str(kernel.value)


def test_checker_counts_one_message_for_position_and_the_twin():
    start = Position.start("long")
    points = list(start.white_points)
    points[0] = 16
    with pytest.raises(InvalidPositionError) as position:
        Position.from_points("long", points, start.black_points)
    with pytest.raises(InvalidPositionError) as twin:
        reference.enumerate_turns(start.rules.code, points, 0, start.black_points, 0, 1, 2)
    assert str(position.value) == "white[0] must be an integer between 0 and 15, not 16"
    assert str(twin.value) == "side to move[0] must be an integer between 0 and 15, not 16"
