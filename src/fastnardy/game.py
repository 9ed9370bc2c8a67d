"""A game in progress, for people and scripts: dice, turns, undo, records.

``Game(rules, seed)`` starts from the start position with the T6 opening throw: each side
throws one die, ties are thrown again, and the higher die moves first; in short nardy the first
player plays those two numbers, in long nardy it then throws both dice.

**Dice.** The roll of the side to move is thrown lazily, from the game's dice stream (stream 0
of ``seed``: :class:`fastnardy.basics.DiceStream`, the dice the kernel's self-play and
environments throw for their game 0 of the same seed; a fresh random seed when ``seed`` is
None), when it is first needed: reading :attr:`Game.dice`, :meth:`Game.legal_turns` or
:meth:`Game.play`. A caller may set the dice instead (``game.dice = (6, 5)``: physical dice, a
replayed record); setting them before they are thrown leaves the generator untouched, and
setting them after replaces the thrown roll. After a turn the next roll is thrown when needed,
unless the game is over. Short nardy's first roll is the opening throw and cannot be set to
other numbers (T6).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from itertools import islice
from typing import List, Optional, Sequence, Tuple, Union

from . import checks, notation
from ._kernel import dice_pair
from .basics import DiceStream, Roll
from .errors import (FastNardyError, IllegalTurnError, InvalidDiceError, InvalidRecordError,
                     NotationError)
from .position import Outcome, Position, Turn
from .record import GameRecord, RecordedTurn, check_name, read_record, write_record
from .rules import Rules


__all__ = ["Game"]


def _roll(dice: object) -> Roll:
    """Two dice as a tuple of ints 1-6 (the kernel's parser, InvalidDiceError otherwise); an
    iterator is read no further than a third item, so that an endless one is refused."""
    return dice_pair(tuple(islice(dice, 3)) if isinstance(dice, Iterator) else dice)


def _stream(seed: object) -> DiceStream:
    if seed is None:
        return DiceStream(secrets.randbits(64))
    return DiceStream(checks.number(seed, "seed", 0))


class Game:
    """A mutable game of long or short nardy: the position, the dice and the turns played.

    ``history`` holds ``(roll, Turn)`` pairs, the roll high die first as records print it,
    the Turn being the legal turn played (its ``str()`` is the T2 notation, its ``position``
    the position after it).
    """

    def __init__(self, rules: object = "long", seed: Optional[int] = None, *,
                 players: Tuple[str, str] = ("white", "black"),
                 opening: Optional[Sequence[int]] = None):
        """A new game from the start position (L1, S1) after the T6 opening throw: thrown with
        the generator, or ``opening=(white's die, black's die)`` when thrown by the caller."""
        self._stream = _stream(seed)
        if opening is None:
            white_die, black_die = self._stream.opening()
        else:
            white_die, black_die = _roll(opening)
        position, first_dice = Position.opening(rules, white_die, black_die)
        self._begin(position, players, (white_die, black_die), first_dice)

    @classmethod
    def from_position(cls, position: Position, seed: Optional[int] = None, *,
                      players: Tuple[str, str] = ("white", "black")) -> "Game":
        """A game from a set position, with its side to move (T6 is skipped)."""
        if not isinstance(position, Position):
            raise FastNardyError(f"position must be a Position, not {position!r}")
        game = cls.__new__(cls)
        game._stream = _stream(seed)
        game._begin(position, players, None, None)
        return game

    def _begin(self, position: Position, players: Tuple[str, str], opening: Optional[Roll],
               dice: Optional[Roll]) -> None:
        if not (isinstance(players, tuple) and len(players) == 2):
            raise FastNardyError(f"players must be a (white, black) pair of names, "
                                 f"not {players!r}")
        self._players = (check_name(players[0]), check_name(players[1]))
        self._opening = opening
        self._positions: List[Position] = [position]
        self._history: List[Tuple[Roll, Turn]] = []
        self._dice = dice


    # ------------------------------------------------------------------ state
    @property
    def rules(self) -> Rules:
        """The game's rules (those of its position)."""
        return self.position.rules

    @property
    def players(self) -> Tuple[str, str]:
        """The players' names: (white, black)."""
        return self._players

    @property
    def opening(self) -> Optional[Roll]:
        """The T6 opening throw (white's die, black's die), or None for a game begun with
        :meth:`from_position`."""
        return self._opening

    @property
    def position(self) -> Position:
        """The current position (its ``turn`` is the side to move)."""
        return self._positions[-1]

    @property
    def history(self) -> Tuple[Tuple[Roll, Turn], ...]:
        """The turns played: ``(roll, Turn)`` pairs, oldest first, each roll high die first."""
        return tuple(self._history)

    def is_over(self) -> bool:
        """L9/S9: a side has borne off its 15th checker."""
        return self.position.is_game_over()

    def outcome(self, cube: int = 1) -> Optional[Outcome]:
        """The result (L10/S9 scoring, times ``cube``) once the game is over, else None."""
        return self.position.outcome(cube)

    # ------------------------------------------------------------------ dice and turns
    @property
    def dice(self) -> Optional[Roll]:
        """The roll of the side to move, thrown now if it has not been (None once the game is
        over). Set it to use other dice; see the module's docstring."""
        if self._dice is None and not self.is_over():
            self._dice = self._stream.throw()
        return self._dice

    @dice.setter
    def dice(self, value: Sequence[int]) -> None:
        roll = _roll(value)
        if self.is_over():
            raise InvalidDiceError("T4: the game is over; there is no roll to set")
        if self._first_short_turn() and sorted(roll) != sorted(self._dice or ()):
            raise InvalidDiceError(f"T6: short nardy's first turn plays the opening throw "
                                   f"{self._dice}, not {roll}")
        self._dice = roll

    def _first_short_turn(self) -> bool:
        return not self.rules.is_long and self._opening is not None and not self._history

    def legal_turns(self) -> Sequence[Turn]:
        """The legal turns for the current dice (T1, in T2 order); none once the game is over."""
        dice = self.dice
        return () if dice is None else self.position.legal_turns(dice)

    def play(self, turn: Union[Turn, str]) -> Turn:
        """Play a turn (a Turn or notation, ``pass`` for a pass) with the current dice and
        return the legal Turn it is. IllegalTurnError names the rule it breaks (T4 once the
        game is over); NotationError (T1) says the text does not read. A Turn taken from this
        game's :meth:`legal_turns` (same position, same dice) is legal by construction and is
        played without a referee call."""
        dice = self.dice
        if dice is None:
            raise IllegalTurnError("T4", "the game is over: there is no legal turn")
        position = self.position
        if isinstance(turn, Turn) and turn._is_turn_of(position, dice):
            played = turn
        else:
            played = position.check_turn(dice, turn)
        self._history.append(((max(dice), min(dice)), played))
        self._positions.append(played.position)
        self._dice = None
        return played

    def undo(self) -> Tuple[Roll, Turn]:
        """Take back the last turn; its roll (high die first) becomes the current roll again.
        Returns the ``(roll, Turn)`` taken back."""
        if not self._history:
            raise FastNardyError("there is no turn to undo")
        self._positions.pop()
        roll, turn = self._history.pop()
        self._dice = roll
        return roll, turn

    # ------------------------------------------------------------------ records
    def to_record(self) -> GameRecord:
        """The game as a :class:`fastnardy.record.GameRecord` (turns numbered 1, 2, 3 …)."""
        turns = tuple(RecordedTurn(number, before.turn, roll, str(turn))
                      for number, (before, (roll, turn))
                      in enumerate(zip(self._positions, self._history), 1))
        start = None if self._opening is not None else self._positions[0]
        return GameRecord(self.rules, self._players, start, self._opening, turns)

    def record(self) -> str:
        """The game as a fastnardy text record (:mod:`fastnardy.record`)."""
        return write_record(self.to_record())

    @classmethod
    def from_record(cls, record: Union[str, GameRecord], seed: Optional[int] = None) -> "Game":
        """Replay a record (text or a GameRecord). A turn the rules forbid raises
        IllegalTurnError naming the rule, the move and the record line; a record that does not
        read, or a turn whose notation does not (T1), raises InvalidRecordError. ``seed``
        seeds the dice thrown after the record ends."""
        if not isinstance(record, GameRecord):
            record = read_record(record)
        if record.start is not None:
            game = cls.from_position(record.start, seed, players=record.players)
        else:
            game = cls(record.rules, seed, players=record.players, opening=record.opening)
        for entry in record.turns:
            where = (f"move {entry.number}, {entry.side} {notation.format_roll(entry.roll)} "
                     f"{entry.turn}" + (f", line {entry.line}" if entry.line else ""))
            if game.is_over():
                raise IllegalTurnError("T4", f"the game is over: there is no legal turn "
                                             f"({where})")
            game.dice = entry.roll
            try:
                game.play(entry.turn)
            except NotationError as exc:
                raise InvalidRecordError(f"cannot read the turn: {exc} ({where})") from None
            except IllegalTurnError as exc:
                reason = str(exc)[len(exc.rule) + 2:]
                raise IllegalTurnError(exc.rule, f"{reason} ({where})", exc.step) from None
        return game

    def __repr__(self) -> str:
        return (f"<Game {self.position.to_string()!r}, {len(self._history)} turns played, "
                f"dice {self._dice}>")
