# fastnardy._packed: the bit-packed board and its 128-bit key, which every kernel module
# shares (cimported; nothing here needs the module at run time). The key layout and the
# occupancy masks are described in the docstring of _packed.pyx. Everything that runs per
# step or per child is `cdef inline` here, so that the generator, perft, the batches and the
# values each compile it into their own loops (a cdef call into another extension goes
# through a function pointer and cannot be inlined).

from libc.stdint cimport uint64_t, uint32_t, int8_t, int64_t
from libc.string cimport memcpy, memset

cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
    #error "fastnardy reads and writes eight counts a word, little-endian"
    #endif
    /* The instruction sets the compiled variants are built for (fastnardy._nnet.SIMD_NAMES,
       in this order, which chooses one at import; NB_AVX512VNNI is AVX-512 with its dot
       products, used by _nnet's int16 network, and AVX-512 everywhere else); NB_X86 where
       GCC's or clang's target attributes build the AVX2 and AVX-512 ones. */
    enum { NB_BASE = 0, NB_AVX2 = 1, NB_AVX512 = 2, NB_AVX512VNNI = 3 };
    /* bit 0 of each of the 12 five-bit fields of a key's word */
    #define NB_FIELDS 0x084210842108421ULL
    #if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
    #define NB_X86 1
    #endif
    static inline uint64_t nb_load8(const int8_t* p) { uint64_t x; memcpy(&x, p, 8); return x; }
    #if defined(__GNUC__) || defined(__clang__)
    static inline int nb_ctz(uint32_t x) { return __builtin_ctz(x); }
    static inline int nb_top(uint32_t x) { return 31 - __builtin_clz(x); }
    #else
    static inline int nb_ctz(uint32_t x) {
        int n = 0;
        while (!(x & 1u)) { x >>= 1; n++; }
        return n;
    }
    static inline int nb_top(uint32_t x) {
        int n = 31;
        while (!(x >> n)) n--;
        return n;
    }
    #endif
    /* The swap of a key (nb_swap_key) on a vector x of key halves, each lane the half
       whose fields and bar become the other half's (x = {hi, lo} for one key), so that each
       step is one instruction for every lane: the lane's fields, in reverse order for
       short nardy (swap neighbouring fields, then pairs, then the outer blocks of four),
       the owners exchanged (f -> f + 15 for the mover's 1..15, f - 15 for the opponent's
       16..30, 0 stays 0: bit 4 of a field tells the opponent's), the bar bits kept. */
    #define NB_SWAP_LANES(x, is_short)                                                    \
        do {                                                                              \
            const uint64_t m60_ = ((uint64_t)1 << 60) - 1;                                \
            const uint64_t ones_ = NB_FIELDS;                                             \
            __typeof__(x) bars_ = (x) & ~m60_;                                            \
            (x) &= m60_;                                                                  \
            if (is_short) {                                                               \
                (x) = (((x) & 0x7c1f07c1f07c1fULL) << 5) | (((x) >> 5) & 0x7c1f07c1f07c1fULL); \
                (x) = (((x) & 0x3ff003ff003ffULL) << 10) | (((x) >> 10) & 0x3ff003ff003ffULL); \
                (x) = (((x) & 0xfffffULL) << 40) | ((x) & (0xfffffULL << 20))             \
                      | (((x) >> 40) & 0xfffffULL);                                       \
            }                                                                             \
            __typeof__(x) opp_ = ((x) >> 4) & ones_;                                      \
            __typeof__(x) mine_ = ((((x) & (ones_ * 15)) + ones_ * 15) >> 4) & ones_ & ~opp_; \
            __typeof__(x) delta_ = mine_ - opp_;  /* +1 or -1 a field, times 15 */        \
            (x) = ((x) + ((delta_ << 4) - delta_)) | bars_;                               \
        } while (0)
    typedef uint64_t nb_v2 __attribute__((vector_size(16)));
    static inline void nb_swap2(uint64_t lo, uint64_t hi, int is_short, uint64_t* out) {
        nb_v2 x = {hi, lo};
        NB_SWAP_LANES(x, is_short);
        memcpy(out, &x, 16);
    }
    /* The 24 point fields of a key as four words of bytes a side: the key's mover's points
       1-8, 9-12 (the low four bytes), 13-20 and 21-24 (the low four); m its counts, o the
       other side's counts on those points. Both halves of the key at once, one in each
       lane: eight 5-bit fields spread to the eight bytes of a word (bits 0..39) and four
       (bits 40..59) to the low four bytes of another, in three shift-and-mask rounds; then
       split by bit 4 of each byte into the key's mover's counts (0..15) and the other
       side's (16..30 hold that side's count + 15). */
    static inline void nb_key_words2(uint64_t lo, uint64_t hi, uint64_t* m, uint64_t* o) {
        const uint64_t ones = 0x0101010101010101ULL;
        nb_v2 x = {lo, hi};
        nb_v2 part[2] = {x & 0xFFFFFFFFFFULL, (x >> 40) & 0xFFFFFULL};
        for (int k = 0; k < 2; k++) {
            nb_v2 v = part[k];
            v = (v & 0xFFFFFULL) | ((v & 0xFFFFF00000ULL) << 12);
            v = (v & 0x000003FF000003FFULL) | ((v & 0x000FFC00000FFC00ULL) << 6);
            v = (v & 0x001F001F001F001FULL) | ((v & 0x03E003E003E003E0ULL) << 3);
            nb_v2 s = (v >> 4) & ones;
            nb_v2 whose = (s << 8) - s;             /* 0xFF in the other side's bytes */
            nb_v2 mine = v & ~whose;
            nb_v2 theirs = (v & whose) - ((s << 4) - s);
            m[k] = mine[0];
            m[k + 2] = mine[1];
            o[k] = theirs[0];
            o[k + 2] = theirs[1];
        }
    }
    /* One checker in the key field of point p (1..24) or on the mover's bar (25), in the
       key's low and high words; nothing for 0 (borne off). */
    #define NB_U(k) ((uint64_t)1 << (5 * (k)))
    static const uint64_t nb_unit_lo[26] = {
        0, NB_U(0), NB_U(1), NB_U(2), NB_U(3), NB_U(4), NB_U(5), NB_U(6), NB_U(7), NB_U(8),
        NB_U(9), NB_U(10), NB_U(11), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, NB_U(12)};
    static const uint64_t nb_unit_hi[26] = {
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, NB_U(0), NB_U(1), NB_U(2), NB_U(3), NB_U(4),
        NB_U(5), NB_U(6), NB_U(7), NB_U(8), NB_U(9), NB_U(10), NB_U(11), 0};
    #undef NB_U
    """
    # eight counts of a row as a word; the lowest and the highest set bit of a nonzero mask
    uint64_t nb_load8(const int8_t* p) noexcept nogil
    uint64_t NB_FIELDS  # bit 0 of each of the 12 fields of a key's word
    int nb_ctz(uint32_t x) noexcept nogil
    int nb_top(uint32_t x) noexcept nogil
    void nb_swap2(uint64_t lo, uint64_t hi, int is_short, uint64_t* out) noexcept nogil
    void nb_key_words2(uint64_t lo, uint64_t hi, uint64_t* m, uint64_t* o) noexcept nogil
    const uint64_t nb_unit_lo[26]
    const uint64_t nb_unit_hi[26]

cdef enum:
    # Slots for the distinct legal turns (T1) of one position and roll: C(29, 4) = 23751
    # multisets of at most 4 step sources out of 25 (argued in the docstring of
    # _movegen.pyx); a loose bound that sizes the buffers. The tight bound on the turns
    # themselves is fastnardy.basics.MAX_TURNS_PER_ROLL (5220), the action spaces' size.
    NB_TURN_SLOTS = 23751
    # perft depth limit (the child buffers are allocated per ply).
    NB_MAX_DEPTH = 64

cdef enum:
    # occupancy bits (bit p = mover's point p)
    PTS = 0x1FFFFFE     # points 1..24
    HOME = 0x7E         # points 1..6
    BAR = 0x2000000     # bit 25, the mover's bar


ctypedef struct nb_board:
    # the packed 128-bit key of the position, mover's frame (layout in _packed.pyx)
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
    # one legal turn
    uint64_t lo         # key of the resulting position (mover's frame, before the swap)
    uint64_t hi
    uint64_t seq        # representative step sequence, encoded so that < is the T2 order
    uint32_t flags      # bit 0: reached by a one-step sequence that used the larger die


cdef inline int mir(int q, int is_short) noexcept nogil:
    """The mirror of RULES.md §0 (an involution)."""
    if is_short:
        return 25 - q
    return q + 12 if q <= 12 else q - 12


cdef inline void key_add(nb_board* b, int p, int delta) noexcept nogil:
    """Add delta to the key field of point p (1..24), or to the mover's bar count (p = 25);
    the field must stay within 0..30."""
    b.lo += nb_unit_lo[p] * <uint64_t>(<int64_t>delta)
    b.hi += nb_unit_hi[p] * <uint64_t>(<int64_t>delta)


cdef inline uint64_t field(uint64_t lo, uint64_t hi, int p) noexcept nogil:
    """The 5-bit key field of point p (1..24)."""
    if p <= 12:
        return (lo >> (5 * (p - 1))) & 31
    return (hi >> (5 * (p - 13))) & 31


cdef inline void nb_swap_key(uint64_t lo, uint64_t hi, int is_short, uint64_t* olo,
                             uint64_t* ohi) noexcept nogil:
    """The key of the same position with the opponent to move (its own frame): the field of
    point q comes from the mirror point, owners exchanged; the bars change places. Long
    nardy's mirror (q +- 12) exchanges the two halves whole; short's (25 - q) reverses
    them too. Both halves at once (nb_swap2)."""
    cdef uint64_t out[2]
    nb_swap2(lo, hi, is_short, out)
    olo[0] = out[0]
    ohi[0] = out[1]


cdef inline int nb_build(const int8_t* me, int me_bar, const int8_t* opp, int opp_bar,
                         int is_short, nb_board* b) noexcept nogil:
    """The board of a position given as counts in each side's own numbering, with the
    structural checks (the Position layer adds L6 of T7): counts, masks and key in one pass
    over the points, highest first, so that each half of the key shifts in from the top.
    Returns 0, or the number of the broken check (see _args._build_error)."""
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


cdef inline int nb_check_key(uint64_t lo, uint64_t hi, int is_short) noexcept nogil:
    """0 for a well-formed key, else the number of the broken check (see _args._build_error)."""
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


cdef inline uint64_t hkey(uint64_t lo, uint64_t hi) noexcept nogil:
    """A 64-bit hash of a key (the tables of the generator and of perft, and
    Position's hash)."""
    cdef uint64_t h = (lo ^ (hi * <uint64_t>0x9E3779B97F4A7C15)) * <uint64_t>0xBF58476D1CE4E5B9
    return h ^ (h >> 29)


cdef inline uint64_t seq_add(uint64_t seq, int depth, int src, int dst, int hit) noexcept nogil:
    """Append step number `depth` (0..3) to an encoded sequence. Slot i holds
    (25 - src) * 32 + dst + 1 (1..825, 0 = no step) at bits 4 + 10 * (3 - i); the hit flag of
    step i is bit 3 - i. Unsigned < on the code is the T2 order (prefix first); the hit bits
    never decide it, since equal (src, dst) prefixes from one root hit the same blots."""
    cdef uint64_t code = <uint64_t>((25 - src) * 32 + dst + 1)
    return seq | (code << (4 + 10 * (3 - depth))) | (<uint64_t>hit << (3 - depth))


cdef inline int seq_step(uint64_t seq, int i, int* src, int* dst, int* hit) noexcept nogil:
    """Step i (0..3) of an encoded sequence (seq_add): 0 past its last step, else 1 with the
    step's src (25 the bar), dst (0 borne off) and hit flag."""
    cdef int code = <int>((seq >> (4 + 10 * (3 - i))) & 1023)
    if code == 0:
        return 0
    code -= 1
    src[0] = 25 - (code >> 5)
    dst[0] = code & 31
    hit[0] = <int>((seq >> (3 - i)) & 1)
    return 1


cdef inline uint64_t nb_key_has_31(uint64_t lo, uint64_t hi) noexcept nogil:
    """Nonzero iff one of the 24 point fields of a key is 31 (which encodes nothing)."""
    cdef uint64_t ones = NB_FIELDS
    cdef uint64_t a = lo & (lo >> 1) & (lo >> 2) & (lo >> 3) & (lo >> 4)
    cdef uint64_t b = hi & (hi >> 1) & (hi >> 2) & (hi >> 3) & (hi >> 4)
    return (a | b) & ones


cdef inline uint64_t bytes_reversed(uint64_t x) noexcept nogil:
    x = ((x & <uint64_t>0x00FF00FF00FF00FF) << 8) | ((x >> 8) & <uint64_t>0x00FF00FF00FF00FF)
    x = ((x & <uint64_t>0x0000FFFF0000FFFF) << 16) | ((x >> 16) & <uint64_t>0x0000FFFF0000FFFF)
    return (x << 32) | (x >> 32)


cdef inline void words3(int8_t* out, uint64_t a, uint64_t b, uint64_t c) noexcept nogil:
    """The 24 bytes of three little-endian words."""
    memcpy(out, &a, 8)
    memcpy(out + 8, &b, 8)
    memcpy(out + 16, &c, 8)


cdef inline void lay24(uint64_t a, uint64_t b, uint64_t c, uint64_t d,
                       uint64_t* w) noexcept nogil:
    """24 bytes in a row as three little-endian words: the eight of a, the low four of b,
    the eight of c, the low four of d (each word of the row is then one store, so that a
    reader of the row in words, row_faults, gets it from one store: a load spanning two
    stores waits for both)."""
    w[0] = a
    w[1] = (b & <uint64_t>0xFFFFFFFF) | (c << 32)
    w[2] = (c >> 32) | (d << 32)


cdef inline void store24(int8_t* out, uint64_t a, uint64_t b, uint64_t c,
                         uint64_t d) noexcept nogil:
    """The 24 bytes of lay24, stored."""
    cdef uint64_t w[3]
    lay24(a, b, c, d, w)
    words3(out, w[0], w[1], w[2])


cdef inline void nb_key_row_words(uint64_t lo, uint64_t hi, int is_short,
                                  uint64_t* w) noexcept nogil:
    """The 48 point counts of a key's board row (a well-formed key: no field of 31) as six
    little-endian words, with no branch on the counts: w[0..2] the key's mover's points
    1-24, w[3..5] the other side's points 1-24 in its own numbering. Eight fields at a time:
    bit 4 of a field tells whose it is (0..15 the key's mover's count, 16..30 the other
    side's count + 15)."""
    cdef uint64_t m[4]
    cdef uint64_t o[4]
    nb_key_words2(lo, hi, m, o)
    lay24(m[0], m[1], m[2], m[3], w)
    if is_short:  # the mirror of §0, 25 - q: the other side's points in reverse order
        o[3] = bytes_reversed(o[3]) >> 32
        o[2] = bytes_reversed(o[2])
        o[1] = bytes_reversed(o[1]) >> 32
        o[0] = bytes_reversed(o[0])
        w[3] = o[3] | (o[2] << 32)
        w[4] = (o[2] >> 32) | (o[1] << 32)
        w[5] = o[0]
    else:  # q + 12 or q - 12: the two halves exchanged
        lay24(o[2], o[3], o[0], o[1], w + 3)


cdef inline void nb_key_to_row(uint64_t lo, uint64_t hi, int is_short, int8_t* row,
                               int mover_first) noexcept nogil:
    """The 50-byte board row of a key (a well-formed one: no field of 31): each side's 24
    points in its own numbering (nb_key_row_words) and its bar, the key's mover's side first
    if ``mover_first``, else the OTHER side's first (the view of the side to move after the
    turn)."""
    cdef uint64_t w[6]
    cdef int8_t* mover = row if mover_first else row + 25
    cdef int8_t* other = row + 25 if mover_first else row
    nb_key_row_words(lo, hi, is_short, w)
    words3(mover, w[0], w[1], w[2])
    words3(other, w[3], w[4], w[5])
    mover[24] = <int8_t>(lo >> 60)
    other[24] = <int8_t>(hi >> 60)


cdef inline uint32_t nonzero8(uint64_t x) noexcept nogil:
    """Bit k: byte k of x (each byte 0..127) is not zero."""
    return <uint32_t>(((((x + <uint64_t>0x7F7F7F7F7F7F7F7F) & <uint64_t>0x8080808080808080)
                        >> 7) * <uint64_t>0x0102040810204080) >> 56)


cdef inline uint32_t points24(const uint64_t* w) noexcept nogil:
    """The mask (bit p = point p, 1..24) of the nonzero bytes of a side's four words (as
    nb_key_words2 splits a key)."""
    return (nonzero8(w[0]) << 1 | (nonzero8(w[1]) & 0xF) << 9 | nonzero8(w[2]) << 13
            | (nonzero8(w[3]) & 0xF) << 21)


cdef inline int sum8(uint64_t x) noexcept nogil:
    """The sum of the bytes of x (at most 255)."""
    return <int>((x * <uint64_t>0x0101010101010101) >> 56)


cdef inline uint32_t held24(uint64_t a, uint64_t b, uint64_t c) noexcept nogil:
    """The held mask (bit p: point p, 0..23) of a side's 24 counts as three row words."""
    return nonzero8(a) | (nonzero8(b) << 8) | (nonzero8(c) << 16)


cdef inline int count24(uint64_t a, uint64_t b, uint64_t c) noexcept nogil:
    """The checkers of a side's 24 counts of 0..15 as three row words: two words' bytes sum
    to at most 240, so sum8 adds them without a carry."""
    return sum8(a + b) + sum8(c)


cdef inline uint64_t nb_fields_held(uint64_t x) noexcept nogil:
    """Bit 0 of each of the 12 fields of a key's word that is not 0 (either side's)."""
    return (x | (x >> 1) | (x >> 2) | (x >> 3) | (x >> 4)) & NB_FIELDS


cdef inline uint64_t nb_fields_other(uint64_t x) noexcept nogil:
    """Bit 0 of each of the 12 fields of a key's word that holds the other side's checkers
    (16 to 30: bit 4 set)."""
    return (x >> 4) & NB_FIELDS


cdef inline void nb_board_from_key(uint64_t lo, uint64_t hi, int is_short, nb_board* b) noexcept nogil:
    """The board of a key (a well-formed one): counts, masks and off counts eight fields at
    a time (as nb_key_to_row), with no branch on the counts."""
    cdef uint64_t m[4]
    cdef uint64_t o[4]
    cdef uint32_t held
    cdef int i
    nb_key_words2(lo, hi, m, o)
    store24(&b.m[1], m[0], m[1], m[2], m[3])
    store24(&b.o[1], o[0], o[1], o[2], o[3])
    b.m[25] = <int8_t>(lo >> 60)
    b.o[25] = <int8_t>(hi >> 60)
    b.m[0] = <int8_t>(15 - b.m[25] - sum8(m[0]) - sum8(m[1]) - sum8(m[2]) - sum8(m[3]))
    b.o[0] = <int8_t>(15 - b.o[25] - sum8(o[0]) - sum8(o[1]) - sum8(o[2]) - sum8(o[3]))
    b.mine = points24(m) | (BAR if b.m[25] else 0)
    held = points24(o)
    if is_short:
        for i in range(4):  # halved counts: nonzero for two or more (S4)
            o[i] = (o[i] >> 1) & <uint64_t>0x7F7F7F7F7F7F7F7F
        b.closed = points24(o)
        b.blots = held & ~b.closed
    else:
        b.closed = held
        b.blots = 0
    b.hitters = 0
    b.lo = lo
    b.hi = hi
