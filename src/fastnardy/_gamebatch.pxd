# fastnardy._gamebatch: GameBatch, N running games in the kernel (self-play with evaluator
# policies, the environments), each on its own dice and choice streams.

from libc.stdint cimport uint64_t, int8_t, int32_t, int64_t

from fastnardy._packed cimport nb_rules
from fastnardy._movegen cimport nb_ctx
from fastnardy._nnet cimport nn_net, nn_scratch


cdef class GameBatch:
    cdef nb_rules r
    cdef int koks, backgammon, max_turns
    cdef int pol[2]
    cdef Py_ssize_t n
    cdef uint64_t base
    cdef object arrays
    cdef uint64_t* key
    cdef uint64_t* dice_rng
    cdef uint64_t* pick_rng
    cdef int8_t* side
    cdef int8_t* dice
    cdef int8_t* status
    cdef int8_t* winner
    cdef int8_t* points
    cdef int8_t* kind
    cdef int32_t* turns
    cdef uint64_t* kids
    cdef Py_ssize_t nkids, capkids
    cdef object waiting     # (games, offsets) of the last prepare
    cdef int restart        # a game that ends begins again (the next stream, T6 opening)
    cdef int64_t next_stream
    cdef int8_t* ended      # 2 or 3: the game ended (since take_ended), else 0
    cdef object nets        # the Network of each side with policy 3, else None
    cdef const nn_net* net[2]
    cdef nn_scratch* scratch  # the network's scratch during prepare
    cdef int busy           # a call is running (taken and released with the GIL held)
    cdef int keep_children  # 0: a StepBatch plays the waiting games (no children kept)

    cdef object _init(self, object code, object koks, object backgammon, object n,
                      object seed, object policy, object max_turns, object restart,
                      object nets)
    cdef int _enter(self) except -1
    cdef object _start(self, object games, object streams, object keys, object sides)
    cdef void begin(self, Py_ssize_t g, int64_t stream) noexcept nogil
    cdef void open_game(self, Py_ssize_t g) noexcept nogil
    cdef int advance(self, Py_ssize_t g, uint64_t lo, uint64_t hi) noexcept nogil
    cdef void cut(self, Py_ssize_t g) noexcept nogil
    cdef int ready_to_run(self) except -1
    cdef int run_game(self, nb_ctx* c, Py_ssize_t g) noexcept nogil
    cdef int network_choice(self, nb_ctx* c, int n, const nn_net* net, uint64_t lo,
                            uint64_t hi) noexcept nogil
    cdef object _prepare(self, object stop)
    cdef object _play_values(self, object values)
    cdef object _play_choices(self, object choices)
    cdef void _done(self)
    cdef object _state(self)
    cdef object _take_ended(self)
    cdef object _results(self)
