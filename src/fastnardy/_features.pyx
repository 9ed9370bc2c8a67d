"""fastnardy._features -- board rows in compiled code: the network inputs of
:mod:`fastnardy.features`, packed keys to board rows (:func:`fastnardy.batch.rows_from_keys`)
and board rows to keys, each row or key validated in the same pass that reads it.

Keys are read and written through the kernel's own decoder and builder (``nb_key_has_31``,
``nb_key_row_words`` and ``nb_build`` of ``_packed.pxd``), so the key layout has one home,
:mod:`fastnardy._packed`. The mirror of RULES.md section 0 comes from the caller
(``fastnardy.batch.MIRROR_COLUMNS``); the meaning of every feature column is in
:mod:`fastnardy.features`. Errors are counted as bits during the pass (no Python object is
built per row) and raised after it, the first kind in the order of the checks (E_* and the
checks of one row or key, inline in ``_features.pxd`` for the network's use), so that a
batch with several faults always names the same one.
"""

from libc.stdint cimport int8_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcmp, memcpy

import numpy as np

from fastnardy._args cimport _data, as_array
from fastnardy._packed cimport nb_board, nb_build, nb_entry
from fastnardy._packed import KEY_DTYPE
from fastnardy.errors import InvalidPositionError

cdef extern from *:
    """
    /* The raw inputs of a key's 48 point counts (its six row words, by value: a vector load
       of words just stored would wait for the stores) into out[0..23] and out[25..48], each
       count n as table[n] = float32(n) / float32(15): sixteen lookups at once in one
       register (AVX-512) or eight from two (AVX2); NULL in the baseline, which looks them
       up two at a time. Set once at import (fn_use, from _nnet's instruction set). */
    static float fn_raw15[16];
    static void (*fn_raw48)(float*, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t,
                            uint64_t) = 0;
    #ifdef NB_X86
    #include <immintrin.h>
    __attribute__((target("avx2"))) static void fn_raw8_avx2(float* out, uint64_t w) {
        __m256i n = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)w));
        __m256 low = _mm256_permutevar8x32_ps(_mm256_loadu_ps(fn_raw15), n);
        __m256 high = _mm256_permutevar8x32_ps(_mm256_loadu_ps(fn_raw15 + 8), n);
        /* bit 3 of n, moved to the sign bit, picks the high half */
        _mm256_storeu_ps(out, _mm256_blendv_ps(low, high,
                                               _mm256_castsi256_ps(_mm256_slli_epi32(n, 28))));
    }
    __attribute__((target("avx2"))) static void fn_raw48_avx2(
            float* out, uint64_t w0, uint64_t w1, uint64_t w2, uint64_t w3, uint64_t w4,
            uint64_t w5) {
        fn_raw8_avx2(out, w0);
        fn_raw8_avx2(out + 8, w1);
        fn_raw8_avx2(out + 16, w2);
        fn_raw8_avx2(out + 25, w3);
        fn_raw8_avx2(out + 33, w4);
        fn_raw8_avx2(out + 41, w5);
    }
    __attribute__((target("avx512f"))) static void fn_raw24_avx512(
            float* out, __m512 table, uint64_t a, uint64_t b, uint64_t c) {
        __m512i n = _mm512_cvtepu8_epi32(_mm_set_epi64x((long long)b, (long long)a));
        _mm512_storeu_ps(out, _mm512_permutexvar_ps(n, table));
        n = _mm512_cvtepu8_epi32(_mm_cvtsi64_si128((long long)c));
        _mm512_mask_storeu_ps(out + 16, 0xFF, _mm512_permutexvar_ps(n, table));
    }
    __attribute__((target("avx512f"))) static void fn_raw48_avx512(
            float* out, uint64_t w0, uint64_t w1, uint64_t w2, uint64_t w3, uint64_t w4,
            uint64_t w5) {
        __m512 table = _mm512_loadu_ps(fn_raw15);
        fn_raw24_avx512(out, table, w0, w1, w2);
        fn_raw24_avx512(out + 25, table, w3, w4, w5);
    }
    #endif
    /* The shots of the shots inputs (_features.pxd's shots_values; fastnardy.search.inputs):
       the rolls of 36 with which a checker of ``sources`` (the attacker's points and bar,
       bit p - 1: its point p) lands on a point of ``blots`` with one die, or with both dice
       over either die's point, or with a double's number two to four times over its points,
       no point on the way in ``blocks`` (all three in the attacker's numbering); and into
       ``loss`` the sum over those rolls of the pips lost by the farthest advanced blot hit
       (its attacker's point). Lane by lane over the 21 rolls in the vector builds, roll by
       roll in the baseline: integers, the same counts. side_shots (_features.pxd) calls it
       only when a blot has an attacker behind it: the counts are 0 otherwise. */
    typedef int (*fn_shots_t)(uint32_t, uint32_t, uint32_t, int*);
    static int fn_shots_base(uint32_t sources, uint32_t blots, uint32_t blocks, int* loss) {
        uint32_t one[7], free_[7];
        int count = 0, lost = 0;
        for (int d = 1; d < 7; d++) {
            one[d] = sources >> d;
            free_[d] = one[d] & ~blocks;
        }
        for (int d = 1; d < 7; d++) {  /* no branches: whether a roll hits is not predictable */
            uint32_t cur = free_[d], hit = one[d] & blots;
            for (int e = 0; e < 3; e++) {
                cur >>= d;
                hit |= cur & blots;
                cur &= ~blocks;
            }
            int k = hit != 0;
            count += k;
            lost += k * (nb_top(hit | 1) + 1);  /* pips lost */
            for (int e = d + 1; e < 7; e++) {
                hit = (one[d] | one[e] | (free_[d] >> e) | (free_[e] >> d)) & blots;
                k = 2 * (hit != 0);
                count += k;
                lost += k * (nb_top(hit | 1) + 1);  /* pips lost */
            }
        }
        *loss = lost;
        return count;
    }
    /* the 21 rolls as lanes (the 15 others, then the doubles; 11 lanes of weight 0 after
       them): first die, second die, weight (2, or 1 for a double), and -1 for a double */
    static const uint32_t fn_roll_a[32] = {1, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 4, 4, 5,
                                          1, 2, 3, 4, 5, 6};
    static const uint32_t fn_roll_b[32] = {2, 3, 4, 5, 6, 3, 4, 5, 6, 4, 5, 6, 5, 6, 6,
                                          1, 2, 3, 4, 5, 6};
    static const int32_t fn_roll_w[32] = {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
                                          1, 1, 1, 1, 1, 1};
    static const uint32_t fn_roll_double[32] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                                0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu,
                                                0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu};
    static fn_shots_t fn_shots = fn_shots_base;
    #ifdef NB_X86
    /* fn_shots_base's counts with the rolls as the lanes of vectors of W uint32 (GCC's and
       clang's vector extension; the lanes' shifts by their own dice): the lanes of a double
       take up to four steps, the others both orders of two. A hit's pips are the exponent
       of its float (exact below 2^24) less 126. One body for each vector build. */
    #define FN_SHOTS_LANES(name, isa, W)                                                     \
    typedef uint32_t name##_u __attribute__((vector_size(4 * W)));                           \
    typedef int32_t name##_i __attribute__((vector_size(4 * W)));                            \
    typedef float name##_f __attribute__((vector_size(4 * W)));                              \
    __attribute__((target(isa))) static int name(uint32_t sources, uint32_t blots,           \
                                                 uint32_t blocks, int* loss) {              \
        const name##_u zero = {0}, s = zero + sources, f = zero + ~blocks, t = zero + blots; \
        name##_i count = {0}, lost = {0};                                                    \
        int c = 0, l = 0;                                                                    \
        for (int h = 0; h < 21; h += W) {                                                    \
            name##_u a, b, dbl;                                                              \
            name##_i w, pips;                                                                \
            memcpy(&a, fn_roll_a + h, sizeof a);                                             \
            memcpy(&b, fn_roll_b + h, sizeof b);                                             \
            memcpy(&dbl, fn_roll_double + h, sizeof dbl);                                    \
            memcpy(&w, fn_roll_w + h, sizeof w);                                             \
            name##_u x1 = s >> a, x2 = s >> b, y1 = (x1 & f) >> b, y2 = (x2 & f) >> a;       \
            name##_u z = (y1 & f) >> a, four = (z & f) >> a;                                 \
            name##_u hit = t & (x1 | x2 | y1 | y2 | ((z | four) & dbl));                     \
            name##_i weight = w & (name##_i)(hit != 0);                                      \
            name##_f fhit = __builtin_convertvector((name##_i)hit, name##_f);                \
            memcpy(&pips, &fhit, sizeof pips);                                               \
            count += weight;                                                                 \
            lost += weight * ((pips >> 23) - 126);                                           \
        }                                                                                    \
        for (int i = 0; i < W; i++) {                                                        \
            c += count[i];                                                                   \
            l += lost[i];                                                                    \
        }                                                                                    \
        *loss = l;                                                                           \
        return c;                                                                            \
    }
    FN_SHOTS_LANES(fn_shots_avx512, "avx512f", 16)
    FN_SHOTS_LANES(fn_shots_avx2, "avx2", 8)
    #endif
    /* put in use the variant of instruction set ``isa`` (NB_BASE, NB_AVX2, NB_AVX512 or
       NB_AVX512VNNI) */
    static void fn_use(int isa) {
        fn_raw48 = 0;
        fn_shots = fn_shots_base;
    #ifdef NB_X86
        if (isa >= NB_AVX512) fn_raw48 = fn_raw48_avx512;
        if (isa == NB_AVX2) fn_raw48 = fn_raw48_avx2;
        if (isa >= NB_AVX512) fn_shots = fn_shots_avx512;
        if (isa == NB_AVX2) fn_shots = fn_shots_avx2;
    #endif
    }
    """
    float RAW15 "fn_raw15"[16]   # float32(n) / float32(15), made below
    void (*fn_raw48)(float* out, uint64_t w0, uint64_t w1, uint64_t w2, uint64_t w3,
                     uint64_t w4, uint64_t w5) noexcept nogil
    void fn_use(int isa) noexcept nogil
    shots_fn fn_shots


cdef mirror_map _maps[2]   # the mirrors seen so far (the two games'), built once each
cdef int _maps_n = 0
cdef list _map_tuples = [None, None]  # the tuple each map was built from, if it was one


cdef int WIDTH[4]
WIDTH[:] = [W_RAW, W_TDGAMMON, W_NARDY, W_SHOTS]

# Every float the features write, made as fastnardy.features defines it (numpy's float64
# division then rounding to float32, except "raw", which divides in float32).
cdef float UNIT_TD[16][4]     # TD-Gammon's point units of a count n: n>=1, n>=2, n>=3, (n-3)/2
cdef float UNIT_NARDY[16][4]  # the same with (n-3)/12
cdef float FIFTEENTH[16]      # n / 15
cdef float HALF[16]           # n / 2
cdef float SIXTH[7]           # min(run, 6) / 6
cdef float PAIR15[256][2]     # RAW15 of the two counts a | b << 4: RAW15[a], RAW15[b]
cdef uint64_t BYTES[256]      # the eight bits of n as eight bytes 0 or 1 (bit j: byte j)
cdef float SHOT36[37]         # rolls / 36
cdef float BACK25[26]         # a back checker's point / 25
cdef float LOSS96[97]         # a pip loss in quarter pips / 96
# the escapes of a checker from each window of the twelve points ahead of it (escapes in
# _features.pxd): bit t set when the point 12 - t ahead is blocked
cdef uint8_t ESCAPES[4096]


cdef void _tables() noexcept:
    cdef int n, j
    for n in range(16):
        UNIT_TD[n][0] = UNIT_NARDY[n][0] = 1.0 if n >= 1 else 0.0
        UNIT_TD[n][1] = UNIT_NARDY[n][1] = 1.0 if n >= 2 else 0.0
        UNIT_TD[n][2] = UNIT_NARDY[n][2] = 1.0 if n >= 3 else 0.0
        UNIT_TD[n][3] = <float>((n - 3) / 2.0 if n > 3 else 0.0)
        UNIT_NARDY[n][3] = <float>((n - 3) / 12.0 if n > 3 else 0.0)
        FIFTEENTH[n] = <float>(n / 15.0)
        HALF[n] = <float>(n / 2.0)
        RAW15[n] = (<float>n) / (<float>15.0)
    for n in range(256):
        PAIR15[n][0] = RAW15[n & 15]
        PAIR15[n][1] = RAW15[n >> 4]
    for n in range(7):
        SIXTH[n] = <float>(n / 6.0)
    for n in range(256):
        BYTES[n] = 0
        for j in range(8):
            BYTES[n] |= (<uint64_t>((n >> j) & 1)) << (8 * j)
    for n in range(37):
        SHOT36[n] = <float>(n / 36.0)
    for n in range(26):
        BACK25[n] = <float>(n / 25.0)
    for n in range(97):
        LOSS96[n] = <float>(n / 96.0)
    for n in range(4096):
        ESCAPES[n] = _escapes(n)


cdef int _escapes(int window) noexcept:
    """The rolls of 36 that carry a checker past the farthest blocked point of ``window``
    (bit 12 - d: the point d pips ahead, d = 1..12, blocked): each die's number, or the
    sum of both over either die's point, or a double's number two to four times over its
    points, landing beyond the block on a point not blocked (more than 12 pips ahead, or
    off the board, is not); 36 without a block."""
    cdef int d, e, k, far = 0, count = 0
    cdef bint ok
    for d in range(1, 13):
        if window >> (12 - d) & 1:
            far = d
    if far == 0:
        return 36
    for d in range(1, 7):
        ok = False
        for k in range(1, 5):
            if _blocked(window, k * d):
                break
            ok = ok or k * d > far
        count += ok
        for e in range(d + 1, 7):
            ok = (not _blocked(window, d) and d > far) or (not _blocked(window, e) and e > far)
            ok = ok or (d + e > far and not _blocked(window, d + e)
                        and not (_blocked(window, d) and _blocked(window, e)))
            count += 2 * ok
    return count


cdef bint _blocked(int window, int distance) noexcept:
    """The point ``distance`` pips ahead is blocked in ``window`` (none past twelve)."""
    return distance <= 12 and (window >> (12 - distance)) & 1


cdef const uint8_t* escape_table() noexcept nogil:
    """The escapes of every window (ESCAPES, made at import), for _nnet."""
    return ESCAPES


cdef shots_fn shots_function() noexcept nogil:
    """The shots count of the instruction set in use (fn_use), for _nnet."""
    return fn_shots


_tables()


cdef inline void raw_row(const int8_t* row, const row_facts* facts, float* out) noexcept nogil:
    cdef int i
    for i in range(50):
        out[i] = (<float>row[i]) / (<float>15.0)   # as RAW15: float32 division
    out[50] = RAW15[15 - facts.count[0]]
    out[51] = RAW15[15 - facts.count[1]]


cdef inline void fifteenths8(uint64_t w, float* out) noexcept nogil:
    """The eight counts (0..15) of a row word, as RAW15, two a lookup."""
    cdef uint64_t pairs = w | (w >> 4)   # byte 2k: count 2k | count 2k + 1 << 4
    cdef int k
    for k in range(4):
        memcpy(out + 2 * k, PAIR15[(pairs >> (16 * k)) & 0xFF], 2 * sizeof(float))


cdef inline int raw_key(uint64_t lo, uint64_t hi, int is_short, float* out) noexcept nogil:
    """The raw features of a key straight from its checked row words, or its faults (no row
    in between: reading a row back in vectors right after writing it in words stalls)."""
    cdef uint64_t w[6]
    cdef int count[2]
    cdef int j, fault = key_checked(lo, hi, is_short, w, count)
    if fault:
        return fault
    if fn_raw48 != NULL:
        fn_raw48(out, w[0], w[1], w[2], w[3], w[4], w[5])
    else:
        for j in range(3):
            fifteenths8(w[j], out + 8 * j)
            fifteenths8(w[3 + j], out + 25 + 8 * j)
    out[24] = RAW15[lo >> 60]
    out[49] = RAW15[hi >> 60]
    out[50] = RAW15[15 - count[0]]
    out[51] = RAW15[15 - count[1]]
    return 0


cdef inline void tdgammon_row(const int8_t* row, const row_facts* facts,
                              float* out) noexcept nogil:
    """The tdgammon features."""
    cdef int side, p
    cdef const int8_t* points
    cdef float* block
    for side in range(2):
        points = row + 25 * side
        block = out + B_TDGAMMON * side
        for p in range(24):
            memcpy(block + U_TDGAMMON * p, UNIT_TD[points[p]], U_TDGAMMON * sizeof(float))
        block[96] = HALF[points[24]]
        block[97] = FIFTEENTH[15 - facts.count[side]]
    out[196] = 1.0
    out[197] = 0.0


cdef inline void nardy_row(const int8_t* row, const row_facts* facts, const mirror_map* m,
                           float* out) noexcept nogil:
    """The nardy features."""
    cdef int side, p, k, j, longest
    cdef uint32_t held, starts, cover
    cdef uint64_t count[3]
    cdef const int8_t* points
    cdef float* block
    for side in range(2):
        points = row + 25 * side
        block = out + B_NARDY * side
        for p in range(24):
            memcpy(block + U_NARDY * p, UNIT_NARDY[points[p]], U_NARDY * sizeof(float))
        block[96] = FIFTEENTH[15 - facts.count[side]]  # no bar in long nardy
        block[97] = FIFTEENTH[points[23]]
        block[98] = 1.0 if points[23] == 15 else 0.0
        # L6 runs on the other side's points r (its numbering): the side holds r when it has
        # a checker on its own point mirror(r). min(run, 6) of each point is the number of
        # k = 1..6 for which it lies in a window of k consecutive held points: those counts
        # are added up eight points a word, without a branch per run
        held = mirrored(m, facts.held[side])
        starts = cover = held
        longest = 1 if held else 0
        for j in range(3):
            count[j] = BYTES[(cover >> (8 * j)) & 0xFF]
        for k in range(1, 6):
            starts &= held >> k  # the first points of windows of k + 1
            if not starts:
                break
            longest += 1
            cover = starts
            for j in range(1, k + 1):
                cover |= starts << j
            for j in range(3):
                count[j] += BYTES[(cover >> (8 * j)) & 0xFF]
        for p in range(24):
            block[100 + p] = SIXTH[(count[p >> 3] >> (8 * (p & 7))) & 0xFF]
        block[99] = SIXTH[longest]


cdef inline void shots_row(const int8_t* row, const row_facts* facts, const mirror_map* m,
                           float* out) noexcept nogil:
    """The shots features: the tdgammon ones, then each side's four contact inputs."""
    cdef uint64_t values
    cdef int s
    tdgammon_row(row, facts, out)
    values = shots_values(m, row, facts.held[0], row + 25, facts.held[1], ESCAPES, fn_shots)
    for s in range(2):
        out[C_SHOTS + 4 * s] = SHOT36[(values >> (32 * s)) & 0xFF]
        out[C_SHOTS + 4 * s + 1] = SHOT36[(values >> (32 * s + 8)) & 0xFF]
        out[C_SHOTS + 4 * s + 2] = BACK25[(values >> (32 * s + 16)) & 0xFF]
        out[C_SHOTS + 4 * s + 3] = LOSS96[(values >> (32 * s + 24)) & 0xFF]


def shots_tables():
    """The values of the shots kind's contact inputs (float32): of a count of rolls
    (0..36), of a back checker's point (0..25) and of a pip loss (0..96 quarter pips), for
    _nnet's table rows."""
    return (np.array([SHOT36[n] for n in range(37)], np.float32),
            np.array([BACK25[n] for n in range(26)], np.float32),
            np.array([LOSS96[n] for n in range(97)], np.float32))


cdef inline void _write(int kind, const mirror_map* m, const int8_t* row,
                        const row_facts* facts, float* out) noexcept nogil:
    """The features of ``kind`` of a well-formed row and its facts."""
    if kind == K_TDGAMMON:
        tdgammon_row(row, facts, out)
    elif kind == K_SHOTS:
        shots_row(row, facts, m, out)
    elif kind == K_NARDY:
        nardy_row(row, facts, m, out)
    else:
        raw_row(row, facts, out)


cdef void features_use_simd(int isa) noexcept nogil:
    """Put in use the raw inputs' lookups of instruction set ``isa`` (an index of
    _nnet.SIMD_NAMES: NB_BASE, NB_AVX2 or NB_AVX512), one this CPU runs: _nnet's choice
    (FASTNARDY_SIMD), made once at its import. The same floats in each."""
    fn_use(isa)


cdef int raise_fault(int faults, int keys) except -1:
    """Raise the InvalidPositionError of the highest-priority fault of a pass."""
    return _raise(faults, keys)


cdef const mirror_map* mirror_of(object mirror) except NULL:
    """The map of a mirror given as 24 columns (built at its first use; a tuple that built a
    map, such as MIRROR_COLUMNS' own, finds it again without a check, since it cannot
    change)."""
    global _maps_n
    cdef int8_t column[24]
    cdef int i, k, v, j
    cdef mirror_map* m
    for i in range(_maps_n):
        if mirror is _map_tuples[i]:
            return &_maps[i]
    table = np.asarray(mirror)
    if table.shape != (24,) or table.dtype.kind not in "iu":
        raise ValueError(f"the mirror is 24 columns, not {table.dtype} {table.shape}")
    for i in range(24):
        v = int(table[i])
        if not 0 <= v < 24:
            raise ValueError(f"the mirror is 24 columns 0..23, not {v}")
        column[i] = <int8_t>v
    for i in range(_maps_n):
        if memcmp(_maps[i].column, column, 24) == 0:
            if type(mirror) is tuple:
                _map_tuples[i] = mirror
            return &_maps[i]
    if _maps_n == 2:
        raise ValueError("fastnardy._features knows two mirrors, the two games'")
    m = &_maps[_maps_n]
    memcpy(m.column, column, 24)
    for k in range(3):
        for v in range(256):
            m.bits[k][v] = 0
            for j in range(8):
                if v >> j & 1:
                    m.bits[k][v] |= (<uint32_t>1) << column[8 * k + j]
    for v in range(24):  # the lowest mirror of points 0..v
        m.reach[v] = <int8_t>nb_ctz(mirrored(m, ((<uint32_t>2) << v) - 1))
    if type(mirror) is tuple:
        _map_tuples[_maps_n] = mirror
    _maps_n += 1
    return m


cdef object keys_array(object array):
    """A 1-D KEY_DTYPE array, C-contiguous: its data is each key's lo and hi words."""
    if array.dtype != KEY_DTYPE or array.ndim != 1:
        raise InvalidPositionError(f"keys must be a 1-D array of dtype {KEY_DTYPE}, "
                                   f"not {array.dtype} {array.shape}")
    return np.ascontiguousarray(array)


cdef object rows_array(object array):
    """(N, 50) integer rows as a C-contiguous int8 array. Counts are checked in the compiled
    pass for int8 and uint8 (a uint8 above 127 reads as negative); wider integers are
    range-checked here first, so that the narrowing cannot wrap."""
    if array.ndim != 2 or array.shape[1] != 50 or array.dtype.kind not in "iu":
        raise InvalidPositionError(
            f"boards must be an integer array of shape (N, 50) or a 1-D array of "
            f"packed keys, not {array.dtype} {array.shape}")
    if array.dtype.itemsize == 1:
        return np.ascontiguousarray(array).view(np.int8)
    if array.size and (array.min() < 0 or array.max() > 15):
        _raise(E_RANGE, 0)
    return np.ascontiguousarray(array, dtype=np.int8)


cdef int _raise(int faults, int keys) except -1:
    """Raise the InvalidPositionError of the highest-priority fault."""
    what = "key" if keys else "row"
    if faults & E_RANGE:
        raise InvalidPositionError("board counts must be from 0 to 15")
    if faults & E_FIELD:
        raise InvalidPositionError("a key field is 31, which encodes nothing")
    if faults & E_COUNT:
        raise InvalidPositionError(f"a {what} holds more than 15 checkers of a side (T7)")
    if faults & E_BAR:
        raise InvalidPositionError(f"long nardy has no bar (L3), but a {what} has bar checkers")
    raise InvalidPositionError("a row has a point holding checkers of both sides (T7)")


def features(int kind, int is_short, object boards, object mirror):
    """The (N, F) float32 inputs of ``kind`` (0 raw, 1 tdgammon, 2 nardy, 3 shots) for board
    rows or packed keys, mover's view; ``mirror`` is the game's MIRROR_COLUMNS. The kind and
    game are the caller's to check."""
    cdef const mirror_map* mir
    cdef row_facts facts
    cdef int8_t scratch[50]
    cdef const int8_t* row
    cdef const int8_t* rows = NULL
    cdef const uint64_t* keys = NULL
    cdef float* out
    cdef Py_ssize_t i, n
    cdef int width, faults = 0, fault
    if kind < K_RAW or kind > K_SHOTS:
        raise ValueError(f"kind must be 0, 1, 2 or 3, not {kind}")
    width = WIDTH[kind]
    mir = mirror_of(mirror)
    array = as_array(boards, "boards", InvalidPositionError)
    if array.dtype.names is not None:
        array = keys_array(array)
        n = array.shape[0]
        if n:
            keys = <const uint64_t*>_data(array)
    else:
        array = rows_array(array)
        n = array.shape[0]
        if n:
            rows = <const int8_t*>_data(array)
    result = np.empty((n, width), dtype=np.float32)
    if n == 0:
        return result
    out = <float*>_data(result)
    with nogil:
        for i in range(n):
            if keys != NULL and kind == K_RAW:
                faults |= raw_key(keys[2 * i], keys[2 * i + 1], is_short, out + width * i)
                continue
            if keys != NULL:
                fault = key_row(keys[2 * i], keys[2 * i + 1], is_short, scratch, &facts)
                row = scratch
            else:
                row = rows + 50 * i
                fault = row_faults(row, mir, is_short, &facts)
            if fault:
                faults |= fault
                continue
            if faults:
                continue  # the call raises: only the remaining faults matter
            _write(kind, mir, row, &facts, out + width * i)
    if faults:
        _raise(faults, keys != NULL)
    return result


def rows_of_keys(int is_short, object keys):
    """Board rows (N, 50) int8 of a 1-D KEY_DTYPE array, every key checked."""
    cdef const uint64_t* data
    cdef int8_t* out
    cdef row_facts facts
    cdef Py_ssize_t i, n
    cdef int faults = 0
    array = keys_array(as_array(keys, "keys", InvalidPositionError))
    n = array.shape[0]
    result = np.empty((n, 50), dtype=np.int8)
    if n == 0:
        return result
    data = <const uint64_t*>_data(array)
    out = <int8_t*>_data(result)
    with nogil:
        for i in range(n):
            faults |= key_row(data[2 * i], data[2 * i + 1], is_short, out + 50 * i, &facts)
    if faults:
        _raise(faults, 1)
    return result


cdef object _pack(int is_short, object rows, object mirror, int entries):
    """The keys of board rows, every row checked as :func:`features` checks it, packed by
    the kernel's builder: as a KEY_DTYPE array, or (entries) as the bytes of an nb_entry
    array (_kernel.pxd's turn result: the key, no steps)."""
    cdef const mirror_map* mir
    cdef row_facts facts
    cdef const int8_t* data
    cdef const int8_t* row
    cdef uint64_t* key
    cdef char* out
    cdef nb_board b
    cdef Py_ssize_t i, n, width = sizeof(nb_entry) if entries else 16
    cdef int faults = 0, fault
    mir = mirror_of(mirror)
    array = rows_array(as_array(rows, "rows", InvalidPositionError))
    n = array.shape[0]
    result = (np.zeros(n * width, dtype=np.uint8) if entries
              else np.empty(n, dtype=KEY_DTYPE))
    if n == 0:
        return result.tobytes() if entries else result
    data = <const int8_t*>_data(array)
    out = <char*>_data(result)
    with nogil:
        for i in range(n):
            row = data + 50 * i
            fault = row_faults(row, mir, is_short, &facts)
            if fault:
                faults |= fault
                continue
            nb_build(row, row[24], row + 25, row[49], is_short, &b)
            key = <uint64_t*>(out + width * i)  # lo and hi lead an nb_entry too
            key[0] = b.lo
            key[1] = b.hi
    if faults:
        _raise(faults, 0)
    return result.tobytes() if entries else result


def keys_of_rows(int is_short, object rows, object mirror):
    """The packed keys (1-D KEY_DTYPE) of (N, 50) board rows, every row checked as
    :func:`features` checks it (the kernel's builder packs them)."""
    return _pack(is_short, rows, mirror, 0)


def entries_of_rows(int is_short, object rows, object mirror):
    """The keys of (N, 50) board rows, checked, as the bytes of the kernel's turn entries
    (``nb_entry`` of _kernel.pxd, no steps): what ``_kernel._positions_after`` reads."""
    return _pack(is_short, rows, mirror, 1)


def winners(object rows):
    """L9/S9 on (N, 50) int8 C-contiguous board rows (already checked): int8 array of N,
    1 where the side to move has no checker left (it has won), -1 where the opponent has
    none, 0 while the game goes on."""
    cdef const int8_t* data
    cdef int8_t* out
    cdef Py_ssize_t i, n
    cdef int j, mover, opponent
    if not (isinstance(rows, np.ndarray) and rows.dtype == np.int8 and rows.ndim == 2
            and rows.shape[1] == 50 and rows.flags.c_contiguous):
        raise ValueError("winners takes C-contiguous (N, 50) int8 rows")
    n = rows.shape[0]
    result = np.zeros(n, dtype=np.int8)
    if n == 0:
        return result
    data = <const int8_t*>_data(rows)
    out = <int8_t*>_data(result)
    with nogil:
        for i in range(n):
            mover = 0
            opponent = 0
            for j in range(25):
                mover |= data[50 * i + j]
                opponent |= data[50 * i + 25 + j]
            out[i] = 1 if mover == 0 else -1 if opponent == 0 else 0
    return result


def held_masks(object rows, object mirror):
    """For (N, 50) board rows already checked: an (N, 6) int64 array, per row the mover's and
    the opponent's held points as bits of their own numbering (bit p - 1: point p), then as
    bits of the other side's numbering (the path L6 counts runs on), then their checker
    counts (board and bar)."""
    cdef const mirror_map* mir = mirror_of(mirror)
    cdef row_facts facts
    cdef const int8_t* data
    cdef int64_t* out
    cdef Py_ssize_t i, n
    cdef int side
    array = rows_array(as_array(rows, "rows", InvalidPositionError))
    n = array.shape[0]
    result = np.zeros((n, 6), dtype=np.int64)
    if n == 0:
        return result
    data = <const int8_t*>_data(array)
    out = <int64_t*>_data(result)
    with nogil:
        for i in range(n):
            if row_faults(data + 50 * i, mir, 0, &facts) & E_RANGE:
                continue  # not a row (the caller checked them): zeros
            for side in range(2):
                out[6 * i + side] = facts.held[side]
                out[6 * i + 2 + side] = mirrored(mir, facts.held[side])
                out[6 * i + 4 + side] = facts.count[side]
    return result


cdef bint features_contact(int kind, const float* x, const mirror_map* m) noexcept nogil:
    """in_contact read off a feature row of ``kind``: point p of a side held where its
    first point unit (or raw count) is not 0, a bar checker where the bar's input is not 0
    (none in the nardy kind)."""
    cdef uint32_t held[2]
    cdef int side, p, bars = 0
    cdef bint td = kind == K_TDGAMMON or kind == K_SHOTS  # the tdgammon columns first
    cdef int units = U_TDGAMMON if td else U_NARDY if kind == K_NARDY else U_RAW
    cdef int block = B_TDGAMMON if td else B_NARDY if kind == K_NARDY else B_RAW
    for side in range(2):
        held[side] = 0
        for p in range(24):
            if x[block * side + units * p] != 0:
                held[side] |= (<uint32_t>1) << p
        if td:
            bars |= x[block * side + 96] != 0
        elif kind == K_RAW:
            bars |= x[block * side + 24] != 0
    return in_contact(m, held[0], held[1], bars)


cdef inline int _td_count(const float* units) noexcept nogil:
    """A point's count from its four TD-Gammon units (UNIT_TD)."""
    return <int>(units[0] + units[1] + units[2] + 2.0 * units[3] + 0.5)


cdef bint features_crashed(const float* x) noexcept nogil:
    """in_crashed read off a feature row with the tdgammon columns (tdgammon, shots): each
    side's checkers in play from its borne-off input (FIFTEENTH), its 1 and 2 points' counts
    from their units."""
    cdef int side, count
    cdef const float* block
    for side in range(2):
        block = x + B_TDGAMMON * side
        count = 15 - <int>(block[97] * 15.0 + 0.5)
        if crashed_side(count, _td_count(block), _td_count(block + U_TDGAMMON)):
            return 1
    return 0


cdef enum:  # a board's class for the networks (classes), its index into CLASSES
    CLASS_CONTACT = 0
    CLASS_RACE = 1
    CLASS_CRASHED = 2
CLASSES = ("contact", "race", "crashed")


def classes(bint is_short, object rows, object mirror):
    """For (N, 50) board rows of the game of ``mirror`` (its MIRROR_COLUMNS): an int8 array
    of N, each row's class for the networks as its index into CLASSES: contact, a race
    (in_contact false), in short nardy a crashed board in contact (in_crashed); rows checked
    as features checks them."""
    cdef const mirror_map* mir = mirror_of(mirror)
    cdef row_facts facts
    cdef const int8_t* row
    cdef int8_t* out
    cdef Py_ssize_t i, n
    cdef int faults = 0
    array = rows_array(as_array(rows, "rows", InvalidPositionError))
    n = array.shape[0]
    result = np.zeros(n, dtype=np.int8)
    if n == 0:
        return result
    row = <const int8_t*>_data(array)
    out = <int8_t*>_data(result)
    with nogil:
        for i in range(n):
            faults |= row_faults(row, mir, is_short, &facts)
            if faults:
                break
            if not in_contact(mir, facts.held[0], facts.held[1], row[24] | row[49]):
                out[i] = CLASS_RACE
            elif is_short and in_crashed(row, &facts):
                out[i] = CLASS_CRASHED
            row += 50
    if faults:
        raise_fault(faults, 0)
    return result
