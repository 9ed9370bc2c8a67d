# fastnardy._nnet: the trained network's inference in compiled code (fastnardy.network's
# Evaluator), for the search, self-play and the Python API. A network is read-only once
# built, so one may be shared by any number of threads; each caller brings its own scratch.

from libc.stdint cimport int8_t, int16_t, uint8_t, uint64_t

from fastnardy._bearoff cimport Table, bo_table
from fastnardy._features cimport W_MAX, mirror_map, row_facts, shots_fn

cdef enum:
    NN_OUTPUTS = 5   # win, win_mars, win_3, lose_mars, lose_3 (fastnardy.network.OUTPUTS)
    NN_MAX_HIDDEN = 1024


ctypedef struct nn_net:
    int kind            # the feature kind (_features' K_*) and its width
    int width
    int hidden
    int stride          # hidden rounded up to 16: the length of every weight row below
    int is_short
    const mirror_map* mirror
    const float* w1     # width x stride: row i is the first layer's weights of input i
    const float* b1     # stride
    const float* w2t    # NN_OUTPUTS x stride: the output weights, one row per output
    float b2[NN_OUTPUTS]
    const float* bias   # stride: b1 plus the share of the inputs constant in every board
    # A board's inputs as a sum of table rows, each the first layer's share of one group of
    # inputs of side s (0 the mover, 1 the opponent) in one of its states; a row is
    # row_bytes long: stride floats, or for the integer network (qn) qn int16s
    Py_ssize_t row_bytes
    const char* points  # 2 x 25 x 16 rows: point p (24: the bar) holding n checkers
    const char* offs    # 2 x 16 rows: the side's n checkers on the board and bar
    const char* runs    # 2 x 24 x 16 rows (nardy, else NULL): a maximal run of n points held
                        # by the side on the other side's path, from its point r
    const char* longest  # 2 x 7 rows (nardy): the longest such run, at most 6 (L6)
    const char* shots   # 2 x 197 rows (shots, else NULL; NULL too when all their weights
                        # are 0): side s's shots (37 rows: 0..36 rolls), escapes (37), back
                        # checker's point (26) and pip loss (97: 0..96 quarter pips)
    const uint8_t* escapes  # _features.escape_table()
    shots_fn shots_of   # _features.shots_function(), the instruction set's
    const nn_net* race  # the network of races (_features.in_contact false), or NULL
    const nn_net* crashed  # of contact where a side has crashed (_features.in_crashed), or NULL
    const bo_table* bearoff  # the two-sided bear-off database that values the positions it
                             # holds instead of any network, or NULL
    # The integer arithmetic (Network's arithmetic "int16"; _nnet_simd.h's nn_qforward), or
    # qn 0: qn is the hidden units rounded up to 32, the length of its int16 rows
    int qn
    const int16_t* qbias  # qn: the int16 bias
    const int16_t* qlim   # qn: each unit's clamp of its sum
    const int16_t* qmul   # qn: 2^(10 - k), k its scale
    const int16_t* qw2t   # NN_OUTPUTS x qn: the int16 output weights
    double qoffset[NN_OUTPUTS]  # each output's int16 weights' sum times 16384
    double qscale[NN_OUTPUTS]  # the float of one unit of each output's sum


ctypedef struct nn_parent:
    # a position whose children (nn_child2: keys in its mover's frame, as the kernel's moves
    # make them) share their side to move, its opponent: its row in the children's view (its
    # opponent, side 0, first), its facts, and its partial sums by each network (child_rows)
    uint64_t lo, hi     # its key
    int8_t row[50]
    row_facts facts
    const nn_net* net[3]  # the network of each slot below, or NULL (slots 1 and 2: the race
                          # and the crashed one)
    float sums[3][NN_MAX_HIDDEN]
    int16_t qsums[3][NN_MAX_HIDDEN]  # the same, for an integer network


ctypedef struct nn_scratch:
    # what one evaluation writes on the way: the board row of a key, and the weight rows of
    # the inputs switched on (those at 1, and the others with their values); the same for
    # the second board of a pair (nn_key2); and in two slots, the first layer's partial sums
    # of a side to move (base), that side (base_row) and the network (NULL: the slot is empty)
    int8_t row[50]
    int8_t row2[50]
    const void* ones[W_MAX]   # float rows, or int16 rows of an integer network
    const void* ones2[W_MAX]
    const float* rows[W_MAX]
    float values[W_MAX]
    float base[2][NN_MAX_HIDDEN]
    int16_t qbase[2][NN_MAX_HIDDEN]  # the same, for an integer network
    int8_t base_row[2][25]
    const nn_net* base_net[2]
    nn_parent parent
    const void* subs[W_MAX]   # the rows a child's move switched off (nn_child2)
    const void* subs2[W_MAX]


cdef int nn_row(const nn_net* net, const int8_t* row, nn_scratch* s,
                float* probs) noexcept nogil
cdef int nn_key(const nn_net* net, uint64_t lo, uint64_t hi, nn_scratch* s,
                float* probs) noexcept nogil
cdef int nn_row2(const nn_net* net, const int8_t* row_a, const int8_t* row_b, nn_scratch* s,
                 float* probs_a, float* probs_b) noexcept nogil
cdef int nn_key2(const nn_net* net, uint64_t lo_a, uint64_t hi_a, uint64_t lo_b,
                 uint64_t hi_b, nn_scratch* s, float* probs_a, float* probs_b) noexcept nogil
cdef void nn_set_parent(const nn_net* net, nn_scratch* s, uint64_t lo,
                        uint64_t hi) noexcept nogil
cdef void nn_child2(const nn_net* net, nn_scratch* s, uint64_t lo_a, uint64_t hi_a,
                    uint64_t lo_b, uint64_t hi_b, float* probs_a,
                    float* probs_b) noexcept nogil
cdef void nn_probabilities(float* sums, Py_ssize_t count) noexcept nogil
cdef inline double nn_equity(const float* p) noexcept nogil:
    """L10/S9 without the cube: 2 win - 1 + win_mars + win_3 - lose_mars - lose_3."""
    return (2.0 * <double>p[0] + <double>p[1] + <double>p[2] - <double>p[3]
            - <double>p[4] - 1.0)
cdef nn_scratch* nn_scratch_new() noexcept nogil
cdef void nn_scratch_clear(nn_scratch* s) noexcept nogil
cdef void nn_scratch_free(nn_scratch* s) noexcept nogil


cdef class Network:
    cdef nn_net net
    cdef readonly Network race
    cdef readonly Network crashed
    cdef readonly Table bearoff
    cdef readonly str arithmetic
    cdef object arrays
    cdef object args
    cdef object _run(self, object boards, int as_equity)
