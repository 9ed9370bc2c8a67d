"""OpenSpiel's C++ backgammon (pyspiel) as a cross-check engine for short nardy::

    python -m fastnardy.engines.openspiel [--shim PATH] [--one-shot D R P]
    fastnardy crosscheck "python -m fastnardy.engines.openspiel" short 2 --movegen

pyspiel cannot set a position from Python, so each request sets it through OpenSpiel's own
C++ ``BackgammonState::SetState``, called by the small shim of the peers kit
(``osshim/libosshim.so``, built by ``../shared/peers/build.sh``; ``--shim PATH``, default
``$FASTNARDY_OSSHIM``, else ``$TMPDIR/fastnardy-peers/osshim/libosshim.so``). A turn is every
action of the player on roll until the turn passes (a double is two actions of two dice
each); the children are the distinct boards reached, counted by this process for DEPTH > 1
with OpenSpiel's generator at every ply. Only standard backgammon (short nardy, default
rules) is OpenSpiel's. Checked, no difference: from the short start to depth 2 with
``--movegen`` (8,547 requests, 111 s), and at depth 1 on 200 positions of random games
(``--random 200 --seed 1``: 4,200 requests, 72 s).
"""

from __future__ import annotations

import ctypes
import os
import re
import sys
import tempfile
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..position import Position
from . import Roll, absent, child_text, options, serve

Frame = Tuple[Tuple[int, ...], int, Tuple[int, ...], int]  # mover, then opponent
ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]
DEFAULT_SHIM = os.environ.get("FASTNARDY_OSSHIM", os.path.join(
    tempfile.gettempdir(), "fastnardy-peers", "osshim", "libosshim.so"))


class OpenSpiel:
    """pyspiel's backgammon with positions set through the shim."""

    def __init__(self, pyspiel: Any, shim: str) -> None:
        # the shim resolves BackgammonState::SetState in pyspiel's library: make its symbols
        # global (RTLD_NOLOAD: the library is loaded already)
        ctypes.CDLL(pyspiel.__file__, mode=ctypes.RTLD_GLOBAL | os.RTLD_NOLOAD)
        self.set_state = ctypes.CDLL(shim).os_set_state
        self.game = pyspiel.load_game("backgammon")
        self.library = self._mapped(pyspiel.__file__)

    @staticmethod
    def _mapped(path: str) -> List[Tuple[int, int]]:
        """The address ranges where the library at ``path`` is mapped."""
        ranges = []
        with open("/proc/self/maps") as maps:
            for line in maps:
                if line.rstrip().endswith(os.path.realpath(path)):
                    low, high = line.split()[0].split("-")
                    ranges.append((int(low, 16), int(high, 16)))
        return ranges

    def _cxx(self, state: Any) -> int:
        """The C++ object behind a pybind11 state: the pointer stored after the Python object
        header, or the one it points to, whichever starts with a vtable of pyspiel's."""
        stored = ctypes.c_void_p.from_address(id(state) + 16).value or 0
        for address in (stored, ctypes.c_void_p.from_address(stored).value or 0):
            vtable = ctypes.c_void_p.from_address(address).value or 0
            if any(low <= vtable < high for low, high in self.library):
                return address
        raise RuntimeError("cannot find the C++ BackgammonState of a pyspiel state")

    def state(self, frame: Frame, roll: Roll) -> Any:
        """A state with player 0 (the mover) on roll: player 0's index i is its point 24 - i,
        player 1's index i its point i + 1."""
        me, me_bar, opp, opp_bar = frame
        board = [0] * 48
        for point in range(1, 25):
            board[24 - point] = me[point - 1]
            board[24 + point - 1] = opp[point - 1]
        state = self.game.new_initial_state()
        state.apply_action(0)  # past the opening chance node; SetState replaces everything
        status = self.set_state(
            ctypes.c_void_p(self._cxx(state)), 0, roll[0], roll[1],
            (ctypes.c_int * 2)(me_bar, opp_bar),
            (ctypes.c_int * 2)(15 - sum(me) - me_bar, 15 - sum(opp) - opp_bar),
            (ctypes.c_int * 48)(*board))
        if status != 0:
            raise ValueError("OpenSpiel's SetState refused the position")
        return state

    @staticmethod
    def frame(state: Any) -> Frame:
        """The board of a state in the frame of player 0 (the mover of the request)."""
        me = tuple(state.board(0, 24 - point) for point in range(1, 25))
        opp = tuple(state.board(1, point - 1) for point in range(1, 25))
        scores = re.search(r"Scores, X: (\d+), O: (\d+)", str(state))
        assert scores is not None
        return (me, 15 - sum(me) - int(scores.group(1)), opp,
                15 - sum(opp) - int(scores.group(2)))

    def children(self, frame: Frame, roll: Roll) -> List[Frame]:
        """The boards after every way player 0 can play the roll, in order of discovery,
        each once."""
        found: Dict[Frame, None] = {}
        stack = [self.state(frame, roll)]
        while stack:
            state = stack.pop()
            for action in state.legal_actions():
                child = state.clone()
                child.apply_action(action)
                if child.current_player() == 0 and not child.is_terminal():
                    stack.append(child)  # the second half of a double
                else:
                    found.setdefault(self.frame(child), None)
        return list(found)

    def perft(self, frame: Frame, depth: int) -> int:
        """T5 perft with OpenSpiel's children at every ply (frames swap sides each ply)."""
        me, me_bar, opp, opp_bar = frame
        if depth == 0 or sum(me) + me_bar == 0 or sum(opp) + opp_bar == 0:
            return 1
        return sum(self.perft((c[2], c[3], c[0], c[1]), depth - 1)
                   for roll in ROLLS for c in self.children(frame, roll))

    def divide(self, depth: int, roll: Roll, position: Position, as_id: bool) -> List[str]:
        """The answer lines (without 'end') to one request."""
        if position.rules.game != "short" or position.rules.variants():
            raise ValueError("OpenSpiel's backgammon plays standard backgammon only (short "
                             "nardy, default rules)")
        me, me_bar, opp, opp_bar = position.mover_frame()
        lines = []
        for child in self.children((tuple(me), me_bar, tuple(opp), opp_bar), roll):
            count = 1 if depth == 1 else self.perft((child[2], child[3], child[0], child[1]),
                                                    depth - 1)
            lines.append(f"{count} {child_text(position, as_id, child)}")
        return lines


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Serve OpenSpiel's backgammon to the cross-checker on stdin and stdout; the exit status."""
    parser = options(__doc__.split("\n")[0])
    parser.add_argument("--shim", default=DEFAULT_SHIM,
                        help="the peers kit's libosshim.so (default %(default)s)")
    args = parser.parse_args(argv)
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        absent("OpenSpiel (pyspiel)", "pip install 'fastnardy[openspiel]'")
    if not os.path.exists(args.shim):
        absent(f"OpenSpiel's position shim {args.shim}", "build it with the peers kit's "
               "build.sh, or pass --shim PATH")
    return serve(OpenSpiel(pyspiel, args.shim).divide, args.one_shot)


if __name__ == "__main__":
    sys.exit(main())
