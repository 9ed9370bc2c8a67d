# fastnardy._features: the network inputs of board rows and packed keys, and for compiled
# code that evaluates positions without materialising a feature array (fastnardy._nnet) the
# check of one row or key and what it learns on the way. The meaning of every column is in
# fastnardy.inputs; the code is in _features.pyx.

from libc.stdint cimport int8_t, uint32_t, uint64_t

from fastnardy._packed cimport nb_ctz, nb_top

cdef enum:
    # feature kinds (fastnardy.inputs' _CODES) and their widths
    K_RAW = 0
    K_TDGAMMON = 1
    K_NARDY = 2
    W_RAW = 52
    W_TDGAMMON = 198
    W_NARDY = 248
    W_MAX = 248
    # the columns of the point units (fastnardy.inputs): point p (0-based, own numbering)
    # of the mover at U*p .. U*p+U-1, of the opponent at B + U*p ..
    U_RAW = 1
    U_TDGAMMON = 4
    U_NARDY = 4
    B_RAW = 25
    B_TDGAMMON = 98
    B_NARDY = 124


ctypedef struct mirror_map:
    # the mirror (RULES.md section 0, given by the caller) as a column table and, for each
    # byte k of a 24-bit held mask and its value, the mirrored bits
    int8_t column[24]
    uint32_t bits[3][256]


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
    return nb_ctz(mirrored(m, ((<uint32_t>2) << nb_top(other)) - 1)) <= nb_top(own)


cdef bint features_contact(int kind, const float* x, const mirror_map* m) noexcept nogil
cdef int row_faults(const int8_t* row, const mirror_map* m, int is_short,
                    row_facts* facts) noexcept nogil
cdef int key_row(uint64_t lo, uint64_t hi, int is_short, int8_t* row,
                 row_facts* facts) noexcept nogil
cdef int raise_fault(int faults, int keys) except -1
cdef void features_use_simd(int isa) noexcept nogil
