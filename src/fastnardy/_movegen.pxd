# fastnardy._movegen: the nogil generator of legal turns, its working memory (the context)
# and the pool of contexts. The algorithm, the bound NB_MAX_TURNS and the contexts are
# described in the docstring of _movegen.pyx.

from libc.stdint cimport uint64_t, uint32_t

from fastnardy._packed cimport nb_board, nb_entry, nb_rules


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
    nb_entry* out       # result buffer, NB_MAX_TURNS + 1 entries (owned)
    nb_slot* ht         # result table, NB_HT_SLOTS slots (owned)
    nb_tslot* tt        # transposition table, NB_TT_SLOTS slots (owned)
    int poll            # 1: look for signals (Ctrl-C) now and then (main thread, no GIL)
    int stop            # set when a signal handler raised: unwind and return
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
cdef void ctx_watch(nb_ctx* c) noexcept
cdef int ctx_raise_if_stopped(nb_ctx* c) except -1
cdef void nb_poll_signals(nb_ctx* c) noexcept nogil


cdef inline int nb_tick(nb_ctx* c) noexcept nogil:
    """Count a generation; in a polling context look for signals every 4096. Returns 1 once
    a signal handler has raised (the caller unwinds)."""
    c.ticks += 1
    if c.poll and (c.ticks & 4095) == 0:
        nb_poll_signals(c)
    return c.stop
