"""fastnardy.simulate: self-play in the kernel, checked against the same games replayed
through the Python API (T6 opening, T2 order, L9/L10/S9 scoring), and deterministic for a
seed however it is split."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest

from fastnardy import FastNardyError, Position, Rules, simulate
from fastnardy.play.players import Greedy
from fastnardy.search.selfplay import KINDS

MASK = (1 << 64) - 1
GREEDY = Greedy()  # the player of the setting "greedy", at every door


class SplitMix:
    """The kernel's random stream (splitmix64, multiply-shift for a number below n)."""

    def __init__(self, state: int):
        self.state = state & MASK

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        return ((self.next() >> 32) * n) >> 32


def replay_random_game(rules: Rules, seed: int, index: int,
                       policy: tuple = ("random", "random")) -> tuple:
    """Game ``index`` of ``simulate(rules, ..., seed, policy)``, played with
    Position.legal_turns and, for a greedy side, fastnardy.play.players.Greedy (which draws
    nothing from the stream, as in the kernel): (winner, points, kind, turns)."""
    base = SplitMix(seed).next()
    rng = SplitMix(base ^ ((index * 0xD6E8FEB86659FD93) & MASK))  # the dice
    pick = SplitMix(rng.state ^ 0x5851F42D4C957F2D)  # the random policy's choices, apart
    pick.next()
    d1 = d2 = 0
    while d1 == d2:  # T6
        d1, d2 = 1 + rng.below(6), 1 + rng.below(6)
    position = Position.start(rules)
    turn = "white" if d1 > d2 else "black"
    position = Position.from_points(rules, position.white_points, position.black_points, turn)
    if rules.game == "long":
        d1, d2 = 1 + rng.below(6), 1 + rng.below(6)
    turns = 0
    while True:
        legal = position.legal_turns((d1, d2))
        if policy[position.turn == "black"] == "greedy":
            choice = GREEDY.turn(position, (d1, d2))
        else:
            choice = legal[pick.below(len(legal)) if len(legal) > 1 else 0]
        position = position.play(choice)
        turns += 1
        outcome = position.outcome()
        if outcome is not None:
            return (0 if outcome.winner == "white" else 1, outcome.points,
                    KINDS.index(outcome.kind), turns)
        d1, d2 = 1 + rng.below(6), 1 + rng.below(6)


@pytest.mark.parametrize("rules", [Rules.long(), Rules.long(scoring="oin_mars_koks", head_rule="blocked"),
                                   Rules.long(block_check="turn_end"), Rules.short(),
                                   Rules.short(hit_and_hide="forbidden"),
                                   Rules.short(backgammon=False)], ids=repr)
def test_L9_L10_S9_kernel_games_replay_through_the_python_api(rules):
    run = simulate(rules, 6, seed=11)
    for i in range(6):
        assert replay_random_game(rules, 11, i) == (run.winner[i], run.points[i], run.kind[i],
                                                    run.turns[i])


@pytest.mark.parametrize("policy", [("greedy", "greedy"), ("greedy", "random"),
                                    ("random", "greedy")], ids="-".join)
@pytest.mark.parametrize("rules", [Rules.long(), Rules.long(head_rule="tournament"),
                                   Rules.short(), Rules.short(hit_and_hide="forbidden")],
                         ids=repr)
def test_one_greedy_policy_the_kernels_games_replay_with_play_greedy(rules, policy):
    """simulate(policy="greedy") and ``fastnardy play --player greedy`` choose the same turn
    at every position of these games: the kernel's choices are seen through the games they
    make (the dice never depend on a choice; a random side's draw depends on the number of
    legal turns), so one differing choice would change the game that follows."""
    run = simulate(rules, 8, seed=17, policy=policy)
    for i in range(8):
        assert replay_random_game(rules, 17, i, policy) == (
            run.winner[i], run.points[i], run.kind[i], run.turns[i])


@pytest.mark.parametrize("rules", [Rules.long(scoring="oin_mars_koks"), Rules.long(),
                                   Rules.short(), Rules.short(backgammon=False)], ids=repr)
def test_L10_S9_the_kernels_scoring_is_position_outcome_on_every_game_of_a_run(rules):
    """Every finished game of a run: the kernel's winner, points and kind are those of
    Position.outcome on the game's last position, rebuilt by replaying the game. The random
    and greedy policies together reach every kind of win."""
    kinds = set()
    for policy in (("random", "random"), ("greedy", "random")):
        run = simulate(rules, 30, seed=23, policy=policy)
        assert (run.winner >= 0).all()  # every game of the run is finished
        for i in range(30):
            replayed = replay_random_game(rules, 23, i, policy)
            assert replayed[:3] == (run.winner[i], run.points[i], run.kind[i])
            kinds.add(KINDS[replayed[2]])
    expected = {"long": {"oin", "mars", "koks"} if rules.scoring == "oin_mars_koks"
                else {"oin", "mars"},
                "short": {"oin", "mars", "backgammon"} if rules.backgammon else {"oin", "mars"}}
    assert kinds == expected[rules.game]


def test_a_run_is_the_same_however_it_is_split():
    serial = simulate("short", 4100, seed=3)
    threaded = simulate("short", 4100, seed=3, workers=2)
    assert all(np.array_equal(a, b) for a, b in zip(serial, threaded))
    head = simulate("short", 50, seed=3)
    assert all(np.array_equal(a[:50], b) for a, b in zip(serial, head))
    with ProcessPoolExecutor(2) as pool:
        other = simulate("long", 2500, seed=5, policy=("greedy", "random"), executor=pool)
    assert all(np.array_equal(a, b) for a, b in
               zip(other, simulate("long", 2500, seed=5, policy=("greedy", "random"))))
    assert not all(np.array_equal(a, b) for a, b in zip(serial, simulate("short", 4100, seed=4)))


@pytest.mark.parametrize("game", ["long", "short"])
def test_results_are_consistent(game):
    run = simulate(game, 2000, seed=1, policy="greedy")
    assert run.winner.dtype == np.int8 and run.turns.dtype == np.int32
    assert set(np.unique(run.winner)) <= {0, 1} and (run.turns > 0).all()
    points_of_kind = np.array([1, 2, 3, 3, 0])[run.kind]
    assert np.array_equal(run.points, points_of_kind)
    summary = run.summary()
    assert summary["games"] == 2000 and 0.3 < summary["white wins"] < 0.7
    if game == "long":
        assert summary["backgammon"] == 0 and summary["koks"] == 0  # default scoring: no koks


def test_greedy_beats_random():
    assert simulate("short", 400, seed=9, policy=("greedy", "random")).summary()["white wins"] > 0.9
    assert simulate("long", 400, seed=9, policy=("random", "greedy")).summary()["white wins"] < 0.4


def test_a_dask_cluster_plays_the_same_games():
    distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed "
                                      "(pip install 'dask[distributed]')")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        run = simulate("short", 4500, seed=21, executor=client.get_executor())
        again = simulate("short", 4500, seed=21, executor=client)  # the Client: its executor
    serial = simulate("short", 4500, seed=21)
    assert all(np.array_equal(a, b) for a, b in zip(run, serial))
    assert all(np.array_equal(a, b) for a, b in zip(again, serial))


def test_max_turns_leaves_a_game_unfinished():
    run = simulate("short", 20, seed=2, max_turns=5)
    assert (run.winner == -1).all() and (run.kind == KINDS.index("unfinished")).all()
    assert (run.turns == 5).all() and (run.points == 0).all()


@pytest.mark.parametrize("game", ["long", "short"])
def test_a_networks_setting_plays_its_network_in_the_games_precision(game):
    """A policy may be a setting of 0 ply, as every door reads it: ``net`` is the game's
    shipped network in its NET_PRECISION (int16 in short nardy), the very games of that
    Evaluator; ``net:float`` the float one; a search deeper than 0 ply or another engine is
    refused by name."""
    from fastnardy.search.network import Evaluator
    from fastnardy.search.setting import NET_PRECISION, Setting

    for text, precision in (("net", NET_PRECISION[game]), ("net:0:float", "float"),
                            (Setting(precision="int16"), "int16")):
        by_setting = simulate(game, 60, seed=4, policy=text)
        by_network = simulate(game, 60, seed=4, policy=Evaluator.load(game, precision))
        assert all(np.array_equal(a, b) for a, b in zip(by_setting, by_network))
    mixed = simulate(game, 20, seed=4, policy=("net", "greedy"))
    assert np.array_equal(mixed.winner, simulate(game, 20, seed=4, policy=(
        Evaluator.load(game, NET_PRECISION[game]), "greedy")).winner)
    for bad, named in (("net:1", "not net:1"), ("gnubg", "not gnubg:expert"),
                       ("bgsage:0", "not bgsage")):
        with pytest.raises(FastNardyError, match=named):
            simulate(game, 2, policy=bad)


@pytest.mark.parametrize("kwargs", [
    {"n_games": -1}, {"n_games": 1.5}, {"seed": -2}, {"seed": "x"}, {"policy": "smart"},
    {"policy": ("random",)}, {"policy": None}, {"workers": 0}, {"executor": "pool"},
    {"max_turns": 0}, {"workers": 2, "executor": ProcessPoolExecutor(1)},
])
def test_bad_arguments_are_clean_errors(kwargs):
    args = {"n_games": 3, **kwargs}
    with pytest.raises(FastNardyError):
        simulate("long", **args)
