/* fastnardy._nnet's C side (cdef extern from "_nnet.h" in _nnet.pyx): the integer
   network's constants, its sigmoid's cubics, the four builds of _nnet_simd.h and the
   choice of the one in use. */
#ifndef FASTNARDY_NNET_H
#define FASTNARDY_NNET_H
#include <stdint.h>
#include <string.h>
/* Every helper that takes or returns a vector is inlined, at -O0 too: a call between
   functions of two instruction sets would pass a vector in different places. */
#include <stddef.h>
#define NN_INLINE static inline __attribute__((always_inline))
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"  /* that ABI note, for the inlined helpers */
#endif
#define NN_QMAX 1024  /* NN_MAX_HIDDEN: the integer network's units, rounded up to 32 */
/* The integer output weights are at most NN_QW in size, so that the products of
   NN_QBLOCK units (sigmoids less 1/2, at most 2^14 - 1 in size) sum in an int32 lane
   (two a lane a vector): in double once a block. */
#define NN_QW 8191
#define NN_QBLOCK 256
#define NN_QTILE 8  /* the units' vectors of a board summed at once (NN_QBLOCK / 32) */
/* One board's first layer for the integer network: its partial sums ``base``, plus the
   n_ones rows ``ones``, less the n_subs rows ``subs`` (a child's from its parent's: the
   same integers as its own rows', modulo 2^16) */
typedef struct {
    const int16_t* base;
    const int16_t* const* ones;
    int n_ones;
    const int16_t* const* subs;
    int n_subs;
} nn_qboard;
_Static_assert(2LL * (NN_QBLOCK / 32) * 16383 * NN_QW <= 2147483647LL,
               "a block's output sums must fit int32");
/* The integer sigmoid's cubics: sigma(x) - 1/2 on [s/2, (s + 1)/2] is about
   c0 + c1 t + c2 t^2 + c3 t^3, t in [0, 1), each c_k Q15 in NN_SIG[k][s]: numpy's
   least-squares cubic on 2,001 points of the half unit, rounded (made once, here for
   good: the same integers on every machine). */
static const int16_t NN_SIG[4][32] __attribute__((aligned(64))) = {
    {0, 4013, 7571, 10406, 12478, 13898, 14830, 15424, 15795, 16024, 16165, 16251,
     16303, 16335, 16354, 16366, 16373, 16377, 16380, 16382, 16383, 16383, 16383, 16384,
     16384, 16384, 16384, 16384, 16384, 16384, 16384, 16384},
    {4097, 3853, 3224, 2445, 1720, 1148, 740, 466, 289, 178, 109, 66, 40, 25, 15, 9, 5,
     3, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {-5, -249, -384, -394, -328, -242, -165, -108, -68, -43, -26, -16, -10, -6, -4, -2,
     -1, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {-80, -46, -5, 21, 28, 25, 19, 13, 9, 6, 3, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
     0, 0, 0, 0, 0, 0, 0}};
#ifdef NB_X86
#include <immintrin.h>
#define NN_W 16
#define NN_ISA avx512
#define NN_TARGET __attribute__((target("avx512f,avx512bw")))
#include "_nnet_simd.h"
#undef NN_ISA
#undef NN_TARGET
#define NN_ISA avx512vnni
#define NN_TARGET __attribute__((target("avx512f,avx512bw,avx512vnni")))
#define NN_VNNI 1
#include "_nnet_simd.h"
#undef NN_VNNI
#undef NN_W
#undef NN_ISA
#undef NN_TARGET
#define NN_W 8
#define NN_ISA avx2
#define NN_TARGET __attribute__((target("avx2")))
#include "_nnet_simd.h"
#undef NN_W
#undef NN_ISA
#undef NN_TARGET
#endif
#define NN_W 4
#define NN_ISA base
#define NN_TARGET
#include "_nnet_simd.h"
/* 1 when this CPU runs instruction set ``isa`` (NB_BASE, NB_AVX2, NB_AVX512 or
   NB_AVX512VNNI) and this build has it */
static int nn_supports(int isa) {
    if (isa == NB_BASE) return 1;
#ifdef NB_X86
    __builtin_cpu_init();
    if (isa == NB_AVX2) return __builtin_cpu_supports("avx2");
    if (isa == NB_AVX512)
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
    if (isa == NB_AVX512VNNI)
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")
               && __builtin_cpu_supports("avx512vnni");
#endif
    return 0;
}
/* the entry points of the instruction set in use, set once at import (nn_use) */
static void (*nn_first)(int, const float*, const float* const*, int, float*) =
    nn_first_base;
static void (*nn_forward)(int, const float*, const float* const*, int,
                          const float* const*, const float*, int, const float*,
                          const float*, float*) = nn_forward_base;
static void (*nn_forward2)(int, const float*, const float* const*, int, const float*,
                           const float* const*, int, const float*, const float*, float*,
                           float*) = nn_forward2_base;
static void (*nn_qfirst)(int, const int16_t*, const int16_t* const*, int, int16_t*) =
    nn_qfirst_base;
static void (*nn_qforward)(int, const nn_qboard*, const nn_qboard*, const int16_t*,
                           const int16_t*, const int16_t*, const double*, const double*,
                           const float*, float*, float*) = nn_qforward_base;
static void (*nn_sigmoids)(float*, ptrdiff_t) = nn_sigmoids_base;
static int (*nn_point_rows)(const char*, ptrdiff_t, const int8_t*, uint32_t,
                            const void**) = nn_point_rows_base;
static int (*nn_run_rows)(const char*, ptrdiff_t, uint32_t, const void**, int*) =
    nn_run_rows_base;
#define NN_USE(isa_)                       \
    do {                                   \
        nn_first = nn_first_##isa_;        \
        nn_forward = nn_forward_##isa_;    \
        nn_forward2 = nn_forward2_##isa_;  \
        nn_qfirst = nn_qfirst_##isa_;      \
        nn_qforward = nn_qforward_##isa_;  \
        nn_sigmoids = nn_sigmoids_##isa_;  \
        nn_point_rows = nn_point_rows_##isa_; \
        nn_run_rows = nn_run_rows_##isa_; \
    } while (0)
static void nn_use(int isa) {
#ifdef NB_X86
    if (isa == NB_AVX512VNNI) { NN_USE(avx512vnni); return; }
    if (isa == NB_AVX512) { NN_USE(avx512); return; }
    if (isa == NB_AVX2) { NN_USE(avx2); return; }
#endif
    NN_USE(base);
}
#endif
