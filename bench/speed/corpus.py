"""The benchmark corpus: (game, phase, position) triples, all 21 rolls each.

* long nardy: seeded random playouts from the start (random legal turns, every position on
  the way kept, deduplicated), classified by phase;
* short nardy: the GNU Backgammon contact and race IDs shipped in ``fastnardy/data`` (the wildbg
  benchmark positions), race split into race and bear-off.

Phases: ``bear-off`` when the side to move has every checker in its home or off; ``race``
when no checker of one side still has to pass a checker of the other; ``contact`` otherwise.
"""

from __future__ import annotations

import random

from fastnardy import ALL_ROLLS, Position
from fastnardy.basics import mirror
from fastnardy.testing.speed import gnubg_positions

PHASES = ("contact", "race", "bear-off")


def phase(position: Position) -> str:
    me, me_bar, opp, opp_bar = position.mover_frame()
    if me_bar == 0 and not any(me[6:]):
        return "bear-off"
    game = 0 if position.rules.game == "long" else 1
    my_points = [p for p in range(1, 25) if me[p - 1]] + ([25] if me_bar else [])
    their_points = [mirror(game, q) for q in range(1, 25) if opp[q - 1]]
    if opp_bar:
        their_points.append(mirror(game, 25) if game else 12)
    if game:  # short: the sides move toward each other; contact while they overlap
        return "contact" if my_points and their_points and max(my_points) > min(their_points) \
            else "race"
    # long: both move the same way round; contact while one side must pass the other.
    mine_in_their_frame = [mirror(game, p) for p in my_points]
    theirs = [q for q in range(1, 25) if opp[q - 1]]
    me_passes = any(p > t for p in my_points for t in their_points)
    they_pass = any(q > m for q in theirs for m in mine_in_their_frame)
    return "contact" if me_passes or they_pass else "race"


def long_playouts(n_games: int = 60, seed: int = 2024) -> list:
    rng = random.Random(seed)
    seen, out = set(), []
    for _ in range(n_games):
        pos = Position.start("long")
        while not pos.is_game_over():
            if pos not in seen:
                seen.add(pos)
                out.append(pos)
            pos = rng.choice(pos.legal_turns(rng.choice(ALL_ROLLS))).position
    return out


def short_positions() -> list:
    out = []
    return gnubg_positions()


def corpus(long_games: int = 60) -> dict:
    """{(game, phase): [positions]}, game over positions left out."""
    groups: dict = {}
    for pos in long_playouts(long_games) + short_positions():
        if not pos.is_game_over():
            groups.setdefault((pos.rules.game, phase(pos)), []).append(pos)
    return groups
