"""Type stubs for fastnardy._nnet (the network of fastnardy.search.network.Evaluator, compiled).
``python -m mypy.stubtest fastnardy._nnet`` checks them against the compiled module."""

from typing import Any, Optional, Tuple

import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

from ._bearoff import Table

@disjoint_base
class Network:
    """A network compiled for inference; read-only, safe to share between threads."""

    def __init__(self, kind: int, is_short: bool, mirror: npt.ArrayLike,
                 hidden_weights: npt.ArrayLike, hidden_bias: npt.ArrayLike,
                 output_weights: npt.ArrayLike, output_bias: npt.ArrayLike,
                 race: Optional[Network] = None, arithmetic: str = "float",
                 crashed: Optional[Network] = None,
                 bearoff: Optional[Table] = None) -> None: ...
    @property
    def race(self) -> Optional[Network]: ...
    @property
    def crashed(self) -> Optional[Network]: ...
    @property
    def bearoff(self) -> Optional[Table]: ...
    @property
    def arithmetic(self) -> str: ...
    def __reduce__(self) -> Tuple[Any, ...]: ...
    @property
    def hidden(self) -> int: ...
    def probabilities(self, boards: object) -> npt.NDArray[np.float32]: ...
    def equities(self, boards: object) -> npt.NDArray[np.float64]: ...
    def of_features(self, features: object) -> npt.NDArray[np.float32]: ...
    def key_equity(self, lo: int, hi: int) -> float: ...

# the instruction sets of the arithmetic (all give the same floats), those this CPU and
# build run, and the one in use (the best, or FASTNARDY_SIMD's)
SIMD_NAMES: Tuple[str, ...]
ARITHMETICS: Tuple[str, ...]  # a Network's arithmetic: "float" (the oracle) or "int16"
SIMD_AVAILABLE: Tuple[str, ...]
SIMD: str
SIGMOID_CUBICS: npt.NDArray[np.int16]  # the int16 sigmoid's cubics, [k, s] (read-only)

# Cython's doctest dictionary and the C API of _nnet.pxd's functions (for the kernel)
__test__: dict[str, str]
__pyx_capi__: dict[str, object]
