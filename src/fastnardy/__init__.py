"""fastnardy: legal turns and perft for long and short nardy, fast.

The public API runs on the Cython kernel (``fastnardy._kernel``); the pure-Python reference
(``fastnardy.reference``) is its twin, selected with ``FASTNARDY_BACKEND=reference`` or a
``backend="reference"`` argument. The rules are those of the rule book shipped in the
package (``docs/rules.md``, read by rule id with :mod:`fastnardy.rulebook`), cited by id.
"""

__version__ = "0.1.0"  # the one place: pyproject.toml reads it (statically, no import)

import importlib as _importlib
import sys as _sys
import types as _types
import warnings as _warnings

from . import backend as _backend

# The values (Position, Turn) are compiled, whatever backend generates turns: a missing or
# broken kernel fails here, first and loudly, before any module imports it.
_backend.get("kernel")

from .basics import ALL_ROLLS
from .errors import (CountOverflowError, EngineError, FastNardyError, IllegalTurnError,
                     InvalidDiceError, InvalidPositionError, InvalidRecordError,
                     InvalidRulesError, NotationError, ResourceLimitError)
from .counting import perft, perft_divide
from .game import Game
from .inputs import features
from .position import LegalTurns, Outcome, PlayedTurn, Position, Step, Turn
from .rules import Rules
from .selfplay import simulate

_backend.get()  # import the default backend (FASTNARDY_BACKEND) now


class _RenamedModule(_types.ModuleType):
    """The old import path of a renamed module, whose name is now a function only (the
    python-chess way: a module holds functions and is not named after one of them). Each
    name read from it comes from the new module, with a DeprecationWarning."""

    def __init__(self, old: str, new: str) -> None:
        super().__init__(old, f"Deprecated: renamed {new}.")
        self._new = new

    def __getattr__(self, name: str) -> object:
        if name.startswith("__"):  # the import machinery's probes (__path__, ...)
            raise AttributeError(name)
        _warnings.warn(f"{self.__name__} is renamed {self._new}: import {name} from there",
                       DeprecationWarning, stacklevel=2)
        return getattr(_importlib.import_module(self._new), name)


# fastnardy.perft and fastnardy.features are the functions; their modules are counting and
# inputs. `from fastnardy.perft import read_perft_file` still works, with a warning.
for _old, _new in (("perft", "counting"), ("features", "inputs")):
    _sys.modules[f"{__name__}.{_old}"] = _RenamedModule(f"{__name__}.{_old}",
                                                        f"{__name__}.{_new}")

__all__ = [
    "ALL_ROLLS", "CountOverflowError", "EngineError", "FastNardyError", "Game",
    "IllegalTurnError", "InvalidDiceError", "InvalidPositionError", "InvalidRecordError",
    "InvalidRulesError", "LegalTurns", "NotationError", "Outcome", "PlayedTurn", "Position",
    "ResourceLimitError", "Rules", "Step", "Turn", "features", "perft", "perft_divide",
    "simulate",
]
