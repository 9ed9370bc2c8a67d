"""fastnardy._nnet -- the network of :class:`fastnardy.network.Evaluator` in compiled code.

One hidden layer of sigmoid units, five sigmoid outputs (``fastnardy.network.OUTPUTS``),
float32 throughout. The first layer is a sum of weight rows: a board switches on few of its
inputs (most point units are 0), so the hidden layer is the bias plus ``x_i * W1[i]`` over
the inputs ``x_i != 0`` only. The features of a board are written to a scratch row by
:mod:`fastnardy._features` (their one home) and never reach Python unless asked for; the
units of a point (TD-Gammon's four) depend on its count alone, so their share of the first
layer is precomputed per (side, point, count): one row per occupied point, then the few
other inputs. The hidden units are computed eight at a time, each block held in registers
all the way from the bias to its share of the outputs (GCC's vector extension; an AVX2 clone where the
CPU has it, the same operations in the same order). The sigmoid is ``1 / (1 + exp(-x))``
with a branch-free exp (Cody-Waite reduction and Cephes' degree-6 polynomial, within 2 ulp
of libm's), so no BLAS and no thread pool is involved.

A :class:`Network` copies its weights once and is read-only after that: any number of
threads may evaluate with it at once (each call brings its own scratch). The batch methods
run without the GIL, in slices between which Ctrl-C is checked.
"""

from libc.stdint cimport int8_t, int32_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcmp, memcpy
from cpython.exc cimport PyErr_CheckSignals

import numpy as np

from fastnardy._features cimport (B_NARDY, B_RAW, B_TDGAMMON, K_NARDY, K_RAW, K_TDGAMMON,
                                  U_NARDY, U_RAW, U_TDGAMMON, W_MAX, W_NARDY, W_RAW,
                                  W_TDGAMMON, key_features, keys_array, mirror_of,
                                  raise_fault, row_features, rows_array)
from fastnardy._packed cimport nb_ctz, nb_load8, nonzero8
from fastnardy import _features
from fastnardy.errors import FastNardyError

cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    /* eight floats: GCC's and clang's vector extension (two SSE registers, or one AVX) */
    typedef float nn_v8 __attribute__((vector_size(32)));
    typedef int32_t nn_v8i __attribute__((vector_size(32)));
    /* Every helper that takes or returns a vector is inlined, at -O0 too: a call between
       the AVX2 clone and a helper compiled for the baseline would pass the vector in
       different places (the two ABIs differ for 32-byte vectors). */
    #define NN_INLINE static inline __attribute__((always_inline))
    #if defined(__GNUC__)
    #pragma GCC diagnostic ignored "-Wpsabi"  /* that ABI note, for the inlined helpers */
    #endif
    NN_INLINE nn_v8 nn_load(const float* p) { nn_v8 v; memcpy(&v, p, 32); return v; }
    NN_INLINE nn_v8 nn_pick(nn_v8i m, nn_v8 a, nn_v8 b) {
        return (nn_v8)((m & (nn_v8i)a) | (~m & (nn_v8i)b));
    }
    /* exp(x) lane by lane: x = n ln2 + r, |r| <= ln2/2, exp(r) by Cephes' expf polynomial,
       2^n put in the exponent bits; clamped to [-87, 88] (a sigmoid's argument beyond
       that is 0 or 1 in float32 anyway) */
    NN_INLINE nn_v8 nn_exp(nn_v8 x) {
        const nn_v8 lo = {-87, -87, -87, -87, -87, -87, -87, -87};
        const nn_v8 hi = {88, 88, 88, 88, 88, 88, 88, 88};
        x = nn_pick(x < lo, lo, x);
        x = nn_pick(x > hi, hi, x);
        nn_v8 n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
        nn_v8 r = x - n * 0.693359375f;
        r = r - n * -2.12194440e-4f;
        nn_v8 p = r * 1.9875691500e-4f + 1.3981999507e-3f;
        p = p * r + 8.3334519073e-3f;
        p = p * r + 4.1665795894e-2f;
        p = p * r + 1.6666665459e-1f;
        p = p * r + 5.0000001201e-1f;
        p = p * r * r + r + 1.0f;
        nn_v8i bits = (__builtin_convertvector(n, nn_v8i) + 127) << 23;
        return p * (nn_v8)bits;
    }
    NN_INLINE float nn_sum8(nn_v8 v) {
        return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
    }
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
    #define NN_CLONES __attribute__((target_clones("avx2", "default")))
    #else
    #define NN_CLONES
    #endif
    /* The first layer's partial sums of one position, eight hidden units at a time: the
       bias plus the weight rows of the inputs at 1 in ``ones``, written to ``base``. */
    NN_CLONES static void nn_first(int stride, const float* b1, const float* const* ones,
                                   int n_ones, float* base) {
        for (int h = 0; h < stride; h += 8) {
            nn_v8 acc = nn_load(b1 + h);
            for (int i = 0; i < n_ones; i++) acc += nn_load(ones[i] + h);
            memcpy(base + h, &acc, 32);
        }
    }
    /* The five output sums, eight hidden units at a time, each block kept in registers:
       the partial sums ``base`` (nn_first's), plus the weight rows of the inputs that are
       1 (``ones``), plus value times row for the others (``rows``, ``values``), the
       sigmoid, and the block's share of each output. ``stride``: the hidden units rounded
       up to 8 (padded units have zero weights out). The same operations in the same order
       on every CPU (AVX2 or not: no FMA), so the same results. */
    NN_CLONES static void nn_forward(int stride, const float* base,
                                     const float* const* ones, int n_ones,
                                     const float* const* rows, const float* values,
                                     int n_rows, const float* w2t, float* out) {
        nn_v8 o[5] = {{0}, {0}, {0}, {0}, {0}};
        for (int h = 0; h < stride; h += 8) {
            nn_v8 acc = nn_load(base + h);
            for (int i = 0; i < n_ones; i++) acc += nn_load(ones[i] + h);
            for (int i = 0; i < n_rows; i++) acc += values[i] * nn_load(rows[i] + h);
            nn_v8 unit = 1.0f / (1.0f + nn_exp(-acc));
            for (int k = 0; k < 5; k++) o[k] += unit * nn_load(w2t + k * stride + h);
        }
        for (int k = 0; k < 5; k++) out[k] = nn_sum8(o[k]);
    }
    /* the outputs' sigmoid */
    static inline void nn_sigmoid5(const float* b2, float* out) {
        nn_v8 x = {0};
        for (int k = 0; k < 5; k++) x[k] = out[k] + b2[k];
        nn_v8 y = 1.0f / (1.0f + nn_exp(-x));
        for (int k = 0; k < 5; k++) out[k] = y[k];
    }
    """
    void nn_first(int stride, const float* b1, const float* const* ones, int n_ones,
                  float* base) noexcept nogil
    void nn_forward(int stride, const float* base, const float* const* ones, int n_ones,
                    const float* const* rows, const float* values, int n_rows,
                    const float* w2t, float* out) noexcept nogil
    void nn_sigmoid5(const float* b2, float* out) noexcept nogil

cdef int WIDTHS[3]
WIDTHS[:] = [W_RAW, W_TDGAMMON, W_NARDY]
cdef int UNITS[3]
UNITS[:] = [U_RAW, U_TDGAMMON, U_NARDY]
cdef int BLOCKS[3]
BLOCKS[:] = [B_RAW, B_TDGAMMON, B_NARDY]
cdef Py_ssize_t SLICE = 16384   # positions between two looks at Ctrl-C


cdef inline void take(const nn_net* net, nn_scratch* s, int column, float value,
                      int* counts) noexcept nogil:
    """Gather the weight row of input ``column`` at ``value``: into ``s.ones`` (counts[0]) at
    1, into ``s.rows`` and ``s.values`` (counts[1]) otherwise, not at all at 0."""
    if value == 1.0:
        s.ones[counts[0]] = net.w1 + <Py_ssize_t>column * net.stride
        counts[0] += 1
    elif value != 0.0:
        s.rows[counts[1]] = net.w1 + <Py_ssize_t>column * net.stride
        s.values[counts[1]] = value
        counts[1] += 1


cdef inline void forward(const nn_net* net, const float* x, nn_scratch* s,
                         float* probs) noexcept nogil:
    """The five outputs of the input row ``x`` (``net.width`` floats, any values)."""
    cdef int i, counts[2]
    counts[0] = counts[1] = 0
    for i in range(net.width):
        take(net, s, i, x[i], counts)
    outputs(net, s, counts[0], counts[1], probs)


cdef inline int point_rows(const nn_net* net, const int8_t* side, const float* table,
                           const float** ones) noexcept nogil:
    """The table rows of a side's occupied points (its 24 counts at ``side``) into
    ``ones``, in point order, visiting only the occupied ones; returns their number."""
    cdef uint32_t held = (nonzero8(nb_load8(side)) | nonzero8(nb_load8(side + 8)) << 8
                          | nonzero8(nb_load8(side + 16)) << 16)
    cdef int p, n = 0
    while held:
        p = nb_ctz(held)
        held &= held - 1
        ones[n] = table + <Py_ssize_t>(16 * p + side[p]) * net.stride
        n += 1
    return n


cdef inline void forward_row(const nn_net* net, const int8_t* row, const float* x,
                             nn_scratch* s, float* probs) noexcept nogil:
    """The five outputs of a checked board row whose features are ``x``: the point units
    from the table, the other inputs one by one. The mover's points come first, and their
    partial sums are kept in ``s``: the next row with the same mover's points (a sibling
    in the search or in self-play: the side that just moved is the opponent) starts from
    them, the same floats as if summed again."""
    cdef int j, counts[2]
    if s.base_net != net or memcmp(s.base_row, row, 25) != 0:
        nn_first(net.stride, net.b1, s.ones, point_rows(net, row, net.points, s.ones), s.base)
        memcpy(s.base_row, row, 25)
        s.base_net = net
    counts[0] = point_rows(net, row + 25, net.points + <Py_ssize_t>24 * 16 * net.stride, s.ones)
    counts[1] = 0
    for j in range(net.n_extra):
        take(net, s, net.extra[j], x[net.extra[j]], counts)
    nn_forward(net.stride, s.base, s.ones, counts[0], s.rows, s.values, counts[1], net.w2t,
               probs)
    nn_sigmoid5(net.b2, probs)


cdef inline void outputs(const nn_net* net, nn_scratch* s, int n_ones, int n_rows,
                         float* probs) noexcept nogil:
    """The hidden layer and the five outputs from the rows gathered in ``s``."""
    nn_forward(net.stride, net.b1, s.ones, n_ones, s.rows, s.values, n_rows, net.w2t, probs)
    nn_sigmoid5(net.b2, probs)


cdef int nn_row(const nn_net* net, const int8_t* row, nn_scratch* s,
                float* probs) noexcept nogil:
    """The five outputs of a board row (mover's view), or its _features fault bits."""
    cdef int fault = row_features(net.kind, net.is_short, net.mirror, row, s.features, 0)
    if fault:
        return fault
    forward_row(net, row, s.features, s, probs)
    return 0


cdef int nn_key(const nn_net* net, uint64_t lo, uint64_t hi, nn_scratch* s,
                float* probs) noexcept nogil:
    """The five outputs of a packed key (mover's frame), or its _features fault bits."""
    cdef int fault = key_features(net.kind, net.is_short, net.mirror, lo, hi, s.row,
                                  s.features, 0)
    if fault:
        return fault
    forward_row(net, s.row, s.features, s, probs)
    return 0


cdef double nn_equity(const float* p) noexcept nogil:
    """L10/S9 without the cube: 2 win - 1 + win_mars + win_3 - lose_mars - lose_3."""
    return (2.0 * <double>p[0] + <double>p[1] + <double>p[2] - <double>p[3]
            - <double>p[4] - 1.0)


cdef nn_scratch* nn_scratch_new() noexcept nogil:
    """A scratch for evaluations with any network (NULL when out of memory)."""
    cdef nn_scratch* s = <nn_scratch*>malloc(sizeof(nn_scratch))
    if s != NULL:
        s.base_net = NULL  # no partial sums kept yet
    return s


cdef void nn_scratch_free(nn_scratch* s) noexcept nogil:
    free(s)


def _point_table(int kind, bint is_short, mirror, w1):
    """The first layer's share of each (side, point, count) as (2, 24, 16, stride) float32
    (the units' values read from fastnardy._features on rows holding only that point), and
    the columns outside the point units (int32)."""
    cdef int units = UNITS[kind]
    hidden = w1.shape[1]
    rows = np.zeros((2, 24, 16, 50), dtype=np.int8)
    for side in range(2):
        for p in range(24):
            rows[side, p, :, 25 * side + p] = np.arange(16)
    x = _features.features(kind, is_short, rows.reshape(-1, 50), mirror).reshape(
        2, 24, 16, -1)
    table = np.empty((2, 24, 16, hidden), dtype=np.float32)
    covered = np.zeros(WIDTHS[kind], dtype=bool)
    for side in range(2):
        for p in range(24):
            first = BLOCKS[kind] * side + units * p
            columns = slice(first, first + units)
            table[side, p] = (x[side, p, :, columns].astype(np.float64)
                              @ w1[columns].astype(np.float64))
            covered[columns] = True
    return table, np.flatnonzero(~covered).astype(np.intc)


cdef class Network:
    """A network compiled for inference: ``Network(kind, is_short, mirror, hidden_weights,
    hidden_bias, output_weights, output_bias)`` with the arrays of an Evaluator (checked
    there), ``kind`` 0 raw, 1 tdgammon, 2 nardy and ``mirror`` the game's MIRROR_COLUMNS.
    Read-only: safe to share between threads."""

    def __init__(self, int kind, bint is_short, mirror, hidden_weights, hidden_bias,
                 output_weights, output_bias):
        cdef int k
        if self.arrays is not None:  # other threads may be reading its weights
            raise FastNardyError("a Network is built once; make a new one")
        if kind < K_RAW or kind > K_NARDY:
            raise FastNardyError(f"kind must be 0, 1 or 2, not {kind}")
        given = [np.asarray(a, dtype=np.float32) for a in (hidden_weights, hidden_bias,
                                                            output_weights, output_bias)]
        hidden = given[1].shape[0] if given[1].ndim == 1 else 0
        if hidden > NN_MAX_HIDDEN:
            raise FastNardyError(f"a network has at most {NN_MAX_HIDDEN} hidden units, not "
                                 f"{hidden}")
        if (given[0].shape != (WIDTHS[kind], hidden) or hidden < 1
                or given[2].shape != (hidden, NN_OUTPUTS) or given[3].shape != (NN_OUTPUTS,)):
            raise FastNardyError("the network's arrays do not fit its kind")
        stride = -(-hidden // 8) * 8  # padded units: zero weights in and out
        w1 = np.zeros((WIDTHS[kind], stride), dtype=np.float32)
        w1[:, :hidden] = given[0]
        b1 = np.zeros(stride, dtype=np.float32)
        b1[:hidden] = given[1]
        w2t = np.zeros((NN_OUTPUTS, stride), dtype=np.float32)
        w2t[:, :hidden] = given[2].T
        b2 = np.ascontiguousarray(given[3])
        points, extra = _point_table(kind, is_short, mirror, w1)
        for array in (w1, b1, w2t, b2, points, extra):
            array.setflags(write=False)
        self.net.mirror = mirror_of(mirror)
        self.net.kind = kind
        self.net.width = WIDTHS[kind]
        self.net.hidden = hidden
        self.net.stride = stride
        self.net.is_short = is_short
        self.net.w1 = <const float*><size_t>w1.ctypes.data
        self.net.b1 = <const float*><size_t>b1.ctypes.data
        self.net.w2t = <const float*><size_t>w2t.ctypes.data
        self.net.points = <const float*><size_t>points.ctypes.data
        self.net.extra = <const int*><size_t>extra.ctypes.data
        self.net.n_extra = extra.shape[0]
        for k in range(NN_OUTPUTS):
            self.net.b2[k] = b2[k]
        self.arrays = (w1, b1, w2t, b2, points, extra)
        self.args = (kind, is_short, np.asarray(mirror), hidden_weights, hidden_bias,
                     output_weights, output_bias)

    def __reduce__(self):
        return Network, self.args

    @property
    def hidden(self):
        """The number of hidden units."""
        return self.net.hidden

    def probabilities(self, boards):
        """The five outputs (N, 5) float32 of board rows (N, 50) or KEY_DTYPE keys, each
        checked as fastnardy.features checks it (InvalidPositionError)."""
        return self._run(boards, 0)

    def equities(self, boards):
        """The cubeless equity (N,) float64 of board rows or keys for their side to move."""
        return self._run(boards, 1)

    def key_equity(self, uint64_t lo, uint64_t hi):
        """The cubeless equity of one packed key (mover's frame), checked: batch 1 without
        numpy."""
        cdef nn_scratch s
        cdef float probs[NN_OUTPUTS]
        cdef int fault
        s.base_net = NULL
        fault = nn_key(&self.net, lo, hi, &s, probs)
        if fault:
            raise_fault(fault, 1)
        return nn_equity(probs)

    def of_features(self, features):
        """The five outputs (N, 5) float32 of a C-contiguous (N, width) float32 array of
        finite features (fastnardy.network checks it)."""
        cdef const float* x
        cdef float* out
        cdef nn_scratch* s
        cdef Py_ssize_t i, n, start, stop
        if not (isinstance(features, np.ndarray) and features.dtype == np.float32
                and features.ndim == 2 and features.shape[1] == self.net.width
                and features.flags.c_contiguous):
            raise FastNardyError(f"features must be C-contiguous (N, {self.net.width}) "
                                 f"float32")
        n = features.shape[0]
        result = np.empty((n, NN_OUTPUTS), dtype=np.float32)
        if n == 0:
            return result
        x = <const float*><size_t>features.ctypes.data
        out = <float*><size_t>result.ctypes.data
        s = nn_scratch_new()
        if s == NULL:
            raise MemoryError()
        try:
            for start in range(0, n, SLICE):
                stop = min(n, start + SLICE)
                with nogil:
                    for i in range(start, stop):
                        forward(&self.net, x + i * self.net.width, s, out + NN_OUTPUTS * i)
                PyErr_CheckSignals()
        finally:
            nn_scratch_free(s)
        return result

    cdef object _run(self, object boards, int as_equity):
        """Outputs (as_equity 0) or equities (1) of rows or keys."""
        cdef const int8_t* rows = NULL
        cdef const uint64_t* keys = NULL
        cdef float probs[NN_OUTPUTS]
        cdef float* pout = NULL
        cdef double* eout = NULL
        cdef nn_scratch* s
        cdef Py_ssize_t i, n, start, stop
        cdef int faults = 0, fault, k
        array = np.asarray(boards)
        is_keys = array.dtype.names is not None  # as fastnardy._features reads boards
        array = keys_array(array) if is_keys else rows_array(array)
        n = array.shape[0]
        if as_equity:
            result = np.empty(n, dtype=np.float64)
            if n:
                eout = <double*><size_t>result.ctypes.data
        else:
            result = np.empty((n, NN_OUTPUTS), dtype=np.float32)
            if n:
                pout = <float*><size_t>result.ctypes.data
        if n == 0:
            return result
        if is_keys:
            keys = <const uint64_t*><size_t>array.ctypes.data
        else:
            rows = <const int8_t*><size_t>array.ctypes.data
        s = nn_scratch_new()
        if s == NULL:
            raise MemoryError()
        try:
            for start in range(0, n, SLICE):
                stop = min(n, start + SLICE)
                with nogil:
                    for i in range(start, stop):
                        if keys != NULL:
                            fault = nn_key(&self.net, keys[2 * i], keys[2 * i + 1], s, probs)
                        else:
                            fault = nn_row(&self.net, rows + 50 * i, s, probs)
                        if fault:
                            faults |= fault
                        elif eout != NULL:
                            eout[i] = nn_equity(probs)
                        else:
                            for k in range(NN_OUTPUTS):
                                pout[NN_OUTPUTS * i + k] = probs[k]
                if faults:
                    raise_fault(faults, keys != NULL)
                PyErr_CheckSignals()
        finally:
            nn_scratch_free(s)
        return result
