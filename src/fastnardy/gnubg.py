"""GNU Backgammon Position ID codec (short nardy / backgammon).

A Position ID is 14 characters of standard base64 (no padding) holding 10 bytes = 80 bits.
Bit ``i`` of the string is bit ``i % 8`` (least significant first) of byte ``i // 8``.
The bits hold the player *not* on roll first, then the player on roll (the side to move).
For each player, its points 1..24 and then its bar are written in turn: ``n`` checkers as
``n`` one-bits followed by one zero-bit. The remaining bits are zero.

Each player's points are in its own numbering: index 0 is its point 1, its home is points
1-6 and it moves from point 24 towards point 1. Checkers on no point and not on the bar are
borne off. The backgammon start position is ``"4HPwATDgc/ABMA"``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Sequence

from .errors import InvalidPositionError, integer

__all__ = ["decode_position_id", "encode_position_id"]

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
            f"GNU Backgammon Position ID must be {ID_LENGTH} characters, got {len(pid)}: {pid!r}"
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


def _check_count(value: object, what: str) -> int:
    """Return ``value`` as a non-negative int, or raise InvalidPositionError."""
    n = integer(value)
    if n is None:
        raise InvalidPositionError(f"{what} must be an integer, not {type(value).__name__}")
    if n < 0:
        raise InvalidPositionError(f"{what} must be >= 0, got {n}")
    return n


def _check_side(points: object, bar: object, who: str) -> list[int]:
    """Validate one side and return its 25 fields (points 1..24, bar)."""
    if isinstance(points, (str, bytes)) or not isinstance(points, Iterable):
        raise InvalidPositionError(f"{who}_points must be a sequence of {_NPOINTS} ints")
    try:
        items = list(points)
    except TypeError:  # an Iterable that refuses, e.g. a 0-d numpy array
        raise InvalidPositionError(
            f"{who}_points must be a sequence of {_NPOINTS} ints, not {type(points).__name__}"
        ) from None
    if len(items) != _NPOINTS:
        raise InvalidPositionError(
            f"{who}_points must have {_NPOINTS} entries, got {len(items)}"
        )
    fields = [_check_count(v, f"{who}_points[{k}]") for k, v in enumerate(items)]
    fields.append(_check_count(bar, f"{who}_bar"))
    total = sum(fields)
    if total > _NCHECKERS:
        raise InvalidPositionError(
            f"{who} has {total} checkers on points and bar, more than {_NCHECKERS}"
        )
    return fields


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
    mover = _check_side(mover_points, mover_bar, "mover")
    other = _check_side(other_points, other_bar, "other")
    data = bytearray(_NBYTES)
    i = 0
    for n in other + mover:  # the player not on roll comes first
        for _ in range(n):
            data[i >> 3] |= 1 << (i & 7)
            i += 1
        i += 1  # zero-bit ending the field
    value = int.from_bytes(data, "big") << _PAD_BITS
    return "".join(
        _ALPHABET[(value >> (6 * k)) & 63] for k in reversed(range(ID_LENGTH))
    )
