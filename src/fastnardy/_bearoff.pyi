"""Type stubs for fastnardy._bearoff (the two-sided bear-off database's loops, compiled).
``python -m mypy.stubtest fastnardy._bearoff`` checks them against the compiled module."""

from typing import Any, Tuple

import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

WIN_SCALE: float  # a stored win chance's scale (uint32)
EQUITY_SCALE: float  # a stored equity's scale (int16)

def solve(values: npt.NDArray[np.float64], size: int, first: npt.NDArray[np.int32],
          kids: npt.NDArray[np.int32], weights: npt.NDArray[np.float64],
          pips: npt.NDArray[np.int32], by_pip: npt.NDArray[np.int32],
          pip_start: npt.NDArray[np.int32], level: int, a_lo: int, a_hi: int) -> None: ...

@disjoint_base
class Table:
    """A finished database's arrays for the network's inference; read-only."""

    def __init__(self, wins: npt.NDArray[np.uint32], cubeful: npt.NDArray[np.int16],
                 checkers: int) -> None: ...
    @property
    def arrays(self) -> Tuple[Any, ...]: ...
    @property
    def checkers(self) -> int: ...
    def entries(self, rows: npt.NDArray[np.int8]) -> npt.NDArray[np.int64]: ...
    def __reduce__(self) -> Tuple[Any, ...]: ...

# Cython's doctest dictionary and the C API of _bearoff.pxd's functions (for the network)
__test__: dict[str, str]
__pyx_capi__: dict[str, object]
