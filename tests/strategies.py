"""Hypothesis strategies: valid positions of both games under every rule variant, biased
toward the situations where the rules bite (first turn, bar, bear-off, six-blocks), drawn
from the package's one position generator (fastnardy.testing.samples)."""

from __future__ import annotations

from hypothesis import assume, strategies as st

from fastnardy import Position, Rules
from fastnardy.basics import mirror
from fastnardy.testing.samples import KINDS_OF_PLACEMENT, place, spread, valid

LONG_RULES = [Rules.long(head_rule=h, block_rule=b, block_check=c)
              for h in ("classic", "tournament", "blocked")
              for b in ("opponent_ahead", "opponent_home", "none")
              for c in ("every_step", "turn_end")]
SHORT_RULES = [Rules.short(hit_and_hide=h) for h in ("allowed", "forbidden")]
ALL_RULES = LONG_RULES + SHORT_RULES


@st.composite
def positions(draw, rules=st.sampled_from(ALL_RULES)) -> Position:
    """A valid position (T7) with either side to move: one of fastnardy.testing.samples' placements
    (the generator bench/correctness/differential.py uses), from a random stream Hypothesis draws."""
    rules = draw(rules)
    kinds = KINDS_OF_PLACEMENT if rules.is_long else ("general", "bearoff", "sparse")
    kind = draw(st.sampled_from(kinds))
    placed = place(draw(st.randoms(use_true_random=False)), rules.code, kind)
    assume(placed is not None)
    me, me_bar, opp, opp_bar = placed
    if draw(st.sampled_from(["white", "black"])) == "white":
        return Position.from_points(rules, me, opp, "white", me_bar, opp_bar)
    return Position.from_points(rules, opp, me, "black", opp_bar, me_bar)


dice = st.tuples(st.integers(1, 6), st.integers(1, 6))


@st.composite
def bear_in_positions(draw, rules=st.sampled_from(ALL_RULES)) -> Position:
    """A valid position (T7), white to move, with one to three of white's checkers just
    outside its home or (short nardy) on the bar and the rest home or off: where one checker's
    dice must wait for another's (S5 bar entry, L8/S7 bear-off)."""
    rules = draw(rules)
    rng = draw(st.randoms(use_true_random=False))
    game = 0 if rules.is_long else 1
    outside = rng.randint(1, 3)
    home = rng.randint(0, 15 - outside)
    me = spread(rng, home, list(range(1, 7)), rng.randint(1, 6))
    me_bar = outside if game and rng.random() < 0.5 else 0
    me = [a + b for a, b in zip(me, spread(rng, outside - me_bar, list(range(7, 13)), 2))]
    free = [q for q in range(1, 25) if not me[mirror(game, q) - 1]]
    opp = spread(rng, rng.randint(1, 15), free, rng.randint(1, 8))
    placed = (tuple(me), me_bar, tuple(opp), 0)
    assume(valid(rules.code, *placed))
    return Position.from_points(rules, placed[0], placed[2], "white", me_bar, 0)
