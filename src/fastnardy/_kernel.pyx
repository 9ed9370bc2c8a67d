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

Contexts, threads and signals
-----------------------------
All scratch memory of a generation (DFS stack, result buffer, result table, transposition
table: about 2.8 MB) lives in an ``nb_ctx``. A call takes a context from a small pool (with the
GIL held) and gives it back when it returns, so every entry point is re-entrant: a kernel call
made meanwhile (a finalizer, another thread) works in another context. Batch calls and perft
run without the GIL; in the main thread they look for signals every few thousand
generations, so Ctrl-C stops them within milliseconds (KeyboardInterrupt).
"""

from libc.stdint cimport uint64_t, uint32_t, int8_t, int32_t, int64_t
from libc.string cimport memset, memcpy
from libc.stdlib cimport calloc, malloc, realloc, free
from cpython.buffer cimport PyBuffer_FillInfo
from cpython.exc cimport PyErr_Occurred
from cpython.pythread cimport PyThread_get_thread_ident
from cpython.list cimport PyList_GET_SIZE
from cpython.long cimport PyLong_AsLongAndOverflow, PyLong_CheckExact
from cpython.ref cimport Py_INCREF, Py_XDECREF, PyObject
from cpython.sequence cimport PySequence_Fast_ITEMS
from cpython.tuple cimport PyTuple_GET_SIZE, PyTuple_New, PyTuple_SET_ITEM

import threading
from collections.abc import Sequence as _Sequence

import numpy as np
from operator import index as _op_index

from .errors import (CountOverflowError, FastNardyError, IllegalTurnError, InvalidDiceError,
                     InvalidPositionError, ResourceLimitError)

cdef extern from *:
    """
    static inline int nb_hibit(unsigned int x) { return 31 - __builtin_clz(x); }
    #define NB_LOCK ((uint64_t)1 << 62)
    static inline void nb_lock(uint64_t* m) {
        while (__atomic_fetch_or(m, NB_LOCK, __ATOMIC_ACQUIRE) & NB_LOCK)
            while (__atomic_load_n(m, __ATOMIC_RELAXED) & NB_LOCK) {}
    }
    static inline void nb_unlock(uint64_t* m) {
        __atomic_fetch_and(m, ~NB_LOCK, __ATOMIC_RELEASE);
    }
    """
    int nb_hibit(unsigned int x) noexcept nogil
    int nb_popcount "__builtin_popcount"(unsigned int x) noexcept nogil
    const uint64_t NB_LOCK
    void nb_lock(uint64_t* m) noexcept nogil
    void nb_unlock(uint64_t* m) noexcept nogil
    int nb_check_signals "PyErr_CheckSignals"()   # -1 with the exception set: no except clause,
                                                  # the caller records it in ctx.stop

KEY_DTYPE = np.dtype([("lo", "<u8"), ("hi", "<u8")])

cdef uint32_t PTS = 0x1FFFFFE      # bits 1..24
cdef uint32_t HOME = 0x7E          # bits 1..6
cdef uint32_t BAR = 1u << 25

cdef int _fast_paths = 1
cdef unsigned long _main_thread = threading.main_thread().ident


# --------------------------------------------------------------------------- board helpers

cdef inline int mir(int q, int is_short) noexcept nogil:
    """The mirror of RULES.md §0 (an involution)."""
    if is_short:
        return 25 - q
    return q + 12 if q <= 12 else q - 12


cdef inline void key_add(nb_board* b, int p, int delta) noexcept nogil:
    """Add delta to the key field of point p (1..24), or to the mover's bar count (p = 25);
    the field must stay within 0..30."""
    if p == 25:
        b.lo += <uint64_t>(<int64_t>delta) << 60
    elif p <= 12:
        b.lo += <uint64_t>(<int64_t>delta) << (5 * (p - 1))
    else:
        b.hi += <uint64_t>(<int64_t>delta) << (5 * (p - 13))


cdef void nb_board_from_key(uint64_t lo, uint64_t hi, int is_short, nb_board* b) noexcept nogil:
    """The board of a key: counts, masks and off counts in one pass over the fields."""
    cdef int p, sm, so
    cdef uint32_t mine = 0, closed = 0, blots = 0
    cdef uint64_t v, x
    sm = b.m[25] = <int8_t>(lo >> 60)
    so = b.o[25] = <int8_t>(hi >> 60)
    for p in range(1, 25):
        x = lo if p <= 12 else hi
        v = (x >> (5 * ((p - 1) % 12))) & 31
        if v >= 16:
            b.m[p] = 0
            b.o[p] = <int8_t>(v - 15)
            so += <int>v - 15
            if is_short:
                closed |= <uint32_t>(v >= 17) << p
                blots |= <uint32_t>(v == 16) << p
            else:
                closed |= 1u << p
        else:
            b.m[p] = <int8_t>v
            b.o[p] = 0
            sm += <int>v
            mine |= <uint32_t>(v > 0) << p
    if b.m[25]:
        mine |= BAR
    b.mine = mine
    b.closed = closed
    b.blots = blots
    b.hitters = 0
    b.m[0] = <int8_t>(15 - sm)
    b.o[0] = <int8_t>(15 - so)
    b.lo = lo
    b.hi = hi


cdef inline uint64_t field(uint64_t lo, uint64_t hi, int p) noexcept nogil:
    """The 5-bit key field of point p (1..24)."""
    if p <= 12:
        return (lo >> (5 * (p - 1))) & 31
    return (hi >> (5 * (p - 13))) & 31


cdef inline uint64_t flip12(uint64_t x) noexcept nogil:
    """Exchange the owners in twelve 5-bit fields at once (f -> f + 15 for the mover's
    1..15, f -> f - 15 for the opponent's 16..30, 0 stays 0): bit 4 of a field tells an
    opponent field; the mover's get 15 added, the opponent's 15 taken away."""
    cdef uint64_t ones = <uint64_t>0x084210842108421   # bit 0 of each of the 12 fields
    cdef uint64_t opp = (x >> 4) & ones                # 1 in the fields holding the opponent
    cdef uint64_t low4 = x & (ones * 15)
    cdef uint64_t mine = ((low4 + ones * 15) >> 4) & ones & ~opp   # mover's: 1..15, not 0
    return x + mine * 15 - opp * 15


cdef inline uint64_t rev12(uint64_t x) noexcept nogil:
    """The twelve 5-bit fields of x (bits 0..59) in reverse order: swap neighbouring fields,
    then neighbouring pairs (each block of four is reversed), then the outer two blocks."""
    x = ((x & <uint64_t>0x7c1f07c1f07c1f) << 5) | ((x >> 5) & <uint64_t>0x7c1f07c1f07c1f)
    x = ((x & <uint64_t>0x3ff003ff003ff) << 10) | ((x >> 10) & <uint64_t>0x3ff003ff003ff)
    return ((x & <uint64_t>0xfffff) << 40) | (x & (<uint64_t>0xfffff << 20)) | ((x >> 40) & <uint64_t>0xfffff)


cdef void nb_swap_key(uint64_t lo, uint64_t hi, int is_short, uint64_t* olo,
                      uint64_t* ohi) noexcept nogil:
    """The key of the same position with the opponent to move (its own frame): the field of
    point q comes from the mirror point, owners exchanged; the bars change places. Long
    nardy's mirror (q +- 12) exchanges the two halves whole."""
    cdef uint64_t M60 = (<uint64_t>1 << 60) - 1
    if not is_short:
        olo[0] = flip12(hi & M60)
        ohi[0] = flip12(lo & M60)
        return
    # short: q <- 25 - q, i.e. the other half with its fields in reverse order
    olo[0] = flip12(rev12(hi & M60)) | ((hi >> 60) << 60)
    ohi[0] = flip12(rev12(lo & M60)) | ((lo >> 60) << 60)


cdef int nb_build(const int8_t* me, int me_bar, const int8_t* opp, int opp_bar, int is_short,
                  nb_board* b) noexcept nogil:
    """The board of a position given as counts in each side's own numbering, with the
    structural checks (the Position layer adds L6 of T7): counts, masks and key in one pass
    over the points, highest first, so that each half of the key shifts in from the top.
    Returns 0, or the number of the broken check (see _build_error)."""
    cdef int p, m, o, sm = me_bar, so = opp_bar, negative = 0, both = 0
    cdef uint32_t mine = 0, closed = 0, blots = 0
    cdef uint64_t lo = 0, hi = 0, v
    if me_bar < 0 or me_bar > 15 or opp_bar < 0 or opp_bar > 15:
        return 1
    if not is_short and (me_bar or opp_bar):
        return 2
    for p in range(24, 0, -1):
        m = me[p - 1]
        o = opp[mir(p, is_short) - 1]
        negative |= (m < 0) | (o < 0)
        both |= (m != 0) & (o != 0)
        sm += m
        so += o
        b.m[p] = <int8_t>m
        b.o[p] = <int8_t>o
        v = <uint64_t>(m + (15 + o if o else 0))
        if p > 12:
            hi = (hi << 5) | v
        else:
            lo = (lo << 5) | v
        mine |= <uint32_t>(m > 0) << p
        if is_short:
            closed |= <uint32_t>(o >= 2) << p
            blots |= <uint32_t>(o == 1) << p
        else:
            closed |= <uint32_t>(o > 0) << p
    if negative:
        return 3
    if sm > 15:
        return 4
    if so > 15:
        return 5
    if both:
        return 6
    b.m[25] = <int8_t>me_bar
    b.o[25] = <int8_t>opp_bar
    b.m[0] = <int8_t>(15 - sm)
    b.o[0] = <int8_t>(15 - so)
    b.mine = mine | (BAR if me_bar else 0)
    b.closed = closed
    b.blots = blots
    b.hitters = 0
    b.lo = lo | (<uint64_t>me_bar << 60)
    b.hi = hi | (<uint64_t>opp_bar << 60)
    return 0


cdef int nb_check_key(uint64_t lo, uint64_t hi, int is_short) noexcept nogil:
    """0 for a well-formed key, else the number of the broken check (see _key_error)."""
    cdef int p, sm = <int>(lo >> 60), so = <int>(hi >> 60)
    cdef uint64_t v
    for p in range(1, 25):
        v = field(lo, hi, p)
        if v == 31:
            return 7
        if v <= 15:
            sm += <int>v
        else:
            so += <int>v - 15
    if sm > 15:
        return 4
    if so > 15:
        return 5
    if not is_short and ((lo >> 60) or (hi >> 60)):
        return 2
    return 0


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
    c.gen += 1
    if c.gen == 0:  # wrapped: really clear once every 2**32 turns
        memset(c.ht, 0, NB_HT_SLOTS * sizeof(nb_slot))
        c.gen = 1


cdef inline void new_tgen(nb_ctx* c) noexcept nogil:
    c.tgen += 1
    if c.tgen == 0:
        memset(c.tt, 0, NB_TT_SLOTS * sizeof(nb_tslot))
        c.tgen = 1


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
    key_add(nb, p, -1)  # the key's field of a mover point is its count (the bar too)
    if dst == 0:
        nb.m[0] += 1
    else:
        if c.is_short and nb.o[dst] == 1:  # S3 hit: field 16 (one opponent) becomes 1
            hit = 1
            nb.o[dst] = 0
            nb.o[25] += 1
            nb.blots &= ~(1u << dst)
            nb.hi += <uint64_t>1 << 60
            key_add(nb, dst, -15)
        else:
            key_add(nb, dst, 1)
        nb.m[dst] += 1
        nb.mine |= 1u << dst
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
        s = &c.ht[h]
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
        s = &c.tt[(h + i) & c.tt_mask]
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


cdef void sort_entries(nb_entry* e, int n) noexcept nogil:
    """Sort by representative sequence (T2). Insertion sort: the searches visit sequences in
    T2 order, so the entries come nearly sorted and this is close to one pass."""
    cdef int i, j
    cdef nb_entry x
    for i in range(1, n):
        if e[i].seq < e[i - 1].seq:
            x = e[i]
            j = i - 1
            while j >= 0 and e[j].seq > x.seq:
                e[j + 1] = e[j]
                j -= 1
            e[j + 1] = x


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


cdef uint32_t forbidden_blocks(const nb_rules* r, const nb_board* b) noexcept nogil:
    """L6 (long nardy): the lowest points, in the opponent's numbering, at which the mover
    may not hold a six-run: below the opponent's lowest checker (opponent_ahead), or
    anywhere while no opponent checker is home (opponent_home); none once it has borne off."""
    cdef int k
    if r.block_rule == 2 or b.o[0] > 0:
        return 0
    if r.block_rule == 0:
        for k in range(1, 25):
            if b.o[mir(k, 0)] > 0:
                return ((1u << k) - 2) & PTS
        return PTS
    for k in range(1, 7):
        if b.o[mir(k, 0)] > 0:
            return 0
    return PTS


cdef int nb_generate(nb_ctx* c, const nb_rules* r, const nb_board* root,
                     int die1, int die2, int want_order) noexcept nogil:
    """The legal turns of `root` for the roll: c.out[0 .. return value) (keys, and with
    want_order the entries sorted by their T2 representative). 0 means game over (T4), or
    no candidate at all (turn_end with an L6-invalid root)."""
    cdef int i, k, p, first, limit, d, ok
    if root.m[0] >= 15 or root.o[0] >= 15:  # T4
        c.n = 0
        return 0
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
        c.F = forbidden_blocks(r, root)
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
        sort_entries(c.out, c.n)
    return c.n


cdef void nb_poll_signals(nb_ctx* c) noexcept nogil:
    with gil:
        if nb_check_signals() != 0:
            c.stop = 1


cdef inline int nb_tick(nb_ctx* c) noexcept nogil:
    """Count a generation; in a polling context look for signals every 4096. Returns 1 once
    a signal handler has raised (the caller unwinds)."""
    c.ticks += 1
    if c.poll and (c.ticks & 4095) == 0:
        nb_poll_signals(c)
    return c.stop


cdef inline uint64_t tt_meta(const nb_rules* r, int depth, int weighted) noexcept nogil:
    return (<uint64_t>depth | (<uint64_t>weighted << 8)
            | (<uint64_t>(r.game | (r.head_rule << 1) | (r.block_rule << 3) | (r.block_check << 5)
                          | (r.hit_and_hide << 6)) << 9) | (<uint64_t>1 << 63))


cdef inline nb_tt_entry* tt_bucket(nb_tt* tt, uint64_t lo, uint64_t hi, uint64_t meta) noexcept nogil:
    cdef nb_count h = hkey(lo ^ (meta * <uint64_t>0x9E3779B97F4A7C15), hi)
    return &tt.e[2 * <uint64_t>((h * tt.buckets) >> 64)]  # the hash's high bits pick it


cdef inline void count_key(const nb_rules* r, const nb_board* b, uint64_t* lo, uint64_t* hi,
                           uint64_t* meta) noexcept nogil:
    """The key of what perft(b, 1) depends on: the mover's checkers and, of the opponent,
    only what the mover's turns see. Short nardy: blots (S3 hits) and closed points (two or
    more: the count beyond two and the opponent's bar do not change any turn). Long nardy:
    occupied points (L3) and, in meta, the L6 forbidden block points (which the opponent's
    checkers decide). Positions alike in all this have the same legal turns for every roll,
    up to the opponent's untouched checkers, so the same perft(., 1)."""
    cdef uint64_t ones = <uint64_t>0x084210842108421, M60 = (<uint64_t>1 << 60) - 1
    cdef uint64_t x, opp, big
    cdef int half
    for half in range(2):
        x = (lo[0] if half == 0 else hi[0]) & M60
        opp = (x >> 4) & ones
        if r.game:  # opponent fields 17..30 (two or more) -> 17
            big = (((x & (ones * 15)) + ones * 14) >> 4) & ones & opp
            x = (x & ~(big * 31)) | (big * 17)
        else:       # every opponent field -> 16
            x = (x & ~(opp * 31)) | (opp * 16)
        if half == 0:
            lo[0] = x | (lo[0] & ~M60)      # the mover's bar stays
        else:
            hi[0] = x                       # the opponent's bar goes
    if not r.game:
        meta[0] |= <uint64_t>forbidden_blocks(r, b) << 24


cdef void tt_store(nb_tt_entry* e, uint64_t lo, uint64_t hi, uint64_t meta,
                   nb_count count) noexcept nogil:
    """Replacement, with the bucket's lock held (slot 0's lock bit stays set): a subtree at
    least as deep as slot 0's takes slot 0 (its old entry moves to slot 1); any other takes
    slot 1."""
    if (meta & 255) >= (e[0].meta & 255) or not (e[0].meta >> 63):
        e[1] = e[0]
        e[1].meta &= ~NB_LOCK
        meta |= NB_LOCK
    else:
        e = e + 1
    e.lo = lo
    e.hi = hi
    e.count = <uint64_t>count
    e.count_hi = <uint64_t>(count >> 64)
    e.meta = meta


cdef extern from *:
    """
    static inline int nb_count_add(nb_count* total, nb_count x, int twice) {
        return (twice && __builtin_add_overflow(x, x, &x)) || __builtin_add_overflow(*total, x, total);
    }
    static inline void nb_halt(int* halt) { __atomic_store_n(halt, 1, __ATOMIC_RELAXED); }
    static inline int nb_halted(const int* halt) {
        return halt != NULL && __atomic_load_n(halt, __ATOMIC_RELAXED);
    }
    """
    int nb_count_add(nb_count* total, nb_count x, int twice) noexcept nogil
    int nb_halted(const int* halt) noexcept nogil
    void nb_halt(int* halt) noexcept nogil


cdef nb_count nb_perft(nb_ctx* c, const nb_rules* r, const nb_board* b, int depth,
                       int weighted, nb_entry** bufs, nb_tt* tt,
                       const int* halt) noexcept nogil:
    """T5 perft; bufs[k] holds NB_MAX_TURNS + 1 entries for the children at remaining depth k;
    tt (or NULL) is an exact transposition table of subtree counts (key, depth, weighted,
    rules). Every sum is checked: past 2**128 - 1 it sets c.stop = 2. Returns 0 early when
    the context stops (c.stop: a signal, the overflow, or *halt set by another thread)."""
    cdef nb_count total = 0
    cdef int d1, d2, n, i, twice
    cdef uint64_t lo, hi, meta = 0, klo = b.lo, khi = b.hi
    cdef nb_board kid
    cdef nb_tt_entry* e = NULL
    if depth == 0 or b.m[0] >= 15 or b.o[0] >= 15:
        return 1
    if tt != NULL:
        meta = tt_meta(r, depth, weighted)
        if depth == 1:
            count_key(r, b, &klo, &khi, &meta)
        e = tt_bucket(tt, klo, khi, meta)
        c.tt_probes += 1
        nb_lock(&e[0].meta)
        for i in range(2):
            if (e[i].meta & ~NB_LOCK) == meta and e[i].lo == klo and e[i].hi == khi:
                total = (<nb_count>e[i].count_hi << 64) | e[i].count
                nb_unlock(&e[0].meta)
                c.tt_hits += 1
                return total
        nb_unlock(&e[0].meta)
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            twice = weighted and d1 != d2
            n = nb_generate(c, r, b, d2, d1, 0)
            if nb_tick(c) or nb_halted(halt):
                if not c.stop:
                    c.stop = 1
                return 0
            if depth == 1:
                total += (1 + twice) * <nb_count>n  # at most 2 * 36 * NB_MAX_TURNS
                continue
            memcpy(bufs[depth], c.out, n * sizeof(nb_entry))
            for i in range(n):
                nb_swap_key(bufs[depth][i].lo, bufs[depth][i].hi, r.game, &lo, &hi)
                nb_board_from_key(lo, hi, r.game, &kid)
                if nb_count_add(&total, nb_perft(c, r, &kid, depth - 1, weighted, bufs, tt,
                                                 halt), twice):
                    c.stop = 2
                if c.stop:
                    return 0
    if tt != NULL:
        nb_lock(&e[0].meta)
        tt_store(e, klo, khi, meta, total)
        nb_unlock(&e[0].meta)
        c.tt_stores += 1
    return total


# --------------------------------------------------------------------------- contexts

# A stack of free contexts, touched only with the GIL held (no Python call between the test
# and the update), so that threads and re-entrant calls each get their own.
DEF NB_POOL = 16
cdef nb_ctx* _pool[NB_POOL]
cdef int _pool_n = 0


cdef nb_ctx* ctx_acquire() except NULL:
    """A context for one call (GIL held): from the pool, or newly allocated."""
    global _pool_n
    cdef nb_ctx* c
    if _pool_n:
        _pool_n -= 1
        return _pool[_pool_n]
    c = <nb_ctx*>calloc(1, sizeof(nb_ctx))
    if c != NULL:
        c.out = <nb_entry*>malloc((NB_MAX_TURNS + 1) * sizeof(nb_entry))
        c.ht = <nb_slot*>calloc(NB_HT_SLOTS, sizeof(nb_slot))
        c.tt = <nb_tslot*>calloc(NB_TT_SLOTS, sizeof(nb_tslot))
        if c.out != NULL and c.ht != NULL and c.tt != NULL:
            return c
        ctx_free(c)
    raise ResourceLimitError("cannot allocate the kernel's working memory (2.8 MB)")


cdef void ctx_free(nb_ctx* c) noexcept:
    free(c.out)
    free(c.ht)
    free(c.tt)
    free(c)


cdef void ctx_release(nb_ctx* c) noexcept:
    """Give a context back (GIL held)."""
    global _pool_n
    c.poll = 0
    c.stop = 0
    c.ticks = 0
    c.tt_probes = c.tt_hits = c.tt_stores = 0
    if _pool_n < NB_POOL:
        _pool[_pool_n] = c
        _pool_n += 1
    else:
        ctx_free(c)


cdef void ctx_watch(nb_ctx* c) noexcept:
    """Before a long call without the GIL: poll for signals if this is the main thread
    (only the main thread runs Python's signal handlers)."""
    c.poll = PyThread_get_thread_ident() == _main_thread


cdef int ctx_raise_if_stopped(nb_ctx* c) except -1:
    """After a long call: re-raise what a signal handler raised while it ran (GIL held)."""
    if c.stop:
        if PyErr_Occurred() == NULL:
            raise KeyboardInterrupt()
        return -1
    return 0


# --------------------------------------------------------------------------- parsing

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


cdef str _row(int row):
    return "" if row < 0 else f"row {row}: "


cdef int _build_error(int err, const int8_t* me, int me_bar, const int8_t* opp, int opp_bar,
                      int row) except -1:
    """Raise the InvalidPositionError for nb_build's (or nb_check_key's) error number."""
    cdef int i, sm = me_bar, so = opp_bar
    if me != NULL:
        for i in range(24):
            sm += me[i]
            so += opp[i]
    if err == 1:
        raise InvalidPositionError(f"{_row(row)}bar counts must be from 0 to 15, "
                                   f"not {me_bar} and {opp_bar}")
    if err == 2:
        raise InvalidPositionError(f"{_row(row)}long nardy has no bar (L3), but the bars hold "
                                   f"checkers")
    if err == 3:
        raise InvalidPositionError(f"{_row(row)}counts must not be negative")
    if err == 4:
        raise InvalidPositionError(f"{_row(row)}the side to move has "
                                   f"{sm if me != NULL else 'more than 15'} checkers on the "
                                   f"board and bar; at most 15 (T7)")
    if err == 5:
        raise InvalidPositionError(f"{_row(row)}the opponent has "
                                   f"{so if me != NULL else 'more than 15'} checkers on the "
                                   f"board and bar; at most 15 (T7)")
    if err == 6:
        raise InvalidPositionError(f"{_row(row)}a point holds checkers of both sides (T7)")
    if err == 7:
        raise InvalidPositionError(f"{_row(row)}a key field holds 31, which encodes nothing")
    raise InvalidPositionError(f"{_row(row)}invalid position")


cdef int _parse_position(object code, object me, object me_bar, object opp, object opp_bar,
                         nb_rules* r, nb_board* b) except -1:
    cdef int8_t cme[24]
    cdef int8_t copp[24]
    cdef int err
    _parse_code(code, r)
    _parse_side(me, "me", cme)
    _parse_side(opp, "opp", copp)
    mb = _as_int(me_bar, "me_bar", InvalidPositionError)
    ob = _as_int(opp_bar, "opp_bar", InvalidPositionError)
    if mb < 0 or mb > 15 or ob < 0 or ob > 15:
        raise InvalidPositionError(f"bar counts must be from 0 to 15, not {mb} and {ob}")
    err = nb_build(cme, mb, copp, ob, r.game, b)
    if err:
        _build_error(err, cme, mb, copp, ob, -1)
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


cdef int _parse_dice(object dice, int* d1, int* d2) except -1:
    """A roll: a sequence of two ints from 1 to 6 (InvalidDiceError otherwise)."""
    cdef object a, b
    if type(dice) is tuple and PyTuple_GET_SIZE(dice) == 2:
        a = (<tuple>dice)[0]
        b = (<tuple>dice)[1]
    else:
        if isinstance(dice, (str, bytes)):
            raise InvalidDiceError(f"dice must be two integers from 1 to 6, not {dice!r}")
        try:
            values = tuple(dice)
        except TypeError:
            raise InvalidDiceError(f"dice must be two integers from 1 to 6, not {dice!r}") from None
        if len(values) != 2:
            raise InvalidDiceError(f"dice must be two integers from 1 to 6, not {dice!r}")
        a, b = values
    d1[0] = _parse_die(a, "die1")
    d2[0] = _parse_die(b, "die2")
    return 0


def dice_pair(dice):
    """A roll as a tuple of two ints from 1 to 6, in the order given (InvalidDiceError for
    anything else: strings, bools, floats, other lengths)."""
    cdef int d1, d2
    _parse_dice(dice, &d1, &d2)
    return (_INTS[d1], _INTS[d2])


# --------------------------------------------------------------------------- results

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


cdef tuple _steps_of(uint64_t seq, tuple table):
    """The steps of an encoded sequence (seq_add), as items of ``table`` (plain tuples, or
    the Step values of the public API)."""
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
        o = table[idx[i]]
        Py_INCREF(o)
        PyTuple_SET_ITEM(t, i, o)
    return t


cdef uint64_t _seq_of(object steps) except? 0:
    """Encode up to four (src, dst[, hit]) steps as seq_add does (the inverse of
    _steps_of)."""
    cdef uint64_t seq = 0
    cdef int i = 0, src, dst
    try:
        items = tuple(steps)
    except TypeError:
        raise IllegalTurnError("T1", f"steps must be a sequence of (src, dst, hit), not {steps!r}") from None
    if len(items) > 4:
        raise IllegalTurnError("L4", f"a turn has at most four steps, got {len(items)}")
    for step in items:
        try:
            fields = tuple(step)
        except TypeError:
            fields = ()
        if len(fields) not in (2, 3):
            raise IllegalTurnError("T1", f"a step is (src, dst) or (src, dst, hit), "
                                         f"not {step!r}", i + 1)
        src_o, dst_o, hit_o = fields if len(fields) == 3 else fields + (False,)
        if (isinstance(src_o, (bool, float)) or isinstance(dst_o, (bool, float))
                or not hasattr(src_o, "__index__") or not hasattr(dst_o, "__index__")
                or not 0 <= src_o.__index__() <= 25 or not 0 <= dst_o.__index__() <= 25
                or not isinstance(hit_o, (bool, int))):
            raise IllegalTurnError("T1", f"a step is (src, dst, hit) with points 0-25 "
                                         f"(25 = bar, 0 = off), not {step!r}", i + 1)
        src = src_o.__index__()
        dst = dst_o.__index__()
        seq = seq_add(seq, i, src, dst, 1 if hit_o else 0)
        i += 1
    return seq


cdef inline void nb_key_to_row(uint64_t lo, uint64_t hi, int is_short, int8_t* row) noexcept nogil:
    """The 50-byte board row of a key, from the view of the OTHER side (the one to move after
    the turn): its 24 points (own numbering) and bar, then the key's mover's."""
    cdef int p
    cdef uint64_t v
    memset(row, 0, 50)
    for p in range(1, 25):
        v = field(lo, hi, p)
        if v >= 16:
            row[mir(p, is_short) - 1] = <int8_t>(v - 15)
        elif v:
            row[24 + p] = <int8_t>v
    row[24] = <int8_t>(hi >> 60)
    row[49] = <int8_t>(lo >> 60)


cdef tuple _entry_tuple(uint64_t lo, uint64_t hi, uint64_t seq, int game):
    """One result entry as the contract's tuple (steps, me, me_bar, opp, opp_bar), decoded
    from its key alone."""
    cdef nb_board b
    cdef int8_t mv[24]
    cdef int8_t ov[24]
    cdef int p
    nb_board_from_key(lo, hi, game, &b)
    for p in range(1, 25):
        mv[p - 1] = b.m[p]
        ov[p - 1] = b.o[mir(p, game)]
    return (_steps_of(seq, _STEPS), _tup24(mv), _INTS[b.m[25]], _tup24(ov), _INTS[b.o[25]])


cdef int _generate(const nb_rules* r, const nb_board* b, int d1, int d2, int want_order,
                   nb_entry** out) except -1:
    """One generation in a pooled context; the n entries are copied to a new malloc'd array
    (*out, NULL when n == 0) that the caller owns. Returns n."""
    cdef nb_ctx* c = ctx_acquire()
    cdef int n
    n = nb_generate(c, r, b, d1, d2, want_order)
    out[0] = NULL
    if n:
        out[0] = <nb_entry*>malloc(n * sizeof(nb_entry))
        if out[0] != NULL:
            memcpy(out[0], c.out, n * sizeof(nb_entry))
    ctx_release(c)
    if n and out[0] == NULL:
        raise ResourceLimitError("cannot allocate the result of a generation")
    return n


def enumerate_turns(code, me, me_bar, opp, opp_bar, die1, die2):
    """The legal turns (T1) in T2 order, as in fastnardy.backend."""
    cdef nb_rules r
    cdef nb_board b
    cdef nb_entry* entries
    cdef int n, i
    _parse_position(code, me, me_bar, opp, opp_bar, &r, &b)
    n = _generate(&r, &b, _parse_die(die1, "die1"), _parse_die(die2, "die2"), 1, &entries)
    try:
        return [_entry_tuple(entries[i].lo, entries[i].hi, entries[i].seq, r.game)
                for i in range(n)]
    finally:
        free(entries)


cdef class PackedTurns:
    """The result of enumerate_packed: the legal turns kept as packed entries (key and
    representative sequence, 32 bytes a turn) in T2 order. A read-only sequence: len() is
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
        i = _index(index, self.n, "PackedTurns")
        return _entry_tuple(self.entries[i].lo, self.entries[i].hi, self.entries[i].seq,
                            self.game)


cdef Py_ssize_t _index(object index, Py_ssize_t n, str what) except -1:
    cdef Py_ssize_t i
    try:
        i = _op_index(index)
    except TypeError:
        raise TypeError(f"{what} indices must be integers or slices, not {index!r}") from None
    if i < 0:
        i += n
    if not 0 <= i < n:
        raise IndexError(f"{what} index out of range")
    return i


def enumerate_packed(code, me, me_bar, opp, opp_bar, die1, die2):
    """enumerate_turns, kept packed: a PackedTurns sequence whose items equal the list's."""
    cdef nb_rules r
    cdef nb_board b
    cdef PackedTurns out = PackedTurns.__new__(PackedTurns)
    _parse_position(code, me, me_bar, opp, opp_bar, &r, &b)
    out.game = r.game
    out.n = _generate(&r, &b, _parse_die(die1, "die1"), _parse_die(die2, "die2"), 1,
                      &out.entries)
    return out


def count_turns(code, me, me_bar, opp, opp_bar, die1, die2):
    """Number of distinct legal turns (a pass counts 1, game over 0); no Python objects built."""
    cdef nb_rules r
    cdef nb_board b
    cdef int d1, d2, n
    cdef nb_ctx* c
    _parse_position(code, me, me_bar, opp, opp_bar, &r, &b)
    d1 = _parse_die(die1, "die1")
    d2 = _parse_die(die2, "die2")
    c = ctx_acquire()
    n = nb_generate(c, &r, &b, d1, d2, 0)
    ctx_release(c)
    return n


# --------------------------------------------------------------------------- batches

ctypedef struct nb_batch:
    # the boards of a batch call: rows (N x 50 int8) or keys (N x 2 uint64), one of them set
    const int8_t* rows
    const uint64_t* keys
    Py_ssize_t n
    int is_short


ctypedef struct nb_out:
    # a growing result: children (`width` bytes each: 50 for rows, 16 for keys), the row
    # each came from and (chance nodes) the index of its roll
    char* kids
    int32_t* parent
    int8_t* roll
    Py_ssize_t n
    Py_ssize_t cap
    Py_ssize_t limit    # max_children, or -1
    int width
    int with_roll


cdef inline int nb_batch_board(const nb_batch* bt, Py_ssize_t i, nb_board* b) noexcept nogil:
    """The board of row i, checked (0, or an error number for _build_error)."""
    cdef const int8_t* row
    cdef int err
    if bt.keys != NULL:
        err = nb_check_key(bt.keys[2 * i], bt.keys[2 * i + 1], bt.is_short)
        if err == 0:
            nb_board_from_key(bt.keys[2 * i], bt.keys[2 * i + 1], bt.is_short, b)
        return err
    row = bt.rows + 50 * i
    return nb_build(row, row[24], row + 25, row[49], bt.is_short, b)


cdef int out_reserve(nb_out* o, Py_ssize_t k) noexcept nogil:
    """Room for k more children: 0, 1 over the caller's limit, 2 out of memory. The buffers
    grow by doubling with realloc (large blocks move by remapping, and the untouched tail is
    never resident, so the peak is close to the output's own size)."""
    cdef Py_ssize_t cap = o.cap
    cdef void* p
    if o.limit >= 0 and o.n + k > o.limit:
        return 1
    if o.n + k <= cap:
        return 0
    cap = cap * 2 if cap else 4096
    while cap < o.n + k:
        cap *= 2
    p = realloc(o.kids, cap * o.width)
    if p == NULL:
        return 2
    o.kids = <char*>p
    p = realloc(o.parent, cap * sizeof(int32_t))
    if p == NULL:
        return 2
    o.parent = <int32_t*>p
    if o.with_roll:
        p = realloc(o.roll, cap)
        if p == NULL:
            return 2
        o.roll = <int8_t*>p
    o.cap = cap
    return 0


cdef int out_emit(nb_out* o, const nb_ctx* c, int k, Py_ssize_t parent, int roll,
                  int is_short) noexcept nogil:
    """Append the k entries of a generation as children seen by the next mover."""
    cdef int err = out_reserve(o, k), j
    cdef uint64_t* key
    if err:
        return err
    for j in range(k):
        if o.width == 16:
            key = <uint64_t*>(o.kids + 16 * o.n)
            nb_swap_key(c.out[j].lo, c.out[j].hi, is_short, &key[0], &key[1])
        else:
            nb_key_to_row(c.out[j].lo, c.out[j].hi, is_short, <int8_t*>(o.kids + 50 * o.n))
        o.parent[o.n] = <int32_t>parent
        if o.with_roll:
            o.roll[o.n] = <int8_t>roll
        o.n += 1
    return 0


cdef class _Memory:
    """malloc'd memory lent to numpy through the buffer protocol, freed with the last array."""
    cdef void* data
    cdef Py_ssize_t nbytes

    def __dealloc__(self):
        free(self.data)

    def __getbuffer__(self, Py_buffer* view, int flags):
        PyBuffer_FillInfo(view, self, self.data, self.nbytes, 0, flags)

    def __releasebuffer__(self, Py_buffer* view):
        pass


cdef object _adopt(void* data, Py_ssize_t n, Py_ssize_t item, object dtype, tuple shape):
    """A numpy array over n items of malloc'd memory, without a copy (the array frees it)."""
    cdef _Memory m
    cdef void* p
    if n == 0:
        free(data)
        return np.empty(shape, dtype=dtype)
    p = realloc(data, n * item)  # give back the unused tail
    m = _Memory.__new__(_Memory)
    m.data = p if p != NULL else data
    m.nbytes = n * item
    return np.frombuffer(m, dtype=dtype).reshape(shape)


cdef object _batch_boards(object boards, nb_batch* bt):
    """Check a batch of boards (rows or keys) and point bt at a C-contiguous copy, which the
    caller keeps alive (it is returned)."""
    arr = np.asarray(boards)
    if arr.dtype == KEY_DTYPE:
        if arr.ndim != 1:
            raise InvalidPositionError(f"keys must be a 1-D array of KEY_DTYPE, not shape {arr.shape}")
        arr = np.ascontiguousarray(arr).view(np.uint64).reshape(arr.shape[0], 2)
        bt.n = arr.shape[0]
        bt.rows = NULL
        bt.keys = <const uint64_t*><size_t>arr.ctypes.data if bt.n else NULL
        return arr
    if arr.ndim != 2 or arr.shape[1] != 50:
        raise InvalidPositionError(f"boards must be rows of shape (N, 50) or a 1-D array of "
                                   f"KEY_DTYPE keys, not shape {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise InvalidPositionError(f"boards must hold integers (int8/uint8), not {arr.dtype}")
    if arr.size and (int(arr.min()) < 0 or int(arr.max()) > 15):
        raise InvalidPositionError("board counts must be from 0 to 15")
    arr = np.ascontiguousarray(arr, dtype=np.int8)
    bt.n = arr.shape[0]
    bt.keys = NULL
    bt.rows = <const int8_t*><size_t>arr.ctypes.data if bt.n else NULL
    return arr


cdef object _batch_dice(object dice, Py_ssize_t n, int one_roll, Py_ssize_t* step):
    """(N, 2) dice, or with one_roll also (2,): one roll for every row (step 0). A
    C-contiguous int8 copy."""
    darr = np.asarray(dice)
    if darr.dtype.kind not in "iu":
        raise InvalidDiceError(f"dice must hold integers, not {darr.dtype}")
    if one_roll and darr.shape == (2,):
        step[0] = 0
    elif darr.ndim == 2 and darr.shape[1] == 2 and darr.shape[0] == n:
        step[0] = 2
    else:
        raise InvalidDiceError(f"dice must have shape ({n}, 2)"
                               f"{', or (2,) for one roll of every row' if one_roll else ''}, "
                               f"not {darr.shape}")
    if darr.size and (int(darr.min()) < 1 or int(darr.max()) > 6):
        raise InvalidDiceError("dice must be from 1 to 6")
    return np.ascontiguousarray(darr, dtype=np.int8)


cdef int _batch_error(int err, const nb_batch* bt, Py_ssize_t i) except -1:
    cdef const int8_t* row
    if bt.keys != NULL:
        return _build_error(err, NULL, 0, NULL, 0, <int>i)
    row = bt.rows + 50 * i
    return _build_error(err, row, row[24], row + 25, row[49], <int>i)


def count_turns_batch(code, boards, dice):
    """count_turns for many positions, without the GIL: boards are (N, 50) int8/uint8 rows
    (me[24], me_bar, opp[24], opp_bar) or a 1-D KEY_DTYPE array of keys, mover's frame; dice
    (N, 2) ints 1..6, or (2,) for one roll of every row. Returns an int32 array of N counts."""
    cdef nb_rules r
    cdef nb_board b
    cdef nb_batch bt
    cdef const int8_t* dv
    cdef int32_t* ov
    cdef Py_ssize_t i, step, bad = -1
    cdef int err = 0
    cdef nb_ctx* c
    _parse_code(code, &r)
    bt.is_short = r.game
    keep = _batch_boards(boards, &bt)
    darr = _batch_dice(dice, bt.n, 1, &step)
    dv = <const int8_t*><size_t>darr.ctypes.data
    out = np.empty(bt.n, dtype=np.int32)
    ov = <int32_t*><size_t>out.ctypes.data
    c = ctx_acquire()
    try:
        ctx_watch(c)
        with nogil:
            for i in range(bt.n):
                err = nb_batch_board(&bt, i, &b)
                if err:
                    bad = i
                    break
                ov[i] = nb_generate(c, &r, &b, dv[step * i], dv[step * i + 1], 0)
                if nb_tick(c):
                    break
        ctx_raise_if_stopped(c)
    finally:
        ctx_release(c)
    if bad >= 0:
        _batch_error(err, &bt, bad)
    return out


cdef tuple _expand(object code, object boards, object dice, int keys, object max_children,
                   int chance):
    """The work of expand_batch (one roll a row) and chance_batch (the 21 rolls of T5 for
    every row, row-major), without the GIL."""
    cdef nb_rules r
    cdef nb_board b
    cdef nb_batch bt
    cdef nb_out o
    cdef const int8_t* dv = NULL
    cdef int64_t* offsets = NULL
    cdef Py_ssize_t i, step = 0, bad = -1
    cdef int err = 0, full = 0, k, d1, d2, ri
    cdef nb_ctx* c
    _parse_code(code, &r)
    bt.is_short = r.game
    keep = _batch_boards(boards, &bt)
    if not chance:
        darr = _batch_dice(dice, bt.n, 0, &step)
        dv = <const int8_t*><size_t>darr.ctypes.data
    memset(&o, 0, sizeof(nb_out))
    o.width = 16 if keys else 50
    o.with_roll = chance
    o.limit = -1
    if max_children is not None:
        if (isinstance(max_children, bool) or not hasattr(max_children, "__index__")
                or max_children.__index__() < 0):
            raise FastNardyError(f"max_children must be an int >= 0 or None, not {max_children!r}")
        o.limit = min(max_children.__index__(), 2 ** 62)
    if chance:
        offsets = <int64_t*>malloc((bt.n * 21 + 1) * sizeof(int64_t))
        if offsets == NULL:
            raise ResourceLimitError(f"cannot allocate the offsets of {bt.n} rows")
        offsets[0] = 0
    c = ctx_acquire()
    try:
        ctx_watch(c)
        with nogil:
            for i in range(bt.n):
                err = nb_batch_board(&bt, i, &b)
                if err:
                    bad = i
                    break
                if chance:
                    ri = 0
                    for d1 in range(1, 7):
                        for d2 in range(d1, 7):
                            k = nb_generate(c, &r, &b, d2, d1, 1)
                            full = out_emit(&o, c, k, i, ri, r.game)
                            if full:
                                break
                            ri += 1
                            offsets[21 * i + ri] = o.n
                        if full:
                            break
                else:
                    k = nb_generate(c, &r, &b, dv[step * i], dv[step * i + 1], 1)
                    full = out_emit(&o, c, k, i, 0, r.game)
                if full or nb_tick(c):
                    break
        ctx_raise_if_stopped(c)
        if bad >= 0:
            _batch_error(err, &bt, bad)
        if full == 1:
            raise ResourceLimitError(
                f"the result has more than max_children={o.limit} children (row {i} of "
                f"{bt.n}); call with fewer rows at a time")
        if full == 2:
            raise ResourceLimitError(
                f"out of memory after {o.n} children ({o.n * (o.width + 4 + chance)} bytes) at "
                f"row {i} of {bt.n}; call with fewer rows at a time, or set max_children")
    except BaseException:
        free(o.kids)
        free(o.parent)
        free(o.roll)
        free(offsets)
        raise
    finally:
        ctx_release(c)
    if keys:
        children = _adopt(o.kids, o.n, 16, KEY_DTYPE, (o.n,))
    else:
        children = _adopt(o.kids, o.n, 50, np.int8, (o.n, 50))
    parent = _adopt(o.parent, o.n, 4, np.int32, (o.n,))
    if not chance:
        return (children, parent)
    roll = _adopt(o.roll, o.n, 1, np.int8, (o.n,))
    return (children, parent, roll, _adopt(offsets, bt.n * 21 + 1, 8, np.int64, (bt.n * 21 + 1,)))


def expand_batch(code, boards, dice, keys=False, max_children=None):
    """Every legal turn of every row, without the GIL: ``(children, parent)``. ``children``
    are the resulting positions from the NEXT mover's view, in T2 order per row: (M, 50) int8
    rows (opp[24], opp_bar, me[24], me_bar) or, with ``keys``, an (M,) KEY_DTYPE array;
    ``parent`` (M,) int32 is the row each came from. Boards as in count_turns_batch; dice
    (N, 2).
    More than ``max_children`` children raise ResourceLimitError."""
    return _expand(code, boards, dice, 1 if keys else 0, max_children, 0)


def chance_batch(code, boards, keys=False, max_children=None):
    """Every legal turn of every row for each of the 21 rolls of T5 (ROLLS order), without
    the GIL: ``(children, parent, roll, offsets)`` where ``roll`` (M,) int8 indexes the roll
    and ``offsets`` (N * 21 + 1,) int64 is the CSR index: the children of row i and roll j
    are ``children[offsets[21 * i + j]:offsets[21 * i + j + 1]]``."""
    return _expand(code, boards, None, 1 if keys else 0, max_children, 1)


# --------------------------------------------------------------------------- perft

cdef class PerftTable:
    """An exact transposition table for perft, bounded to ``mb`` megabytes: subtree counts
    keyed by the full 128-bit position key, the remaining depth, ``weighted`` and the rules,
    so a hit is always the exact count (no lossy key). Buckets of two 40-byte entries
    (128-bit counts), as many as fit in ``mb``: slot 0 keeps the deepest subtree that hashed there (the most work saved),
    slot 1 the most recent. A table may serve many perft calls (its counts stay valid), at
    the same time too: threads share it, each bucket read and written under its own lock."""

    cdef nb_tt tt
    cdef readonly double mb

    def __cinit__(self, mb):
        cdef uint64_t buckets
        self.tt.e = NULL
        if isinstance(mb, bool) or not isinstance(mb, (int, float)) or not 1 <= mb <= 1 << 20:
            raise FastNardyError(f"a perft table needs 1 to 1048576 MB, not {mb!r}")
        buckets = <uint64_t>(mb * 1048576) // (2 * sizeof(nb_tt_entry))
        self.tt.e = <nb_tt_entry*>calloc(buckets * 2, sizeof(nb_tt_entry))
        if self.tt.e == NULL:
            raise ResourceLimitError(f"cannot allocate a perft table of {mb} MB")
        self.tt.buckets = buckets
        self.mb = buckets * 2 * sizeof(nb_tt_entry) / 1048576.0

    def __dealloc__(self):
        free(self.tt.e)

    @property
    def probes(self):
        """Lookups made (one per interior node searched)."""
        return self.tt.probes

    @property
    def hits(self):
        """Lookups answered by the table."""
        return self.tt.hits

    @property
    def stores(self):
        """Counts written."""
        return self.tt.stores

    @property
    def hit_rate(self):
        """hits / probes (0 before any probe)."""
        return <double>self.tt.hits / <double>self.tt.probes if self.tt.probes else 0.0

    def __repr__(self):
        return (f"<PerftTable {self.mb:g} MB: {self.tt.probes:,} probes, "
                f"{self.hit_rate:.1%} hits>")


cdef class PerftStop:
    """A flag that stops the perft_count calls given it, in any thread, within
    milliseconds (they raise KeyboardInterrupt): only the main thread sees Ctrl-C, so it
    sets the flag of the calls running on worker threads."""

    cdef int flag

    def set(self):
        """Stop the calls (those running, and those that start later)."""
        nb_halt(&self.flag)

    def is_set(self):
        """True once set."""
        return self.flag != 0


def perft_count(code, me, me_bar, opp, opp_bar, depth, weighted=False, table=None,
                stats=False, stop=None):
    """T5 perft from the position, `me` to move; weighted counts non-doubles twice. With a
    PerftTable, subtree counts are looked up and stored there; with ``stats`` the result is
    (count, probes, hits) of this call. The count is exact (128-bit, every sum checked):
    CountOverflowError past 2**128 - 1. Runs without the GIL; Ctrl-C (in the main thread)
    or ``stop`` (a PerftStop, in any thread) stops it: KeyboardInterrupt."""
    cdef nb_rules r
    cdef nb_board b
    cdef int dp, k, w
    cdef nb_entry* bufs[NB_MAX_DEPTH + 1]
    cdef nb_count total
    cdef nb_ctx* c
    cdef nb_tt* tt = NULL
    cdef PerftTable held = None
    cdef const int* halt = NULL
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
    if weighted not in (True, False, 0, 1) or type(weighted) not in (bool, int):
        raise FastNardyError(f"weighted must be True or False, not {weighted!r}")
    w = 1 if weighted else 0
    if table is not None:
        if not isinstance(table, PerftTable):
            raise FastNardyError(f"table must be a PerftTable or None, not {table!r}")
        held = <PerftTable>table
        tt = &held.tt
    if stop is not None:
        if not isinstance(stop, PerftStop):
            raise FastNardyError(f"stop must be a PerftStop or None, not {stop!r}")
        halt = &(<PerftStop>stop).flag
    for k in range(NB_MAX_DEPTH + 1):
        bufs[k] = NULL
    c = NULL
    try:
        c = ctx_acquire()
        for k in range(2, dp + 1):
            bufs[k] = <nb_entry*>malloc((NB_MAX_TURNS + 1) * sizeof(nb_entry))
            if bufs[k] == NULL:
                raise ResourceLimitError("cannot allocate perft's buffers")
        ctx_watch(c)
        with nogil:
            total = nb_perft(c, &r, &b, dp, w, bufs, tt, halt)
        if held is not None:  # with the GIL: calls sharing the table add up safely
            held.tt.probes += c.tt_probes
            held.tt.hits += c.tt_hits
            held.tt.stores += c.tt_stores
        if c.stop == 2:
            raise CountOverflowError(f"T5: perft({dp}) of this position passes 2**128 - 1, "
                                     f"the kernel's limit")
        ctx_raise_if_stopped(c)
        probes, hits = c.tt_probes, c.tt_hits
    finally:
        if c != NULL:
            ctx_release(c)
        for k in range(NB_MAX_DEPTH + 1):
            free(bufs[k])
    count = (<object><uint64_t>(total >> 64) << 64) | <object><uint64_t>total
    if stats:
        return (count, probes, hits)
    return count


# --------------------------------------------------------------------------- self-play

cdef inline uint64_t rng_next(uint64_t* state) noexcept nogil:
    """splitmix64: the same stream on every machine."""
    cdef uint64_t z
    state[0] += <uint64_t>0x9E3779B97F4A7C15
    z = state[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)


cdef inline int rng_below(uint64_t* state, int n) noexcept nogil:
    """A number from 0 to n - 1 (multiply-shift on the top 32 bits)."""
    return <int>(((rng_next(state) >> 32) * <uint64_t>n) >> 32)


cdef int greedy_score(const nb_entry* e, int is_short) noexcept nogil:
    """The greedy policy's score of a turn's result, from the mover's view (before the
    swap): the race lead in pips, plus 2 for each point the mover holds with two or more
    checkers and, in short nardy, minus 2 for each of its blots and plus 3 for each opponent
    checker on the bar; in long nardy plus 1 for each point it occupies (spread blocks the
    opponent, L3)."""
    cdef int p, v, mine = 0, theirs = 0, score = 0
    for p in range(1, 25):
        v = <int>field(e.lo, e.hi, p)
        if v >= 16:
            theirs += (v - 15) * mir(p, is_short)
        elif v:
            mine += v * p
            if v >= 2:
                score += 2
            elif is_short:
                score -= 2
            if not is_short:
                score += 1
    mine += 25 * <int>(e.lo >> 60)
    theirs += 25 * <int>(e.hi >> 60)
    if is_short:
        score += 3 * <int>(e.hi >> 60)
    return score + theirs - mine


cdef void nb_start(int is_short, nb_board* b) noexcept nogil:
    """The starting position (L1, S1), from the mover's view."""
    cdef int8_t side[24]
    memset(side, 0, 24)
    if is_short:
        side[23] = 2
        side[12] = 5
        side[7] = 3
        side[5] = 5
    else:
        side[23] = 15
    nb_build(side, 0, side, 0, is_short, b)


cdef void nb_play_game(nb_ctx* c, const nb_rules* r, int koks, int backgammon, uint64_t seed,
                       const int* policy, int max_turns, int8_t* winner, int8_t* points,
                       int8_t* kind, int32_t* turns) noexcept nogil:
    """One game from the start: the T6 opening, then each side plays the turn its policy
    (0 random, 1 greedy) picks among the legal turns in T2 order, until one side bears off
    its 15th checker (L9, S9); scored as L10/S9 with the cube at 1. A game still going after
    max_turns turns is left unfinished (winner -1, kind 4)."""
    cdef uint64_t g = seed, lo, hi
    cdef nb_board b
    cdef int side, d1, d2, n, k, i, best, score, t = 0, loser_out
    nb_start(r.game, &b)
    d1 = d2 = 0
    while d1 == d2:  # T6: one die each, ties thrown again
        d1 = 1 + rng_below(&g, 6)
        d2 = 1 + rng_below(&g, 6)
    side = 0 if d1 > d2 else 1  # 0 white, 1 black
    if not r.game:  # long: the first player throws both dice again
        d1 = 1 + rng_below(&g, 6)
        d2 = 1 + rng_below(&g, 6)
    while True:
        n = nb_generate(c, r, &b, d1, d2, 1)
        if n == 0:  # only a position outside T7 has no candidate at all
            t = max_turns
        elif policy[side] == 0 or n == 1:
            k = rng_below(&g, n) if n > 1 else 0
        else:
            k = 0
            best = greedy_score(&c.out[0], r.game)
            for i in range(1, n):
                score = greedy_score(&c.out[i], r.game)
                if score > best:
                    best = score
                    k = i
        if n:
            nb_swap_key(c.out[k].lo, c.out[k].hi, r.game, &lo, &hi)
            nb_board_from_key(lo, hi, r.game, &b)
            t += 1
        if n and b.o[0] == 15:  # the side that moved has borne off its 15th checker
            winner[0] = <int8_t>side
            turns[0] = t
            if b.m[0]:
                kind[0] = 0
                points[0] = 1
            elif not r.game:
                loser_out = 0
                for i in range(7, 25):
                    loser_out |= b.m[i]
                kind[0] = 2 if (koks and loser_out) else 1
                points[0] = 3 if kind[0] == 2 else 2
            else:
                loser_out = b.m[25]
                for i in range(19, 25):  # the winner's home, in the loser's numbering
                    loser_out |= b.m[i]
                kind[0] = 3 if (backgammon and loser_out) else 1
                points[0] = 3 if kind[0] == 3 else 2
            return
        if t >= max_turns or c.stop:
            winner[0] = -1
            points[0] = 0
            kind[0] = 4
            turns[0] = t
            return
        side = 1 - side
        d1 = 1 + rng_below(&g, 6)
        d2 = 1 + rng_below(&g, 6)


def simulate_games(code, koks, backgammon, seed, first, n, policy, max_turns=10000):
    """Games first .. first + n - 1 of a self-play run, without the GIL: game i plays from its
    own random stream (seed, i), so a run's results do not depend on how it is split.
    ``policy`` is (white's, black's): 0 random, 1 greedy. Returns int8 winner (0 white,
    1 black, -1 unfinished), int8 points, int8 kind (0 oin, 1 mars, 2 koks, 3 backgammon,
    4 unfinished) and int32 turns."""
    cdef nb_rules r
    cdef int pol[2]
    cdef int64_t i, count, start
    cdef uint64_t s, base
    cdef int8_t* wv
    cdef int8_t* pv
    cdef int8_t* kv
    cdef int32_t* tv
    cdef int cap, ck = 1 if koks else 0, cb = 1 if backgammon else 0
    cdef nb_ctx* c
    _parse_code(code, &r)
    for value, name in ((seed, "seed"), (first, "first"), (n, "n"), (max_turns, "max_turns")):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise FastNardyError(f"{name} must be an int >= 0, not {value!r}")
    if max_turns < 1 or max_turns > 1 << 30:
        raise FastNardyError(f"max_turns must be from 1 to 2**30, not {max_turns!r}")
    try:
        pol[0], pol[1] = [int(p) for p in policy]
    except (TypeError, ValueError):
        raise FastNardyError(f"policy must be two of 0 (random) and 1 (greedy), not {policy!r}") from None
    if pol[0] not in (0, 1) or pol[1] not in (0, 1):
        raise FastNardyError(f"policy must be two of 0 (random) and 1 (greedy), not {policy!r}")
    s = <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF)
    start = first
    count = n
    cap = max_turns
    winner = np.empty(count, dtype=np.int8)
    points = np.empty(count, dtype=np.int8)
    kind = np.empty(count, dtype=np.int8)
    turns = np.empty(count, dtype=np.int32)
    wv = <int8_t*><size_t>winner.ctypes.data
    pv = <int8_t*><size_t>points.ctypes.data
    kv = <int8_t*><size_t>kind.ctypes.data
    tv = <int32_t*><size_t>turns.ctypes.data
    c = ctx_acquire()
    try:
        ctx_watch(c)
        base = rng_next(&s)
        with nogil:
            for i in range(count):
                nb_play_game(c, &r, ck, cb,
                             base ^ (<uint64_t>(start + i) * <uint64_t>0xD6E8FEB86659FD93),
                             pol, cap, wv + i, pv + i, kv + i, tv + i)
                if nb_tick(c):
                    break
        ctx_raise_if_stopped(c)
    finally:
        ctx_release(c)
    return winner, points, kind, turns


# --------------------------------------------------------------------------- keys

def pack(me, me_bar, opp, opp_bar, game=0):
    """The 128-bit key (lo, hi) of a position, mover's frame (layout in the module docstring).
    ``game`` (0 long, 1 short; or "long"/"short") selects the mirror of the opponent's points."""
    cdef int8_t cme[24]
    cdef int8_t copp[24]
    cdef nb_board b
    cdef int g = _game_of(game), err
    _parse_side(me, "me", cme)
    _parse_side(opp, "opp", copp)
    mb = _as_int(me_bar, "me_bar", InvalidPositionError)
    ob = _as_int(opp_bar, "opp_bar", InvalidPositionError)
    err = nb_build(cme, mb, copp, ob, g, &b)
    if err:
        _build_error(err, cme, mb, copp, ob, -1)
    return (b.lo, b.hi)


cdef int _key_of(object lo, object hi, int game, uint64_t* clo, uint64_t* chi) except -1:
    cdef int err
    try:
        clo[0] = _op_index(lo)
        chi[0] = _op_index(hi)
    except (TypeError, OverflowError):
        raise InvalidPositionError(f"a key is two ints from 0 to 2**64-1, not {lo!r}, {hi!r}") from None
    err = nb_check_key(clo[0], chi[0], game)
    if err:
        _build_error(err, NULL, 0, NULL, 0, -1)
    return 0


def unpack(lo, hi, game=0):
    """Inverse of pack: (me, me_bar, opp, opp_bar) with 24-tuples in each side's own numbering."""
    cdef nb_board b
    cdef int g = _game_of(game), p
    cdef uint64_t clo, chi
    _key_of(lo, hi, g, &clo, &chi)
    nb_board_from_key(clo, chi, g, &b)
    return (tuple([b.m[p] for p in range(1, 25)]), b.m[25],
            tuple([b.o[mir(p, g)] for p in range(1, 25)]), b.o[25])


def swap_key(lo, hi, game=0):
    """The key of the same position with the other side to move (its own frame)."""
    cdef int g = _game_of(game)
    cdef uint64_t clo, chi, olo, ohi
    _key_of(lo, hi, g, &clo, &chi)
    nb_swap_key(clo, chi, g, &olo, &ohi)
    return (olo, ohi)


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


# --------------------------------------------------------------------------- values
#
# The compiled cores of the public values. fastnardy.position subclasses PackedPosition
# (Position) and PackedTurn (Turn) to add constructors, text and the referee, and hands the
# kernel its classes through bind(): the kernel imports no other module of the package.

cdef type _turn_type = None      # fastnardy.position.Turn
cdef tuple _STEP_VALUES = ()     # fastnardy.position.Step values, indexed as _STEPS
cdef object _backends = None     # fastnardy.backend: names the default backend


def bind(turn_type, step_type, backends):
    """Called once by fastnardy.position: the Turn class (a PackedTurn subclass) and the
    Step class the kernel builds values of, and the module whose ``DEFAULT_BACKEND`` names
    the backend of ``legal_turns`` without a ``backend`` argument."""
    global _turn_type, _STEP_VALUES, _backends
    if not (isinstance(turn_type, type) and issubclass(turn_type, PackedTurn)):
        raise FastNardyError(f"turn_type must be a PackedTurn subclass, not {turn_type!r}")
    _turn_type = turn_type
    _STEP_VALUES = tuple([step_type(*s) for s in _STEPS])
    _backends = backends


cdef class PackedPosition:
    """The compiled core of :class:`fastnardy.Position`: the packed key in the mover's frame
    (see the module docstring), the rules and the side to move. Immutable; ``==`` and
    ``hash`` use the key; the board properties decode it on demand."""

    cdef uint64_t lo
    cdef uint64_t hi
    cdef nb_rules r
    cdef object _rules
    cdef Py_hash_t rules_hash
    cdef int black          # 1 when black is to move
    cdef int ready          # set once: a position never changes

    def _assign(self, rules, turn, me, me_bar, opp, opp_bar):
        """Set the position, once (Position's constructor, after its T7 checks): ``me`` is
        the side ``turn`` ("white" or "black") to move, each side in its own numbering."""
        cdef nb_board b
        if self.ready:
            raise AttributeError("Position is immutable")
        _parse_position(rules.code, me, me_bar, opp, opp_bar, &self.r, &b)
        self.lo = b.lo
        self.hi = b.hi
        self._rules = rules
        self.rules_hash = hash(rules)
        self.black = 1 if turn == "black" else 0
        self.ready = 1

    cdef PackedPosition _after(self, uint64_t lo, uint64_t hi):
        """The position after a turn of this one that ends in key (lo, hi) (this mover's
        frame): the other side to move. Trusted input (the kernel's own result)."""
        cdef PackedPosition p = PackedPosition.__new__(type(self))
        nb_swap_key(lo, hi, self.r.game, &p.lo, &p.hi)
        p.r = self.r
        p._rules = self._rules
        p.rules_hash = self.rules_hash
        p.black = 1 - self.black
        p.ready = 1
        return p

    def _from_mover_frame(self, me, me_bar, opp, opp_bar):
        """The position after this mover's turn, given as counts in the mover's frame."""
        cdef nb_rules r
        cdef nb_board b
        _parse_position(self._rules.code, me, me_bar, opp, opp_bar, &r, &b)
        return self._after(b.lo, b.hi)

    cdef tuple _side(self, int black):
        """(24 counts in own numbering, bar, off) of one side."""
        cdef nb_board b
        cdef int8_t v[24]
        cdef int p
        nb_board_from_key(self.lo, self.hi, self.r.game, &b)
        if black == self.black:
            for p in range(1, 25):
                v[p - 1] = b.m[p]
            return (_tup24(v), _INTS[b.m[25]], _INTS[b.m[0]])
        for p in range(1, 25):
            v[p - 1] = b.o[mir(p, self.r.game)]
        return (_tup24(v), _INTS[b.o[25]], _INTS[b.o[0]])

    @property
    def rules(self):
        """The game and its rule variants (a :class:`fastnardy.Rules`)."""
        return self._rules

    @property
    def turn(self):
        """The side to move: ``"white"`` or ``"black"``."""
        return "black" if self.black else "white"

    @property
    def white_points(self):
        """White's 24 point counts in white's own numbering (index 0 = its point 1)."""
        return self._side(0)[0]

    @property
    def black_points(self):
        """Black's 24 point counts in black's own numbering (index 0 = its point 1)."""
        return self._side(1)[0]

    @property
    def white_bar(self):
        """White's checkers on the bar (S5; always 0 in long nardy)."""
        return self._side(0)[1]

    @property
    def black_bar(self):
        """Black's checkers on the bar (S5; always 0 in long nardy)."""
        return self._side(1)[1]

    @property
    def white_off(self):
        """White's borne-off checkers (L8/S7)."""
        return self._side(0)[2]

    @property
    def black_off(self):
        """Black's borne-off checkers (L8/S7)."""
        return self._side(1)[2]

    @property
    def key(self):
        """The packed 128-bit key ``(lo, hi)`` in the mover's frame (layout in
        :mod:`fastnardy._kernel`); with the rules and the side to move it is the position."""
        return (self.lo, self.hi)

    def mover_frame(self):
        """(me, me_bar, opp, opp_bar): the side to move first, each in its own numbering."""
        me = self._side(self.black)
        opp = self._side(1 - self.black)
        return (me[0], me[1], opp[0], opp[1])

    def legal_turns(self, dice, backend=None):
        """The legal turns for ``dice`` (T1), in T2 order, as a :class:`LegalTurns`
        sequence; a pass (T3) is one empty turn and a finished game (T4) has none.
        ``backend`` is ``"kernel"`` or ``"reference"`` (default: ``FASTNARDY_BACKEND``)."""
        cdef int d1, d2
        cdef nb_board b
        cdef LegalTurns turns
        _parse_dice(dice, &d1, &d2)
        name = _backends.DEFAULT_BACKEND if backend is None else backend
        if type(name) is str and name == "kernel":
            turns = LegalTurns.__new__(LegalTurns)
            nb_board_from_key(self.lo, self.hi, self.r.game, &b)
            turns.n = _generate(&self.r, &b, d1, d2, 1, &turns.entries)
            turns.origin = self
            turns.d1 = d1
            turns.d2 = d2
            return turns
        return self._backend_turns(name, d1, d2)

    def _backend_turns(self, name, d1, d2):
        """legal_turns on another backend (see fastnardy.position)."""
        raise NotImplementedError

    def __eq__(self, other):
        cdef PackedPosition o
        if not isinstance(other, PackedPosition):
            return NotImplemented
        o = <PackedPosition>other
        return (self.lo == o.lo and self.hi == o.hi and self.black == o.black
                and (self._rules is o._rules or self._rules == o._rules))

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __hash__(self):
        cdef Py_hash_t h = <Py_hash_t>(hkey(self.lo, self.hi) ^ <uint64_t>self.black
                                       ^ <uint64_t>self.rules_hash)
        return -2 if h == -1 else h

    def __reduce__(self):
        return (_restore_position, (type(self), self._rules, self.lo, self.hi,
                                    "black" if self.black else "white"))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def _restore_position(cls, rules, lo, hi, turn):
    """Unpickle a position (of class ``cls``) from its rules, key and side to move."""
    cdef PackedPosition p
    if not (isinstance(cls, type) and issubclass(cls, PackedPosition)):
        raise InvalidPositionError(f"not a position class: {cls!r}")
    p = PackedPosition.__new__(cls)
    _parse_code(rules.code, &p.r)
    _key_of(lo, hi, p.r.game, &p.lo, &p.hi)
    p._rules = rules
    p.rules_hash = hash(rules)
    p.black = 1 if turn == "black" else 0
    p.ready = 1
    return p


cdef class PackedTurn:
    """The compiled core of :class:`fastnardy.Turn`: the resulting position and the T2
    representative steps, encoded in 64 bits. Two turns are equal when their positions are."""

    cdef uint64_t seq
    cdef PackedPosition _position
    cdef PackedPosition origin   # the position it was generated from (None: built by hand)
    cdef int d1, d2              # and its roll

    def __init__(self, steps, position):
        if not isinstance(position, PackedPosition):
            raise InvalidPositionError(f"a Turn's position must be a Position, not {position!r}")
        self.seq = _seq_of(steps)
        self._position = position

    @property
    def steps(self):
        """The T2 representative steps: a tuple of Step(src, dst, hit) in the mover's
        numbering (25 = bar, 0 = off); empty for a pass (T3)."""
        return _steps_of(self.seq, _STEP_VALUES)

    @property
    def position(self):
        """The position the turn produces, the other side to move."""
        return self._position

    def is_pass(self):
        """T3: the empty turn."""
        return self.seq == 0

    def _is_turn_of(self, position, dice):
        """True when this turn was generated from ``position`` (for ``dice``, unless None):
        then it is legal there without a check."""
        cdef int d1, d2
        if self.origin is None or not (self.origin is position or self.origin == position):
            return False
        if dice is None:
            return True
        _parse_dice(dice, &d1, &d2)
        return (d1 == self.d1 and d2 == self.d2) or (d1 == self.d2 and d2 == self.d1)

    def __eq__(self, other):
        if not isinstance(other, PackedTurn):
            return NotImplemented
        return self._position == (<PackedTurn>other)._position

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __hash__(self):
        return hash(self._position)

    def __reduce__(self):
        return (type(self), (self.steps, self._position))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


cdef class LegalTurns:
    """The legal turns of a position for one roll (T1), in T2 order: an immutable sequence
    (a view, like python-chess's ``legal_moves``) over the kernel's packed result, 32 bytes a
    turn. ``len()`` costs nothing; each Turn is built when first read, and kept. It
    compares equal to any sequence of the same turns, a list included."""

    cdef PackedPosition origin
    cdef nb_entry* entries
    cdef Py_ssize_t n
    cdef int d1, d2
    cdef PyObject** built        # the Turns read so far (NULL until the first)

    def __dealloc__(self):
        cdef Py_ssize_t i
        if self.built != NULL:
            for i in range(self.n):
                Py_XDECREF(self.built[i])
            free(self.built)
        free(self.entries)

    @staticmethod
    def from_turns(PackedPosition origin, turns, d1, d2):
        """The view over another backend's result: the contract's tuples (steps, me, me_bar,
        opp, opp_bar) of ``origin`` for the roll (d1, d2)."""
        cdef LegalTurns view = LegalTurns.__new__(LegalTurns)
        cdef nb_rules r
        cdef nb_board b
        cdef Py_ssize_t i, n = len(turns)
        view.origin = origin
        _parse_dice((d1, d2), &view.d1, &view.d2)
        if n:
            view.entries = <nb_entry*>malloc(n * sizeof(nb_entry))
            if view.entries == NULL:
                raise ResourceLimitError("cannot allocate a LegalTurns")
        for i in range(n):
            steps, me, me_bar, opp, opp_bar = turns[i]
            _parse_position(origin._rules.code, me, me_bar, opp, opp_bar, &r, &b)
            view.entries[i].lo = b.lo
            view.entries[i].hi = b.hi
            view.entries[i].seq = _seq_of(steps)
            view.entries[i].flags = 0
            view.n = i + 1
        return view

    cdef object _turn(self, Py_ssize_t i):
        cdef PackedTurn t
        if self.built == NULL:
            self.built = <PyObject**>calloc(self.n, sizeof(PyObject*))
            if self.built == NULL:
                raise ResourceLimitError("cannot allocate a LegalTurns")
        elif self.built[i] != NULL:
            return <object>self.built[i]
        t = PackedTurn.__new__(_turn_type)
        t.seq = self.entries[i].seq
        t._position = self.origin._after(self.entries[i].lo, self.entries[i].hi)
        t.origin = self.origin
        t.d1 = self.d1
        t.d2 = self.d2
        Py_INCREF(t)
        self.built[i] = <PyObject*>t
        return t

    @property
    def roll(self):
        """The roll these are the turns of, as given."""
        return (_INTS[self.d1], _INTS[self.d2])

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self._turn(i) for i in range(*index.indices(self.n))]
        return self._turn(_index(index, self.n, "LegalTurns"))

    def __iter__(self):
        cdef _TurnIterator it = _TurnIterator.__new__(_TurnIterator)
        it.view = self
        return it

    def __reversed__(self):
        return iter([self._turn(i) for i in range(self.n - 1, -1, -1)])

    def __contains__(self, item):
        return any(item == turn for turn in self)

    def index(self, value, start=0, stop=None):
        """The first index of ``value`` (ValueError when it is not there), as list.index."""
        cdef Py_ssize_t i
        for i in range(*slice(start, stop).indices(self.n)):
            if self._turn(i) == value:
                return i
        raise ValueError(f"{value!r} is not in LegalTurns")

    def count(self, value):
        """How often ``value`` occurs (0 or 1: the turns are distinct, T1)."""
        return sum(1 for turn in self if turn == value)

    def __eq__(self, other):
        if isinstance(other, (str, bytes)) or not isinstance(other, _Sequence):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    __hash__ = None

    def __repr__(self):
        return f"<LegalTurns ({', '.join(map(str, self))})>"

    def __reduce__(self):
        cdef bytes data = (<char*>self.entries)[:self.n * sizeof(nb_entry)] if self.n else b""
        return (_restore_legal_turns, (self.origin, data, self.d1, self.d2))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def _restore_legal_turns(PackedPosition origin, bytes data, d1, d2):
    """Unpickle a LegalTurns: its position, its packed entries and its roll."""
    cdef LegalTurns view = LegalTurns.__new__(LegalTurns)
    cdef Py_ssize_t i
    if len(data) % sizeof(nb_entry):
        raise InvalidPositionError("LegalTurns data of a wrong size")
    view.origin = origin
    _parse_dice((d1, d2), &view.d1, &view.d2)
    view.n = len(data) // sizeof(nb_entry)
    if view.n:
        view.entries = <nb_entry*>malloc(len(data))
        if view.entries == NULL:
            raise ResourceLimitError("cannot allocate a LegalTurns")
        memcpy(view.entries, <char*>data, len(data))
        for i in range(view.n):
            if nb_check_key(view.entries[i].lo, view.entries[i].hi, origin.r.game):
                view.n = 0
                raise InvalidPositionError("LegalTurns data holds an invalid key")
    return view


cdef class _TurnIterator:
    cdef LegalTurns view
    cdef Py_ssize_t i

    def __iter__(self):
        return self

    def __next__(self):
        if self.i >= self.view.n:
            raise StopIteration
        self.i += 1
        return self.view._turn(self.i - 1)

    def __length_hint__(self):
        return self.view.n - self.i


_Sequence.register(LegalTurns)
