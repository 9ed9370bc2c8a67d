"""Rules cross-checking: is a turn that someone played legal, and if not, which rule says so.

The legal set comes from the position's backend; the reasons come from the reference's
step rules (:func:`fastnardy.reference.try_step`), so a rejected turn names the rule id of
the first step that breaks a rule, or L6/L7 when every step is fine but the turn as a whole
is not (a six-block at the end of the turn, or a play using more dice, or the larger die,
exists).

Notation is read as players write it (T1): a move of one checker over several dice, ``24/13``
for 6-5, ``24/16`` or ``13/5(2)`` for 4-4, ``6/off``, is the single-die steps it abbreviates, in
any order of the dice, and the steps of several checkers in any order that keeps each
checker's own in sequence (``bar/21(2)`` with 2-2 is bar/23 bar/23 23/21 23/21, S5); an
intermediate landing may not hit (a hit on the way is written, ``13/7*/5``). Every reading reaches the same position (the checkers go from the
written points to the written points, and the blots hit are those on written landings), so
the order of the dice never changes the turn. Text that does not read is a
:class:`~fastnardy.errors.NotationError`, not an illegal turn.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import islice, permutations
from typing import Dict, Iterator, List, Optional, Sequence, Tuple, Union

from . import checks, notation
from . import reference as ref
from ._kernel import PackedPosition, PackedTurn, PartialTurn, dice_pair
from .basics import ALL_ROLLS, LONG_GAME, Roll, StepTuple
from .errors import IllegalTurnError, NotationError, integer

Pair = Tuple[int, int]  # (src, dst) of a move as written, mover's numbering
Path = Tuple[StepTuple, ...]  # steps as played, hits marked

_DICE_WORDS = {1: "one die", 2: "both dice", 3: "three dice", 4: "all four dice"}


def _as_steps(turn: object) -> List[Pair]:
    """A Turn, a notation string or a sequence of (src, dst) pairs → list of (src, dst)."""
    if isinstance(turn, PackedTurn):  # the compiled core of every Turn
        return [(s.src, s.dst) for s in turn.steps]
    if isinstance(turn, str):
        return notation.parse_turn(turn)
    if isinstance(turn, bytes):
        raise NotationError("a turn must be notation text, steps or a Turn, not bytes")
    items = checks.bounded(turn, 4)
    if items is None:
        raise NotationError(f"a turn must be notation text, a sequence of (src, dst) steps or "
                            f"a Turn, not {turn!r}")
    if len(items) > 4:
        raise IllegalTurnError("L4", "a turn has at most four steps, got more")
    return [_pair(item, number) for number, item in enumerate(items, 1)]


def _pair(step: object, number: int) -> Pair:
    """A given step, (src, dst) or a Step's (src, dst, hit), as (src, dst)."""
    fields: List[object] = []
    if isinstance(step, Iterable) and not isinstance(step, (str, bytes)):
        try:
            fields = list(islice(step, 4))
        except TypeError:  # e.g. a 0-d numpy array
            pass
    if len(fields) not in (2, 3):
        raise NotationError(f"step {number} must be a (src, dst) pair, not {step!r}")
    return _point(fields[0], number), _point(fields[1], number)


def _point(value: object, number: int) -> int:
    """A point of a given step: an integer 0-25."""
    point = integer(value)
    if point is None or not 0 <= point <= 25:
        raise NotationError(f"step {number}: points are integers 0-25 (25 = bar, 0 = off), "
                            f"not {value!r}")
    return point


def _fits(src: int, dst: int, die: int) -> bool:
    """The die could carry a checker from src to dst (exactly, or past point 0 when off)."""
    return src - die == dst or (dst == 0 and src - die < 0)


def _ways(src: int, dst: int, dice_left: Sequence[int]) -> List[Tuple[int, ...]]:
    """T1: the orders of dice that carry one checker from ``src`` to ``dst``: one die, or
    several dice (``24/13`` for 6-5) whose landings before the last stay on the board above
    ``dst``. One die first; then the combinations, fewest dice first."""
    ways: List[Tuple[int, ...]] = [(d,) for d in sorted(set(dice_left), reverse=True)
                                   if _fits(src, dst, d)]
    for count in range(2, len(dice_left) + 1):
        for order in dict.fromkeys(permutations(sorted(dice_left, reverse=True), count)):
            landings = [src - sum(order[:i]) for i in range(1, count)]
            if all(landing > max(dst, 0) for landing in landings) \
                    and _fits(landings[-1], dst, order[-1]):
                ways.append(order)
    return ways


def _walk(rules: ref.Rules, limit: int, state: ref.State, src: int, way: Tuple[int, ...],
          as_hitter: bool) -> Union[ref.Problem, int, Tuple[ref.State, Path]]:
    """One checker from ``src`` over the dice of ``way`` in that order: the end state and the
    steps, or the Problem of the first step a rule forbids, or the point of an intermediate
    landing that would hit a blot (a hit on the way must be written, T1)."""
    played: Path = ()
    for number, die in enumerate(way, 1):
        result = ref.try_step(rules, limit, state, src, die, as_hitter)
        if isinstance(result, ref.Problem):
            return result
        state, step = result
        if step[2] and number < len(way):
            return step[1]
        played += (step,)
        src = step[1]
    return state, played


def _step_text(src: int, dst: int) -> str:
    return f"{notation.format_point(src)}/{notation.format_point(dst)}"


def _setup(position: PackedPosition, dice: Roll) -> Tuple[ref.Rules, ref.State, int]:
    rules = ref.parse_code(position.rules.code)
    start = ref.to_state(rules, *position.mover_frame())
    return rules, start, ref.head_limit_for(rules, start, dice)


def _initial_dice(dice: Roll) -> Tuple[int, ...]:
    return dice * 2 if dice[0] == dice[1] else dice


Move = Tuple[int, int, Tuple[int, ...], Optional[bool]]  # (written move number, at point,
#                                                         dice still to play, as hitter)
Furthest = List[Tuple[int, int, ref.Problem]]  # the refusal after the most steps: (steps
#                                                played before it, move number, problem)


def _dice_splits(moves: List[Pair],
                 dice_left: Tuple[int, ...]) -> Iterator[List[Tuple[int, ...]]]:
    """T1: every way to give each written move its dice (one die, or one checker over
    several in some order), using each die of the roll at most once."""
    if not moves:
        yield []
        return
    src, dst = moves[0]
    for way in _ways(src, dst, dice_left):
        rest = list(dice_left)
        for die in way:
            rest.remove(die)
        for others in _dice_splits(moves[1:], tuple(rest)):
            yield [way] + others


def _interleave(rules: ref.Rules, limit: int, state: ref.State, moves: Tuple[Move, ...],
                furthest: Furthest, depth: int = 0) -> Iterator[Tuple[ref.State, Path]]:
    """End states of playing every move's single-die steps, each checker's own steps in
    sequence but the checkers' steps in any order (``bar/21(2)`` with 2-2 is bar/23 bar/23
    23/21 23/21, S5), with the steps as played. An intermediate landing may not hit (T1);
    a moving checker stays the one that has hit, or not, that it was when it started (S8).
    The refusal met after the most steps is kept in ``furthest``."""
    if all(not dice for _, _, dice, _ in moves):
        yield state, ()
        return
    for index, (number, src, dice, hitter) in enumerate(moves):
        if not dice or any(m[1:] == (src, dice, hitter) for m in moves[:index]):
            continue  # done, or the same as an earlier move: the same readings
        choices = ref.mover_choices(rules, state, src) if state.mine[src] else (False,)
        for as_hitter in (c for c in choices if hitter in (None, c)):
            result = ref.try_step(rules, limit, state, src, dice[0], as_hitter)
            if isinstance(result, ref.Problem):
                if not furthest or depth > furthest[0][0]:
                    furthest[:] = [(depth, number, result)]
                continue
            after, step = result
            if step[2] and len(dice) > 1:
                continue  # an unwritten hit on the way (T1)
            rest = moves[:index] + ((number, step[1], dice[1:], as_hitter),) + moves[index + 1:]
            for end, played in _interleave(rules, limit, after, rest, furthest, depth + 1):
                yield end, (step,) + played


def _realize(rules: ref.Rules, limit: int, state: ref.State, dice: Tuple[int, ...],
             steps: List[Pair], furthest: Furthest) -> Iterator[Tuple[ref.State, Path]]:
    """End states of playing all of the written moves ``steps``, over every way to split each
    into dice, every order of the checkers' single-die steps that keeps each checker's own
    in sequence (the written order, a move's dice back to back, first) and (S8) every choice
    of which checker moves, each with the steps as played (hits marked)."""
    for split in _dice_splits(steps, dice):
        moves = tuple((number, src, way, None)
                      for number, ((src, _), way) in enumerate(zip(steps, split), 1))
        yield from _interleave(rules, limit, state, moves, furthest)


def _first_problem(rules: ref.Rules, limit: int, start: ref.State, dice: Roll,
                   steps: List[Pair], furthest: Furthest) -> Tuple[ref.State, int]:
    """Play the written moves ``steps`` in the given order; the first that no die, nor one
    checker over several dice, can legally play raises IllegalTurnError (or NotationError
    when the only way would hit a blot on the way unwritten), naming the rule broken by the
    reading that got furthest (``furthest``, when it played more steps). Returns the end
    state and the number of steps played otherwise."""
    long_game = rules.game == LONG_GAME
    state, left, played = start, list(_initial_dice(dice)), 0
    for number, (src, dst) in enumerate(steps, 1):
        where = f"step {number}, {_step_text(src, dst)}"
        if not left:
            raise IllegalTurnError("L4" if long_game else "S4",
                                   f"more steps than dice ({where})", number)
        if dst >= src:
            raise IllegalTurnError("L2" if long_game else "S2", f"checkers move from higher to "
                                   f"lower points ({where})", number)
        ways = _ways(src, dst, left)
        if not ways:
            move = f"bears a checker off from point {src}" if dst == 0 \
                else f"moves a checker {src - dst} pips"
            raise IllegalTurnError("L4" if long_game else "S4",
                                   f"no die left in the roll {notation.format_roll(dice)}, alone or "
                                   f"with others, {move} ({where})", number)
        problem: Optional[ref.Problem] = None
        hit_on_the_way: Optional[int] = None
        done = False
        for way in ways:
            choices = ref.mover_choices(rules, state, src) if state.mine[src] else (False,)
            for as_hitter in choices:
                result = _walk(rules, limit, state, src, way, as_hitter)
                if isinstance(result, ref.Problem):
                    problem = problem or result
                elif isinstance(result, int):
                    hit_on_the_way = hit_on_the_way or result
                elif result[1][-1][1] == dst:
                    state = result[0]
                    played += len(way)
                    for die in way:
                        left.remove(die)
                    done = True
                    break
            if done:
                break
        if done:
            continue
        if hit_on_the_way is None:
            assert problem is not None
            if furthest and furthest[0][0] > played:  # another checker's steps came between
                _, number, problem = furthest[0]
                where = f"step {number}, {_step_text(*steps[number - 1])}"
            raise IllegalTurnError(problem.rule, f"{problem.message} ({where})", number)
        raise NotationError(f"{_step_text(src, dst)} would hit a blot on the way, on point "
                            f"{hit_on_the_way}: a hit on the way is written "
                            f"({_step_text(src, hit_on_the_way)}*/{notation.format_point(dst)})")
    return state, played


def _whole_turn_problem(rules: ref.Rules, start: ref.State, dice: Roll, end: ref.State,
                        played: int) -> IllegalTurnError:
    """Every step was legal: say why the turn as a whole is not (L6 turn-end, L7)."""
    block = ref.state_block(rules, end)
    if rules.block_check == ref.TURN_END and block:
        low, high = block
        return IllegalTurnError("L6", f"the turn ends with a forbidden six-block on the "
                                      f"opponent's points {low}-{high}")
    legal = ref.legal_sequences(rules, start, dice)
    most = max((ref.dice_used(state, steps, dice) for _, steps, state in legal), default=0)
    used = ref.dice_used(end, (None,) * played, dice)
    rule = "L7" if rules.game == LONG_GAME else "S6"
    if used < most:
        return IllegalTurnError(rule, f"a play using {_DICE_WORDS[most]} exists")
    if dice[0] != dice[1] and most == 1:
        return IllegalTurnError(rule, f"the larger die ({max(dice)}) must be played")
    return IllegalTurnError("T1", "these steps do not make a legal turn")


def check_played(position: PackedPosition, dice: Roll,
                 turn: object) -> Tuple[PackedTurn, Tuple[StepTuple, ...]]:
    """See :meth:`fastnardy.Position.check_played`: the legal Turn and the steps as played."""
    checks.position(position, PackedPosition)
    found, played = _match(position, dice, _as_steps(turn))
    if isinstance(turn, PackedTurn) and turn != found:
        raise IllegalTurnError("T1", f"the Turn {turn} leads to a position that is not this "
                                     f"position's: it belongs to another position")
    return found, played


def _match(position: PackedPosition, dice: Roll,
           steps: List[Pair]) -> Tuple[PackedTurn, Tuple[StepTuple, ...]]:
    """The legal turn that the written moves play, with the steps as played: in the order
    given, or else in the first other order of the single-die steps (each checker's own in
    sequence) that plays it; or the reason there is none."""
    legal: Dict[PackedPosition, PackedTurn] = {t.position: t
                                               for t in position.legal_turns(dice)}
    if not legal:
        raise IllegalTurnError("T4", "the game is over: there is no legal turn")
    rules, start, limit = _setup(position, dice)
    furthest: Furthest = []
    for end, played in _realize(rules, limit, start, _initial_dice(dice), steps, furthest):
        me, me_bar, opp, opp_bar = ref.from_state(rules, end)
        after = position._from_mover_frame(me, me_bar, opp, opp_bar)
        if after in legal:
            return legal[after], played
    end, count = _first_problem(rules, limit, start, dice, steps, furthest)
    raise _whole_turn_problem(rules, start, dice, end, count)


def play(position: PackedPosition, turn: object, dice: Optional[Roll]) -> PackedTurn:
    """See :meth:`fastnardy.Position.play`: the legal Turn that ``turn`` is, for ``dice`` or
    else for some roll."""
    checks.position(position, PackedPosition)
    if dice is not None:
        return check_played(position, dice, turn)[0]
    _as_steps(turn)  # unreadable notation is the same error for every roll: raise it once
    errors = []
    unwritten: List[NotationError] = []
    for roll in ALL_ROLLS:
        try:
            return check_played(position, roll, turn)[0]
        except IllegalTurnError as exc:
            errors.append(exc)
        except NotationError as exc:  # a hit on the way with this roll's dice: another roll
            unwritten.append(exc)     # may play the move as written (bar/22* for 3, not 2-1)
    if unwritten:
        raise unwritten[0]
    # the most telling refusal: the one that got furthest through the steps (a whole-turn
    # reason, with no step, furthest of all), preferring a rule over a die mismatch
    raise max(errors, key=lambda e: (e.step or 5, e.rule not in ("L4", "S4")))


def check_step(position: PackedPosition, dice: object, taken: object, src: object,
               die: object) -> StepTuple:
    """Check one step of a turn in progress, as a game server checks each step when it is
    made: the checker on ``src`` (mover's numbering, 25 = bar) moved by ``die`` after the
    steps ``taken`` ((src, die) pairs, in order) with the roll ``dice``. Returns the step
    as played, (src, dst, hit); IllegalTurnError with the rule id when the step does not
    begin (or go on with) a legal way to play the roll (T1 after L5-L7, S5-S8): the step's
    own rule, or L6/L7/S6 for the turn as a whole. ``step`` of the error is the step's
    1-based number; a refused step in ``taken`` is refused as its own number."""
    checks.position(position, PackedPosition)
    roll = dice_pair(dice)
    items = checks.bounded(taken, 3)
    if items is None or len(items) > 3:
        raise NotationError(f"taken must be at most three (src, die) steps, not {taken!r}")
    pairs = [_src_die(item, number) for number, item in enumerate(items, 1)]
    pairs.append(_src_die((src, die), len(pairs) + 1))
    partial = PartialTurn(position, max(roll), min(roll))
    for number, (s, d) in enumerate(pairs, 1):
        if not partial.play(6 * (s - 1) + d - 1):
            error = _step_refusal(position, roll, pairs[:number - 1], s, d)
            raise IllegalTurnError(error.rule, str(error)[len(error.rule) + 2:], number)
    return partial.played[-1]


def _src_die(step: object, number: int) -> Tuple[int, int]:
    """A given step as (src, die): src 1-25 (25 = bar), die 1-6."""
    fields = checks.bounded(step, 2)
    if fields is None or len(fields) != 2:
        raise NotationError(f"step {number} must be a (src, die) pair, not {step!r}")
    src, die = integer(fields[0]), integer(fields[1])
    if src is None or not 1 <= src <= 25 or die is None or not 1 <= die <= 6:
        raise NotationError(f"step {number}: src is 1-25 (25 = bar) and die 1-6, not "
                            f"{step!r}")
    return src, die


def _step_refusal(position: PackedPosition, dice: Roll, taken: Sequence[Tuple[int, int]],
                  src: int, die: int) -> IllegalTurnError:
    """Why the step of the checker on ``src`` by ``die`` may not follow the steps ``taken``
    ((src, die) each) in a turn of ``position`` with ``dice``, a step that the step encoding
    refused: the rule of the step itself (L3-L5, L8, S3-S5, S7, S8; L6 every step), or of
    the turn as a whole when the step is legal alone (L7/S6: no legal way to play goes on
    from it; L6: each of those ends in a forbidden six-block)."""
    rules, start, limit = _setup(position, dice)
    left = list(_initial_dice(dice))
    states = [start]  # S8: each way the steps taken may have been made
    for s, d in taken:
        left.remove(d)
        states = [result[0] for state in states for as_hitter in _choices(rules, state, s)
                  for result in [ref.try_step(rules, limit, state, s, d, as_hitter)]
                  if not isinstance(result, ref.Problem)]
    long_game = rules.game == LONG_GAME
    if die not in left:
        return IllegalTurnError("L4" if long_game else "S4",
                                f"no {die} is left to play (dice left: "
                                f"{', '.join(map(str, sorted(left, reverse=True))) or 'none'})")
    left.remove(die)
    problems: List[ref.Problem] = []
    children: List[ref.State] = []
    for state in states:
        for as_hitter in _choices(rules, state, src):
            result = ref.try_step(rules, limit, state, src, die, as_hitter)
            if isinstance(result, ref.Problem):
                problems.append(result)
            else:
                children.append(result[0])
    if not children:
        return IllegalTurnError(problems[0].rule, problems[0].message)
    legal = ref.legal_sequences(rules, start, dice)
    most = max((ref.dice_used(state, steps, dice) for _, steps, state in legal), default=0)
    full = len(_initial_dice(dice))
    here = len(taken) + 1
    ends = [end for child in children for end in _continuations(rules, limit, child, left)]
    reach = max((full if end.mine[ref.OFF] == 15 else here + steps for steps, end in ends),
                default=here)
    rule = "L7" if long_game else "S6"
    if reach < most:
        return IllegalTurnError(rule, f"no way to play the roll goes on from this step, and a "
                                      f"play using {_DICE_WORDS[most]} exists")
    if rules.block_check == ref.TURN_END and all(
            ref.state_block(rules, end) for steps, end in ends
            if (full if end.mine[ref.OFF] == 15 else here + steps) == most):
        return IllegalTurnError("L6", "every way to play the roll from this step ends with a "
                                      "forbidden six-block")
    if dice[0] != dice[1] and most == 1:
        return IllegalTurnError(rule, f"the larger die ({max(dice)}) must be played")
    return IllegalTurnError("T1", "this step does not begin a legal way to play the roll")


def _choices(rules: ref.Rules, state: ref.State, src: int) -> Tuple[bool, ...]:
    """S8: the kinds of checker that may try a step from src (an empty point: the ordinary
    one, so that the step's refusal names its rule)."""
    return ref.mover_choices(rules, state, src) if state.mine[src] else (False,)


def _continuations(rules: ref.Rules, limit: int, state: ref.State,
                   left: List[int]) -> Iterator[Tuple[int, ref.State]]:
    """(steps, end state) of every sequence of legal steps from ``state`` with the dice
    ``left`` (the empty one included)."""
    yield 0, state
    if state.mine[ref.OFF] == 15:
        return
    for die in sorted(set(left), reverse=True):
        rest = list(left)
        rest.remove(die)
        for src in range(ref.BAR, 0, -1):
            for as_hitter in ref.mover_choices(rules, state, src) if state.mine[src] else ():
                result = ref.try_step(rules, limit, state, src, die, as_hitter)
                if not isinstance(result, ref.Problem):
                    for steps, end in _continuations(rules, limit, result[0], rest):
                        yield steps + 1, end
