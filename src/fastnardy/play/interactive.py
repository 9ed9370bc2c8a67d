"""Games in the terminal (``fastnardy play``): self-play, or a person against a policy.

A **policy** chooses one of the legal turns (T1) for the side to move:

* ``random``: uniformly, with ``random.Random(seed)`` (the dice have their own generator,
  :class:`fastnardy.Game`'s);
* ``greedy``: the turn whose resulting position :func:`evaluate` scores best for the mover,
  the first in T2 order on a tie. It looks no further than its own turn. It is the policy
  that ``fastnardy.simulate(policy="greedy")`` plays inside the kernel (the same score and
  tie-break, compiled; tests/test_selfplay.py replays the kernel's games with this one).
* ``net`` or ``net:PLIES``: the shipped evaluator of the game
  (:meth:`fastnardy.search.network.Evaluator.load`), each turn's position valued by
  :func:`fastnardy.search.tree.expectimax` at PLIES (0, 1 or 2; deeper levels with the default
  :class:`fastnardy.search.tree.MoveFilter`), the first best in T2 order.

A person types a turn in notation (``24/18 18/13``), ``?`` for the numbered list of legal
turns (then a number picks one), ``h`` for a hint (the caller's ranking of the turns, e.g.
``fastnardy play --human`` prints the network's) or ``q`` to quit; end of input also quits.
A forced pass (T3) is played for them.
"""

from __future__ import annotations

import random
import sys
from typing import Any, Callable, Dict, Optional, Sequence

import numpy as np

from ..basics import Roll
from ..batch import encode
from ..errors import FastNardyError, IllegalTurnError, NotationError
from ..game import Game
from ..notation import format_roll
from ..position import Position, Turn
from .players import HALF, greedy_scores

Policy = Callable[[Position, Sequence[Turn]], Turn]
Hint = Callable[[Position, Roll], str]

POLICIES = ("random", "greedy", "net", "net:0", "net:1", "net:2")


def pips(points: Sequence[int], bar: int) -> int:
    """A side's pip count: the dice total it still needs to bear off, from its own numbering
    (a checker on point p needs p pips; the bar is point 25)."""
    return sum(point * count for point, count in enumerate(points, 1)) + 25 * bar


def evaluate(position: Position, side: str) -> int:
    """The greedy policy's score of ``position`` for ``side``, higher is better
    (:func:`fastnardy.play.players.greedy_scores` defines it)."""
    row = encode([position])  # the side to move's half first
    if side == position.turn:  # the score is of the row's second half
        row = np.concatenate([row[:, HALF:], row[:, :HALF]], axis=1)
    return int(greedy_scores(position.rules, row)[0])


def greedy(position: Position, turns: Sequence[Turn]) -> Turn:
    """The legal turn that :func:`evaluate` scores best for the mover (first on a tie)."""
    return max(turns, key=lambda turn: evaluate(turn.position, position.turn))


def policy(name: str, seed: Optional[int] = None) -> Policy:
    """The policy called ``name`` (``random`` seeded with ``seed``, ``greedy``, or
    ``net[:PLIES]``)."""
    if name == "greedy":
        return greedy
    if name == "random":
        rng = random.Random(seed)
        return lambda position, turns: turns[rng.randrange(len(turns))]
    if name in POLICIES and name.startswith("net"):
        return _network_policy(int(name[4:] or 0))
    raise FastNardyError(f"policy must be one of {', '.join(map(repr, POLICIES))}, "
                         f"not {name!r}")


def _network_policy(plies: int) -> Policy:
    """The shipped evaluator's choice: the turn whose position is best for the mover at
    ``plies`` (first in T2 order on a tie)."""
    from ..batch import encode
    from ..search.network import Evaluator
    from ..search.tree import GNUBG_FILTERS, expectimax

    loaded: Dict[str, Any] = {}

    def choose(position: Position, turns: Sequence[Turn]) -> Turn:
        game = position.rules.game
        if game not in loaded:
            loaded[game] = Evaluator.load(game)
        values = -expectimax(position.rules, encode([turn.position for turn in turns]),
                             loaded[game], plies, GNUBG_FILTERS[1:])
        return turns[int(values.argmax())]

    return choose


def play_game(game: Game, choose: Policy, *, human: Optional[str] = None,
              max_turns: Optional[int] = None, boards: bool = True,
              hint: Optional[Hint] = None) -> None:
    """Play ``game`` on, printing each turn (``7. black 6-5: 24/18 18/13``) and, with
    ``boards``, the board after it; the ``human`` side's turns are read from stdin and the
    others chosen by ``choose``; ``hint(position, roll)`` is what ``h`` prints. Stops when
    the game is over, after ``max_turns`` turns or when the person quits."""
    if game.opening is not None:
        white_die, black_die = game.opening
        print(f"opening throw: white {white_die}, black {black_die}; "
              f"{game.position.turn} moves first")
    if boards:
        print(game.position, end="\n\n")
    while not game.is_over() and (max_turns is None or len(game.history) < max_turns):
        side, roll, turns = game.position.turn, game.dice, game.legal_turns()
        assert roll is not None  # the game is not over
        if side == human and not turns[0].is_pass():  # T3: a forced pass needs no question
            answer = _ask(game.position, roll, turns, hint)
            if answer is None:
                print("quit")
                return
            turn = answer
        else:
            turn = choose(game.position, turns)
        played = game.play(turn)
        print(f"{len(game.history)}. {side} {format_roll(roll)}: {played}")
        if boards:
            print(game.position, end="\n\n")
    outcome = game.outcome()
    if outcome is None:
        count = len(game.history)
        print(f"stopped after {count} turn{'s' * (count != 1)}: {game.position.to_string()}")
    else:
        print(f"{outcome.winner} wins: {outcome.kind}, {outcome.points} "
              f"point{'s' * (outcome.points != 1)}")


def _ask(position: Position, roll: Roll, turns: Sequence[Turn],
         hint: Optional[Hint] = None) -> Optional[Turn]:
    """The person's turn, asked until it is legal; None when they quit."""
    keys = "? lists the legal turns, h a hint, q quits" if hint else \
        "? lists the legal turns, q quits"
    prompt = f"{position.turn} {format_roll(roll)} ({keys}): "
    while True:
        try:
            answer = input(prompt).strip()
        except EOFError:
            return None
        if not sys.stdin.isatty():  # echo piped input, so that the transcript reads as typed
            print(answer)
        if answer in ("q", "quit"):
            return None
        if answer == "h" and hint is not None:
            print(hint(position, roll))
        elif answer == "?":
            for number, turn in enumerate(turns, 1):
                print(f"{number:4}) {turn}")
        elif answer.isdigit() and 1 <= int(answer) <= len(turns):
            return turns[int(answer) - 1]
        elif answer:
            try:
                return position.check_turn(roll, answer)
            except IllegalTurnError as exc:
                print(f"illegal: {exc}")
            except NotationError as exc:
                print(f"cannot read: {exc}")
