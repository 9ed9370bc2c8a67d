"""What a difference means, rule by rule: the child an engine lists read back into a
position, the rule an extra turn breaks (by the referee, or by the steps that reach it when
the engine gave none) and the rule each missing turn depends on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from .._kernel import dice_pair
from ..basics import BLACK, WHITE, Roll, mirror, six_block
from ..errors import (EngineError, FastNardyError, IllegalTurnError, InvalidPositionError,
                      NotationError)
from ..notation import decode_position_id
from ..notation import (format_roll, format_rules, format_side, format_steps,
                        parse_position)
from ..position import Position, Turn
from .protocol import GNUBG_ID, request_words

# key_of, read_child and missing_rules are the walk's (fastnardy.engines.crosscheck)
__all__ = ["ExtraTurn", "explain"]


Key = Tuple[Tuple[int, ...], int, Tuple[int, ...], int]  # a child in the parent mover's frame


# --------------------------------------------------------------------------- children

def key_of(child: Position) -> Key:
    """A child position in its parent mover's frame (the child's mover is the opponent)."""
    them, them_bar, me, me_bar = child.mover_frame()
    return tuple(me), me_bar, tuple(them), them_bar


def read_child(parent: Position, text: str, name: str) -> Key:
    """An engine's child (position string or GNU Backgammon ID) in the parent mover's frame.
    The board is read as written, without T7's checks, so that an illegal child (say one that
    lands on an opponent's point) can be explained; one that does not read is an EngineError."""
    other = BLACK if parent.turn == WHITE else WHITE
    try:
        if GNUBG_ID.fullmatch(text):
            if parent.rules.game != "short":
                raise InvalidPositionError("GNU Backgammon Position IDs are for short nardy")
            on_roll, on_roll_bar, mover, mover_bar = decode_position_id(text)
            return tuple(mover), mover_bar, tuple(on_roll), on_roll_bar
        rules, turn, white, white_bar, black, black_bar = parse_position(text)
    except FastNardyError as exc:
        raise EngineError(f"{name} gave a child that does not read: {text!r} ({exc})") from None
    if rules != parent.rules:
        raise EngineError(f"{name} gave a child under other rules, {format_rules(rules)}: "
                          f"{text!r}")
    if turn != other:
        raise EngineError(f"{name} gave a child with {turn} to move after {parent.turn}'s "
                          f"turn: {text!r}")
    if parent.turn == WHITE:
        return white, white_bar, black, black_bar
    return black, black_bar, white, white_bar


# --------------------------------------------------------------------------- explaining

@dataclass(frozen=True)
class ExtraTurn:
    """A child the engine lists that is not a legal turn: as the engine wrote it, the rule
    the turn breaks (the referee's id), the referee's reason, the steps that reach it (the
    engine's, or the first sequence in T2 order that reaches it; '' when none does) and its
    board as a position string, written as the engine gave it, also where T7 refuses the
    board (say two colours on one point; :meth:`~fastnardy.Position.from_string` refuses
    that one too)."""

    text: str
    rule: str
    reason: str
    steps: str
    position: str


Path = List[Tuple[int, int, bool]]  # steps (src, dst, hit)


def _relaxed_paths(parent: Position, roll: Roll, target: Key) -> List[Path]:
    """Step sequences of the dice of ``roll`` (every length, every order) that take the
    parent to ``target`` when every rule but the geometry is ignored: a step moves one own
    checker by one die (off past point 0), a lone opponent checker it lands on in short nardy
    goes to the bar (the step marked as a hit), and anything may land anywhere. The
    sequences come in T2 order."""
    game = 0 if parent.rules.game == "long" else 1
    me, me_bar, opp, opp_bar = parent.mover_frame()
    dice = tuple(sorted(roll * 2 if roll[0] == roll[1] else roll))
    level: Dict[Tuple[Key, Tuple[int, ...]], Path] = {
        ((tuple(me), me_bar, tuple(opp), opp_bar), dice): []}
    found: List[Path] = []
    while level:
        following: Dict[Tuple[Key, Tuple[int, ...]], Path] = {}
        for (state, left), path in level.items():
            if state == target:
                found.append(path)
            for die in sorted(set(left), reverse=True):
                rest = list(left)
                rest.remove(die)
                for src in range(25, 0, -1):
                    moved = _relaxed_step(game, state, src, die)
                    if moved is not None:
                        following.setdefault((moved[0], tuple(rest)),
                                             path + [(src, max(src - die, 0), moved[1])])
        level = following
    return sorted(found, key=lambda path: [(-src, dst) for src, dst, _ in path])


def _relaxed_step(game: int, state: Key, src: int, die: int) -> Optional[Tuple[Key, bool]]:
    """The state after one geometric step and whether it hit, or None (no checker)."""
    me, me_bar, opp, opp_bar = state
    if (me_bar if src == 25 else me[src - 1]) == 0:
        return None
    mine, theirs = list(me), list(opp)
    if src == 25:
        me_bar -= 1
    else:
        mine[src - 1] -= 1
    dst, hit = src - die, False
    if dst > 0:
        mine[dst - 1] += 1
        q = mirror(game, dst)
        if game == 1 and theirs[q - 1] == 1:
            theirs[q - 1] = 0
            opp_bar += 1
            hit = True
    return (tuple(mine), me_bar, tuple(theirs), opp_bar), hit


def explain(parent: Position, roll: Roll, text: str, steps: Optional[str] = None) -> ExtraTurn:
    """Why the child ``text`` (a position string or GNU Backgammon ID, the other side to
    move) is not a legal turn of ``parent`` for ``roll``: the rule its steps break, by the
    referee (:meth:`~fastnardy.Position.check_played`). The steps are the engine's when
    given, else the first sequence in T2 order of the roll's dice that reaches the child."""
    request_words("string", 1, roll, parent)  # the checks of a request
    if not isinstance(text, str) or not (steps is None or isinstance(steps, str)):
        raise FastNardyError(f"a child and its steps are text, not {text!r} and {steps!r}")
    roll = dice_pair(roll)
    key = read_child(parent, text, "the engine")
    legal = {key_of(t.position) for t in parent.legal_turns(roll)}
    if key in legal:
        raise FastNardyError(f"{text!r} is a legal turn of this position and roll")
    position = _board_text(parent, key)
    tried: List[Tuple[str, Optional[FastNardyError]]] = []
    if steps is not None:
        tried.append((steps, _referee(parent, roll, steps)))
    tried += [(format_steps(path), _referee(parent, roll, [(s, d) for s, d, _ in path]))
              for path in _relaxed_paths(parent, roll, key)]
    for written, error in tried:
        if isinstance(error, IllegalTurnError):
            return ExtraTurn(text, error.rule, str(error)[len(error.rule) + 2:], written,
                             position)
    for written, error in tried:
        if isinstance(error, NotationError):
            return ExtraTurn(text, "T1", str(error)[4:], written, position)
    rule = "L4" if parent.rules.game == "long" else "S4"
    if tried and tried[0][1] is None:  # the engine's steps are legal: another position
        return ExtraTurn(text, "T1", f"the steps given, {tried[0][0]}, are a legal turn that "
                                     f"leads to another position", tried[0][0], position)
    return ExtraTurn(text, rule, f"no sequence of steps of the dice {format_roll(roll)} "
                                 f"leads to it", "", position)


def _board_text(parent: Position, key: Key) -> str:
    """A child in the parent mover's frame as a position string, the other side to move,
    without T7's checks (an illegal child's board is written as it is)."""
    me, me_bar, them, them_bar = key
    white, black = ((me, me_bar), (them, them_bar)) if parent.turn == WHITE else \
        ((them, them_bar), (me, me_bar))
    return " ".join((format_rules(parent.rules), "b" if parent.turn == WHITE else "w",
                     format_side(*white), format_side(*black)))


def _referee(parent: Position, roll: Roll, steps: object) -> Optional[FastNardyError]:
    """The referee's refusal of ``steps`` (None when they are a legal turn)."""
    try:
        parent.check_played(roll, steps)
    except (IllegalTurnError, NotationError) as exc:
        return exc
    return None


# --------------------------------------------------------------------------- missing turns

def _features(parent: Position, roll: Roll, turn: Turn) -> List[str]:
    """The rules a legal turn depends on beyond the plain steps (L4/S4), most specific
    first: a pass (T3), entering from the bar (S5), a second checker off the head (L5),
    bearing off (L8/S7), a hit (S3), a six-block that a stricter block_rule forbids (L6),
    fewer dice than the roll has (L7/S6: the maximum a turn can use)."""
    long = parent.rules.game == "long"
    steps = turn.steps
    found = []
    if not steps:
        found.append("T3")
    if any(src == 25 for src, _, _ in steps):
        found.append("S5")
    if long and sum(src == 24 for src, _, _ in steps) >= 2:
        found.append("L5")
    if any(dst == 0 for _, dst, _ in steps):
        found.append("L8" if long else "S7")
    if any(hit for _, _, hit in steps):
        found.append("S3")
    if long:
        them, _, me, _ = turn.position.mover_frame()  # the child's mover is the opponent
        if any(six_block(rule, me, them) for rule in ("opponent_ahead", "opponent_home")):
            found.append("L6")
    if steps and len(steps) < (4 if roll[0] == roll[1] else 2):
        found.append("L7" if long else "S6")
    return found


def missing_rules(parent: Position, roll: Roll, missing: Sequence[Turn],
                  listed: Sequence[Turn]) -> Tuple[str, ...]:
    """For each turn an engine misses, the rule it depends on: the first of its
    :func:`_features` that no turn the engine lists has (the rule the engine applies too
    strictly), else its first feature, else L4/S4 (its steps)."""
    shared = {rule for turn in listed for rule in _features(parent, roll, turn)}
    plain = "L4" if parent.rules.game == "long" else "S4"
    named = []
    for turn in missing:
        own = _features(parent, roll, turn)
        named.append(next((rule for rule in own if rule not in shared), own[0] if own else plain))
    return tuple(named)
