"""Random positions for tests and benchmarks, from a seeded ``random.Random``: one home for
the package's position generators.

* :func:`placements`: random T7-valid positions in the mover's frame, biased toward the hard
  cases (bar and bear-off positions for short nardy, first-turn/head and six-block positions
  for long nardy, sparse endgames);
* :func:`playouts`: positions met along random games played with the kernel's turns;
* :func:`sample_positions`: Positions met in random playouts of :class:`fastnardy.Game`;
* :func:`cube_states`: ten cube states (money and match scores) the cube's tests and
  ``bench/strength/cube_gnubg.py`` compare with GNU Backgammon at.

``bench/correctness/differential.py`` compares the kernel with the twin on the first two,
``tests/strategies.py`` draws Hypothesis examples from :func:`place`, and ``fastnardy bench``
times the third.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, List, Optional, Sequence, Tuple

from .. import _kernel
from ..basics import CHECKERS, LONG_GAME, mirror, six_block, start_points
from ..game import Game
from ..position import Position
from ..rules import BLOCK_RULES

if TYPE_CHECKING:
    from ..search.cubeful import Cube

Code = Tuple[int, int, int, int, int]  # Rules.code
Sides = Tuple[Tuple[int, ...], int, Tuple[int, ...], int]  # me, me_bar, opp, opp_bar

KINDS_OF_PLACEMENT = ("general", "bearoff", "sparse", "head", "block")  # head, block: long


def valid(code: Code, me: Sequence[int], me_bar: int, opp: Sequence[int], opp_bar: int) -> bool:
    """T7 in the mover's frame, as Position checks it: 15 checkers a side at most, no bar in
    long nardy, one colour a point, not both sides off, no six-block that L6 forbids."""
    game = code[0]
    if min(me) < 0 or min(opp) < 0 or me_bar < 0 or opp_bar < 0:
        return False
    if sum(me) + me_bar > CHECKERS or sum(opp) + opp_bar > CHECKERS:
        return False
    if game == LONG_GAME and (me_bar or opp_bar):
        return False
    if sum(me) + me_bar == 0 and sum(opp) + opp_bar == 0:
        return False
    if any(opp[q - 1] and me[mirror(game, q) - 1] for q in range(1, 25)):
        return False
    if game == LONG_GAME:
        rule = BLOCK_RULES[code[2]]
        return six_block(rule, me, opp) is None and six_block(rule, opp, me) is None
    return True


def spread(rng: random.Random, n: int, points: List[int], k: int) -> List[int]:
    """n checkers on k distinct points from `points` (each chosen point >= 1)."""
    counts = [0] * 24
    if n <= 0 or not points:
        return counts
    k = max(1, min(k, n, len(points)))
    chosen = rng.sample(points, k)
    for p in chosen:
        counts[p - 1] += 1
    for _ in range(n - k):
        counts[rng.choice(chosen) - 1] += 1
    return counts


def place(rng: random.Random, code: Code, kind: str) -> Optional[Sides]:
    """One random placement of the given kind, or None if it came out invalid."""
    game = code[0]
    me_bar = opp_bar = 0
    me_off = opp_off = 0
    if kind == "bearoff":
        me_off = rng.randint(0, 14)
        me_home = 15 - me_off
        me = spread(rng, me_home, list(range(1, 7)), rng.randint(1, 6))
        if game == 1 and rng.random() < 0.3:  # S7: a checker hit during bear-off
            k = min(rng.randint(1, 2), me_home)
            me_bar = k
            for _ in range(k):
                occ = [i for i in range(24) if me[i]]
                me[rng.choice(occ)] -= 1
        free_for_opp = [q for q in range(1, 25) if not me[mirror(game, q) - 1]]
        opp_off = rng.choice([0, 0, rng.randint(0, 14)])
        n_opp = 15 - opp_off
        if game == 1:
            opp_bar = rng.choice([0, 0, 0, 1, 2]) if n_opp >= 2 else 0
            n_opp -= opp_bar
            # blots in my home (their points 19..24) make hits during the bear-off
            home_q = [q for q in free_for_opp if q >= 19]
            opp = [0] * 24
            for q in rng.sample(home_q, min(len(home_q), rng.randint(0, 2))):
                if n_opp > 0:
                    opp[q - 1] += 1
                    n_opp -= 1
            rest = [q for q in free_for_opp if q < 19 or opp[q - 1]]
            extra = spread(rng, n_opp, rest, rng.randint(1, 8))
            opp = [a + b for a, b in zip(opp, extra)]
        else:
            opp = spread(rng, n_opp, free_for_opp, rng.randint(1, 8))
    elif kind == "head" and game == 0:  # L5: first turn of the mover
        me = [0] * 24
        me[23] = 15
        free_for_opp = [q for q in range(1, 25) if mirror(0, q) != 24]
        if rng.random() < 0.5:  # the opponent still on (or just off) its head
            opp = [0] * 24
            opp[23] = rng.randint(13, 15)
            left = 15 - opp[23]
            extra = spread(rng, left, [q for q in free_for_opp if q != 24], rng.randint(1, 2))
            opp = [a + b for a, b in zip(opp, extra)]
        else:
            opp = spread(rng, 15, free_for_opp, rng.randint(1, 10))
    elif kind == "block" and game == 0:  # L6: runs of 5..7 held points
        me = [0] * 24
        n = 15 - rng.choice([0, 0, 0, rng.randint(0, 6)])
        length = rng.randint(5, 7)
        low = rng.randint(1, 24 - length + 1)  # opponent numbering
        run = [mirror(0, q) for q in range(low, low + length)]
        if rng.random() < 0.5:  # leave a gap for a step to fill
            run.remove(rng.choice(run))
        for p in run:
            if n > 0:
                me[p - 1] += 1
                n -= 1
        others = [p for p in range(1, 25)]
        extra = spread(rng, n, others, rng.randint(1, 5))
        me = [a + b for a, b in zip(me, extra)]
        free_for_opp = [q for q in range(1, 25) if not me[mirror(0, q) - 1]]
        opp_off = rng.choice([0, 0, 0, 1])
        opp = spread(rng, 15 - opp_off, free_for_opp, rng.randint(1, 8))
    elif kind == "sparse":  # endgames: few checkers left on both sides, maybe game over
        me_off = rng.choice([rng.randint(8, 15), rng.randint(11, 14)])
        opp_off = rng.randint(8, 14) if me_off == 15 else rng.choice([rng.randint(5, 15), 15])
        if me_off == 15 and opp_off == 15:
            opp_off = 14
        n = 15 - me_off
        if game == 1 and n and rng.random() < 0.3:
            me_bar = rng.randint(1, n)
            n -= me_bar
        me = spread(rng, n, list(range(1, 25)), rng.randint(1, 6))
        free_for_opp = [q for q in range(1, 25) if not me[mirror(game, q) - 1]]
        n = 15 - opp_off
        if game == 1 and n and rng.random() < 0.3:
            opp_bar = rng.randint(1, n)
            n -= opp_bar
        opp = spread(rng, n, free_for_opp, rng.randint(1, 8))
    else:  # general
        me_off = rng.choice([0, 0, 0, rng.randint(0, 10)])
        n = 15 - me_off
        if game == 1 and rng.random() < 0.35:
            me_bar = min(n, rng.randint(1, 3))
            n -= me_bar
        me = spread(rng, n, list(range(1, 25)), rng.randint(1, 12))
        free_for_opp = [q for q in range(1, 25) if not me[mirror(game, q) - 1]]
        opp_off = rng.choice([0, 0, 0, rng.randint(0, 10)])
        n = 15 - opp_off
        if game == 1 and rng.random() < 0.3:
            opp_bar = min(n, rng.randint(1, 3))
            n -= opp_bar
        # short: many blots (single checkers) to hit
        k = rng.randint(1, 12) if game == 0 else rng.randint(4, 13)
        opp = spread(rng, n, free_for_opp, k)
    placed = (tuple(me), me_bar, tuple(opp), opp_bar)
    return placed if valid(code, *placed) else None


def placements(rng: random.Random, code: Code, n: int) -> List[Sides]:
    """``n`` placements, the kinds taken in turn (long: head and six-block ones too)."""
    kinds = (["general", "bearoff", "sparse"]
             + (["head", "block", "block"] if code[0] == 0 else ["general", "bearoff"]))
    out: List[Sides] = []
    tries = 0
    while len(out) < n and tries < 1000 * max(n, 1):
        tries += 1
        pos = place(rng, code, kinds[len(out) % len(kinds)])
        if pos is not None:
            out.append(pos)
    return out


def playouts(rng: random.Random, code: Code, n: int) -> List[Sides]:
    """Positions sampled from random games played with the kernel's turns."""
    out: List[Sides] = []
    while len(out) < n:
        me, me_bar, opp, opp_bar = start_points(code[0]), 0, start_points(code[0]), 0
        for _ply in range(400):
            if rng.random() < 0.25 and valid(code, me, me_bar, opp, opp_bar):
                out.append((me, me_bar, opp, opp_bar))
                if len(out) >= n:
                    break
            d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
            turns = _kernel.enumerate_turns(code, me, me_bar, opp, opp_bar, d1, d2)
            if not turns:
                break  # game over
            _steps, me2, me_bar2, opp2, opp_bar2 = rng.choice(turns)
            me, me_bar, opp, opp_bar = opp2, opp_bar2, me2, me_bar2  # opponent to move
    return out


def sample_positions(game: str, count: int, seed: int = 1) -> List[Position]:
    """``count`` positions met in random playouts of ``game`` (seeded), game over excluded."""
    choices = random.Random(seed)
    positions: List[Position] = []
    playout = Game(game, seed)
    while len(positions) < count:
        if playout.is_over():
            playout = Game(game, choices.randrange(2**32))
            continue
        positions.append(playout.position)
        turns = playout.legal_turns()
        playout.play(turns[choices.randrange(len(turns))])
    return positions


def cube_states() -> "List[Tuple[str, Cube]]":
    """(name, cube) from the side to move's view: money centred and owned, match scores from
    2-away 2-away to 11-away 11-away, the Crawford game and post-Crawford, an owned cube
    both ways."""
    from ..search.cubeful import Cube

    return [("money centred", Cube()),
            ("money, mover owns 2", Cube(value=2, owner="mover")),
            ("2-away 2-away", Cube(length=5, score=(3, 3))),
            ("3-away 5-away", Cube(length=7, score=(4, 2))),
            ("5-away 3-away, opponent owns 2",
             Cube(length=7, score=(2, 4), value=2, owner="opponent")),
            ("4-away 6-away, mover owns 2", Cube(length=9, score=(5, 3), value=2, owner="mover")),
            ("7-away 7-away", Cube(length=7)),
            ("11-away 11-away", Cube(length=11)),
            ("Crawford, 4-away 1-away", Cube(length=7, score=(3, 6), crawford=True)),
            ("post-Crawford, 3-away 1-away", Cube(length=7, score=(4, 6)))]
