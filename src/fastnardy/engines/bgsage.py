"""bgsage's move generator (``bgbot_cpp.possible_moves``, from ``pip install bgsage``) as
a cross-check engine for short nardy (standard backgammon)::

    python -m fastnardy.engines.bgsage [--one-shot D R P]
    fastnardy crosscheck "python -m fastnardy.engines.bgsage" short 2 --movegen

bgsage's board is 26 counts from the side to move's view: index p (1-24) its point p,
positive for its checkers and negative for the opponent's, index 25 its bar and index 0 the
opponent's bar; ``possible_moves`` returns each distinct board after the roll, in the same
view (none: a pass). A move generator: it answers ``divide 1`` only (use ``--movegen``).
Checked (bgsage 2.0.20260907), no difference: from the short start to depth 2 with
``--movegen`` (8,547 requests, 66 s), and at depth 1 on 200 positions of random games
(``--random 200 --seed 1``: 4,200 requests, 47 s).
"""

from __future__ import annotations

import sys
from typing import Any, List, Optional, Sequence

from ..position import Position
from . import Frame, Roll, absent, child_text, depth_one, options, serve


def to_board(frame: Frame) -> List[int]:
    """A frame (the mover's points and bar, the opponent's) as bgsage's board."""
    me, me_bar, opp, opp_bar = frame
    return [opp_bar] + [me[p - 1] - opp[24 - p] for p in range(1, 25)] + [me_bar]


def from_board(board: Sequence[int]) -> Frame:
    """bgsage's board as a frame, the inverse of :func:`to_board`."""
    me = tuple(max(board[p], 0) for p in range(1, 25))
    opp = tuple(max(-board[25 - q], 0) for q in range(1, 25))
    return me, board[25], opp, board[0]


class Bgsage:
    """bgsage's compiled move generator."""

    def __init__(self, generator: Any) -> None:
        self.generator = generator

    def divide(self, depth: int, roll: Roll, position: Position, as_id: bool) -> List[str]:
        """The answer lines (without 'end') to one request."""
        depth_one(depth, "bgsage")
        if position.rules.game != "short" or position.rules.variants():
            raise ValueError("bgsage plays standard backgammon only (short nardy, default "
                             "rules)")
        frame = position.mover_frame()
        boards = self.generator.possible_moves(to_board(frame), roll[0], roll[1])
        children = [from_board(list(board)) for board in boards] or [frame]  # T3: a pass
        return [f"1 {child_text(position, as_id, child)}" for child in children]


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Serve bgsage's move generator to the cross-checker on stdin and stdout; the exit status."""
    args = options(__doc__.split("\n")[0]).parse_args(argv)
    try:
        import bgbot_cpp  # type: ignore[import-not-found]
    except ImportError:
        absent("bgsage", "pip install bgsage")
    return serve(Bgsage(bgbot_cpp).divide, args.one_shot)


if __name__ == "__main__":
    sys.exit(main())
