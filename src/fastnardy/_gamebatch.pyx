"""fastnardy._gamebatch -- GameBatch: N games running in the kernel (from given positions or
the start), played by random, greedy, network or external policies (the Python caller's
evaluator) turn by turn: self-play with evaluators and the environments stand on it. Rule
ids refer to RULES.md."""

from libc.stdint cimport uint64_t, int8_t, int32_t, int64_t
cimport cython
from libc.string cimport memcpy
from libc.stdlib cimport realloc, free

from fastnardy._packed cimport (nb_board, nb_board_from_key, nb_check_key, nb_fields_held,
                                nb_fields_other, nb_swap_key)
from fastnardy._movegen cimport (ctx_acquire, ctx_raise_if_stopped, ctx_release, ctx_watch,
                                 NB_ORDER, nb_generate, nb_tick)
from fastnardy._args cimport _build_error, _data, _parse_code
from fastnardy._features cimport keys_array
from fastnardy._nnet cimport (NN_OUTPUTS, Network, nn_child2, nn_equity, nn_probabilities,
                              nn_scratch_clear, nn_scratch_free, nn_scratch_new,
                              nn_set_parent)
from fastnardy._dice cimport (choice_state, opening_throw, rng_below, rng_next,
                              stream_state)
from fastnardy._batches cimport greedy_score, nb_score, nb_start

cdef enum:
    WINDOW = 32  # children valued at once by network_choice

import numpy as np

from ._packed import KEY_DTYPE
from .errors import FastNardyError, InvalidPositionError, ResourceLimitError


cdef inline int side_off(uint64_t lo, uint64_t hi, int other) noexcept nogil:
    """1 if a side of this key has no checker left: its mover (``other`` 0) or the other
    side (1), none on its bar and no field of its counts (1 to 15 the mover's, 16 to 30
    the other side's). The side that moved is the other side of a key in its next mover's
    frame, and the mover of a child's key in its parent's frame."""
    cdef uint64_t lo_other = nb_fields_other(lo), hi_other = nb_fields_other(hi)
    if other:
        return (lo_other | hi_other | (hi >> 60)) == 0
    return ((nb_fields_held(lo) & ~lo_other) | (nb_fields_held(hi) & ~hi_other)
            | (lo >> 60)) == 0


# The nogil methods read their own attributes through self, which is never None there: a
# debug build's nonecheck would need the GIL for each read.
@cython.nonecheck(False)
cdef class GameBatch:
    """N games played in the kernel from given positions or from the start, each with its own
    two splitmix64 streams (dice, and the random policy's choices), so a game's dice do not
    depend on the turns chosen (common random numbers) nor on how a run is split.

    A side's policy is 0 random, 1 greedy (greedy_score), 2 external or 3 a network
    (``nets``: a fastnardy._nnet.Network per side, or None): the network's side plays the
    first child (T2 order) of highest value to it, the exact L10/S9 points of a child that
    ends the game, else minus the network's equity of the child, all inside the kernel.
    ``prepare`` plays every running game until its mover has an external choice among two
    or more legal turns (T1, T2 order) or the game ends (L9, S9; scored by L10/S9, cube at
    1), and returns the children of the waiting games; ``play_values`` or ``play_choices``
    then plays one child of each. One GameBatch is used by one thread at a time: a call
    while another thread's call runs is refused (FastNardyError), never a corruption. Status per game: 0 running, 1 waiting for a choice, 2 over, 3 unfinished
    (max_turns turns played, or a position without a candidate). With ``restart`` a game
    that ends begins again from the start on the next stream of the run (``take_ended``
    reports the ends), so every game is always running or waiting."""

    def __init__(self, code, koks, backgammon, n, seed, policy, max_turns=10000,
                 restart=False, nets=(None, None)):
        self._enter()
        try:
            self._init(code, koks, backgammon, n, seed, policy, max_turns, restart, nets)
        finally:
            self.busy = 0

    cdef object _init(self, object code, object koks, object backgammon, object n,
                      object seed, object policy, object max_turns, object restart,
                      object nets):
        cdef uint64_t s
        cdef size_t addr
        cdef Network network
        cdef int side
        _parse_code(code, &self.r)
        for value, name in ((seed, "seed"), (n, "n"), (max_turns, "max_turns")):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise FastNardyError(f"{name} must be an int >= 0, not {value!r}")
        if max_turns < 1 or max_turns > 1 << 30:
            raise FastNardyError(f"max_turns must be from 1 to 2**30, not {max_turns!r}")
        if n > (1 << 31) - 1:
            raise FastNardyError(f"n must be below 2**31, not {n!r}")
        try:
            self.pol[0], self.pol[1] = [int(p) for p in policy]
        except (TypeError, ValueError):
            raise FastNardyError(f"policy must be two of 0 (random), 1 (greedy) and 2 "
                                 f"(external), not {policy!r}") from None
        if self.pol[0] not in (0, 1, 2, 3) or self.pol[1] not in (0, 1, 2, 3):
            raise FastNardyError(f"policy must be two of 0 (random), 1 (greedy), 2 "
                                 f"(external) and 3 (network), not {policy!r}")
        try:
            pair = tuple(nets)
        except TypeError:
            pair = ()
        if len(pair) != 2:
            raise FastNardyError(f"nets must be a pair (white's, black's), not {nets!r}")
        for side in range(2):
            if (self.pol[side] == 3) != isinstance(pair[side], Network):
                raise FastNardyError("a side plays policy 3 exactly when it has a Network in "
                                     "nets")
            if self.pol[side] == 3:
                network = pair[side]
                if network.net.is_short != self.r.game:
                    raise FastNardyError("the network is for the other game")
                self.net[side] = &network.net
            else:
                self.net[side] = NULL
        self.nets = pair
        if self.scratch != NULL:  # a re-initialised batch: no partial sums of the old nets
            nn_scratch_clear(self.scratch)
        self.koks = 1 if koks else 0
        self.backgammon = 1 if backgammon else 0
        self.max_turns = max_turns
        self.n = n
        s = <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF)
        self.base = rng_next(&s)
        keyarr = np.zeros((n, 2), dtype=np.uint64)
        rngs = np.zeros((2, n), dtype=np.uint64)
        small = np.zeros((6, n), dtype=np.int8)  # side, ended, status, winner, points, kind
        small[2] = 3  # no game yet: unfinished
        small[3] = -1
        small[5] = 4
        turns = np.zeros(n, dtype=np.int32)
        dice = np.zeros((n, 2), dtype=np.int8)
        self.arrays = (keyarr, rngs, small, turns, dice)
        addr = _data(keyarr)
        self.key = <uint64_t*>addr
        addr = _data(rngs)
        self.dice_rng = <uint64_t*>addr
        self.pick_rng = self.dice_rng + self.n
        addr = _data(small)
        self.side = <int8_t*>addr
        self.ended = self.side + self.n
        self.status = self.side + 2 * self.n
        self.winner = self.side + 3 * self.n
        self.points = self.side + 4 * self.n
        self.kind = self.side + 5 * self.n
        addr = _data(dice)
        self.dice = <int8_t*>addr
        addr = _data(turns)
        self.turns = <int32_t*>addr
        free(self.kids)  # NULL unless __init__ runs again
        self.kids = NULL
        self.nkids = self.capkids = 0
        self.waiting = (np.empty(0, dtype=np.int64), np.zeros(1, dtype=np.int64))
        self.restart = 1 if restart else 0
        self.next_stream = 0
        self.keep_children = 1

    def __dealloc__(self):
        free(self.kids)
        nn_scratch_free(self.scratch)

    cdef int _enter(self) except -1:
        """Take the batch for this call, or refuse: another thread's call is running."""
        if self.busy:
            raise FastNardyError("this GameBatch is in use by another thread: share one "
                                 "between threads only with a lock")
        self.busy = 1
        return 0

    def start(self, games, streams, keys=None, sides=None):
        """Begin a new game in each slot of ``games`` (int64 indices), game stream
        ``streams[j]`` (its dice and choices come from splitmix64 of (seed, stream)). With
        ``keys`` (KEY_DTYPE, the mover's frame) and ``sides`` (int8: 0 white, 1 black to
        move) the game starts there and the side to move rolls; without them it starts with
        the T6 opening. A key whose side not to move has borne off 15 is a game over (the
        other side won, 0 turns). The children of the last ``prepare`` are dropped (a game
        still waiting keeps its roll, and the next ``prepare`` lists them again)."""
        self._enter()
        try:
            return self._start(games, streams, keys, sides)
        finally:
            self.busy = 0

    cdef object _start(self, object games, object streams, object keys, object sides):
        cdef Py_ssize_t j, m, g
        cdef nb_board b
        cdef int err, d1, d2
        cdef uint64_t st
        cdef const int64_t* gv
        cdef const int64_t* sv
        cdef const uint64_t* kv = NULL
        cdef const int8_t* sdv = NULL
        garr = np.ascontiguousarray(games, dtype=np.int64)
        sarr = np.ascontiguousarray(streams, dtype=np.int64)
        m = garr.shape[0]
        if garr.ndim != 1 or sarr.shape != (m,):
            raise FastNardyError("games and streams must be 1-D arrays of the same length")
        if m and (int(garr.min()) < 0 or int(garr.max()) >= self.n):
            raise FastNardyError(f"games must be indices from 0 to {self.n - 1}")
        if m and int(sarr.min()) < 0:
            raise FastNardyError("streams must be >= 0")
        if (keys is None) != (sides is None):
            raise FastNardyError("give keys and sides together, or neither")
        if keys is not None:
            karr = np.asarray(keys)
            if karr.dtype != KEY_DTYPE or karr.shape != (m,):
                raise InvalidPositionError(f"keys must be a 1-D KEY_DTYPE array of {m}")
            karr = np.ascontiguousarray(karr)
            sdarr = np.ascontiguousarray(sides, dtype=np.int8)
            if sdarr.shape != (m,) or (m and (int(sdarr.min()) < 0 or int(sdarr.max()) > 1)):
                raise FastNardyError(f"sides must be {m} values of 0 (white) and 1 (black)")
            kv = <const uint64_t*>_data(karr)
            sdv = <const int8_t*>_data(sdarr)
            for j in range(m):
                err = nb_check_key(kv[2 * j], kv[2 * j + 1], self.r.game)
                if err:
                    _build_error(err, NULL, 0, NULL, 0, <int>j)
                nb_board_from_key(kv[2 * j], kv[2 * j + 1], self.r.game, &b)
                if b.m[0] == 15:
                    raise InvalidPositionError(f"T7: in key {j} the side to move has borne "
                                               f"off 15 checkers")
        self._done()
        gv = <const int64_t*>_data(garr)
        sv = <const int64_t*>_data(sarr)
        for j in range(m):
            g = gv[j]
            self.begin(g, sv[j])
            self.winner[g] = -1
            self.points[g] = 0
            self.kind[g] = 4
            if kv == NULL:
                self.open_game(g)
                continue
            self.key[2 * g] = kv[2 * j]
            self.key[2 * g + 1] = kv[2 * j + 1]
            self.side[g] = sdv[j]
            nb_board_from_key(kv[2 * j], kv[2 * j + 1], self.r.game, &b)
            if b.o[0] == 15:  # the side not to move has won already
                self.status[g] = 2
                self.winner[g] = 1 - sdv[j]
                self.points[g] = <int8_t>nb_score(&b, self.r.game, self.koks,
                                                  self.backgammon, &self.kind[g])
        if m:
            self.next_stream = max(self.next_stream, int(sarr.max()) + 1)

    cdef void begin(self, Py_ssize_t g, int64_t stream) noexcept nogil:
        """Seed game g's two streams from (seed, stream); no turn played, no roll yet."""
        self.dice_rng[g] = stream_state(self.base, <uint64_t>stream)
        self.pick_rng[g] = choice_state(self.dice_rng[g])
        self.turns[g] = 0
        self.status[g] = 0
        self.dice[2 * g] = self.dice[2 * g + 1] = 0

    cdef void open_game(self, Py_ssize_t g) noexcept nogil:
        """The start position (L1, S1) and the T6 opening throw from game g's dice stream
        (short nardy: the throw is the first roll; long: the starter throws again)."""
        cdef nb_board b
        cdef int d1 = 0, d2 = 0
        nb_start(self.r.game, &b)
        self.key[2 * g] = b.lo
        self.key[2 * g + 1] = b.hi
        self.side[g] = opening_throw(&self.dice_rng[g], &d1, &d2)  # T6
        if self.r.game:
            self.dice[2 * g] = <int8_t>d1
            self.dice[2 * g + 1] = <int8_t>d2

    cdef int advance(self, Py_ssize_t g, uint64_t lo, uint64_t hi) noexcept nogil:
        """Play the turn whose result (next mover's view) is (lo, hi) in game g."""
        cdef nb_board b
        self.key[2 * g] = lo
        self.key[2 * g + 1] = hi
        self.turns[g] += 1
        self.dice[2 * g] = self.dice[2 * g + 1] = 0
        if side_off(lo, hi, 1):
            nb_board_from_key(lo, hi, self.r.game, &b)
            self.status[g] = 2
            self.winner[g] = self.side[g]
            self.points[g] = <int8_t>nb_score(&b, self.r.game, self.koks, self.backgammon,
                                              &self.kind[g])
            return 1
        self.side[g] = 1 - self.side[g]
        if self.turns[g] >= self.max_turns:
            self.cut(g)
            return 1
        return 0

    cdef void cut(self, Py_ssize_t g) noexcept nogil:
        """Game g ends unfinished (max_turns, or no candidate outside T7)."""
        self.status[g] = 3
        self.winner[g] = -1
        self.points[g] = 0
        self.kind[g] = 4

    cdef int run_game(self, nb_ctx* c, Py_ssize_t g) noexcept nogil:
        """Play game g until it waits for an external choice (its children appended to the
        buffer; returns 1), ends (0) or runs out of memory (2)."""
        cdef nb_board b
        cdef int n, k, i, best, score, d1, d2, p
        cdef uint64_t lo, hi
        cdef Py_ssize_t cap
        cdef void* q
        if self.status[g] == 1:
            self.status[g] = 0  # its roll is kept
        while not c.stop:
            if self.status[g] >= 2:
                if not self.restart:
                    return 0
                self.ended[g] = self.status[g]  # winner, points, kind stay until the next end
                self.begin(g, self.next_stream)
                self.next_stream += 1
                self.open_game(g)
            d1 = self.dice[2 * g]
            d2 = self.dice[2 * g + 1]
            if d1 == 0:
                d1 = 1 + rng_below(&self.dice_rng[g], 6)
                d2 = 1 + rng_below(&self.dice_rng[g], 6)
                self.dice[2 * g] = <int8_t>d1
                self.dice[2 * g + 1] = <int8_t>d2
            nb_board_from_key(self.key[2 * g], self.key[2 * g + 1], self.r.game, &b)
            n = nb_generate(c, &self.r, &b, d1, d2, NB_ORDER)
            nb_tick(c)
            if n == 0:  # only a position outside T7 has no candidate at all
                self.cut(g)
                continue
            p = self.pol[self.side[g]]
            if p == 2 and n > 1 and not self.keep_children:  # a StepBatch plays it
                self.status[g] = 1
                return 1
            if p == 2 and n > 1:
                if self.nkids + n > self.capkids:
                    cap = self.capkids * 2 if self.capkids else 4096
                    while cap < self.nkids + n:
                        cap *= 2
                    q = realloc(self.kids, cap * 16)
                    if q == NULL:
                        return 2
                    self.kids = <uint64_t*>q
                    self.capkids = cap
                for i in range(n):
                    nb_swap_key(c.out[i].lo, c.out[i].hi, self.r.game,
                                &self.kids[2 * (self.nkids + i)],
                                &self.kids[2 * (self.nkids + i) + 1])
                self.nkids += n
                self.status[g] = 1
                return 1
            if p == 3 and n > 1:
                k = self.network_choice(c, n, self.net[self.side[g]], self.key[2 * g],
                                        self.key[2 * g + 1])
            elif p == 0 and n > 1:
                k = rng_below(&self.pick_rng[g], n)
            elif p == 1 and n > 1:
                k = 0
                best = greedy_score(&c.out[0], self.r.game)
                for i in range(1, n):
                    score = greedy_score(&c.out[i], self.r.game)
                    if score > best:
                        best = score
                        k = i
            else:
                k = 0
            nb_swap_key(c.out[k].lo, c.out[k].hi, self.r.game, &lo, &hi)
            self.advance(g, lo, hi)
        return 0

    cdef int ready_to_run(self) except -1:
        """Before run_game without the GIL: the network's scratch, if a side plays one."""
        if (self.net[0] != NULL or self.net[1] != NULL) and self.scratch == NULL:
            self.scratch = nn_scratch_new()
            if self.scratch == NULL:
                raise MemoryError()
        return 0

    cdef int network_choice(self, nb_ctx* c, int n, const nn_net* net, uint64_t lo,
                            uint64_t hi) noexcept nogil:
        """The first of the n children in c.out of the position of key lo, hi of highest
        value to the mover: the L10/S9 points of a child that ends the game, else minus the
        network's equity of it (nn_child2: the children share their side to move, the
        position's opponent). The children go in windows of WINDOW: the network's sums of
        a window's children (two siblings at once), their probabilities at once, then the
        window's values in order."""
        cdef int i = 0, first, j, w, k = 0
        cdef uint64_t keys[2]
        cdef double value, best = -1e300
        cdef float sums[NN_OUTPUTS * WINDOW]
        cdef double exact[WINDOW]
        cdef int slot[WINDOW]  # a child's sums in the window, or -1: its exact points
        cdef nb_board b
        cdef int8_t kind
        nn_set_parent(net, self.scratch, lo, hi)
        while i < n:
            first = i
            w = 0
            while i < n and i - first < WINDOW:
                if side_off(c.out[i].lo, c.out[i].hi, 0):
                    nb_swap_key(c.out[i].lo, c.out[i].hi, self.r.game, &keys[0], &keys[1])
                    nb_board_from_key(keys[0], keys[1], self.r.game, &b)
                    exact[i - first] = nb_score(&b, self.r.game, self.koks, self.backgammon,
                                                &kind)
                    slot[i - first] = -1
                    i += 1
                    continue
                # children of the kernel, well formed
                if (i + 1 < n and i + 1 - first < WINDOW
                        and not side_off(c.out[i + 1].lo, c.out[i + 1].hi, 0)):
                    nn_child2(net, self.scratch, c.out[i].lo, c.out[i].hi, c.out[i + 1].lo,
                              c.out[i + 1].hi, sums + NN_OUTPUTS * w,
                              sums + NN_OUTPUTS * (w + 1))
                    slot[i - first] = w
                    slot[i + 1 - first] = w + 1
                    w += 2
                    i += 2
                    continue
                nn_child2(net, self.scratch, c.out[i].lo, c.out[i].hi, 0, 0,
                          sums + NN_OUTPUTS * w, NULL)
                slot[i - first] = w
                w += 1
                i += 1
            nn_probabilities(sums, NN_OUTPUTS * w)
            for j in range(first, i):
                if slot[j - first] < 0:
                    value = exact[j - first]
                else:
                    value = -nn_equity(sums + NN_OUTPUTS * slot[j - first])
                if value > best:
                    best = value
                    k = j
        return k

    def prepare(self, stop=None):
        """Play every running game (status 0) until it waits for an external choice or
        ends; ``stop`` (a Stop, set by another thread) stops the call: KeyboardInterrupt, the
        games where they were (each ended or between two turns). Returns (children, exact,
        games, offsets) for the waiting games (status 1): ``children`` a KEY_DTYPE array
        of every legal turn's result from the next mover's view, in T2 order per game,
        ``exact`` float64 the points the mover wins by a child that ends the game (L10/S9)
        and NaN for the others, ``games`` int64 the waiting games and ``offsets`` int64
        (G + 1) their children's bounds. A game already waiting keeps its roll (its
        children are listed again)."""
        self._enter()
        try:
            return self._prepare(stop)
        finally:
            self.busy = 0

    cdef object _prepare(self, object stop):
        cdef Py_ssize_t g, ng = 0, i
        cdef int err = 0
        cdef nb_ctx* c
        cdef nb_board b
        cdef int8_t kd
        cdef double* ev
        cdef int64_t* gv
        cdef int64_t* ov
        if not self.keep_children:
            raise FastNardyError("this GameBatch is played by a StepBatch, step by step")
        self.ready_to_run()
        self.nkids = 0
        games = np.empty(self.n, dtype=np.int64)
        offsets = np.empty(self.n + 1, dtype=np.int64)
        gv = <int64_t*>_data(games)
        ov = <int64_t*>_data(offsets)
        c = ctx_acquire()
        try:
            ctx_watch(c, stop)
            with nogil:
                for g in range(self.n):
                    ov[ng] = self.nkids
                    err = self.run_game(c, g)
                    if err == 2 or c.stop:
                        break
                    if err == 1:
                        gv[ng] = g
                        ng += 1
                ov[ng] = self.nkids
            ctx_raise_if_stopped(c)
        finally:
            ctx_release(c)
        if err == 2:
            raise ResourceLimitError("out of memory for the children of the waiting games")
        children = np.empty(self.nkids, dtype=KEY_DTYPE)
        if self.nkids:
            memcpy(<void*>_data(children), self.kids, 16 * self.nkids)
        exact = np.full(self.nkids, np.nan)
        ev = <double*>_data(exact)
        for i in range(self.nkids):
            if side_off(self.kids[2 * i], self.kids[2 * i + 1], 1):
                nb_board_from_key(self.kids[2 * i], self.kids[2 * i + 1], self.r.game, &b)
                ev[i] = nb_score(&b, self.r.game, self.koks, self.backgammon, &kd)
        self.waiting = (games[:ng].copy(), offsets[:ng + 1].copy())
        return children, exact, self.waiting[0].copy(), self.waiting[1].copy()

    def play_values(self, values):
        """Play, in each waiting game, its first child (T2 order) of highest value (float64,
        one per child of the last ``prepare``, to the side that chooses)."""
        self._enter()
        try:
            return self._play_values(values)
        finally:
            self.busy = 0

    cdef object _play_values(self, object values):
        cdef const double* vv
        cdef const int64_t* gv
        cdef const int64_t* ov
        cdef Py_ssize_t j, i, k
        cdef double best
        varr = np.ascontiguousarray(values, dtype=np.float64)
        if varr.shape != (self.nkids,):
            raise FastNardyError(f"values must be {self.nkids} floats, one per child, not "
                                 f"shape {varr.shape}")
        if self.nkids and np.isnan(varr).any():
            raise FastNardyError("values must not be NaN")
        games, offsets = self.waiting
        vv = <const double*>_data(varr)
        gv = <const int64_t*>_data(games)
        ov = <const int64_t*>_data(offsets)
        for j in range(games.shape[0]):
            k = ov[j]
            best = vv[k]
            for i in range(ov[j] + 1, ov[j + 1]):
                if vv[i] > best:
                    best = vv[i]
                    k = i
            self.status[gv[j]] = 0
            self.advance(gv[j], self.kids[2 * k], self.kids[2 * k + 1])
        self._done()

    def play_choices(self, choices):
        """Play child ``choices[j]`` (an index into its legal turns, T2 order) of the j-th
        waiting game of the last ``prepare``."""
        self._enter()
        try:
            return self._play_choices(choices)
        finally:
            self.busy = 0

    cdef object _play_choices(self, object choices):
        cdef const int64_t* cv
        cdef const int64_t* gv
        cdef const int64_t* ov
        cdef Py_ssize_t j, k
        games, offsets = self.waiting
        carr = np.ascontiguousarray(choices, dtype=np.int64)
        if carr.shape != games.shape:
            raise FastNardyError(f"choices must be {games.shape[0]} indices, one per waiting "
                                 f"game, not shape {carr.shape}")
        bad = np.flatnonzero((carr < 0) | (carr >= np.diff(offsets)))
        if bad.size:
            j = bad[0]
            raise FastNardyError(f"choice {carr[j]} of waiting game {games[j]} is not an "
                                 f"index of its {offsets[j + 1] - offsets[j]} legal turns")
        cv = <const int64_t*>_data(carr)
        gv = <const int64_t*>_data(games)
        ov = <const int64_t*>_data(offsets)
        for j in range(games.shape[0]):
            k = ov[j] + cv[j]
            self.status[gv[j]] = 0
            self.advance(gv[j], self.kids[2 * k], self.kids[2 * k + 1])
        self._done()

    cdef void _done(self):
        self.nkids = 0
        self.waiting = (np.empty(0, dtype=np.int64), np.zeros(1, dtype=np.int64))

    def state(self):
        """(keys, sides, dice, status): the positions (KEY_DTYPE, mover's frame), the side to
        move (0 white, 1 black), the roll of a waiting game (0 0 for none yet) and the
        status of every game (copies)."""
        self._enter()
        try:
            return self._state()
        finally:
            self.busy = 0

    cdef object _state(self):
        key, rngs, small, turns, dice = self.arrays
        return (key.copy().view(KEY_DTYPE).reshape(self.n), small[0].copy(), dice.copy(),
                small[2].copy())

    def take_ended(self):
        """(ended, winner, points, kind) with ``restart``: ended int8 per game, 2 if a game
        ended (L9, S9) and 3 if one was cut off at max_turns since the last call (then
        cleared), 0 otherwise; winner, points and kind of each game's last ended game."""
        self._enter()
        try:
            return self._take_ended()
        finally:
            self.busy = 0

    cdef object _take_ended(self):
        key, rngs, small, turns, dice = self.arrays
        out = (small[1].copy(), small[3].copy(), small[4].copy(), small[5].copy())
        small[1] = 0
        return out

    def results(self):
        """(winner, points, kind, turns) of every game (copies): winner 0 white, 1 black, -1
        not over; kind 0 oin, 1 mars, 2 koks, 3 backgammon, 4 not over."""
        self._enter()
        try:
            return self._results()
        finally:
            self.busy = 0

    cdef object _results(self):
        key, rngs, small, turns, dice = self.arrays
        return small[3].copy(), small[4].copy(), small[5].copy(), turns.copy()


def _child_probabilities(Network network, parents, children, parent, int first=0):
    """The five outputs (N, 5) float32 of ``children``, KEY_DTYPE keys each in its own
    mover's frame, of the positions ``parents`` (keys, each in its mover's frame), child i
    of ``parents[parent[i]]``, grouped by parent (batch.expand's children): valued as the
    kernel's self-play values them (nn_child2: siblings share their parent's opponent's
    partial sums), in pairs from the ``first`` (0 or 1) of each group's, for the tests: the
    same floats as ``network.probabilities(children)``. The keys must be well formed (not
    checked)."""
    cdef const uint64_t* kv
    cdef const uint64_t* pv
    cdef const int32_t* iv
    cdef uint64_t lo[2]
    cdef uint64_t hi[2]
    cdef float* out
    cdef Py_ssize_t i, j, k, n, start = 0
    cdef nn_scratch* s
    cdef int is_short = network.net.is_short
    lo[1] = hi[1] = 0  # read only with a second child
    keys = keys_array(children)
    owners = keys_array(parents)
    index = np.ascontiguousarray(parent, dtype=np.int32)
    n = keys.shape[0]
    if index.shape != (n,) or n and (index.min() < 0 or index.max() >= owners.shape[0]
                                     or (np.diff(index) < 0).any()):
        raise FastNardyError("parent must index parents, one per child, grouped")
    result = np.zeros((n, NN_OUTPUTS), dtype=np.float32)
    if n == 0:
        return result
    kv = <const uint64_t*>_data(keys)
    pv = <const uint64_t*>_data(owners)
    iv = <const int32_t*>_data(index)
    out = <float*>_data(result)
    s = nn_scratch_new()
    if s == NULL:
        raise MemoryError()
    with nogil:
        while start < n:
            k = iv[start]
            nn_set_parent(&network.net, s, pv[2 * k], pv[2 * k + 1])
            i = start
            while i < n and iv[i] == k:
                j = 2 if i + 1 < n and iv[i + 1] == k and (i > start or first == 0) else 1
                nb_swap_key(kv[2 * i], kv[2 * i + 1], is_short, &lo[0], &hi[0])
                if j == 2:
                    nb_swap_key(kv[2 * i + 2], kv[2 * i + 3], is_short, &lo[1], &hi[1])
                nn_child2(&network.net, s, lo[0], hi[0], lo[1], hi[1], out + NN_OUTPUTS * i,
                          out + NN_OUTPUTS * (i + 1) if j == 2 else NULL)
                i += j
            start = i
        nn_probabilities(out, NN_OUTPUTS * n)
    nn_scratch_free(s)
    return result
