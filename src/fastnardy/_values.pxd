# fastnardy._values: the compiled cores of the public values (Position, Turn, LegalTurns)
# and the backend contract's results (enumerate_turns, count_turns).

from libc.stdint cimport uint64_t
from cpython.ref cimport PyObject

from fastnardy._packed cimport nb_entry, nb_rules


cdef class PackedPosition:
    cdef uint64_t lo
    cdef uint64_t hi
    cdef nb_rules r
    cdef object _rules
    cdef Py_hash_t rules_hash
    cdef int black          # 1 when black is to move
    cdef int ready          # set once: a position never changes

    cdef PackedPosition _after(self, uint64_t lo, uint64_t hi)
    cdef tuple _side(self, int black)


cdef class PackedTurn:
    cdef uint64_t seq
    cdef PackedPosition _position  # None until asked for, in a generated turn
    cdef PackedPosition origin   # the position it was generated from (None: built by hand)
    cdef int d1, d2              # and its roll
    cdef uint64_t lo, hi         # a generated turn's resulting key, origin's mover's frame
    cdef PackedPosition _pos(self)


cdef class LegalTurns:
    cdef PackedPosition origin
    cdef nb_entry* entries
    cdef Py_ssize_t n
    cdef int d1, d2
    cdef PyObject** built        # the Turns read so far (NULL until the first)

    cdef object _turn(self, Py_ssize_t i)
