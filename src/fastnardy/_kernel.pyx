"""fastnardy._kernel -- the compiled move generator (Cython) for long and short nardy.

It implements the backend contract of :mod:`fastnardy.backend` (``enumerate_turns``,
``perft_count``) in the mover's frame, plus ``count_turns``, ``count_turns_batch``,
``pack`` / ``unpack`` and ``KEY_DTYPE``. Rule ids (L3, S8, T2, ...) refer to RULES.md.

Packed position key (128 bits, mover's frame)
---------------------------------------------
``KEY_DTYPE`` is ``np.dtype([('lo', '<u8'), ('hi', '<u8')])``. Each of the mover's points
p = 1..24 (mover's own numbering) has a 5-bit field ``f(p)``::

    0        empty
    1..15    that many of the MOVER's checkers
    16..30   c OPPONENT checkers, f = 15 + c (c = 1..15)

(no point holds both colours, T7). The fields and the bars are placed as::

    lo bits 5*(p-1) .. 5*(p-1)+4    f(p), p = 1..12
    lo bits 60..63                  mover's bar count (always 0 in long nardy)
    hi bits 5*(p-13) .. 5*(p-13)+4  f(p), p = 13..24
    hi bits 60..63                  opponent's bar count

Borne-off counts are implied (15 minus the rest). Opponent checkers are stored on the
mover's point numbers, through the mirror of RULES.md §0 (long: opponent point q is mover
point q+12 if q <= 12 else q-12; short: 25-q), so ``pack``/``unpack`` take the game.
Two positions with the same mover are equal iff their keys are equal.

Occupancy bitmasks (uint32, bit p = mover's point p, bit 25 = mover's bar)
--------------------------------------------------------------------------
``mine`` (mover has a checker there), ``closed`` (the mover may not land there: long >= 1
opponent checker, L3; short >= 2, S3), ``blots`` (short: exactly one opponent checker),
``hitters`` (S8 forbidden: the mover's checker there has hit this turn; at most one per
point, because a hitter may only step onto a point without own checkers). The source points
playable with die d (d < p, landing on p-d) are one shift-and-mask::

    mine & PTS & ~(closed << d) & ~((2 << d) - 1)

minus bit 24 when the L5 head limit is used up; S5 (bar) reduces it to bit 25 when the bar is
not empty; L8/S7 bearing off adds at most one bit (p == d, else the highest point if < d)
when ``mine`` has no bit above 6 (bit 25 included, so S7's empty-bar condition is free).
L6 (six-block) is ``run6(rot12(mine)) & F``: rot12 maps the mover's points to opponent
numbering, run6 keeps the lowest point of every 6-window that is fully held, and F (fixed per
turn, since nothing is hit in long nardy) is the set of lowest points at which the variant
forbids a block.

Generation
----------
Turns are enumerated by depth-first search over steps in T2 order (source descending, then
destination ascending); every node is an L6/L7 candidate; distinct resulting positions are
kept in an open-addressing table over the key, reset in O(1) by a generation counter, with
the T2-minimal representative sequence kept explicitly per position. For doubles, when the
order of steps cannot matter (short with hit-and-hide allowed or no reachable blot; long when
no forbidden six-block can arise on the way or L6 is checked at the turn end only) the search
visits each multiset of sources once, in non-increasing order; that sequence is then the
T2-minimal legal order of its multiset, the multisets map one-to-one to positions, and no
table is needed. Otherwise the general search is used, with a lossy transposition table of
inner nodes (key, depth, hitters). For non-doubles, when the legality of two steps cannot
depend on their order (empty bar, no S8 hitters, no L6 block possible on the way, no bearing
off, not the same checker twice), only the order with the higher source first is searched
(it is legal whenever the other is, gives the same position and is T2-smaller). The last step
of a turn never builds a board: its key is updated arithmetically.

Bound on the number of distinct turns (sizes NB_MAX_TURNS = 23751)
-----------------------------------------------------------------
A step with die d from source s (bar = 25, or a point) always produces the same change of
the counts (s -> s-d, or s -> off, and a hit of the blot on s-d if one is there, which is
independent of order), so a turn's position depends only on the multiset of its step
sources. All legal turns of one roll use the same number of dice m (or end the game), so
they are distinct multisets of size <= 4 (non-double: one source per die, <= 26 * 26 = 676)
over 25 sources: at most C(25 + 4, 4) = 23751. The result buffer has NB_MAX_TURNS + 1 entries,
the result table 65536 slots (load <= 0.37; non-doubles use 1024 slots, load <= 0.67), so
the linear probing always finds a free slot and terminates. The transposition table is lossy:
when 8 probes find no slot the node is just searched again.

Thread safety: the kernels use module-level buffers and run with the GIL held.
"""

from libc.stdint cimport uint64_t, uint32_t, int8_t, int32_t
from libc.string cimport memset, memcpy
from libc.stdlib cimport malloc, realloc, free, qsort
from cpython.exc cimport PyErr_CheckSignals
from cpython.list cimport PyList_GET_SIZE
from cpython.long cimport PyLong_AsLongAndOverflow, PyLong_CheckExact
from cpython.ref cimport Py_INCREF, PyObject
from cpython.sequence cimport PySequence_Fast_ITEMS
from cpython.tuple cimport PyTuple_GET_SIZE, PyTuple_New, PyTuple_SET_ITEM

import numpy as np
from operator import index as _op_index

from .errors import FastNardyError, InvalidDiceError, InvalidPositionError

cdef extern from *:
    """
    static inline int nb_hibit(unsigned int x) { return 31 - __builtin_clz(x); }
    """
    int nb_hibit(unsigned int x) noexcept nogil
    int nb_popcount "__builtin_popcount"(unsigned int x) noexcept nogil

KEY_DTYPE = np.dtype([("lo", "<u8"), ("hi", "<u8")])

cdef uint32_t PTS = 0x1FFFFFE      # bits 1..24
cdef uint32_t HOME = 0x7E          # bits 1..6
cdef uint32_t BAR = 1u << 25

# module-level buffers (see the bound above)
cdef nb_entry _E[NB_MAX_TURNS + 1]
ctypedef struct nb_slot:
    uint64_t lo
    uint64_t hi
    uint32_t gen
    uint32_t idx
ctypedef struct nb_tslot:
    uint64_t lo
    uint64_t hi
    uint64_t seq
    uint32_t extra
    uint32_t gen
cdef nb_slot _HT[NB_HT_SLOTS]
cdef nb_tslot _TT[NB_TT_SLOTS]
cdef uint32_t _ht_gen = 0
cdef uint32_t _tt_gen = 0
cdef nb_ctx _C
cdef int _fast_paths = 1


# --------------------------------------------------------------------------- board helpers

cdef inline int mir(int q, int is_short) noexcept nogil:
    """The mirror of RULES.md §0 (an involution)."""
    if is_short:
        return 25 - q
    return q + 12 if q <= 12 else q - 12


cdef inline void put(nb_board* b, int p) noexcept nogil:
    """Rewrite the 5-bit key field of point p (1..24)."""
    cdef uint64_t v
    cdef int sh
    if b.m[p]:
        v = <uint64_t>b.m[p]
    elif b.o[p]:
        v = <uint64_t>(15 + b.o[p])
    else:
        v = 0
    if p <= 12:
        sh = 5 * (p - 1)
        b.lo = (b.lo & ~(<uint64_t>31 << sh)) | (v << sh)
    else:
        sh = 5 * (p - 13)
        b.hi = (b.hi & ~(<uint64_t>31 << sh)) | (v << sh)


cdef inline void put_bars(nb_board* b) noexcept nogil:
    b.lo = (b.lo & ~(<uint64_t>15 << 60)) | (<uint64_t>b.m[25] << 60)
    b.hi = (b.hi & ~(<uint64_t>15 << 60)) | (<uint64_t>b.o[25] << 60)


cdef void nb_finish_board(nb_board* b, int is_short) noexcept nogil:
    """Recompute masks, off counts and key from the counts m[1..25], o[1..25]."""
    cdef int p, sm = 0, so = 0
    b.mine = 0
    b.closed = 0
    b.blots = 0
    b.hitters = 0
    b.lo = 0
    b.hi = 0
    for p in range(1, 26):
        sm += b.m[p]
        so += b.o[p]
        if b.m[p] > 0:
            b.mine |= 1u << p
    for p in range(1, 25):
        if is_short:
            if b.o[p] >= 2:
                b.closed |= 1u << p
            elif b.o[p] == 1:
                b.blots |= 1u << p
        elif b.o[p] >= 1:
            b.closed |= 1u << p
        put(b, p)
    b.m[0] = <int8_t>(15 - sm)
    b.o[0] = <int8_t>(15 - so)
    put_bars(b)


cdef void nb_board_from_key(uint64_t lo, uint64_t hi, int is_short, nb_board* b) noexcept nogil:
    cdef int p
    cdef uint32_t v
    memset(b, 0, sizeof(nb_board))
    for p in range(1, 25):
        if p <= 12:
            v = <uint32_t>((lo >> (5 * (p - 1))) & 31)
        else:
            v = <uint32_t>((hi >> (5 * (p - 13))) & 31)
        if v >= 16:
            b.o[p] = <int8_t>(v - 15)
        else:
            b.m[p] = <int8_t>v
    b.m[25] = <int8_t>(lo >> 60)
    b.o[25] = <int8_t>(hi >> 60)
    nb_finish_board(b, is_short)


cdef void nb_swap(const nb_board* b, int is_short, nb_board* child) noexcept nogil:
    """The same position with the opponent to move (its own frame)."""
    cdef int q, p
    memset(child, 0, sizeof(nb_board))
    for q in range(1, 25):
        p = mir(q, is_short)
        child.m[q] = b.o[p]
        child.o[q] = b.m[p]
    child.m[25] = b.o[25]
    child.o[25] = b.m[25]
    nb_finish_board(child, is_short)


cdef inline uint32_t run6_forbidden(uint32_t mine, uint32_t F) noexcept nogil:
    """L6: nonzero iff the mover holds a six-block whose lowest point (opponent numbering)
    is in F."""
    cdef uint32_t q = ((mine & 0x1FFE) << 12) | ((mine >> 12) & 0x1FFE)
    cdef uint32_t a = q & (q >> 1)
    cdef uint32_t b2 = a & (a >> 2)
    return b2 & (a >> 4) & F


cdef inline uint64_t hkey(uint64_t lo, uint64_t hi) noexcept nogil:
    cdef uint64_t h = (lo ^ (hi * <uint64_t>0x9E3779B97F4A7C15)) * <uint64_t>0xBF58476D1CE4E5B9
    return h ^ (h >> 29)


cdef inline void new_gen(nb_ctx* c) noexcept nogil:
    global _ht_gen
    _ht_gen += 1
    if _ht_gen == 0:  # wrapped: really clear once every 2**32 turns
        memset(_HT, 0, sizeof(_HT))
        _ht_gen = 1
    c.gen = _ht_gen


cdef inline void new_tgen(nb_ctx* c) noexcept nogil:
    global _tt_gen
    _tt_gen += 1
    if _tt_gen == 0:
        memset(_TT, 0, sizeof(_TT))
        _tt_gen = 1
    c.tgen = _tt_gen


cdef inline uint64_t seq_add(uint64_t seq, int depth, int src, int dst, int hit) noexcept nogil:
    """Append step number `depth` (0..3) to an encoded sequence. Slot i holds
    (25 - src) * 32 + dst + 1 (1..825, 0 = no step) at bits 4 + 10 * (3 - i); the hit flag of
    step i is bit 3 - i. Unsigned < on the code is the T2 order (prefix first); the hit bits
    never decide it, since equal (src, dst) prefixes from one root hit the same blots."""
    cdef uint64_t code = <uint64_t>((25 - src) * 32 + dst + 1)
    return seq | (code << (4 + 10 * (3 - depth))) | (<uint64_t>hit << (3 - depth))


# --------------------------------------------------------------------------- steps

cdef inline uint32_t sources(nb_ctx* c, const nb_board* b, int d) noexcept nogil:
    """Bitmask of the source points from which a step with die d is legal (before L6 and the
    S8 hitter restriction)."""
    cdef uint32_t S
    cdef int h
    if b.m[25]:  # S5: enter first
        if (b.closed >> (25 - d)) & 1:
            return 0
        return BAR
    S = b.mine & PTS & ~(b.closed << d) & ~((2u << d) - 1)
    if c.head0 - b.m[24] >= c.head_limit:  # L5
        S &= ~(1u << 24)
    if b.mine and (b.mine & ~HOME) == 0:  # L8/S7
        if b.m[d]:
            S |= 1u << d
        else:
            h = nb_hibit(b.mine)
            if h < d:
                S |= 1u << h
    return S


cdef inline int child(nb_ctx* c, const nb_board* b, nb_board* nb, int p, int d, int hv,
                      int* pdst, int* phit) noexcept nogil:
    """Play die d from source p into nb. hv = 1 moves the hitter standing on p (S8 forbidden),
    hv = 0 an ordinary checker. Returns 0 when that step is illegal."""
    cdef int dst, hit = 0
    cdef int hb = (b.hitters >> p) & 1
    if hv:
        if not hb:
            return 0
    elif b.m[p] - hb <= 0:
        return 0
    if p == 25:
        dst = 25 - d
    elif p > d:
        dst = p - d
    else:
        dst = 0
    if hv and dst != 0 and b.m[dst] != 0:  # S8: a hitter may not hide among its own
        return 0
    nb[0] = b[0]
    nb.m[p] -= 1
    if nb.m[p] == 0:
        nb.mine &= ~(1u << p)
    if dst == 0:
        nb.m[0] += 1
    else:
        if c.is_short and nb.o[dst] == 1:  # S3 hit
            hit = 1
            nb.o[dst] = 0
            nb.o[25] += 1
            nb.blots &= ~(1u << dst)
        nb.m[dst] += 1
        nb.mine |= 1u << dst
        put(nb, dst)
    if p == 25 or hit:
        put_bars(nb)
    if p != 25:
        put(nb, p)
    if c.hh_forbid:
        if hv:
            nb.hitters &= ~(1u << p)
            if dst:
                nb.hitters |= 1u << dst
        elif hit:
            nb.hitters |= 1u << dst
    if c.step_block and run6_forbidden(nb.mine, c.F):  # L6 every_step
        return 0
    pdst[0] = dst
    phit[0] = hit
    return 1


# --------------------------------------------------------------------------- candidates

cdef inline int dice_of(nb_ctx* c, const nb_board* b, int depth) noexcept nogil:
    if depth and b.m[0] == 15:  # L7: bearing off the 15th counts as full
        return c.full
    return depth


cdef inline void g_insert(nb_ctx* c, uint64_t lo, uint64_t hi, int dice, uint32_t used_big,
                          uint64_t seq) noexcept nogil:
    """Record a candidate position (key) reached with `dice` dice by sequence `seq`."""
    cdef uint64_t h
    cdef nb_slot* s
    cdef nb_entry* e
    if dice < c.best:
        return
    if dice > c.best:
        c.best = dice
        c.n = 0
        new_gen(c)
    h = hkey(lo, hi) & c.ht_mask
    while True:
        s = &_HT[h]
        if s.gen != c.gen:
            s.gen = c.gen
            s.lo = lo
            s.hi = hi
            s.idx = <uint32_t>c.n
            e = &c.out[c.n]
            e.lo = lo
            e.hi = hi
            e.seq = seq
            e.flags = used_big
            c.n += 1
            return
        if s.lo == lo and s.hi == hi:
            e = &c.out[s.idx]
            if seq < e.seq:
                e.seq = seq
            e.flags |= used_big
            return
        h = (h + 1) & c.ht_mask


cdef inline void g_record(nb_ctx* c, const nb_board* b, int depth, uint32_t used_big,
                          uint64_t seq) noexcept nogil:
    if c.turn_end and run6_forbidden(b.mine, c.F):
        return
    g_insert(c, b.lo, b.hi, dice_of(c, b, depth), used_big, seq)


cdef inline void s_append(nb_ctx* c, uint64_t lo, uint64_t hi, int dice, uint64_t seq) noexcept nogil:
    """Record a candidate of the non-increasing search (positions are distinct: no table)."""
    cdef nb_entry* e
    if dice >= c.best:
        if dice > c.best:
            c.best = dice
            c.n = 0
        e = &c.out[c.n]
        e.lo = lo
        e.hi = hi
        e.seq = seq
        e.flags = 0
        c.n += 1


cdef inline int leaf(nb_ctx* c, const nb_board* b, int p, int d, uint64_t* plo, uint64_t* phi,
                     int* pdst, int* phit) noexcept nogil:
    """The last step of a turn (die d from source p) without building the board: the key of
    the resulting position, or 0 when no checker on p may make the step. Same rules as
    child(): when both a hitter and another checker could step, the result is the same."""
    cdef int dst, hit = 0, hb = (b.hitters >> p) & 1
    cdef uint64_t lo = b.lo, hi = b.hi
    cdef uint32_t mine
    if p == 25:
        dst = 25 - d
        lo -= <uint64_t>1 << 60
    else:
        dst = p - d if p > d else 0
        if p <= 12:
            lo -= <uint64_t>1 << (5 * (p - 1))
        else:
            hi -= <uint64_t>1 << (5 * (p - 13))
    if b.m[p] - hb <= 0:  # only the hitter is there (S8)
        if dst != 0 and b.m[dst] != 0:
            return 0
    if dst:
        if c.is_short and b.o[dst] == 1:
            hit = 1
            hi += <uint64_t>1 << 60
            if dst <= 12:
                lo -= <uint64_t>15 << (5 * (dst - 1))
            else:
                hi -= <uint64_t>15 << (5 * (dst - 13))
        elif dst <= 12:
            lo += <uint64_t>1 << (5 * (dst - 1))
        else:
            hi += <uint64_t>1 << (5 * (dst - 13))
    if c.step_block or c.turn_end:
        mine = b.mine
        if b.m[p] == 1:
            mine &= ~(1u << p)
        if dst:
            mine |= 1u << dst
        if run6_forbidden(mine, c.F):  # L6 (every_step: illegal step; turn_end: no candidate)
            return 0
    plo[0] = lo
    phi[0] = hi
    pdst[0] = dst
    phit[0] = hit
    return 1


cdef inline int tt_skip(nb_ctx* c, const nb_board* b, uint32_t extra, uint64_t seq) noexcept nogil:
    """Transposition test for an inner node of the general search of a double: the subtree of
    a state (position, depth, hitters) is the same however it was reached, and the T2-smaller
    prefix yields the smaller sequences; so skip it when it was searched with a prefix <= seq."""
    cdef uint64_t h = hkey(b.lo ^ (<uint64_t>extra * <uint64_t>0xD6E8FEB86659FD93), b.hi)
    cdef int i
    cdef nb_tslot* s
    for i in range(NB_TT_PROBES):
        s = &_TT[(h + i) & c.tt_mask]
        if s.gen != c.tgen:
            s.gen = c.tgen
            s.lo = b.lo
            s.hi = b.hi
            s.extra = extra
            s.seq = seq
            return 0
        if s.lo == b.lo and s.hi == b.hi and s.extra == extra:
            if s.seq <= seq:
                return 1
            s.seq = seq
            return 0
    return 0


# --------------------------------------------------------------------------- searches

cdef void g_dfs(nb_ctx* c, int depth, int rem, uint64_t seq) noexcept nogil:
    """General search of a double (rem = dice left), order-aware (S8 hitters, L6 every step)."""
    cdef nb_board* b = &c.st[depth]
    cdef nb_board* nb = &c.st[depth + 1]
    cdef uint32_t S
    cdef int p, hv, dst = 0, hit = 0, nhv
    cdef uint64_t lo, hi
    if depth >= 2:
        if tt_skip(c, b, <uint32_t>depth | (b.hitters << 3), seq):
            return
    g_record(c, b, depth, 0, seq)
    if b.m[0] == 15:
        return
    S = sources(c, b, c.d0)
    if rem == 1:  # the last die: leaves, no boards (a full turn: dice = 4)
        while S:
            p = nb_hibit(S)
            S ^= 1u << p
            if leaf(c, b, p, c.d0, &lo, &hi, &dst, &hit):
                g_insert(c, lo, hi, 4, 0, seq_add(seq, depth, p, dst, hit))
        return
    nhv = 2 if c.hh_forbid else 1
    while S:
        p = nb_hibit(S)
        S ^= 1u << p
        for hv in range(nhv):
            if child(c, b, nb, p, c.d0, hv, &dst, &hit):
                g_dfs(c, depth + 1, rem - 1, seq_add(seq, depth, p, dst, hit))


cdef void nd_search(nb_ctx* c) noexcept nogil:
    """Search of a non-double: first steps in T2 order (source descending, the larger die
    first), then the other die as leaves.

    Canonical pruning: when nothing makes the legality of two steps depend on their order
    (no checker on the bar (S5), no S8 hitters, no possible L6 block on the way, neither step
    bearing off (L8/S7), the second not moving the checker the first one moved), the two
    orders are both legal and give the same position, and the one with the higher source
    first (on a tie, the larger die first) is the T2-smaller; so the other is not searched."""
    cdef nb_board* b = &c.st[0]
    cdef nb_board* nb = &c.st[1]
    cdef uint32_t S, S0, S1, T, bit, keep, U
    cdef int p, t, hv, nhv, k, x, y, dst = 0, hit = 0, dst2 = 0, hit2 = 0, canon
    cdef uint32_t used_big
    cdef uint64_t seq1, lo, hi
    g_record(c, b, 0, 0, 0)
    canon = _fast_paths and (not c.hh_forbid) and b.m[25] == 0
    if canon and c.step_block:
        U = (b.mine | (b.mine >> c.d0) | (b.mine >> c.d1) | (b.mine >> (c.d0 + c.d1))) & PTS
        canon = run6_forbidden(U, c.F) == 0
    nhv = 2 if c.hh_forbid else 1
    S0 = sources(c, b, c.d0)
    S1 = sources(c, b, c.d1)
    S = S0 | S1
    while S:
        p = nb_hibit(S)
        bit = 1u << p
        S ^= bit
        for k in range(2):
            if k == 0:
                if not (S0 & bit):
                    continue
                x = c.d0
                y = c.d1
                used_big = 1
            else:
                if not (S1 & bit):
                    continue
                x = c.d1
                y = c.d0
                used_big = 0
            for hv in range(nhv):
                if not child(c, b, nb, p, x, hv, &dst, &hit):
                    continue
                seq1 = seq_add(0, 0, p, dst, hit)
                g_record(c, nb, 1, used_big, seq1)
                if nb.m[0] == 15:
                    continue
                T = sources(c, nb, y)
                if canon and dst != 0:
                    keep = ((1u << p) - 1) | ((2u << y) - 1)
                    if y < x:
                        keep |= bit
                    T &= keep
                while T:
                    t = nb_hibit(T)
                    T ^= 1u << t
                    if leaf(c, nb, t, y, &lo, &hi, &dst2, &hit2):
                        g_insert(c, lo, hi, 2, 0, seq_add(seq1, 1, t, dst2, hit2))


cdef void s_dfs(nb_ctx* c, int depth, int last, uint64_t seq) noexcept nogil:
    """Search of a double over non-increasing sources (each multiset once, in T2 order)."""
    cdef nb_board* b = &c.st[depth]
    cdef nb_board* nb = &c.st[depth + 1]
    cdef uint32_t S
    cdef int p, dst = 0, hit = 0
    cdef uint64_t lo, hi
    if not (c.turn_end and run6_forbidden(b.mine, c.F)):
        s_append(c, b.lo, b.hi, dice_of(c, b, depth), seq)
    if b.m[0] == 15:
        return
    S = sources(c, b, c.d0) & ((2u << last) - 1)
    if depth == 3:  # the fourth step: leaves, no boards
        while S:
            p = nb_hibit(S)
            S ^= 1u << p
            if leaf(c, b, p, c.d0, &lo, &hi, &dst, &hit):
                s_append(c, lo, hi, 4, seq_add(seq, 3, p, dst, hit))
        return
    while S:
        p = nb_hibit(S)
        S ^= 1u << p
        if child(c, b, nb, p, c.d0, 0, &dst, &hit):
            s_dfs(c, depth + 1, p, seq_add(seq, depth, p, dst, hit))


cdef int _cmp_entry(const void* a, const void* b) noexcept nogil:
    cdef uint64_t x = (<const nb_entry*>a).seq
    cdef uint64_t y = (<const nb_entry*>b).seq
    return (x > y) - (x < y)


cdef inline uint32_t reach(uint32_t mine, int d) noexcept nogil:
    """Points (and bar) a checker of `mine` can stand on after 1..4 steps of d."""
    return ((mine >> d) | (mine >> (2 * d)) | (mine >> (3 * d)) | (mine >> (4 * d))) & PTS


cdef void run_search(nb_ctx* c, const nb_board* root, int limit) noexcept nogil:
    cdef int fast = 0, k, bound, bits
    cdef uint32_t U
    c.head_limit = limit
    c.best = -1
    c.n = 0
    c.st[0] = root[0]
    c.st[0].hitters = 0
    if c.dbl:
        if _fast_paths:
            if c.is_short:
                fast = (not c.hh_forbid) or (root.blots & reach(root.mine, c.d0)) == 0
            elif c.F == 0 or c.turn_end:
                fast = 1
            else:
                U = (root.mine | reach(root.mine, c.d0)) & PTS
                fast = run6_forbidden(U, c.F) == 0
        if fast:
            s_dfs(c, 0, 25, 0)
            return
        # Table size: the turns are multisets of <= 4 sources among the points a checker can
        # stand on this turn (k of them), so at most C(k + 4, 4) of them; keep the load <= 1/2
        # and the table small enough for the cache.
        k = nb_popcount((root.mine | reach(root.mine, c.d0)) & (PTS | BAR))
        bound = (k + 4) * (k + 3) * (k + 2) * (k + 1) // 24
        bits = 10
        while (1 << bits) < 2 * bound and bits < NB_HT_BITS:
            bits += 1
        c.ht_mask = (1 << bits) - 1
        c.tt_mask = (NB_TT_SLOTS if bits >= 14 else (1 << bits)) - 1
        new_gen(c)
        new_tgen(c)
        g_dfs(c, 0, 4, 0)
    else:
        c.ht_mask = (1 << NB_HT_SMALL_BITS) - 1
        new_gen(c)
        nd_search(c)


cdef int nb_generate(nb_ctx* c, const nb_rules* r, const nb_board* root,
                     int die1, int die2, int want_order) noexcept nogil:
    """The legal turns of `root` for the roll: c.out[0 .. return value) (keys, and with
    want_order the entries sorted by their T2 representative). 0 means game over (T4), or
    no candidate at all (turn_end with an L6-invalid root)."""
    cdef int i, k, p, first, limit, d, ok, lo_opp
    if root.m[0] >= 15 or root.o[0] >= 15:  # T4
        c.n = 0
        return 0
    c.out = _E
    c.d0 = die1 if die1 >= die2 else die2
    c.d1 = die2 if die1 >= die2 else die1
    c.dbl = die1 == die2
    c.full = 4 if c.dbl else 2
    c.is_short = r.game
    c.hh_forbid = r.game == 1 and r.hit_and_hide == 1
    c.F = 0
    c.turn_end = 0
    c.step_block = 0
    c.head0 = 0
    limit = 99
    if r.game == 0:
        # L6: the lowest points (opponent numbering) at which a six-run is forbidden
        if r.block_rule != 2 and root.o[0] == 0:
            if r.block_rule == 0:
                lo_opp = 25
                for k in range(1, 25):
                    if root.o[mir(k, 0)] > 0:
                        lo_opp = k
                        break
                c.F = ((1u << lo_opp) - 2) & PTS
            else:
                c.F = PTS
                for k in range(1, 7):
                    if root.o[mir(k, 0)] > 0:
                        c.F = 0
        if r.block_check == 1:
            c.turn_end = c.F != 0
        else:
            c.step_block = c.F != 0
        # L5
        c.head0 = root.m[24]
        limit = 1
        first = root.m[24] == 15
        if first and c.dbl and (c.d0 == 6 or c.d0 == 4 or c.d0 == 3):
            if r.head_rule == 0:
                limit = 2
            elif r.head_rule == 1:
                ok = root.o[12] >= 1
                p = 24 - c.d0
                while p > 12:
                    if root.o[p] > 0:
                        ok = 0
                    p -= c.d0
                if ok:
                    limit = 2
    run_search(c, root, limit)
    if r.game == 0 and r.head_rule == 2 and root.m[24] == 15 and c.best < c.full:
        run_search(c, root, 2)
    if c.best < 0:  # no candidate at all: only turn_end with an L6-invalid root (T7)
        c.n = 0
        return 0
    if c.best == 0:  # T3 pass
        c.n = 1
        c.out[0].lo = root.lo
        c.out[0].hi = root.hi
        c.out[0].seq = 0
        c.out[0].flags = 0
        return 1
    if c.best == 1 and not c.dbl:  # L7: a single die must be the larger when it can be
        k = 0
        for i in range(c.n):
            if c.out[i].flags & 1:
                k = 1
                break
        if k:
            k = 0
            for i in range(c.n):
                if c.out[i].flags & 1:
                    c.out[k] = c.out[i]
                    k += 1
            c.n = k
    if want_order and c.n > 1:
        qsort(c.out, c.n, sizeof(nb_entry), _cmp_entry)
    return c.n


cdef unsigned long long nb_perft(nb_ctx* c, const nb_rules* r, const nb_board* b, int depth,
                                 int weighted, nb_entry** bufs) noexcept nogil:
    """T5 perft; bufs[k] holds NB_MAX_TURNS + 1 entries for the children at remaining depth k."""
    cdef unsigned long long total = 0, w
    cdef int d1, d2, n, i
    cdef nb_board kid, child_b
    if depth == 0 or b.m[0] >= 15 or b.o[0] >= 15:
        return 1
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            w = 2 if (weighted and d1 != d2) else 1
            n = nb_generate(c, r, b, d2, d1, 0)
            if depth == 1:
                total += w * <unsigned long long>n
                continue
            memcpy(bufs[depth], c.out, n * sizeof(nb_entry))
            for i in range(n):
                nb_board_from_key(bufs[depth][i].lo, bufs[depth][i].hi, r.game, &kid)
                nb_swap(&kid, r.game, &child_b)
                total += w * nb_perft(c, r, &child_b, depth - 1, weighted, bufs)
    return total


# --------------------------------------------------------------------------- Python layer

cdef int _as_int(object x, str what, type err) except? -1:
    cdef int ovf = 0
    cdef long lv
    if type(x) is int:
        lv = PyLong_AsLongAndOverflow(x, &ovf)
        if not ovf and -1000000 < lv < 1000000:
            return <int>lv
    if isinstance(x, bool) or isinstance(x, float):
        raise err(f"{what} must be an int, not {x!r}")
    try:
        return _op_index(x)
    except TypeError:
        raise err(f"{what} must be an int, not {x!r}") from None
    except OverflowError:
        raise err(f"{what} is out of range: {x!r}") from None


cdef int _parse_code(object code, nb_rules* r) except -1:
    cdef list vals
    cdef int i, ovf = 0
    cdef long lv
    cdef long cv[5]
    cdef object x
    if type(code) is tuple and len(<tuple>code) == 5:  # fast path: Rules.code
        for i in range(5):
            x = (<tuple>code)[i]
            if type(x) is not int:
                break
            lv = PyLong_AsLongAndOverflow(x, &ovf)
            if ovf or lv < 0 or lv >= (2 if i == 0 or i >= 3 else 3):
                break
            cv[i] = lv
        else:
            r.game = <int>cv[0]
            r.head_rule = <int>cv[1]
            r.block_rule = <int>cv[2]
            r.block_check = <int>cv[3]
            r.hit_and_hide = <int>cv[4]
            return 0
    try:
        vals = list(code)
    except TypeError:
        raise FastNardyError(f"code must be a tuple of 5 ints (Rules.code), not {code!r}") from None
    if len(vals) != 5:
        raise FastNardyError(f"code must be a tuple of 5 ints (Rules.code), not {code!r}")
    limits = (2, 3, 3, 2, 2)
    names = ("game", "head_rule", "block_rule", "block_check", "hit_and_hide")
    out = []
    for i in range(5):
        v = _as_int(vals[i], f"code[{i}] ({names[i]})", FastNardyError)
        if not 0 <= v < limits[i]:
            raise FastNardyError(
                f"code[{i}] ({names[i]}) must be in 0..{limits[i] - 1}, not {v!r}")
        out.append(v)
    r.game, r.head_rule, r.block_rule, r.block_check, r.hit_and_hide = out
    return 0


cdef int _parse_side(object seq, str name, int8_t* dst) except -1:
    """24 counts of one side, own numbering, into dst[0..23]."""
    cdef int i, v
    cdef long lv
    cdef PyObject** items
    cdef PyObject* px
    if ((type(seq) is tuple and PyTuple_GET_SIZE(seq) == 24)
            or (type(seq) is list and PyList_GET_SIZE(seq) == 24)):  # fast path: ints 0..15
        items = PySequence_Fast_ITEMS(seq)
        try:
            for i in range(24):
                px = items[i]
                if not PyLong_CheckExact(<object>px):
                    break
                lv = <long><object>px  # Cython's inline conversion (OverflowError if huge)
                if lv < 0 or lv > 15:
                    break
                dst[i] = <int8_t>lv
            else:
                return 0
        except OverflowError:
            pass
    # the general path, with the messages
    if isinstance(seq, (str, bytes)):
        raise InvalidPositionError(f"{name} must be a sequence of 24 ints, not {seq!r}")
    try:
        n = len(seq)
    except TypeError:
        raise InvalidPositionError(f"{name} must be a sequence of 24 ints, not {seq!r}") from None
    if n != 24:
        raise InvalidPositionError(f"{name} must have 24 point counts, not {n}")
    for i in range(24):
        v = _as_int(seq[i], f"{name}[{i}] (point {i + 1})", InvalidPositionError)
        if v < 0 or v > 15:
            raise InvalidPositionError(
                f"{name}[{i}] (point {i + 1}) must be a count from 0 to 15, not {v}")
        dst[i] = <int8_t>v
    return 0


cdef int _build(const int8_t* me, int me_bar, const int8_t* opp, int opp_bar, int game,
                nb_board* b, int row) except -1:
    """Structural validation (the Position layer does the rest of T7) and the board. The
    checks raise only on bad input, so the valid path costs no more than the checks."""
    cdef int i, sm = me_bar, so = opp_bar, p
    if me_bar < 0 or me_bar > 15 or opp_bar < 0 or opp_bar > 15:
        raise InvalidPositionError(f"{_row(row)}bar counts must be from 0 to 15, "
                                   f"not {me_bar} and {opp_bar}")
    if game == 0 and (me_bar or opp_bar):
        raise InvalidPositionError(f"{_row(row)}long nardy has no bar (L3), but the bars hold "
                                   f"{me_bar} and {opp_bar}")
    for i in range(24):
        if me[i] < 0 or opp[i] < 0:
            raise InvalidPositionError(f"{_row(row)}counts must not be negative")
        sm += me[i]
        so += opp[i]
    if sm > 15:
        raise InvalidPositionError(f"{_row(row)}the side to move has {sm} checkers on the "
                                   f"board and bar; at most 15 (T7)")
    if so > 15:
        raise InvalidPositionError(f"{_row(row)}the opponent has {so} checkers on the board "
                                   f"and bar; at most 15 (T7)")
    memset(b, 0, sizeof(nb_board))
    for i in range(24):
        b.m[i + 1] = me[i]
    for i in range(24):
        if opp[i]:
            p = mir(i + 1, game)
            if b.m[p]:
                raise InvalidPositionError(
                    f"{_row(row)}point {p} of the side to move (the opponent's point {i + 1}) "
                    f"holds checkers of both sides (T7)")
            b.o[p] = opp[i]
    b.m[25] = <int8_t>me_bar
    b.o[25] = <int8_t>opp_bar
    nb_finish_board(b, game)
    return 0


cdef str _row(int row):
    return "" if row < 0 else f"row {row}: "


cdef int _parse_position(object code, object me, object me_bar, object opp, object opp_bar,
                         nb_rules* r, nb_board* b) except -1:
    cdef int8_t cme[24]
    cdef int8_t copp[24]
    _parse_code(code, r)
    _parse_side(me, "me", cme)
    _parse_side(opp, "opp", copp)
    mb = _as_int(me_bar, "me_bar", InvalidPositionError)
    ob = _as_int(opp_bar, "opp_bar", InvalidPositionError)
    if mb < 0 or mb > 15 or ob < 0 or ob > 15:
        raise InvalidPositionError(f"bar counts must be from 0 to 15, not {mb} and {ob}")
    _build(cme, mb, copp, ob, r.game, b, -1)
    return 0


cdef int _parse_die(object d, str name) except -1:
    cdef int ovf = 0
    cdef long lv
    if type(d) is int:
        lv = PyLong_AsLongAndOverflow(d, &ovf)
        if not ovf and 1 <= lv <= 6:
            return <int>lv
    v = _as_int(d, name, InvalidDiceError)
    if not 1 <= v <= 6:
        raise InvalidDiceError(f"{name} must be an int from 1 to 6, not {v!r}")
    return v


cdef tuple _INTS = tuple(range(32))


# (src, dst, hit) step tuples, built once: index (src * 32 + dst) * 2 + hit
cdef tuple _STEPS = tuple([(src, dst, bool(hit)) for src in range(26) for dst in range(32)
                           for hit in range(2)])


cdef inline tuple _tup24(const int8_t* vals):
    cdef tuple t = PyTuple_New(24)
    cdef int i
    cdef object o
    for i in range(24):
        o = _INTS[vals[i]]
        Py_INCREF(o)
        PyTuple_SET_ITEM(t, i, o)
    return t


cdef tuple _steps_of(uint64_t seq):
    cdef int i, n = 0, code, src, dst, hit
    cdef int idx[4]
    cdef tuple t
    cdef object o
    for i in range(4):
        code = <int>((seq >> (4 + 10 * (3 - i))) & 1023)
        if code == 0:
            break
        code -= 1
        src = 25 - code // 32
        dst = code % 32
        hit = <int>((seq >> (3 - i)) & 1)
        idx[n] = (src * 32 + dst) * 2 + hit
        n += 1
    t = PyTuple_New(n)
    for i in range(n):
        o = _STEPS[idx[i]]
        Py_INCREF(o)
        PyTuple_SET_ITEM(t, i, o)
    return t


cdef tuple _entry_tuple(const nb_entry* e, int game):
    """One result entry as the contract's tuple, decoded from its key alone."""
    cdef nb_board b
    cdef int8_t mv[24]
    cdef int8_t ov[24]
    cdef int p
    nb_board_from_key(e.lo, e.hi, game, &b)
    for p in range(1, 25):
        mv[p - 1] = b.m[p]
        ov[p - 1] = b.o[mir(p, game)]
    return (_steps_of(e.seq), _tup24(mv), _INTS[b.m[25]], _tup24(ov), _INTS[b.o[25]])


cdef list _result_list(nb_ctx* c, int n, int game):
    """The result entries as the contract's list of tuples."""
    return [_entry_tuple(&c.out[i], game) for i in range(n)]


def enumerate_turns(code, me, me_bar, opp, opp_bar, die1, die2):
    """The legal turns (T1) in T2 order, as in fastnardy.backend."""
    cdef nb_rules r
    cdef nb_board b
    cdef int d1, d2, n
    _parse_position(code, me, me_bar, opp, opp_bar, &r, &b)
    d1 = _parse_die(die1, "die1")
    d2 = _parse_die(die2, "die2")
    n = nb_generate(&_C, &r, &b, d1, d2, 1)
    return _result_list(&_C, n, r.game)


cdef class PackedTurns:
    """The result of enumerate_packed: the legal turns kept as packed entries (key and
    representative sequence, 24 bytes a turn) in T2 order. A read-only sequence: len() is
    free and indexing builds the contract's tuple (steps, me, me_bar, opp, opp_bar)."""

    cdef nb_entry* entries
    cdef Py_ssize_t n
    cdef int game

    def __cinit__(self):
        self.entries = NULL
        self.n = 0

    def __dealloc__(self):
        free(self.entries)

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        cdef Py_ssize_t i
        if isinstance(index, slice):
            return [self[j] for j in range(*index.indices(self.n))]
        try:
            i = _op_index(index)
        except TypeError:
            raise TypeError(f"PackedTurns indices must be integers, not {index!r}") from None
        if i < 0:
            i += self.n
        if not 0 <= i < self.n:
            raise IndexError("PackedTurns index out of range")
        return _entry_tuple(&self.entries[i], self.game)


def enumerate_packed(code, me, me_bar, opp, opp_bar, die1, die2):
    """enumerate_turns, kept packed: a PackedTurns sequence whose items equal the list's."""
    cdef nb_rules r
    cdef nb_board b
    cdef int d1, d2, n
    cdef PackedTurns out = PackedTurns.__new__(PackedTurns)
    _parse_position(code, me, me_bar, opp, opp_bar, &r, &b)
    d1 = _parse_die(die1, "die1")
    d2 = _parse_die(die2, "die2")
    n = nb_generate(&_C, &r, &b, d1, d2, 1)
    out.game = r.game
    if n:
        out.entries = <nb_entry*>malloc(n * sizeof(nb_entry))
        if out.entries == NULL:
            raise MemoryError()
        memcpy(out.entries, _C.out, n * sizeof(nb_entry))
    out.n = n
    return out


def count_turns(code, me, me_bar, opp, opp_bar, die1, die2):
    """Number of distinct legal turns (a pass counts 1, game over 0); no Python objects built."""
    cdef nb_rules r
    cdef nb_board b
    cdef int d1, d2
    _parse_position(code, me, me_bar, opp, opp_bar, &r, &b)
    d1 = _parse_die(die1, "die1")
    d2 = _parse_die(die2, "die2")
    return nb_generate(&_C, &r, &b, d1, d2, 0)


cdef tuple _batch_arrays(object boards, object dice):
    """Validated C-contiguous int8 copies of a batch: boards (N, 50), dice (N, 2)."""
    arr = np.asarray(boards)
    if arr.ndim != 2 or arr.shape[1] != 50:
        raise InvalidPositionError(f"boards must have shape (N, 50), not {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise InvalidPositionError(f"boards must hold integers (int8/uint8), not {arr.dtype}")
    if arr.size and (int(arr.min()) < 0 or int(arr.max()) > 15):
        raise InvalidPositionError("board counts must be from 0 to 15")
    darr = np.asarray(dice)
    if darr.ndim != 2 or darr.shape[1] != 2 or darr.shape[0] != arr.shape[0]:
        raise InvalidDiceError(f"dice must have shape ({arr.shape[0]}, 2), not {darr.shape}")
    if darr.dtype.kind not in "iu":
        raise InvalidDiceError(f"dice must hold integers, not {darr.dtype}")
    if darr.size and (int(darr.min()) < 1 or int(darr.max()) > 6):
        raise InvalidDiceError("dice must be from 1 to 6")
    return (np.ascontiguousarray(arr, dtype=np.int8), np.ascontiguousarray(darr, dtype=np.int8))


def count_turns_batch(code, boards, dice):
    """count_turns for many positions: boards (N, 50) int8/uint8 rows me[24], me_bar, opp[24],
    opp_bar; dice (N, 2) ints 1..6. Returns an int32 array of N counts."""
    cdef nb_rules r
    cdef nb_board b
    cdef const int8_t[:, ::1] bv
    cdef const int8_t[:, ::1] dv
    cdef int32_t[::1] ov
    cdef Py_ssize_t i, n
    _parse_code(code, &r)
    bv, dv = _batch_arrays(boards, dice)
    n = bv.shape[0]
    out = np.empty(n, dtype=np.int32)
    ov = out
    for i in range(n):
        _build(&bv[i, 0], bv[i, 24], &bv[i, 25], bv[i, 49], r.game, &b, <int>i)
        ov[i] = nb_generate(&_C, &r, &b, dv[i, 0], dv[i, 1], 0)
    return out


def expand_batch(code, boards, dice):
    """Every legal turn of every row, as rows: ``(children, parent)`` with ``children`` an
    (M, 50) int8 array of the resulting positions from the NEXT mover's view (opp[24],
    opp_bar, me[24], me_bar), in T2 order per row, and ``parent`` (M,) int32 the row each
    came from. Rows and dice as in count_turns_batch."""
    cdef nb_rules r
    cdef nb_board b, res
    cdef const int8_t[:, ::1] bv
    cdef const int8_t[:, ::1] dv
    cdef Py_ssize_t i, j, q, n, k, m = 0, cap
    cdef int8_t* rows = NULL
    cdef int8_t* grown
    cdef int32_t* parents = NULL
    cdef int32_t* grown_p
    cdef int8_t* row
    _parse_code(code, &r)
    bv, dv = _batch_arrays(boards, dice)
    n = bv.shape[0]
    cap = 64
    try:
        rows = <int8_t*>malloc(cap * 50)
        parents = <int32_t*>malloc(cap * sizeof(int32_t))
        if rows == NULL or parents == NULL:
            raise MemoryError()
        for i in range(n):
            _build(&bv[i, 0], bv[i, 24], &bv[i, 25], bv[i, 49], r.game, &b, <int>i)
            k = nb_generate(&_C, &r, &b, dv[i, 0], dv[i, 1], 1)
            if m + k > cap:
                while m + k > cap:
                    cap *= 2
                grown = <int8_t*>realloc(rows, cap * 50)
                if grown == NULL:
                    raise MemoryError()
                rows = grown
                grown_p = <int32_t*>realloc(parents, cap * sizeof(int32_t))
                if grown_p == NULL:
                    raise MemoryError()
                parents = grown_p
            for j in range(k):
                nb_board_from_key(_C.out[j].lo, _C.out[j].hi, r.game, &res)
                row = rows + 50 * m
                for q in range(1, 25):
                    row[q - 1] = res.o[mir(<int>q, r.game)]
                    row[24 + q] = res.m[q]
                row[24] = res.o[25]
                row[49] = res.m[25]
                parents[m] = <int32_t>i
                m += 1
        children = np.empty((m, 50), dtype=np.int8)
        parent = np.empty(m, dtype=np.int32)
        if m:
            memcpy(<void*><size_t>children.ctypes.data, rows, m * 50)
            memcpy(<void*><size_t>parent.ctypes.data, parents, m * sizeof(int32_t))
        return children, parent
    finally:
        free(rows)
        free(parents)


cdef unsigned long long _perft_root(const nb_rules* r, const nb_board* b, int depth, int weighted,
                                    nb_entry** bufs) except? 0:
    """nb_perft with the first ply here, so that Ctrl-C is noticed between root children."""
    cdef unsigned long long total = 0, w
    cdef int d1, d2, n, i
    cdef nb_board kid, child_b
    if depth < 2 or b.m[0] >= 15 or b.o[0] >= 15:
        return nb_perft(&_C, r, b, depth, weighted, bufs)
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            w = 2 if (weighted and d1 != d2) else 1
            n = nb_generate(&_C, r, b, d2, d1, 0)
            memcpy(bufs[depth], _C.out, n * sizeof(nb_entry))
            for i in range(n):
                nb_board_from_key(bufs[depth][i].lo, bufs[depth][i].hi, r.game, &kid)
                nb_swap(&kid, r.game, &child_b)
                total += w * nb_perft(&_C, r, &child_b, depth - 1, weighted, bufs)
                PyErr_CheckSignals()
    return total


def perft_count(code, me, me_bar, opp, opp_bar, depth, weighted=False):
    """T5 perft from the position, `me` to move; weighted counts non-doubles twice."""
    cdef nb_rules r
    cdef nb_board b
    cdef int dp, k
    cdef nb_entry* bufs[NB_MAX_DEPTH + 1]
    cdef unsigned long long total
    _parse_position(code, me, me_bar, opp, opp_bar, &r, &b)
    if isinstance(depth, bool) or isinstance(depth, float):
        raise FastNardyError(f"depth must be an int >= 0, not {depth!r}")
    try:
        dp = _op_index(depth)
    except (TypeError, OverflowError):
        raise FastNardyError(f"depth must be an int >= 0, not {depth!r}") from None
    if dp < 0:
        raise FastNardyError(f"depth must be >= 0, not {dp}")
    if dp > NB_MAX_DEPTH:
        raise FastNardyError(f"depth must be at most {NB_MAX_DEPTH}, not {dp}")
    if weighted not in (True, False, 0, 1):
        raise FastNardyError(f"weighted must be True or False, not {weighted!r}")
    for k in range(NB_MAX_DEPTH + 1):
        bufs[k] = NULL
    try:
        for k in range(2, dp + 1):
            bufs[k] = <nb_entry*>malloc((NB_MAX_TURNS + 1) * sizeof(nb_entry))
            if bufs[k] == NULL:
                raise MemoryError()
        total = _perft_root(&r, &b, dp, 1 if weighted else 0, bufs)
    finally:
        for k in range(NB_MAX_DEPTH + 1):
            if bufs[k] != NULL:
                free(bufs[k])
    return total


def pack(me, me_bar, opp, opp_bar, game=0):
    """The 128-bit key (lo, hi) of a position, mover's frame (layout in the module docstring).
    ``game`` (0 long, 1 short; or "long"/"short") selects the mirror of the opponent's points."""
    cdef int8_t cme[24]
    cdef int8_t copp[24]
    cdef nb_board b
    cdef int g = _game_of(game)
    _parse_side(me, "me", cme)
    _parse_side(opp, "opp", copp)
    mb = _as_int(me_bar, "me_bar", InvalidPositionError)
    ob = _as_int(opp_bar, "opp_bar", InvalidPositionError)
    _build(cme, mb, copp, ob, g, &b, -1)
    return (b.lo, b.hi)


def unpack(lo, hi, game=0):
    """Inverse of pack: (me, me_bar, opp, opp_bar) with 24-tuples in each side's own numbering."""
    cdef nb_board b
    cdef int g = _game_of(game)
    cdef uint64_t clo, chi
    cdef int p, v, sm = 0, so = 0
    try:
        clo = _op_index(lo)
        chi = _op_index(hi)
    except (TypeError, OverflowError):
        raise InvalidPositionError(f"a key is two ints from 0 to 2**64-1, not {lo!r}, {hi!r}") from None
    for p in range(1, 25):
        v = <int>(((clo if p <= 12 else chi) >> (5 * ((p - 1) % 12))) & 31)
        if v == 31:
            raise InvalidPositionError(f"key field of point {p} is 31, which encodes nothing")
        sm += v if v <= 15 else 0
        so += v - 15 if v >= 16 else 0
    sm += <int>(clo >> 60)
    so += <int>(chi >> 60)
    if sm > 15 or so > 15:
        raise InvalidPositionError("key holds more than 15 checkers of a side")
    if g == 0 and ((clo >> 60) or (chi >> 60)):
        raise InvalidPositionError("long nardy has no bar, but the key has bar checkers")
    nb_board_from_key(clo, chi, g, &b)
    return (tuple([b.m[p] for p in range(1, 25)]), b.m[25],
            tuple([b.o[mir(p, g)] for p in range(1, 25)]), b.o[25])


cdef int _game_of(object game) except -1:
    if game == "long":
        return 0
    if game == "short":
        return 1
    if isinstance(game, bool) or game not in (0, 1):
        raise FastNardyError(f"game must be 0/'long' or 1/'short', not {game!r}")
    return int(game)


def _set_fast_paths(flag):
    """Testing hook: False turns the shortcuts off (the non-increasing search of doubles and
    the canonical pruning of non-doubles), so that the differential harness can check them
    against the general, order-aware search."""
    global _fast_paths
    _fast_paths = 1 if flag else 0
