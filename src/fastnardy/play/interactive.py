"""Games in the terminal (``fastnardy play``): self-play, or a person against a player.

The computer is a :class:`~fastnardy.play.players.Player` of any setting (``random``,
``greedy``, ``net:2``, ``gnubg:expert`` …: :func:`fastnardy.play.players.player`), the same
choice as at every other door: its turn is :meth:`~fastnardy.play.players.Player.turn`.

A person types a turn in notation (``24/18 18/13``), ``?`` for the numbered list of legal
turns, ``h`` for a hint (the best turns by the caller's evaluation setting, numbered: the
hint's 1 is its best turn), a number for that entry of the list shown last, or ``q`` to
quit; end of input also quits. A forced pass (T3) is played for them.

With the cube (``fastnardy play --cube``: C1-C5, C8, money play), the side to move may offer
before it throws. A person is asked first (``d`` offers, Enter throws) and answers an offer
with ``t`` (take) or ``p`` (pass, dropping the game, C2); there ``h`` prints the cube
decision of the hint's setting (:func:`fastnardy.analysis.evaluation.cube_decision`). The
computer offers and answers by its player's cube decision
(:meth:`~fastnardy.play.players.Player.cube_equities`; a player without one never offers and
always takes).

Each board is followed by its position string (every command's POSITION reads it back), in
short nardy GNU Backgammon's Position ID, and with the cube the stake and who holds the
cube. A finished game ends with a summary: the winner, the points and how they were
won (L10, S9, C2, C9), the stake and the turns played.
"""

from __future__ import annotations

import sys
from typing import Callable, List, Optional, Sequence

from ..analysis.evaluation import cube_decision, hint as ranked
from ..basics import BLACK, WHITE, Roll
from ..batch import encode
from ..errors import IllegalTurnError, NotationError
from ..game import Game, next_stake
from ..notation import format_roll
from ..position import Turn
from ..rules import SHORT
from ..search.cubeful import Cube
from ..search.setting import Setting
from .players import Player

__all__ = ["HINTED", "play_game"]

HINTED = 5
"""The turns a hint lists, best first."""

_SHORT_KINDS = {"oin": "oin (a single game)", "mars": "mars (a gammon)"}
"""Short nardy's words for its wins (S9), with backgammon's beside them."""


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
              hint: Optional[Setting] = None, cube: bool = False) -> None:
    """Play ``game`` on, printing each turn (``7. black 6-5: 24/18 18/13``) and, with
    ``boards``, the board after it; the ``human`` side's turns are read from stdin and the
    others are the ``computer``'s; ``hint`` is the setting whose advice ``h`` prints (None:
    no hint). With ``cube``, offers before each throw (module docstring). Stops when the
    game is over (with its summary), after ``max_turns`` turns or when the person quits."""
    if game.opening is not None:
        white_die, black_die = game.opening
        print(f"opening throw: white {white_die}, black {black_die}; "
              f"{game.position.turn} moves first")
    if boards:
        _board(game, cube)
    while not game.is_over() and (max_turns is None or len(game.history) < max_turns):
        if cube and game.may_offer():
            if _offer(game, human, computer, hint) is None:
                print("quit")
                return
            if game.is_over():
                break
        side, roll, turns = game.position.turn, game.dice, game.legal_turns()
        assert roll is not None  # the game is not over
        if side == human and not turns[0].is_pass():  # T3: a forced pass needs no question
            answer = _ask(game, roll, turns, hint, cube)
            if answer is None:
                print("quit")
                return
            turn = answer
        else:
            turn = computer.turn(game.position, roll, Cube.of_game(game) if cube else None)
        played = game.play(turn)
        print(f"{len(game.history)}. {side} {format_roll(roll)}: {played}")
        if boards:
            _board(game, cube)
    if game.is_over():
        print(_summary(game))
    else:
        count = len(game.history)
        print(f"stopped after {count} turn{'s' * (count != 1)}: {game.position.to_string()}")


def _board(game: Game, cube: bool) -> None:
    """The board, its position string (and Position ID in short nardy) and, with the cube,
    the stake and its holder."""
    position = game.position
    print(position)
    line = f"position: {position.to_string()}"
    if position.rules.game == SHORT:
        line += f"   GNU Backgammon Position ID: {position.gnubg_id()}"
    print(line)
    if cube:
        owner = game.cube_owner
        print(f"stake {game.stake}, " + ("the cube is centred" if owner is None else
                                         f"{owner} holds the cube"))
    print()


def _summary(game: Game) -> str:
    """A finished game in a line: the turns played, the winner, the points and how."""
    outcome = game.outcome()
    assert outcome is not None  # the game is over
    loser = BLACK if outcome.winner == WHITE else WHITE
    if outcome.kind == "drop":
        how = f"{loser} passed the offer"
    elif game.rules.scoring == "checkers_left":
        how = f"{outcome.points // game.stake} of {loser}'s checkers left"
    else:
        how = _SHORT_KINDS.get(outcome.kind, outcome.kind) if game.rules.game == SHORT \
            else outcome.kind
    if game.stake != 1:
        how += f" at stake {game.stake}"
    count = len(game.history)
    return (f"game over after {count} turn{'s' * (count != 1)}: {outcome.winner} wins "
            f"{outcome.points} point{'s' * (outcome.points != 1)}, {how}")


def _cube_advice(game: Game, hint: Setting, answering: bool) -> str:
    """The hint at a cube prompt: the decision of ``hint``'s setting, for the side to move
    before its offer or, ``answering``, for the other side to answer it, best first."""
    seen = cube_decision(game.position, Cube.of_game(game), hint)
    if answering:
        to = BLACK if game.position.turn == WHITE else WHITE
        choices = [("take", -seen.double_take), ("pass", -seen.double_pass)]
    else:
        to = game.position.turn
        choices = [("no double", seen.no_double), ("double, take", seen.double_take),
                   ("double, pass", seen.double_pass)]
    lines = [f"{hint} on {game.position.turn}'s cube: {seen.action}; {to}'s equity, "
             f"normalised to the stake, best first:"]
    lines += [f"  {name:<13}{value:+.3f}"
              for name, value in sorted(choices, key=lambda choice: -choice[1])]
    return "\n".join(lines)


def _offer(game: Game, human: Optional[str], computer: Player,
           hint: Optional[Setting]) -> Optional[bool]:
    """The side to move's offer and its answer (C2), asked of the person or decided by the
    computer; whether an offer was made, None when the person quits."""
    side = game.position.turn
    other = BLACK if side == WHITE else WHITE
    keys = ", h a hint" if hint is not None else ""
    if side == human:
        answer = _read(f"{side}, the game is for {game.stake} (d offers it for "
                       f"{next_stake(game.rules, game.stake)}, Enter throws{keys}): ",
                       ("d", ""), None if hint is None else
                       lambda: _cube_advice(game, hint, answering=False))
        if answer != "d":
            return None if answer is None else False
    elif not _cube_choice(computer, game)[0]:
        return False
    print(f"{side} offers: the game for {game.offer()}")
    if other == human:
        answer = _read(f"{other}, t takes, p passes{keys}: ", ("t", "p"),
                       None if hint is None else
                       lambda: _cube_advice(game, hint, answering=True))
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


def _read(prompt: str, allowed: Sequence[str], advice: Optional[Callable[[], str]]
          ) -> Optional[str]:
    """One of ``allowed`` read from stdin, asked until it is; ``h`` prints ``advice()``
    when there is one; None at q or end of input."""
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
        if answer == "h" and advice is not None:
            print(advice())


def _ask(game: Game, roll: Roll, turns: Sequence[Turn], hint: Optional[Setting],
         cube: bool) -> Optional[Turn]:
    """The person's turn, asked until it is legal; None when they quit. A number picks from
    the list shown last: ``?``'s legal turns or the hint's best."""
    position = game.position
    keys = "? lists the turns, h hints, a number picks from the list shown, q quits" if hint \
        else "? lists the turns, a number picks from it, q quits"
    prompt = f"{position.turn} {format_roll(roll)} ({keys}): "
    shown: List[Turn] = []
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
            best = ranked(position, roll, hint, cube=Cube.of_game(game) if cube else None)
            shown = [candidate.turn for candidate in best[:HINTED]]
            print(f"the best {len(shown)} of {len(best)} turns by {hint} "
                  f"({'cubeless' if best.cube is None else 'cubeful'} equity):")
            for number, candidate in enumerate(best[:HINTED], 1):
                value = candidate.equity if candidate.cubeful is None else candidate.cubeful
                print(f"{number:4}) {str(candidate.turn):<28} {value:+.3f}")
        elif answer == "?":
            shown = list(turns)
            for number, turn in enumerate(shown, 1):
                print(f"{number:4}) {turn}")
        elif answer.isdigit():
            if 1 <= int(answer) <= len(shown):
                return shown[int(answer) - 1]
            print(f"a number picks from the list shown last: 1 to {len(shown)}" if shown else
                  "no list yet: ? lists the legal turns" + (", h the hint's best" if hint
                                                            else ""))
        elif answer:
            try:
                return position.check_turn(roll, answer)
            except IllegalTurnError as exc:
                print(f"illegal: {exc}")
            except NotationError as exc:
                print(f"cannot read: {exc}")
