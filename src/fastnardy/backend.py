"""The backend contract, and which backend the public API runs on.

Two modules implement the same two functions, in the **mover's frame**:

* ``fastnardy._kernel`` (Cython, the default), and
* ``fastnardy.reference`` (pure Python, the trusted twin for differential testing).

``enumerate_turns(code, me, me_bar, opp, opp_bar, die1, die2)``
    ``code`` is ``Rules.code``; ``me`` / ``opp`` are 24 checker counts in each side's **own**
    numbering (index 0 = that side's point 1), ``me`` being the side to move; bars are counts
    (always 0 in long nardy). Returns the legal turns (T1) in T2 order as a list of
    ``(steps, me_after, me_bar_after, opp_after, opp_bar_after)`` where ``steps`` is the T2
    representative: a tuple of ``(src, dst, hit)`` in the mover's numbering (25 = bar,
    0 = off) and the boards are 24-tuples in the same frames as the input. A pass (T3) is one
    entry with no steps; a game-over position (T4) gives an empty list.

``enumerate_packed(code, me, me_bar, opp, opp_bar, die1, die2)``
    The same turns as a read-only sequence whose items equal that list's: the kernel keeps
    them packed (24 bytes a turn) and builds each tuple on access, the reference returns the
    list. ``Position.legal_turns`` stands on it, so that a call costs little more than the
    enumeration.

``perft_count(code, me, me_bar, opp, opp_bar, depth, weighted)``
    T5 perft from that position, the side ``me`` to move.

Select the backend with the environment variable ``FASTNARDY_BACKEND`` (``kernel`` or
``reference``) before import, or per call where a function takes ``backend=``.
"""

from __future__ import annotations

import os
from typing import Dict, List, Protocol, Sequence, SupportsIndex, Tuple

from .basics import Points as Points, TurnTuple as TurnTuple
from .errors import FastNardyError

BACKENDS = ("kernel", "reference")

Code = Tuple[int, int, int, int, int]  # Rules.code
Counts = Sequence[SupportsIndex]  # 24 checker counts as given, index 0 = the side's point 1
Board = Points  # the name that _kernel.pyi gives the points it returns


class Backend(Protocol):
    """The contract of the module docstring: both backend modules satisfy it (mypy checks
    the modules against it in ``_load``)."""

    def enumerate_turns(self, code: Code, me: Counts, me_bar: SupportsIndex, opp: Counts,
                        opp_bar: SupportsIndex, die1: SupportsIndex,
                        die2: SupportsIndex) -> List[TurnTuple]: ...

    def enumerate_packed(self, code: Code, me: Counts, me_bar: SupportsIndex, opp: Counts,
                         opp_bar: SupportsIndex, die1: SupportsIndex,
                         die2: SupportsIndex) -> Sequence[TurnTuple]: ...

    def perft_count(self, code: Code, me: Counts, me_bar: SupportsIndex, opp: Counts,
                    opp_bar: SupportsIndex, depth: SupportsIndex,
                    weighted: bool = False) -> int: ...


def _unknown(what: str, name: object) -> FastNardyError:
    return FastNardyError(f"{what} must be one of {', '.join(map(repr, BACKENDS))}, "
                          f"not {name!r}")


def _load(name: str) -> Backend:
    if name == "reference":
        from . import reference

        return reference
    if name == "kernel":
        try:
            from . import _kernel
        except ImportError as exc:  # never fall back silently to the slow path
            where = os.path.dirname(__file__)
            built = any(name.startswith("_kernel.") and not name.endswith((".pyx", ".pxd", ".pyi"))
                        for name in os.listdir(where))
            raise ImportError(
                "fastnardy's compiled kernel (fastnardy._kernel) failed to import: "
                f"{exc}. " + ("" if built else
                              f"It is not built in {where}: that is a source tree, not an "
                              "installed copy (does PYTHONPATH=src hide the installed one? "
                              "`python setup.py build_ext --inplace` builds it there). ") +
                "Reinstall with `pip install .` (it needs a C compiler): the values "
                "(Position, Turn) are compiled too, whichever backend generates turns."
            ) from exc
        return _kernel
    raise _unknown("backend", name)


# Read once, at import, and exactly: an unknown name (``Reference`` too) is a FastNardyError
# raised by ``import fastnardy`` itself, never a silent fallback to another backend.
DEFAULT_BACKEND = os.environ.get("FASTNARDY_BACKEND", "kernel") or "kernel"
if DEFAULT_BACKEND not in BACKENDS:
    raise _unknown("the environment variable FASTNARDY_BACKEND", DEFAULT_BACKEND)


_loaded: Dict[str, Backend] = {}


def resolve(name: object = None) -> str:
    """The backend that ``name`` selects (None: ``FASTNARDY_BACKEND``), validated:
    ``"kernel"`` or ``"reference"``."""
    key = DEFAULT_BACKEND if name is None else name
    if not isinstance(key, str) or key not in BACKENDS:
        raise _unknown("backend", key)
    return key


def get(name: object = None) -> Backend:
    """The backend module called ``name`` (default: ``FASTNARDY_BACKEND`` or ``kernel``)."""
    key = resolve(name)
    module = _loaded.get(key)
    if module is None:
        module = _loaded[key] = _load(key)
    return module
