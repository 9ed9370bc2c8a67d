"""Hypothesis strategies: valid positions of both games under every rule variant, biased
toward the situations where the rules bite (first turn, bar, bear-off, six-blocks), drawn
from the package's one position generator (fastnardy.samples)."""

from __future__ import annotations

from hypothesis import assume, strategies as st

from fastnardy import Position, Rules
from fastnardy.samples import KINDS_OF_PLACEMENT, place

LONG_RULES = [Rules.long(head_rule=h, block_rule=b, block_check=c)
              for h in ("classic", "tournament", "blocked")
              for b in ("opponent_ahead", "opponent_home", "none")
              for c in ("every_step", "turn_end")]
SHORT_RULES = [Rules.short(hit_and_hide=h) for h in ("allowed", "forbidden")]
ALL_RULES = LONG_RULES + SHORT_RULES


@st.composite
def positions(draw, rules=st.sampled_from(ALL_RULES)) -> Position:
    """A valid position (T7) with either side to move: one of fastnardy.samples' placements
    (the generator bench/differential.py uses), from a random stream Hypothesis draws."""
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
