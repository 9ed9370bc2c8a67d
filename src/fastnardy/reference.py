"""The pure-Python reference: ``RULES.md`` rule by rule, written for clarity, not speed.

It is the trusted twin of the Cython kernel (``fastnardy._kernel``) and shares no
move-generation code with it. Both implement the backend contract of
:mod:`fastnardy.backend`; the kernel is tested against this module, turn for turn.

Everything here works in the **mover's frame**: my points are numbered 1-24 along my path
(home 1-6), 0 is off and 25 is the bar; the opponent's checkers are kept on *my* point
numbers (the mirror of section 0 of RULES.md).
"""

from __future__ import annotations

from typing import (Dict, Iterable, List, NamedTuple, Optional, Sequence, SupportsIndex, Tuple,
                    Type, Union)

from . import checks
from ._kernel import LegalTurns, PackedPosition, dice_pair
from .basics import ALL_ROLLS, LONG_GAME, Points, Roll, StepTuple, TurnTuple, mirror, six_block
from .errors import FastNardyError, InvalidPositionError, integer
from .rules import BLOCK_RULES

OFF, BAR, HEAD = 0, 25, 24
CLASSIC, TOURNAMENT, BLOCKED = 0, 1, 2  # L5 head_rule
OPPONENT_AHEAD, OPPONENT_HOME, NO_BLOCK_RULE = 0, 1, 2  # L6 block_rule
EVERY_STEP, TURN_END = 0, 1  # L6 block_check
HIDE_ALLOWED, HIDE_FORBIDDEN = 0, 1  # S8 hit_and_hide

Ints = Tuple[int, ...]
Path = Tuple[StepTuple, ...]  # steps played, in order
Key = Tuple[Tuple[int, int], ...]  # the T2 sort key of a path: (-src, dst) per step
Legal = Tuple[Key, Path, "State"]  # a legal step sequence and the state it ends in

# --------------------------------------------------------------------------- frames

class State(NamedTuple):
    """A position during a turn, in the mover's frame, with the turn's bookkeeping.

    ``mine[p]``: my checkers on my point p (index 0 = off, 25 = bar); ``theirs[p]``: opponent
    checkers on my point p (index 0 unused); ``head_moves``: checkers that left my head this
    turn (L5); ``hitters[p]``: how many of my checkers on p have hit this turn (S8, forbidden
    variant only; otherwise all zero)."""

    mine: Ints
    theirs: Ints
    their_bar: int
    head_moves: int
    hitters: Ints

    @property
    def their_off(self) -> int:
        return 15 - sum(self.theirs) - self.their_bar

    def board(self) -> Tuple[Ints, Ints, int]:
        """The position alone, without the turn's bookkeeping (T1 turn identity)."""
        return self.mine, self.theirs, self.their_bar


class Rules(NamedTuple):
    """``Rules.code`` unpacked: the move-generation variants."""

    game: int
    head_rule: int
    block_rule: int
    block_check: int
    hit_and_hide: int


class Problem(NamedTuple):
    """Why a step is illegal: the rule id and a sentence."""

    rule: str
    message: str


def _integer(value: object, what: str, error: Type[FastNardyError]) -> int:
    """An integer (anything with ``__index__`` but a bool), or ``error``."""
    number = integer(value)
    if number is None:
        raise error(f"{what} must be an integer, not {value!r}")
    return number


def parse_code(code: object) -> Rules:
    """Validate ``Rules.code`` (see :mod:`fastnardy.rules`)."""
    if not isinstance(code, Iterable):
        raise FastNardyError(f"rules code must be 5 integers, not {code!r}")
    try:
        values = [_integer(c, "rules code", FastNardyError) for c in code]
    except TypeError:
        raise FastNardyError(f"rules code must be 5 integers, not {code!r}") from None
    limits = (2, 3, 3, 2, 2)
    if len(values) != 5 or any(not 0 <= v < limit for v, limit in zip(values, limits)):
        raise FastNardyError(f"rules code must be 5 integers in range, not {code!r}")
    game, head_rule, block_rule, block_check, hit_and_hide = values
    return Rules(game, head_rule, block_rule, block_check, hit_and_hide)


def to_state(rules: Rules, me: object, me_bar: object, opp: object, opp_bar: object) -> State:
    """Build the mover's-frame state from two boards in each side's own numbering."""
    my_points, my_bar = checks.side_checkers("side to move", me, me_bar)
    their_points, their_bar = checks.side_checkers("opponent", opp, opp_bar)
    if rules.game == LONG_GAME and (my_bar or their_bar):
        raise InvalidPositionError("long nardy has no bar (L3: nothing is ever hit)")
    mine = (15 - sum(my_points) - my_bar,) + my_points + (my_bar,)
    theirs = [0] * 25
    for q in range(1, 25):
        theirs[mirror(rules.game, q)] = their_points[q - 1]
    for p in range(1, 25):
        if mine[p] and theirs[p]:
            raise InvalidPositionError(f"T7: point {p} of the side to move holds both colours")
    return State(mine, tuple(theirs), their_bar, 0, (0,) * 26)


def from_state(rules: Rules, state: State) -> Tuple[Points, int, Points, int]:
    """(me, me_bar, opp, opp_bar) in each side's own numbering."""
    me = state.mine[1:25]
    opp = tuple(state.theirs[mirror(rules.game, q)] for q in range(1, 25))
    return me, state.mine[BAR], opp, state.their_bar


# --------------------------------------------------------------------------- the rules

def is_closed(rules: Rules, state: State, point: int) -> bool:
    """L3: one opponent checker closes a point in long nardy; S3: two do in short nardy."""
    return state.theirs[point] >= (1 if rules.game == LONG_GAME else 2)


def all_home(state: State) -> bool:
    """L8/S7: all 15 of my checkers are in my home (points 1-6) or off, none on the bar."""
    return sum(state.mine[0:7]) == 15


def highest_point(state: State) -> int:
    """My highest occupied point (25 when a checker is on the bar, 0 when none is left)."""
    for point in range(BAR, 0, -1):
        if state.mine[point]:
            return point
    return 0


def state_block(rules: Rules, state: State) -> Optional[Tuple[int, int]]:
    """L6: the forbidden six-block that the side to move holds in ``state``, as
    :func:`fastnardy.basics.six_block` finds it (in the opponent's numbering), or None."""
    if rules.game != LONG_GAME or rules.block_rule == NO_BLOCK_RULE:
        return None
    theirs = state.theirs
    opp = [theirs[mirror(LONG_GAME, q)] for q in range(1, 25)]
    return six_block(BLOCK_RULES[rules.block_rule], state.mine[1:25], opp)


def try_step(rules: Rules, head_limit: int, state: State, src: int, die: int,
             as_hitter: bool = False) -> Union[Problem, Tuple[State, StepTuple]]:
    """One step (L4/S4): move my checker on ``src`` by ``die`` pips.

    Returns ``(new_state, (src, dst, hit))`` or a :class:`Problem` naming the rule that
    forbids it. ``as_hitter`` says the moving checker is one that has hit this turn (S8)."""
    long_game = rules.game == LONG_GAME
    mine = state.mine
    if not mine[src]:
        where = "the bar" if src == BAR else f"point {src}"
        return Problem("L4" if long_game else "S4", f"no own checker on {where}")
    if not long_game and mine[BAR] and src != BAR:
        return Problem("S5", "a checker on the bar must enter first")
    dst = src - die
    if dst <= 0:
        rule = "L8" if long_game else "S7"
        if not all_home(state):
            return Problem(rule, "bearing off needs all 15 checkers in home"
                           + ("" if long_game else " and none on the bar"))
        if dst < 0 and highest_point(state) > src:
            return Problem(rule, f"a {die} may bear off from point {src} only when no checker "
                                 f"stands higher (point {highest_point(state)} is occupied)")
        dst = OFF
    elif is_closed(rules, state, dst):
        if long_game:
            return Problem("L3", f"point {dst} is held by the opponent")
        return Problem("S3", f"point {dst} is closed (two or more opponent checkers)")
    if long_game and src == HEAD and state.head_moves >= head_limit:
        return Problem("L5", "a second checker may not leave the head this turn"
                       if head_limit == 1 else "a third checker may not leave the head")
    if as_hitter and dst != OFF and mine[dst]:
        return Problem("S8", f"a checker that has hit may not move on to point {dst}, "
                             "which holds own checkers (hit-and-hide is forbidden)")

    new_mine = list(mine)
    new_mine[src] -= 1
    new_mine[dst] += 1
    theirs, their_bar = state.theirs, state.their_bar
    hit = not long_game and dst != OFF and theirs[dst] == 1  # S3: a blot is hit
    if hit:
        theirs = theirs[:dst] + (0,) + theirs[dst + 1:]
        their_bar += 1
    hitters = state.hitters
    if rules.hit_and_hide == HIDE_FORBIDDEN and (as_hitter or hit):
        new_hitters = list(hitters)
        if as_hitter:
            new_hitters[src] -= 1
        if dst != OFF:
            new_hitters[dst] += 1
        hitters = tuple(new_hitters)
    new_state = State(tuple(new_mine), theirs, their_bar,
                      state.head_moves + (long_game and src == HEAD), hitters)
    if rules.block_check == EVERY_STEP:
        block = state_block(rules, new_state)
        if block:
            return Problem("L6", f"the step would make a six-block on the opponent's points "
                                 f"{block[0]}-{block[1]} with no opponent checker ahead of it"
                           if rules.block_rule == OPPONENT_AHEAD else
                           f"the step would make a six-block on the opponent's points "
                           f"{block[0]}-{block[1]} with no opponent checker in its home")
    return new_state, (src, dst, hit)


def mover_choices(rules: Rules, state: State, src: int) -> Tuple[bool, ...]:
    """S8: which kinds of checker can leave ``src``: one that has not hit, one that has."""
    if rules.hit_and_hide != HIDE_FORBIDDEN:
        return (False,)
    hitters = state.hitters[src]
    choices: Tuple[bool, ...] = ()
    if state.mine[src] > hitters:
        choices += (False,)
    if hitters:
        choices += (True,)
    return choices


def full_dice(dice: Roll) -> int:
    """L4: a double is four steps, any other roll two."""
    return 4 if dice[0] == dice[1] else 2


def dice_used(state: State, path: Sequence[object], dice: Roll) -> int:
    """L7: steps played, where bearing off the 15th checker counts as using all dice."""
    return full_dice(dice) if state.mine[OFF] == 15 else len(path)


# --------------------------------------------------------------------------- enumeration

def explore(rules: Rules, head_limit: int, start: State,
            dice: Roll) -> Dict[Tuple[State, Ints], Tuple[Key, Path]]:
    """Every state reachable by a sequence of legal steps (prefixes and the empty one
    included), each with the T2-smallest step sequence reaching it.

    Returns ``{(state, remaining dice): (key, steps)}``; ``key`` is the T2 sort key of the
    step sequence (source descending, then destination ascending, prefix first)."""
    remaining = tuple(sorted(dice * 2 if dice[0] == dice[1] else dice))
    best: Dict[Tuple[State, Ints], Tuple[Key, Path]] = {}

    def visit(state: State, left: Ints, key: Key, steps: Path) -> None:
        node = (state, left)
        seen = best.get(node)
        if seen is not None and seen[0] <= key:
            return  # reached before by a sequence that comes first in T2 order
        best[node] = (key, steps)
        if state.mine[OFF] == 15:
            return  # L9: the game is over
        for die in sorted(set(left), reverse=True):
            others = list(left)
            others.remove(die)
            rest = tuple(others)
            for src in range(BAR, 0, -1):
                for as_hitter in mover_choices(rules, state, src) if state.mine[src] else ():
                    result = try_step(rules, head_limit, state, src, die, as_hitter)
                    if isinstance(result, Problem):
                        continue
                    new_state, step = result
                    visit(new_state, rest, key + ((-step[0], step[1]),), steps + (step,))

    visit(start, remaining, (), ())
    return best


def choose_legal(rules: Rules, dice: Roll,
                 reached: Dict[Tuple[State, Ints], Tuple[Key, Path]]) -> List[Legal]:
    """L6 (turn_end) and L7 applied to explored sequences: the legal ones as
    ``(key, steps, state)``."""
    return [reached[node] + (node[0],) for node in legal_nodes(rules, dice, reached)]


def legal_nodes(rules: Rules, dice: Roll,
                nodes: Iterable[Tuple[State, Ints]]) -> List[Tuple[State, Ints]]:
    """The nodes (state, dice left) where a legal turn ends: turn-end L6 drops those ending
    in a forbidden block; L7 keeps those using the most dice, and for a non-double played
    one die at a time, those that used the larger die."""
    full = full_dice(dice)
    candidates = []
    for state, left in nodes:
        if rules.block_check == TURN_END and state_block(rules, state):
            continue
        used = full if state.mine[OFF] == 15 else full - len(left)
        candidates.append((used, (state, left)))
    if not candidates:
        return []
    most = max(used for used, _ in candidates)
    legal = [node for used, node in candidates if used == most]
    if dice[0] != dice[1] and most == 1:
        with_larger = [node for node in legal if max(dice) not in node[1]]
        if with_larger:
            legal = with_larger
    return legal


def step_orders(rules: Rules, start: State, dice: Roll) -> Dict[Tuple[Tuple[int, int], ...],
                                                                  State]:
    """Every legal way to play the roll step by step (T1 after L5-L7), as the ``(src, die)``
    of its steps in order, with the state it ends in: each order of each legal turn's steps
    that is playable, and under S8 each choice of which checker moves."""
    limit = head_limit_for(rules, start, dice)
    paths: Dict[Tuple[State, Ints], List[Tuple[Tuple[int, int], ...]]] = {}

    def visit(state: State, left: Ints, path: Tuple[Tuple[int, int], ...]) -> None:
        paths.setdefault((state, left), []).append(path)
        if state.mine[OFF] == 15:
            return  # L9: the game is over
        for die in sorted(set(left), reverse=True):
            others = list(left)
            others.remove(die)
            for src in range(BAR, 0, -1):
                for as_hitter in mover_choices(rules, state, src) if state.mine[src] else ():
                    result = try_step(rules, limit, state, src, die, as_hitter)
                    if not isinstance(result, Problem):
                        visit(result[0], tuple(others), path + ((src, die),))

    visit(start, tuple(sorted(dice * 2 if dice[0] == dice[1] else dice)), ())
    return {path: node[0] for node in legal_nodes(rules, dice, paths) for path in paths[node]}


def head_limit_for(rules: Rules, start: State, dice: Roll) -> int:
    """L5: how many checkers may leave the head this turn (1, or 2 on a first turn)."""
    if rules.game != LONG_GAME or start.mine[HEAD] != 15:
        return 1
    d1, d2 = dice
    if rules.head_rule == CLASSIC:
        return 2 if d1 == d2 and d1 in (3, 4, 6) else 1
    if rules.head_rule == TOURNAMENT:
        if d1 != d2 or d1 not in (3, 4, 6):
            return 1
        path_open = all(start.theirs[p] == 0 for p in range(HEAD - d1, 12, -d1))
        return 2 if path_open and start.theirs[12] > 0 else 1
    # BLOCKED: a second checker only when one checker cannot play the roll in full
    legal = choose_legal(rules, dice, explore(rules, 1, start, dice))
    played = max((dice_used(state, steps, dice) for _, steps, state in legal), default=0)
    return 2 if played < full_dice(dice) else 1


def legal_sequences(rules: Rules, start: State, dice: Roll) -> List[Legal]:
    """The legal step sequences (after L5, L6 and L7) as ``(key, steps, state)``."""
    limit = head_limit_for(rules, start, dice)
    return choose_legal(rules, dice, explore(rules, limit, start, dice))


def distinct_turns(rules: Rules, start: State, dice: Roll) -> List[Tuple[Path, State]]:
    """T1/T2: one ``(steps, state)`` per distinct resulting position, the representative being
    the T2-first legal sequence producing it, sorted by representative."""
    if start.mine[OFF] == 15 or start.their_off == 15:
        return []  # T4
    first: Dict[Tuple[Ints, Ints, int], Legal] = {}
    for key, steps, state in legal_sequences(rules, start, dice):
        board = state.board()
        if board not in first or key < first[board][0]:
            first[board] = (key, steps, state)
    return [(steps, state) for key, steps, state in sorted(first.values(), key=lambda t: t[0])]


def check_dice(die1: object, die2: object) -> Roll:
    """Dice are two integers from 1 to 6 (the kernel's parser, the package's one)."""
    return dice_pair((die1, die2))


# --------------------------------------------------------------------------- backend contract

def enumerate_turns(code: object, me: object, me_bar: object, opp: object, opp_bar: object,
                    die1: object, die2: object) -> List[TurnTuple]:
    """The backend contract (:mod:`fastnardy.backend`): legal turns in T2 order."""
    rules = parse_code(code)  # validated in this order: rules, position, dice
    start = to_state(rules, me, me_bar, opp, opp_bar)
    dice = check_dice(die1, die2)
    out: List[TurnTuple] = []
    for steps, state in distinct_turns(rules, start, dice):
        new_me, new_me_bar, new_opp, new_opp_bar = from_state(rules, state)
        out.append((steps, new_me, new_me_bar, new_opp, new_opp_bar))
    return out


def enumerate_packed(code: object, me: object, me_bar: object, opp: object, opp_bar: object,
                     die1: object, die2: object) -> List[TurnTuple]:
    """The contract's sequence form of :func:`enumerate_turns`; here simply the list."""
    return enumerate_turns(code, me, me_bar, opp, opp_bar, die1, die2)


def perft_count(code: object, me: object, me_bar: object, opp: object, opp_bar: object,
                depth: object, weighted: object = False) -> int:
    """T5 perft: positions reached after ``depth`` turns, over the 21 rolls at every ply."""
    rules = parse_code(code)
    plies = checks.depth(depth)
    if type(weighted) not in (bool, int) or weighted not in (0, 1):  # as the kernel
        raise FastNardyError(f"weighted must be True or False, not {weighted!r}")
    start = to_state(rules, me, me_bar, opp, opp_bar)
    return _perft(rules, start, plies, bool(weighted))


def _perft(rules: Rules, start: State, depth: int, weighted: bool) -> int:
    if depth == 0 or start.mine[OFF] == 15 or start.their_off == 15:
        return 1  # T5: depth 0 and game over count one
    total = 0
    for dice in ALL_ROLLS:
        weight = 2 if weighted and dice[0] != dice[1] else 1
        for _, state in distinct_turns(rules, start, dice):
            me, me_bar, opp, opp_bar = from_state(rules, state)
            child = to_state(rules, opp, opp_bar, me, me_bar)  # the opponent moves next
            total += weight * _perft(rules, child, depth - 1, weighted)
    return total


# --------------------------------------------------------------------------- Position level

def legal_turns(position: PackedPosition, dice: Iterable[SupportsIndex]) -> LegalTurns:
    """The legal turns of a :class:`fastnardy.Position` for ``dice``, computed here."""
    return _position(position).legal_turns(dice, backend="reference")


def perft(position: PackedPosition, depth: int, weighted: bool = False) -> int:
    """T5 perft of a :class:`fastnardy.Position`, computed here."""
    me, me_bar, opp, opp_bar = _position(position).mover_frame()
    return perft_count(position.rules.code, me, me_bar, opp, opp_bar, depth, weighted)


def _position(position: object) -> PackedPosition:
    if not isinstance(position, PackedPosition):
        raise InvalidPositionError(f"expected a Position, not {position!r}")
    return position


# --------------------------------------------------------------------------- the stake
# Section 5 of RULES.md as plain facts, the second opinion on fastnardy.Game's stake: what
# an action is refused for, the stake an offer makes and what a finished game scores.

class Stake(NamedTuple):
    """The stake of a game as section 5 describes it: the ``stake`` (C1), who alone may
    offer (``holder``: None while both may), the side whose offer is unanswered, whether the
    side to move has thrown, whether the game is over and whether it is a Crawford game."""

    stake: int
    holder: Optional[str]
    offering: Optional[str]
    thrown: bool
    over: bool
    crawford_game: bool


def raised(progression: str, stake: int) -> int:
    """C3: the stakes in turn are 1, 2, 4, 8 … (geometric) or 1, 2, 3, 4 … (arithmetic)."""
    ladder = ([2 ** k for k in range(7)] if progression == "geometric"
              else list(range(1, 65)))
    return ladder[ladder.index(stake) + 1] if stake in ladder[:-1] else 2 * 64


def refused(progression: str, state: Stake, mover: str, action: str) -> Optional[str]:
    """The rule that refuses ``action`` (offer, take or drop) by the side that would make it
    (the side to move offers, the other side answers), or None when it is allowed."""
    if action == "offer":
        if state.over or state.offering is not None or state.thrown:
            return "C2"  # never in a finished game, before an answer or after the dice
        if state.holder not in (None, mover):
            return "C2"  # no right: the other side took the last offer
        if state.crawford_game:
            return "C7"
        return "C1" if raised(progression, state.stake) > 64 else None
    return None if state.offering is not None else "C2"  # an answer needs an offer


def score(rules: object, kind: str, loser_checkers_left: int, stake: int, money: bool,
          dropped: bool) -> int:
    """What a finished game scores its winner: a drop the stake as it stood (C2); otherwise
    the L10/S9 points of ``kind`` times the stake (C1), oin for every kind once the stake is
    raised under C4 and, in money play under C8, while it is not; under C9 the loser's
    checkers left times the stake."""
    if dropped:
        return stake
    if getattr(rules, "scoring", None) == "checkers_left":
        return loser_checkers_left * stake
    points = {"oin": 1, "mars": 2, "koks": 3, "backgammon": 3}[kind]
    if getattr(rules, "cube_cancels_mars", False) and stake > 1:
        points = 1
    if money and getattr(rules, "jacoby", False) and stake == 1:
        points = 1
    return points * stake
