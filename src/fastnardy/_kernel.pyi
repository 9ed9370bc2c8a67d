"""Type stubs for fastnardy._kernel (the compiled move generator). See its module docstring
for the packed key layout and fastnardy.backend for the contract."""

from typing import Sequence, SupportsIndex, Tuple, Union

import numpy as np
import numpy.typing as npt

# (game 0 long / 1 short, head_rule, block_rule, block_check, hit_and_hide): Rules.code
Code = Tuple[int, int, int, int, int]
Counts = Sequence[SupportsIndex]
Step = Tuple[int, int, bool]  # (src, dst, hit) in the mover's numbering; 25 = bar, 0 = off
Board24 = Tuple[int, ...]
Turn = Tuple[Tuple[Step, ...], Board24, int, Board24, int]

KEY_DTYPE: np.dtype

def enumerate_turns(
    code: Code,
    me: Counts,
    me_bar: SupportsIndex,
    opp: Counts,
    opp_bar: SupportsIndex,
    die1: SupportsIndex,
    die2: SupportsIndex,
) -> list[Turn]:
    """The legal turns (T1) in T2 order: (steps, me_after, me_bar_after, opp_after,
    opp_bar_after). A pass is one turn with no steps; game over (T4) gives []."""
    ...

class PackedTurns(Sequence[Turn]):
    """enumerate_packed's result: the turns kept packed; indexing builds the tuples."""
    def __len__(self) -> int: ...
    def __getitem__(self, index: SupportsIndex) -> Turn: ...  # type: ignore[override]

def enumerate_packed(
    code: Code,
    me: Counts,
    me_bar: SupportsIndex,
    opp: Counts,
    opp_bar: SupportsIndex,
    die1: SupportsIndex,
    die2: SupportsIndex,
) -> PackedTurns:
    """enumerate_turns kept packed (24 bytes a turn): a sequence equal, item by item, to the
    list enumerate_turns returns. The Python API's lazy LegalTurns view stands on it."""
    ...

def count_turns(
    code: Code,
    me: Counts,
    me_bar: SupportsIndex,
    opp: Counts,
    opp_bar: SupportsIndex,
    die1: SupportsIndex,
    die2: SupportsIndex,
) -> int:
    """len(enumerate_turns(...)) without building Python objects."""
    ...

def count_turns_batch(
    code: Code,
    boards: npt.ArrayLike,
    dice: npt.ArrayLike,
) -> npt.NDArray[np.int32]:
    """count_turns for each row: boards (N, 50) int8/uint8 = me[24], me_bar, opp[24], opp_bar;
    dice (N, 2) ints 1..6."""
    ...

def expand_batch(
    code: Code,
    boards: npt.ArrayLike,
    dice: npt.ArrayLike,
) -> Tuple[npt.NDArray[np.int8], npt.NDArray[np.int32]]:
    """Every legal turn of every row: (children (M, 50) int8 rows from the next mover's view,
    in T2 order per row; parent (M,) int32, the row each child came from)."""
    ...

def perft_count(
    code: Code,
    me: Counts,
    me_bar: SupportsIndex,
    opp: Counts,
    opp_bar: SupportsIndex,
    depth: SupportsIndex,
    weighted: bool = False,
) -> int:
    """T5 perft from the position, `me` to move (non-doubles count twice when weighted)."""
    ...

def pack(
    me: Counts,
    me_bar: SupportsIndex,
    opp: Counts,
    opp_bar: SupportsIndex,
    game: Union[int, str] = 0,
) -> Tuple[int, int]:
    """The 128-bit key (lo, hi), mover's frame; game 0/"long" or 1/"short" picks the mirror."""
    ...

def unpack(
    lo: SupportsIndex, hi: SupportsIndex, game: Union[int, str] = 0
) -> Tuple[Board24, int, Board24, int]:
    """Inverse of pack: (me, me_bar, opp, opp_bar), each side in its own numbering."""
    ...

def _set_fast_paths(flag: bool) -> None:
    """Testing hook: False turns the search shortcuts off (general, order-aware search)."""
    ...
