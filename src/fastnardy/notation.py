"""Text forms: the position string, turn notation and the ASCII board.

Position string (``Position.to_string``), four fields separated by spaces::

    <rules> <side to move> <white checkers> <black checkers>
    long w 24:15 24:15
    short(hit_and_hide=forbidden) b bar:1,13:5,8:3,6:5 24:2,13:5,8:3,6:4

* ``<rules>`` is ``long`` or ``short``, followed by the variants that differ from the defaults
  in parentheses (``long(head_rule=tournament,block_check=turn_end)``);
* ``<side to move>`` is ``w`` or ``b``;
* each side's checkers are ``point:count`` pairs in that side's **own** numbering, highest
  first, ``bar:count`` first of all; ``-`` when none is on the board. Checkers not listed are
  borne off.

Turn notation: steps in the mover's numbering separated by spaces, ``24/18 18/13``;
``*`` marks a hit (``13/10*``), ``bar/21`` enters, ``6/off`` bears off; ``pass`` is the empty
turn. When reading, chains (``24/18/13``), repeats (``24/18(2)``), commas and a missing ``*``
are accepted, and a move of one checker over several dice (``24/13`` for 6-5, ``13/5(2)``
for 4-4, ``6/off``) is read by the referee as the steps it abbreviates (T1, see
:mod:`fastnardy.referee`). Text that does not read raises :class:`~fastnardy.errors.NotationError` (T1).

GNU Backgammon Position IDs (short nardy): :func:`encode_position_id` and
:func:`decode_position_id`, described at the end of this module.
"""

from __future__ import annotations

import re
from typing import Any, Dict, Iterable, List, Sequence, Tuple

from . import checks
from ._kernel import PackedPosition, dice_pair
from .basics import Points, mirror
from .errors import (FastNardyError, IllegalTurnError, InvalidPositionError, InvalidRulesError,
                     NotationError, shown)
from .rules import VARIANTS, Rules


PASS = "pass"

# --------------------------------------------------------------------------- rules

# each game's variants and their allowed values (rules.VARIANTS)
_RULE_FIELDS: Dict[str, Dict[str, Tuple[object, ...]]] = {
    game: {name: v.values for name, v in VARIANTS.items() if v.game in (game, None)}
    for game in ("long", "short")}


def format_rules(rules: Rules) -> str:
    """The rules field of a position string: ``long``, ``short(hit_and_hide=forbidden)``
    (the game and its non-default variants)."""
    if not isinstance(rules, Rules):
        raise InvalidRulesError(f"format_rules needs a Rules, not {rules!r}")
    variants = rules.variants()
    if not variants:
        return rules.game
    parts = ",".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}"
                     for k, v in variants.items())
    return f"{rules.game}({parts})"


def parse_rules(text: str) -> Rules:
    """Read a rules field (:func:`format_rules`'s form) back into a Rules."""
    if not isinstance(text, str):
        raise InvalidPositionError(f"rules text must be a str, not {type(text).__name__}")
    match = re.fullmatch(r"(long|short)(?:\((.*)\))?", text)
    if not match:
        raise InvalidPositionError(f"rules must be 'long' or 'short' with optional "
                                   f"(name=value,...) variants, not {shown(text)}")
    game, body = match.group(1), match.group(2)
    fields = _RULE_FIELDS[game]
    kwargs: Dict[str, Any] = {}  # str variants and bool flags, checked against fields
    for item in filter(None, (body or "").split(",")):
        name, sep, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if not sep or name not in fields or name in kwargs:
            raise InvalidPositionError(
                f"unknown or repeated {game} rule variant {item!r}; "
                f"variants are {', '.join(fields)}")
        if fields[name] == (True, False):
            if value not in ("true", "false"):
                raise InvalidPositionError(f"{name} must be true or false, not {value!r}")
            kwargs[name] = value == "true"
        else:
            if value not in fields[name]:
                raise InvalidPositionError(
                    f"{name} must be one of {', '.join(map(str, fields[name]))}, "
                    f"not {value!r}")
            kwargs[name] = value
    return Rules.long(**kwargs) if game == "long" else Rules.short(**kwargs)


# --------------------------------------------------------------------------- positions

def format_side(points: Sequence[int], bar: int) -> str:
    """A side's 24 counts (own numbering) and bar count → ``'bar:1,24:2,...'``."""
    counts, bar_count = checks.points(points, "points"), checks.checkers(bar, "bar")
    parts = [f"bar:{bar_count}"] if bar_count else []
    parts += [f"{p}:{counts[p - 1]}" for p in range(24, 0, -1) if counts[p - 1]]
    return ",".join(parts) or "-"


def parse_side(text: str, who: str) -> Tuple[Points, int]:
    """``'bar:1,24:2,...'`` → (24 counts in own numbering, bar count)."""
    if not isinstance(text, str) or not isinstance(who, str):
        raise InvalidPositionError(f"a side is read from a str, not {text!r}")
    points = [0] * 24
    bar = 0
    if text == "-":
        return tuple(points), bar
    seen = set()
    for item in text.split(","):
        match = re.fullmatch(r"(bar|[1-9]|1[0-9]|2[0-4]):([1-9]|1[0-5])", item)
        if not match:
            raise InvalidPositionError(
                f"{who}: cannot read {shown(item)}; expected point:count with point 1-24 or 'bar' "
                f"and count 1-15")
        where, count = match.group(1), int(match.group(2))
        if where in seen:
            raise InvalidPositionError(f"{who}: {where} is listed twice")
        seen.add(where)
        if where == "bar":
            bar = count
        else:
            points[int(where) - 1] = count
    return tuple(points), bar


def format_position(position: PackedPosition) -> str:
    """The position string: rules, side to move, white's then black's checkers."""
    checks.position(position, PackedPosition)
    return " ".join((format_rules(position.rules), position.turn[0],
                     format_side(position.white_points, position.white_bar),
                     format_side(position.black_points, position.black_bar)))


def parse_position(text: object) -> Tuple[Rules, str, Points, int, Points, int]:
    """Position string → (rules, turn, white, white_bar, black, black_bar)."""
    if not isinstance(text, str):
        raise InvalidPositionError(f"a position string must be a str, not {type(text).__name__}")
    fields = text.split()
    if len(fields) != 4:
        raise InvalidPositionError(
            f"a position string has 4 fields '<rules> <w|b> <white> <black>', got {shown(text)}")
    rules_text, side, white_text, black_text = fields
    rules = parse_rules(rules_text)
    if side not in ("w", "b"):
        raise InvalidPositionError(f"side to move must be 'w' or 'b', not {side!r}")
    white, white_bar = parse_side(white_text, "white")
    black, black_bar = parse_side(black_text, "black")
    return rules, "white" if side == "w" else "black", white, white_bar, black, black_bar


# --------------------------------------------------------------------------- rolls

def format_roll(dice: Sequence[int], sep: str = "-") -> str:
    """A roll as printed everywhere: the higher die first, ``6-5``, ``3-3`` (``sep=""``:
    ``65``, as GNU Backgammon's ``.mat`` writes it)."""
    d1, d2 = dice_pair(dice)
    return f"{max(d1, d2)}{sep}{min(d1, d2)}"


# --------------------------------------------------------------------------- turns

def format_point(point: int) -> str:
    """A point of the mover's numbering: 1-24, ``bar`` (25) or ``off`` (0)."""
    number = checks.number(point, "point", 0, 25)
    return "bar" if number == 25 else "off" if number == 0 else str(number)


def format_step(step: Sequence[int]) -> str:
    """(src, dst, hit) → ``'13/7*'``."""
    if not isinstance(step, tuple) or len(step) != 3 or not isinstance(step[2], (bool, int)):
        raise FastNardyError(f"a step is a tuple (src, dst, hit), not {step!r}")
    return f"{format_point(step[0])}/{format_point(step[1])}{'*' if step[2] else ''}"


def format_steps(steps: Sequence[Sequence[int]]) -> str:
    """Steps ``(src, dst, hit)`` in turn notation, ``24/18 18/13*``; ``pass`` when empty."""
    if not isinstance(steps, (list, tuple)):
        raise FastNardyError(f"steps are a list or tuple of (src, dst, hit), not {steps!r}")
    return " ".join(format_step(s) for s in steps) if steps else PASS


def _read_point(text: str, notation: str) -> int:
    if text == "bar":
        return 25
    if text == "off":
        return 0
    if re.fullmatch(r"[0-9]{1,2}", text) and 1 <= int(text) <= 24:
        return int(text)
    raise NotationError(f"cannot read point {text!r} in turn {notation!r}; points are 1-24, "
                        f"'bar' and 'off'")


#: The longest turn text read: four steps with every mark and generous spacing fit many
#: times over; a longer text is refused before it is split (and quoted in part).
MAX_TURN_TEXT = 200


def parse_turn(notation: str) -> List[Tuple[int, int]]:
    """Turn notation → the moves written, as (src, dst) in the mover's numbering; a move may
    span several dice (the referee splits it)."""
    if not isinstance(notation, str):
        raise NotationError(f"turn notation must be a str, not {type(notation).__name__}")
    if len(notation) > MAX_TURN_TEXT:
        raise NotationError(f"turn notation is at most {MAX_TURN_TEXT} characters, not "
                            f"{shown(notation)}")
    text = notation.strip().lower()
    if text in (PASS, "-", "", "(no play)"):
        return []
    steps = []
    for token in re.split(r"[\s,]+", text):
        match = re.fullmatch(r"([^()]+?)(?:\((\d)\))?", token)
        if not match:
            raise NotationError(f"cannot read {token!r} in turn {notation!r}")
        chain = [_read_point(p.rstrip("*"), notation) for p in match.group(1).split("/")]
        if len(chain) < 2:
            raise NotationError(f"a move needs from/to, got {token!r} in {notation!r}")
        repeat = int(match.group(2) or 1)
        if not 1 <= repeat <= 4:
            raise NotationError(f"a move may repeat 1-4 times, not {repeat}")
        steps += list(zip(chain, chain[1:])) * repeat
    if len(steps) > 4:
        raise IllegalTurnError("L4", f"a turn has at most four steps, {notation!r} has {len(steps)}")
    return steps


# --------------------------------------------------------------------------- the board

def _variants_text(rules: Rules) -> str:
    variants = format_rules(rules)[len(rules.game):]
    return f" {variants}" if variants else ""


def _cell(white: int, black: int) -> str:
    if white:
        return f"W{white}".rjust(4)
    if black:
        return f"B{black}".rjust(4)
    return "   ."


def draw_board(position: PackedPosition) -> str:
    """An ASCII board in board coordinates (white's numbering), points 13-24 above, 12-1
    below, with the side to move, bars and borne-off checkers."""
    checks.position(position, PackedPosition)
    game = 0 if position.rules.game == "long" else 1
    white = position.white_points
    black_on = [0] * 25
    for q in range(1, 25):
        black_on[mirror(game, q)] = position.black_points[q - 1]

    def row(points: Iterable[int]) -> Tuple[str, str]:
        numbers = "".join(str(p).rjust(4) for p in points)
        cells = "".join(_cell(white[p - 1], black_on[p]) for p in points)
        return numbers, cells

    top_numbers, top_cells = row(range(13, 25))
    bottom_numbers, bottom_cells = row(range(12, 0, -1))
    lines = [
        f"{position.rules.game} nardy{_variants_text(position.rules)}, {position.turn} to move",
        top_numbers, top_cells, "", bottom_cells, bottom_numbers,
        f"white: bar {position.white_bar}, off {position.white_off}   "
        f"black: bar {position.black_bar}, off {position.black_off}",
    ]
    return "\n".join(lines)

# --------------------------------------------------------------------------- GNU Backgammon IDs
# GNU Backgammon Position ID codec (short nardy / backgammon).
#
# A Position ID is 14 characters of standard base64 (no padding) holding 10 bytes = 80 bits.
# Bit ``i`` of the string is bit ``i % 8`` (least significant first) of byte ``i // 8``.
# The bits hold the player *not* on roll first, then the player on roll (the side to move).
# For each player, its points 1..24 and then its bar are written in turn: ``n`` checkers as
# ``n`` one-bits followed by one zero-bit. The remaining bits are zero.
#
# Each player's points are in its own numbering: index 0 is its point 1, its home is points
# 1-6 and it moves from point 24 towards point 1. Checkers on no point and not on the bar are
# borne off. The backgammon start position is ``"4HPwATDgc/ABMA"``.

_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_VALUE = {c: i for i, c in enumerate(_ALPHABET)}

ID_LENGTH = 14  # characters
_NBYTES = 10
_NBITS = 8 * _NBYTES  # 80
_PAD_BITS = 6 * ID_LENGTH - _NBITS  # 4 unused low bits of the last character
_NPOINTS = 24
_NCHECKERS = 15


def _bytes_from_id(pid: object) -> bytes:
    """Base64-decode a Position ID into its 10 bytes, checking type, length and alphabet."""
    if not isinstance(pid, str):
        raise InvalidPositionError(
            f"GNU Backgammon Position ID must be a str, not {type(pid).__name__}"
        )
    if len(pid) != ID_LENGTH:
        raise InvalidPositionError(
            f"GNU Backgammon Position ID must be {ID_LENGTH} characters, got {len(pid)}: {shown(pid)}"
        )
    value = 0
    for pos, ch in enumerate(pid):
        digit = _VALUE.get(ch)
        if digit is None:
            raise InvalidPositionError(
                f"GNU Backgammon Position ID {pid!r} has character {ch!r} at index {pos}, "
                "which is not in the base64 alphabet A-Z a-z 0-9 + /"
            )
        value = (value << 6) | digit
    if value & ((1 << _PAD_BITS) - 1):
        raise InvalidPositionError(
            f"GNU Backgammon Position ID {pid!r}: the last character's {_PAD_BITS} "
            "padding bits must be zero"
        )
    return (value >> _PAD_BITS).to_bytes(_NBYTES, "big")


def _read_side(bits: list[int], start: int, pid: str, who: str) -> tuple[list[int], int]:
    """Read 25 unary fields (points 1..24, bar) from ``bits[start:]``; return counts and end."""
    counts: list[int] = []
    i = start
    for field in range(_NPOINTS + 1):
        n = 0
        while i < _NBITS and bits[i]:
            n += 1
            i += 1
        if i >= _NBITS:
            where = "bar" if field == _NPOINTS else f"point {field + 1}"
            raise InvalidPositionError(
                f"GNU Backgammon Position ID {pid!r}: bits run out while reading {who}'s {where}"
            )
        i += 1  # the zero-bit ending the field
        counts.append(n)
        if sum(counts) > _NCHECKERS:
            raise InvalidPositionError(
                f"GNU Backgammon Position ID {pid!r}: {who} has more than {_NCHECKERS} checkers"
            )
    return counts, i


def decode_position_id(pid: str) -> tuple[tuple[int, ...], int, tuple[int, ...], int]:
    """Decode a Position ID to ``(mover_points, mover_bar, other_points, other_bar)``.

    ``mover`` is the player on roll. Each ``*_points`` holds 24 checker counts in that
    player's own numbering (index 0 = its point 1). Raises :class:`~fastnardy.errors.InvalidPositionError`
    on any malformed ID.
    """
    data = _bytes_from_id(pid)
    bits = [(data[i >> 3] >> (i & 7)) & 1 for i in range(_NBITS)]
    other, i = _read_side(bits, 0, pid, "the player not on roll")
    mover, i = _read_side(bits, i, pid, "the player on roll")
    if any(bits[i:]):
        raise InvalidPositionError(
            f"GNU Backgammon Position ID {pid!r}: bits after the last field must be zero"
        )
    return tuple(mover[:_NPOINTS]), mover[_NPOINTS], tuple(other[:_NPOINTS]), other[_NPOINTS]


def encode_position_id(
    mover_points: Sequence[int],
    mover_bar: int,
    other_points: Sequence[int],
    other_bar: int,
) -> str:
    """Encode a position as a GNU Backgammon Position ID; the inverse of :func:`decode_position_id`.

    Raises :class:`~fastnardy.errors.InvalidPositionError` on bad input (wrong shape, negative counts, or more
    than 15 checkers for a side).
    """
    mover_counts, mover_bar = checks.side_checkers("mover", mover_points, mover_bar)  # T7
    other_counts, other_bar = checks.side_checkers("other", other_points, other_bar)
    fields = [*other_counts, other_bar, *mover_counts, mover_bar]
    data = bytearray(_NBYTES)
    i = 0
    for n in fields:  # the player not on roll comes first
        for _ in range(n):
            data[i >> 3] |= 1 << (i & 7)
            i += 1
        i += 1  # zero-bit ending the field
    value = int.from_bytes(data, "big") << _PAD_BITS
    return "".join(
        _ALPHABET[(value >> (6 * k)) & 63] for k in reversed(range(ID_LENGTH))
    )
