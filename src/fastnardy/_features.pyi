"""Type stubs for fastnardy._features (board rows in compiled code: the inputs of
fastnardy.features, packed keys to rows and rows to keys).
``python -m mypy.stubtest fastnardy._features`` checks them against the compiled module."""

from typing import Tuple

import numpy as np
import numpy.typing as npt

def features(kind: int, is_short: int, boards: object,
             mirror: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """(N, F) float32 inputs of kind 0 raw, 1 tdgammon, 2 nardy, 3 shots, mover's view."""
    ...

def rows_of_keys(is_short: int, keys: object) -> npt.NDArray[np.int8]:
    """Board rows (N, 50) int8 of a 1-D KEY_DTYPE array, every key checked."""
    ...

def keys_of_rows(is_short: int, rows: object,
                 mirror: npt.ArrayLike) -> npt.NDArray[np.void]:
    """The packed keys (1-D KEY_DTYPE) of (N, 50) board rows, every row checked."""
    ...

def entries_of_rows(is_short: int, rows: object, mirror: npt.ArrayLike) -> bytes:
    """The keys of (N, 50) board rows, checked, as the bytes of the kernel's turn entries."""
    ...

def winners(rows: object) -> npt.NDArray[np.int8]:
    """L9/S9 on checked (N, 50) int8 rows: 1 the side to move has won, -1 the opponent, 0."""
    ...

def held_masks(rows: object, mirror: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """(N, 6): each side's held points as bits, own numbering then the other's; counts."""
    ...

CLASSES: Tuple[str, str, str]

def classes(is_short: bool, rows: object, mirror: npt.ArrayLike) -> npt.NDArray[np.int8]:
    """Each (N, 50) board row's class as its index into CLASSES, every row checked."""
    ...

def shots_tables() -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32],
                            npt.NDArray[np.float32]]:
    """The shots inputs' values of a count of rolls, a back checker's point, a pip loss."""
    ...

KEY_DTYPE: np.dtype[np.void]

# Cython's doctest dictionary and the C API of _features.pxd's functions (for _nnet)
__test__: dict[str, str]
__pyx_capi__: dict[str, object]
