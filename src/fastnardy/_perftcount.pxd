# fastnardy._perftcount: perft (T5) without the GIL, and its exact transposition table.

from libc.stdint cimport uint64_t

from fastnardy._packed cimport nb_board, nb_entry, nb_rules
from fastnardy._movegen cimport nb_ctx

cdef extern from *:
    """
    #if defined(__SIZEOF_INT128__) && !defined(NB_NO_INT128)
    typedef unsigned __int128 nb_count;
    static inline nb_count nb_count_of(uint64_t hi, uint64_t lo) {
        return ((nb_count)hi << 64) | lo;
    }
    static inline uint64_t nb_count_lo(nb_count x) { return (uint64_t)x; }
    static inline uint64_t nb_count_hi(nb_count x) { return (uint64_t)(x >> 64); }
    static inline int nb_count_add(nb_count* total, nb_count x, int twice) {
        return (twice && __builtin_add_overflow(x, x, &x)) || __builtin_add_overflow(*total, x, total);
    }
    static inline void nb_count_add_small(nb_count* total, uint64_t x) { *total += x; }
    static inline uint64_t nb_mulhi(uint64_t a, uint64_t b) {
        return (uint64_t)(((nb_count)a * b) >> 64);
    }
    #else
    /* Compilers without unsigned __int128 (MSVC; or -DNB_NO_INT128 to test this path):
       two 64-bit halves, the same values and the same overflow checks. */
    typedef struct { uint64_t lo, hi; } nb_count;
    static inline nb_count nb_count_of(uint64_t hi, uint64_t lo) {
        nb_count x; x.lo = lo; x.hi = hi; return x;
    }
    static inline uint64_t nb_count_lo(nb_count x) { return x.lo; }
    static inline uint64_t nb_count_hi(nb_count x) { return x.hi; }
    static inline int nb_count_add(nb_count* total, nb_count x, int twice) {
        uint64_t lo, carry, hi;
        if (twice) {                        /* x + x overflows when x's top bit is set */
            if (x.hi >> 63) return 1;
            x.hi = (x.hi << 1) | (x.lo >> 63);
            x.lo <<= 1;
        }
        lo = total->lo + x.lo;
        carry = lo < x.lo;
        hi = total->hi + x.hi;
        if (hi < x.hi) return 1;            /* the high halves overflow */
        hi += carry;
        if (hi < carry) return 1;           /* and so may the carry */
        total->lo = lo;
        total->hi = hi;
        return 0;
    }
    static inline void nb_count_add_small(nb_count* total, uint64_t x) {
        total->lo += x; total->hi += total->lo < x;
    }
    static inline uint64_t nb_mulhi(uint64_t a, uint64_t b) {
        uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
        uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
        uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
        return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    }
    #endif
    """
    # perft counts: 128 bits, every sum checked. gcc and clang: unsigned __int128 and
    # __builtin_add_overflow; other compilers (or -DNB_NO_INT128): two 64-bit halves. Only
    # these functions touch a count, so the kernel is the same code on both paths.
    ctypedef struct nb_count:
        pass
    nb_count nb_count_of(uint64_t hi, uint64_t lo) noexcept nogil
    uint64_t nb_count_lo(nb_count x) noexcept nogil
    uint64_t nb_count_hi(nb_count x) noexcept nogil
    int nb_count_add(nb_count* total, nb_count x, int twice) noexcept nogil
    void nb_count_add_small(nb_count* total, uint64_t x) noexcept nogil
    uint64_t nb_mulhi(uint64_t a, uint64_t b) noexcept nogil

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
    # perft's transposition table: buckets of two entries (80 bytes); slot 0 keeps the
    # deepest subtree seen, slot 1 the most recent. Threads share it: each bucket is read
    # and written under its own lock bit.
    nb_tt_entry* e
    uint64_t buckets    # number of buckets (any number: a key's bucket is by multiply-shift)
    uint64_t probes     # totals over the calls that used the table
    uint64_t hits
    uint64_t stores

cdef nb_count nb_perft(nb_ctx* c, const nb_rules* r, const nb_board* b, int depth,
                       int weighted, nb_entry** bufs, nb_tt* tt) noexcept nogil

cdef class PerftTable:
    cdef nb_tt tt
    cdef readonly double mb

