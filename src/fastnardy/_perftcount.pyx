"""fastnardy._perftcount -- perft (T5: the number of leaves of the tree of legal turns over
all 21 rolls, or weighted by their 36 outcomes) without the GIL, exact (128-bit sums, each
checked: CountOverflowError past 2**128 - 1), with an optional exact transposition table of
subtree counts that threads may share; a call watches a Stop (fastnardy._movegen) that any
thread may set.
Rule ids refer to RULES.md."""

from libc.stdint cimport uint64_t
from libc.string cimport memcpy
from libc.stdlib cimport calloc, malloc, free

from fastnardy._packed cimport (NB_FIELDS, NB_MAX_DEPTH, NB_TURN_SLOTS, hkey, nb_board,
                                nb_board_from_key, nb_entry, nb_rules, nb_swap_key)
from fastnardy._movegen cimport (ctx_acquire, ctx_raise_if_stopped, ctx_release, ctx_watch,
                                 forbidden_blocks, NB_COUNT, NB_ENTRIES, nb_ctx, nb_generate,
                                 nb_tick)
from fastnardy._args cimport _parse_position

from operator import index as _op_index

from .errors import CountOverflowError, FastNardyError, ResourceLimitError

cdef extern from *:
    """
    #define NB_LOCK ((uint64_t)1 << 62)
    static inline void nb_lock(uint64_t* m) {
        while (__atomic_fetch_or(m, NB_LOCK, __ATOMIC_ACQUIRE) & NB_LOCK)
            while (__atomic_load_n(m, __ATOMIC_RELAXED) & NB_LOCK) {}
    }
    static inline void nb_unlock(uint64_t* m) {
        __atomic_fetch_and(m, ~NB_LOCK, __ATOMIC_RELEASE);
    }
    """
    const uint64_t NB_LOCK
    void nb_lock(uint64_t* m) noexcept nogil
    void nb_unlock(uint64_t* m) noexcept nogil


cdef inline uint64_t tt_meta(const nb_rules* r, int depth, int weighted) noexcept nogil:
    return (<uint64_t>depth | (<uint64_t>weighted << 8)
            | (<uint64_t>(r.game | (r.head_rule << 1) | (r.block_rule << 3) | (r.block_check << 5)
                          | (r.hit_and_hide << 6)) << 9) | (<uint64_t>1 << 63))


cdef inline nb_tt_entry* tt_bucket(nb_tt* tt, uint64_t lo, uint64_t hi, uint64_t meta) noexcept nogil:
    cdef uint64_t h = hkey(lo ^ (meta * <uint64_t>0x9E3779B97F4A7C15), hi)
    return &tt.e[2 * nb_mulhi(h, tt.buckets)]  # the hash's high bits pick it


cdef inline void count_key(const nb_rules* r, const nb_board* b, uint64_t* lo, uint64_t* hi,
                           uint64_t* meta) noexcept nogil:
    """The key of what perft(b, 1) depends on: the mover's checkers and, of the opponent,
    only what the mover's turns see. Short nardy: blots (S3 hits) and closed points (two or
    more: the count beyond two and the opponent's bar do not change any turn). Long nardy:
    occupied points (L3) and, in meta, the L6 forbidden block points (which the opponent's
    checkers decide). Positions alike in all this have the same legal turns for every roll,
    up to the opponent's untouched checkers, so the same perft(., 1)."""
    cdef uint64_t ones = NB_FIELDS, M60 = (<uint64_t>1 << 60) - 1
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
    e.count = nb_count_lo(count)
    e.count_hi = nb_count_hi(count)
    e.meta = meta


cdef nb_count nb_perft(nb_ctx* c, const nb_rules* r, const nb_board* b, int depth,
                       int weighted, nb_entry** bufs, nb_tt* tt) noexcept nogil:
    """T5 perft; bufs[k] holds NB_TURN_SLOTS + 1 entries for the children at remaining depth k;
    tt (or NULL) is an exact transposition table of subtree counts (key, depth, weighted,
    rules). Every sum is checked: past 2**128 - 1 it sets c.stop = 2. Returns 0 early when
    the context stops (c.stop: a signal, the overflow, or the call's Stop set)."""
    cdef nb_count total = nb_count_of(0, 0)
    cdef int d1, d2, n, i, twice
    cdef uint64_t lo, hi, meta = 0, klo = b.lo, khi = b.hi
    cdef nb_board kid
    cdef nb_tt_entry* e = NULL
    if depth == 0 or b.m[0] >= 15 or b.o[0] >= 15:
        return nb_count_of(0, 1)
    if tt != NULL:
        meta = tt_meta(r, depth, weighted)
        if depth == 1:
            count_key(r, b, &klo, &khi, &meta)
        e = tt_bucket(tt, klo, khi, meta)
        c.tt_probes += 1
        nb_lock(&e[0].meta)
        for i in range(2):
            if (e[i].meta & ~NB_LOCK) == meta and e[i].lo == klo and e[i].hi == khi:
                total = nb_count_of(e[i].count_hi, e[i].count)
                nb_unlock(&e[0].meta)
                c.tt_hits += 1
                return total
        nb_unlock(&e[0].meta)
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            twice = weighted and d1 != d2
            n = nb_generate(c, r, b, d2, d1, NB_COUNT if depth == 1 else NB_ENTRIES)
            if nb_tick(c):
                return nb_count_of(0, 0)
            if depth == 1:
                nb_count_add_small(&total, <uint64_t>((1 + twice) * n))  # <= 2 * 36 * NB_TURN_SLOTS
                continue
            memcpy(bufs[depth], c.out, n * sizeof(nb_entry))
            for i in range(n):
                nb_swap_key(bufs[depth][i].lo, bufs[depth][i].hi, r.game, &lo, &hi)
                nb_board_from_key(lo, hi, r.game, &kid)
                if nb_count_add(&total, nb_perft(c, r, &kid, depth - 1, weighted, bufs, tt),
                                twice):
                    c.stop = 2
                if c.stop:
                    return nb_count_of(0, 0)
    if tt != NULL:
        nb_lock(&e[0].meta)
        tt_store(e, klo, khi, meta, total)
        nb_unlock(&e[0].meta)
        c.tt_stores += 1
    return total


cdef class PerftTable:
    """An exact transposition table for perft, bounded to ``mb`` megabytes: subtree counts
    keyed by the full 128-bit position key, the remaining depth, ``weighted`` and the rules,
    so a hit is always the exact count (no lossy key). Buckets of two 40-byte entries
    (128-bit counts), as many as fit in ``mb``: slot 0 keeps the deepest subtree that hashed
    there (the most work saved), slot 1 the most recent. A table may serve many perft calls (its counts stay valid), at
    the same time too: threads share it, each bucket read and written under its own lock."""

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


def perft_count(code, me, me_bar, opp, opp_bar, depth, weighted=False, table=None,
                stats=False, stop=None):
    """T5 perft from the position, `me` to move; weighted counts non-doubles twice. With a
    PerftTable, subtree counts are looked up and stored there; with ``stats`` the result is
    (count, probes, hits) of this call. The count is exact (128-bit, every sum checked):
    CountOverflowError past 2**128 - 1. Runs without the GIL; Ctrl-C (in the main thread)
    or ``stop`` (a Stop, in any thread) stops it: KeyboardInterrupt."""
    cdef nb_rules r
    cdef nb_board b
    cdef int dp, k, w
    cdef nb_entry* bufs[NB_MAX_DEPTH + 1]
    cdef nb_count total
    cdef nb_ctx* c
    cdef nb_tt* tt = NULL
    cdef PerftTable held = None
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
    for k in range(NB_MAX_DEPTH + 1):
        bufs[k] = NULL
    c = NULL
    try:
        c = ctx_acquire()
        for k in range(2, dp + 1):
            bufs[k] = <nb_entry*>malloc((NB_TURN_SLOTS + 1) * sizeof(nb_entry))
            if bufs[k] == NULL:
                raise ResourceLimitError("cannot allocate perft's buffers")
        ctx_watch(c, stop)
        with nogil:
            total = nb_perft(c, &r, &b, dp, w, bufs, tt)
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
    count = (<object>nb_count_hi(total) << 64) | <object>nb_count_lo(total)
    if stats:
        return (count, probes, hits)
    return count
