"""fastnardy: legal turns and perft for long and short nardy, fast.

The public API runs on the Cython kernel (``fastnardy._kernel``); the pure-Python reference
(``fastnardy.reference``) is its twin, selected with ``FASTNARDY_BACKEND=reference`` or a
``backend="reference"`` argument. The rules are those of the rule book shipped in the
package (``docs/rules.md``, read by rule id with :mod:`fastnardy.rules`), cited by id.
"""

__version__ = "0.2.0"  # the one place: pyproject.toml reads it (statically, no import)

import importlib as _importlib
from typing import TYPE_CHECKING as _TYPE_CHECKING

from . import backend as _backend

# The values (Position, Turn) are compiled, whatever backend generates turns: a missing or
# broken kernel fails here, first and loudly, before any module imports it.
_backend.get("kernel")

from .basics import ALL_ROLLS
from .errors import (CountOverflowError, EngineError, FastNardyError, IllegalActionError,
                     IllegalTurnError,
                     InvalidDiceError, InvalidPositionError, InvalidRecordError,
                     InvalidRulesError, MatchEquityError, NotationError,
                     ResourceLimitError)
from .counting import perft, perft_divide
from .game import Game, Match
from .position import LegalTurns, Outcome, PlayedTurn, Position, Step, Turn
from .rules import Rules

if _TYPE_CHECKING:
    from .search.inputs import features
    from .search.selfplay import simulate

_backend.get()  # import the default backend (FASTNARDY_BACKEND) now


# Two functions of the satellites are names of the package too; they are imported when
# first read, so that importing the core imports no satellite.
_LAZY = {"features": "search.inputs", "simulate": "search.selfplay"}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        value = getattr(_importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ALL_ROLLS", "CountOverflowError", "EngineError", "FastNardyError", "Game",
    "IllegalActionError", "IllegalTurnError", "InvalidDiceError", "InvalidPositionError",
    "InvalidRecordError", "InvalidRulesError", "LegalTurns", "Match", "MatchEquityError",
    "NotationError",
    "Outcome", "PlayedTurn", "Position", "ResourceLimitError", "Rules", "Step", "Turn",
    "features", "perft", "perft_divide", "simulate",
]
