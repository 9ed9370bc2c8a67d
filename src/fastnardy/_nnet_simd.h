/* fastnardy._nnet's arithmetic, included by _nnet.pyx once per instruction set, with
   NN_W the lanes of one of its float vectors (16 AVX-512, 8 AVX2, 4 SSE2 or NEON), NN_ISA
   the suffix of the names defined here, NN_TARGET the attribute of its functions and
   NN_VNNI set where AVX-512's dot products may be used (the int16 output sums).

   The hidden units are taken in blocks of sixteen: unit h is lane h mod 16 of block h / 16.
   Whatever NN_W, every unit's first-layer sum, its sigmoid, and every lane's share of each
   output (summed block after block) are the same operations in the same order, and the
   sixteen lanes are added in one tree at the end: the same floats on every CPU. A block is
   16 / NN_W native vectors (a vector wider than the CPU's registers would be lowered by
   the compiler to memory and back: four times slower under AVX2). */

#define NN_CAT2(a, b) nn_##a##_##b
#define NN_CAT(a, b) NN_CAT2(a, b)
#define NN_(name) NN_CAT(name, NN_ISA)
#define NN_P (16 / NN_W)  /* native vectors a block */

typedef float NN_(vec) __attribute__((vector_size(4 * NN_W)));
typedef int32_t NN_(veci) __attribute__((vector_size(4 * NN_W)));
#define NN_VEC NN_(vec)
#define NN_VECI NN_(veci)

NN_TARGET NN_INLINE NN_VEC NN_(load)(const float* p) {
    NN_VEC v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* exp(-x) lane by lane in base 2: -x / ln 2 = n + g, n an integer and |g| <= 1/2; 2^g by a
   polynomial of degree 5 (fitted to it on [-1/2, 1/2]: relative error under 1e-7), 2^n
   added to its exponent bits. n is rounded by adding 1.5 * 2^23: the sum's bits are n plus
   those of 1.5 * 2^23, whose low nine bits are 0, so the sum's bits shifted left by 23 are
   n's in the exponent field. -x / ln 2 is clamped to [-125, 127], where a sigmoid is 1 or
   0 in float32 anyway. Rounding x / ln 2 costs exp up to 62 ulp at |x| = 80, yet the
   sigmoid below stays within 1e-7 of the exact one: where x is large it is flat. The
   clamp is a comparison and a select (a blend under AVX-512, masks elsewhere). */
NN_TARGET NN_INLINE NN_VEC NN_(exp_neg)(NN_VEC x) {
    const NN_VEC zero = {0}, lo = zero - 125.0f, hi = zero + 127.0f;
    NN_VEC u = x * -1.44269504088896341f;
    NN_VECI m = u < lo;
    u = (NN_VEC)((m & (NN_VECI)lo) | (~m & (NN_VECI)u));
    m = u > hi;
    u = (NN_VEC)((m & (NN_VECI)hi) | (~m & (NN_VECI)u));
    NN_VEC t = u + 12582912.0f;
    NN_VEC g = u - (t - 12582912.0f);
    NN_VEC p = g * 1.326472689897156e-3f + 9.671512660557956e-3f;
    p = p * g + 5.550733744244639e-2f;
    p = p * g + 2.4022242084919349e-1f;
    p = p * g + 6.931469775984708e-1f;
    p = p * g + 1.0f;
    return (NN_VEC)((NN_VECI)p + ((NN_VECI)t << 23));
}

NN_TARGET NN_INLINE NN_VEC NN_(sigmoid)(NN_VEC x) {
    return 1.0f / (1.0f + NN_(exp_neg)(x));
}

/* K first-layer sums, of the NN_W units from h + 16 k (k < K), into acc: the partial sums
   ``base``, plus the weight rows of the inputs that are 1 (``ones``), plus value times row
   for the others (``rows``, ``values``). K independent chains of adds hide each add's
   latency; each unit's sum is taken in the same order whatever K. */
NN_TARGET NN_INLINE void NN_(sums)(const int K, int h, const float* base,
                                   const float* const* ones, int n_ones,
                                   const float* const* rows, const float* values,
                                   int n_rows, NN_VEC* acc) {
    for (int k = 0; k < K; k++) acc[k] = NN_(load)(base + h + 16 * k);
    for (int i = 0; i < n_ones; i++) {
        const float* row = ones[i] + h;
        for (int k = 0; k < K; k++) acc[k] += NN_(load)(row + 16 * k);
    }
    for (int i = 0; i < n_rows; i++) {
        const float* row = rows[i] + h;
        for (int k = 0; k < K; k++) acc[k] += values[i] * NN_(load)(row + 16 * k);
    }
}

/* A vector of hidden sums' sigmoid, and its share of the five outputs' lane sums ``o``
   (w2t: the output weights, one row of ``stride`` per output) */
NN_TARGET NN_INLINE void NN_(out)(NN_VEC* o, NN_VEC acc, const float* w2t, int stride,
                                  int h) {
    NN_VEC unit = NN_(sigmoid)(acc);
    for (int j = 0; j < 5; j++) o[j] += unit * NN_(load)(w2t + j * stride + h);
}

/* The five outputs from their sixteen lane sums each (lanes[16 j + l]): each one's lanes
   added as a tree, plus the bias b2, into x[first + j] */
NN_TARGET NN_INLINE void NN_(totals)(const float* lanes, const float* b2, float* x,
                                     int first) {
    for (int j = 0; j < 5; j++) {
        const float* v = lanes + 16 * j;
        float half[8];
        for (int i = 0; i < 8; i++) half[i] = v[i] + v[i + 8];
        x[first + j] = ((half[0] + half[1]) + (half[2] + half[3]))
                       + ((half[4] + half[5]) + (half[6] + half[7])) + b2[j];
    }
}

/* The outputs' sums x[0..4] written to out_a and, if not NULL, x[8..12] to out_b */
NN_INLINE void NN_(emit)(const float* x, float* out_a, float* out_b) {
    memcpy(out_a, x, 5 * sizeof(float));
    if (out_b) memcpy(out_b, x + 8, 5 * sizeof(float));
}

/* The sigmoid of each of the n floats at x, in place: the outputs' probabilities from
   their sums (kept apart from the sums so that a caller squashes many at once, a chain of
   dependent operations each vector, without waiting on each board's). */
NN_TARGET static void NN_(sigmoids)(float* x, ptrdiff_t n) {
    ptrdiff_t i = 0;
    for (; i + NN_W <= n; i += NN_W) {
        NN_VEC v = NN_(sigmoid)(NN_(load)(x + i));
        memcpy(x + i, &v, sizeof v);
    }
    if (i < n) {
        float tail[NN_W] = {0};
        memcpy(tail, x + i, (size_t)(n - i) * sizeof(float));
        NN_VEC v = NN_(sigmoid)(NN_(load)(tail));
        memcpy(x + i, &v, (size_t)(n - i) * sizeof(float));
    }
}

/* The first layer's partial sums of one position: the bias plus the weight rows of the
   inputs at 1 in ``ones``, written to ``base``. */
NN_TARGET static void NN_(first)(int stride, const float* b1, const float* const* ones,
                                 int n_ones, float* base) {
    NN_VEC acc[4];
    for (int p = 0; p < NN_P; p++) {
        int h = NN_W * p;
        for (; h + 48 < stride; h += 64) {
            NN_(sums)(4, h, b1, ones, n_ones, (const float* const*)0, (const float*)0, 0,
                      acc);
            for (int k = 0; k < 4; k++) memcpy(base + h + 16 * k, acc + k, sizeof acc[k]);
        }
        for (; h < stride; h += 16) {
            NN_(sums)(1, h, b1, ones, n_ones, (const float* const*)0, (const float*)0, 0,
                      acc);
            memcpy(base + h, acc, sizeof acc[0]);
        }
    }
}

/* The five outputs' sums: the hidden sums (sums from the partial sums ``base``), the
   sigmoid, each unit's share of each output, block by block in order, then the outputs'
   bias ``b2`` (their sigmoid is NN_(sigmoids), the caller's). ``stride``: the hidden units
   rounded up to 16 (padded units have zero weights out). */
NN_TARGET static void NN_(forward)(int stride, const float* base, const float* const* ones,
                                   int n_ones, const float* const* rows, const float* values,
                                   int n_rows, const float* w2t, const float* b2,
                                   float* out) {
    float lanes[80], x[16] = {0};
    NN_VEC acc[4];
    for (int p = 0; p < NN_P; p++) {
        NN_VEC o[5] = {{0}, {0}, {0}, {0}, {0}};
        int h = NN_W * p;
        for (; h + 48 < stride; h += 64) {
            NN_(sums)(4, h, base, ones, n_ones, rows, values, n_rows, acc);
            for (int k = 0; k < 4; k++) NN_(out)(o, acc[k], w2t, stride, h + 16 * k);
        }
        for (; h < stride; h += 16) {
            NN_(sums)(1, h, base, ones, n_ones, rows, values, n_rows, acc);
            NN_(out)(o, acc[0], w2t, stride, h);
        }
        for (int j = 0; j < 5; j++) memcpy(lanes + 16 * j + NN_W * p, o + j, sizeof o[j]);
    }
    NN_(totals)(lanes, b2, x, 0);
    NN_(emit)(x, out, (float*)0);
}

/* forward of two boards a and b from their partial sums, without ``rows``, interleaved so
   that each one's chains of dependent operations (the sigmoids, the outputs' sums) fill
   the other's waits: the same operations per board as forward, so the same floats. */
NN_TARGET static void NN_(forward2)(int stride, const float* base_a,
                                    const float* const* ones_a, int n_a,
                                    const float* base_b, const float* const* ones_b,
                                    int n_b, const float* w2t, const float* b2,
                                    float* out_a, float* out_b) {
    float lanes_a[80], lanes_b[80], x[16] = {0};
    NN_VEC acc_a[2], acc_b[2];
    for (int p = 0; p < NN_P; p++) {
        NN_VEC oa[5] = {{0}, {0}, {0}, {0}, {0}}, ob[5] = {{0}, {0}, {0}, {0}, {0}};
        int h = NN_W * p;
        for (; h + 16 < stride; h += 32) {
            NN_(sums)(2, h, base_a, ones_a, n_a, (const float* const*)0, (const float*)0, 0,
                      acc_a);
            NN_(sums)(2, h, base_b, ones_b, n_b, (const float* const*)0, (const float*)0, 0,
                      acc_b);
            for (int k = 0; k < 2; k++) {
                NN_(out)(oa, acc_a[k], w2t, stride, h + 16 * k);
                NN_(out)(ob, acc_b[k], w2t, stride, h + 16 * k);
            }
        }
        if (h < stride) {
            NN_(sums)(1, h, base_a, ones_a, n_a, (const float* const*)0, (const float*)0, 0,
                      acc_a);
            NN_(sums)(1, h, base_b, ones_b, n_b, (const float* const*)0, (const float*)0, 0,
                      acc_b);
            NN_(out)(oa, acc_a[0], w2t, stride, h);
            NN_(out)(ob, acc_b[0], w2t, stride, h);
        }
        for (int j = 0; j < 5; j++) {
            memcpy(lanes_a + 16 * j + NN_W * p, oa + j, sizeof oa[j]);
            memcpy(lanes_b + 16 * j + NN_W * p, ob + j, sizeof ob[j]);
        }
    }
    NN_(totals)(lanes_a, b2, x, 0);
    NN_(totals)(lanes_b, b2, x, 8);
    NN_(emit)(x, out_a, out_b);
}


/* The table rows of the points in ``points`` (a set of 24 bits, each point's count in
   ``side`` not 0), in point order, into ``ones`` (up to 8 slots past them may be written
   over): the row of point p and count c is at first + (16 p + c) row_bytes. Returns their
   number. */
NN_TARGET static int NN_(point_rows)(const char* first, ptrdiff_t row_bytes,
                                     const int8_t* side, uint32_t points, const void** ones) {
    int n = 0;
#if NN_W == 16
    const __m512i step = _mm512_set1_epi64((long long)row_bytes);
    __m512i at = _mm512_add_epi64(_mm512_set1_epi64((long long)(intptr_t)first),
                                  _mm512_mul_epu32(_mm512_set_epi64(112, 96, 80, 64, 48, 32,
                                                                    16, 0), step));
    for (int k = 0; k < 3; k++) {  /* eight points at a time, the addresses compressed */
        long long word;
        memcpy(&word, side + 8 * k, 8);
        __m512i c = _mm512_cvtepu8_epi64(_mm_cvtsi64_si128(word));
        __mmask8 m = (__mmask8)(points >> (8 * k));
        _mm512_storeu_si512((void*)(ones + n), _mm512_maskz_compress_epi64(
            m, _mm512_add_epi64(at, _mm512_mul_epu32(c, step))));
        n += __builtin_popcount(m);
        at = _mm512_add_epi64(at, _mm512_set1_epi64(128 * (long long)row_bytes));
    }
#else
    for (; points; points &= points - 1) {
        int p = __builtin_ctz(points);
        ones[n++] = first + (16 * p + side[p]) * row_bytes;
    }
#endif
    return n;
}

/* The table rows of the runs of ``path`` (a set of 24 points, L6's runs: their first points
   and their lengths, in order), into ``ones`` (16 slots written over): the row of the run
   from point p of length l is at first + (16 p + l) row_bytes. Returns their number, the
   longest run's length in ``longest`` (0 without one). */
NN_TARGET static int NN_(run_rows)(const char* first, ptrdiff_t row_bytes, uint32_t path,
                                   const void** ones, int* longest) {
    uint32_t starts = path & ~(path << 1), ends = path & ~(path >> 1);  /* k-th: one run's */
    int n = __builtin_popcount(starts);
#if NN_W == 16
    const __m512i ramp = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    const __m512i ramp16 = _mm512_add_epi32(ramp, _mm512_set1_epi32(16));
    const __m512i step = _mm512_set1_epi64((long long)row_bytes);
    const __m512i at = _mm512_set1_epi64((long long)(intptr_t)first);
    /* the points of each set in order, its points 16 to 23 after those below 16 */
    int s_lo = __builtin_popcount(starts & 0xffff), e_lo = __builtin_popcount(ends & 0xffff);
    __m512i from = _mm512_mask_expand_epi32(
        _mm512_maskz_compress_epi32((__mmask16)starts, ramp),
        (__mmask16)(((1u << (n - s_lo)) - 1) << s_lo),
        _mm512_maskz_compress_epi32((__mmask16)(starts >> 16), ramp16));
    __m512i to = _mm512_mask_expand_epi32(
        _mm512_maskz_compress_epi32((__mmask16)ends, ramp),
        (__mmask16)(((1u << (n - e_lo)) - 1) << e_lo),
        _mm512_maskz_compress_epi32((__mmask16)(ends >> 16), ramp16));
    __m512i length = _mm512_sub_epi32(_mm512_add_epi32(to, _mm512_set1_epi32(1)), from);
    __m512i row = _mm512_add_epi32(_mm512_slli_epi32(from, 4), length);
    _mm512_storeu_si512((void*)ones, _mm512_add_epi64(at, _mm512_mul_epu32(
        _mm512_cvtepu32_epi64(_mm512_castsi512_si256(row)), step)));
    _mm512_storeu_si512((void*)(ones + 8), _mm512_add_epi64(at, _mm512_mul_epu32(
        _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(row, 1)), step)));
    *longest = n ? _mm512_mask_reduce_max_epi32((__mmask16)((1u << n) - 1), length) : 0;
#else
    int most = 0;
    for (int k = 0; k < n; k++) {
        int p = __builtin_ctz(starts), l = __builtin_ctz(ends) - p + 1;
        starts &= starts - 1;
        ends &= ends - 1;
        ones[k] = first + (16 * p + l) * row_bytes;
        most = l > most ? l : most;
    }
    *longest = most;
#endif
    return n;
}

/* The integer network (Network(..., arithmetic="int16")): each unit's first-layer sum is an
   int16, at its own scale 2^k (k <= 10, chosen so that no board's sum can leave int16): the
   bias plus int16 table rows, added modulo 2^16, so in any order, incrementally or in full,
   the same integer. Then, exactly on every CPU: clamped to +-16383 / 2^(10 - k) and
   multiplied by 2^(10 - k) (x, in units of 1/1024, |x| < 16); the sigmoid less 1/2 in Q15
   by a cubic on each half unit of |x| (NN_SIG, in _nnet.pyx: within 7e-5 of the exact
   one), u in [-16383, 16383]; the outputs' sums of u times int16 weight (|w| <= NN_QW: a
   block of NN_QBLOCK units sums in int32 lanes), plus ``offset`` (each output's weights
   times 16384, the sigmoid's 1/2), exact in double (far below 2^53). n: the units rounded
   up to 32, the length of every int16 row. */

/* Q15 product rounded, as pmulhrsw: (a b + 2^14) >> 15 */
NN_INLINE int32_t NN_(mulhrs)(int32_t a, int32_t b) { return (a * b + 0x4000) >> 15; }

/* The sigmoid of x (1/1024 units, |x| <= 16383) less 1/2, in Q15: -16383 to 16383. The
   cubics are 0 to 16384 on every |x| (tests/test_nnet.py tries each), so only the top is
   clamped. */
NN_INLINE int32_t NN_(qsigmoid)(int32_t x) {
    int32_t ax = x < 0 ? -x : x, s = ax >> 9, t = (ax & 511) << 6;
    int32_t y = NN_SIG[2][s] + NN_(mulhrs)(t, NN_SIG[3][s]);
    y = NN_SIG[1][s] + NN_(mulhrs)(t, y);
    y = NN_SIG[0][s] + NN_(mulhrs)(t, y);
    y = y > 16383 ? 16383 : y;
    return x < 0 ? -y : y;
}

/* The first layer's partial sums of one side: the bias plus the rows at 1. */
NN_TARGET static void NN_(qfirst)(int n, const int16_t* bias, const int16_t* const* ones,
                                  int n_ones, int16_t* base) {
#if NN_W == 16
    for (int h = 0; h < n; h += 32) {
        __m512i acc = _mm512_loadu_si512(bias + h);
        for (int i = 0; i < n_ones; i++)
            acc = _mm512_add_epi16(acc, _mm512_loadu_si512(
                ones[i] + h));
        _mm512_storeu_si512(base + h, acc);
    }
#else
    uint16_t acc[NN_QMAX];
    memcpy(acc, bias, 2 * (size_t)n);
    for (int i = 0; i < n_ones; i++) {
        const uint16_t* row = (const uint16_t*)ones[i];
        for (int h = 0; h < n; h++) acc[h] = (uint16_t)(acc[h] + row[h]);
    }
    memcpy(base, acc, 2 * (size_t)n);
#endif
}

#if NN_W == 16
/* 32 units' sigmoids (NN_(qsigmoid)) of the clamped, scaled sums given by their sizes ax
   and signs (``negative``): the cubic's coefficients picked by vpermw, the products by
   vpmulhrsw: the same integers. */
NN_TARGET NN_INLINE __m512i NN_(qsigmoid32)(__m512i ax, __mmask32 negative) {
    __m512i s = _mm512_srli_epi16(ax, 9);
    __m512i t = _mm512_slli_epi16(_mm512_and_si512(ax, _mm512_set1_epi16(511)), 6);
    __m512i y = _mm512_add_epi16(_mm512_permutexvar_epi16(s, _mm512_loadu_si512(NN_SIG[2])),
                                 _mm512_mulhrs_epi16(t, _mm512_permutexvar_epi16(
                                     s, _mm512_loadu_si512(NN_SIG[3]))));
    y = _mm512_add_epi16(_mm512_permutexvar_epi16(s, _mm512_loadu_si512(NN_SIG[1])),
                         _mm512_mulhrs_epi16(t, y));
    y = _mm512_add_epi16(_mm512_permutexvar_epi16(s, _mm512_loadu_si512(NN_SIG[0])),
                         _mm512_mulhrs_epi16(t, y));
    y = _mm512_min_epi16(y, _mm512_set1_epi16(16383));
    return _mm512_mask_sub_epi16(y, negative, _mm512_setzero_si512(), y);
}

/* acc plus the products of u and w, the int16 lanes' pairs added, in int32 lanes: one
   dot-product instruction under AVX-512 VNNI (NN_VNNI), else a multiply-add and an add;
   the same integers (no lane can overflow, NN_QBLOCK). */
#ifdef NN_VNNI
#define NN_QDOT(acc, u, w) _mm512_dpwssd_epi32(acc, u, w)
#else
#define NN_QDOT(acc, u, w) _mm512_add_epi32(acc, _mm512_madd_epi16(u, w))
#endif

/* The sums of K x 32 units, from unit h, of board x into acc[0..K-1] (each row's address
   loaded once for the K vectors), modulo 2^16. */
NN_TARGET NN_INLINE void NN_(qsums_of)(const int K, int h, const nn_qboard* x, __m512i* acc) {
    for (int k = 0; k < K; k++) acc[k] = _mm512_loadu_si512(x->base + h + 32 * k);
    for (int i = 0; i < x->n_ones; i++) {
        const int16_t* row = x->ones[i] + h;
        for (int k = 0; k < K; k++)
            acc[k] = _mm512_add_epi16(acc[k], _mm512_loadu_si512(row + 32 * k));
    }
    for (int i = 0; i < x->n_subs; i++) {
        const int16_t* row = x->subs[i] + h;
        for (int k = 0; k < K; k++)
            acc[k] = _mm512_sub_epi16(acc[k], _mm512_loadu_si512(row + 32 * k));
    }
}

/* 32 units' sigmoids (qsigmoid32), from unit h, of their sums ``acc``, clamped (``lim``) and
   scaled (``mul``). */
NN_TARGET NN_INLINE __m512i NN_(qsquash)(int h, __m512i acc, const int16_t* lim,
                                         const int16_t* mul) {
    /* |clamped sum| x mul = min(|sum|, lim) x mul (unsigned: |-32768| is 32768) */
    __mmask32 negative = _mm512_cmplt_epi16_mask(acc, _mm512_setzero_si512());
    __m512i size = _mm512_min_epu16(_mm512_abs_epi16(acc), _mm512_loadu_si512(lim + h));
    return NN_(qsigmoid32)(_mm512_mullo_epi16(size, _mm512_loadu_si512(mul + h)), negative);
}

/* The five outputs' int32 lanes of a block (NN_QBLOCK units, or the last ones) as eight
   double lanes each (exact integers): into sums[j], or added to it (``add``: a block after
   the first). */
NN_TARGET NN_INLINE void NN_(qspill)(const __m512i* block, __m512d* sums, int add) {
    for (int j = 0; j < 5; j++) {
        __m512d lanes = _mm512_add_pd(
            _mm512_cvtepi32_pd(_mm512_castsi512_si256(block[j])),
            _mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(block[j], 1)));
        sums[j] = add ? _mm512_add_pd(sums[j], lanes) : lanes;
    }
}

/* K x 32 units of board a, and of board b if not NULL, from unit h (qsums_of, qsquash):
   their products with the output weights (``w2t``: one row of n an output) added to
   block_a and block_b; the two boards' chains of dependent operations fill each other's
   waits. */
NN_TARGET NN_INLINE void NN_(qtile)(const int K, int h, int n, const nn_qboard* a,
                                    const nn_qboard* b, const int16_t* lim, const int16_t* mul,
                                    const int16_t* w2t, __m512i* block_a, __m512i* block_b) {
    __m512i acc_a[NN_QTILE], acc_b[NN_QTILE];
    NN_(qsums_of)(K, h, a, acc_a);
    if (b) NN_(qsums_of)(K, h, b, acc_b);
    for (int k = 0; k < K; k++) {
        __m512i unit_a = NN_(qsquash)(h + 32 * k, acc_a[k], lim, mul);
        __m512i unit_b = b ? NN_(qsquash)(h + 32 * k, acc_b[k], lim, mul) : unit_a;
        for (int j = 0; j < 5; j++) {
            __m512i w = _mm512_loadu_si512(w2t + j * n + h + 32 * k);
            block_a[j] = NN_QDOT(block_a[j], unit_a, w);
            if (b) block_b[j] = NN_QDOT(block_b[j], unit_b, w);
        }
    }
}

/* The int32 lanes (block_a[j], and block_b[j] if b) of the units first to last - 1 (a
   block), in tiles of up to NN_QTILE x 32 units. */
NN_TARGET NN_INLINE void NN_(qblock)(int first, int last, int n, const nn_qboard* a,
                                     const nn_qboard* b, const int16_t* lim,
                                     const int16_t* mul, const int16_t* w2t,
                                     __m512i* block_a, __m512i* block_b) {
    for (int j = 0; j < 5; j++) block_a[j] = block_b[j] = _mm512_setzero_si512();
    for (int h = first; h < last;) {
        int k = (last - h) / 32;
        k = k < NN_QTILE ? k : NN_QTILE;
#define NN_TILE(K) case K: NN_(qtile)(K, h, n, a, b, lim, mul, w2t, block_a, block_b); break
        switch (k) {
            NN_TILE(1); NN_TILE(2); NN_TILE(3); NN_TILE(4);
            NN_TILE(5); NN_TILE(6); NN_TILE(7); NN_TILE(8);
        }
#undef NN_TILE
        h += 32 * k;
    }
}

/* The outputs' sums of board a, and of b if not NULL, into sums_a[0..4] and sums_b[0..4]
   (eight double lanes each): their blocks (qblock) one after another, the first (n >= 32:
   there is one) setting the sums. */
NN_TARGET NN_INLINE void NN_(qsums)(int n, const nn_qboard* a, const nn_qboard* b,
                                    const int16_t* lim, const int16_t* mul,
                                    const int16_t* w2t, __m512d* sums_a, __m512d* sums_b) {
    __m512i block_a[5], block_b[5];
    NN_(qblock)(0, n < NN_QBLOCK ? n : NN_QBLOCK, n, a, b, lim, mul, w2t, block_a, block_b);
    NN_(qspill)(block_a, sums_a, 0);
    if (b) NN_(qspill)(block_b, sums_b, 0);
    for (int first = NN_QBLOCK; first < n; first += NN_QBLOCK) {
        int last = n < first + NN_QBLOCK ? n : first + NN_QBLOCK;
        NN_(qblock)(first, last, n, a, b, lim, mul, w2t, block_a, block_b);
        NN_(qspill)(block_a, sums_a, 1);
        if (b) NN_(qspill)(block_b, sums_b, 1);
    }
}

/* The five sums of eight lanes each, added across lanes: lanes 0 to 4 of the result (the
   rest 0), as in a transposition: pairs of lanes, then of 128-bit blocks, twice. */
NN_TARGET NN_INLINE __m512d NN_(qtotals)(const __m512d* v) {
    const __m512d zero = _mm512_setzero_pd();
    __m512d t01 = _mm512_add_pd(_mm512_unpacklo_pd(v[0], v[1]), _mm512_unpackhi_pd(v[0], v[1]));
    __m512d t23 = _mm512_add_pd(_mm512_unpacklo_pd(v[2], v[3]), _mm512_unpackhi_pd(v[2], v[3]));
    __m512d t4 = _mm512_add_pd(_mm512_unpacklo_pd(v[4], zero), _mm512_unpackhi_pd(v[4], zero));
    __m512d u03 = _mm512_add_pd(_mm512_shuffle_f64x2(t01, t23, _MM_SHUFFLE(2, 0, 2, 0)),
                                _mm512_shuffle_f64x2(t01, t23, _MM_SHUFFLE(3, 1, 3, 1)));
    __m512d u4 = _mm512_add_pd(_mm512_shuffle_f64x2(t4, zero, _MM_SHUFFLE(2, 0, 2, 0)),
                               _mm512_shuffle_f64x2(t4, zero, _MM_SHUFFLE(3, 1, 3, 1)));
    return _mm512_add_pd(_mm512_shuffle_f64x2(u03, u4, _MM_SHUFFLE(2, 0, 2, 0)),
                         _mm512_shuffle_f64x2(u03, u4, _MM_SHUFFLE(3, 1, 3, 1)));
}
#else
/* The outputs' int64 sums of board x, as the AVX-512 code's: into total[0..4]. */
NN_TARGET NN_INLINE void NN_(qsums)(int n, const nn_qboard* x, const int16_t* lim,
                                    const int16_t* mul, const int16_t* w2t, int64_t* total) {
    int16_t acc[NN_QMAX], unit[NN_QMAX];
    NN_(qfirst)(n, x->base, x->ones, x->n_ones, acc);  /* base plus the rows, modulo 2^16 */
    for (int i = 0; i < x->n_subs; i++)
        for (int h = 0; h < n; h++)
            acc[h] = (int16_t)(uint16_t)((uint16_t)acc[h] - (uint16_t)x->subs[i][h]);
    for (int h = 0; h < n; h++) {
        int32_t sum = acc[h];
        sum = sum < -lim[h] ? -lim[h] : sum > lim[h] ? lim[h] : sum;
        unit[h] = (int16_t)NN_(qsigmoid)(sum * mul[h]);
    }
    for (int j = 0; j < 5; j++) {
        const int16_t* w = w2t + j * n;
        int64_t sum = 0;
        for (int h = 0; h < n; h++) sum += (int32_t)unit[h] * w[h];
        total[j] = sum;
    }
}
#endif

/* The five outputs' sums of board a, and of b if not NULL (into out_b): each sum plus
   ``offset``, scaled by ``scale`` (a power of two: exact) and rounded to a float, plus
   ``b2``. */
NN_TARGET static void NN_(qforward)(int n, const nn_qboard* a, const nn_qboard* b,
                                    const int16_t* lim, const int16_t* mul,
                                    const int16_t* w2t, const double* offset,
                                    const double* scale, const float* b2, float* out_a,
                                    float* out_b) {
#if NN_W == 16
    __m512d sums_a[5], sums_b[5];
    const __m512d add = _mm512_maskz_loadu_pd(0x1f, offset);
    const __m512d times = _mm512_maskz_loadu_pd(0x1f, scale);
    const __m512 bias = _mm512_maskz_loadu_ps(0x1f, b2);
#define NN_QOUT(out, sums) _mm512_mask_storeu_ps(out, 0x1f, _mm512_add_ps(              \
        _mm512_castps256_ps512(_mm512_cvtpd_ps(_mm512_mul_pd(                              \
            _mm512_add_pd(NN_(qtotals)(sums), add), times))), bias))
    if (b) {  /* each call inlined: the one for a alone has no test of b */
        NN_(qsums)(n, a, b, lim, mul, w2t, sums_a, sums_b);
        NN_QOUT(out_b, sums_b);
    } else {
        NN_(qsums)(n, a, (const nn_qboard*)0, lim, mul, w2t, sums_a, sums_b);
    }
    NN_QOUT(out_a, sums_a);  /* each sum plus offset, times scale, to float, plus b2 */
#undef NN_QOUT
#else
    float x[16];
    int64_t total[10];
    NN_(qsums)(n, a, lim, mul, w2t, total);
    if (b) NN_(qsums)(n, b, lim, mul, w2t, total + 5);
    for (int j = 0; j < 5; j++) {
        x[j] = (float)(((double)total[j] + offset[j]) * scale[j]) + b2[j];
        if (b) x[8 + j] = (float)(((double)total[5 + j] + offset[j]) * scale[j]) + b2[j];
    }
    NN_(emit)(x, out_a, b ? out_b : (float*)0);
#endif
}

#undef NN_QDOT
#undef NN_VEC
#undef NN_VECI
#undef NN_P
#undef NN_
#undef NN_CAT
#undef NN_CAT2
