"""A cross-check engine (fastnardy.crosscheck's protocol) over the pure-Python reference,
whole or deliberately broken in one rule, to prove that ``fastnardy crosscheck`` catches and
names each rule.

    python bench/crosscheck/reference_engine.py [--break RULE] [--steps] [--one-shot ...]
    fastnardy crosscheck "python bench/crosscheck/reference_engine.py --break L6" long 2

``--break`` bends one rule of the reference, in this process only (BROKEN lists them);
``--steps`` adds each turn's steps to its line. With ``--one-shot DEPTH ROLL POSITION`` it
answers one request and exits (perftree's way).
"""

from __future__ import annotations

import argparse
import sys
from typing import Callable, Dict, List, Tuple

from fastnardy import Position, gnubg, reference as ref
from fastnardy.basics import LONG_GAME, SHORT_GAME
from fastnardy.notation import format_rules, format_side, format_steps

Roll = Tuple[int, int]


def _break_closed(game: int) -> None:
    """L3 / S3: no point is closed to the given game's mover."""
    original = ref.is_closed
    ref.is_closed = lambda rules, state, point: (  # type: ignore[assignment]
        False if rules.game == game else original(rules, state, point))


def _break_steps() -> None:
    """L4 / S4: a die of 1 moves a checker 2 pips."""
    original = ref.try_step

    def try_step(rules, limit, state, src, die, as_hitter=False):  # type: ignore[no-untyped-def]
        return original(rules, limit, state, src, 2 if die == 1 else die, as_hitter)

    ref.try_step = try_step  # type: ignore[assignment]


def _break_head() -> None:
    """L5: any number of checkers may leave the head."""
    ref.head_limit_for = lambda rules, start, dice: 15  # type: ignore[assignment]


def _break_block() -> None:
    """L6: no six-block is ever forbidden."""
    ref.state_block = lambda rules, state: None  # type: ignore[assignment]


def _break_max_dice() -> None:
    """L7 / S6: every legal step sequence is a turn, however few dice it uses."""
    def choose_legal(rules, dice, reached):  # type: ignore[no-untyped-def]
        return [(key, steps, state) for (state, _), (key, steps) in reached.items()]

    ref.choose_legal = choose_legal


def _break_bear_off() -> None:
    """L8 / S7: bearing off is allowed with checkers outside home."""
    ref.all_home = lambda state: True  # type: ignore[assignment]


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

    ref.try_step = try_step  # type: ignore[assignment]


def _break_hide() -> None:
    """S8: a checker that has hit may hide on its own point (as if hit_and_hide=allowed)."""
    ref.mover_choices = lambda rules, state, src: (False,)  # type: ignore[assignment]


BROKEN: Dict[str, Callable[[], None]] = {
    "L3": lambda: _break_closed(LONG_GAME), "L4": _break_steps, "L5": _break_head,
    "L6": _break_block, "L7": _break_max_dice, "L8": _break_bear_off,
    "S3": lambda: _break_closed(SHORT_GAME), "S4": _break_steps, "S5": _break_bar,
    "S6": _break_max_dice, "S7": _break_bear_off, "S8": _break_hide,
}


def _read(text: str) -> Tuple[Position, bool]:
    """A request's position (string or GNU Backgammon ID) and whether it was an ID."""
    if " " not in text:
        return Position.from_gnubg_id(text), True
    return Position.from_string(text), False


def _child_text(position: Position, as_id: bool, state: ref.State, rules: ref.Rules) -> str:
    """A child in the request's format, written without T7's checks (a broken rule may make
    a position that T7 refuses)."""
    me, me_bar, opp, opp_bar = ref.from_state(rules, state)
    if as_id:  # the child's player on roll is the opponent
        return gnubg.encode_position_id(opp, opp_bar, me, me_bar)
    other = "b" if position.turn == "white" else "w"
    white, black = ((me, me_bar), (opp, opp_bar)) if position.turn == "white" else \
        ((opp, opp_bar), (me, me_bar))
    return " ".join((format_rules(position.rules), other, format_side(*white),
                     format_side(*black)))


def divide(depth: int, roll: Roll, text: str, steps: bool) -> List[str]:
    """The answer lines (without 'end') to one request."""
    position, as_id = _read(text)
    rules = ref.parse_code(position.rules.code)
    start = ref.to_state(rules, *position.mover_frame())
    lines = []
    for path, state in ref.distinct_turns(rules, start, roll):
        me, me_bar, opp, opp_bar = ref.from_state(rules, state)
        count = 1 if depth == 1 else ref._perft(
            rules, ref.to_state(rules, opp, opp_bar, me, me_bar), depth - 1, False)
        line = f"{count} {_child_text(position, as_id, state, rules)}"
        lines.append(line + (f" | {format_steps(path)}" if steps else ""))
    return lines


def _roll(text: str) -> Roll:
    high, low = text.split("-")
    return int(high), int(low)


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--break", dest="broken", choices=sorted(BROKEN), default=None)
    parser.add_argument("--steps", action="store_true")
    parser.add_argument("--one-shot", nargs=3, metavar=("DEPTH", "ROLL", "POSITION"))
    args = parser.parse_args(argv)
    if args.broken:
        BROKEN[args.broken]()
    if args.one_shot:
        depth, roll, text = args.one_shot
        print("\n".join(divide(int(depth), _roll(roll), text, args.steps) + ["end"]))
        return 0
    for request in sys.stdin:
        words = request.split(maxsplit=3)
        if words == ["quit"]:
            return 0
        try:
            if len(words) != 4 or words[0] != "divide":
                raise ValueError(f"unknown request {request.strip()!r}")
            lines = divide(int(words[1]), _roll(words[2]), words[3].strip(), args.steps)
        except ValueError as exc:  # FastNardyError too: an answer, not a crash
            print(f"error {exc}", flush=True)
            continue
        print("\n".join(lines + ["end"]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
