"""fastnardy._values -- the compiled cores of the public values and the backend contract's
results: PackedPosition (Position), PackedTurn (Turn) and LegalTurns, the view over the
kernel's packed result; enumerate_turns, enumerate_packed and count_turns in the mover's frame
(see fastnardy.backend). Rule ids (T1, T2, ...) refer to RULES.md."""

from libc.stdint cimport uint64_t, int8_t
from libc.stdlib cimport calloc, malloc, free
from cpython.object cimport PyTypeObject
from cpython.ref cimport Py_INCREF, Py_XDECREF, PyObject
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM

from fastnardy._packed cimport (hkey, mir, nb_board, nb_board_from_key, nb_check_key, nb_entry,
                                nb_rules, nb_swap_key, seq_add, seq_step)
from fastnardy._movegen cimport (NB_COUNT, _generate, ctx_acquire, ctx_release, nb_ctx,
                                 nb_generate)
from fastnardy._args cimport _index, _key_of, _parse_code, _parse_dice, _parse_die, _parse_position

from collections.abc import Sequence as _Sequence
from itertools import islice as _islice

from .errors import FastNardyError, IllegalTurnError, InvalidPositionError, ResourceLimitError
from .rules import Rules


# --------------------------------------------------------------------------- results

cdef tuple _INTS = tuple(range(32))


# (src, dst, hit) step tuples, built once: index (src * 32 + dst) * 2 + hit
cdef tuple _STEPS = tuple([(src, dst, bool(hit)) for src in range(26) for dst in range(32)
                           for hit in range(2)])


cdef inline tuple _tup24(const int8_t* vals):
    cdef tuple t = PyTuple_New(24)
    cdef int i
    cdef object o
    for i in range(24):
        o = _INTS[vals[i]]
        Py_INCREF(o)
        PyTuple_SET_ITEM(t, i, o)
    return t


cdef tuple _steps_of(uint64_t seq, tuple table):
    """The steps of an encoded sequence (seq_add), as items of ``table`` (plain tuples, or
    the Step values of the public API)."""
    cdef int i, n = 0, src, dst, hit
    cdef int idx[4]
    cdef tuple t
    cdef object o
    for i in range(4):
        if not seq_step(seq, i, &src, &dst, &hit):
            break
        idx[n] = (src * 32 + dst) * 2 + hit
        n += 1
    t = PyTuple_New(n)
    for i in range(n):
        o = table[idx[i]]
        Py_INCREF(o)
        PyTuple_SET_ITEM(t, i, o)
    return t


cdef uint64_t _seq_of(object steps) except? 0:
    """Encode up to four (src, dst[, hit]) steps as seq_add does (the inverse of
    _steps_of)."""
    cdef uint64_t seq = 0
    cdef int i = 0, src, dst
    try:
        items = tuple(_islice(steps, 5))  # an endless iterator is read no further
    except TypeError:
        raise IllegalTurnError("T1", f"steps must be a sequence of (src, dst, hit), not {steps!r}") from None
    if len(items) > 4:
        raise IllegalTurnError("L4", "a turn has at most four steps, got more")
    for step in items:
        try:
            fields = tuple(_islice(step, 4))
        except TypeError:
            fields = ()
        if len(fields) not in (2, 3):
            raise IllegalTurnError("T1", f"a step is (src, dst) or (src, dst, hit), "
                                         f"not {step!r}", i + 1)
        src_o, dst_o, hit_o = fields if len(fields) == 3 else fields + (False,)
        if (isinstance(src_o, (bool, float)) or isinstance(dst_o, (bool, float))
                or not hasattr(src_o, "__index__") or not hasattr(dst_o, "__index__")
                or not 0 <= src_o.__index__() <= 25 or not 0 <= dst_o.__index__() <= 25
                or not isinstance(hit_o, (bool, int))):
            raise IllegalTurnError("T1", f"a step is (src, dst, hit) with points 0-25 "
                                         f"(25 = bar, 0 = off), not {step!r}", i + 1)
        src = src_o.__index__()
        dst = dst_o.__index__()
        seq = seq_add(seq, i, src, dst, 1 if hit_o else 0)
        i += 1
    return seq


cdef tuple _entry_tuple(uint64_t lo, uint64_t hi, uint64_t seq, int game):
    """One result entry as the contract's tuple (steps, me, me_bar, opp, opp_bar), decoded
    from its key alone."""
    cdef nb_board b
    cdef int8_t mv[24]
    cdef int8_t ov[24]
    cdef int p
    nb_board_from_key(lo, hi, game, &b)
    for p in range(1, 25):
        mv[p - 1] = b.m[p]
        ov[p - 1] = b.o[mir(p, game)]
    return (_steps_of(seq, _STEPS), _tup24(mv), _INTS[b.m[25]], _tup24(ov), _INTS[b.o[25]])


def enumerate_turns(code, me, me_bar, opp, opp_bar, die1, die2):
    """The legal turns (T1) in T2 order, as in fastnardy.backend."""
    cdef nb_rules r
    cdef nb_board b
    cdef nb_entry* entries
    cdef int n, i
    _parse_position(code, me, me_bar, opp, opp_bar, &r, &b)
    n = _generate(&r, &b, _parse_die(die1, "die1"), _parse_die(die2, "die2"), 1, &entries)
    try:
        return [_entry_tuple(entries[i].lo, entries[i].hi, entries[i].seq, r.game)
                for i in range(n)]
    finally:
        free(entries)


cdef class PackedTurns:
    """The result of enumerate_packed: the legal turns kept as packed entries (key and
    representative sequence, 32 bytes a turn) in T2 order. A read-only sequence: len() is
    free and indexing builds the contract's tuple (steps, me, me_bar, opp, opp_bar)."""

    cdef nb_entry* entries
    cdef Py_ssize_t n
    cdef int game

    def __cinit__(self):
        self.entries = NULL
        self.n = 0

    def __dealloc__(self):
        free(self.entries)

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        cdef Py_ssize_t i
        if isinstance(index, slice):
            return [self[j] for j in range(*index.indices(self.n))]
        i = _index(index, self.n, "PackedTurns")
        return _entry_tuple(self.entries[i].lo, self.entries[i].hi, self.entries[i].seq,
                            self.game)


def enumerate_packed(code, me, me_bar, opp, opp_bar, die1, die2):
    """enumerate_turns, kept packed: a PackedTurns sequence whose items equal the list's."""
    cdef nb_rules r
    cdef nb_board b
    cdef PackedTurns out = PackedTurns.__new__(PackedTurns)
    _parse_position(code, me, me_bar, opp, opp_bar, &r, &b)
    out.game = r.game
    out.n = _generate(&r, &b, _parse_die(die1, "die1"), _parse_die(die2, "die2"), 1,
                      &out.entries)
    return out


cdef int _count(const nb_rules* r, const nb_board* b, int d1, int d2) except -1:
    """The number of legal turns, counted in a pooled context (NB_COUNT)."""
    cdef nb_ctx* c = ctx_acquire()
    cdef int n = nb_generate(c, r, b, d1, d2, NB_COUNT)
    ctx_release(c)
    return n


def count_turns(code, me, me_bar, opp, opp_bar, die1, die2):
    """Number of distinct legal turns (a pass counts 1, game over 0); no Python objects built."""
    cdef nb_rules r
    cdef nb_board b
    cdef int d1, d2
    _parse_position(code, me, me_bar, opp, opp_bar, &r, &b)
    d1 = _parse_die(die1, "die1")
    d2 = _parse_die(die2, "die2")
    return _count(&r, &b, d1, d2)


# --------------------------------------------------------------------------- values
#
# The compiled cores of the public values. fastnardy.position subclasses PackedPosition
# (Position) and PackedTurn (Turn) to add constructors, text and the referee, and hands the
# kernel its classes through bind(): the kernel imports no module of the package but errors.

cdef type _turn_type = None      # fastnardy.position.Turn
cdef tuple _STEP_VALUES = ()     # fastnardy.position.Step values, indexed as _STEPS
cdef object _backends = None     # fastnardy.backend: names the default backend
cdef tuple _NO_ARGS = ()


cdef inline object _new(type base, type cls):
    """``base.__new__(cls)`` for a subclass ``cls`` of the extension type ``base``, without
    its Python-level call (an attribute lookup, an argument tuple and a check each time):
    base's own tp_new slot, given cls, as that call does."""
    return (<PyTypeObject*>base).tp_new(cls, <PyObject*>_NO_ARGS, NULL)


def bind(turn_type, step_type, backends):
    """Called once by fastnardy.position: the Turn class (a PackedTurn subclass) and the
    Step class the kernel builds values of, and the module whose ``DEFAULT_BACKEND`` names
    the backend of ``legal_turns`` without a ``backend`` argument."""
    global _turn_type, _STEP_VALUES, _backends
    if not (isinstance(turn_type, type) and issubclass(turn_type, PackedTurn)):
        raise FastNardyError(f"turn_type must be a PackedTurn subclass, not {turn_type!r}")
    _turn_type = turn_type
    _STEP_VALUES = tuple([step_type(*s) for s in _STEPS])
    _backends = backends


cdef class PackedPosition:
    """The compiled core of :class:`fastnardy.Position`: the packed key in the mover's frame
    (layout in :mod:`fastnardy._packed`), the rules and the side to move. Immutable; ``==`` and
    ``hash`` use the key; the board properties decode it on demand."""

    def _assign(self, rules, turn, me, me_bar, opp, opp_bar):
        """Set the position, once (Position's constructor, after its T7 checks): ``me`` is
        the side ``turn`` ("white" or "black") to move, each side in its own numbering."""
        cdef nb_board b
        if self.ready:
            raise AttributeError("Position is immutable")
        _parse_position(rules.code, me, me_bar, opp, opp_bar, &self.r, &b)
        self.lo = b.lo
        self.hi = b.hi
        self._rules = rules
        self.rules_hash = hash(rules)
        self.black = 1 if turn == "black" else 0
        self.ready = 1

    cdef PackedPosition _after(self, uint64_t lo, uint64_t hi):
        """The position after a turn of this one that ends in key (lo, hi) (this mover's
        frame): the other side to move. Trusted input (the kernel's own result)."""
        cdef PackedPosition p = <PackedPosition>_new(PackedPosition, type(self))
        nb_swap_key(lo, hi, self.r.game, &p.lo, &p.hi)
        p.r = self.r
        p._rules = self._rules
        p.rules_hash = self.rules_hash
        p.black = 1 - self.black
        p.ready = 1
        return p

    def _from_mover_frame(self, me, me_bar, opp, opp_bar):
        """The position after this mover's turn, given as counts in the mover's frame."""
        cdef nb_rules r
        cdef nb_board b
        _parse_position(self._rules.code, me, me_bar, opp, opp_bar, &r, &b)
        return self._after(b.lo, b.hi)

    cdef tuple _side(self, int black):
        """(24 counts in own numbering, bar, off) of one side."""
        cdef nb_board b
        cdef int8_t v[24]
        cdef int p
        nb_board_from_key(self.lo, self.hi, self.r.game, &b)
        if black == self.black:
            for p in range(1, 25):
                v[p - 1] = b.m[p]
            return (_tup24(v), _INTS[b.m[25]], _INTS[b.m[0]])
        for p in range(1, 25):
            v[p - 1] = b.o[mir(p, self.r.game)]
        return (_tup24(v), _INTS[b.o[25]], _INTS[b.o[0]])

    @property
    def rules(self):
        """The game and its rule variants (a :class:`fastnardy.Rules`)."""
        return self._rules

    @property
    def turn(self):
        """The side to move: ``"white"`` or ``"black"``."""
        return "black" if self.black else "white"

    @property
    def white_points(self):
        """White's 24 point counts in white's own numbering (index 0 = its point 1)."""
        return self._side(0)[0]

    @property
    def black_points(self):
        """Black's 24 point counts in black's own numbering (index 0 = its point 1)."""
        return self._side(1)[0]

    @property
    def white_bar(self):
        """White's checkers on the bar (S5; always 0 in long nardy)."""
        return self._side(0)[1]

    @property
    def black_bar(self):
        """Black's checkers on the bar (S5; always 0 in long nardy)."""
        return self._side(1)[1]

    @property
    def white_off(self):
        """White's borne-off checkers (L8/S7)."""
        return self._side(0)[2]

    @property
    def black_off(self):
        """Black's borne-off checkers (L8/S7)."""
        return self._side(1)[2]

    @property
    def key(self):
        """The packed 128-bit key ``(lo, hi)`` in the mover's frame (layout in
        :mod:`fastnardy._packed`); with the rules and the side to move it is the position."""
        return (self.lo, self.hi)

    def mover_frame(self):
        """(me, me_bar, opp, opp_bar): the side to move first, each in its own numbering."""
        me = self._side(self.black)
        opp = self._side(1 - self.black)
        return (me[0], me[1], opp[0], opp[1])

    def legal_turns(self, dice, backend=None):
        """The legal turns for ``dice`` (T1), in T2 order, as a :class:`LegalTurns`
        sequence; a pass (T3) is one empty turn and a finished game (T4) has none.
        ``backend`` is ``"kernel"`` or ``"reference"`` (default: ``FASTNARDY_BACKEND``)."""
        cdef int d1, d2
        cdef nb_board b
        cdef LegalTurns turns
        _parse_dice(dice, &d1, &d2)
        name = _backends.DEFAULT_BACKEND if backend is None else backend
        if type(name) is str and name == "kernel":
            turns = LegalTurns.__new__(LegalTurns)
            nb_board_from_key(self.lo, self.hi, self.r.game, &b)
            turns.n = _generate(&self.r, &b, d1, d2, 1, &turns.entries)
            turns.origin = self
            turns.d1 = d1
            turns.d2 = d2
            return turns
        return self._backend_turns(name, d1, d2)

    def count_turns(self, dice):
        """The number of distinct legal turns for ``dice`` (T1; a pass counts 1, T3; a
        finished game 0, T4), counted by the kernel without building them: what
        ``len(legal_turns(dice))`` gives, without its parsing or its values."""
        cdef int d1, d2
        cdef nb_board b
        _parse_dice(dice, &d1, &d2)
        nb_board_from_key(self.lo, self.hi, self.r.game, &b)
        return _count(&self.r, &b, d1, d2)

    def _backend_turns(self, name, d1, d2):
        """legal_turns on another backend (see fastnardy.position)."""
        raise NotImplementedError

    def __eq__(self, other):
        cdef PackedPosition o
        if not isinstance(other, PackedPosition):
            return NotImplemented
        o = <PackedPosition>other
        return (self.lo == o.lo and self.hi == o.hi and self.black == o.black
                and (self._rules is o._rules or self._rules == o._rules))

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __hash__(self):
        cdef Py_hash_t h = <Py_hash_t>(hkey(self.lo, self.hi) ^ <uint64_t>self.black
                                       ^ <uint64_t>self.rules_hash)
        return -2 if h == -1 else h

    def __reduce__(self):
        return (_restore_position, (type(self), self._rules, self.lo, self.hi,
                                    "black" if self.black else "white"))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def _restore_position(cls, rules, lo, hi, turn):
    """Unpickle a position (of class ``cls``) from its rules, key and side to move, each
    checked (T7: the key is a valid position)."""
    cdef PackedPosition p
    if not (isinstance(cls, type) and issubclass(cls, PackedPosition)):
        raise InvalidPositionError(f"not a position class: {cls!r}")
    if not isinstance(rules, Rules):
        raise InvalidPositionError(f"a pickled position's rules must be a Rules, not {rules!r}")
    if not (type(turn) is str and turn in ("white", "black")):
        raise InvalidPositionError(f"a pickled position's side to move must be 'white' or "
                                   f"'black', not {turn!r}")
    p = PackedPosition.__new__(cls)
    _parse_code(rules.code, &p.r)
    _key_of(lo, hi, p.r.game, &p.lo, &p.hi)
    p._rules = rules
    p.rules_hash = hash(rules)
    p.black = 1 if turn == "black" else 0
    p.ready = 1
    return p


cdef class PackedTurn:
    """The compiled core of :class:`fastnardy.Turn`: the resulting position and the T2
    representative steps, encoded in 64 bits. Two turns are equal when their positions are."""

    def __init__(self, steps, position):
        if not isinstance(position, PackedPosition):
            raise InvalidPositionError(f"a Turn's position must be a Position, not {position!r}")
        self.seq = _seq_of(steps)
        self._position = position

    @property
    def steps(self):
        """The T2 representative steps: a tuple of Step(src, dst, hit) in the mover's
        numbering (25 = bar, 0 = off); empty for a pass (T3)."""
        return _steps_of(self.seq, _STEP_VALUES)

    cdef PackedPosition _pos(self):
        """The resulting position, built at the first request in a generated turn (a list
        of turns that is only searched by steps or counted makes no Position)."""
        if self._position is None:
            if self.origin is None:  # Turn.__new__ without __init__
                raise InvalidPositionError("this Turn was made without a position")
            self._position = self.origin._after(self.lo, self.hi)
        return self._position

    @property
    def position(self):
        """The position the turn produces, the other side to move."""
        return self._pos()

    def is_pass(self):
        """T3: the empty turn."""
        return self.seq == 0

    def _is_turn_of(self, position, dice):
        """True when this turn was generated from ``position`` (for ``dice``, unless None):
        then it is legal there without a check."""
        cdef int d1, d2
        if self.origin is None or not (self.origin is position or self.origin == position):
            return False
        if dice is None:
            return True
        _parse_dice(dice, &d1, &d2)
        return (d1 == self.d1 and d2 == self.d2) or (d1 == self.d2 and d2 == self.d1)

    def __eq__(self, other):
        if not isinstance(other, PackedTurn):
            return NotImplemented
        return self._pos() == (<PackedTurn>other)._pos()

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __hash__(self):
        return hash(self._pos())

    def __reduce__(self):
        return (type(self), (self.steps, self._pos()))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


cdef class LegalTurns:
    """The legal turns of a position for one roll (T1), in T2 order: an immutable sequence
    (a view, like python-chess's ``legal_moves``) over the kernel's packed result, 32 bytes a
    turn. ``len()`` costs nothing; each Turn is built when first read, and kept. It
    compares equal to any sequence of the same turns, a list included."""

    def __dealloc__(self):
        cdef Py_ssize_t i
        if self.built != NULL:
            for i in range(self.n):
                Py_XDECREF(self.built[i])
            free(self.built)
        free(self.entries)

    @staticmethod
    def from_turns(PackedPosition origin, turns, d1, d2):
        """The view over another backend's result: the contract's tuples (steps, me, me_bar,
        opp, opp_bar) of ``origin`` for the roll (d1, d2)."""
        cdef LegalTurns view = LegalTurns.__new__(LegalTurns)
        cdef nb_rules r
        cdef nb_board b
        cdef Py_ssize_t i, n = len(turns)
        view.origin = origin
        _parse_dice((d1, d2), &view.d1, &view.d2)
        if n:
            view.entries = <nb_entry*>malloc(n * sizeof(nb_entry))
            if view.entries == NULL:
                raise ResourceLimitError("cannot allocate a LegalTurns")
        for i in range(n):
            steps, me, me_bar, opp, opp_bar = turns[i]
            _parse_position(origin._rules.code, me, me_bar, opp, opp_bar, &r, &b)
            view.entries[i].lo = b.lo
            view.entries[i].hi = b.hi
            view.entries[i].seq = _seq_of(steps)
            view.entries[i].flags = 0
            view.n = i + 1
        return view

    cdef object _turn(self, Py_ssize_t i):
        cdef PackedTurn t
        if self.built == NULL:
            self.built = <PyObject**>calloc(self.n, sizeof(PyObject*))
            if self.built == NULL:
                raise ResourceLimitError("cannot allocate a LegalTurns")
        elif self.built[i] != NULL:
            return <object>self.built[i]
        t = <PackedTurn>_new(PackedTurn, _turn_type)
        t.seq = self.entries[i].seq
        t.lo = self.entries[i].lo
        t.hi = self.entries[i].hi
        t.origin = self.origin
        t.d1 = self.d1
        t.d2 = self.d2
        Py_INCREF(t)
        self.built[i] = <PyObject*>t
        return t

    @property
    def roll(self):
        """The roll these are the turns of, as given."""
        return (_INTS[self.d1], _INTS[self.d2])

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self._turn(i) for i in range(*index.indices(self.n))]
        return self._turn(_index(index, self.n, "LegalTurns"))

    def __iter__(self):
        cdef _TurnIterator it = _TurnIterator.__new__(_TurnIterator)
        it.view = self
        return it

    def __reversed__(self):
        return iter([self._turn(i) for i in range(self.n - 1, -1, -1)])

    def __contains__(self, item):
        return any(item == turn for turn in self)

    def index(self, value, start=0, stop=None):
        """The first index of ``value`` (ValueError when it is not there), as list.index."""
        cdef Py_ssize_t i
        for i in range(*slice(start, stop).indices(self.n)):
            if self._turn(i) == value:
                return i
        raise ValueError(f"{value!r} is not in LegalTurns")

    def count(self, value):
        """How often ``value`` occurs (0 or 1: the turns are distinct, T1)."""
        return sum(1 for turn in self if turn == value)

    def __eq__(self, other):
        if isinstance(other, (str, bytes)) or not isinstance(other, _Sequence):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    __hash__ = None

    def __repr__(self):
        return f"<LegalTurns ({', '.join(map(str, self))})>"

    def __reduce__(self):
        cdef bytes data = (<char*>self.entries)[:self.n * sizeof(nb_entry)] if self.n else b""
        return (_restore_legal_turns, (self.origin, data, self.d1, self.d2))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def _restore_legal_turns(origin, data, d1, d2):
    """Unpickle a LegalTurns: its position, its packed entries and its roll. The turns are
    generated afresh and must be the pickled ones, position and steps (T1, T2), or the
    pickle is refused: a restored Turn is trusted as legal."""
    cdef LegalTurns view = LegalTurns.__new__(LegalTurns)
    cdef PackedPosition position
    cdef nb_board b
    cdef const nb_entry* given
    cdef Py_ssize_t i
    if not isinstance(origin, PackedPosition):
        raise InvalidPositionError(f"a pickled LegalTurns' position must be a Position, "
                                   f"not {origin!r}")
    if type(data) is not bytes or len(data) % sizeof(nb_entry):
        raise InvalidPositionError("LegalTurns data of a wrong size")
    position = <PackedPosition>origin
    view.origin = position
    _parse_dice((d1, d2), &view.d1, &view.d2)
    nb_board_from_key(position.lo, position.hi, position.r.game, &b)
    view.n = _generate(&position.r, &b, view.d1, view.d2, 1, &view.entries)
    given = <const nb_entry*><const char*>data
    if len(data) != view.n * sizeof(nb_entry):
        raise InvalidPositionError(f"a pickled LegalTurns holds {len(data) // sizeof(nb_entry)} "
                                   f"turns; its position has {view.n} for the roll")
    for i in range(view.n):
        if (given[i].lo != view.entries[i].lo or given[i].hi != view.entries[i].hi
                or given[i].seq != view.entries[i].seq):
            raise InvalidPositionError(f"a pickled LegalTurns' turn {i} is not its position's "
                                       f"legal turn {i} for the roll (T1, T2)")
    return view


def _positions_after(origin, data):
    """The positions after turns of ``origin`` (a Position) that end in the keys of the
    packed entries ``data`` (their steps unread), each key checked (T7): batch.decode's
    positions, made from keys without a LegalTurns."""
    cdef PackedPosition position
    cdef const nb_entry* given
    cdef Py_ssize_t i
    if not isinstance(origin, PackedPosition):
        raise InvalidPositionError(f"a Position is needed, not {origin!r}")
    if type(data) is not bytes or len(data) % sizeof(nb_entry):
        raise InvalidPositionError("entry data of a wrong size")
    position = <PackedPosition>origin
    given = <const nb_entry*><const char*>data
    for i in range(len(data) // sizeof(nb_entry)):
        if nb_check_key(given[i].lo, given[i].hi, position.r.game):
            raise InvalidPositionError(f"entry {i} holds an invalid key")
    return [position._after(given[i].lo, given[i].hi)
            for i in range(len(data) // sizeof(nb_entry))]


cdef class _TurnIterator:
    cdef LegalTurns view
    cdef Py_ssize_t i

    def __iter__(self):
        return self

    def __next__(self):
        if self.view is None or not 0 <= self.i < self.view.n:  # a restored pickle, too
            raise StopIteration
        self.i += 1
        return self.view._turn(self.i - 1)

    def __length_hint__(self):
        if self.view is None or not 0 <= self.i <= self.view.n:
            return 0
        return self.view.n - self.i


_Sequence.register(LegalTurns)
