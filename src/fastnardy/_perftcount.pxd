# fastnardy._perftcount: perft (T5) without the GIL, and its exact transposition table.

from libc.stdint cimport uint64_t

from fastnardy._packed cimport nb_board, nb_entry, nb_rules
from fastnardy._movegen cimport nb_ctx

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
    # perft's transposition table: buckets of two entries (80 bytes); slot 0 keeps the
    # deepest subtree seen, slot 1 the most recent. Threads share it: each bucket is read
    # and written under its own lock bit.
    nb_tt_entry* e
    uint64_t buckets    # number of buckets (any number: a key's bucket is by multiply-shift)
    uint64_t probes     # totals over the calls that used the table
    uint64_t hits
    uint64_t stores

cdef nb_count nb_perft(nb_ctx* c, const nb_rules* r, const nb_board* b, int depth,
                       int weighted, nb_entry** bufs, nb_tt* tt,
                       const int* halt) noexcept nogil

cdef class PerftTable:
    cdef nb_tt tt
    cdef readonly double mb

cdef class PerftStop:
    cdef int flag
