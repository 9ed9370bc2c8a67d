"""The step action encoding (``actions="steps"``): a turn played one checker step at a time,
each step a fixed action number, in the kernel (:mod:`fastnardy._steps`).

**Action** ``a = 6 * (src - 1) + (die - 1)``, from 0 to ``STEP_ACTIONS - 1`` = 149: the
checker on the mover's point ``src`` (1-24 in its own numbering, 25 = the bar) moves by
``die`` (1-6), to ``src - die`` or off (L8/S7: a die larger than the point bears off when the
rules allow it). A turn is one to four actions (T3: a pass is played without asking).

**Mask** (T1-T3, L5-L7, S5-S8): an action is allowed iff some legal way to play the roll
begins with the steps already taken and then this one. The rules hold for the turn as a
whole: L7/S6 (the most dice, the larger die) and L6 at the turn's end may forbid a first
step that would be legal on its own, so every sequence of allowed actions ends in exactly
one of ``Position.legal_turns(dice)``, and every order of every legal turn's steps that can
be played is such a sequence. Under S8 (hit-and-hide forbidden) the action does not say
which checker moves when a hitter shares a point with checkers that have not hit; the mask
allows the step when either may make it, and the turn goes on with both possibilities.

:class:`TurnInProgress` is one position and roll, for a game server or a GUI: the allowed
steps (``mask``, ``legal_steps``), the board and the dice left after each, and the rule
that forbids a refused step (``play`` raises IllegalTurnError with its rule id). The
environments play the same partial turns batched in the kernel.
"""

from __future__ import annotations

import copy
from typing import Iterable, NamedTuple, Optional, SupportsIndex, Tuple

import numpy as np
import numpy.typing as npt

from .. import checks, referee
from .._kernel import STEP_ACTIONS, LegalTurns, PartialTurn, dice_pair
from ..basics import Roll
from ..errors import IllegalTurnError
from ..position import Position, Step, Turn

__all__ = ["DICE_SLOTS", "STEP_ACTIONS", "StepOption", "TurnInProgress", "action_of",
           "step_of"]

DICE_SLOTS = 4  # the dice left of a roll: four for a double, two used slots otherwise


def action_of(src: int, die: int) -> int:
    """The action number of moving the checker on ``src`` (1-25, 25 = bar) by ``die``."""
    return 6 * (checks.number(src, "src", 1, 25) - 1) + checks.number(die, "die", 1, 6) - 1


def step_of(action: int) -> Tuple[int, int]:
    """``(src, die)`` of an action number (the inverse of :func:`action_of`)."""
    number = checks.number(action, "action", 0, STEP_ACTIONS - 1)
    return number // 6 + 1, number % 6 + 1


class StepOption(NamedTuple):
    """An allowed step: its action, the checker's point ``src`` (25 = bar), the ``die``, and
    where it lands, ``dst`` (0 = off), mover's numbering."""

    action: int
    src: int
    die: int
    dst: int


class TurnInProgress:
    """One roll of one position, played step by step (see the module docstring).

    ``mask()`` the allowed actions, ``play(action)`` one step (``taken``: the actions so far,
    ``played``: their Steps, hits marked), ``done`` once the steps make a legal turn, then
    ``index``: that turn's index into ``position.legal_turns(dice)``. ``copy.copy`` branches
    a turn cheaply. Bad input is an InvalidPositionError or InvalidDiceError; a finished game
    has no turn to play: IllegalTurnError (T4). One thread at a time (FastNardyError)."""

    def __init__(self, position: Position, dice: Iterable[SupportsIndex]) -> None:
        self.position = checks.position(position, Position)
        roll = dice_pair(dice)
        self.dice: Roll = (max(roll), min(roll))
        self._partial = PartialTurn(self.position, *self.dice)
        self._turns: Optional[LegalTurns] = None

    def __copy__(self) -> "TurnInProgress":
        other = object.__new__(TurnInProgress)
        other.__dict__.update(self.__dict__)
        other._partial = copy.copy(self._partial)
        return other

    @property
    def turns(self) -> LegalTurns:
        """``position.legal_turns(dice)``: the turns the steps may make (T1, T2 order)."""
        if self._turns is None:
            self._turns = self.position.legal_turns(self.dice)
        return self._turns

    def mask(self) -> npt.NDArray[np.int8]:
        """(STEP_ACTIONS,) int8: 1 for the allowed actions (none once ``done``)."""
        mask: npt.NDArray[np.int8] = self._partial.mask().view(np.int8)
        return mask

    def legal_steps(self) -> Tuple[StepOption, ...]:
        """The allowed steps, highest source first (T2), the larger die first."""
        options = []
        for action in np.flatnonzero(self._partial.mask())[::-1]:
            src, die = int(action) // 6 + 1, int(action) % 6 + 1
            options.append(StepOption(int(action), src, die, max(src - die, 0)))
        return tuple(sorted(options, key=lambda o: (-o.src, -o.die)))

    @property
    def done(self) -> bool:
        """The steps taken make a legal turn (T1), or the roll is a pass (T3)."""
        return self._partial.done

    @property
    def taken(self) -> Tuple[int, ...]:
        """The actions taken, in order."""
        return self._partial.taken

    @property
    def played(self) -> Tuple[Step, ...]:
        """The steps taken, hits marked (mover's numbering)."""
        return tuple(Step(*step) for step in self._partial.played)

    @property
    def index(self) -> Optional[int]:
        """Once ``done``, the index of the turn played into ``legal_turns(dice)``."""
        if not self.done:
            return None
        index = int(self._partial.index(self.turns))
        if index < 0:  # pragma: no cover - the kernel's steps end in its own turns (T1)
            raise AssertionError("T1: the steps do not end in one of the legal turns")
        return index

    @property
    def turn(self) -> Optional[Turn]:
        """Once ``done``, the legal Turn played."""
        index = self.index
        return None if index is None else self.turns[index]

    def dice_left(self) -> Tuple[int, ...]:
        """The dice not yet played, largest first, padded with 0 to DICE_SLOTS."""
        return self._partial.dice_left()

    def row(self) -> npt.NDArray[np.int8]:
        """The board row (:mod:`fastnardy.batch`) after the steps taken, mover's view."""
        row: npt.NDArray[np.int8] = self._partial.row()
        return row

    def play(self, action: object) -> None:
        """Take one step; IllegalTurnError when the mask does not allow it, with the rule
        that forbids it (the step's own, or L6/L7/S6 for the turn as a whole)."""
        if self.done:
            raise IllegalTurnError("T1", f"the turn is complete: no step is left to play "
                                         f"(action {action!r})")
        number = action if isinstance(action, (int, np.integer)) \
            and not isinstance(action, bool) else None
        if number is None or not 0 <= number < STEP_ACTIONS:
            raise IllegalTurnError("T1", f"an action is an int from 0 to {STEP_ACTIONS - 1}, "
                                         f"not {action!r}")
        number = int(number)
        if not self._partial.play(number):
            referee.check_step(self.position, self.dice, [step_of(a) for a in self.taken],
                               *step_of(number))
            raise AssertionError(f"T1: the kernel refused action {number}, which the "
                                 f"referee allows")  # pragma: no cover
