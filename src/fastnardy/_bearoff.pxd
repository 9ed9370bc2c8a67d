# fastnardy._bearoff: the two-sided bear-off database in compiled code (its build, and the
# lookup the network's inference makes without the GIL). fastnardy.search.bearoff holds the
# method and the file; this module the loops.

from libc.stdint cimport int8_t, int16_t, uint32_t

cdef enum:
    BO_VALUES = 4      # per entry while building: win, cubeful centred, owned, opponent's
    BO_CUBEFUL = 3     # cubeful money equities stored per entry (centred, owned, opponent's)


ctypedef struct bo_table:
    # a database's arrays (memory-mapped or in memory; read-only): entry a * size + b is the
    # side to move holding home a against home b, a and b ranked as fastnardy.search.bearoff
    # ranks them
    const uint32_t* wins     # the mover's cubeless win chance times WIN_SCALE
    const int16_t* cubeful   # BO_CUBEFUL money equities times EQUITY_SCALE
    Py_ssize_t size          # positions a side: C(checkers + 6, 6)
    int checkers             # the most checkers a side has


cdef bint bo_covers(const bo_table* table, const int8_t* mover, uint32_t held0, int count0,
                    const int8_t* other, uint32_t held1, int count1) noexcept nogil
cdef Py_ssize_t bo_entry(const bo_table* table, const int8_t* mover,
                         const int8_t* other) noexcept nogil
cdef void bo_sums(const bo_table* table, Py_ssize_t entry, float* sums) noexcept nogil


cdef class Table:
    cdef bo_table table
    cdef readonly object arrays  # (wins, cubeful): kept alive while the table is read
