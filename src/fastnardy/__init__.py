"""fastnardy: legal turns and perft for long and short nardy, fast.

The public API runs on the Cython kernel (``fastnardy._kernel``); the pure-Python reference
(``fastnardy.reference``) is its twin, selected with ``FASTNARDY_BACKEND=reference`` or a
``backend="reference"`` argument. The rules are those of the rule book shipped in the
package (``docs/rules.md``, read by rule id with :mod:`fastnardy.rulebook`), cited by id.
"""

__version__ = "0.1.0"  # the one place: pyproject.toml reads it (statically, no import)

from . import backend as _backend

# The values (Position, Turn) are compiled, whatever backend generates turns: a missing or
# broken kernel fails here, first and loudly, before any module imports it.
_backend.get("kernel")

from .errors import (CountOverflowError, FastNardyError, IllegalTurnError, InvalidDiceError, InvalidPositionError,
                     InvalidRecordError, InvalidRulesError, ResourceLimitError)
from .features import features
from .game import Game
from .perft import perft, perft_divide
from .position import LegalTurns, Outcome, PlayedTurn, Position, Step, Turn
from .reference import ALL_ROLLS
from .rules import Rules
from .selfplay import simulate

_backend.get()  # import the default backend (FASTNARDY_BACKEND) now

__all__ = [
    "ALL_ROLLS", "CountOverflowError", "FastNardyError", "Game", "IllegalTurnError", "InvalidDiceError",
    "InvalidPositionError", "InvalidRecordError", "InvalidRulesError", "LegalTurns", "Outcome",
    "PlayedTurn", "Position", "ResourceLimitError", "Rules", "Step", "Turn", "features", "perft",
    "perft_divide", "simulate",
]
