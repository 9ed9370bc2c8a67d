"""A user's script over the public API, written to type-check with ``mypy --strict`` (CI runs
``mypy --strict tests/interfaces/typing_example.py`` against the installed package) and to run (it is
also a test: ``test_typing_example`` below). ``assert_type`` pins the types a checker must
infer, so an ``Any`` leaking out of the compiled values fails the check."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
import numpy.typing as npt

from fastnardy import (ALL_ROLLS, FastNardyError, Game, IllegalTurnError, LegalTurns, Outcome,
                       PlayedTurn, Position, Rules, Step, Turn, analysis, batch, features, perft,
                       perft_divide, record, search)
from fastnardy.play.players import Player, player
from fastnardy.search import bearoff
from fastnardy.search.setting import Setting, setting
from fastnardy import rules as rulebook
from fastnardy.formats import svg

if TYPE_CHECKING:
    from typing_extensions import assert_type
else:
    def assert_type(value, _type):  # the checker's; nothing to do at run time
        return value


def longest_turns(position: Position) -> Dict[Tuple[int, int], int]:
    """The most steps any legal turn plays, per roll."""
    most: Dict[Tuple[int, int], int] = {}
    for roll in ALL_ROLLS:
        turns = position.legal_turns(roll)
        assert_type(turns, LegalTurns)
        for turn in turns:
            assert_type(turn, Turn)
            assert_type(turn.steps, Tuple[Step, ...])
            assert_type(turn.position, Position)
            assert_type(turn.position.white_points, Tuple[int, ...])
            most[roll] = max(most.get(roll, 0), len(turn.steps))
    return most


def hits(turns: Sequence[Turn]) -> List[str]:
    """The steps that hit, as text (short nardy, S3)."""
    return [str(step) for turn in turns for step in turn.steps if step.hit]


def referee(position: Position, dice: Tuple[int, int], text: str) -> Optional[str]:
    """None for a legal turn, else the broken rule."""
    try:
        played = position.check_played(dice, text)
    except IllegalTurnError as error:
        assert_type(error.rule, str)
        assert_type(error.step, Optional[int])
        return error.rule
    assert_type(played, PlayedTurn)
    assert_type(played.turn, Turn)
    assert_type(played.steps, Tuple[Step, ...])
    assert_type(position.check_turn(dice, text), Turn)
    return None


def main() -> None:
    start = Position.start("long")
    assert longest_turns(start)[(6, 6)] == 2  # L5: two checkers leave the head, both blocked
    turns = start.legal_turns((6, 5))
    first: Turn = turns[0]
    assert_type(turns[:1], List[Turn])
    assert_type(turns.roll, Tuple[int, int])
    assert first in turns and turns.index(first) == 0 and len(turns) == 1
    after = start.play(first)
    assert_type(after, Position)
    assert_type(after.rules, Rules)
    assert after.turn == "black" and not first.is_pass()

    assert referee(start, (6, 5), "24/18 18/13") is None
    assert referee(start, (4, 2), "24/20 24/22") == "L5"

    short = Position.from_points(Rules.short(hit_and_hide="forbidden"),
                                 [0] * 5 + [15] + [0] * 18, [0] * 23 + [15])
    assert_type(short.outcome(), Optional[Outcome])
    assert hits(short.legal_turns((1, 2))) == []

    count = perft(Position.start("short"), 2)
    assert_type(count, int)
    divide = perft_divide(start, 1)
    assert_type(divide, Dict[Tuple[int, int], List[Tuple[Turn, int]]])
    assert sum(n for pairs in divide.values() for _, n in pairs) == perft(start, 1)

    boards = batch.encode([start, after])
    children, parent = batch.expand("long", boards, np.array([[6, 5], [3, 1]]))
    assert_type(parent, npt.NDArray[np.int32])
    node = batch.chance_expand("long", boards, keys=True)
    inputs = features("long", children, "nardy")
    assert_type(inputs, npt.NDArray[np.float32])
    assert inputs.shape == (len(children), 248) and len(node.offsets) == 2 * 21 + 1
    assert batch.decode("long", boards, "white")[0] == start

    def pip_lead(rows: npt.NDArray[Any]) -> npt.NDArray[np.float64]:
        pips = np.arange(1, 26)
        lead: npt.NDArray[np.float64] = (rows[:, 25:] @ pips - rows[:, :25] @ pips) / 100.0
        return lead
    found = search.best_turn(start, (6, 5), pip_lead, plies=1)
    assert_type(found, search.BestTurn)
    assert_type(found.values, npt.NDArray[np.float64])
    assert_type(found.plies, npt.NDArray[np.int64])
    assert found.turn in start.legal_turns((6, 5))
    assert found.plies.tolist() == [1] * len(found.values)  # full width: all at 1 ply
    linear = search.evaluator(lambda inputs: inputs.sum(axis=1), ("features", "nardy"))
    values = search.expectimax("long", boards, linear, 1, search.MoveFilter(4, 0.5))
    assert_type(values, npt.NDArray[np.float64])

    deeper = Setting.parse("net:1:cubeless")
    assert_type(deeper, Setting)
    assert_type(deeper.plies, int)
    assert str(deeper) == "net:1:cubeless" and setting(str(deeper)) == deeper
    ranked = analysis.hint(Position.start("short"), (3, 1), deeper)
    assert_type(ranked, analysis.Hint)
    best = ranked[0]
    assert_type(best, analysis.Candidate)
    assert_type(best.equity, float)
    assert_type(best.cubeful, Optional[float])
    assert best.cubeful is None and best.plies == 1  # ranked cubeless
    assert_type(best.probabilities, analysis.Probabilities)
    assert_type(best.probabilities.win, float)
    judged = analysis.evaluate(Position.start("short"), "net:0")
    assert_type(judged, analysis.Evaluation)
    assert_type(judged.decision, analysis.CubeDecision)
    assert_type(judged.cubeful, float)
    with player("greedy", "short") as bot:
        assert_type(bot, Player)
        assert bot.name == "greedy"
        assert_type(bot.turn(Position.start("short"), (3, 1)), Turn)

    game = Game("short", seed=3)
    while not game.is_over() and len(game.history) < 6:
        options = game.legal_turns()
        assert_type(options, Sequence[Turn])
        game.play(options[-1])
    again = Game.from_record(game.record())
    assert again.history == game.history
    assert_type(record.read_record(game.record()), record.GameRecord)

    assert_type(bearoff.expected_rolls([2, 0, 0, 0, 0, 0]), float)
    assert svg.board(start, highlight=first).startswith("<svg")
    assert rulebook.describe("l9").startswith("L9 End")
    try:
        Position.start("chess")
    except FastNardyError as error:
        assert isinstance(error, ValueError)


def test_typing_example() -> None:
    main()


if __name__ == "__main__":
    main()
