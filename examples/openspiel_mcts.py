"""OpenSpiel's MCTS on fastnardy's OpenSpiel game, its leaves valued by rollouts in the
kernel: ``fastnardy.search.selfplay.playouts`` plays a batch of games from the leaf's
position in one kernel call, instead of one Python rollout through OpenSpiel states.

    python examples/openspiel_mcts.py [--game short] [--games 2] [--simulations 30]
                                      [--rollouts 16]

MCTS (30 simulations a move) plays white against a random player. Its evaluator is the
user's: a leaf's value is the mean points of ``--rollouts`` random games from the leaf's
position, its side to move rolling first (at a player node the roll already thrown is
ignored: a cheap estimate, as OpenSpiel's own random-rollout evaluator is).
"""

from __future__ import annotations

import argparse
from typing import Optional, Sequence

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

import fastnardy.envs.openspiel  # noqa: F401  (registers python_long_nardy, python_short_nardy)
from fastnardy.search.selfplay import playouts


class KernelRollouts(mcts.Evaluator):  # type: ignore[misc]
    """Leaf values from rollouts in the kernel, returns for (white, black)."""

    def __init__(self, n: int, seed: int) -> None:
        self.n = n
        self.seed = seed

    def evaluate(self, state):
        if state.is_terminal():
            return np.array(state.returns())
        position = state.position
        self.seed += 1
        result = playouts(position, self.n, "random", self.seed)
        value = result.mean if position.turn == "white" else -result.mean
        return np.array([value, -value])

    def prior(self, state):
        if state.is_chance_node():
            return state.chance_outcomes()
        actions = state.legal_actions()
        return [(action, 1.0 / len(actions)) for action in actions]


def play(game, bot, rng: np.random.Generator) -> float:
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probabilities)))
        elif state.current_player() == 0:
            state.apply_action(bot.step(state))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state.returns()[0]


def main(argv: Optional[Sequence[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="short", choices=["long", "short"])
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--simulations", type=int, default=30)
    parser.add_argument("--rollouts", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    game = pyspiel.load_game(f"python_{args.game}_nardy")
    bot = mcts.MCTSBot(game, 2, args.simulations, KernelRollouts(args.rollouts, args.seed),
                       random_state=np.random.RandomState(args.seed))
    rng = np.random.default_rng(args.seed)
    points = [play(game, bot, rng) for _ in range(args.games)]
    print(f"{args.game} nardy, MCTS ({args.simulations} simulations, {args.rollouts} kernel "
          f"rollouts a leaf) against random: {points} points for MCTS")


if __name__ == "__main__":
    main()
