"""The step action encoding of the RL environments (``actions="steps"``): a turn played one
checker step at a time, each step a fixed action number.

**Action** ``a = 6 * (src - 1) + (die - 1)``, from 0 to ``STEP_ACTIONS - 1`` = 149: the
checker on the mover's point ``src`` (1-24 in its own numbering, 25 = the bar) moves by
``die`` (1-6), to ``src - die`` or off (L8/S7: a die larger than the point bears off when the
rules allow it). A turn is one to four actions (T3: a pass is played without asking).

**Mask** (T1-T3, L5-L7, S5-S8): an action is allowed iff some legal way to play the roll
begins with the steps already taken and then this one. The rules hold for the turn as a
whole: L7/S6 (the most dice, the larger die) may forbid a first step that would be legal
on its own, and a step that cannot lead to a legal turn is never allowed, so every sequence
of allowed actions ends in exactly one of ``Position.legal_turns(dice)``. The ways to play
are the reference's (:func:`fastnardy.reference.try_step` for a step, its L6/L7 choice for
the turn) and their end positions are checked against the kernel's legal turns.
"""

from __future__ import annotations

from typing import Any, Dict, FrozenSet, Iterable, Optional, Set, SupportsIndex, Tuple, cast

import numpy as np
import numpy.typing as npt

from .. import checks
from .. import reference as ref
from .._kernel import dice_pair
from ..basics import Roll, StepTuple
from ..errors import IllegalTurnError
from ..position import Position, Step, Turn

__all__ = ["DICE_SLOTS", "STEP_ACTIONS", "TurnInProgress", "action_of", "step_of"]

STEP_ACTIONS = 150  # 25 sources (points 1-24, 25 = bar) x 6 dice
DICE_SLOTS = 4  # the dice left of a roll: four for a double, two used slots otherwise

Node = Tuple[ref.State, Tuple[int, ...]]  # a state during the turn and the dice left


def action_of(src: int, die: int) -> int:
    """The action number of moving the checker on ``src`` (1-25, 25 = bar) by ``die``."""
    return _action(checks.number(src, "src", 1, 25), checks.number(die, "die", 1, 6))


def step_of(action: int) -> Tuple[int, int]:
    """``(src, die)`` of an action number (the inverse of :func:`action_of`)."""
    number = checks.number(action, "action", 0, STEP_ACTIONS - 1)
    return number // 6 + 1, number % 6 + 1


def _action(src: int, die: int) -> int:
    return 6 * (src - 1) + (die - 1)


class TurnInProgress:
    """One roll of one position, played step by step (see the module docstring).

    ``mask()`` the allowed actions, ``play(action)`` one step (``taken``: the actions so far,
    ``played``: their Steps, hits marked), ``done`` once the steps make a
    legal turn, then ``index``: that turn's index into ``position.legal_turns(dice)``.
    ``copy.copy`` branches a turn cheaply (the ways to play are shared, never changed).
    Bad input is an InvalidPositionError or InvalidDiceError; a finished game has no turn to
    play: IllegalTurnError (T4)."""

    def __init__(self, position: Position, dice: Iterable[SupportsIndex]) -> None:
        self.position = cast(Position, checks.position(position))
        roll = dice_pair(dice)
        self.dice: Roll = (max(roll), min(roll))
        self.turns = position.legal_turns(self.dice)
        if not self.turns:
            raise IllegalTurnError("T4", "the game is over: there is no legal turn")
        self._rules = ref.parse_code(position.rules.code)
        start = ref.to_state(self._rules, *position.mover_frame())
        left = self.dice * 2 if self.dice[0] == self.dice[1] else self.dice
        self._edges: Dict[Node, Dict[int, Set[Node]]] = {}
        self._steps: Dict[Tuple[Node, int], StepTuple] = {}  # (src, dst, hit) of an edge
        self._explore(ref.head_limit_for(self._rules, start, self.dice), (start, left))
        self._ends = self._legal_ends()
        self._good: Dict[Node, bool] = {}
        self._nodes: FrozenSet[Node] = frozenset([(start, left)])
        self.taken: Tuple[int, ...] = ()
        self.played: Tuple[Step, ...] = ()

    def _explore(self, limit: int, root: Node) -> None:
        """Every node reachable by legal steps (L4/S4, the reference's step rules), and for
        each its steps: action -> the nodes it may lead to (S8: the hitter or another
        checker may be the one that moves)."""
        stack = [root]
        rules = self._rules
        while stack:
            node = stack.pop()
            if node in self._edges:
                continue
            edges: Dict[int, Set[Node]] = {}
            self._edges[node] = edges
            state, left = node
            if state.mine[ref.OFF] == 15:
                continue  # L9: the game is over
            for die in set(left):
                rest = list(left)
                rest.remove(die)
                for src in range(ref.BAR, 0, -1):
                    if not state.mine[src]:
                        continue
                    for as_hitter in ref.mover_choices(rules, state, src):
                        result = ref.try_step(rules, limit, state, src, die, as_hitter)
                        if isinstance(result, ref.Problem):
                            continue
                        child = (result[0], tuple(rest))
                        edges.setdefault(_action(src, die), set()).add(child)
                        self._steps[node, _action(src, die)] = result[1]
                        stack.append(child)

    def _legal_ends(self) -> Dict[Node, int]:
        """The nodes where a legal turn ends (L6 turn-end and L7/S6, as the reference chooses
        among all nodes), each with the index of its kernel legal turn (T1)."""
        full = 4 if self.dice[0] == self.dice[1] else 2
        nodes = list(self._edges)
        # choose_legal judges a node by its state and dice left (its steps only count dice):
        # each node goes in with its number in place of the T2 key, and comes back with it
        reached: Dict[Node, Any] = {node: (i, (None,) * (full - len(node[1])))
                                    for i, node in enumerate(nodes)}
        index = {turn.position: i for i, turn in enumerate(self.turns)}
        ends: Dict[Node, int] = {}
        for number, _, state in ref.choose_legal(self._rules, self.dice, reached):
            after = self.position._from_mover_frame(*ref.from_state(self._rules, state))
            ends[nodes[cast(int, number)]] = index.get(after, -1)
        if sorted(set(ends.values())) != list(range(len(self.turns))):  # pragma: no cover
            raise AssertionError("T1: the reference's ways to play do not end in the "
                                 "kernel's legal turns")
        return ends

    def _leads_to_turn(self, node: Node) -> bool:
        """Some legal way to play goes through ``node``."""
        known = self._good.get(node)
        if known is None:
            known = node in self._ends or any(
                self._leads_to_turn(child)
                for children in self._edges[node].values() for child in children)
            self._good[node] = known
        return known

    def _allowed(self) -> Dict[int, FrozenSet[Node]]:
        allowed: Dict[int, Set[Node]] = {}
        if self.done:
            return {}
        for node in self._nodes:
            for action, children in self._edges[node].items():
                good = {child for child in children if self._leads_to_turn(child)}
                if good:
                    allowed.setdefault(action, set()).update(good)
        return {action: frozenset(nodes) for action, nodes in allowed.items()}

    def mask(self) -> npt.NDArray[np.int8]:
        """(STEP_ACTIONS,) int8: 1 for the allowed actions (none once ``done``)."""
        mask = np.zeros(STEP_ACTIONS, dtype=np.int8)
        mask[list(self._allowed())] = 1
        return mask

    @property
    def done(self) -> bool:
        """The steps taken make a legal turn (T1)."""
        return any(node in self._ends for node in self._nodes)

    @property
    def index(self) -> Optional[int]:
        """Once ``done``, the index of the turn played into ``legal_turns(dice)``."""
        for node in self._nodes:
            if node in self._ends:
                return self._ends[node]
        return None

    @property
    def turn(self) -> Optional[Turn]:
        """Once ``done``, the legal Turn played."""
        index = self.index
        return None if index is None else self.turns[index]

    def dice_left(self) -> Tuple[int, ...]:
        """The dice not yet played, largest first, padded with 0 to DICE_SLOTS."""
        left = sorted(next(iter(self._nodes))[1], reverse=True)
        return tuple(left) + (0,) * (DICE_SLOTS - len(left))

    def row(self) -> npt.NDArray[np.int8]:
        """The board row (:mod:`fastnardy.batch`) after the steps taken, mover's view."""
        me, me_bar, opp, opp_bar = ref.from_state(self._rules, next(iter(self._nodes))[0])
        return np.array(me + (me_bar,) + opp + (opp_bar,), dtype=np.int8)

    def play(self, action: object) -> None:
        """Take one step; IllegalTurnError (T1) when the mask does not allow it."""
        allowed = self._allowed()
        number = action if isinstance(action, (int, np.integer)) \
            and not isinstance(action, bool) else None
        if number is None or int(number) not in allowed:
            raise IllegalTurnError("T1", f"action {action!r} is not an allowed step "
                                         f"(allowed: {sorted(allowed)})")
        # S8: the nodes may differ in which checkers have hit; the step is played from one
        # whose edge leads on to a legal turn (its hit mark is the board's either way)
        node = next(node for node in sorted(self._nodes, key=repr)
                    if any(self._leads_to_turn(child)
                           for child in self._edges[node].get(int(number), ())))
        self.played += (Step(*self._steps[node, int(number)]),)
        self._nodes = allowed[int(number)]
        self.taken += (int(number),)
