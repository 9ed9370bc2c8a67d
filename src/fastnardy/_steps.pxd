# fastnardy._steps: partial turns, a roll played one checker step at a time (T1, L5-L8,
# S5-S8, L7/S6 over the whole turn), from the kernel's own steps; PartialTurn for one game,
# StepBatch for the running games of a GameBatch. Described in the docstring of _steps.pyx.

from libc.stdint cimport uint64_t, uint32_t, uint8_t, int8_t

from fastnardy._packed cimport nb_board, nb_rules
from fastnardy._movegen cimport nb_ctx
from fastnardy._gamebatch cimport GameBatch

cdef enum:
    NB_STEP_ACTIONS = 150   # 25 sources (points 1-24, 25 = bar) x 6 dice
    NB_NODES = 8            # S8: the hitter masks one sequence of actions may leave


ctypedef struct nb_partial:
    # the board after the steps taken; its hitters are those of node 0 (S8)
    nb_board b
    uint32_t hitters[NB_NODES]   # S8 forbidden: which checkers have hit, one mask a node
    int nodes                    # the nodes (ways the actions so far may have been made)
    int depth                    # the steps taken
    int8_t left[4]               # the dice left, largest first
    int nleft
    int used_big                 # the first step used the larger die (L7)
    int done                     # the steps taken make a legal turn (or a pass, T3)
    uint64_t seq                 # the steps taken (src, dst, hit), as _packed.seq_add
    uint8_t taken[4]             # their action numbers
    # the turn's rules, from the generation at its root (L5-L7)
    int d0, d1, dbl, full, best, larger, head_limit, head0
    int is_short, hh_forbid, turn_end, step_block
    uint32_t F


cdef int partial_begin(nb_partial* p, nb_ctx* c, const nb_rules* r, const nb_board* root,
                       int die1, int die2) noexcept nogil
cdef void partial_mask(nb_partial* p, nb_ctx* c, uint8_t* out) noexcept nogil
cdef int partial_play(nb_partial* p, nb_ctx* c, int action) noexcept nogil
cdef int partial_forced(nb_partial* p, nb_ctx* c) noexcept nogil


cdef class PartialTurn:
    cdef nb_rules r
    cdef nb_partial p
    cdef int busy

    cdef int _enter(self) except -1


cdef class StepBatch:
    cdef GameBatch games
    cdef nb_partial* parts
    cdef Py_ssize_t n
    cdef int auto_forced
    cdef int busy

    cdef int _enter(self) except -1
    cdef void _leave(self)
    cdef int _settle(self, nb_ctx* c) noexcept nogil
    cdef void _forced(self, nb_ctx* c, Py_ssize_t g) noexcept nogil
    cdef object _run(self, object arr)
