"""fastnardy._batches -- the batch entry points (counts, expansions and the chance nodes of
many rows or keys in one call, without the GIL), the keys' Python functions (pack, unpack,
swap_key) and self-play (whole games in the kernel). Rule ids refer to RULES.md."""

from libc.stdint cimport uint64_t, int8_t, int32_t, int64_t
from libc.string cimport memcmp, memset
from libc.stdlib cimport malloc, realloc, free
from cpython.buffer cimport PyBuffer_FillInfo

from fastnardy._packed cimport (field, mir, nb_board, nb_board_from_key, nb_build, nb_check_key,
                                nb_entry, nb_key_to_row, nb_rules, nb_swap_key)
from fastnardy._movegen cimport (ctx_acquire, ctx_raise_if_stopped, ctx_release, ctx_watch,
                                 NB_COUNT, NB_ORDER, nb_ctx, nb_generate, nb_tick)
from fastnardy._args cimport (_as_int, _build_error, _game_of, _key_of, _parse_code,
                              _parse_side)

import numpy as np

from ._packed import KEY_DTYPE
from .errors import FastNardyError, InvalidDiceError, InvalidPositionError, ResourceLimitError


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
    p = realloc(o.kids, cap * o.width)
    if p == NULL:
        return 2
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


cdef int out_emit(nb_out* o, const nb_ctx* c, int k, Py_ssize_t parent, int roll,
                  int is_short) noexcept nogil:
    """Append the k entries of a generation as children seen by the next mover."""
    cdef int err = out_reserve(o, k), j
    cdef uint64_t* key
    if err:
        return err
    for j in range(k):
        if o.width == 16:
            key = <uint64_t*>(o.kids + 16 * o.n)
            nb_swap_key(c.out[j].lo, c.out[j].hi, is_short, &key[0], &key[1])
        else:
            nb_key_to_row(c.out[j].lo, c.out[j].hi, is_short, <int8_t*>(o.kids + 50 * o.n))
        o.parent[o.n] = <int32_t>parent
        if o.with_roll:
            o.roll[o.n] = <int8_t>roll
        o.n += 1
    return 0


cdef class _Memory:
    """malloc'd memory lent to numpy through the buffer protocol, freed with the last array."""
    cdef void* data
    cdef Py_ssize_t nbytes

    def __dealloc__(self):
        free(self.data)

    def __getbuffer__(self, Py_buffer* view, int flags):
        PyBuffer_FillInfo(view, self, self.data, self.nbytes, 0, flags)

    def __releasebuffer__(self, Py_buffer* view):
        pass


cdef object _adopt(void* data, Py_ssize_t n, Py_ssize_t item, object dtype, tuple shape):
    """A numpy array over n items of malloc'd memory, without a copy (the array frees it)."""
    cdef _Memory m
    cdef void* p
    if n == 0:
        free(data)
        return np.empty(shape, dtype=dtype)
    p = realloc(data, n * item)  # give back the unused tail
    m = _Memory.__new__(_Memory)
    m.data = p if p != NULL else data
    m.nbytes = n * item
    return np.frombuffer(m, dtype=dtype).reshape(shape)


cdef object _batch_boards(object boards, nb_batch* bt):
    """Check a batch of boards (rows or keys) and point bt at a C-contiguous copy, which the
    caller keeps alive (it is returned)."""
    arr = np.asarray(boards)
    if arr.dtype == KEY_DTYPE:
        if arr.ndim != 1:
            raise InvalidPositionError(f"keys must be a 1-D array of KEY_DTYPE, not shape {arr.shape}")
        arr = np.ascontiguousarray(arr).view(np.uint64).reshape(arr.shape[0], 2)
        bt.n = arr.shape[0]
        bt.rows = NULL
        bt.keys = <const uint64_t*><size_t>arr.ctypes.data if bt.n else NULL
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
    bt.rows = <const int8_t*><size_t>arr.ctypes.data if bt.n else NULL
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
    dv = <const int8_t*><size_t>darr.ctypes.data
    out = np.empty(bt.n, dtype=np.int32)
    ov = <int32_t*><size_t>out.ctypes.data
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


cdef tuple _expand(object code, object boards, object dice, int keys, object max_children,
                   int chance):
    """The work of expand_batch (one roll a row) and chance_batch (the 21 rolls of T5 for
    every row, row-major), without the GIL."""
    cdef nb_rules r
    cdef nb_board b
    cdef nb_batch bt
    cdef nb_out o
    cdef const int8_t* dv = NULL
    cdef int64_t* offsets = NULL
    cdef Py_ssize_t i, step = 0, bad = -1
    cdef int err = 0, full = 0, k, d1, d2, ri
    cdef nb_ctx* c
    _parse_code(code, &r)
    bt.is_short = r.game
    keep = _batch_boards(boards, &bt)
    if not chance:
        darr = _batch_dice(dice, bt.n, 0, &step)
        dv = <const int8_t*><size_t>darr.ctypes.data
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
    if chance:
        offsets = <int64_t*>malloc((bt.n * 21 + 1) * sizeof(int64_t))
        if offsets == NULL:
            raise ResourceLimitError(f"cannot allocate the offsets of {bt.n} rows")
        offsets[0] = 0
    c = ctx_acquire()
    try:
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
    except BaseException:
        free(o.kids)
        free(o.parent)
        free(o.roll)
        free(offsets)
        raise
    finally:
        ctx_release(c)
    if keys:
        children = _adopt(o.kids, o.n, 16, KEY_DTYPE, (o.n,))
    else:
        children = _adopt(o.kids, o.n, 50, np.int8, (o.n, 50))
    parent = _adopt(o.parent, o.n, 4, np.int32, (o.n,))
    if not chance:
        return (children, parent)
    roll = _adopt(o.roll, o.n, 1, np.int8, (o.n,))
    return (children, parent, roll, _adopt(offsets, bt.n * 21 + 1, 8, np.int64, (bt.n * 21 + 1,)))


def expand_batch(code, boards, dice, keys=False, max_children=None):
    """Every legal turn of every row, without the GIL: ``(children, parent)``. ``children``
    are the resulting positions from the NEXT mover's view, in T2 order per row: (M, 50) int8
    rows (opp[24], opp_bar, me[24], me_bar) or, with ``keys``, an (M,) KEY_DTYPE array;
    ``parent`` (M,) int32 is the row each came from. Boards as in count_turns_batch; dice
    (N, 2).
    More than ``max_children`` children raise ResourceLimitError."""
    return _expand(code, boards, dice, 1 if keys else 0, max_children, 0)


def chance_batch(code, boards, keys=False, max_children=None):
    """Every legal turn of every row for each of the 21 rolls of T5 (ROLLS order), without
    the GIL: ``(children, parent, roll, offsets)`` where ``roll`` (M,) int8 indexes the roll
    and ``offsets`` (N * 21 + 1,) int64 is the CSR index: the children of row i and roll j
    are ``children[offsets[21 * i + j]:offsets[21 * i + j + 1]]``."""
    return _expand(code, boards, None, 1 if keys else 0, max_children, 1)



# --------------------------------------------------------------------------- self-play

cdef inline uint64_t rng_next(uint64_t* state) noexcept nogil:
    """splitmix64: the same stream on every machine."""
    cdef uint64_t z
    state[0] += <uint64_t>0x9E3779B97F4A7C15
    z = state[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)


cdef inline int rng_below(uint64_t* state, int n) noexcept nogil:
    """A number from 0 to n - 1 (multiply-shift on the top 32 bits)."""
    return <int>(((rng_next(state) >> 32) * <uint64_t>n) >> 32)


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
    max_turns turns is left unfinished (winner -1, kind 4)."""
    cdef uint64_t g = seed, lo, hi
    cdef nb_board b
    cdef int side, d1, d2, n, k, i, best, score, t = 0, loser_out
    nb_start(r.game, &b)
    d1 = d2 = 0
    while d1 == d2:  # T6: one die each, ties thrown again
        d1 = 1 + rng_below(&g, 6)
        d2 = 1 + rng_below(&g, 6)
    side = 0 if d1 > d2 else 1  # 0 white, 1 black
    if not r.game:  # long: the first player throws both dice again
        d1 = 1 + rng_below(&g, 6)
        d2 = 1 + rng_below(&g, 6)
    while True:
        n = nb_generate(c, r, &b, d1, d2, NB_ORDER)
        if n == 0:  # only a position outside T7 has no candidate at all
            t = max_turns
        elif policy[side] == 0 or n == 1:
            k = rng_below(&g, n) if n > 1 else 0
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
            if b.m[0]:
                kind[0] = 0
                points[0] = 1
            elif not r.game:
                loser_out = 0
                for i in range(7, 25):
                    loser_out |= b.m[i]
                kind[0] = 2 if (koks and loser_out) else 1
                points[0] = 3 if kind[0] == 2 else 2
            else:
                loser_out = b.m[25]
                for i in range(19, 25):  # the winner's home, in the loser's numbering
                    loser_out |= b.m[i]
                kind[0] = 3 if (backgammon and loser_out) else 1
                points[0] = 3 if kind[0] == 3 else 2
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


def simulate_games(code, koks, backgammon, seed, first, n, policy, max_turns=10000):
    """Games first .. first + n - 1 of a self-play run, without the GIL: game i plays from its
    own random stream (seed, i), so a run's results do not depend on how it is split.
    ``policy`` is (white's, black's): 0 random, 1 greedy. Returns int8 winner (0 white,
    1 black, -1 unfinished), int8 points, int8 kind (0 oin, 1 mars, 2 koks, 3 backgammon,
    4 unfinished) and int32 turns."""
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
    wv = <int8_t*><size_t>winner.ctypes.data
    pv = <int8_t*><size_t>points.ctypes.data
    kv = <int8_t*><size_t>kind.ctypes.data
    tv = <int32_t*><size_t>turns.ctypes.data
    c = ctx_acquire()
    try:
        ctx_watch(c)
        base = rng_next(&s)
        with nogil:
            for i in range(count):
                nb_play_game(c, &r, ck, cb,
                             base ^ (<uint64_t>(start + i) * <uint64_t>0xD6E8FEB86659FD93),
                             pol, cap, wv + i, pv + i, kv + i, tv + i)
                if nb_tick(c):
                    break
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
