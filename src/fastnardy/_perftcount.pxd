# fastnardy._perftcount: perft (T5) without the GIL, and its exact transposition table.

from libc.stdint cimport uint64_t

from fastnardy._packed cimport nb_board, nb_entry, nb_rules
from fastnardy._movegen cimport nb_ctx

ctypedef struct nb_tt_entry:
    # an exact perft count: position key (mover's frame), and in `meta` the remaining depth
    # (bits 0..7), weighted (bit 8), the rules code (bits 9..15), L6's forbidden points for
    # depth-1 entries (bits 25..48), the bucket's lock (bit 62, slot 0) and "used" (bit 63)
    uint64_t lo
    uint64_t hi
    uint64_t count
    uint64_t meta

ctypedef struct nb_tt:
    # perft's transposition table: buckets of two entries (64 bytes, one cache line); slot 0
    # keeps the deepest subtree seen, slot 1 the most recent. Threads share it: each bucket
    # is read and written under its own lock bit.
    nb_tt_entry* e
    uint64_t mask       # number of buckets - 1
    uint64_t probes     # totals over the calls that used the table
    uint64_t hits
    uint64_t stores

cdef unsigned long long nb_perft(nb_ctx* c, const nb_rules* r, const nb_board* b, int depth,
                                 int weighted, nb_entry** bufs, nb_tt* tt) noexcept nogil

cdef class PerftTable:
    cdef nb_tt tt
    cdef readonly double mb
