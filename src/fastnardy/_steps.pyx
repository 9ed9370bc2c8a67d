"""fastnardy._steps -- partial turns: a roll played one checker step at a time, from the
kernel's own steps (``_movegen``'s ``sources`` and ``child``), without the GIL. Rule ids refer
to RULES.md.

A step is the action ``6 * (src - 1) + (die - 1)`` (src 1-24, 25 = the bar; die 1-6). A step
is allowed iff some legal way to play the roll (T1) begins with the steps taken and then it.
The rules of the whole turn come from one generation at the root (``nb_generate``): the most
dice a legal turn uses (L7/S6, the 15th checker off counting as all), whether a one-die turn
must use the larger die, the head limit (L5, the ``blocked`` variant's second search
included) and the L6 block test (every step, or the turn's end). A node of the turn (the
board after some steps, the dice left) is a legal end iff it uses that many dice, with the
larger die where that is required, and passes the turn-end L6 test; a step is allowed iff a
depth-first search from the node it leads to finds a legal end (it stops at the first).

S8 (hit-and-hide forbidden): which checker made a step is not in the action, and when a
hitter shares a point with checkers that have not hit, either may be the one that moved. The
board after the actions is the same either way; the ways differ only in the hitter masks,
so a partial turn keeps the set of masks (the nodes) that lead on to a legal turn, at most
two per step after the first (NB_NODES = 8).
"""

from libc.stdint cimport uint64_t, uint32_t, uint8_t, int8_t, int64_t
cimport cython
from libc.string cimport memcpy, memset
from libc.stdlib cimport malloc, free

from fastnardy._packed cimport (nb_board, nb_board_from_key, nb_key_to_row, nb_rules,
                                nb_swap_key, nb_top, seq_add, seq_step)
from fastnardy._movegen cimport (NB_ENTRIES, child, ctx_acquire, ctx_raise_if_stopped,
                                 ctx_release, ctx_watch, dice_of, nb_ctx, nb_generate,
                                 run6_forbidden, sources)
from fastnardy._args cimport _data
from fastnardy._values cimport LegalTurns, PackedPosition
from fastnardy._gamebatch cimport GameBatch

import numpy as np

from ._packed import KEY_DTYPE

from .errors import FastNardyError, IllegalTurnError, InvalidDiceError

STEP_ACTIONS = NB_STEP_ACTIONS


# --------------------------------------------------------------------------- one turn

cdef inline void load(const nb_partial* p, nb_ctx* c) noexcept nogil:
    """The turn's rules into a context, for sources() and child()."""
    c.d0 = p.d0
    c.d1 = p.d1
    c.dbl = p.dbl
    c.full = p.full
    c.is_short = p.is_short
    c.hh_forbid = p.hh_forbid
    c.turn_end = p.turn_end
    c.step_block = p.step_block
    c.F = p.F
    c.head0 = p.head0
    c.head_limit = p.head_limit


cdef inline int legal_end(const nb_partial* p, nb_ctx* c, const nb_board* b, int depth,
                          int used_big) noexcept nogil:
    """A legal turn ends at b after ``depth`` steps: L6 at the turn's end, L7 (the most dice;
    the larger die for a one-die turn, when a one-die turn can use it)."""
    if c.turn_end and run6_forbidden(b.mine, c.F):
        return 0
    if dice_of(c, b, depth) != p.best:
        return 0
    return used_big or not p.larger


cdef int completes(const nb_partial* p, nb_ctx* c, int depth, const int8_t* left, int nleft,
                   int used_big) noexcept nogil:
    """Some legal way to play goes on from the board c.st[depth] with the dice ``left`` to a
    legal end (depth-first, the first end found stops it)."""
    cdef nb_board* b = &c.st[depth]
    cdef nb_board* nb = &c.st[depth + 1]
    cdef int8_t rest[4]
    cdef int i, j, k, d, src, hv, dst = 0, hit = 0, nhv = 2 if c.hh_forbid else 1
    cdef uint32_t S
    if legal_end(p, c, b, depth, used_big):
        return 1
    if depth >= p.best or nleft == 0 or b.m[0] == 15:  # L9: nothing moves after the 15th
        return 0
    for i in range(nleft):
        d = left[i]
        if i and d == left[i - 1]:
            continue
        k = 0
        for j in range(nleft):
            if j != i:
                rest[k] = left[j]
                k += 1
        S = sources(c, b, d)
        while S:
            src = nb_top(S)
            S ^= 1u << src
            for hv in range(nhv):
                if child(c, b, nb, src, d, hv, &dst, &hit) and completes(
                        p, c, depth + 1, rest, nleft - 1, used_big | (depth == 0 and d == p.d0)):
                    return 1
    return 0


cdef int partial_begin(nb_partial* p, nb_ctx* c, const nb_rules* r, const nb_board* root,
                       int die1, int die2) noexcept nogil:
    """Begin the turn of ``root`` for the roll: the turn's rules from one generation. Returns
    the number of legal turns (0: game over, T4, or no candidate)."""
    cdef int n = nb_generate(c, r, root, die1, die2, NB_ENTRIES)
    cdef int i
    memset(p, 0, sizeof(nb_partial))
    p.b = root[0]
    p.b.hitters = 0
    p.nodes = 1
    p.d0 = c.d0
    p.d1 = c.d1
    p.dbl = c.dbl
    p.full = c.full
    p.best = c.best if n else 0
    p.larger = n > 0 and c.best == 1 and not c.dbl and (c.out[0].flags & 1) != 0
    p.head_limit = c.head_limit
    p.head0 = c.head0
    p.is_short = c.is_short
    p.hh_forbid = c.hh_forbid
    p.turn_end = c.turn_end
    p.step_block = c.step_block
    p.F = c.F
    p.nleft = c.full
    for i in range(c.full):
        p.left[i] = <int8_t>(c.d0 if i == 0 or c.dbl else c.d1)
    p.done = n == 0 or p.best == 0  # T3: a pass is played with no step
    return n


cdef inline void set_node(const nb_partial* p, nb_ctx* c, int j) noexcept nogil:
    c.st[p.depth] = p.b
    c.st[p.depth].hitters = p.hitters[j]


cdef inline int without(const nb_partial* p, int d, int8_t* rest) noexcept nogil:
    """The dice left after playing one ``d`` into rest (their number), or -1 if no d is left."""
    cdef int i, k = 0, gone = 0
    for i in range(p.nleft):
        if p.left[i] == d and not gone:
            gone = 1
        else:
            rest[k] = p.left[i]
            k += 1
    return k if gone else -1


cdef void partial_mask(nb_partial* p, nb_ctx* c, uint8_t* out) noexcept nogil:
    """out[0 .. NB_STEP_ACTIONS): 1 for the allowed actions (none once done)."""
    cdef int8_t rest[4]
    cdef int i, j, d, src, hv, a, nrest, dst = 0, hit = 0
    cdef int nhv = 2 if p.hh_forbid else 1
    cdef uint32_t S
    cdef nb_board* b
    memset(out, 0, NB_STEP_ACTIONS)
    if p.done:
        return
    load(p, c)
    b = &c.st[p.depth]
    for j in range(p.nodes):
        set_node(p, c, j)
        for i in range(p.nleft):
            d = p.left[i]
            if i and d == p.left[i - 1]:
                continue
            nrest = without(p, d, rest)
            S = sources(c, b, d)
            while S:
                src = nb_top(S)
                S ^= 1u << src
                a = 6 * (src - 1) + d - 1
                if out[a]:
                    continue
                for hv in range(nhv):
                    if child(c, b, &c.st[p.depth + 1], src, d, hv, &dst, &hit) and completes(
                            p, c, p.depth + 1, rest, nrest,
                            p.used_big | (p.depth == 0 and d == p.d0)):
                        out[a] = 1
                        break


cdef int partial_play(nb_partial* p, nb_ctx* c, int action) noexcept nogil:
    """Take one step; 0 (and p unchanged) when it is not allowed."""
    cdef int8_t rest[4]
    cdef uint32_t found[NB_NODES]
    cdef int nfound = 0, j, k, hv, src, d, nrest, dst = 0, hit = 0, sdst = 0, shit = 0
    cdef int nhv = 2 if p.hh_forbid else 1, used
    cdef nb_board after = p.b
    cdef nb_board* b
    cdef nb_board* nb
    if p.done or action < 0 or action >= NB_STEP_ACTIONS:
        return 0
    src = action // 6 + 1
    d = action % 6 + 1
    nrest = without(p, d, rest)
    if nrest < 0:
        return 0
    load(p, c)
    b = &c.st[p.depth]
    nb = &c.st[p.depth + 1]
    used = p.used_big | (p.depth == 0 and d == p.d0)
    for j in range(p.nodes):
        set_node(p, c, j)
        if not (sources(c, b, d) >> src) & 1:
            continue
        for hv in range(nhv):
            if child(c, b, nb, src, d, hv, &dst, &hit) and completes(
                    p, c, p.depth + 1, rest, nrest, used):
                for k in range(nfound):
                    if found[k] == nb.hitters:
                        break
                else:
                    found[nfound] = nb.hitters
                    nfound += 1
                after = nb[0]
                sdst = dst
                shit = hit
    if nfound == 0:
        return 0
    p.b = after
    p.b.hitters = found[0]
    memcpy(p.hitters, found, nfound * sizeof(uint32_t))
    p.nodes = nfound
    p.seq = seq_add(p.seq, p.depth, src, sdst, shit)
    p.taken[p.depth] = <uint8_t>action
    p.depth += 1
    memcpy(p.left, rest, 4)
    p.nleft = nrest
    p.used_big = used
    p.done = legal_end(p, c, &p.b, p.depth, used)
    return 1


cdef int partial_forced(nb_partial* p, nb_ctx* c) noexcept nogil:
    """Play the only allowed step, if there is exactly one; 1 if one was played."""
    cdef uint8_t mask[NB_STEP_ACTIONS]
    cdef int a, only = -1
    partial_mask(p, c, mask)
    for a in range(NB_STEP_ACTIONS):
        if mask[a]:
            if only >= 0:
                return 0
            only = a
    return only >= 0 and partial_play(p, c, only)


cdef object played_steps(const nb_partial* p):
    """The steps taken as (src, dst, hit) tuples, mover's numbering (bar 25, off 0)."""
    cdef int i, src = 0, dst = 0, hit = 0
    out = []
    for i in range(p.depth):
        seq_step(p.seq, i, &src, &dst, &hit)
        out.append((src, dst, bool(hit)))
    return tuple(out)


cdef object dice_left_tuple(const nb_partial* p):
    return tuple(int(p.left[i]) if i < p.nleft else 0 for i in range(4))


cdef class PartialTurn:
    """One roll of one position (a PackedPosition), played step by step in the kernel (see
    the module docstring). One thread at a time: a call while another runs is refused
    (FastNardyError). ``copy.copy`` branches it."""

    def __init__(self, PackedPosition position not None, int die1, int die2):
        cdef nb_ctx* c
        cdef nb_board b
        cdef int n
        if not (1 <= die1 <= 6 and 1 <= die2 <= 6):
            raise InvalidDiceError(f"dice must be from 1 to 6, not {die1} and {die2}")
        self.r = position.r
        nb_board_from_key(position.lo, position.hi, position.r.game, &b)
        c = ctx_acquire()
        n = partial_begin(&self.p, c, &self.r, &b, die1, die2)
        ctx_release(c)
        if n == 0:
            raise IllegalTurnError("T4", "the game is over: there is no legal turn")

    def __copy__(self):
        cdef PartialTurn other = PartialTurn.__new__(PartialTurn)
        other.r = self.r
        other.p = self.p
        return other

    cdef int _enter(self) except -1:
        if self.busy:
            raise FastNardyError("this turn in progress is in use by another thread: share "
                                 "one between threads only with a lock")
        self.busy = 1
        return 0

    def mask(self):
        """(150,) bool: the allowed actions."""
        cdef nb_ctx* c
        out = np.zeros(NB_STEP_ACTIONS, dtype=np.bool_)
        self._enter()
        try:
            c = ctx_acquire()
            partial_mask(&self.p, c, <uint8_t*>_data(out))
            ctx_release(c)
        finally:
            self.busy = 0
        return out

    def play(self, int action):
        """Take step ``action``; False (nothing changed) when it is not allowed."""
        cdef nb_ctx* c
        cdef int ok
        self._enter()
        try:
            c = ctx_acquire()
            ok = partial_play(&self.p, c, action)
            ctx_release(c)
        finally:
            self.busy = 0
        return bool(ok)

    @property
    def done(self):
        """The steps taken make a legal turn (T1), or the roll is a pass (T3)."""
        return bool(self.p.done)

    @property
    def taken(self):
        """The actions taken, in order."""
        return tuple(int(self.p.taken[i]) for i in range(self.p.depth))

    @property
    def played(self):
        """The steps taken, (src, dst, hit) each (mover's numbering, bar 25, off 0)."""
        return played_steps(&self.p)

    def dice_left(self):
        """The dice not yet played, largest first, padded with 0 to four."""
        return dice_left_tuple(&self.p)

    def row(self):
        """(50,) int8: the board row after the steps taken, the mover's side first."""
        out = np.empty(50, dtype=np.int8)
        nb_key_to_row(self.p.b.lo, self.p.b.hi, self.r.game, <int8_t*>_data(out), 1)
        return out

    def index(self, LegalTurns turns):
        """Once done, the index of the turn played into ``turns`` (the legal turns of the
        same position and roll, T2 order); -1 if not done or not among them."""
        cdef Py_ssize_t i
        if not self.p.done:
            return -1
        for i in range(turns.n):
            if turns.entries[i].lo == self.p.b.lo and turns.entries[i].hi == self.p.b.hi:
                return i
        return -1


# --------------------------------------------------------------------------- running games

@cython.nonecheck(False)
cdef class StepBatch:
    """The step encoding of the running games of a GameBatch whose mover's policy is external
    (2): every game waiting for its mover is at its own step of its own turn. ``observe``
    gives the boards after the steps taken, the dice left and the allowed actions; ``play``
    takes one step in every waiting game, and the games whose steps make a legal turn play
    it and run on (the other side, forced turns, ended games scored and begun again as the
    GameBatch does) to their next choice. With ``auto_forced`` a step that is the only one
    allowed is played without asking. One thread at a time (FastNardyError otherwise)."""

    def __init__(self, GameBatch games, auto_forced=False):
        if games.busy:
            raise FastNardyError("this GameBatch is in use by another thread")
        self.games = games
        games.keep_children = 0
        self.n = games.n
        self.auto_forced = 1 if auto_forced else 0
        self.parts = <nb_partial*>malloc(max(self.n, 1) * 2 * sizeof(nb_partial))
        if self.parts == NULL:
            raise MemoryError()
        memset(self.parts, 0, max(self.n, 1) * 2 * sizeof(nb_partial))

    def __dealloc__(self):
        free(self.parts)

    cdef int _enter(self) except -1:
        if self.busy or self.games.busy:
            raise FastNardyError("this step batch is in use by another thread: share one "
                                 "between threads only with a lock")
        self.busy = 1
        self.games.busy = 1
        return 0

    cdef void _leave(self):
        self.busy = 0
        self.games.busy = 0

    cdef int _settle(self, nb_ctx* c) noexcept nogil:
        """Run every game that does not wait to its next choice and begin its turn; 2 when
        out of memory."""
        cdef Py_ssize_t g
        cdef int err
        cdef nb_board b
        for g in range(self.n):
            if self.games.status[g] == 1:
                continue
            err = self.games.run_game(c, g)
            if err == 2 or c.stop:
                return err
            if err == 1:
                nb_board_from_key(self.games.key[2 * g], self.games.key[2 * g + 1], self.games.r.game, &b)
                partial_begin(&self.parts[g], c, &self.games.r, &b, self.games.dice[2 * g],
                              self.games.dice[2 * g + 1])
                self._forced(c, g)
        return 0

    cdef void _forced(self, nb_ctx* c, Py_ssize_t g) noexcept nogil:
        if self.auto_forced:
            while partial_forced(&self.parts[g], c):
                pass

    def settle(self):
        """Run the games that do not wait (after ``GameBatch.start``) to their next choice."""
        self._enter()
        try:
            self._run(None)
        finally:
            self._leave()

    def play(self, actions):
        """Take step ``actions[g]`` in every waiting game g (the others' entries are not
        read; a negative action leaves its game where it is); FastNardyError names the
        first waiting game whose action is not allowed, and then nothing is played."""
        self._enter()
        try:
            arr = np.ascontiguousarray(actions)
            if arr.shape != (self.n,) or arr.dtype.kind not in "iu":
                raise FastNardyError(f"actions must be {self.n} ints, not {arr.dtype} "
                                     f"{arr.shape}")
            self._run(arr.astype(np.int64, copy=False))
        finally:
            self._leave()

    cdef object _run(self, object arr):
        cdef nb_ctx* c
        cdef GameBatch games = self.games
        cdef const int64_t* av = NULL
        cdef Py_ssize_t g, bad = -1
        cdef nb_partial* spare = self.parts + self.n
        cdef int err = 0
        cdef int64_t a
        cdef uint64_t lo, hi
        if arr is not None:
            av = <const int64_t*>_data(arr)
        games.ready_to_run()
        c = ctx_acquire()
        try:
            ctx_watch(c)
            with nogil:
                if av != NULL:
                    for g in range(self.n):
                        if games.status[g] != 1:
                            continue
                        spare[g] = self.parts[g]
                        a = av[g]
                        if a < 0:
                            continue
                        if a >= NB_STEP_ACTIONS or not partial_play(&spare[g], c, <int>a):
                            bad = g
                            break
                    if bad < 0:
                        for g in range(self.n):
                            if games.status[g] != 1 or av[g] < 0:
                                continue
                            self.parts[g] = spare[g]
                            self._forced(c, g)
                            if self.parts[g].done:
                                nb_swap_key(self.parts[g].b.lo, self.parts[g].b.hi,
                                            games.r.game, &lo, &hi)
                                games.status[g] = 0
                                games.advance(g, lo, hi)
                if bad < 0:
                    err = self._settle(c)
            ctx_raise_if_stopped(c)
        finally:
            ctx_release(c)
        if bad >= 0:
            raise FastNardyError(f"action {int(arr[bad])} of game {bad} is not an allowed "
                                 f"step")
        if err == 2:
            raise MemoryError("out of memory for the children of the waiting games")

    def observe(self):
        """(keys, rows, dice_left, masks): the boards after the steps taken (a game that does
        not wait: its position), (N,) KEY_DTYPE in the mover's frame and (N, 50) int8 board
        rows, the mover's side first; (N, 4) int8 the dice left, largest first, 0-padded;
        (N, 150) bool the allowed actions."""
        cdef nb_ctx* c
        cdef GameBatch games = self.games
        cdef Py_ssize_t g
        cdef int8_t* rv
        cdef int8_t* lv
        cdef uint8_t* mv
        cdef nb_partial* p
        cdef uint64_t* kv
        keys = np.empty(self.n, dtype=KEY_DTYPE)
        kv = <uint64_t*>_data(keys)
        rows = np.empty((self.n, 50), dtype=np.int8)
        left = np.zeros((self.n, 4), dtype=np.int8)
        masks = np.zeros((self.n, NB_STEP_ACTIONS), dtype=np.bool_)
        rv = <int8_t*>_data(rows)
        lv = <int8_t*>_data(left)
        mv = <uint8_t*>_data(masks)
        self._enter()
        try:
            c = ctx_acquire()
            with nogil:
                for g in range(self.n):
                    p = &self.parts[g]
                    if games.status[g] == 1:
                        kv[2 * g] = p.b.lo
                        kv[2 * g + 1] = p.b.hi
                        nb_key_to_row(p.b.lo, p.b.hi, games.r.game, rv + 50 * g, 1)
                        memcpy(lv + 4 * g, p.left, p.nleft)
                        partial_mask(p, c, mv + NB_STEP_ACTIONS * g)
                    else:
                        kv[2 * g] = games.key[2 * g]
                        kv[2 * g + 1] = games.key[2 * g + 1]
                        nb_key_to_row(games.key[2 * g], games.key[2 * g + 1], games.r.game,
                                      rv + 50 * g, 1)
            ctx_release(c)
        finally:
            self._leave()
        return keys, rows, left, masks

    def played(self, Py_ssize_t g):
        """Game g's steps taken this turn, (src, dst, hit) each."""
        if not 0 <= g < self.n:
            raise FastNardyError(f"game must be from 0 to {self.n - 1}, not {g}")
        return played_steps(&self.parts[g]) if self.games.status[g] == 1 else ()

    def key(self, Py_ssize_t g):
        """Game g's board after the steps taken (its position while it does not wait): a
        KEY_DTYPE scalar, the mover's frame."""
        if not 0 <= g < self.n:
            raise FastNardyError(f"game must be from 0 to {self.n - 1}, not {g}")
        out = np.empty(2, dtype=np.uint64)
        if self.games.status[g] == 1:
            out[0], out[1] = self.parts[g].b.lo, self.parts[g].b.hi
        else:
            out[0], out[1] = self.games.key[2 * g], self.games.key[2 * g + 1]
        return out.view(KEY_DTYPE)[0]
