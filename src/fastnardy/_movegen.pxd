# fastnardy._movegen: the nogil generator of legal turns, its working memory (the context)
# and the pool of contexts. The algorithm, the bound NB_TURN_SLOTS and the contexts are
# described in the docstring of _movegen.pyx.

from libc.stdint cimport uint64_t, uint32_t

from fastnardy._packed cimport (BAR, HOME, PTS, key_add, nb_board, nb_entry, nb_rules,
                                nb_top)


ctypedef struct nb_slot:
    # a slot of the result table: key, generation, index into the result buffer
    uint64_t lo
    uint64_t hi
    uint32_t gen
    uint32_t idx


ctypedef struct nb_tslot:
    # a slot of the transposition table of inner nodes: key, hitters and depth, best prefix
    uint64_t lo
    uint64_t hi
    uint64_t seq
    uint32_t extra
    uint32_t gen


ctypedef struct nb_ctx:
    # Everything one generation needs. Each call (or thread) works in its own context, taken
    # from a small pool, so the kernels are re-entrant and run without the GIL.
    nb_board st[6]      # DFS stack: st[k] is the board after k steps
    int d0              # larger die (or the double's number)
    int d1              # smaller die
    int dbl             # 1 for a double
    int full            # 2, or 4 for a double (L7: bearing off the 15th counts as full)
    int count_only      # only the number of turns is wanted (nb_generate's NB_COUNT)
    int is_short
    int hh_forbid       # S8 forbidden in force
    int turn_end        # L6 checked on the end position only
    int step_block      # L6 checked after every step (long, every_step, F != 0)
    uint32_t F          # L6: forbidden lowest points of a six-run (opponent numbering bits)
    int head0           # mover's head count at the root (long)
    int head_limit      # L5: checkers that may leave point 24 this turn
    int best            # L7: max dice over the candidates so far (-1: none yet)
    int n               # number of entries in the result buffer
    uint64_t ht_mask    # slots of the result table in use - 1
    uint64_t tt_mask    # slots of the transposition table in use - 1
    uint32_t gen        # generation of the result table
    uint32_t tgen       # generation of the transposition table
    nb_entry* out       # result buffer, NB_TURN_SLOTS + 1 entries (owned)
    nb_slot* ht         # result table, NB_HT_SLOTS slots (owned)
    nb_tslot* tt        # transposition table, NB_TT_SLOTS slots (owned)
    int poll            # 1: look for signals (Ctrl-C) now and then (main thread, no GIL)
    const int* halt     # a Stop's flag, set by any thread (NULL: none), looked at as often
    int stop            # set when a signal handler raised or the Stop is set: unwind, return
    uint32_t ticks      # generations since the call began (paces the polling)
    uint64_t tt_probes  # perft table lookups, hits and stores of this call (added to the
    uint64_t tt_hits    # table's totals afterwards, with the GIL held)
    uint64_t tt_stores


# What nb_generate is asked for: the turns' entries (keys, representatives) as found, the
# entries in T2 order, or only their number.
cdef enum:
    NB_ENTRIES = 0
    NB_ORDER = 1
    NB_COUNT = 2

# One generation: c.out[0 .. return value) are the legal turns of root for the roll.
cdef int nb_generate(nb_ctx* c, const nb_rules* r, const nb_board* root,
                     int die1, int die2, int want_order) noexcept nogil
cdef int _generate(const nb_rules* r, const nb_board* b, int d1, int d2, int want_order,
                   nb_entry** out) except -1
cdef uint32_t forbidden_blocks(const nb_rules* r, const nb_board* b) noexcept nogil

# The pool (GIL held) and the signals.
cdef nb_ctx* ctx_acquire() except NULL
cdef void ctx_release(nb_ctx* c) noexcept
cdef int ctx_watch(nb_ctx* c, object stop=*) except -1
cdef int ctx_raise_if_stopped(nb_ctx* c) except -1
cdef void nb_poll_signals(nb_ctx* c) noexcept nogil


cdef extern from *:
    """
    static inline void nb_halt(int* flag) { __atomic_store_n(flag, 1, __ATOMIC_RELAXED); }
    static inline int nb_halted(const int* flag) {
        return flag != NULL && __atomic_load_n(flag, __ATOMIC_RELAXED);
    }
    """
    int nb_halted(const int* flag) noexcept nogil
    void nb_halt(int* flag) noexcept nogil


cdef class Stop:
    cdef int flag


cdef inline int nb_tick(nb_ctx* c) noexcept nogil:
    """Count a generation; every 4096 look for signals (in a polling context) and at the
    call's Stop. Returns 1 once a signal handler has raised or the Stop is set (the caller
    unwinds)."""
    c.ticks += 1
    if (c.ticks & 4095) == 0:
        if c.poll:
            nb_poll_signals(c)
        if nb_halted(c.halt):
            c.stop = 1
    return c.stop

# --------------------------------------------------------------------------- steps
# One step of the mover, as the generator and the partial turns of _steps play it: inline
# here so that each compiles it into its own loops.

cdef inline uint32_t run6_forbidden(uint32_t mine, uint32_t F) noexcept nogil:
    """L6: nonzero iff the mover holds a six-block whose lowest point (opponent numbering)
    is in F."""
    cdef uint32_t q = ((mine & 0x1FFE) << 12) | ((mine >> 12) & 0x1FFE)
    cdef uint32_t a = q & (q >> 1)
    cdef uint32_t b2 = a & (a >> 2)
    return b2 & (a >> 4) & F


cdef inline uint32_t point_sources(nb_ctx* c, uint32_t mine, uint32_t closed, int head,
                                   int d) noexcept nogil:
    """The points of ``mine`` from which die d lands on a point the mover may take
    (``closed`` not), ``head`` the mover's checkers on point 24 (L5): the sources of a board
    with no checker on the bar, before bearing off, L6 and the S8 hitter restriction."""
    cdef uint32_t S = mine & PTS & ~(closed << d) & ~((2u << d) - 1)
    if c.head0 - head >= c.head_limit:  # L5
        S &= ~(1u << 24)
    return S


cdef inline uint32_t mine_after(const nb_board* b, int p, int dst) noexcept nogil:
    """b's occupancy mask after one of its mover's checkers steps from p to dst (0: borne
    off)."""
    cdef uint32_t mine = b.mine
    if b.m[p] == 1:
        mine &= ~(1u << p)
    if dst:
        mine |= 1u << dst
    return mine


cdef inline uint32_t sources(nb_ctx* c, const nb_board* b, int d) noexcept nogil:
    """Bitmask of the source points from which a step with die d is legal (before L6 and the
    S8 hitter restriction)."""
    cdef uint32_t S
    cdef int h
    if b.m[25]:  # S5: enter first
        if (b.closed >> (25 - d)) & 1:
            return 0
        return BAR
    S = point_sources(c, b.mine, b.closed, b.m[24], d)
    if b.mine and (b.mine & ~HOME) == 0:  # L8/S7
        if b.m[d]:
            S |= 1u << d
        else:
            h = nb_top(b.mine)
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


cdef inline int dice_of(nb_ctx* c, const nb_board* b, int depth) noexcept nogil:
    if depth and b.m[0] == 15:  # L7: bearing off the 15th counts as full
        return c.full
    return depth
