"""fastnardy._batches -- the batch entry points (counts, expansions and the chance nodes of
many rows or keys in one call, without the GIL), the keys' Python functions (pack, unpack,
swap_key) and self-play (whole games in the kernel). Rule ids refer to RULES.md."""

from libc.stdint cimport uint64_t, int8_t, int32_t, int64_t
cimport cython
from libc.string cimport memcmp, memcpy, memset
from libc.stdlib cimport malloc, realloc, free
from cpython.buffer cimport PyBuffer_FillInfo

from fastnardy._packed cimport (field, mir, nb_board, nb_board_from_key, nb_build, nb_check_key,
                                nb_entry, nb_key_to_row, nb_rules, nb_swap2, nb_swap_key)
from fastnardy._movegen cimport (ctx_acquire, ctx_raise_if_stopped, ctx_release, ctx_watch,
                                 NB_COUNT, NB_ORDER, nb_ctx, nb_generate, nb_tick)
from fastnardy._args cimport (_as_int, _build_error, _data, _game_of, _key_of, _parse_code,
                              _parse_side)
from fastnardy._dice cimport (choice_state, opening_throw, rng_below, rng_next,
                              stream_state)

cdef extern from *:
    """
    #include <stdint.h>
    #if defined(__linux__)
    #include <sys/mman.h>
    #endif
    /* Ask for transparent huge pages on the 2 MB pages inside a large block (Linux, where
       the system leaves them to madvise): one fault a 2 MB page instead of 512. */
    static void nb_huge_pages(void* p, size_t n) {
    #if defined(__linux__) && defined(MADV_HUGEPAGE)
        const uintptr_t huge = (uintptr_t)2 << 20;
        uintptr_t start = ((uintptr_t)p + huge - 1) & ~(huge - 1);
        uintptr_t end = ((uintptr_t)p + n) & ~(huge - 1);
        if (n >= 4 * huge && end > start)
            (void)madvise((void*)start, end - start, MADV_HUGEPAGE);
    #else
        (void)p; (void)n;
    #endif
    }
    /* The keys of k generated entries (lo and hi the first two of each entry's ``stride``
       words) swapped to the next mover's view (nb_swap2) into out: one key a vector in
       the baseline build, two under AVX2, four under AVX-512, the same words; the last
       ones too, never through the baseline's function (GCC tail-called it without a
       vzeroupper, and the SSE code after it ran with the upper halves dirty: on Intel
       CPUs, expanding into keys took a quarter longer). */
    static void nb_swap_entries_base(const uint64_t* e, int stride, int k, int is_short,
                                     uint64_t* out) {
        for (int j = 0; j < k; j++)
            nb_swap2(e[(size_t)stride * j], e[(size_t)stride * j + 1], is_short, out + 2 * j);
    }
    #if defined(NB_X86) && (defined(__clang__) || __GNUC__ >= 12)  /* __builtin_shufflevector */
    #define NB_SWAP_X86 1
    typedef uint64_t nb_v4 __attribute__((vector_size(32)));
    typedef uint64_t nb_v8 __attribute__((vector_size(64)));
    /* the halves of entries a and b as {a.hi, a.lo, b.hi, b.lo} */
    #define NB_TWO(a, b) __builtin_shufflevector(nb_pair(a), nb_pair(b), 1, 0, 3, 2)
    static inline nb_v2 nb_pair(const uint64_t* e) {
        nb_v2 v;
        memcpy(&v, e, 16);
        return v;
    }
    __attribute__((target("avx2"))) static void nb_swap_entries_avx2(
            const uint64_t* e, int stride, int k, int is_short, uint64_t* out) {
        int j = 0;
        for (; j + 2 <= k; j += 2, e += 2 * stride) {
            nb_v4 x = NB_TWO(e, e + stride);
            NB_SWAP_LANES(x, is_short);
            memcpy(out + 2 * j, &x, sizeof x);
        }
        if (j < k) {  /* the last one in a vector too (twice) */
            nb_v4 x = NB_TWO(e, e);
            NB_SWAP_LANES(x, is_short);
            memcpy(out + 2 * j, &x, 16);
        }
    }
    __attribute__((target("avx512f"))) static void nb_swap_entries_avx512(
            const uint64_t* e, int stride, int k, int is_short, uint64_t* out) {
        int j = 0;
        for (; j + 4 <= k; j += 4, e += 4 * stride) {
            nb_v8 x = __builtin_shufflevector(NB_TWO(e, e + stride),
                                              NB_TWO(e + 2 * stride, e + 3 * stride),
                                              0, 1, 2, 3, 4, 5, 6, 7);
            NB_SWAP_LANES(x, is_short);
            memcpy(out + 2 * j, &x, sizeof x);
        }
        if (j < k) {  /* the last one to three in one vector too (the first again after them) */
            nb_v8 x = __builtin_shufflevector(NB_TWO(e, k - j > 1 ? e + stride : e),
                                              NB_TWO(k - j > 2 ? e + 2 * stride : e, e),
                                              0, 1, 2, 3, 4, 5, 6, 7);
            NB_SWAP_LANES(x, is_short);
            memcpy(out + 2 * j, &x, 16);
            if (k - j > 1) memcpy(out + 2 * j + 2, (const char*)&x + 16, 16);
            if (k - j > 2) memcpy(out + 2 * j + 4, (const char*)&x + 32, 16);
        }
    }
    #endif
    static void (*nb_swap_entries)(const uint64_t*, int, int, int, uint64_t*) =
        nb_swap_entries_base;
    /* Ask for the n bytes at p to be written soon (prefetch for writing): the lines past
       a result's last children, which the next generations write. A large result's
       lines are not in the core's caches, and a store that misses waits for its line;
       asked for 1 KB ahead, they are there when written (a third less time for the rows
       of a result larger than the L2 cache). */
    static inline void nb_write_ahead(const char* p, size_t n) {
        for (size_t off = 0; off < n; off += 64)
            __builtin_prefetch(p + off, 1, 3);
    }
    #if defined(NB_X86) && (defined(__clang__) || __GNUC__ >= 8)
    #include <immintrin.h>
    #define NB_ROWS_VBMI 1
    /* The rows of k generated entries (the key, lo and hi, the first two of each entry's
       ``stride`` words), the next mover's side first, as nb_key_to_row(..., 0) writes
       them, a row in a few instructions (AVX-512 VBMI): the key broadcast to four lanes;
       one multishift takes its 24 five-bit fields and two four-bit bars to bytes (lanes
       0-1: points 1-8 of lo, 13-20 of hi; lanes 2-3: points 9-12 and the bar of lo, 21-24
       and the bar of hi); one byte permutation puts each where the row has it (the other
       side's points in its own numbering: 25 - p in short nardy, p +- 12 in long); a field
       of 16 or more is the other side's count + 15: kept, less 15, in the other side's
       half, and a field below 16 the mover's, in the mover's half (each half zero where the
       point is the other's or empty); the bars always. */
    static const uint8_t nb_row_shifts[64] = {
        0, 5, 10, 15, 20, 25, 30, 35,  0, 5, 10, 15, 20, 25, 30, 35,
        40, 45, 50, 55, 60, 0, 0, 0,  40, 45, 50, 55, 60, 0, 0, 0};
    static const uint8_t nb_row_bits[64] = {
        31, 31, 31, 31, 31, 31, 31, 31,  31, 31, 31, 31, 31, 31, 31, 31,
        31, 31, 31, 31, 15, 0, 0, 0,  31, 31, 31, 31, 15, 0, 0, 0};
    static const uint8_t nb_row_order[2][64] = {
        {8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18,
         19, 28, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 8, 9, 10, 11, 12, 13, 14, 15, 24,
         25, 26, 27, 20},
        {27, 26, 25, 24, 15, 14, 13, 12, 11, 10, 9, 8, 19, 18, 17, 16, 7, 6, 5, 4, 3, 2, 1,
         0, 28, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 8, 9, 10, 11, 12, 13, 14, 15, 24, 25,
         26, 27, 20}};
    __attribute__((target("avx512f,avx512bw,avx512vbmi"))) static void nb_rows_entries_vbmi(
            const uint64_t* e, int stride, int k, int is_short, int8_t* out) {
        const __m512i shifts = _mm512_loadu_si512(nb_row_shifts);
        const __m512i bits = _mm512_loadu_si512(nb_row_bits);
        const __m512i order = _mm512_loadu_si512(nb_row_order[is_short != 0]);
        const __m512i sixteen = _mm512_set1_epi8(16), fifteen = _mm512_set1_epi8(15);
        const __mmask64 other = 0xFFFFFFULL, mover = 0xFFFFFFULL << 25;
        const __mmask64 bars = (1ULL << 24) | (1ULL << 49), row = (1ULL << 50) - 1;
        for (int j = 0; j < k; j++, e += stride, out += 50) {
            __m512i x = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i*)e));
            x = _mm512_and_si512(_mm512_multishift_epi64_epi8(shifts, x), bits);
            x = _mm512_permutexvar_epi8(order, x);
            __mmask64 theirs = _mm512_cmpge_epu8_mask(x, sixteen);
            x = _mm512_mask_sub_epi8(x, theirs, x, fifteen);
            __mmask64 keep = (theirs & other) | (~theirs & mover) | bars;
            _mm512_mask_storeu_epi8(out, row, _mm512_maskz_mov_epi8(keep, x));
        }
    }
    #endif
    static int nb_rows_vbmi = 0;
    /* The rows of k entries as nb_rows_entries_vbmi writes them: 1, or 0 where this CPU or
       the instruction set in use has no VBMI (the caller decodes them one by one). */
    static int nb_rows_entries(const uint64_t* e, int stride, int k, int is_short,
                               int8_t* out) {
    #ifdef NB_ROWS_VBMI
        if (nb_rows_vbmi) {
            nb_rows_entries_vbmi(e, stride, k, is_short, out);
            return 1;
        }
    #endif
        (void)e; (void)stride; (void)k; (void)is_short; (void)out;
        return 0;
    }
    /* put in use the variant of instruction set ``isa`` (NB_BASE, NB_AVX2, NB_AVX512 or
       NB_AVX512VNNI: _nnet's SIMD, which this CPU runs); AVX-512 decodes rows with VBMI
       where the CPU has it */
    static void nb_children_use(int isa) {
    #ifdef NB_ROWS_VBMI
        __builtin_cpu_init();
        nb_rows_vbmi = isa >= NB_AVX512 && __builtin_cpu_supports("avx512vbmi");
    #endif
    #ifdef NB_SWAP_X86
        if (isa >= NB_AVX512) { nb_swap_entries = nb_swap_entries_avx512; return; }
        if (isa == NB_AVX2) { nb_swap_entries = nb_swap_entries_avx2; return; }
    #endif
        nb_swap_entries = nb_swap_entries_base;
    }
    """
    void nb_huge_pages(void* p, size_t n) noexcept nogil
    void nb_write_ahead(const char* p, size_t n) noexcept nogil
    void nb_swap_entries(const uint64_t* e, int stride, int k, int is_short,
                         uint64_t* out) noexcept nogil
    int nb_rows_entries(const uint64_t* e, int stride, int k, int is_short,
                        int8_t* out) noexcept nogil
    void nb_children_use(int isa) noexcept nogil

import numpy as np

from . import _nnet
from ._packed import KEY_DTYPE
from .errors import FastNardyError, InvalidDiceError, InvalidPositionError, ResourceLimitError

# expand's children (the keys' swap, the rows' decoding) in the instruction set of the
# network's arithmetic (one choice for both: the best this CPU runs, or FASTNARDY_SIMD's).
nb_children_use(_nnet.SIMD_NAMES.index(_nnet.SIMD))


# --------------------------------------------------------------------------- batches

cdef int nb_batch_board(const nb_batch* bt, Py_ssize_t i, nb_board* b) noexcept nogil:
    """The board of row i into b, checked (0, or an error number for _build_error). b holds
    the board of row i - 1 (the callers pass the same b, and the generator never writes to
    its root): when row i is the same row or key, b stands as it is, built and checked. A
    batch of one position's 21 rolls builds its board once. Not inline: in a function of its
    own the compiler makes a better loop of nb_build (3-4% on batch counts of rows) than
    inside the batch functions, which are large."""
    cdef const int8_t* row
    cdef int err
    if i > 0:
        if bt.keys != NULL:
            if bt.keys[2 * i] == bt.keys[2 * i - 2] and bt.keys[2 * i + 1] == bt.keys[2 * i - 1]:
                return 0
        elif memcmp(bt.rows + 50 * i, bt.rows + 50 * (i - 1), 50) == 0:
            return 0
    if bt.keys != NULL:
        err = nb_check_key(bt.keys[2 * i], bt.keys[2 * i + 1], bt.is_short)
        if err == 0:
            nb_board_from_key(bt.keys[2 * i], bt.keys[2 * i + 1], bt.is_short, b)
        return err
    row = bt.rows + 50 * i
    return nb_build(row, row[24], row + 25, row[49], bt.is_short, b)


cdef int out_reserve(nb_out* o, Py_ssize_t k) noexcept nogil:
    """Room for k more children: 0, 1 over the caller's limit, 2 out of memory. The buffers
    grow by doubling with realloc (large blocks move by remapping, and the untouched tail is
    never resident, so the peak is close to the output's own size)."""
    cdef Py_ssize_t cap = o.cap
    cdef void* p
    if o.limit >= 0 and o.n + k > o.limit:
        return 1
    if o.n + k <= cap:
        return 0
    cap = cap * 2 if cap else o.first_cap
    while cap < o.n + k:
        cap *= 2
    if o.borrowed:
        return out_unborrow(o, cap)
    p = realloc(o.kids, cap * o.width)
    if p == NULL:
        return 2
    nb_huge_pages(p, cap * o.width)
    o.kids = <char*>p
    p = realloc(o.parent, cap * sizeof(int32_t))
    if p == NULL:
        return 2
    o.parent = <int32_t*>p
    if o.with_roll:
        p = realloc(o.roll, cap)
        if p == NULL:
            return 2
        o.roll = <int8_t*>p
    o.cap = cap
    return 0


cdef int out_unborrow(nb_out* o, Py_ssize_t cap) noexcept nogil:
    """Grow borrowed buffers (an ExpandBuffers', which arrays may still view) by copying into
    new blocks of cap children: the old blocks are left to their owner. 0, or 2 out of
    memory."""
    cdef char* kids = <char*>malloc(cap * o.width)
    cdef int32_t* parent = <int32_t*>malloc(cap * sizeof(int32_t))
    cdef int8_t* roll = <int8_t*>malloc(cap) if o.with_roll else NULL
    if kids == NULL or parent == NULL or (o.with_roll and roll == NULL):
        free(kids)
        free(parent)
        free(roll)
        return 2
    nb_huge_pages(kids, cap * o.width)
    memcpy(kids, o.kids, o.n * o.width)
    memcpy(parent, o.parent, o.n * sizeof(int32_t))
    if o.with_roll:
        memcpy(roll, o.roll, o.n)
    o.kids = kids
    o.parent = parent
    o.roll = roll
    o.cap = cap
    o.borrowed = 0
    return 0


cdef enum:
    NB_WRITE_AHEAD = 1024  # bytes of children asked for ahead of the writes (nb_write_ahead)


cdef int out_emit(nb_out* o, const nb_ctx* c, int k, Py_ssize_t parent, int roll,
                  int is_short) noexcept nogil:
    """Append the k entries of a generation as children seen by the next mover: keys
    swapped, or rows decoded from each entry's key, the next mover's side first (branch
    free: faster than the parent's row with the entry's steps applied)."""
    cdef int err = out_reserve(o, k), j
    cdef int8_t* row
    cdef int32_t* up
    if err or k == 0:  # nothing to append (and no buffer yet: no memset on NULL)
        return err
    nb_write_ahead(o.kids + o.width * (o.n + k), NB_WRITE_AHEAD)
    # one tight loop a kind of output (the compiler keeps the game's branch out of them)
    if o.width == 16:
        nb_swap_entries(<const uint64_t*>c.out, sizeof(nb_entry) // 8, k, is_short,
                        <uint64_t*>(o.kids + 16 * o.n))
    elif not nb_rows_entries(<const uint64_t*>c.out, sizeof(nb_entry) // 8, k, is_short,
                             <int8_t*>(o.kids + 50 * o.n)):
        row = <int8_t*>(o.kids + 50 * o.n)
        for j in range(k):
            nb_key_to_row(c.out[j].lo, c.out[j].hi, is_short, row, 0)
            row += 50
    up = o.parent + o.n
    for j in range(k):
        up[j] = <int32_t>parent
    if o.with_roll:
        memset(o.roll + o.n, roll, k)
    o.n += k
    return 0


# The blocks of results freed last, kept for the next result (a batch loop's next expand),
# whose pages are then written again instead of being faulted in and zeroed afresh by the
# system: a third of the time of an expansion into rows. Only blocks of NB_SPARE_MIN bytes or
# more (malloc keeps smaller ones itself), NB_SPARES of them (a result's children, parents
# and rolls), NB_SPARE_TOTAL bytes at most. Touched with the GIL held only: given back by
# _Memory's last reference, taken before an expansion's loop releases the GIL.
cdef enum:
    NB_SPARES = 3
    NB_SPARE_MIN = 1 << 20
    NB_SPARE_TOTAL = 256 << 20
cdef void* _spare[NB_SPARES]
cdef Py_ssize_t _spare_bytes[NB_SPARES]


cdef void _give_back(void* data, Py_ssize_t nbytes) noexcept:
    """Keep a freed block in place of the smallest kept one when it is larger and the kept
    ones stay within NB_SPARE_TOTAL bytes; free what is not kept."""
    cdef int i, least = 0
    cdef Py_ssize_t total = 0
    for i in range(NB_SPARES):
        total += _spare_bytes[i]
        if _spare_bytes[i] < _spare_bytes[least]:
            least = i
    if (nbytes >= NB_SPARE_MIN and nbytes > _spare_bytes[least]
            and total - _spare_bytes[least] + nbytes <= NB_SPARE_TOTAL):
        free(_spare[least])
        _spare[least] = data
        _spare_bytes[least] = nbytes
    else:
        free(data)


cdef void _take_spares(nb_out* o) noexcept:
    """Start o's buffers in the kept blocks when there are two at least: the largest for
    the children, the next for the parents and (chance nodes) the next, or a new block, for
    the rolls (one byte a child, often below NB_SPARE_MIN); its capacity what all of them
    hold."""
    cdef int i, j, k
    cdef int rank[NB_SPARES]
    cdef Py_ssize_t cap
    for i in range(NB_SPARES):
        rank[i] = i
    for i in range(1, NB_SPARES):  # by size, largest first
        k = rank[i]
        j = i
        while j > 0 and _spare_bytes[rank[j - 1]] < _spare_bytes[k]:
            rank[j] = rank[j - 1]
            j -= 1
        rank[j] = k
    if _spare_bytes[rank[1]] == 0:
        return
    cap = min(_spare_bytes[rank[0]] // o.width, _spare_bytes[rank[1]] // sizeof(int32_t))
    if o.with_roll:
        if _spare_bytes[rank[2]] >= cap:
            o.roll = <int8_t*>_spare[rank[2]]
            _spare[rank[2]] = NULL
            _spare_bytes[rank[2]] = 0
        else:
            o.roll = <int8_t*>malloc(cap)
            if o.roll == NULL:
                return
    o.kids = <char*>_spare[rank[0]]
    o.parent = <int32_t*>_spare[rank[1]]
    o.cap = cap
    for i in range(2):
        _spare[rank[i]] = NULL
        _spare_bytes[rank[i]] = 0


cdef class _Memory:
    """malloc'd memory lent to numpy through the buffer protocol, freed (or kept for the
    next result, _give_back) with the last array."""
    cdef void* data
    cdef Py_ssize_t nbytes

    def __dealloc__(self):
        _give_back(self.data, self.nbytes)

    def __getbuffer__(self, Py_buffer* view, int flags):
        PyBuffer_FillInfo(view, self, self.data, self.nbytes, 0, flags)

    def __releasebuffer__(self, Py_buffer* view):
        pass


cdef _Memory _own(void* data, Py_ssize_t nbytes):
    """A _Memory that frees data (malloc'd) with its last reference."""
    cdef _Memory m = _Memory.__new__(_Memory)
    m.data = data
    m.nbytes = nbytes
    return m


cdef class ExpandBuffers:
    """The output buffers of expand_batch and chance_batch, kept from call to call so that
    the pages of a large result are written again rather than faulted in afresh. The arrays
    a call returns are views of them, valid until the next call with the same buffers (which
    overwrites them); a call whose result does not fit moves to larger buffers and leaves the
    old ones to the arrays that still view them. One call at a time: a call while another
    thread's call uses them raises FastNardyError."""
    cdef _Memory kids      # children (width bytes each), parent (int32), roll (int8)
    cdef _Memory parent
    cdef _Memory roll
    cdef _Memory offsets   # chance nodes' CSR offsets (int64)
    cdef Py_ssize_t cap    # children the three buffers hold
    cdef int busy

    def __reduce__(self):
        raise TypeError("ExpandBuffers holds scratch memory and cannot be pickled")


cdef object _adopt(void* data, Py_ssize_t n, Py_ssize_t item, object dtype, tuple shape):
    """A numpy array over n items of malloc'd memory, without a copy (the array frees it)."""
    cdef void* p
    if n == 0:
        free(data)
        return np.empty(shape, dtype=dtype)
    p = realloc(data, n * item)  # give back the unused tail
    return np.frombuffer(_own(p if p != NULL else data, n * item), dtype=dtype).reshape(shape)


cdef object _batch_boards(object boards, nb_batch* bt):
    """Check a batch of boards (rows or keys) and point bt at a C-contiguous copy, which the
    caller keeps alive (it is returned)."""
    arr = np.asarray(boards)
    if arr.dtype == KEY_DTYPE:
        if arr.ndim != 1:
            raise InvalidPositionError(f"keys must be a 1-D array of KEY_DTYPE, not shape {arr.shape}")
        arr = np.ascontiguousarray(arr)  # each key's lo and hi words, in order
        bt.n = arr.shape[0]
        bt.rows = NULL
        bt.keys = <const uint64_t*>_data(arr) if bt.n else NULL
        return arr
    if arr.ndim != 2 or arr.shape[1] != 50:
        raise InvalidPositionError(f"boards must be rows of shape (N, 50) or a 1-D array of "
                                   f"KEY_DTYPE keys, not shape {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise InvalidPositionError(f"boards must hold integers (int8/uint8), not {arr.dtype}")
    if arr.size and (int(arr.min()) < 0 or int(arr.max()) > 15):
        raise InvalidPositionError("board counts must be from 0 to 15")
    arr = np.ascontiguousarray(arr, dtype=np.int8)
    bt.n = arr.shape[0]
    bt.keys = NULL
    bt.rows = <const int8_t*>_data(arr) if bt.n else NULL
    return arr


cdef object _batch_dice(object dice, Py_ssize_t n, int one_roll, Py_ssize_t* step):
    """(N, 2) dice, or with one_roll also (2,): one roll for every row (step 0). A
    C-contiguous int8 copy."""
    darr = np.asarray(dice)
    if darr.dtype.kind not in "iu":
        raise InvalidDiceError(f"dice must hold integers, not {darr.dtype}")
    if one_roll and darr.shape == (2,):
        step[0] = 0
    elif darr.ndim == 2 and darr.shape[1] == 2 and darr.shape[0] == n:
        step[0] = 2
    else:
        raise InvalidDiceError(f"dice must have shape ({n}, 2)"
                               f"{', or (2,) for one roll of every row' if one_roll else ''}, "
                               f"not {darr.shape}")
    if darr.size and (int(darr.min()) < 1 or int(darr.max()) > 6):
        raise InvalidDiceError("dice must be from 1 to 6")
    return np.ascontiguousarray(darr, dtype=np.int8)


cdef int _batch_error(int err, const nb_batch* bt, Py_ssize_t i) except -1:
    cdef const int8_t* row
    if bt.keys != NULL:
        return _build_error(err, NULL, 0, NULL, 0, <int>i)
    row = bt.rows + 50 * i
    return _build_error(err, row, row[24], row + 25, row[49], <int>i)


def count_turns_batch(code, boards, dice):
    """count_turns for many positions, without the GIL: boards are (N, 50) int8/uint8 rows
    (me[24], me_bar, opp[24], opp_bar) or a 1-D KEY_DTYPE array of keys, mover's frame; dice
    (N, 2) ints 1..6, or (2,) for one roll of every row. Returns an int32 array of N counts."""
    cdef nb_rules r
    cdef nb_board b
    cdef nb_batch bt
    cdef const int8_t* dv
    cdef int32_t* ov
    cdef Py_ssize_t i, step, bad = -1
    cdef int err = 0
    cdef nb_ctx* c
    _parse_code(code, &r)
    bt.is_short = r.game
    keep = _batch_boards(boards, &bt)
    darr = _batch_dice(dice, bt.n, 1, &step)
    dv = <const int8_t*>_data(darr)
    out = np.empty(bt.n, dtype=np.int32)
    ov = <int32_t*>_data(out)
    c = ctx_acquire()
    try:
        ctx_watch(c)
        with nogil:
            for i in range(bt.n):
                err = nb_batch_board(&bt, i, &b)
                if err:
                    bad = i
                    break
                ov[i] = nb_generate(c, &r, &b, dv[step * i], dv[step * i + 1], NB_COUNT)
                if nb_tick(c):
                    break
        ctx_raise_if_stopped(c)
    finally:
        ctx_release(c)
    if bad >= 0:
        _batch_error(err, &bt, bad)
    return out


cdef object _unshared(object array, ExpandBuffers bufs):
    """array, or a copy of it when it views the buffers that a call is about to overwrite
    (the children of the last call expanded again)."""
    if bufs is None or bufs.kids is None or array is None:
        return array
    arr = np.asarray(array)
    for mem in (bufs.kids, bufs.parent, bufs.roll, bufs.offsets):
        if mem is not None and np.may_share_memory(arr, np.frombuffer(mem, dtype=np.uint8)):
            return arr.copy()
    return array


cdef tuple _expand(object code, object boards, object dice, int keys, object max_children,
                   int chance, ExpandBuffers bufs):
    """The work of expand_batch (one roll a row) and chance_batch (the 21 rolls of T5 for
    every row, row-major), without the GIL; into bufs when it is given."""
    if bufs is None:
        return _expand_into(code, boards, dice, keys, max_children, chance, None)
    if bufs.busy:
        raise FastNardyError("these ExpandBuffers are in use by another call: one thread at "
                             "a time (give each thread its own)")
    bufs.busy = 1
    try:
        return _expand_into(code, _unshared(boards, bufs), _unshared(dice, bufs), keys,
                            max_children, chance, bufs)
    finally:
        bufs.busy = 0


cdef tuple _expand_into(object code, object boards, object dice, int keys, object max_children,
                        int chance, ExpandBuffers bufs):
    cdef nb_rules r
    cdef nb_board b
    cdef nb_batch bt
    cdef nb_out o
    cdef const int8_t* dv = NULL
    cdef int64_t* offsets = NULL
    cdef Py_ssize_t i, step = 0, bad = -1, n_offsets
    cdef int err = 0, full = 0, k, d1, d2, ri, own_offsets = 1
    cdef nb_ctx* c
    _parse_code(code, &r)
    bt.is_short = r.game
    keep = _batch_boards(boards, &bt)
    if not chance:
        darr = _batch_dice(dice, bt.n, 0, &step)
        dv = <const int8_t*>_data(darr)
    memset(&o, 0, sizeof(nb_out))
    o.width = 16 if keys else 50
    # a first block for 32 children a position-roll: pages never written are never resident
    # and _adopt gives the tail back, so a generous block costs no memory and saves the
    # copies of growing by doubling
    o.first_cap = max(4096, bt.n * (21 * 32 if chance else 32))
    o.with_roll = chance
    o.limit = -1
    if max_children is not None:
        if (isinstance(max_children, bool) or not hasattr(max_children, "__index__")
                or max_children.__index__() < 0):
            raise FastNardyError(f"max_children must be an int >= 0 or None, not {max_children!r}")
        o.limit = min(max_children.__index__(), 2 ** 62)
    if bufs is not None and bufs.kids is not None:
        o.borrowed = 1
        o.kids = <char*>bufs.kids.data
        o.parent = <int32_t*>bufs.parent.data
        o.roll = <int8_t*>bufs.roll.data
        o.cap = min(bufs.kids.nbytes // o.width, bufs.cap)
    n_offsets = bt.n * 21 + 1
    if chance:
        if bufs is not None and bufs.offsets is not None and bufs.offsets.nbytes >= n_offsets * 8:
            offsets = <int64_t*>bufs.offsets.data
            own_offsets = 0
        else:
            offsets = <int64_t*>malloc(n_offsets * sizeof(int64_t))
            if offsets == NULL:
                raise ResourceLimitError(f"cannot allocate the offsets of {bt.n} rows")
        offsets[0] = 0
    c = ctx_acquire()
    try:
        if bufs is None:
            _take_spares(&o)
        ctx_watch(c)
        with nogil:
            for i in range(bt.n):
                err = nb_batch_board(&bt, i, &b)
                if err:
                    bad = i
                    break
                if chance:
                    ri = 0
                    for d1 in range(1, 7):
                        for d2 in range(d1, 7):
                            k = nb_generate(c, &r, &b, d2, d1, NB_ORDER)
                            full = out_emit(&o, c, k, i, ri, r.game)
                            if full:
                                break
                            ri += 1
                            offsets[21 * i + ri] = o.n
                        if full:
                            break
                else:
                    k = nb_generate(c, &r, &b, dv[step * i], dv[step * i + 1], NB_ORDER)
                    full = out_emit(&o, c, k, i, 0, r.game)
                if full or nb_tick(c):
                    break
        ctx_raise_if_stopped(c)
        if bad >= 0:
            _batch_error(err, &bt, bad)
        if full == 1:
            raise ResourceLimitError(
                f"the result has more than max_children={o.limit} children (row {i} of "
                f"{bt.n}); call with fewer rows at a time")
        if full == 2:
            raise ResourceLimitError(
                f"out of memory after {o.n} children ({o.n * (o.width + 4 + chance)} bytes) at "
                f"row {i} of {bt.n}; call with fewer rows at a time, or set max_children")
        if bufs is not None and not o.borrowed and o.roll == NULL:
            o.roll = <int8_t*>malloc(o.cap if o.cap else 1)
            if o.roll == NULL:
                raise ResourceLimitError("cannot allocate the expansion's buffers")
    except BaseException:
        if not o.borrowed:
            free(o.kids)
            free(o.parent)
            free(o.roll)
        if own_offsets:
            free(offsets)
        raise
    finally:
        ctx_release(c)
    if bufs is not None:
        return _into_buffers(bufs, &o, offsets if own_offsets else NULL, n_offsets, keys,
                             chance)
    if keys:
        children = _adopt(o.kids, o.n, 16, KEY_DTYPE, (o.n,))
    else:
        children = _adopt(o.kids, o.n, 50, np.int8, (o.n, 50))
    parent = _adopt(o.parent, o.n, 4, np.int32, (o.n,))
    if not chance:
        return (children, parent)
    roll = _adopt(o.roll, o.n, 1, np.int8, (o.n,))
    return (children, parent, roll, _adopt(offsets, n_offsets, 8, np.int64, (n_offsets,)))


cdef tuple _into_buffers(ExpandBuffers bufs, nb_out* o, int64_t* new_offsets,
                         Py_ssize_t n_offsets, int keys, int chance):
    """The result of a call into bufs, as views of them: new blocks (a first call, or one
    that outgrew them) become the buffers, the old ones left to the arrays that view them."""
    if not o.borrowed and o.kids == NULL:  # no child, and no buffers yet
        free(o.roll)
        children = np.empty(0, dtype=KEY_DTYPE) if keys else np.empty((0, 50), dtype=np.int8)
        parent = np.empty(0, dtype=np.int32)
        if not chance:
            return (children, parent)
        offsets = np.frombuffer(_own(new_offsets, n_offsets * sizeof(int64_t)) if new_offsets
                                != NULL else bufs.offsets, dtype=np.int64, count=n_offsets)
        return (children, parent, np.empty(0, dtype=np.int8), offsets)
    if not o.borrowed:
        bufs.kids = _own(o.kids, o.cap * o.width)
        bufs.parent = _own(o.parent, o.cap * sizeof(int32_t))
        bufs.roll = _own(o.roll, o.cap if o.cap else 1)
        bufs.cap = o.cap
    if new_offsets != NULL:
        bufs.offsets = _own(new_offsets, n_offsets * sizeof(int64_t))
    if keys:
        children = np.frombuffer(bufs.kids, dtype=KEY_DTYPE, count=o.n)
    else:
        children = np.frombuffer(bufs.kids, dtype=np.int8, count=o.n * 50).reshape(o.n, 50)
    parent = np.frombuffer(bufs.parent, dtype=np.int32, count=o.n)
    if not chance:
        return (children, parent)
    return (children, parent, np.frombuffer(bufs.roll, dtype=np.int8, count=o.n),
            np.frombuffer(bufs.offsets, dtype=np.int64, count=n_offsets))


def expand_batch(code, boards, dice, keys=False, max_children=None, ExpandBuffers buffers=None):
    """Every legal turn of every row, without the GIL: ``(children, parent)``. ``children``
    are the resulting positions from the NEXT mover's view, in T2 order per row: (M, 50) int8
    rows (opp[24], opp_bar, me[24], me_bar) or, with ``keys``, an (M,) KEY_DTYPE array;
    ``parent`` (M,) int32 is the row each came from. Boards as in count_turns_batch; dice
    (N, 2).
    More than ``max_children`` children raise ResourceLimitError. With ``buffers`` (an
    ExpandBuffers) the arrays are views of them, valid until their next call."""
    return _expand(code, boards, dice, 1 if keys else 0, max_children, 0, buffers)


def chance_batch(code, boards, keys=False, max_children=None, ExpandBuffers buffers=None):
    """Every legal turn of every row for each of the 21 rolls of T5 (ROLLS order), without
    the GIL: ``(children, parent, roll, offsets)`` where ``roll`` (M,) int8 indexes the roll
    and ``offsets`` (N * 21 + 1,) int64 is the CSR index: the children of row i and roll j
    are ``children[offsets[21 * i + j]:offsets[21 * i + j + 1]]``. ``buffers`` as in
    expand_batch."""
    return _expand(code, boards, None, 1 if keys else 0, max_children, 1, buffers)



# --------------------------------------------------------------------------- self-play

cdef int greedy_score(const nb_entry* e, int is_short) noexcept nogil:
    """The greedy policy's score of a turn's result, from the mover's view (before the
    swap): the race lead in pips, plus 2 for each point the mover holds with two or more
    checkers and, in short nardy, minus 2 for each of its blots and plus 3 for each opponent
    checker on the bar; in long nardy plus 1 for each point it occupies (spread blocks the
    opponent, L3)."""
    cdef int p, v, mine = 0, theirs = 0, score = 0
    for p in range(1, 25):
        v = <int>field(e.lo, e.hi, p)
        if v >= 16:
            theirs += (v - 15) * mir(p, is_short)
        elif v:
            mine += v * p
            if v >= 2:
                score += 2
            elif is_short:
                score -= 2
            if not is_short:
                score += 1
    mine += 25 * <int>(e.lo >> 60)
    theirs += 25 * <int>(e.hi >> 60)
    if is_short:
        score += 3 * <int>(e.hi >> 60)
    return score + theirs - mine


cdef void nb_start(int is_short, nb_board* b) noexcept nogil:
    """The starting position (L1, S1), from the mover's view."""
    cdef int8_t side[24]
    memset(side, 0, 24)
    if is_short:
        side[23] = 2
        side[12] = 5
        side[7] = 3
        side[5] = 5
    else:
        side[23] = 15
    nb_build(side, 0, side, 0, is_short, b)


cdef void nb_play_game(nb_ctx* c, const nb_rules* r, int koks, int backgammon, uint64_t seed,
                       const int* policy, int max_turns, int8_t* winner, int8_t* points,
                       int8_t* kind, int32_t* turns) noexcept nogil:
    """One game from the start: the T6 opening, then each side plays the turn its policy
    (0 random, 1 greedy) picks among the legal turns in T2 order, until one side bears off
    its 15th checker (L9, S9); scored as L10/S9 with the cube at 1. A game still going after
    max_turns turns is left unfinished (winner -1, kind 4). ``seed`` is the game's dice state
    (stream_state); the random policy chooses from its choice_state, apart from the dice."""
    cdef uint64_t g = seed, pick = choice_state(seed), lo, hi
    cdef nb_board b
    cdef int side, d1, d2, n, k, i, best, score, t = 0
    nb_start(r.game, &b)
    side = opening_throw(&g, &d1, &d2)  # T6; 0 white, 1 black
    if not r.game:  # long: the first player throws both dice again
        d1 = 1 + rng_below(&g, 6)
        d2 = 1 + rng_below(&g, 6)
    while True:
        n = nb_generate(c, r, &b, d1, d2, NB_ORDER)
        nb_tick(c)  # a stop ends the game unfinished below: the call is abandoned
        if n == 0:  # only a position outside T7 has no candidate at all
            t = max_turns
        elif policy[side] == 0 or n == 1:
            k = rng_below(&pick, n) if n > 1 else 0
        else:
            k = 0
            best = greedy_score(&c.out[0], r.game)
            for i in range(1, n):
                score = greedy_score(&c.out[i], r.game)
                if score > best:
                    best = score
                    k = i
        if n:
            nb_swap_key(c.out[k].lo, c.out[k].hi, r.game, &lo, &hi)
            nb_board_from_key(lo, hi, r.game, &b)
            t += 1
        if n and b.o[0] == 15:  # the side that moved has borne off its 15th checker
            winner[0] = <int8_t>side
            turns[0] = t
            points[0] = <int8_t>nb_score(&b, r.game, koks, backgammon, kind)
            return
        if t >= max_turns or c.stop:
            winner[0] = -1
            points[0] = 0
            kind[0] = 4
            turns[0] = t
            return
        side = 1 - side
        d1 = 1 + rng_below(&g, 6)
        d2 = 1 + rng_below(&g, 6)


def simulate_games(code, koks, backgammon, seed, first, n, policy, max_turns=10000, stop=None):
    """Games first .. first + n - 1 of a self-play run, without the GIL: game i plays from its
    own random stream (seed, i), so a run's results do not depend on how it is split.
    ``policy`` is (white's, black's): 0 random, 1 greedy. Returns int8 winner (0 white,
    1 black, -1 unfinished), int8 points, int8 kind (0 oin, 1 mars, 2 koks, 3 backgammon,
    4 unfinished) and int32 turns. ``stop`` (a Stop, set by another thread) or Ctrl-C in the
    main thread stops the call: KeyboardInterrupt."""
    cdef nb_rules r
    cdef int pol[2]
    cdef int64_t i, count, start
    cdef uint64_t s, base
    cdef int8_t* wv
    cdef int8_t* pv
    cdef int8_t* kv
    cdef int32_t* tv
    cdef int cap, ck = 1 if koks else 0, cb = 1 if backgammon else 0
    cdef nb_ctx* c
    _parse_code(code, &r)
    for value, name in ((seed, "seed"), (first, "first"), (n, "n"), (max_turns, "max_turns")):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise FastNardyError(f"{name} must be an int >= 0, not {value!r}")
    if max_turns < 1 or max_turns > 1 << 30:
        raise FastNardyError(f"max_turns must be from 1 to 2**30, not {max_turns!r}")
    try:
        pol[0], pol[1] = [int(p) for p in policy]
    except (TypeError, ValueError):
        raise FastNardyError(f"policy must be two of 0 (random) and 1 (greedy), not {policy!r}") from None
    if pol[0] not in (0, 1) or pol[1] not in (0, 1):
        raise FastNardyError(f"policy must be two of 0 (random) and 1 (greedy), not {policy!r}")
    s = <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF)
    start = first
    count = n
    cap = max_turns
    winner = np.empty(count, dtype=np.int8)
    points = np.empty(count, dtype=np.int8)
    kind = np.empty(count, dtype=np.int8)
    turns = np.empty(count, dtype=np.int32)
    wv = <int8_t*>_data(winner)
    pv = <int8_t*>_data(points)
    kv = <int8_t*>_data(kind)
    tv = <int32_t*>_data(turns)
    c = ctx_acquire()
    try:
        ctx_watch(c, stop)
        base = rng_next(&s)
        with nogil:
            for i in range(count):
                if c.stop:
                    break
                nb_play_game(c, &r, ck, cb,
                             stream_state(base, <uint64_t>(start + i)),
                             pol, cap, wv + i, pv + i, kv + i, tv + i)
        ctx_raise_if_stopped(c)
    finally:
        ctx_release(c)
    return winner, points, kind, turns



# --------------------------------------------------------------------------- keys

def pack(me, me_bar, opp, opp_bar, game=0):
    """The 128-bit key (lo, hi) of a position, mover's frame (layout in fastnardy._packed).
    ``game`` (0 long, 1 short; or "long"/"short") selects the mirror of the opponent's points."""
    cdef int8_t cme[24]
    cdef int8_t copp[24]
    cdef nb_board b
    cdef int g = _game_of(game), err
    _parse_side(me, "me", cme)
    _parse_side(opp, "opp", copp)
    mb = _as_int(me_bar, "me_bar", InvalidPositionError)
    ob = _as_int(opp_bar, "opp_bar", InvalidPositionError)
    err = nb_build(cme, mb, copp, ob, g, &b)
    if err:
        _build_error(err, cme, mb, copp, ob, -1)
    return (b.lo, b.hi)



def unpack(lo, hi, game=0):
    """Inverse of pack: (me, me_bar, opp, opp_bar) with 24-tuples in each side's own numbering."""
    cdef nb_board b
    cdef int g = _game_of(game), p
    cdef uint64_t clo, chi
    _key_of(lo, hi, g, &clo, &chi)
    nb_board_from_key(clo, chi, g, &b)
    return (tuple([b.m[p] for p in range(1, 25)]), b.m[25],
            tuple([b.o[mir(p, g)] for p in range(1, 25)]), b.o[25])


def swap_key(lo, hi, game=0):
    """The key of the same position with the other side to move (its own frame)."""
    cdef int g = _game_of(game)
    cdef uint64_t clo, chi, olo, ohi
    _key_of(lo, hi, g, &clo, &chi)
    nb_swap_key(clo, chi, g, &olo, &ohi)
    return (olo, ohi)


# --------------------------------------------------------------------------- scoring

cdef int nb_score(const nb_board* b, int is_short, int koks, int backgammon,
                  int8_t* kind) noexcept nogil:
    """The points won by the side that just bore off its 15th checker (L9, S9), b being the
    board after its turn (the loser to move): 1 if the loser has borne off a checker, else
    L10 mars 2, or koks 3 (when koks counts) with a loser's checker on its points 7..24; S9
    gammon 2, or backgammon 3 (when it counts) with a loser's checker on the bar or in the
    winner's home. kind: 0 oin (single), 1 mars (gammon), 2 koks, 3 backgammon."""
    cdef int i, loser_out = 0
    if b.m[0]:
        kind[0] = 0
        return 1
    if not is_short:
        for i in range(7, 25):
            loser_out |= b.m[i]
        kind[0] = 2 if (koks and loser_out) else 1
        return 3 if kind[0] == 2 else 2
    loser_out = b.m[25]
    for i in range(19, 25):  # the winner's home, in the loser's numbering
        loser_out |= b.m[i]
    kind[0] = 3 if (backgammon and loser_out) else 1
    return 3 if kind[0] == 3 else 2
