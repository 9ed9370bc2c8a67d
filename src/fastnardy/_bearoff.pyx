"""fastnardy._bearoff -- the two-sided bear-off database's loops, compiled.

:func:`solve` fills the entries of one pip level (the two sides' pips summed) from the
levels below it by the exact recursion of :mod:`fastnardy.search.bearoff`; a :class:`Table`
holds a finished database's arrays for the network's inference (``bo_covers``,
``bo_entry`` and ``bo_sums`` read it without the GIL). A Table is read-only: safe to share
between threads.
"""

from libc.math cimport log
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint32_t

import numpy as np

from fastnardy.errors import FastNardyError

# the stored scales: a win chance times WIN_SCALE in a uint32 (within 1.2e-10), an equity
# (-1 to 1) times EQUITY_SCALE in an int16 (within 1.6e-5)
WIN_SCALE = 4294967295.0
EQUITY_SCALE = 32767.0
cdef double C_WIN_SCALE = WIN_SCALE
cdef int HOME = 6
cdef int ROLLS = 21
# the outputs' sums written for a database entry: the win's logit, and the four others far
# below 0 (no mars, gammon or backgammon is left when each side has borne a checker off)
cdef float NONE_SUM = -100.0
cdef float LOGIT_BOUND = 80.0
# C(n, j) for n = 0..20, j = 0..6 (the ranks' combinatorial number system)
cdef Py_ssize_t BINOM[21][7]


cdef void fill_binomials() noexcept:
    cdef int n, j
    for n in range(21):
        for j in range(7):
            BINOM[n][j] = 0
        BINOM[n][0] = 1
        for j in range(1, 7):
            if n > 0:
                BINOM[n][j] = BINOM[n - 1][j - 1] + BINOM[n - 1][j]


fill_binomials()


cdef inline Py_ssize_t rank6(const int8_t* home) noexcept nogil:
    """The rank of 6 home counts (fastnardy.search.bearoff.index, at most 15 checkers)."""
    cdef Py_ssize_t rank = 0
    cdef int j, total = 0
    for j in range(HOME):
        total += home[j]
        rank += BINOM[total + j][j + 1]
    return rank


cdef bint bo_covers(const bo_table* table, const int8_t* mover, uint32_t held0, int count0,
                    const int8_t* other, uint32_t held1, int count1) noexcept nogil:
    """Whether the database holds a checked board row's position: each side has 1 to
    ``checkers`` checkers, all on its points 1 to 6 (L8/S7: both are bearing off)."""
    return (table != NULL and (held0 | held1) >> HOME == 0 and mover[24] == 0
            and other[24] == 0 and 0 < count0 <= table.checkers
            and 0 < count1 <= table.checkers)


cdef Py_ssize_t bo_entry(const bo_table* table, const int8_t* mover,
                         const int8_t* other) noexcept nogil:
    """The entry of a covered position: the mover's home counts, then the other side's."""
    return rank6(mover) * table.size + rank6(other)


cdef inline Py_ssize_t row_entry(const bo_table* table, const int8_t* row) noexcept nogil:
    """The entry of a board row (mover's 24 points and bar, then the other side's) that the
    database holds, else -1."""
    cdef int side, j, count
    for side in range(2):
        count = 0
        for j in range(25):
            if j < HOME:
                count += row[25 * side + j]
            elif row[25 * side + j] != 0:
                return -1
        if count < 1 or count > table.checkers:
            return -1
    return bo_entry(table, row, row + 25)


cdef void bo_sums(const bo_table* table, Py_ssize_t entry, float* sums) noexcept nogil:
    """The network's five outputs' sums that give the entry's win chance and no mars:
    their sigmoids are the database's values (within the float32 sigmoid's 1e-7)."""
    cdef double p = table.wins[entry] / C_WIN_SCALE
    cdef double logit
    if p <= 0.0:
        logit = -LOGIT_BOUND
    elif p >= 1.0:
        logit = LOGIT_BOUND
    else:
        logit = log(p / (1.0 - p))
        logit = min(LOGIT_BOUND, max(-LOGIT_BOUND, logit))
    sums[0] = <float>logit
    sums[1] = sums[2] = sums[3] = sums[4] = NONE_SUM


cdef inline void solve_entry(double* values, Py_ssize_t size, Py_ssize_t a, Py_ssize_t b,
                             const int32_t* first, const int32_t* kids,
                             const double* weights) noexcept nogil:
    """values[a * size + b]: win, then the cubeful money equities if the mover does not
    double now, the cube centred and the cube its own, and with the cube the other side's,
    from the entries of the other side to move after each roll's best turn (one best turn
    for each value; the other side's equities with its own cube action: cube_equity)."""
    cdef double* out = values + (a * size + b) * BO_VALUES
    cdef const double* e
    cdef double win = 0.0, centred = 0.0, owned = 0.0, theirs = 0.0
    cdef double best_win, best_centred, best_owned, best_theirs, weight
    cdef int r
    cdef int32_t k
    if a == 0:  # the mover has borne off every checker: the game is over, won
        out[0] = out[1] = out[2] = out[3] = 1.0
        return
    if b == 0:  # the other side has: lost
        out[0] = 0.0
        out[1] = out[2] = out[3] = -1.0
        return
    for r in range(ROLLS):
        weight = weights[r]
        best_win = best_centred = best_owned = best_theirs = -2.0
        for k in range(first[a * ROLLS + r], first[a * ROLLS + r + 1]):
            e = values + (b * size + kids[k]) * BO_VALUES
            best_win = max(best_win, 1.0 - e[0])
            best_centred = max(best_centred, -cube_equity(e[1], e[3]))
            best_owned = max(best_owned, -e[3])  # the other side sees its opponent own it
            best_theirs = max(best_theirs, -cube_equity(e[2], e[3]))  # and itself own it
        win += weight * best_win
        centred += weight * best_centred
        owned += weight * best_owned
        theirs += weight * best_theirs
    out[0] = win / 36.0
    out[1] = centred / 36.0
    out[2] = owned / 36.0
    out[3] = theirs / 36.0


cdef inline double cube_equity(double no_double, double theirs) noexcept nogil:
    """The mover's money equity with its best cube action, holding the cube (centred or its
    own): ``no_double`` if it does not double; if it doubles, the other side takes (the
    other side owns a cube of twice the stake: 2 ``theirs``, geometric stakes, C2, C3) or
    drops (the mover wins the stake, 1), whichever is worse for the mover."""
    return max(no_double, min(2.0 * theirs, 1.0))


def solve(double[::1] values, Py_ssize_t size, const int32_t[::1] first,
          const int32_t[::1] kids, const double[::1] weights, const int32_t[::1] pips,
          const int32_t[::1] by_pip, const int32_t[::1] pip_start, int level,
          Py_ssize_t a_lo, Py_ssize_t a_hi):
    """Fill the entries (a, b) with a in [a_lo, a_hi) and pips[a] + pips[b] == level (every
    entry of a lower level filled already), without the GIL. ``values`` is size * size *
    BO_VALUES float64; ``first``/``kids`` the distinct children of each position and roll
    (position a's roll r: kids[first[21 a + r]:first[21 a + r + 1]], each roll of
    fastnardy.basics.ALL_ROLLS's order); ``by_pip`` the positions sorted by pips, those of p
    pips at pip_start[p]:pip_start[p + 1]; ``weights`` each roll's outcomes of 36."""
    cdef Py_ssize_t a, i, b
    cdef int other, most = pip_start.shape[0] - 2
    if values.shape[0] != size * size * BO_VALUES or first.shape[0] != size * ROLLS + 1:
        raise FastNardyError("solve: the arrays do not fit the database's size")
    if (a_lo < 0 or a_hi > size or pips.shape[0] != size or by_pip.shape[0] != size
            or weights.shape[0] != ROLLS):
        raise FastNardyError("solve: the positions do not fit the database's size")
    with nogil:
        for a in range(a_lo, a_hi):
            other = level - pips[a]
            if other < 0 or other > most:
                continue
            for i in range(pip_start[other], pip_start[other + 1]):
                b = by_pip[i]
                solve_entry(&values[0], size, a, b, &first[0], &kids[0], &weights[0])


cdef class Table:
    """A finished database for the network's inference: ``Table(wins, cubeful, checkers)``
    with the arrays of fastnardy.search.bearoff.Database (``wins`` uint32 of size * size,
    ``cubeful`` int16 of size * size * 3; held as they are when read-only, else copied).
    Read-only: safe to share between threads."""

    def __init__(self, wins, cubeful, int checkers):
        cdef const uint32_t[::1] w
        cdef const int16_t[::1] c
        size = int(BINOM[checkers + HOME][HOME]) if 0 < checkers <= 14 else -1
        if size < 0:
            raise FastNardyError(f"a database holds 1 to 14 checkers a side, not {checkers}")
        if (not isinstance(wins, np.ndarray) or wins.dtype != np.uint32
                or wins.shape != (size * size,) or not isinstance(cubeful, np.ndarray)
                or cubeful.dtype != np.int16 or cubeful.shape != (size * size * BO_CUBEFUL,)):
            raise FastNardyError(f"a database of {checkers} checkers is uint32 "
                                 f"({size * size},) and int16 ({size * size * BO_CUBEFUL},)")
        if wins.flags.writeable or not wins.flags.c_contiguous:  # a read-only copy
            wins = np.array(wins)
            wins.setflags(write=False)
        if cubeful.flags.writeable or not cubeful.flags.c_contiguous:
            cubeful = np.array(cubeful)
            cubeful.setflags(write=False)
        w = wins
        c = cubeful
        self.arrays = (wins, cubeful)
        self.table.wins = &w[0]
        self.table.cubeful = &c[0]
        self.table.size = size
        self.table.checkers = checkers

    @property
    def checkers(self):
        """The most checkers a side has."""
        return self.table.checkers

    def entries(self, const int8_t[:, ::1] rows not None):
        """The entry of each board row (N, 50; checker counts, as fastnardy.checks.rows
        gives them) that the database holds, else -1: int64 (N,)."""
        cdef Py_ssize_t i, n = rows.shape[0]
        if rows.shape[1] != 50:
            raise FastNardyError(f"board rows have 50 columns, not {rows.shape[1]}")
        out = np.empty(n, dtype=np.int64)
        cdef int64_t[::1] found = out
        if n:
            with nogil:
                for i in range(n):
                    found[i] = row_entry(&self.table, &rows[i, 0])
        return out

    def __reduce__(self):
        return Table, (self.arrays[0], self.arrays[1], self.table.checkers)
