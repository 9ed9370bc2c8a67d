"""Hypothesis strategies: valid positions of both games under every rule variant, biased
toward the situations where the rules bite (first turn, bar, bear-off, six-blocks)."""

from __future__ import annotations

from hypothesis import assume, strategies as st

from fastnardy import InvalidPositionError, Position, Rules
from fastnardy.basics import mirror

LONG_RULES = [Rules.long(head_rule=h, block_rule=b, block_check=c)
              for h in ("classic", "tournament", "blocked")
              for b in ("opponent_ahead", "opponent_home", "none")
              for c in ("every_step", "turn_end")]
SHORT_RULES = [Rules.short(hit_and_hide=h) for h in ("allowed", "forbidden")]
ALL_RULES = LONG_RULES + SHORT_RULES

# where a side's checkers may go, in its own numbering (0 = off, 25 = bar)
REGIONS = {
    "anywhere": range(0, 26),
    "home": range(0, 7),          # bear-off
    "near home": range(0, 13),
    "head": (24,),                # first turn (long)
    "head and beyond": (24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13),
    "bar": (25, 25, 25, 24, 23, 22, 21, 20, 19, 13, 8, 6),
    "a wall": range(13, 25),       # six-block material on the opponent's path
}


@st.composite
def side(draw, long_game: bool, taken: set) -> tuple:
    """15 checkers on a few slots of a region, avoiding ``taken`` points: (24 counts, bar)."""
    region = draw(st.sampled_from(sorted(REGIONS)))
    slots = sorted({s for s in REGIONS[region] if s not in taken and not (long_game and s == 25)})
    slots = slots or [0]
    chosen = draw(st.lists(st.sampled_from(slots), min_size=1, max_size=8, unique=True))
    picks = draw(st.lists(st.sampled_from(chosen), min_size=15, max_size=15))
    points = tuple(picks.count(p) for p in range(1, 25))
    return points, picks.count(25)


@st.composite
def positions(draw, rules=st.sampled_from(ALL_RULES)) -> Position:
    """A valid position (T7) with either side to move."""
    rules = draw(rules)
    long_game = rules.game == "long"
    game = 0 if long_game else 1
    white, white_bar = draw(side(long_game, set()))
    taken = {mirror(game, p) for p in range(1, 25) if white[p - 1]}
    black, black_bar = draw(side(long_game, taken))
    turn = draw(st.sampled_from(["white", "black"]))
    try:
        return Position.from_points(rules, white, black, turn, white_bar, black_bar)
    except InvalidPositionError:  # both sides off, or a forbidden six-block (T7)
        assume(False)
        raise


dice = st.tuples(st.integers(1, 6), st.integers(1, 6))
