# fastnardy._batches: the batch entry points (many rows or keys in one call, without the
# GIL), the keys' Python functions and self-play; the scoring, the start and the greedy
# score that _gamebatch's running games share with it.

from libc.stdint cimport uint64_t, int8_t, int32_t

from fastnardy._packed cimport nb_board, nb_entry, nb_rules
from fastnardy._movegen cimport nb_ctx


ctypedef struct nb_batch:
    # the boards of a batch call: rows (N x 50 int8) or keys (N x 2 uint64), one of them set
    const int8_t* rows
    const uint64_t* keys
    Py_ssize_t n
    int is_short


ctypedef struct nb_out:
    # a growing result: children (`width` bytes each: 50 for rows, 16 for keys), the row
    # each came from and (chance nodes) the index of its roll
    char* kids
    int32_t* parent
    int8_t* roll
    Py_ssize_t n
    Py_ssize_t cap
    Py_ssize_t limit    # max_children, or -1
    int width
    int with_roll
    Py_ssize_t first_cap  # children the first allocation holds (an estimate of the whole)
    int borrowed        # the buffers are an ExpandBuffers' (grow by copying, never realloc)


cdef int greedy_score(const nb_entry* e, int is_short) noexcept nogil
cdef int nb_score(const nb_board* b, int is_short, int koks, int backgammon,
                  int8_t* kind) noexcept nogil
cdef void nb_start(int is_short, nb_board* b) noexcept nogil
cdef void nb_play_game(nb_ctx* c, const nb_rules* r, int koks, int backgammon, uint64_t seed,
                       const int* policy, int max_turns, int8_t* winner, int8_t* points,
                       int8_t* kind, int32_t* turns) noexcept nogil
