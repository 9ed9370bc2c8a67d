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

With the cube (``fastnardy play --cube``: C1-C5, C8, money play), the side to move may offer
before it throws. A person is asked first (``d`` offers, Enter throws) and answers an offer
with ``t`` (take) or ``p`` (pass, dropping the game, C2); ``net`` policies offer and answer
by the cube decision of the shipped network at 0 ply (:func:`net_cube`), the others never
offer and always take.
"""

from __future__ import annotations

import random
import sys
from typing import Any, Callable, Dict, Optional, Sequence, Tuple

import numpy as np

from ..basics import BLACK, WHITE, Roll
from ..batch import encode
from ..errors import FastNardyError, IllegalTurnError, NotationError
from ..game import Game, next_stake
from ..notation import format_roll
from ..position import Position, Turn
from .players import HALF, greedy_scores

Policy = Callable[[Position, Sequence[Turn]], Turn]
Hint = Callable[[Position, Roll], str]
# a computer's cube: (whether the side to move should offer, whether the other should take)
CubeChoice = Callable[[Game], Tuple[bool, bool]]

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


def net_cube(game: Game) -> Tuple[bool, bool]:
    """The shipped network's cube decision for ``game``'s side to move at 0 ply
    (:func:`fastnardy.analysis.cube.cube_action`): whether it should offer (double, take and
    double, pass both at least no double) and whether the other side should take."""
    from ..analysis.cube import Cube, cube_action, efficiency
    from ..analysis.evaluation import probabilities

    position = game.position
    decision = cube_action(probabilities(position), efficiency(position),
                           cube=Cube.of_game(game))
    double = decision.double_take >= decision.no_double and \
        decision.double_pass >= decision.no_double
    return double, bool(decision.double_take <= decision.double_pass)


def play_game(game: Game, choose: Policy, *, human: Optional[str] = None,
              max_turns: Optional[int] = None, boards: bool = True,
              hint: Optional[Hint] = None, cube: bool = False,
              cube_choice: Optional[CubeChoice] = None) -> None:
    """Play ``game`` on, printing each turn (``7. black 6-5: 24/18 18/13``) and, with
    ``boards``, the board after it; the ``human`` side's turns are read from stdin and the
    others chosen by ``choose``; ``hint(position, roll)`` is what ``h`` prints. With
    ``cube``, offers before each throw (module docstring): the computer's by ``cube_choice``
    (none: it never offers and always takes). Stops when the game is over, after
    ``max_turns`` turns or when the person quits."""
    if game.opening is not None:
        white_die, black_die = game.opening
        print(f"opening throw: white {white_die}, black {black_die}; "
              f"{game.position.turn} moves first")
    if boards:
        print(game.position, end="\n\n")
    while not game.is_over() and (max_turns is None or len(game.history) < max_turns):
        if cube and game.may_offer():
            if _offer(game, human, cube_choice) is None:
                print("quit")
                return
            if game.is_over():
                break
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


def _offer(game: Game, human: Optional[str], cube_choice: Optional[CubeChoice]
           ) -> Optional[bool]:
    """The side to move's offer and its answer (C2), asked of the person or decided by the
    computer; whether an offer was made, None when the person quits."""
    side = game.position.turn
    other = BLACK if side == WHITE else WHITE
    if side == human:
        answer = _read(f"{side}, the game is for {game.stake} (d offers it for "
                       f"{next_stake(game.rules, game.stake)}, Enter throws): ", ("d", ""))
        if answer != "d":
            return None if answer is None else False
    elif cube_choice is None or not cube_choice(game)[0]:
        return False
    print(f"{side} offers: the game for {game.offer()}")
    if other == human:
        answer = _read(f"{other}, t takes, p passes: ", ("t", "p"))
        if answer is None:
            return None
        takes = answer == "t"
    else:
        takes = cube_choice is None or cube_choice(game)[1]
    if takes:
        print(f"{other} takes: the game is played for {game.take()}")
    else:
        game.drop()
        print(f"{other} passes")
    return True


def _read(prompt: str, allowed: Sequence[str]) -> Optional[str]:
    """One of ``allowed`` read from stdin, asked until it is; None at q or end of input."""
    while True:
        try:
            answer = input(prompt).strip().lower()
        except EOFError:
            return None
        if not sys.stdin.isatty():
            print(answer)
        if answer in ("q", "quit"):
            return None
        if answer in allowed:
            return answer


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
