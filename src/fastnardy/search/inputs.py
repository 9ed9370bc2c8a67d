"""Network inputs: board rows (or packed keys) as float32 feature vectors, mover's view.

``features(rules, boards, kind)`` takes the (N, 50) integer board rows of
:mod:`fastnardy.batch` (the mover's 24 points and bar, then the opponent's, each side in its
own numbering; borne off = 15 minus the rest) or a 1-D array of packed keys
(``fastnardy._kernel.KEY_DTYPE``, read by the kernel's key decoder in the same pass) and
returns an (N, F) float32 array, one row per position, always from the side to move's view.
Every kind is computed in compiled code (:mod:`fastnardy._features`), one pass over the
rows that also validates them.

The four **point units** of a count n are TD-Gammon's: ``n >= 1``, ``n >= 2``, ``n >= 3``
and the excess ``(n - 3) / 2`` for n > 3, else 0 (``"tdgammon"``), or ``(n - 3) / 12``
(``"nardy"``, where a head of 15 would otherwise give 6: every long-nardy input is in
[0, 1]). Point p of a side is its own point p (own numbering, RULES.md section 0), and
"p at 4(p-1)" means the 4 units of point p are columns 4(p-1) .. 4(p-1)+3.

========  =====  ===  =============================================================
kind      game   F    columns (0-based, inclusive)
========  =====  ===  =============================================================
tdgammon  short  198  0-95 mover's points, p at 4(p-1); 96 mover's bar n/2;
                      97 mover's borne off n/15; 98-193 opponent's points, q at
                      98+4(q-1); 194 opponent's bar n/2; 195 opponent's borne off
                      n/15; 196 = 1 (the mover is on roll); 197 = 0 (the opponent is
                      not): the classic turn pair, constant in the mover's view
nardy     long   248  0-123 the mover's block, 124-247 the opponent's, each (offset b
                      = 0 or 124): b+0..b+95 the side's points, p at b+4(p-1);
                      b+96 borne off n/15; b+97 checkers on the head (point 24) n/15
                      (L5); b+98 first turn: 1 if all 15 are on the head (L5);
                      b+99 the longest run of points the side holds on the other
                      side's path, min(run, 6)/6 (L6); b+100..b+123: for the other
                      side's points r = 1..24 (the OTHER side's own numbering),
                      min(run, 6)/6 with run the length of the maximal run of
                      consecutive points held by the side that contains r, 0 when
                      the side does not hold r (L6)
shots     short  206  0-197 the tdgammon columns; 198-201 the mover's contact inputs,
                      202-205 the opponent's, each side's four: its shots, the rolls
                      (of 36) with which the other side could hit one of its blots,
                      /36; its escapes, the rolls with which its back checker passes
                      the other side's blocks ahead of it, /36; its back checker's
                      point (own numbering, 25 on the bar, 0 with no checker left) /25;
                      and its pip loss, the mean over the 36 rolls of the pips the
                      other side takes from it by hitting the farthest advanced of the
                      blots the roll hits (25 - p for a blot on its point p; 0 for a
                      roll that hits none), in quarter pips rounded half up, /96
raw       both   52   0-23 mover's points n/15; 24 mover's bar n/15; 25-48 opponent's
                      points n/15; 49 opponent's bar n/15; 50 mover's borne off
                      n/15; 51 opponent's borne off n/15 (bars are 0 in long nardy)
========  =====  ===  =============================================================

The **shots** inputs are counted as GNU Backgammon's hand-made ones are described (written
from the descriptions, not its code), without the rules' every restriction: they are inputs,
not moves. Rolls are the 36 (T5: a double once, any other roll twice). The attacker's
checkers on its points and its bar (an entering checker, S5, from its point 25) move toward
its point 1; a *blot* is a point of one checker (bar checkers are none), a *block* a point of
two or more. A roll *hits* when a checker lands on a blot with one die, or with both dice
(over either die's point) or with a double's number two to four times (over its points),
every point on the way not a block; a checker on the bar is not made to enter first. The
*back checker* is the side's rearmost (on the bar if any); a roll *escapes* when it carries
that checker past the farthest block among the twelve points ahead of it, by the same steps,
landing on a point that is not a block (a point more than twelve pips ahead, or past the
side's point 1, counts as none); 36 without a block there.

A side "holds" a point when it has at least one checker there. L6 runs are counted in the
blocked side's own numbering (so a run may cross board points 1/24, as RULES.md L6 says);
a run of 5 is a six-block threat and a run of 6 or more is a block, legal only as L6 allows.

Rows are checked structurally (integer counts 0..15, at most 15 checkers per side, no bar in
long nardy, no point holding both colours); the six-block part of T7 is not checked.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .. import _features, checks
from ..batch import MIRROR_COLUMNS
from ..errors import InvalidPositionError, InvalidRulesError
from ..rules import Rules

__all__ = ["ENCODINGS", "WIDTHS", "features"]

# the kinds of input (features' ``kind``) -> the only game each encodes, if any; not
# selfplay.KINDS, the kinds of win
ENCODINGS = {"tdgammon": "short", "nardy": "long", "shots": "short", "raw": None}
WIDTHS = {"tdgammon": 198, "nardy": 248, "shots": 206, "raw": 52}
# the kind's number in fastnardy._features
ENCODING_CODES = {"raw": 0, "tdgammon": 1, "nardy": 2, "shots": 3}


def features(rules: object, boards: object, kind: str = "raw") -> npt.NDArray[np.float32]:
    """(N, F) float32 inputs of the board rows (or packed keys) ``boards``, mover's view; F
    and the meaning of each column are in the module docstring. Unknown kinds, or a kind for
    the other game, raise InvalidRulesError; bad rows or keys raise InvalidPositionError."""
    rules = Rules.of(rules)
    if not isinstance(kind, str) or kind not in ENCODINGS:
        raise InvalidRulesError(
            f"kind must be one of {', '.join(map(repr, ENCODINGS))}, not {kind!r}")
    game = ENCODINGS[kind]
    if game is not None and game != rules.game:
        raise InvalidRulesError(f"kind {kind!r} is for {game} nardy only, not {rules.game}")
    return _features.features(ENCODING_CODES[kind], rules.game == "short",
                              checks.array(boards, "boards", InvalidPositionError),
                              MIRROR_COLUMNS[rules.game])
