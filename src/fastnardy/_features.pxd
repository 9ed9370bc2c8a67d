# fastnardy._features: the network inputs of board rows and packed keys, and for compiled
# code that evaluates positions without materialising a feature array (fastnardy._nnet) the
# check of one row or key and what it learns on the way. The meaning of every column is in
# fastnardy.inputs; the code is in _features.pyx.

from libc.stdint cimport int8_t, uint8_t, uint32_t, uint64_t

from fastnardy._packed cimport (count24, held24, nb_ctz, nb_key_has_31, nb_key_row_words,
                                nb_load8, nb_top, words3)

cdef enum:
    # feature kinds (fastnardy.inputs' _CODES) and their widths
    K_RAW = 0
    K_TDGAMMON = 1
    K_NARDY = 2
    K_SHOTS = 3
    W_RAW = 52
    W_TDGAMMON = 198
    W_NARDY = 248
    W_SHOTS = 206
    W_MAX = 248
    # the columns of the point units (fastnardy.inputs): point p (0-based, own numbering)
    # of the mover at U*p .. U*p+U-1, of the opponent at B + U*p ..
    U_RAW = 1
    U_TDGAMMON = 4
    U_NARDY = 4
    B_RAW = 25
    B_TDGAMMON = 98
    B_NARDY = 124
    # the shots kind: the tdgammon columns, then side s's shots, escapes, back checker and
    # pip loss at C_SHOTS + 4 * s
    C_SHOTS = 198
    CRASHED = 6  # a crashed side's checkers in play at most (crashed_side)


ctypedef struct mirror_map:
    # the mirror (RULES.md section 0, given by the caller) as a column table; for each
    # byte k of a 24-bit held mask and its value, the mirrored bits; and for each point v,
    # the lowest mirror of the points 0 to v
    int8_t column[24]
    uint32_t bits[3][256]
    int8_t reach[24]


ctypedef struct row_facts:
    # what the check of a row learns on the way: each side's held mask (own numbering) and
    # checker count (board and bar), which the features reuse
    uint32_t held[2]
    int count[2]


cdef const mirror_map* mirror_of(object mirror) except NULL
cdef object keys_array(object array)
cdef object rows_array(object array)
cdef inline uint32_t mirrored(const mirror_map* m, uint32_t held) noexcept nogil:
    """The 24-bit mask with bit mirror(q) set for each bit q of ``held``."""
    return m.bits[0][held & 0xFF] | m.bits[1][(held >> 8) & 0xFF] | m.bits[2][held >> 16]


cdef inline bint in_contact(const mirror_map* m, uint32_t own, uint32_t other,
                            int bars) noexcept nogil:
    """Contact, as GNU Backgammon splits its networks: a checker on a bar (``bars``), or the
    mover's rearmost checker (``own``, ``other``: the held masks) on or behind a point that
    the opponent's checkers still pass (the mirror of one of its points up to its rearmost),
    so the two sides may still meet; else a race."""
    if bars:
        return 1
    if own == 0 or other == 0:
        return 0
    return m.reach[nb_top(other)] <= nb_top(own)


cdef bint features_contact(int kind, const float* x, const mirror_map* m) noexcept nogil


cdef inline bint crashed_side(int count, int ace, int two) noexcept nogil:
    """A side that has crashed, as GNU Backgammon's crashed class has it: at most CRASHED
    checkers in play (``count``, on its points and bar), those piled on its 1 and 2 points
    (``ace``, ``two``) beyond the first on each not counted."""
    return count - (ace - 1 if ace > 1 else 0) - (two - 1 if two > 1 else 0) <= CRASHED


cdef inline bint in_crashed(const int8_t* row, const row_facts* facts) noexcept nogil:
    """A checked short-nardy row where either side has crashed (crashed_side)."""
    return (crashed_side(facts.count[0], row[0], row[1])
            or crashed_side(facts.count[1], row[25], row[26]))


cdef bint features_crashed(const float* x) noexcept nogil


# The shots kind's contact inputs (fastnardy.search.inputs), inline for _nnet as the checks
# below. Masks are of points in one side's own numbering (bit p - 1: point p), the bar at
# bit 24 where a mask may hold it.
ctypedef int (*shots_fn)(uint32_t sources, uint32_t blots, uint32_t blocks,
                        int* loss) noexcept nogil
cdef const uint8_t* escape_table() noexcept nogil
cdef shots_fn shots_function() noexcept nogil


cdef inline uint32_t stacked24(const int8_t* side) noexcept nogil:
    """The mask of a side's points holding two checkers or more (a count of 0..15 is 2 or
    more when one of its bits 1 to 3 is set)."""
    cdef uint64_t high = <uint64_t>0x0E0E0E0E0E0E0E0E
    return held24(nb_load8(side) & high, nb_load8(side + 8) & high,
                  nb_load8(side + 16) & high)


cdef inline int escapes(const uint8_t* table, int back, uint32_t blocks) noexcept nogil:
    """The rolls of 36 with which a checker on point ``back`` (25: the bar) passes every
    point of ``blocks`` (its own numbering) among the twelve ahead of it (escape_table)."""
    cdef uint32_t window = (blocks >> (back - 13)) if back >= 13 else (blocks << (13 - back))
    return table[window & 0xFFF]


cdef inline uint32_t side_shots(const int8_t* own, uint32_t held, uint32_t seen_held,
                                uint32_t seen_stacked, const int8_t* other, uint32_t other_held,
                                uint32_t other_seen_stacked, const uint8_t* table,
                                shots_fn shots) noexcept nogil:
    """A side's four counts of the shots inputs (shots_values), a byte each; ``seen_*``
    are masks mirrored into the other side's numbering."""
    cdef int loss = 0
    cdef uint32_t hits = 0
    cdef uint32_t sources = other_held | ((other[24] != 0) << 24)
    cdef uint32_t blots = seen_held & ~seen_stacked
    if sources >= 2 * (blots & -blots):  # a blot, and an attacker behind one
        hits = shots(sources, blots, seen_stacked, &loss)
    cdef uint32_t back = 25 if own[24] else nb_top(held) + 1 if held else 0
    return (hits | <uint32_t>escapes(table, back, other_seen_stacked) << 8
            | back << 16 | <uint32_t>((2 * loss + 9) // 18) << 24)


cdef inline uint64_t shots_values(const mirror_map* m, const int8_t* side0, uint32_t held0,
                                  const int8_t* side1, uint32_t held1, const uint8_t* table,
                                  shots_fn shots) noexcept nogil:
    """The eight counts of the shots inputs of a row's two sides (``side0`` the mover's 25
    counts and held mask, ``side1`` the opponent's), input k in byte k (each is below 256,
    and packed they stay in a register): for each side, the other side's shots at its blots
    (``shots``: the instruction set's count, shots_function), its back checker's escapes,
    its back checker's point (25: the bar, 0: none) and its pip loss in quarter pips a roll
    (0..96: the sum of shots' loss over 9, rounded half up). A mirror moves bits, so the
    mirror of a side's blots is its mirrored points less its mirrored stacks."""
    cdef uint32_t seen_stacked0 = mirrored(m, stacked24(side0))
    cdef uint32_t seen_stacked1 = mirrored(m, stacked24(side1))
    return (side_shots(side0, held0, mirrored(m, held0), seen_stacked0, side1, held1,
                       seen_stacked1, table, shots)
            | <uint64_t>side_shots(side1, held1, mirrored(m, held1), seen_stacked1, side0,
                                   held0, seen_stacked0, table, shots) << 32)


# The checks of one row or key below run for every board a network values: inline here, so
# that _nnet's calls are not calls through another module's function pointer.
cdef enum:
    # faults found in a pass, highest priority first
    E_RANGE = 1     # a row count outside 0..15
    E_FIELD = 2     # a key field of 31
    E_COUNT = 4     # more than 15 checkers of a side (T7)
    E_BAR = 8       # a bar checker in long nardy (L3)
    E_BOTH = 16     # a point holding both colours (T7)


cdef inline int side_masks(const int8_t* side, uint32_t* held, int* count) noexcept nogil:
    """A side's 24 points and bar: its held mask and its checker count, or E_RANGE."""
    cdef uint64_t a = nb_load8(side), b = nb_load8(side + 8), c = nb_load8(side + 16)
    # eight counts a word (SWAR): a high nibble set is a count outside 0..15
    if ((a | b | c) & <uint64_t>0xF0F0F0F0F0F0F0F0) or (side[24] & 0xF0):
        return E_RANGE
    held[0] = held24(a, b, c)
    count[0] = count24(a, b, c) + side[24]
    return 0


cdef inline int row_faults(const int8_t* row, const mirror_map* m, int is_short,
                           row_facts* facts) noexcept nogil:
    """The faults of a board row (E_* bits; 0 for a well-formed row, ``facts`` filled)."""
    cdef int faults = 0
    if (side_masks(row, &facts.held[0], &facts.count[0])
            or side_masks(row + 25, &facts.held[1], &facts.count[1])):
        return E_RANGE
    if facts.count[0] > 15 or facts.count[1] > 15:
        faults |= E_COUNT
    if not is_short and (row[24] or row[49]):
        faults |= E_BAR
    if facts.held[0] & mirrored(m, facts.held[1]):
        faults |= E_BOTH
    return faults


cdef inline int key_checked(uint64_t lo, uint64_t hi, int is_short, uint64_t* w,
                            int* count) noexcept nogil:
    """The row words of a key (nb_key_row_words) and each side's checker count, in the pass
    that checks it, or the E_* bits of its faults. A key's fields each hold one side and
    count 0..15, so no point holds both (E_BOTH) and no count is out of range (E_RANGE)."""
    cdef int fault = 0
    if nb_key_has_31(lo, hi):
        return E_FIELD
    nb_key_row_words(lo, hi, is_short, w)
    count[0] = count24(w[0], w[1], w[2]) + <int>(lo >> 60)
    count[1] = count24(w[3], w[4], w[5]) + <int>(hi >> 60)
    if count[0] > 15 or count[1] > 15:
        fault |= E_COUNT
    if not is_short and (lo >> 60 or hi >> 60):
        fault |= E_BAR
    return fault


cdef inline int key_row(uint64_t lo, uint64_t hi, int is_short, int8_t* row,
                        row_facts* facts) noexcept nogil:
    """The board row of a key and its facts (key_checked, then each side's held mask), or
    the E_* bits of its faults."""
    cdef uint64_t w[6]
    cdef int side, fault = key_checked(lo, hi, is_short, w, facts.count)
    if fault:
        return fault
    for side in range(2):
        facts.held[side] = held24(w[3 * side], w[3 * side + 1], w[3 * side + 2])
    words3(row, w[0], w[1], w[2])
    words3(row + 25, w[3], w[4], w[5])
    row[24] = <int8_t>(lo >> 60)
    row[49] = <int8_t>(hi >> 60)
    return 0


cdef int raise_fault(int faults, int keys) except -1
cdef void features_use_simd(int isa) noexcept nogil
