"""Self-play from given positions and with evaluator policies (the kernel's GameBatch), and
playouts with common random numbers (fastnardy.search.selfplay.playouts)."""

from __future__ import annotations

import numpy as np
import pytest

from fastnardy import FastNardyError, Position, Rules, batch, simulate
from fastnardy.errors import IllegalTurnError, InvalidPositionError
from fastnardy.play.players import greedy_scores
from fastnardy.search.tree import evaluator
from fastnardy.search.selfplay import playouts


def greedy_as_evaluator(rules: Rules):
    """fastnardy.play's greedy score as an evaluator: a child's value to its side to move is
    minus the score of the side that chose it (greedy_scores, the greedy policy's one
    definition in Python: the score of a row's second half, the side that just moved)."""

    def value(rows: np.ndarray) -> np.ndarray:
        return -greedy_scores(rules, rows).astype(float)

    return evaluator(value, "rows")


@pytest.mark.parametrize("game", ["long", "short"])
def test_T2_L10_S9_evaluator_policy_of_greedy_plays_the_kernel_greedy_games(game):
    """An evaluator that scores as players.greedy_scores picks the same turns as the compiled greedy
    policy (ties: first in T2 order), so the games and their L10/S9 scores are equal."""
    rules = Rules.of(game)
    kernel = simulate(rules, 12, 5, "greedy", max_turns=400)
    scored = simulate(rules, 12, 5, greedy_as_evaluator(rules), max_turns=400)
    for left, right in zip(kernel, scored):
        assert (left == right).all()


@pytest.mark.parametrize("game", ["long", "short"])
def test_T1_simulate_from_positions_is_split_proof(game):
    rules = Rules.of(game)
    starts = [p for p in (Position.start(rules),)]
    for seed in (3, 4):
        position = Position.start(rules)
        for _ in range(6):
            turns = position.legal_turns((seed % 6 + 1, 2))
            position = position.play(turns[len(turns) // 2])
        starts.append(position)
    linear = evaluator(lambda f: f @ np.linspace(-1, 1, f.shape[1]), ("features", "raw"))
    for policy in ("random", ("greedy", "random"), (linear, "random"), linear):
        serial = simulate(rules, 4100, 9, policy, start=starts, max_turns=300) \
            if policy == "random" else simulate(rules, 300, 9, policy, start=starts)
        n = len(serial.winner)
        threads = simulate(rules, n, 9, policy, start=starts, workers=2,
                           max_turns=300 if policy == "random" else 10_000)
        for left, right in zip(serial, threads):
            assert (left == right).all()
        assert (serial.winner >= 0).mean() > 0.9


def test_T7_simulate_from_rows_and_keys_with_sides():
    rules = Rules.of("short")
    middle = Position.start(rules).play(Position.start(rules).legal_turns((6, 5))[0])
    rows = batch.encode([middle])
    keys = batch.encode([middle], keys=True)
    a = simulate(rules, 50, 1, "random", start=[middle])
    b = simulate(rules, 50, 1, "random", start=rows, turn=middle.turn)
    c = simulate(rules, 50, 1, "random", start=keys, turn=np.array([middle.turn == "black"]))
    for x, y, z in zip(a, b, c):
        assert (x == y).all() and (y == z).all()


def test_T7_bad_starts_are_refused():
    rules = Rules.of("long")
    with pytest.raises(InvalidPositionError):
        simulate(rules, 3, start=np.full((1, 50), 9, dtype=np.int8))
    with pytest.raises(InvalidPositionError):
        simulate(rules, 3, start=[Position.start("short")])
    with pytest.raises(InvalidPositionError):
        simulate(rules, 3, start=np.empty((0, 50), dtype=np.int8))
    with pytest.raises(FastNardyError):
        simulate(rules, 3, start=batch.encode([Position.start(rules)]), turn=np.array([2]))
    with pytest.raises(FastNardyError):
        simulate(rules, 3, policy=("greedy", 5))


def test_T5_common_random_numbers_the_same_dice_for_every_candidate():
    """Game j of every candidate draws the same rolls: two different starts on stream 0 of a
    GameBatch with external policies wait with the same roll, turn after turn."""
    from fastnardy import _kernel

    rules = Rules.of("short")
    start = Position.start(rules)
    children = [start.play(turn) for turn in start.legal_turns((3, 1))[:2]]
    games = _kernel.GameBatch(rules.code, False, True, 2, 11, (2, 2))
    games.start(np.arange(2), np.zeros(2, dtype=np.int64), batch.encode(children, keys=True),
                np.ones(2, dtype=np.int8))
    for _ in range(10):
        _, _, waiting, offsets = games.prepare()
        dice = games.state()[2]
        if len(waiting) < 2:
            break
        assert (dice[0] == dice[1]).all()
        games.play_choices(np.zeros(len(waiting), dtype=np.int64))


def test_L10_playouts_of_a_won_race_and_its_candidates():
    rules = Rules.of("long")
    # white bears off its last two checkers with any roll; black has none off: a mars
    white = [0] * 24
    white[0] = 2
    position = Position.from_points(rules, white, Position.start(rules).black_points, "white")
    result = playouts(position, 20, "random", seed=1)
    assert result.mean == 2.0 and result.stderr == 0.0  # L10: mars, black has none off
    per_turn = playouts(position, 20, "random", seed=1, dice=(6, 5))
    assert len(per_turn.turns) == len(position.legal_turns((6, 5)))
    assert (per_turn.mean == 2.0).all()


def test_T4_playouts_refuses_a_finished_game_and_bad_input():
    with pytest.raises(InvalidPositionError):
        playouts("start", 3)  # type: ignore[arg-type]
    with pytest.raises(FastNardyError):
        playouts(Position.start("long"), 0)


def test_T1_playouts_with_crn_reduces_the_noise_of_differences():
    """The paired difference of two candidates has a smaller spread than their independent
    difference would (common random numbers): a property of the streams, not of timing."""
    position = Position.start("short")
    result = playouts(position, 400, "greedy", seed=2, dice=(3, 1))
    a, b = result.equities[0], result.equities[1]
    assert np.var(a - b) < np.var(a) + np.var(b)
    again = playouts(position, 400, "greedy", seed=2, dice=(3, 1), workers=2)
    assert (again.equities == result.equities).all()


def test_T1_start_drops_the_children_of_the_last_prepare():
    """A choice cannot reach a game begun again after the prepare that listed its children."""
    from fastnardy import _kernel

    rules = Rules.of("long")
    games = _kernel.GameBatch(rules.code, False, False, 2, 1, (2, 2))
    games.start(np.arange(2), np.arange(2))
    _, _, waiting, _ = games.prepare()
    assert len(waiting) == 2
    games.start(np.array([0]), np.array([5]))
    with pytest.raises(FastNardyError):
        games.play_choices(np.zeros(2, dtype=np.int64))
    _, _, waiting, _ = games.prepare()
    assert list(waiting) == [0, 1]
