# fastnardy._args: the checks of what the kernel's entry points are given (rules codes,
# counts, bars, dice, keys, indices), each raising the documented FastNardyError subclass.

from libc.stdint cimport uint64_t, int8_t

from fastnardy._packed cimport nb_board, nb_rules

cdef int _as_int(object x, str what, type err) except? -1
cdef int _parse_code(object code, nb_rules* r) except -1
cdef int _parse_side(object seq, str name, int8_t* dst) except -1
cdef int _build_error(int err, const int8_t* me, int me_bar, const int8_t* opp, int opp_bar,
                      int row) except -1
cdef int _parse_position(object code, object me, object me_bar, object opp, object opp_bar,
                         nb_rules* r, nb_board* b) except -1
cdef int _parse_die(object d, str name) except -1
cdef int _parse_dice(object dice, int* d1, int* d2) except -1
cdef int _game_of(object game) except -1
cdef int _key_of(object lo, object hi, int game, uint64_t* clo, uint64_t* chi) except -1
cdef Py_ssize_t _index(object index, Py_ssize_t n, str what) except -1
cdef size_t _data(object array) except? 0
cpdef object as_array(object value, str name, type error=*)
