"""fastnardy._nnet -- the network of :class:`fastnardy.network.Evaluator` in compiled code.

One hidden layer of sigmoid units, five sigmoid outputs (``fastnardy.network.OUTPUTS``),
float32 throughout. The first layer is a sum of weight rows. A board's inputs fall into
groups that each depend on one small fact of one side: a point's count (TD-Gammon's four
units, and the bar's and long nardy's head inputs), the side's checker count (borne off),
and in long nardy each maximal run of held points and the longest (L6). So a board's share
of the first layer is the bias plus one precomputed table row per occupied point, per run
and per count, each made once from :mod:`fastnardy._features` (the one home of every
input's value) on boards holding that fact alone; no feature is written for a board. The
shots kind's eight contact inputs (each side's shots, escapes, back checker and pip loss)
depend on both sides: one table row each for its count, every board's own. The
side to move did not just move, so its rows' sum is kept (for two such sides: a hit in
short nardy makes a second) and shared by the siblings of a search; the kernel's self-play
makes it once from the turn's position and reads only the side that moved from each child's
key (``nn_child2``); and two boards are evaluated at once, interleaved, so that each one's
chains of dependent operations fill the other's waits. Feature arrays (``of_features``) are
summed input by input. The hidden units are computed sixteen at a time, each block held in
registers all the way from the bias to its share of the outputs (``_nnet_simd.h``, in GCC's
and clang's vector extension, built for AVX-512 (twice: with VNNI's dot products for the
int16 network, and without), AVX2 and the baseline with vectors as wide as each one's
registers; the best one the CPU runs is used, or the one ``FASTNARDY_SIMD`` names
(``SIMD_AVAILABLE``; ``_nnet.h`` includes the builds and holds the choice). They do the
same operations in the same order, without fused multiply-adds: the same floats
everywhere). The sigmoid is ``1 / (1 + exp(-x))`` with a branch-free exp in base 2 (a
polynomial of degree 5; the sigmoid within 1e-7 of the exact one), so no BLAS and no thread
pool is involved. The five outputs' sums and their sigmoids are apart
(``nn_probabilities``): a batch, or a window of a turn's children, is squashed at once
rather than each board waiting on its own chain.

A Network may hold a second one for races (``race``, fastnardy.network's split as GNU
Backgammon makes it) and, in short nardy, a third for crashed boards (``crashed``): each
checked row, key or feature row is valued by the race network when ``_features.in_contact``
says race, else by the crashed network when ``_features.in_crashed`` says a side has
crashed; two rows are taken as a pair only when one network values both.

A :class:`Network` copies its weights once and is read-only after that: any number of
threads may evaluate with it at once (each call brings its own scratch). The batch methods
run without the GIL, in slices between which Ctrl-C is checked.
"""

from libc.stdint cimport int8_t, int16_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcmp, memcpy
from cpython.exc cimport PyErr_CheckSignals

import os

import numpy as np

from fastnardy._features cimport (B_NARDY, B_RAW, B_TDGAMMON, C_SHOTS, K_NARDY, K_RAW,
                                  K_SHOTS, K_TDGAMMON, U_NARDY, U_RAW, U_TDGAMMON, W_MAX,
                                  W_NARDY, W_RAW, W_SHOTS, W_TDGAMMON, escape_table,
                                  features_contact, features_crashed, features_use_simd,
                                  in_contact, in_crashed, crashed_side, key_row,
                                  keys_array, mirror_of, mirrored, raise_fault, row_facts,
                                  row_faults, rows_array, shots_function, shots_values,
                                  side_masks)
from fastnardy._args cimport _data, _key_of, as_array
from fastnardy._bearoff cimport Table, bo_covers, bo_entry, bo_sums
from fastnardy._packed cimport (count24, held24, lay24, nb_fields_other,
                                nb_key_row_words, nb_key_to_row, nb_key_words2, nb_load8,
                                words3)
from fastnardy import _features
from fastnardy.errors import FastNardyError, InvalidPositionError

cdef extern from "_nnet.h":
    int NN_QW  # the integer output weights' largest size
    const int16_t NN_SIG[4][32]
    int nn_supports(int isa) noexcept nogil
    void nn_use(int isa) noexcept nogil
    void nn_first(int stride, const float* b1, const float* const* ones, int n_ones,
                  float* base) noexcept nogil
    void nn_forward(int stride, const float* base, const float* const* ones, int n_ones,
                    const float* const* rows, const float* values, int n_rows,
                    const float* w2t, const float* b2, float* out) noexcept nogil
    void nn_forward2(int stride, const float* base_a, const float* const* ones_a, int n_a,
                     const float* base_b, const float* const* ones_b, int n_b,
                     const float* w2t, const float* b2, float* out_a, float* out_b) noexcept nogil
    void nn_qfirst(int n, const int16_t* bias, const int16_t* const* ones, int n_ones,
                   int16_t* base) noexcept nogil
    ctypedef struct nn_qboard:
        const int16_t* base
        const int16_t* const* ones
        int n_ones
        const int16_t* const* subs
        int n_subs
    void nn_qforward(int n, const nn_qboard* a, const nn_qboard* b, const int16_t* lim,
                     const int16_t* mul, const int16_t* w2t, const double* offset,
                     const double* scale, const float* b2, float* out_a,
                     float* out_b) noexcept nogil
    void nn_sigmoids(float* x, Py_ssize_t n) noexcept nogil
    int nn_point_rows(const char* first, Py_ssize_t row_bytes, const int8_t* side,
                      uint32_t points, const void** ones) noexcept nogil
    int nn_run_rows(const char* first, Py_ssize_t row_bytes, uint32_t path,
                    const void** ones, int* longest) noexcept nogil

# The instruction sets of the network's arithmetic, each giving the same floats: the best
# this CPU runs, or the one FASTNARDY_SIMD names (to compare them, or time one). The same
# choice is put in use for the raw inputs of keys (_features, pushed from here: it cannot
# import this module) and the swap of expand's children keys (_batches, which reads SIMD).
# at the indices NB_BASE, NB_AVX2, NB_AVX512, NB_AVX512VNNI (_packed.pxd)
SIMD_NAMES = ("base", "avx2", "avx512", "avx512vnni")
# the int16 sigmoid's cubics (NN_SIG: coefficient k of half unit s at [k, s]), read-only
SIGMOID_CUBICS = np.array([[NN_SIG[k][s] for s in range(32)] for k in range(4)], np.int16)
SIGMOID_CUBICS.setflags(write=False)
SIMD_AVAILABLE = tuple(name for isa, name in enumerate(SIMD_NAMES) if nn_supports(isa))


def _choose_simd():
    """The instruction set FASTNARDY_SIMD names, or the best one available, put in use."""
    wanted = os.environ.get("FASTNARDY_SIMD", "")
    if wanted and wanted not in SIMD_AVAILABLE:
        raise FastNardyError(f"FASTNARDY_SIMD={wanted!r}: this CPU and build run "
                             f"{', '.join(SIMD_AVAILABLE)}")
    chosen = wanted or SIMD_AVAILABLE[len(SIMD_AVAILABLE) - 1]
    nn_use(SIMD_NAMES.index(chosen))
    features_use_simd(SIMD_NAMES.index(chosen))  # the raw inputs' lookups of keys
    return chosen


SIMD = _choose_simd()


cdef int WIDTHS[4]
WIDTHS[:] = [W_RAW, W_TDGAMMON, W_NARDY, W_SHOTS]
cdef int UNITS[4]
UNITS[:] = [U_RAW, U_TDGAMMON, U_NARDY, U_TDGAMMON]
cdef int BLOCKS[4]
BLOCKS[:] = [B_RAW, B_TDGAMMON, B_NARDY, B_TDGAMMON]
cdef Py_ssize_t SLICE = 16384   # positions between two looks at Ctrl-C
ARITHMETICS = ("float", "int16")  # a Network's arithmetic (the class docstring)


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
    """The five outputs' sums of the input row ``x`` (``net.width`` floats, any values), by
    the race network for a race and the crashed network for a crashed board."""
    cdef int i
    cdef int counts[2]
    counts[0] = counts[1] = 0
    if net.race != NULL and not features_contact(net.kind, x, net.mirror):
        net = net.race
    elif net.crashed != NULL and features_crashed(x):
        net = net.crashed
    for i in range(net.width):
        take(net, s, i, x[i], counts)
    outputs(net, s, counts[0], counts[1], probs)


cdef inline int side_rows(const nn_net* net, int s, const int8_t* side, uint32_t held,
                          int count, const void** ones) noexcept nogil:
    """The table rows of side ``s`` (0 the mover, 1 the opponent) of a checked row into
    ``ones``: its 25 counts at ``side``, ``held`` its occupied points (own numbering) and
    ``count`` its checkers. Returns their number."""
    cdef int n = count_rows(net, s, side, held, count, ones)
    return n + run_rows(net, s, held, ones + n)


cdef inline int count_rows(const nn_net* net, int s, const int8_t* side, uint32_t held,
                           int count, const void** ones) noexcept nogil:
    """side_rows' rows of the points' and the bar's counts and of the checker count (the
    points' at once: nn_point_rows)."""
    cdef const char* first = net.points + 25 * 16 * s * net.row_bytes
    cdef int n = nn_point_rows(first, net.row_bytes, side, held, ones)
    if side[24]:
        ones[n] = first + (16 * 24 + side[24]) * net.row_bytes
        n += 1
    ones[n] = net.offs + (16 * s + count) * net.row_bytes
    return n + 1


cdef inline int run_rows(const nn_net* net, int s, uint32_t held,
                         const void** ones) noexcept nogil:
    """side_rows' rows of the runs and of the longest run (L6), where the inputs have them
    (the runs' at once: nn_run_rows)."""
    cdef Py_ssize_t size = net.row_bytes
    cdef int n = 0, longest
    if net.runs != NULL:  # on the other side's path (L6)
        n = nn_run_rows(net.runs + 24 * 16 * s * size, size, mirrored(net.mirror, held),
                        ones, &longest)
        ones[n] = net.longest + (7 * s + (longest if longest < 6 else 6)) * size
        n += 1
    return n


cdef inline int shots_rows(const nn_net* net, const int8_t* side0, uint32_t held0,
                           const int8_t* side1, uint32_t held1,
                           const void** ones) noexcept nogil:
    """The rows of the shots inputs of a board (its mover's 25 counts and held mask, then
    its opponent's) into ``ones``, where the network has them (they depend on both sides,
    so they are every board's own). Returns their number."""
    cdef uint64_t values
    cdef int k
    if net.shots == NULL:
        return 0
    values = shots_values(net.mirror, side0, held0, side1, held1, net.escapes, net.shots_of)
    for k in range(8):  # side k / 4's input k % 4, in its group of rows (SHOTS_FIRST)
        ones[k] = net.shots + (SHOTS_FIRST[4] * (k >> 2) + SHOTS_FIRST[k & 3]
                               + ((values >> (8 * k)) & 0xFF)) * net.row_bytes
    return 8


cdef inline void qboard(nn_qboard* x, const int16_t* base, const void** ones, int n_ones,
                        const void** subs, int n_subs) noexcept nogil:
    """x: the first layer of a board for the integer network (nn_qboard)."""
    x.base = base
    x.ones = <const int16_t**>ones
    x.n_ones = n_ones
    x.subs = <const int16_t**>subs
    x.n_subs = n_subs


cdef inline const nn_net* network_of(const nn_net* net, const int8_t* row,
                                     const row_facts* facts) noexcept nogil:
    """The network that values a checked row: its race network for a race, its crashed
    network for a crashed board, where it has them."""
    if net.race != NULL and not in_contact(net.mirror, facts.held[0], facts.held[1],
                                           row[24] | row[49]):
        return net.race
    if net.crashed != NULL and in_crashed(row, facts):
        return net.crashed
    return net


cdef inline bint looked_up(const nn_net* net, const int8_t* mover, uint32_t held0, int count0,
                           const int8_t* other, uint32_t held1, int count1,
                           float* probs) noexcept nogil:
    """1 and the outputs' sums of a checked board (each side's counts, held mask and checkers)
    from the bear-off database when it holds the board, else 0."""
    if not bo_covers(net.bearoff, mover, held0, count0, other, held1, count1):
        return 0
    bo_sums(net.bearoff, bo_entry(net.bearoff, mover, other), probs)
    return 1


cdef inline void forward_row(const nn_net* net, const int8_t* row, const row_facts* facts,
                             nn_scratch* s, float* probs) noexcept nogil:
    """The five outputs' sums of a checked board row and its facts, from the table rows. The
    mover's rows come first, and their sum is kept in ``s``: the next row with the same
    mover's side (a sibling in the search or in self-play: the side that just moved is the
    opponent) starts from it, the same floats as if summed again."""
    cdef int k = keep_base(net, row, facts, s, 1)
    cdef int n = side_rows(net, 1, row + 25, facts.held[1], facts.count[1], s.ones)
    cdef nn_qboard a
    n += shots_rows(net, row, facts.held[0], row + 25, facts.held[1], s.ones + n)
    if net.qn:
        qboard(&a, s.qbase[k], s.ones, n, NULL, 0)
        nn_qforward(net.qn, &a, NULL, net.qlim, net.qmul, net.qw2t, net.qoffset, net.qscale,
                    net.b2, probs, NULL)
    else:
        nn_forward(net.stride, s.base[k], <const float**>s.ones, n, s.rows, s.values, 0,
                   net.w2t, net.b2, probs)


cdef inline int keep_base(const nn_net* net, const int8_t* row, const row_facts* facts,
                          nn_scratch* s, int avoid) noexcept nogil:
    """The slot of ``s`` that holds the partial sums of the mover's side of a checked row:
    one that has them already, else the other one than ``avoid``, where they are made."""
    cdef int k, n
    for k in range(2):
        if s.base_net[k] == net and memcmp(s.base_row[k], row, 25) == 0:
            return k
    k = 1 - avoid
    n = side_rows(net, 0, row, facts.held[0], facts.count[0], s.ones)
    if net.qn:
        nn_qfirst(net.qn, net.qbias, <const int16_t**>s.ones, n, s.qbase[k])
    else:
        nn_first(net.stride, net.bias, <const float**>s.ones, n, s.base[k])
    memcpy(s.base_row[k], row, 25)
    s.base_net[k] = net
    return k


cdef inline void forward_pair(const nn_net* net, const int8_t* row_a, const row_facts* facts_a,
                              const int8_t* row_b, const row_facts* facts_b, nn_scratch* s,
                              float* probs_a, float* probs_b) noexcept nogil:
    """forward_row of two checked rows at once, the same floats. Siblings share the partial
    sums of their side to move; where they do not (a hit in short nardy), the two slots
    keep both sides' sums for the siblings that follow."""
    cdef int k_a = keep_base(net, row_a, facts_a, s, 1)
    cdef int k_b = keep_base(net, row_b, facts_b, s, k_a)
    cdef int n_a = side_rows(net, 1, row_a + 25, facts_a.held[1], facts_a.count[1], s.ones)
    cdef int n_b = side_rows(net, 1, row_b + 25, facts_b.held[1], facts_b.count[1], s.ones2)
    cdef nn_qboard a, b
    n_a += shots_rows(net, row_a, facts_a.held[0], row_a + 25, facts_a.held[1], s.ones + n_a)
    n_b += shots_rows(net, row_b, facts_b.held[0], row_b + 25, facts_b.held[1],
                      s.ones2 + n_b)
    if net.qn:
        qboard(&a, s.qbase[k_a], s.ones, n_a, NULL, 0)
        qboard(&b, s.qbase[k_b], s.ones2, n_b, NULL, 0)
        nn_qforward(net.qn, &a, &b, net.qlim, net.qmul, net.qw2t, net.qoffset, net.qscale,
                    net.b2, probs_a, probs_b)
        return
    nn_forward2(net.stride, s.base[k_a], <const float**>s.ones, n_a, s.base[k_b],
                <const float**>s.ones2, n_b, net.w2t, net.b2, probs_a, probs_b)


cdef inline void outputs(const nn_net* net, nn_scratch* s, int n_ones, int n_rows,
                         float* probs) noexcept nogil:
    """The hidden layer and the five outputs' sums from the rows gathered in ``s``."""
    nn_forward(net.stride, net.b1, <const float**>s.ones, n_ones, s.rows, s.values, n_rows,
               net.w2t, net.b2, probs)


cdef int nn_row(const nn_net* net, const int8_t* row, nn_scratch* s,
                float* probs) noexcept nogil:
    """The five outputs' sums of a board row (mover's view), or its _features fault bits
    (nn_probabilities makes them the outputs)."""
    cdef row_facts facts
    cdef int fault = row_faults(row, net.mirror, net.is_short, &facts)
    if fault:
        return fault
    if not looked_up(net, row, facts.held[0], facts.count[0], row + 25, facts.held[1],
                     facts.count[1], probs):
        forward_row(network_of(net, row, &facts), row, &facts, s, probs)
    return 0


cdef inline int forward_checked(const nn_net* net, const int8_t* row_a,
                                const row_facts* facts_a, int fault_a, const int8_t* row_b,
                                const row_facts* facts_b, int fault_b, nn_scratch* s,
                                float* probs_a, float* probs_b) noexcept nogil:
    """The outputs of each of two checked rows that has no fault (from the bear-off database
    where it holds the row, else both at once when neither has a fault and one network
    values both), and the union of their fault bits."""
    cdef const nn_net* net_a = NULL, * net_b = NULL
    if fault_a == 0 and not looked_up(net, row_a, facts_a.held[0], facts_a.count[0],
                                      row_a + 25, facts_a.held[1], facts_a.count[1], probs_a):
        net_a = network_of(net, row_a, facts_a)
    if fault_b == 0 and not looked_up(net, row_b, facts_b.held[0], facts_b.count[0],
                                      row_b + 25, facts_b.held[1], facts_b.count[1], probs_b):
        net_b = network_of(net, row_b, facts_b)
    if net_a != NULL and net_a == net_b:
        forward_pair(net_a, row_a, facts_a, row_b, facts_b, s, probs_a, probs_b)
        return 0
    if net_a != NULL:
        forward_row(net_a, row_a, facts_a, s, probs_a)
    if net_b != NULL:
        forward_row(net_b, row_b, facts_b, s, probs_b)
    return fault_a | fault_b


cdef int nn_row2(const nn_net* net, const int8_t* row_a, const int8_t* row_b, nn_scratch* s,
                 float* probs_a, float* probs_b) noexcept nogil:
    """nn_row of two rows at once (faster, the same floats): the outputs' sums of each
    well-formed row, and the union of the two rows' fault bits."""
    cdef row_facts facts_a, facts_b
    cdef int fault_a = row_faults(row_a, net.mirror, net.is_short, &facts_a)
    cdef int fault_b = row_faults(row_b, net.mirror, net.is_short, &facts_b)
    return forward_checked(net, row_a, &facts_a, fault_a, row_b, &facts_b, fault_b, s,
                           probs_a, probs_b)


cdef int nn_key(const nn_net* net, uint64_t lo, uint64_t hi, nn_scratch* s,
                float* probs) noexcept nogil:
    """The five outputs' sums of a packed key (mover's frame), or its _features fault bits
    (nn_probabilities makes them the outputs)."""
    cdef row_facts facts
    cdef int fault = key_row(lo, hi, net.is_short, s.row, &facts)
    if fault:
        return fault
    if not looked_up(net, s.row, facts.held[0], facts.count[0], s.row + 25, facts.held[1],
                     facts.count[1], probs):
        forward_row(network_of(net, s.row, &facts), s.row, &facts, s, probs)
    return 0


cdef int nn_key2(const nn_net* net, uint64_t lo_a, uint64_t hi_a, uint64_t lo_b,
                 uint64_t hi_b, nn_scratch* s, float* probs_a, float* probs_b) noexcept nogil:
    """nn_key of two keys at once (faster, the same floats): the outputs' sums of each
    well-formed key, and the union of the two keys' fault bits."""
    cdef row_facts facts_a, facts_b
    cdef int fault_a = key_row(lo_a, hi_a, net.is_short, s.row, &facts_a)
    cdef int fault_b = key_row(lo_b, hi_b, net.is_short, s.row2, &facts_b)
    return forward_checked(net, s.row, &facts_a, fault_a, s.row2, &facts_b, fault_b, s,
                           probs_a, probs_b)


cdef void nn_set_parent(const nn_net* net, nn_scratch* s, uint64_t lo,
                        uint64_t hi) noexcept nogil:
    """The parent of the children that nn_child2 values next with ``net``: a well-formed key
    in its mover's frame. Its partial sums are made by each network (``net``, its race and
    crashed networks) on its first child (child_rows)."""
    cdef nn_parent* p = &s.parent
    p.lo = lo
    p.hi = hi
    nb_key_to_row(lo, hi, net.is_short, p.row, 0)
    side_masks(p.row, &p.facts.held[0], &p.facts.count[0])
    side_masks(p.row + 25, &p.facts.held[1], &p.facts.count[1])
    p.net[0] = p.net[1] = p.net[2] = NULL


cdef inline int moved_rows(const nn_net* net, const nn_parent* p, const int8_t* side,
                           uint32_t held, int count, const void** ones, const void** subs,
                           int* n_subs) noexcept nogil:
    """The rows of the counts (count_rows) of side 1 (the side that moved) that a child's
    move switched on, into ``ones`` (their number returned), and off, into ``subs``
    (``n_subs``), against its parent's: ``side`` the child's 25 counts, ``held`` its
    occupied points, ``count`` its checkers; a point's or the bar's count of 0 has no
    row."""
    cdef const char* first = net.points + 25 * 16 * net.row_bytes
    cdef const int8_t* old = p.row + 25
    cdef uint32_t changed = held24(nb_load8(side) ^ nb_load8(old),
                                   nb_load8(side + 8) ^ nb_load8(old + 8),
                                   nb_load8(side + 16) ^ nb_load8(old + 16))
    cdef int n = nn_point_rows(first, net.row_bytes, side, changed & held, ones)
    cdef int m = nn_point_rows(first, net.row_bytes, old, changed & p.facts.held[1], subs)
    if side[24] != old[24]:
        subs[m] = first + (16 * 24 + old[24]) * net.row_bytes  # written over if it was 0
        m += old[24] != 0
        ones[n] = first + (16 * 24 + side[24]) * net.row_bytes
        n += side[24] != 0
    if count != p.facts.count[1]:
        subs[m] = net.offs + (16 + p.facts.count[1]) * net.row_bytes
        ones[n] = net.offs + (16 + count) * net.row_bytes
        m += 1
        n += 1
    n_subs[0] = m
    return n


cdef inline const nn_net* child_rows(const nn_net* net, nn_scratch* s, uint64_t lo,
                                     uint64_t hi, const void** ones, int* n_ones,
                                     const void** subs, int* n_subs,
                                     const void** base, float* probs) noexcept nogil:
    """NULL when the bear-off database holds a child of the parent (its sums into ``probs``),
    else the network that values it (``net``, its race or its crashed network), with
    the child's partial sums (``base``) and the table rows to add (``ones``, ``n_ones``) and
    to take away (``subs``, ``n_subs``). Siblings share their side to move, the parent's
    opponent (side 0): the sums of its rows are made once per parent and network. The side
    that moved (side 1) is read from the child's key. For an integer network with runs (L6:
    long nardy's inputs), the parent's sums include that side's count rows as they were,
    and a child's move switches some off and others on (moved_rows: NNUE's update; integers
    sum the same in any order), plus the child's runs; elsewhere they are all the child's
    rows (float sums depend on their order; short nardy's sides hold fewer rows than a move
    changes and its update measured slower). A hit (S5) changes side 0: the network's bias
    and the rows of both sides."""
    cdef nn_parent* p = &s.parent
    cdef uint64_t w[6]
    cdef uint64_t m[4]
    cdef uint64_t o[4]
    cdef int8_t side[64]  # side 0 at 32 (a hit), side 1 at 0
    cdef const int8_t* side0 = p.row  # side 0's counts: the parent's, or after a hit its own
    cdef uint32_t held, held0 = p.facts.held[0]
    cdef int count, count0 = p.facts.count[0], slot = 0, n = 0
    # a hit: a field of the other side's (16 to 30) in this key or the parent's that differs
    cdef bint hit = ((nb_fields_other(lo) | nb_fields_other(p.lo)) * 31 & (lo ^ p.lo)
                     or (nb_fields_other(hi) | nb_fields_other(p.hi)) * 31 & (hi ^ p.hi)
                     or hi >> 60 != p.hi >> 60)
    if hit:
        nb_key_row_words(lo, hi, net.is_short, w)
    else:  # only the mover's counts
        nb_key_words2(lo, hi, m, o)
        lay24(m[0], m[1], m[2], m[3], w)
    words3(side, w[0], w[1], w[2])
    side[24] = <int8_t>(lo >> 60)
    held = held24(w[0], w[1], w[2])
    count = count24(w[0], w[1], w[2]) + side[24]
    if hit:
        words3(side + 32, w[3], w[4], w[5])
        side[56] = <int8_t>(hi >> 60)
        held0 = held24(w[3], w[4], w[5])
        count0 = count24(w[3], w[4], w[5]) + side[56]
        side0 = side + 32
    if looked_up(net, side0, held0, count0, side, held, count, probs):
        return NULL
    if net.race != NULL and not in_contact(net.mirror, held0, held, side0[24] | side[24]):
        net = net.race
        slot = 1
    elif net.crashed != NULL and (crashed_side(count, side[0], side[1])
                                  or crashed_side(count0, side0[0], side0[1])):
        net = net.crashed
        slot = 2
    n_subs[0] = 0
    if hit:
        n = side_rows(net, 0, side0, held0, count0, ones)
        base[0] = <const void*>net.qbias if net.qn else <const void*>net.bias
        n += side_rows(net, 1, side, held, count, ones + n)
        n_ones[0] = n + shots_rows(net, side0, held0, side, held, ones + n)
        return net
    if p.net[slot] != net:
        n = side_rows(net, 0, p.row, held0, count0, ones)
        if net.qn and net.runs != NULL:
            n += count_rows(net, 1, p.row + 25, p.facts.held[1], p.facts.count[1],
                            ones + n)
        if net.qn:
            nn_qfirst(net.qn, net.qbias, <const int16_t**>ones, n, p.qsums[slot])
        else:
            nn_first(net.stride, net.bias, <const float**>ones, n, p.sums[slot])
        p.net[slot] = net
    base[0] = <const void*>p.qsums[slot] if net.qn else <const void*>p.sums[slot]
    if net.qn and net.runs != NULL:
        n = moved_rows(net, p, side, held, count, ones, subs, n_subs)
        n += run_rows(net, 1, held, ones + n)
    else:
        n = side_rows(net, 1, side, held, count, ones)
    n_ones[0] = n + shots_rows(net, p.row, held0, side, held, ones + n)
    return net


cdef inline void child_forward(const nn_net* net, const void* base, const void** ones,
                               int n, const void** subs, int n_subs,
                               float* probs) noexcept nogil:
    """The five outputs' sums of one board from its partial sums and rows."""
    cdef nn_qboard x
    if net.qn:
        qboard(&x, <const int16_t*>base, ones, n, subs, n_subs)
        nn_qforward(net.qn, &x, NULL, net.qlim, net.qmul, net.qw2t, net.qoffset, net.qscale,
                    net.b2, probs, NULL)
    else:
        nn_forward(net.stride, <const float*>base, <const float**>ones, n, NULL, NULL, 0,
                   net.w2t, net.b2, probs)


cdef void nn_child2(const nn_net* net, nn_scratch* s, uint64_t lo_a, uint64_t hi_a,
                    uint64_t lo_b, uint64_t hi_b, float* probs_a,
                    float* probs_b) noexcept nogil:
    """The five outputs' sums of two children of the parent (nn_set_parent), or of the first
    alone if ``probs_b`` is NULL: keys of the kernel's (well formed, in the parent's mover's
    frame, as its moves make them), each valued in its own frame as nn_key values it, from
    their parent's sums (child_rows); the same floats."""
    cdef int n_a, n_b, m_a, m_b
    cdef const void* base_a
    cdef const void* base_b
    cdef const nn_net* net_a = child_rows(net, s, lo_a, hi_a, s.ones, &n_a, s.subs, &m_a,
                                          &base_a, probs_a)
    cdef const nn_net* net_b = (child_rows(net, s, lo_b, hi_b, s.ones2, &n_b, s.subs2, &m_b,
                                           &base_b, probs_b) if probs_b != NULL else NULL)
    cdef nn_qboard a, b
    if net_a != NULL and net_a == net_b:
        if net_a.qn:
            qboard(&a, <const int16_t*>base_a, s.ones, n_a, s.subs, m_a)
            qboard(&b, <const int16_t*>base_b, s.ones2, n_b, s.subs2, m_b)
            nn_qforward(net_a.qn, &a, &b, net_a.qlim, net_a.qmul, net_a.qw2t, net_a.qoffset,
                        net_a.qscale, net_a.b2, probs_a, probs_b)
        else:
            nn_forward2(net_a.stride, <const float*>base_a, <const float**>s.ones, n_a,
                        <const float*>base_b, <const float**>s.ones2, n_b, net_a.w2t,
                        net_a.b2, probs_a, probs_b)
        return
    if net_a != NULL:
        child_forward(net_a, base_a, s.ones, n_a, s.subs, m_a, probs_a)
    if net_b != NULL:
        child_forward(net_b, base_b, s.ones2, n_b, s.subs2, m_b, probs_b)


cdef void nn_probabilities(float* sums, Py_ssize_t count) noexcept nogil:
    """The outputs from the ``count`` outputs' sums at ``sums`` (nn_row, nn_key ...), in
    place: their sigmoids, many at once (a board at a time, each would wait on its own)."""
    nn_sigmoids(sums, count)


cdef nn_scratch* nn_scratch_new() noexcept nogil:
    """A scratch for evaluations with any network (NULL when out of memory)."""
    cdef nn_scratch* s = <nn_scratch*>malloc(sizeof(nn_scratch))
    if s != NULL:
        nn_scratch_clear(s)
    return s


cdef void nn_scratch_clear(nn_scratch* s) noexcept nogil:
    """Forget the partial sums kept (their network may be gone, its address reused)."""
    s.base_net[0] = s.base_net[1] = NULL


cdef void nn_scratch_free(nn_scratch* s) noexcept nogil:
    free(s)


# where each kind's inputs are (fastnardy.inputs), by side s: the borne-off input, the bar's,
# the head's (long nardy's point 24, which its point row also carries), the longest run and
# the first of the 24 runs of L6; the constant inputs
cdef dict LAYOUT = {
    K_RAW: dict(off=lambda s: 50 + s, bar=lambda s: B_RAW * s + 24, head=(), runs=None,
                constant=()),
    K_TDGAMMON: dict(off=lambda s: B_TDGAMMON * s + 97, bar=lambda s: B_TDGAMMON * s + 96,
                     head=(), runs=None, constant=(196, 197)),
    K_NARDY: dict(off=lambda s: B_NARDY * s + 96, bar=None,
                  head=lambda s: [B_NARDY * s + 97, B_NARDY * s + 98],
                  runs=lambda s: B_NARDY * s + 100, longest=lambda s: B_NARDY * s + 99,
                  constant=()),
}
LAYOUT[K_SHOTS] = dict(LAYOUT[K_TDGAMMON], shots=lambda s: C_SHOTS + 4 * s)
# where a side's groups of rows in the shots table start (shots, escapes, back, pip loss); end
cdef int SHOTS_FIRST[5]
SHOTS_FIRST[:] = [0, 37, 74, 100, 197]


def _tables(int kind, bint is_short, mirror, w1, b1):
    """nn_net's tables (bias, points, offs, runs, longest, shots) as float64 arrays for the
    padded weights ``w1`` and bias ``b1`` (runs and longest None outside the nardy kind,
    shots outside the shots kind or where its weights are all 0): each group's inputs read
    from fastnardy._features on boards holding that group's fact alone (the shots inputs,
    which depend on both sides: their values, _features.shots_tables), times their weight
    rows, summed in float64."""
    cdef int units = UNITS[kind], block = BLOCKS[kind]
    layout = LAYOUT[kind]
    w = w1.astype(np.float64)
    stride = w.shape[1]
    mirror = np.asarray(mirror)
    own = np.argsort(mirror)  # own[r]: the side's own point that is the other side's r

    def share(rows, columns):
        """Each row's inputs in ``columns`` times their weight rows, summed column by column
        in order: (R, stride). No BLAS: its threads would wake for this, and its sums'
        order depends on the CPU."""
        columns = list(columns)
        x = _features.features(kind, is_short, rows, mirror)[:, columns].astype(np.float64)
        total = np.zeros((len(x), stride))
        for i, column in enumerate(columns):
            total += x[:, i, None] * w[column]
        return total

    def holding(s, spans):
        """Boards where side s holds one checker on each point of the other side's path in
        each (start, length) of ``spans``."""
        rows = np.zeros((len(spans), 50), dtype=np.int8)
        for i, (start, length) in enumerate(spans):
            rows[i, 25 * s + own[start:start + length]] = 1
        return rows

    bias = b1.astype(np.float64) + share(np.zeros((1, 50), np.int8), layout["constant"])[0]
    points = np.zeros((2, 25, 16, stride))
    offs = np.zeros((2, 16, stride))
    runs = np.zeros((2, 24, 16, stride)) if layout["runs"] else None
    longest = np.zeros((2, 7, stride)) if layout["runs"] else None
    counts = np.zeros((16, 50), dtype=np.int8)
    for s in range(2):
        for p in range(25 if is_short else 24):  # no bar in long nardy (L3)
            counts[:] = 0
            counts[:, 25 * s + p] = np.arange(16)
            if p == 24:
                columns = [layout["bar"](s)]
            else:
                columns = list(range(block * s + units * p, block * s + units * (p + 1)))
                columns += layout["head"](s) if p == 23 and layout["head"] else []
            points[s, p] = share(counts, columns)
        counts[:] = 0
        counts[:, 25 * s] = np.arange(16)
        offs[s] = share(counts, [layout["off"](s)])
        if runs is not None:  # a side holds at most 15 points: runs of 1 to 15
            spans = [(start, n) for start in range(24) for n in range(1, 16) if start + n <= 24]
            shares = share(holding(s, spans), range(layout["runs"](s), layout["runs"](s) + 24))
            for (start, n), row in zip(spans, shares):
                runs[s, start, n] = row
            longest[s] = share(holding(s, [(0, n) for n in range(7)]), [layout["longest"](s)])
    shots = None
    if "shots" in layout and w[C_SHOTS:C_SHOTS + 8].any():
        rolls, backs, losses = _features.shots_tables()
        shots = np.zeros((2, SHOTS_FIRST[4], stride))
        for s in range(2):
            for k, group in enumerate((rolls, rolls, backs, losses)):
                shots[s, SHOTS_FIRST[k]:SHOTS_FIRST[k + 1]] = (
                    group.astype(np.float64)[:, None] * w[layout["shots"](s) + k])
    return bias, points, offs, runs, longest, shots


def _extreme(points, offs, runs, longest, shots, double sign):
    """Each unit's largest sum of ``sign`` times the table rows one side can switch on: the
    points of at most 15 checkers (knapsack over the points), its count, each start's run
    and the longest, and each of its four shots inputs, at their largest (sound, not
    tight). (stride,) float64."""
    best = np.full((16,) + points.shape[2:], -np.inf)
    best[0] = 0.0
    for p in range(points.shape[0]):
        rows = sign * points[p]
        new = best.copy()
        for c in range(15):
            new[c + 1:] = np.maximum(new[c + 1:], best[c] + rows[1:16 - c])
        best = new
    total = best.max(axis=0) + (sign * offs).max(axis=0)
    if runs is not None:
        total += np.maximum(0.0, (sign * runs).max(axis=1)).sum(axis=0)
        total += (sign * longest).max(axis=0)
    if shots is not None:
        for k in range(4):
            total += (sign * shots[SHOTS_FIRST[k]:SHOTS_FIRST[k + 1]]).max(axis=0)
    return total


def _integer(bias, points, offs, runs, longest, shots, w2t, int qn):
    """The integer network of the float64 tables (_tables) and output weights ``w2t``:
    each unit's scale 2^k, k <= 10 the largest at which no board's sum of its int16 rows
    can leave int16; the rows (in _tables' order, flattened, each qn long), bias, clamp,
    multiplier,
    int16 output weights (each output at its own power of two, at most NN_QW in size), their
    sums times 16384 (the sigmoid's 1/2, which the kernel's sigmoids leave out) and their
    scales."""
    stride = bias.shape[0]
    given = [points, offs, runs, longest, shots]  # _extreme's order; None where absent
    tables = [table for table in given if table is not None]

    def bound(scaled):
        """Each unit's largest |sum| over boards, for the tables ``scaled``."""
        rows = iter(scaled[1:])
        sides = [None if table is None else next(rows) for table in given]
        extremes = [[_extreme(*[None if t is None else t[s] for t in sides], sign)
                     for s in range(2)] for sign in (1.0, -1.0)]
        return np.maximum(scaled[0] + sum(extremes[0]), -scaled[0] + sum(extremes[1]))

    k = np.minimum(10, np.floor(np.log2(32000.0 / np.maximum(bound([bias] + tables), 1e-9))))
    while True:
        if (k < 0).any():
            raise FastNardyError("a hidden unit's sums are too large for int16 arithmetic")
        scaled = [np.rint(t * 2.0 ** k) for t in [bias] + tables]
        over = bound(scaled) > 32767
        if not over.any():
            break
        k -= over
    qbias = np.zeros(qn, np.int16)
    qbias[:stride] = scaled[0]
    rows = np.concatenate([t.reshape(-1, stride) for t in scaled[1:]])
    qtable = np.zeros((len(rows), qn), np.int16)
    qtable[:, :stride] = rows
    shift = (10 - k).astype(np.int64)
    qlim = np.zeros(qn, np.int16)
    qlim[:stride] = 16383 >> shift
    qmul = np.ones(qn, np.int16)
    qmul[:stride] = 1 << shift
    largest = np.abs(w2t).max(axis=1).astype(np.float64)
    out = np.minimum(24, np.floor(np.log2(NN_QW / np.maximum(largest, 2.0 ** -24))))
    qw2t = np.zeros((w2t.shape[0], qn), np.int16)
    qw2t[:, :stride] = np.rint(w2t.astype(np.float64) * 2.0 ** out[:, None])
    offset = 16384.0 * qw2t.sum(axis=1, dtype=np.int64)
    return qtable, qbias, qlim, qmul, qw2t, offset, 2.0 ** -(out + 15)


def _aligned(array):
    """A read-only copy of ``array`` whose data starts on a 64-byte boundary: a cache line,
    so that no 64-byte row of a table straddles two (numpy's own start 16 bytes past one)."""
    buffer = np.empty(array.nbytes + 64, np.uint8)
    start = -buffer.ctypes.data % 64
    copy = buffer[start:start + array.nbytes].view(array.dtype).reshape(array.shape)
    copy[...] = array
    copy.setflags(write=False)
    return copy


cdef class Network:
    """A network compiled for inference: ``Network(kind, is_short, mirror, hidden_weights,
    hidden_bias, output_weights, output_bias)`` with the arrays of an Evaluator (checked
    there), ``kind`` 0 raw, 1 tdgammon, 2 nardy, 3 shots and ``mirror`` the game's
    MIRROR_COLUMNS;
    ``race``, a Network of the same kind and game without one, values the races
    (_features.in_contact false) instead; ``crashed``, the same in short nardy for the
    tdgammon or shots kind, the crashed boards of the rest (_features.in_crashed); ``bearoff``,
    a fastnardy._bearoff.Table, the positions it holds (from their database entry, on every
    path but feature arrays, which are not positions). ``arithmetic``
    "float" (float32, the oracle) or "int16" (_nnet_simd.h's integer network: the same
    values on every CPU; the race and crashed networks have their network's). Read-only:
    safe to share between threads."""

    def __init__(self, int kind, bint is_short, mirror, hidden_weights, hidden_bias,
                 output_weights, output_bias, Network race=None, str arithmetic="float",
                 Network crashed=None, Table bearoff=None):
        cdef int k
        cdef const char* rows
        if arithmetic not in ARITHMETICS:
            raise FastNardyError(f"arithmetic is one of {ARITHMETICS}, not {arithmetic!r}")
        if self.arrays is not None:  # other threads may be reading its weights
            raise FastNardyError("a Network is built once; make a new one")
        if kind < K_RAW or kind > K_SHOTS:
            raise FastNardyError(f"kind must be 0, 1, 2 or 3, not {kind}")
        for other, name in ((race, "race"), (crashed, "crashed")):
            if other is not None and (other.net.kind != kind or other.net.is_short != is_short
                                      or other.race is not None or other.crashed is not None
                                      or other.bearoff is not None
                                      or other.arithmetic != arithmetic):
                raise FastNardyError(f"a {name} network has the kind, game and arithmetic "
                                     f"of its network and no race or crashed network or "
                                     f"bear-off database of its own")
        if crashed is not None and (not is_short or kind not in (K_TDGAMMON, K_SHOTS)):
            raise FastNardyError("a crashed network values short nardy's tdgammon or shots "
                                 "inputs")
        given = [np.asarray(a, dtype=np.float32) for a in (hidden_weights, hidden_bias,
                                                            output_weights, output_bias)]
        hidden = given[1].shape[0] if given[1].ndim == 1 else 0
        if hidden > NN_MAX_HIDDEN:
            raise FastNardyError(f"a network has at most {NN_MAX_HIDDEN} hidden units, not "
                                 f"{hidden}")
        if (given[0].shape != (WIDTHS[kind], hidden) or hidden < 1
                or given[2].shape != (hidden, NN_OUTPUTS) or given[3].shape != (NN_OUTPUTS,)):
            raise FastNardyError("the network's arrays do not fit its kind")
        stride = -(-hidden // 16) * 16  # padded units (to NN_L): zero weights in and out
        w1 = np.zeros((WIDTHS[kind], stride), dtype=np.float32)
        w1[:, :hidden] = given[0]
        b1 = np.zeros(stride, dtype=np.float32)
        b1[:hidden] = given[1]
        w2t = np.zeros((NN_OUTPUTS, stride), dtype=np.float32)
        w2t[:, :hidden] = given[2].T
        b2 = np.ascontiguousarray(given[3])
        bias, points, offs, runs, longest, shots = _tables(kind, is_short, mirror, w1, b1)
        sections = [t for t in (points, offs, runs, longest, shots) if t is not None]
        starts = np.cumsum([0] + [t.size // stride for t in sections])  # each one's first row
        tables = (w1, b1, w2t, b2, bias.astype(np.float32))
        if arithmetic == "int16":  # the rows of the integer network only
            tables += _integer(bias, points, offs, runs, longest, shots, w2t,
                               -(-hidden // 32) * 32)
        else:
            tables += (np.concatenate([t.reshape(-1, stride) for t in sections]
                                      ).astype(np.float32),)
        tables = tuple(_aligned(array) for array in tables)
        w1, b1, w2t, b2, bias, table = tables[:6]
        self.net.mirror = mirror_of(mirror)
        self.net.kind = kind
        self.net.width = WIDTHS[kind]
        self.net.hidden = hidden
        self.net.stride = stride
        self.net.is_short = is_short
        self.net.w1 = <const float*>_data(w1)
        self.net.b1 = <const float*>_data(b1)
        self.net.w2t = <const float*>_data(w2t)
        self.net.bias = <const float*>_data(bias)
        self.net.row_bytes = table.strides[0]
        rows = <const char*>_data(table)
        self.net.points = rows
        self.net.offs = rows + <Py_ssize_t>starts[1] * self.net.row_bytes
        self.net.runs = self.net.longest = self.net.shots = NULL
        self.net.escapes = escape_table()
        self.net.shots_of = shots_function()
        if runs is not None:
            self.net.runs = rows + <Py_ssize_t>starts[2] * self.net.row_bytes
            self.net.longest = rows + <Py_ssize_t>starts[3] * self.net.row_bytes
        if shots is not None:
            self.net.shots = rows + <Py_ssize_t>starts[len(sections) - 1] * self.net.row_bytes
        for k in range(NN_OUTPUTS):
            self.net.b2[k] = b2[k]
        self.net.qn = 0
        if arithmetic == "int16":
            qbias, qlim, qmul, qw2t, qoffset, qscale = tables[6:]
            self.net.qn = qbias.shape[0]
            self.net.qbias = <const int16_t*>_data(qbias)
            self.net.qlim = <const int16_t*>_data(qlim)
            self.net.qmul = <const int16_t*>_data(qmul)
            self.net.qw2t = <const int16_t*>_data(qw2t)
            for k in range(NN_OUTPUTS):
                self.net.qoffset[k] = qoffset[k]
                self.net.qscale[k] = qscale[k]
        self.arithmetic = arithmetic
        self.race = race
        self.net.race = &race.net if race is not None else NULL
        self.crashed = crashed
        self.net.crashed = &crashed.net if crashed is not None else NULL
        self.bearoff = bearoff
        self.net.bearoff = &bearoff.table if bearoff is not None else NULL
        self.arrays = tables
        self.args = (kind, is_short, np.asarray(mirror), hidden_weights, hidden_bias,
                     output_weights, output_bias, race, arithmetic, crashed, bearoff)

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

    def key_equity(self, lo, hi):
        """The cubeless equity of one packed key (mover's frame), its words ``lo`` and
        ``hi`` each from 0 to 2**64 - 1, checked: batch 1 without numpy."""
        cdef nn_scratch s
        cdef float probs[NN_OUTPUTS]
        cdef int fault
        cdef uint64_t words[2]
        _key_of(lo, hi, self.net.is_short, &words[0], &words[1])
        nn_scratch_clear(&s)
        fault = nn_key(&self.net, words[0], words[1], &s, probs)
        if fault:
            raise_fault(fault, 1)
        nn_probabilities(probs, NN_OUTPUTS)
        return nn_equity(probs)

    def of_features(self, features):
        """The five outputs (N, 5) float32 of a C-contiguous (N, width) float32 array of
        finite features (fastnardy.network checks it)."""
        cdef const float* x
        cdef float* out
        cdef nn_scratch* s
        cdef Py_ssize_t i, n, start, stop
        if self.net.qn:
            raise FastNardyError("an int16 network values boards, not feature arrays (their "
                                 "values are not its integers)")
        if not (isinstance(features, np.ndarray) and features.dtype == np.float32
                and features.ndim == 2 and features.shape[1] == self.net.width
                and features.flags.c_contiguous):
            raise FastNardyError(f"features must be C-contiguous (N, {self.net.width}) "
                                 f"float32")
        n = features.shape[0]
        result = np.empty((n, NN_OUTPUTS), dtype=np.float32)
        if n == 0:
            return result
        x = <const float*>_data(features)
        out = <float*>_data(result)
        s = nn_scratch_new()
        if s == NULL:
            raise MemoryError()
        try:
            for start in range(0, n, SLICE):
                stop = min(n, start + SLICE)
                with nogil:
                    for i in range(start, stop):
                        forward(&self.net, x + i * self.net.width, s, out + NN_OUTPUTS * i)
                    nn_probabilities(out + NN_OUTPUTS * start, NN_OUTPUTS * (stop - start))
                PyErr_CheckSignals()
        finally:
            nn_scratch_free(s)
        return result

    cdef object _run(self, object boards, int as_equity):
        """Outputs (as_equity 0) or equities (1) of rows or keys: each slice's sums, then
        their sigmoids at once (nn_probabilities), then the equities."""
        cdef const int8_t* rows = NULL
        cdef const uint64_t* keys = NULL
        cdef float* first
        cdef float* pout
        cdef double* eout = NULL
        cdef nn_scratch* s
        cdef Py_ssize_t i, n, start, stop
        cdef int faults = 0
        array = as_array(boards, "boards", InvalidPositionError)
        is_keys = array.dtype.names is not None  # as fastnardy._features reads boards
        array = keys_array(array) if is_keys else rows_array(array)
        n = array.shape[0]
        if as_equity:
            result = np.empty(n, dtype=np.float64)
            outputs = np.empty((min(n, SLICE), NN_OUTPUTS), dtype=np.float32)
        else:
            result = outputs = np.empty((n, NN_OUTPUTS), dtype=np.float32)
        if n == 0:
            return result
        first = <float*>_data(outputs)
        if as_equity:
            eout = <double*>_data(result)
        if is_keys:
            keys = <const uint64_t*>_data(array)
        else:
            rows = <const int8_t*>_data(array)
        s = nn_scratch_new()
        if s == NULL:
            raise MemoryError()
        try:
            for start in range(0, n, SLICE):
                stop = min(n, start + SLICE)
                with nogil:
                    # the slice's outputs at pout[0], or in place in the result
                    pout = first + (0 if as_equity else NN_OUTPUTS * start)
                    i = start
                    while i + 1 < stop:
                        if keys != NULL:
                            faults |= nn_key2(&self.net, keys[2 * i], keys[2 * i + 1],
                                              keys[2 * i + 2], keys[2 * i + 3], s,
                                              pout + NN_OUTPUTS * (i - start),
                                              pout + NN_OUTPUTS * (i + 1 - start))
                        else:
                            faults |= nn_row2(&self.net, rows + 50 * i, rows + 50 * i + 50, s,
                                              pout + NN_OUTPUTS * (i - start),
                                              pout + NN_OUTPUTS * (i + 1 - start))
                        i += 2
                    if i < stop:
                        if keys != NULL:
                            faults |= nn_key(&self.net, keys[2 * i], keys[2 * i + 1], s,
                                             pout + NN_OUTPUTS * (i - start))
                        else:
                            faults |= nn_row(&self.net, rows + 50 * i, s,
                                             pout + NN_OUTPUTS * (i - start))
                    if faults == 0:  # else the call raises: no result is kept
                        nn_probabilities(pout, NN_OUTPUTS * (stop - start))
                        if eout != NULL:
                            for i in range(start, stop):
                                eout[i] = nn_equity(pout + NN_OUTPUTS * (i - start))
                if faults:
                    raise_fault(faults, keys != NULL)
                PyErr_CheckSignals()
        finally:
            nn_scratch_free(s)
        return result

