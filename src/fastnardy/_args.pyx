"""fastnardy._args -- the argument checks of the kernel's entry points: rules codes (Rules.code),
the 24 counts of a side, bars, dice, keys and indices. Each has a fast path for the common
well-formed case and raises the documented FastNardyError subclass, naming what is wrong,
for anything else (errors.py). Rule ids (L3, T7, ...) refer to RULES.md."""

from libc.stdint cimport uint64_t, int8_t
from cpython.buffer cimport PyBUF_C_CONTIGUOUS, PyBuffer_Release, PyObject_GetBuffer
from cpython.list cimport PyList_GET_SIZE
from cpython.long cimport PyLong_AsLongAndOverflow
from cpython.ref cimport PyObject
from cpython.sequence cimport PySequence_Fast_ITEMS
from cpython.tuple cimport PyTuple_GET_SIZE

from fastnardy._packed cimport nb_board, nb_build, nb_check_key, nb_rules

from itertools import islice as _islice
from operator import index as _op_index

import numpy as np

from .errors import FastNardyError, InvalidDiceError, InvalidPositionError

cdef extern from *:
    """
    /* x as a count of checkers when it is an int object (exactly) from 0 to 15, else -1:
       the value of a one-digit int read in place (the fast path of the 48 counts of a
       position: Cython's general conversion of each took 9% of a count_turns call). */
    static inline int nb_small_count(PyObject* x) {
        if (!PyLong_CheckExact(x))
            return -1;
    #if PY_VERSION_HEX >= 0x030C0000
        if (!PyUnstable_Long_IsCompact((PyLongObject*)x))
            return -1;
        Py_ssize_t v = PyUnstable_Long_CompactValue((PyLongObject*)x);
        return v >= 0 && v <= 15 ? (int)v : -1;
    #else
        Py_ssize_t size = Py_SIZE(x);
        if (size == 0)
            return 0;
        return size == 1 && ((PyLongObject*)x)->ob_digit[0] <= 15
            ? (int)((PyLongObject*)x)->ob_digit[0] : -1;
    #endif
    }
    """
    int nb_small_count(PyObject* x) noexcept


cdef int _as_int(object x, str what, type err) except? -1:
    cdef int ovf = 0
    cdef long lv
    if type(x) is int:
        lv = PyLong_AsLongAndOverflow(x, &ovf)
        if not ovf and -1000000 < lv < 1000000:
            return <int>lv
    if isinstance(x, bool) or isinstance(x, float):
        raise err(f"{what} must be an int, not {x!r}")
    try:
        return _op_index(x)
    except TypeError:
        raise err(f"{what} must be an int, not {x!r}") from None
    except OverflowError:
        raise err(f"{what} is out of range: {x!r}") from None


cdef int _parse_code(object code, nb_rules* r) except -1:
    cdef list vals
    cdef int i, ovf = 0
    cdef long lv
    cdef long cv[5]
    cdef object x
    if type(code) is tuple and len(<tuple>code) == 5:  # fast path: Rules.code
        for i in range(5):
            x = (<tuple>code)[i]
            if type(x) is not int:
                break
            lv = PyLong_AsLongAndOverflow(x, &ovf)
            if ovf or lv < 0 or lv >= (2 if i == 0 or i >= 3 else 3):
                break
            cv[i] = lv
        else:
            r.game = <int>cv[0]
            r.head_rule = <int>cv[1]
            r.block_rule = <int>cv[2]
            r.block_check = <int>cv[3]
            r.hit_and_hide = <int>cv[4]
            return 0
    try:
        vals = list(code)
    except TypeError:
        raise FastNardyError(f"code must be a tuple of 5 ints (Rules.code), not {code!r}") from None
    if len(vals) != 5:
        raise FastNardyError(f"code must be a tuple of 5 ints (Rules.code), not {code!r}")
    limits = (2, 3, 3, 2, 2)
    names = ("game", "head_rule", "block_rule", "block_check", "hit_and_hide")
    out = []
    for i in range(5):
        v = _as_int(vals[i], f"code[{i}] ({names[i]})", FastNardyError)
        if not 0 <= v < limits[i]:
            raise FastNardyError(
                f"code[{i}] ({names[i]}) must be in 0..{limits[i] - 1}, not {v!r}")
        out.append(v)
    r.game, r.head_rule, r.block_rule, r.block_check, r.hit_and_hide = out
    return 0


cdef int _parse_side(object seq, str name, int8_t* dst) except -1:
    """24 counts of one side, own numbering, into dst[0..23]."""
    cdef int i, v
    cdef PyObject** items
    if ((type(seq) is tuple and PyTuple_GET_SIZE(seq) == 24)
            or (type(seq) is list and PyList_GET_SIZE(seq) == 24)):  # fast path: ints 0..15
        items = PySequence_Fast_ITEMS(seq)
        for i in range(24):
            v = nb_small_count(items[i])
            if v < 0:
                break
            dst[i] = <int8_t>v
        else:
            return 0
    # the general path, with the messages
    if isinstance(seq, (str, bytes)):
        raise InvalidPositionError(f"{name} must be a sequence of 24 ints, not {seq!r}")
    try:
        n = len(seq)
    except TypeError:
        raise InvalidPositionError(f"{name} must be a sequence of 24 ints, not {seq!r}") from None
    if n != 24:
        raise InvalidPositionError(f"{name} must have 24 point counts, not {n}")
    for i in range(24):
        v = _as_int(seq[i], f"{name}[{i}] (point {i + 1})", InvalidPositionError)
        if v < 0 or v > 15:
            raise InvalidPositionError(
                f"{name}[{i}] (point {i + 1}) must be a count from 0 to 15, not {v}")
        dst[i] = <int8_t>v
    return 0


cdef str _row(int row):
    return "" if row < 0 else f"row {row}: "


cdef int _build_error(int err, const int8_t* me, int me_bar, const int8_t* opp, int opp_bar,
                      int row) except -1:
    """Raise the InvalidPositionError for nb_build's (or nb_check_key's) error number."""
    cdef int i, sm = me_bar, so = opp_bar
    if me != NULL:
        for i in range(24):
            sm += me[i]
            so += opp[i]
    if err == 1:
        raise InvalidPositionError(f"{_row(row)}bar counts must be from 0 to 15, "
                                   f"not {me_bar} and {opp_bar}")
    if err == 2:
        raise InvalidPositionError(f"{_row(row)}long nardy has no bar (L3), but the bars hold "
                                   f"checkers")
    if err == 3:
        raise InvalidPositionError(f"{_row(row)}counts must not be negative")
    if err == 4:
        raise InvalidPositionError(f"{_row(row)}the side to move has "
                                   f"{sm if me != NULL else 'more than 15'} checkers on the "
                                   f"board and bar; at most 15 (T7)")
    if err == 5:
        raise InvalidPositionError(f"{_row(row)}the opponent has "
                                   f"{so if me != NULL else 'more than 15'} checkers on the "
                                   f"board and bar; at most 15 (T7)")
    if err == 6:
        raise InvalidPositionError(f"{_row(row)}a point holds checkers of both sides (T7)")
    if err == 7:
        raise InvalidPositionError(f"{_row(row)}a key field holds 31, which encodes nothing")
    raise InvalidPositionError(f"{_row(row)}invalid position")


cdef int _parse_position(object code, object me, object me_bar, object opp, object opp_bar,
                         nb_rules* r, nb_board* b) except -1:
    cdef int8_t cme[24]
    cdef int8_t copp[24]
    cdef int err
    _parse_code(code, r)
    _parse_side(me, "me", cme)
    _parse_side(opp, "opp", copp)
    mb = _as_int(me_bar, "me_bar", InvalidPositionError)
    ob = _as_int(opp_bar, "opp_bar", InvalidPositionError)
    if mb < 0 or mb > 15 or ob < 0 or ob > 15:
        raise InvalidPositionError(f"bar counts must be from 0 to 15, not {mb} and {ob}")
    err = nb_build(cme, mb, copp, ob, r.game, b)
    if err:
        _build_error(err, cme, mb, copp, ob, -1)
    return 0


cdef int _parse_die(object d, str name) except -1:
    cdef int ovf = 0
    cdef long lv
    if type(d) is int:
        lv = PyLong_AsLongAndOverflow(d, &ovf)
        if not ovf and 1 <= lv <= 6:
            return <int>lv
    v = _as_int(d, name, InvalidDiceError)
    if not 1 <= v <= 6:
        raise InvalidDiceError(f"{name} must be an int from 1 to 6, not {v!r}")
    return v


cdef int _parse_dice(object dice, int* d1, int* d2) except -1:
    """A roll: a sequence of two ints from 1 to 6 (InvalidDiceError otherwise)."""
    cdef object a, b
    if type(dice) is tuple and PyTuple_GET_SIZE(dice) == 2:
        a = (<tuple>dice)[0]
        b = (<tuple>dice)[1]
    else:
        if isinstance(dice, (str, bytes)):
            raise InvalidDiceError(f"dice must be two integers from 1 to 6, not {dice!r}")
        try:
            values = tuple(_islice(dice, 3))  # an endless iterator is read no further
        except TypeError:
            raise InvalidDiceError(f"dice must be two integers from 1 to 6, not {dice!r}") from None
        if len(values) != 2:
            raise InvalidDiceError(f"dice must be two integers from 1 to 6, not {dice!r}")
        a, b = values
    d1[0] = _parse_die(a, "die1")
    d2[0] = _parse_die(b, "die2")
    return 0


cpdef object as_array(object value, str name, type error=FastNardyError):
    """``value`` as a numpy array: ``error`` for a ragged nesting of lists (rows of
    different lengths), which numpy refuses."""
    try:
        return np.asarray(value)
    except (ValueError, TypeError) as exc:
        raise error(f"{name} must be an array (rows of one length), not a ragged "
                    f"{type(value).__name__}: {exc}") from None


def dice_pair(dice):
    """A roll as a tuple of two ints from 1 to 6, in the order given (InvalidDiceError for
    anything else: strings, bools, floats, other lengths)."""
    cdef int d1, d2
    _parse_dice(dice, &d1, &d2)
    return (d1, d2)


cdef int _game_of(object game) except -1:
    if game == "long":
        return 0
    if game == "short":
        return 1
    if isinstance(game, bool) or game not in (0, 1):
        raise FastNardyError(f"game must be 0/'long' or 1/'short', not {game!r}")
    return int(game)


cdef int _key_of(object lo, object hi, int game, uint64_t* clo, uint64_t* chi) except -1:
    cdef int err
    try:
        clo[0] = _op_index(lo)
        chi[0] = _op_index(hi)
    except (TypeError, OverflowError):
        raise InvalidPositionError(f"a key is two ints from 0 to 2**64-1, not {lo!r}, {hi!r}") from None
    err = nb_check_key(clo[0], chi[0], game)
    if err:
        _build_error(err, NULL, 0, NULL, 0, -1)
    return 0


cdef Py_ssize_t _index(object index, Py_ssize_t n, str what) except -1:
    cdef Py_ssize_t i
    try:
        i = _op_index(index)
    except TypeError:
        raise TypeError(f"{what} indices must be integers or slices, not {index!r}") from None
    if i < 0:
        i += n
    if not 0 <= i < n:
        raise IndexError(f"{what} index out of range")
    return i


cdef size_t _data(object array) except? 0:
    """The address of a C-contiguous array's data, through the buffer protocol (a fifth of
    the cost of ``array.ctypes.data``; anything else raises BufferError). The caller keeps
    ``array`` alive while it uses the address."""
    cdef Py_buffer view
    cdef size_t address
    PyObject_GetBuffer(array, &view, PyBUF_C_CONTIGUOUS)
    address = <size_t>view.buf
    PyBuffer_Release(&view)
    return address
