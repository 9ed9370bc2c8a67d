"""Games in the terminal (``fastnardy play``): self-play, or a person against a player.

The computer is a :class:`~fastnardy.play.players.Player` of any setting (``random``,
``greedy``, ``net:2``, ``gnubg:expert`` …: :func:`fastnardy.play.players.player`), the same
choice as at every other door: its turn is :meth:`~fastnardy.play.players.Player.turn`.

A person types a turn in notation (``24/18 18/13``), ``?`` for the numbered list of legal
turns (then a number picks one), ``h`` for a hint (the caller's ranking of the turns, e.g.
``fastnardy play --human`` prints the network's) or ``q`` to quit; end of input also quits.
A forced pass (T3) is played for them.

With the cube (``fastnardy play --cube``: C1-C5, C8, money play), the side to move may offer
before it throws. A person is asked first (``d`` offers, Enter throws) and answers an offer
with ``t`` (take) or ``p`` (pass, dropping the game, C2); the computer offers and answers by
its player's cube decision (:meth:`~fastnardy.play.players.Player.cube_equities`; a player
without one never offers and always takes).
"""

from __future__ import annotations

import sys
from typing import Callable, Optional, Sequence

from ..basics import BLACK, WHITE, Roll
from ..batch import encode
from ..errors import IllegalTurnError, NotationError
from ..game import Game, next_stake
from ..notation import format_roll
from ..position import Position, Turn
from ..search.cubeful import Cube
from .players import Player

__all__ = ["play_game"]

Hint = Callable[[Position, Roll], str]


def _cube_choice(player: Player, game: Game) -> "tuple[bool, bool]":
    """The computer's cube for ``game``'s side to move: whether it should offer (double,
    take and double, pass both at least no double) and whether the other should take; a
    player without a cube never offers and always takes."""
    seen = player.cube_equities(game.rules, encode([game.position]), [Cube.of_game(game)])
    if seen is None:
        return False, True
    no_double, take, drop = (float(v) for v in seen[0])
    return take >= no_double and drop >= no_double, take <= drop


def play_game(game: Game, computer: Player, *, human: Optional[str] = None,
              max_turns: Optional[int] = None, boards: bool = True,
              hint: Optional[Hint] = None, cube: bool = False) -> None:
    """Play ``game`` on, printing each turn (``7. black 6-5: 24/18 18/13``) and, with
    ``boards``, the board after it; the ``human`` side's turns are read from stdin and the
    others are the ``computer``'s; ``hint(position, roll)`` is what ``h`` prints. With
    ``cube``, offers before each throw (module docstring). Stops when the game is over,
    after ``max_turns`` turns or when the person quits."""
    if game.opening is not None:
        white_die, black_die = game.opening
        print(f"opening throw: white {white_die}, black {black_die}; "
              f"{game.position.turn} moves first")
    if boards:
        print(game.position, end="\n\n")
    while not game.is_over() and (max_turns is None or len(game.history) < max_turns):
        if cube and game.may_offer():
            if _offer(game, human, computer) is None:
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
            turn = computer.turn(game.position, roll, Cube.of_game(game) if cube else None)
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


def _offer(game: Game, human: Optional[str], computer: Player) -> Optional[bool]:
    """The side to move's offer and its answer (C2), asked of the person or decided by the
    computer; whether an offer was made, None when the person quits."""
    side = game.position.turn
    other = BLACK if side == WHITE else WHITE
    if side == human:
        answer = _read(f"{side}, the game is for {game.stake} (d offers it for "
                       f"{next_stake(game.rules, game.stake)}, Enter throws): ", ("d", ""))
        if answer != "d":
            return None if answer is None else False
    elif not _cube_choice(computer, game)[0]:
        return False
    print(f"{side} offers: the game for {game.offer()}")
    if other == human:
        answer = _read(f"{other}, t takes, p passes: ", ("t", "p"))
        if answer is None:
            return None
        takes = answer == "t"
    else:
        takes = _cube_choice(computer, game)[1]
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
