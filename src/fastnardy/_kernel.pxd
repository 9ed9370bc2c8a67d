# C-level declarations of fastnardy._kernel: the packed board, the generation context and
# the nogil kernels. See the module docstring of _kernel.pyx for the bit layout and for the
# argument that bounds NB_MAX_TURNS.

from libc.stdint cimport uint64_t, uint32_t, int8_t

cdef enum:
    # Worst-case number of distinct legal turns (T1) of one position and roll:
    # C(29, 4) = 23751 multisets of at most 4 step sources out of 25 (see _kernel.pyx).
    NB_MAX_TURNS = 23751
    # Open-addressing table of result positions: power of two > NB_MAX_TURNS.
    NB_HT_BITS = 16
    NB_HT_SLOTS = 65536
    # Non-doubles give at most 26 * 26 = 676 turns: they use only the first 1024 slots.
    NB_HT_SMALL_BITS = 10
    # Lossy transposition table of inner nodes (general path for doubles only).
    NB_TT_SLOTS = 16384
    NB_TT_PROBES = 8
    # perft depth limit (the child buffers are allocated per ply).
    NB_MAX_DEPTH = 64


ctypedef struct nb_board:
    # the packed 128-bit key of the position, mover's frame (layout in _kernel.pyx)
    uint64_t lo
    uint64_t hi
    # occupancy bitmasks, bit p = mover's point p (1..24), bit 25 = mover's bar
    uint32_t mine       # mover has >= 1 checker there
    uint32_t closed     # mover may not land there (long: >= 1 opponent checker; short: >= 2)
    uint32_t blots      # short: exactly one opponent checker (landing hits it)
    uint32_t hitters    # S8 forbidden: a mover checker standing there has hit this turn
    # counts: m = mover, o = opponent on the MOVER's point numbers;
    # index 0 = borne off, 1..24 = points, 25 = bar
    int8_t m[26]
    int8_t o[26]


ctypedef struct nb_rules:
    int game            # 0 long, 1 short
    int head_rule       # 0 classic, 1 tournament, 2 blocked
    int block_rule      # 0 opponent_ahead, 1 opponent_home, 2 none
    int block_check     # 0 every_step, 1 turn_end
    int hit_and_hide    # 0 allowed, 1 forbidden


ctypedef struct nb_entry:
    uint64_t lo         # key of the resulting position (mover's frame, before the swap)
    uint64_t hi
    uint64_t seq        # representative step sequence, encoded so that < is the T2 order
    uint32_t flags      # bit 0: reached by a one-step sequence that used the larger die


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


cdef void nb_board_from_key(uint64_t lo, uint64_t hi, int is_short, nb_board* b) noexcept nogil
cdef void nb_swap_key(uint64_t lo, uint64_t hi, int is_short, uint64_t* olo,
                      uint64_t* ohi) noexcept nogil
cdef int nb_build(const int8_t* me, int me_bar, const int8_t* opp, int opp_bar, int is_short,
                  nb_board* b) noexcept nogil
cdef int nb_check_key(uint64_t lo, uint64_t hi, int is_short) noexcept nogil
cdef int nb_generate(nb_ctx* c, const nb_rules* r, const nb_board* root,
                     int die1, int die2, int want_order) noexcept nogil
cdef extern from *:
    """
    typedef unsigned __int128 nb_count;
    """
    # perft counts: 128 bits in C (gcc, clang), every sum checked (__builtin_add_overflow)
    ctypedef unsigned long long nb_count


ctypedef struct nb_tt_entry:
    # an exact perft count: position key (mover's frame), the count (two 64-bit halves), and
    # in `meta` the remaining depth (bits 0..7), weighted (bit 8), the rules code (bits
    # 9..15), L6's forbidden points for depth-1 entries (bits 25..48), the bucket's lock
    # (bit 62, slot 0) and "used" (bit 63)
    uint64_t lo
    uint64_t hi
    uint64_t count
    uint64_t meta
    uint64_t count_hi


ctypedef struct nb_tt:
    # perft's transposition table: buckets of two entries (80 bytes); slot 0
    # keeps the deepest subtree seen, slot 1 the most recent. Threads share it: each bucket
    # is read and written under its own lock bit.
    nb_tt_entry* e
    uint64_t buckets    # number of buckets (any number: a key's bucket is by multiply-shift)
    uint64_t probes     # totals over the calls that used the table
    uint64_t hits
    uint64_t stores


cdef nb_count nb_perft(nb_ctx* c, const nb_rules* r, const nb_board* b, int depth,
                       int weighted, nb_entry** bufs, nb_tt* tt,
                       const int* halt) noexcept nogil
