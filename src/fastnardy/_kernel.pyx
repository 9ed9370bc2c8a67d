"""fastnardy._kernel -- the compiled move generator (Cython) for long and short nardy.

It implements the backend contract of :mod:`fastnardy.backend` (``enumerate_turns``,
``perft_count``) in the mover's frame, plus ``count_turns``, ``count_turns_batch``,
``pack`` / ``unpack`` and ``KEY_DTYPE``. Rule ids (L3, S8, T2, ...) refer to RULES.md.

This module is the kernel's import path: it gathers the names of the extension modules that
hold the code, one concern each (a ``.pyx`` with the ``.pxd`` that the others cimport)::

    _packed       the bit-packed board and its 128-bit position key: the key layout and the
                  occupancy masks are its docstring; the C code is inline in _packed.pxd
    _movegen      the nogil generator of legal turns (T1, T2), its contexts and their pool,
                  the polling of signals (Ctrl-C) and the flag that stops a call on another
                  thread (Stop)
    _args         the checks of every entry point's arguments (codes, counts, dice, keys)
    _perftcount   perft (T5) with 128-bit checked counts and its exact transposition table
                  (PerftTable)
    _batches      batch counts and expansions, pack / unpack / swap_key, self-play
    _gamebatch    GameBatch: running games for evaluator policies and the environments
    _steps        partial turns, a roll played one step at a time: PartialTurn for one
                  position, StepBatch for the running games of a GameBatch
    _dice         (a .pxd alone) the dice and choice streams, splitmix64, inline
    _values       the compiled values (PackedPosition, PackedTurn, LegalTurns) and the
                  contract's results (enumerate_turns, enumerate_packed, count_turns)

Pickles name ``fastnardy._kernel._restore_position`` and ``_restore_legal_turns`` when they
were made before the split: both stay importable from here.
"""

from fastnardy._packed import KEY_DTYPE
from fastnardy._movegen import Stop, _set_fast_paths
from fastnardy._args import as_array, dice_pair
from fastnardy._perftcount import PerftTable, perft_count
from fastnardy._batches import (ExpandBuffers, _Memory, chance_batch, count_turns_batch,
                                expand_batch, pack, simulate_games, swap_key, unpack)
from fastnardy._gamebatch import GameBatch
from fastnardy._steps import STEP_ACTIONS, PartialTurn, StepBatch
from fastnardy._values import (LegalTurns, PackedPosition, PackedTurn, PackedTurns,
                               _positions_after, _restore_legal_turns, _restore_position,
                               _TurnIterator, bind,
                               count_turns, enumerate_packed, enumerate_turns)

# Names the single-file kernel exposed as a side effect of its imports, kept for code that
# reached them through it.
import threading
from collections.abc import Sequence as _Sequence
from operator import index as _op_index

import numpy as np

from .errors import (FastNardyError, IllegalTurnError, InvalidDiceError, InvalidPositionError,
                     ResourceLimitError)

# Cython's machinery that the single-file kernel had at module level (the stub lists it):
# PerftTable's refusal to pickle, the unpickler of a LegalTurns iterator, and the C API of
# the declarations that _kernel.pxd gathers.
from fastnardy import _movegen, _perftcount
from fastnardy._perftcount import __reduce_cython__, __setstate_cython__
from fastnardy._values import __pyx_unpickle__TurnIterator

__pyx_capi__ = {**_movegen.__pyx_capi__, **_perftcount.__pyx_capi__}
