"""fastnardy: legal turns and perft for long and short nardy, fast.

The public API runs on the Cython kernel (``fastnardy._kernel``); the pure-Python reference
(``fastnardy.reference``) is its twin, selected with ``FASTNARDY_BACKEND=reference`` or a
``backend="reference"`` argument. The rules are those of the rule book shipped in the
package (``docs/rules.md``, read by rule id with :mod:`fastnardy.rules`), cited by id.
"""

__version__ = "0.1.0"  # the one place: pyproject.toml reads it (statically, no import)

import importlib as _importlib
import importlib.abc as _abc
import importlib.machinery as _machinery
import importlib.util as _util
import sys as _sys
import types as _types
from typing import TYPE_CHECKING as _TYPE_CHECKING
import warnings as _warnings

from . import backend as _backend

# The values (Position, Turn) are compiled, whatever backend generates turns: a missing or
# broken kernel fails here, first and loudly, before any module imports it.
_backend.get("kernel")

from .basics import ALL_ROLLS
from .errors import (CountOverflowError, EngineError, FastNardyError, IllegalActionError,
                     IllegalTurnError,
                     InvalidDiceError, InvalidPositionError, InvalidRecordError,
                     InvalidRulesError, NotationError, ResourceLimitError)
from .counting import perft, perft_divide
from .game import Game, Match
from .position import LegalTurns, Outcome, PlayedTurn, Position, Step, Turn
from .rules import Rules

if _TYPE_CHECKING:
    from .search.inputs import features
    from .search.selfplay import simulate

_backend.get()  # import the default backend (FASTNARDY_BACKEND) now


# The old module paths, each with its new home: importing one gives the new module itself
# (the same object, so a monkeypatch or an isinstance holds) with a DeprecationWarning.
# "perft" and "features" are also names of this package (the functions), so their old
# modules are stand-ins that forward each name read from them, with the warning.
_MOVED = {
    "perft": "counting", "features": "search.inputs", "inputs": "search.inputs",
    "network": "search.network", "selfplay": "search.selfplay", "bearoff": "search.bearoff",
    "analysis_page": "analysis.page", "svg": "formats.svg", "gnubg": "notation",
    "rulebook": "rules", "match": "play.match", "crosscheck": "engines.crosscheck",
    "gymnasium_env": "envs.gymnasium", "pettingzoo_env": "envs.pettingzoo",
    "vector": "envs.vector", "step_actions": "envs.steps", "openspiel": "envs.openspiel",
    "samples": "testing.samples", "benchmark": "testing.benchmark",
}


def _moved_warning(message: str) -> None:
    """The DeprecationWarning of an old path, shown at the first frame outside the import
    machinery and this module (the user's import or attribute read)."""
    frame: "_types.FrameType | None" = _sys._getframe(1)
    level = 1
    while frame is not None and (frame.f_code.co_filename.startswith("<frozen")
                                 or frame.f_code.co_filename == __file__):
        frame, level = frame.f_back, level + 1
    _warnings.warn(message, DeprecationWarning, stacklevel=level)


class _MovedModules(_abc.MetaPathFinder, _abc.Loader):
    """Finds an old module path of ``_MOVED`` and loads it as its new module."""

    def find_spec(self, fullname: str, path: object = None,
                  target: object = None) -> "_machinery.ModuleSpec | None":
        package, _, old = fullname.rpartition(".")
        if package != __name__ or old not in _MOVED:
            return None
        return _util.spec_from_loader(fullname, self)

    def create_module(self, spec: _machinery.ModuleSpec) -> None:
        return None  # a placeholder: exec_module puts the new module in its place

    def exec_module(self, module: _types.ModuleType) -> None:
        new = f"{__name__}.{_MOVED[module.__name__.rpartition('.')[2]]}"
        _moved_warning(f"{module.__name__} has moved to {new}: import it from there")
        _sys.modules[module.__name__] = _importlib.import_module(new)


class _RenamedModule(_types.ModuleType):
    """The old module of a name that is now a function of this package: each name read
    from it comes from the new module, with the DeprecationWarning."""

    def __init__(self, old: str, new: str) -> None:
        super().__init__(old, f"Deprecated: moved to {new}.")
        self._new = new

    def __getattr__(self, name: str) -> object:
        if name.startswith("__"):  # the import machinery's probes (__path__, ...)
            raise AttributeError(name)
        _moved_warning(f"{self.__name__} is renamed {self._new}: import {name} from there")
        return getattr(_importlib.import_module(self._new), name)


# Names that moved out of a module that stays: read from the old module, they come from the
# new one, with the warning (the old module itself never imports the new one).
_MOVED_NAMES = {"record": ("formats.mat", ("MatGame", "is_mat", "read_games", "read_mat",
                                           "write_mat"))}


def _forward_moved_names(old: str) -> None:
    """Give module ``old`` a module ``__getattr__`` for the names it no longer holds."""
    module = _importlib.import_module(f"{__name__}.{old}")
    new, names = _MOVED_NAMES[old]

    def __getattr__(name: str) -> object:
        if name not in names:
            raise AttributeError(f"module {module.__name__!r} has no attribute {name!r}")
        _moved_warning(f"{module.__name__}.{name} has moved to {__name__}.{new}: import it "
                       f"from there")
        return getattr(_importlib.import_module(f"{__name__}.{new}"), name)

    module.__getattr__ = __getattr__  # type: ignore[method-assign]


_sys.meta_path.append(_MovedModules())
for _old in _MOVED_NAMES:
    _forward_moved_names(_old)
for _old in ("perft", "features"):
    _sys.modules[f"{__name__}.{_old}"] = _RenamedModule(f"{__name__}.{_old}",
                                                        f"{__name__}.{_MOVED[_old]}")

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
    "InvalidRecordError", "InvalidRulesError", "LegalTurns", "Match", "NotationError",
    "Outcome", "PlayedTurn", "Position", "ResourceLimitError", "Rules", "Step", "Turn",
    "features", "perft", "perft_divide", "simulate",
]
