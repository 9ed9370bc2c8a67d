"""Tests of the GNU Backgammon Position ID codec (fastnardy.notation)."""

from __future__ import annotations

import base64
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fastnardy.testing.speed import GNUBG_ID_FILES, gnubg_ids
from fastnardy.errors import InvalidPositionError
from fastnardy.notation import decode_position_id, encode_position_id

START_ID = "4HPwATDgc/ABMA"
# Each side: 2 on point 24, 5 on 13, 3 on 8, 5 on 6 (index = point - 1).
START_POINTS = tuple({5: 5, 7: 3, 12: 5, 23: 2}.get(i, 0) for i in range(24))



# --- independent helpers (use only the base64 module, not the codec) --------------------


def id_from_bits(bits: str) -> str:
    """Build a Position ID from a '0'/'1' string (bit i -> byte i//8, bit i%8), zero-filled."""
    assert len(bits) <= 80 and set(bits) <= {"0", "1"}
    data = bytearray(10)
    for i, b in enumerate(bits):
        if b == "1":
            data[i // 8] |= 1 << (i % 8)
    return base64.b64encode(bytes(data)).decode("ascii").rstrip("=")


def bits_from_id(pid: str) -> str:
    """The 80 bits of a Position ID as a '0'/'1' string, bit i = byte i//8, bit i%8."""
    data = base64.b64decode(pid + "==")
    return "".join(str((data[i // 8] >> (i % 8)) & 1) for i in range(80))


def side_bits(points, bar) -> str:
    """Unary encoding of one side: n ones then a zero, for points 1..24 then the bar."""
    return "".join("1" * n + "0" for n in (*points, bar))


def reference_decode(pid: str):
    """A second, string-based decoder: split the bit string on its zero-bits."""
    fields = [len(run) for run in bits_from_id(pid).split("0")[:50]]
    other, mover = fields[:25], fields[25:]
    return tuple(mover[:24]), mover[24], tuple(other[:24]), other[24]


# --- start position ----------------------------------------------------------------------


def test_start_id_decodes_to_start():
    assert decode_position_id(START_ID) == (START_POINTS, 0, START_POINTS, 0)


def test_start_encodes_to_start_id():
    assert encode_position_id(START_POINTS, 0, START_POINTS, 0) == START_ID
    assert encode_position_id(list(START_POINTS), 0, list(START_POINTS), 0) == START_ID


def test_start_id_matches_bit_layout():
    assert id_from_bits(side_bits(START_POINTS, 0) * 2) == START_ID


def test_empty_board():
    # Everything borne off: 50 zero-bits, i.e. all-zero bytes.
    assert decode_position_id("AAAAAAAAAAAAAA") == ((0,) * 24, 0, (0,) * 24, 0)
    assert encode_position_id([0] * 24, 0, [0] * 24, 0) == "AAAAAAAAAAAAAA"


# --- hand-checked non-start IDs ----------------------------------------------------------


def test_hand_built_id():
    # Player not on roll: 1 checker on its point 1, rest off.
    #   bit 0 = 1, then 25 zero-bits (bits 1..25) ending its 25 fields.
    # Player on roll: 2 checkers on the bar, rest off.
    #   24 zero-bits for its points (bits 26..49), then bits 50, 51 = 1, bit 52 = 0.
    # Bytes: byte 0 = 0b00000001; bits 50, 51 are byte 6 bits 2, 3 -> 0b00001100.
    data = bytes([0x01, 0, 0, 0, 0, 0, 0x0C, 0, 0, 0])
    pid = base64.b64encode(data).decode().rstrip("=")
    assert pid == "AQAAAAAADAAAAA"
    other = (1,) + (0,) * 23
    assert decode_position_id(pid) == ((0,) * 24, 2, other, 0)
    assert encode_position_id((0,) * 24, 2, other, 0) == pid


def test_hand_checked_data_id():
    # First contact position of the data set. Bytes bf 7b 00 00 08 66 77 33 00 01.
    pid = "v3sAAAhmdzMAAQ"
    assert base64.b64decode(pid + "==").hex() == "bf7b0000086677330001"
    # Little-endian bits of each byte:
    #   bf=10111111 -> 11111101   7b=01111011 -> 11011110   00 -> 00000000 00 -> 00000000
    #   08=00001000 -> 00010000   66=01100110 -> 01100110   77=01110111 -> 11101110
    #   33=00110011 -> 11001100   00 -> 00000000            01=00000001 -> 10000000
    bits = "11111101" "11011110" "00000000" "00000000" "00010000" \
           "01100110" "11101110" "11001100" "00000000" "10000000"
    assert bits_from_id(pid) == bits
    # Player not on roll: "1111110" point 1 = 6, "1110" point 2 = 3, "11110" point 3 = 4,
    # 19 zeros (points 4..22), "10" point 23 = 1, "0" point 24, "0" bar  -> 14 checkers.
    other = (6, 3, 4) + (0,) * 19 + (1, 0)
    # That is 7 + 4 + 5 + 19 + 2 + 1 + 1 = 39 bits.
    assert side_bits(other, 0) == bits[:39]
    # Player on roll from bit 39: "0" "0" "110" "0" "110" "1110" "1110" "110" "0" "110"
    # (points 1..10 = 0 0 2 0 2 3 3 2 0 2), 9 zeros (points 11..19), "10" point 20 = 1,
    # 5 zeros (points 21..24, bar) -> 15 checkers, 40 bits; bit 79 is the one unused bit.
    mover = (0, 0, 2, 0, 2, 3, 3, 2, 0, 2) + (0,) * 9 + (1, 0, 0, 0, 0)
    assert side_bits(other, 0) + side_bits(mover, 0) + "0" == bits
    assert decode_position_id(pid) == (mover, 0, other, 0)
    assert encode_position_id(mover, 0, other, 0) == pid


# --- benchmark data sets -----------------------------------------------------------------


@pytest.mark.parametrize("name", GNUBG_ID_FILES)
def test_data_ids_round_trip(name):
    ids = gnubg_ids(name)
    assert len(ids) == 1000
    for pid in ids:
        decoded = decode_position_id(pid)
        mover_points, mover_bar, other_points, other_bar = decoded
        assert len(mover_points) == len(other_points) == 24
        assert sum(mover_points) + mover_bar <= 15
        assert sum(other_points) + other_bar <= 15
        assert decoded == reference_decode(pid), pid
        assert encode_position_id(*decoded) == pid


# --- property tests ----------------------------------------------------------------------

# One side: at most 15 checkers spread over the 25 fields (points 1..24, bar).
side = st.lists(st.integers(0, 24), max_size=15).map(
    lambda cells: (tuple(Counter(cells)[i] for i in range(24)), Counter(cells)[24])
)


@given(side, side)
def test_round_trip_random_boards(mover, other):
    position = (mover[0], mover[1], other[0], other[1])
    pid = encode_position_id(*position)
    assert len(pid) == 14
    assert pid == id_from_bits(side_bits(*other) + side_bits(*mover))
    assert decode_position_id(pid) == position


@given(st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
               min_size=14, max_size=14))
def test_random_ids_decode_or_raise_invalid(pid):
    try:
        decoded = decode_position_id(pid)
    except InvalidPositionError:
        return
    assert encode_position_id(*decoded) == pid


@given(st.one_of(st.text(max_size=20), st.binary(max_size=20), st.integers(), st.none()))
def test_garbage_raises_only_invalid_position(value):
    try:
        decode_position_id(value)
    except InvalidPositionError:
        pass


# --- bad inputs --------------------------------------------------------------------------

BAD_IDS = [
    pytest.param(None, id="None"),
    pytest.param(12345, id="int"),
    pytest.param(b"4HPwATDgc/ABMA", id="bytes"),
    pytest.param(["4HPwATDgc/ABMA"], id="list"),
    pytest.param("", id="empty"),
    pytest.param("4HPwATDgc/ABM", id="13 chars"),
    pytest.param("4HPwATDgc/ABMAA", id="15 chars"),
    pytest.param("4HPwATDgc/ABMA==", id="base64 padding"),
    pytest.param(" 4HPwATDgc/ABMA", id="leading space"),
    pytest.param("4HPwATDgc/ABM=", id="'=' inside"),
    pytest.param("4HPwATDgc-ABMA", id="urlsafe '-'"),
    pytest.param("4HPwATDgc_ABMA", id="urlsafe '_'"),
    pytest.param("4HPwATDgc ABMA", id="space"),
    pytest.param("4HPwATDgc\nABMA", id="newline"),
    pytest.param("4HPwATDgc/ABM\u00e9", id="non-ASCII"),
    pytest.param("\uff14HPwATDgc/ABMA", id="fullwidth digit"),
    pytest.param("4HPwATDgc/ABMB", id="nonzero padding bit"),
    pytest.param("//////////////", id="all ones"),
    pytest.param("/////////////w", id="all ones, padding clear"),
    pytest.param(id_from_bits("1" * 16), id="16 checkers not on roll"),
    pytest.param(id_from_bits("0" * 25 + "1" * 16), id="16 checkers on roll"),
    pytest.param(id_from_bits("1" * 8 + "0" + "1" * 8), id="16 over two points"),
    pytest.param(id_from_bits("0" * 24 + "1" * 16), id="16 on bar, not on roll"),
    pytest.param(id_from_bits("0" * 60 + "1"), id="trailing garbage bit"),
    pytest.param(id_from_bits("0" * 79 + "1"), id="last bit set"),
    pytest.param(id_from_bits(side_bits(START_POINTS, 0) * 2)[:-1] + "B", id="start + pad bit"),
    pytest.param(id_from_bits(("1" * 15 + "0" * 25) + "1" * 15 + "0" * 24 + "1"),
                 id="bits run out in the bar field"),
]


@pytest.mark.parametrize("pid", BAD_IDS)
def test_bad_ids_raise(pid):
    with pytest.raises(InvalidPositionError):
        decode_position_id(pid)


ZERO = (0,) * 24
BAD_BOARDS = [
    pytest.param((None, 0, ZERO, 0), id="points None"),
    pytest.param((5, 0, ZERO, 0), id="points int"),
    pytest.param(("0" * 24, 0, ZERO, 0), id="points str"),
    pytest.param(((0,) * 23, 0, ZERO, 0), id="23 points"),
    pytest.param((ZERO, 0, (0,) * 25, 0), id="25 points"),
    pytest.param(((-1,) + (0,) * 23, 0, ZERO, 0), id="negative point"),
    pytest.param((ZERO, -1, ZERO, 0), id="negative bar"),
    pytest.param((ZERO, 0, ZERO, 1.0), id="float bar"),
    pytest.param((ZERO, 0, ZERO, "1"), id="str bar"),
    pytest.param((ZERO, None, ZERO, 0), id="None bar"),
    pytest.param(((1.5,) + (0,) * 23, 0, ZERO, 0), id="float point"),
    pytest.param(((True,) + (0,) * 23, 0, ZERO, 0), id="bool point"),
    pytest.param(((16,) + (0,) * 23, 0, ZERO, 0), id="16 on one point"),
    pytest.param((ZERO, 0, (8,) + (0,) * 22 + (8,), 0), id="16 over points"),
    pytest.param((START_POINTS, 1, ZERO, 0), id="15 + 1 on bar"),
    pytest.param((ZERO, 0, ZERO, 16), id="16 on bar"),
]


@pytest.mark.parametrize("board", BAD_BOARDS)
def test_bad_boards_raise(board):
    with pytest.raises(InvalidPositionError):
        encode_position_id(*board)
