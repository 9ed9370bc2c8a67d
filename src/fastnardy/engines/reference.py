"""fastnardy's pure-Python reference (:mod:`fastnardy.reference`) as a cross-check engine,
whole or deliberately broken in one rule, to prove that the cross-checker catches and names
each rule::

    python -m fastnardy.engines.reference [--break RULE] [--steps] [--one-shot D R P]
    fastnardy crosscheck "python -m fastnardy.engines.reference --break L6" long 2

``--break`` bends one rule of the reference in this process only (:data:`BROKEN`);
``--steps`` adds each turn's steps to its line. It counts perft itself, so it answers any
depth (and ``divide 1`` for ``--movegen``). Checked, no difference: from the long start to
depth 2 by counts and to depth 3 with ``--movegen`` (3,780 requests, 22 s), from the short
start at depth 1 over GNU Backgammon IDs, at depth 1 on 100 positions of random games of
long nardy and 100 of short nardy under ``hit_and_hide=forbidden`` (``--random 100 --seed
1``: 2,100 requests each, 16 and 19 s); its one-shot answers equal its process's. Each of
the twelve breaks is caught and named at depth 1 (tests/interfaces/test_crosscheck.py).
"""

from __future__ import annotations

import sys
from typing import Callable, Dict, List, Optional, Sequence

from .. import reference as ref
from ..basics import LONG_GAME, SHORT_GAME
from ..notation import format_steps
from ..position import Position
from . import Roll, child_text, options, serve


def _break_closed(game: int) -> None:
    """L3 / S3: no point is closed to the given game's mover."""
    original = ref.is_closed
    ref.is_closed = lambda rules, state, point: (
        False if rules.game == game else original(rules, state, point))


def _break_steps() -> None:
    """L4 / S4: a die of 1 moves a checker 2 pips."""
    original = ref.try_step

    def try_step(rules, limit, state, src, die, as_hitter=False):  # type: ignore[no-untyped-def]
        return original(rules, limit, state, src, 2 if die == 1 else die, as_hitter)

    ref.try_step = try_step


def _break_head() -> None:
    """L5: any number of checkers may leave the head."""
    ref.head_limit_for = lambda rules, start, dice: 15


def _break_block() -> None:
    """L6: no six-block is ever forbidden."""
    ref.state_block = lambda rules, state: None


def _break_max_dice() -> None:
    """L7 / S6: every legal step sequence is a turn, however few dice it uses."""
    def choose_legal(rules, dice, reached):  # type: ignore[no-untyped-def]
        return [(key, steps, state) for (state, _), (key, steps) in reached.items()]

    ref.choose_legal = choose_legal


def _break_bear_off() -> None:
    """L8 / S7: bearing off is allowed with checkers outside home."""
    ref.all_home = lambda state: True


def _break_bar() -> None:
    """S5: other checkers may move while one is on the bar."""
    original = ref.try_step

    def try_step(rules, limit, state, src, die, as_hitter=False):  # type: ignore[no-untyped-def]
        bar = state.mine[ref.BAR]
        if src == ref.BAR or not bar:
            return original(rules, limit, state, src, die, as_hitter)
        hidden = state._replace(mine=state.mine[:ref.BAR] + (0,))
        result = original(rules, limit, hidden, src, die, as_hitter)
        if isinstance(result, ref.Problem):
            return result
        new, step = result
        return new._replace(mine=new.mine[:ref.BAR] + (bar,)), step

    ref.try_step = try_step


def _break_hide() -> None:
    """S8: a checker that has hit may hide on its own point (as if hit_and_hide=allowed)."""
    ref.mover_choices = lambda rules, state, src: (False,)


BROKEN: Dict[str, Callable[[], None]] = {
    "L3": lambda: _break_closed(LONG_GAME), "L4": _break_steps, "L5": _break_head,
    "L6": _break_block, "L7": _break_max_dice, "L8": _break_bear_off,
    "S3": lambda: _break_closed(SHORT_GAME), "S4": _break_steps, "S5": _break_bar,
    "S6": _break_max_dice, "S7": _break_bear_off, "S8": _break_hide,
}


def divide(depth: int, roll: Roll, position: Position, as_id: bool,
           steps: bool = False) -> List[str]:
    """The answer lines (without 'end') to one request."""
    rules = ref.parse_code(position.rules.code)
    start = ref.to_state(rules, *position.mover_frame())
    lines = []
    for path, state in ref.distinct_turns(rules, start, roll):
        me, me_bar, opp, opp_bar = ref.from_state(rules, state)
        count = 1 if depth == 1 else ref._perft(
            rules, ref.to_state(rules, opp, opp_bar, me, me_bar), depth - 1, False)
        line = f"{count} {child_text(position, as_id, (me, me_bar, opp, opp_bar))}"
        lines.append(line + (f" | {format_steps(path)}" if steps else ""))
    return lines


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Serve the pure-Python reference to the cross-checker on stdin and stdout; the exit status."""
    parser = options(__doc__.split("\n")[0])
    parser.add_argument("--break", dest="broken", choices=sorted(BROKEN), default=None,
                        help="bend one rule of the reference")
    parser.add_argument("--steps", action="store_true", help="add each turn's steps")
    args = parser.parse_args(argv)
    if args.broken:
        BROKEN[args.broken]()
    return serve(lambda d, r, p, i: divide(d, r, p, i, args.steps), args.one_shot)


if __name__ == "__main__":
    sys.exit(main())
