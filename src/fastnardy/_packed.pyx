"""fastnardy._packed -- the bit-packed board and its position key, shared by the kernel.

The C code (the board struct, building it from counts or a key, the key swap and check)
is in ``_packed.pxd``, inline for the other kernel modules; this module holds the key's
numpy dtype and documents the layout. Rule ids (L3, S8, T7, ...) refer to RULES.md.

Packed position key (128 bits, mover's frame)
---------------------------------------------
``KEY_DTYPE`` is ``np.dtype([('lo', '<u8'), ('hi', '<u8')])``. Each of the mover's points
p = 1..24 (mover's own numbering) has a 5-bit field ``f(p)``::

    0        empty
    1..15    that many of the MOVER's checkers
    16..30   c OPPONENT checkers, f = 15 + c (c = 1..15)

(no point holds both colours, T7). The fields and the bars are placed as::

    lo bits 5*(p-1) .. 5*(p-1)+4    f(p), p = 1..12
    lo bits 60..63                  mover's bar count (always 0 in long nardy)
    hi bits 5*(p-13) .. 5*(p-13)+4  f(p), p = 13..24
    hi bits 60..63                  opponent's bar count

Borne-off counts are implied (15 minus the rest). Opponent checkers are stored on the
mover's point numbers, through the mirror of RULES.md §0 (long: opponent point q is mover
point q+12 if q <= 12 else q-12; short: 25-q), so ``pack``/``unpack`` take the game.
Two positions with the same mover are equal iff their keys are equal.

Occupancy bitmasks (uint32, bit p = mover's point p, bit 25 = mover's bar)
--------------------------------------------------------------------------
``mine`` (mover has a checker there), ``closed`` (the mover may not land there: long >= 1
opponent checker, L3; short >= 2, S3), ``blots`` (short: exactly one opponent checker),
``hitters`` (S8 forbidden: the mover's checker there has hit this turn; at most one per
point, because a hitter may only step onto a point without own checkers). The source points
playable with die d (d < p, landing on p-d) are one shift-and-mask::

    mine & PTS & ~(closed << d) & ~((2 << d) - 1)

minus bit 24 when the L5 head limit is used up; S5 (bar) reduces it to bit 25 when the bar is
not empty; L8/S7 bearing off adds at most one bit (p == d, else the highest point if < d)
when ``mine`` has no bit above 6 (bit 25 included, so S7's empty-bar condition is free).
L6 (six-block) is ``run6(rot12(mine)) & F``: rot12 maps the mover's points to opponent
numbering, run6 keeps the lowest point of every 6-window that is fully held, and F (fixed per
turn, since nothing is hit in long nardy) is the set of lowest points at which the variant
forbids a block.
"""

import numpy as np

KEY_DTYPE = np.dtype([("lo", "<u8"), ("hi", "<u8")])
