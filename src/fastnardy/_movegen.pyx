"""fastnardy._movegen -- the legal turns of one position and roll (T1, T2), without the
GIL, and the contexts they are generated in. Rule ids (L3, S8, T2, ...) refer to RULES.md;
the board, the key and the occupancy masks are described in :mod:`fastnardy._packed`.

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
of a turn never builds a board: its key is updated arithmetically. Nor does the step before
it, once a full turn is known (or when only counting), where no checker is on the bar, none
can bear off and no L6 check is in force (a double's third step, a non-double's first on
its distinct path): the last step's sources then come from the occupancy masks, every one
of them a legal step.

Bound on the number of distinct turns (sizes NB_TURN_SLOTS = 23751)
------------------------------------------------------------------
A step with die d from source s (bar = 25, or a point) always produces the same change of
the counts (s -> s-d, or s -> off, and a hit of the blot on s-d if one is there, which is
independent of order), so a turn's position depends only on the multiset of its step
sources. All legal turns of one roll use the same number of dice m (or end the game), so
they are distinct multisets of size <= 4 (non-double: one source per die, <= 26 * 26 = 676)
over 25 sources: at most C(25 + 4, 4) = 23751. The result buffer has NB_TURN_SLOTS + 1 entries,
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
generations, so Ctrl-C stops them within milliseconds (KeyboardInterrupt). Only the main
thread sees a signal: a call on a worker thread is given a :class:`Stop`, a flag that any
thread (or, through fastnardy._utils.executors, a Dask cluster) sets, looked at as often.
"""

from libc.stdint cimport uint64_t, uint32_t
from libc.string cimport memset, memcpy
from libc.stdlib cimport calloc, malloc, free
from cpython.exc cimport PyErr_Occurred
from cpython.pythread cimport PyThread_get_thread_ident

from fastnardy._packed cimport (BAR, HOME, NB_TURN_SLOTS, PTS, hkey, key_add, mir, nb_board,
                                nb_entry, nb_rules, nb_unit_hi, nb_unit_lo, seq_add)

import threading

from .errors import FastNardyError, ResourceLimitError

cdef extern from *:
    """
    static inline int nb_hibit(unsigned int x) { return 31 - __builtin_clz(x); }
    /* Without -mpopcnt (the baseline x86-64) __builtin_popcount is a libgcc call: the
       POPCNT instruction where the CPU has it (a flag set once, so a branch that is always
       predicted), else the bit trick, which the debug build (-O0, no __OPTIMIZE__) always
       takes, so that its test run covers it. */
    #if defined(NB_X86) && defined(__OPTIMIZE__)
    #define NB_POPCNT 1
    #endif
    static int nb_has_popcnt = 0;
    static void nb_detect_popcnt(void) {
    #ifdef NB_POPCNT
        __builtin_cpu_init();
        nb_has_popcnt = __builtin_cpu_supports("popcnt");
    #endif
    }
    static inline int nb_popcount(uint32_t x) {
    #ifdef NB_POPCNT
        if (nb_has_popcnt) {
            uint32_t n;
            __asm__("popcntl %1, %0" : "=r"(n) : "rm"(x) : "cc");
            return (int)n;
        }
    #endif
        x = x - ((x >> 1) & 0x55555555u);
        x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
        x = (x + (x >> 4)) & 0x0F0F0F0Fu;
        return (int)((x * 0x01010101u) >> 24);
    }
    """
    int nb_hibit(unsigned int x) noexcept nogil
    int nb_popcount(uint32_t x) noexcept nogil
    void nb_detect_popcnt() noexcept nogil
    int nb_check_signals "PyErr_CheckSignals"()   # -1 with the exception set: no except clause,
                                                  # the caller records it in ctx.stop

nb_detect_popcnt()

cdef enum:
    # Open-addressing table of result positions: power of two > NB_TURN_SLOTS.
    NB_HT_BITS = 16
    NB_HT_SLOTS = 65536
    # Non-doubles give at most 26 * 26 = 676 turns: they use only the first 1024 slots.
    NB_HT_SMALL_BITS = 10
    # Lossy transposition table of inner nodes (general path for doubles only).
    NB_TT_SLOTS = 16384
    NB_TT_PROBES = 8

# The two pieces of module state besides the pool below: whether the shortcuts are on (see
# _set_fast_paths), and the thread that runs Python's signal handlers.
cdef int _fast_paths = 1
cdef unsigned long _main_thread = threading.main_thread().ident


def _set_fast_paths(flag):
    """Testing hook: False turns the shortcuts off (the non-increasing search of doubles and
    the canonical pruning of non-doubles), so that the differential harness can check them
    against the general, order-aware search."""
    global _fast_paths
    _fast_paths = 1 if flag else 0


# --------------------------------------------------------------------------- board helpers

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


# --------------------------------------------------------------------------- candidates

cdef inline void put_entry(nb_ctx* c, uint64_t lo, uint64_t hi, uint32_t used_big,
                           uint64_t seq) noexcept nogil:
    """Append an entry to the result buffer."""
    cdef nb_entry* e = &c.out[c.n]
    e.lo = lo
    e.hi = hi
    e.seq = seq
    e.flags = used_big
    c.n += 1


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
            put_entry(c, lo, hi, used_big, seq)
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


cdef inline void s_append(nb_ctx* c, uint64_t lo, uint64_t hi, int dice, uint32_t used_big,
                          uint64_t seq) noexcept nogil:
    """Record a candidate of a search whose positions are distinct (no table)."""
    if dice >= c.best:
        if dice > c.best:
            c.best = dice
            c.n = 0
        put_entry(c, lo, hi, used_big, seq)


cdef inline void s_count(nb_ctx* c, int dice, int k) noexcept nogil:
    """Count k candidates with all the dice (dice = c.full) whose entries are not wanted
    (NB_COUNT)."""
    if dice > c.best:
        c.best = dice
        c.n = 0
    c.n += k


cdef inline void d_record(nb_ctx* c, const nb_board* b, int depth, uint32_t used_big,
                          uint64_t seq) noexcept nogil:
    """g_record for a search whose positions are distinct: appended, no table."""
    if c.turn_end and run6_forbidden(b.mine, c.F):
        return
    s_append(c, b.lo, b.hi, dice_of(c, b, depth), used_big, seq)


cdef inline void step_key(uint64_t lo, uint64_t hi, int p, int dst, int hit, uint64_t* plo,
                          uint64_t* phi) noexcept nogil:
    """The key after a step from p to dst (0: borne off) of the key's mover, without a
    branch: the source's field (or the bar) loses one, the destination's gains one, or, for
    an S3 hit, goes from 16 (one opponent) to 1 with the opponent's bar count up one."""
    cdef uint64_t grow = <uint64_t>1 - (<uint64_t>hit << 4)
    plo[0] = lo - nb_unit_lo[p] + nb_unit_lo[dst] * grow
    phi[0] = hi - nb_unit_hi[p] + nb_unit_hi[dst] * grow + (<uint64_t>hit << 60)


cdef inline int leaf(nb_ctx* c, const nb_board* b, int p, int d, uint64_t* plo, uint64_t* phi,
                     int* pdst, int* phit) noexcept nogil:
    """The last step of a turn (die d from source p) without building the board: the key of
    the resulting position, or 0 when no checker on p may make the step. Same rules as
    child(): when both a hitter and another checker could step, the result is the same."""
    cdef int dst = p - d if p > d else 0, hit, hb = (b.hitters >> p) & 1
    cdef uint64_t lo, hi
    if b.m[p] - hb <= 0:  # only the hitter is there (S8)
        if dst != 0 and b.m[dst] != 0:
            return 0
    hit = c.is_short & (dst != 0) & (b.o[dst] == 1)
    step_key(b.lo, b.hi, p, dst, hit, &lo, &hi)
    if c.step_block or c.turn_end:
        # L6 (every_step: illegal step; turn_end: no candidate)
        if run6_forbidden(mine_after(b, p, dst), c.F):
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
    first (on a tie, the larger die first) is the T2-smaller; so the other is not searched.

    Distinct positions, no table: when the pruning holds and no step can bear off (two or
    more of the mover's checkers outside its home, so that one step cannot bring them all
    home), the only other way two searched sequences reach one position is one checker
    moving both dice in the two orders, p/p-d1/p-d1-d0 and p/p-d0/p-d0-d1. When the larger
    die first is legal too (p a source of d0) and neither order hits on the way (no blot on
    p-d1 or p-d0), both give the same position and the larger die first is T2-smaller (its
    first landing is lower); so the smaller die's continuation from p-d1 is not searched,
    every position is reached once, and the candidates are appended without the table (as
    wildbg avoids duplicates by the order of its loops)."""
    cdef nb_board* b = &c.st[0]
    cdef nb_board* nb = &c.st[1]
    cdef uint32_t S, S0, S1, T, bit, keep, U, outside
    cdef int p, t, hv, nhv, k, x, y, dst = 0, hit = 0, dst2 = 0, hit2 = 0, canon, distinct
    cdef int shortcut
    cdef uint32_t used_big
    cdef uint64_t seq1, lo, hi
    canon = _fast_paths and (not c.hh_forbid) and b.m[25] == 0
    if canon and c.step_block:
        U = (b.mine | (b.mine >> c.d0) | (b.mine >> c.d1) | (b.mine >> (c.d0 + c.d1))) & PTS
        canon = run6_forbidden(U, c.F) == 0
    outside = b.mine & PTS & ~HOME
    distinct = canon and outside != 0 and (
        (outside & (outside - 1)) != 0 or b.m[nb_hibit(outside)] >= 2)
    if distinct:
        d_record(c, b, 0, 0, 0)
    else:
        g_record(c, b, 0, 0, 0)
    nhv = 2 if c.hh_forbid else 1
    shortcut = distinct and not (c.step_block or c.turn_end)
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
            if shortcut:  # the full turns through the first step p, without its board
                T = second_sources(c, b, p, x, y, k == 1 and (S0 & bit) != 0, &dst, &hit)
                if c.count_only and T:
                    s_count(c, 2, nb_popcount(T))
                    continue
                if not c.count_only and c.best == 2:  # a one-die candidate cannot count
                    last_leaves(c, b, p, dst, hit, y, T, 0, 0)
                    continue
            for hv in range(nhv):
                if not child(c, b, nb, p, x, hv, &dst, &hit):
                    continue
                seq1 = seq_add(0, 0, p, dst, hit)
                if nb.m[0] == 15:
                    g_record(c, nb, 1, used_big, seq1)
                    continue
                T = sources(c, nb, y)
                if canon and dst != 0:
                    keep = ((1u << p) - 1) | ((2u << y) - 1)
                    if y < x:
                        keep |= bit
                    T &= keep
                if distinct:
                    d_record(c, nb, 1, used_big, seq1)
                    if k == 1 and not hit and (S0 & bit) and not ((b.blots >> (p - c.d0)) & 1):
                        T &= ~(1u << dst)  # this checker on with d0: reached d0 first
                    if c.count_only and not (c.step_block or c.turn_end):
                        # with no L6 check in force every source of T gives a legal last
                        # step (no S8 hitters here: canon): count them without the leaves
                        if T:
                            s_count(c, 2, nb_popcount(T))
                        continue
                    while T:
                        t = nb_hibit(T)
                        T ^= 1u << t
                        if leaf(c, nb, t, y, &lo, &hi, &dst2, &hit2):
                            if c.count_only:  # a full turn: only the number is wanted
                                s_count(c, 2, 1)
                            else:
                                s_append(c, lo, hi, 2, 0, seq_add(seq1, 1, t, dst2, hit2))
                    continue
                g_record(c, nb, 1, used_big, seq1)
                while T:
                    t = nb_hibit(T)
                    T ^= 1u << t
                    if leaf(c, nb, t, y, &lo, &hi, &dst2, &hit2):
                        g_insert(c, lo, hi, 2, 0, seq_add(seq1, 1, t, dst2, hit2))


cdef enum:
    NEEDS_BOARD = 1   # from the shortcuts below: bit 0, never a source


cdef inline uint32_t second_sources(nb_ctx* c, const nb_board* b, int p, int x, int y,
                                   int reached_first, int* pdst, int* phit) noexcept nogil:
    """The sources of the second step (die y) that nd_search's distinct path takes after
    the first step from p (die x), with its pruning (``keep``, and with ``reached_first``
    the checker not moved on when the larger die first reaches the same position), from
    b's masks alone, and the first step's destination and hit. Only where no L6 check is
    in force; that path has no bar, no S8 hitter and a checker outside home after any one
    step (so no bearing off, L8/S7): every source is then a legal step."""
    cdef int dst = p - x, hit
    cdef uint32_t bit = 1u << p, T, keep
    T = point_sources(c, mine_after(b, p, dst), b.closed, b.m[24] - (p == 24), y)
    keep = (bit - 1) | ((2u << y) - 1)
    if y < x:
        keep |= bit
    T &= keep
    hit = c.is_short & ((b.blots >> dst) & 1)
    if reached_first and not hit and not ((b.blots >> (p - c.d0)) & 1):
        T &= ~(1u << dst)
    pdst[0] = dst
    phit[0] = hit
    return T


cdef inline void last_leaves(nb_ctx* c, const nb_board* b, int p, int dst, int hit, int d,
                             uint32_t T, int depth, uint64_t seq) noexcept nogil:
    """Append the full turns (dice = depth + 2) that end with a step of die d from each
    source of T after the step p -> dst (``hit``: an S3 hit) at depth ``depth`` from board
    b, keys by arithmetic, no board built (T from second_sources or fourth_sources: every
    source a legal step, none bearing off). The callers have found a full turn already
    (c.best == depth + 2), so every one is kept: written through a local pointer, which
    the compiler need not reload after each entry's stores as it would c.n and c.best."""
    cdef uint64_t lo, hi
    cdef uint32_t blots = b.blots & ~((<uint32_t>hit) << dst)  # the blot hit is gone
    cdef int t, dst2, hit2
    cdef nb_entry* e = c.out + c.n
    step_key(b.lo, b.hi, p, dst, hit, &lo, &hi)
    seq = seq_add(seq, depth, p, dst, hit)
    while T:
        t = nb_hibit(T)
        T ^= 1u << t
        dst2 = t - d
        hit2 = c.is_short & ((blots >> dst2) & 1)
        step_key(lo, hi, t, dst2, hit2, &e.lo, &e.hi)
        e.seq = seq_add(seq, depth + 1, t, dst2, hit2)
        e.flags = 0
        e += 1
    c.n = <int>(e - c.out)


cdef void s_dfs(nb_ctx* c, int depth, int last, uint64_t seq) noexcept nogil:
    """Search of a double over non-increasing sources (each multiset once, in T2 order)."""
    cdef nb_board* b = &c.st[depth]
    cdef nb_board* nb = &c.st[depth + 1]
    cdef uint32_t S, T
    cdef int p, shortcut, dst = 0, hit = 0
    cdef uint64_t lo, hi
    cdef nb_entry* e
    if not (c.turn_end and run6_forbidden(b.mine, c.F)):
        s_append(c, b.lo, b.hi, dice_of(c, b, depth), 0, seq)
    if b.m[0] == 15:
        return
    S = sources(c, b, c.d0) & ((2u << last) - 1)
    if depth == 3:  # the fourth step: leaves, no boards
        if c.count_only:  # the number of full turns, no entries (all use the four dice)
            if not (c.step_block or c.turn_end):
                # no L6 check in force, and no S8 hitters on this path (nothing has hit, or
                # hit-and-hide is allowed): every source of S gives a legal fourth step
                if S:
                    s_count(c, 4, nb_popcount(S))
                return
            while S:
                p = nb_hibit(S)
                S ^= 1u << p
                if leaf(c, b, p, c.d0, &lo, &hi, &dst, &hit):
                    s_count(c, 4, 1)
            return
        e = NULL
        while S:
            p = nb_hibit(S)
            S ^= 1u << p
            if leaf(c, b, p, c.d0, &lo, &hi, &dst, &hit):
                if e == NULL:  # the first full turn here; the others follow it (as last_leaves)
                    s_append(c, lo, hi, 4, 0, seq_add(seq, 3, p, dst, hit))
                    e = c.out + c.n
                else:
                    e.lo, e.hi, e.seq, e.flags = lo, hi, seq_add(seq, 3, p, dst, hit), 0
                    e += 1
        if e != NULL:
            c.n = <int>(e - c.out)
        return
    shortcut = depth == 2 and not (c.step_block or c.turn_end)
    while S:
        p = nb_hibit(S)
        S ^= 1u << p
        if shortcut:  # the full turns through the third step p, without its board
            T = fourth_sources(c, b, p, &dst, &hit)
            if T != NEEDS_BOARD:
                if c.count_only and T:
                    s_count(c, 4, nb_popcount(T))
                    continue
                if not c.count_only and c.best == 4:  # a three-dice one cannot count
                    last_leaves(c, b, p, dst, hit, c.d0, T, 2, seq)
                    continue
        if child(c, b, nb, p, c.d0, 0, &dst, &hit):
            s_dfs(c, depth + 1, p, seq_add(seq, depth, p, dst, hit))


cdef inline uint32_t fourth_sources(nb_ctx* c, const nb_board* b, int p, int* pdst,
                                   int* phit) noexcept nogil:
    """The sources of a double's fourth step (p or lower, as s_dfs takes them) after the
    third step from p, from b's masks alone, and the third step's destination and hit; or
    NEEDS_BOARD: a checker on the bar, the third step bearing off, or every checker home
    after it (L8/S7 open the bearing off). Only where no L6 check is in force and no S8
    hitter stands (s_dfs's own conditions): every source is then a legal step, none bearing
    off."""
    cdef int d = c.d0, dst = p - d
    cdef uint32_t mine
    if b.m[25] or dst <= 0:
        return NEEDS_BOARD
    mine = mine_after(b, p, dst)
    if (mine & PTS & ~HOME) == 0:
        return NEEDS_BOARD
    pdst[0] = dst
    phit[0] = c.is_short & ((b.blots >> dst) & 1)
    return point_sources(c, mine, b.closed, b.m[24] - (p == 24), d) & ((2u << p) - 1)


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
    want_order NB_ORDER the entries sorted by their T2 representative); with NB_COUNT only
    their number is wanted, and the entries of the full turns of a double may be left
    unwritten. 0 means game over (T4), or no candidate at all (turn_end with an L6-invalid
    root)."""
    cdef int i, k, p, first, limit, d, ok
    if root.m[0] >= 15 or root.o[0] >= 15:  # T4
        c.n = 0
        return 0
    c.d0 = die1 if die1 >= die2 else die2
    c.d1 = die2 if die1 >= die2 else die1
    c.dbl = die1 == die2
    c.full = 4 if c.dbl else 2
    c.count_only = want_order == NB_COUNT
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
    if want_order == NB_ORDER and c.n > 1:
        sort_entries(c.out, c.n)
    return c.n


cdef void nb_poll_signals(nb_ctx* c) noexcept nogil:
    with gil:
        if nb_check_signals() != 0:
            c.stop = 1


# --------------------------------------------------------------------------- contexts

# A stack of free contexts, touched only with the GIL held (no Python call between the test
# and the update), so that threads and re-entrant calls each get their own.
cdef enum:
    NB_POOL = 16
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
        c.out = <nb_entry*>malloc((NB_TURN_SLOTS + 1) * sizeof(nb_entry))
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
    c.halt = NULL
    c.stop = 0
    c.ticks = 0
    c.tt_probes = c.tt_hits = c.tt_stores = 0
    if _pool_n < NB_POOL:
        _pool[_pool_n] = c
        _pool_n += 1
    else:
        ctx_free(c)


cdef int ctx_watch(nb_ctx* c, object stop=None) except -1:
    """Before a long call without the GIL: poll for signals if this is the main thread
    (only the main thread runs Python's signal handlers) and watch ``stop`` (a Stop or
    None); a Stop already set stops the call before its first generation."""
    if stop is not None and not isinstance(stop, Stop):
        raise FastNardyError(f"stop must be a Stop or None, not {type(stop).__name__}")
    c.poll = PyThread_get_thread_ident() == _main_thread
    if stop is not None:
        c.halt = &(<Stop>stop).flag
        c.stop = nb_halted(c.halt)
    return 0


cdef class Stop:
    """A flag that stops the kernel calls watching it (perft, self-play), in any thread,
    within milliseconds: they raise KeyboardInterrupt. Only the main thread sees Ctrl-C, so
    it sets the flag of the calls running on worker threads."""

    def set(self):
        """Stop the calls (those running, and those that start later)."""
        nb_halt(&self.flag)

    def is_set(self):
        """True once set."""
        return self.flag != 0

    def __reduce__(self):
        raise TypeError("a Stop belongs to its process: it does not pickle")


cdef int ctx_raise_if_stopped(nb_ctx* c) except -1:
    """After a long call: re-raise what a signal handler raised while it ran (GIL held)."""
    if c.stop:
        if PyErr_Occurred() == NULL:
            raise KeyboardInterrupt()
        return -1
    return 0


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
