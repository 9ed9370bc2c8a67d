"""fastnardy.search: expectimax and best_turn against a brute-force pure-Python expectimax
over Position.legal_turns, against the bear-off table where the choice is provable, the
child -> Turn mapping (T2 order), exact L10/S9 scores of finished games, filters and bad
input."""

from __future__ import annotations

from typing import Any, List

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from fastnardy import (ALL_ROLLS, FastNardyError, IllegalTurnError, InvalidPositionError, Position,
                       Rules, batch)
from fastnardy.search import bearoff
from fastnardy.search.network import Evaluator, equity
from fastnardy.search.setting import NET_PRECISION, Setting, setting as make_setting
from fastnardy.search.tree import GNUBG_FILTERS, MoveFilter, Search, best_turn, evaluator, expectimax
from conftest import played
from strategies import positions

PIP_WEIGHTS = np.r_[np.arange(1, 25), 25]


def pip_race(rows: np.ndarray) -> np.ndarray:
    """A deterministic evaluator on rows: the pip lead of the side to move, scaled, plus a
    little for a blot-free board and for checkers on the bar (so that hits matter)."""
    rows = rows.astype(np.int64)
    mover, opponent = rows[:, :25], rows[:, 25:]
    lead = (opponent @ PIP_WEIGHTS - mover @ PIP_WEIGHTS) / 40.0
    return lead - 0.03 * (mover[:, :24] == 1).sum(axis=1) + 0.05 * opponent[:, 24]


CALLS: List[int] = []


def counted(rows: np.ndarray) -> np.ndarray:
    CALLS.append(len(rows))
    return pip_race(rows)


def brute_value(position: Position, plies: int) -> float:
    """V_plies of the search module's docstring, one position at a time in Python."""
    outcome = position.outcome()
    if outcome is not None:
        return outcome.points if outcome.winner == position.turn else -outcome.points
    if plies == 0:
        return float(pip_race(batch.encode([position]))[0])
    total = 0.0
    for roll, probability in zip(ALL_ROLLS, batch.PROBABILITY):
        total += probability * max(-brute_value(turn.position, plies - 1)
                                   for turn in position.legal_turns(roll))
    return total


def small(game: str, white: dict, black: dict, turn: str = "white",
          white_bar: int = 0, black_bar: int = 0) -> Position:
    """A position from {point: count} per side (own numbering)."""
    def counts(side: dict) -> List[int]:
        return [side.get(p, 0) for p in range(1, 25)]
    return Position.from_points(game, counts(white), counts(black), turn, white_bar, black_bar)


SMALL = [  # few checkers, so that a brute-force 2-ply search is quick; contact and bear-off
    small("short", {5: 1, 8: 1}, {3: 1, 21: 1}),                  # blots in reach: hits (S4)
    small("short", {2: 1, 3: 1}, {1: 1, 20: 1}, "black"),
    small("short", {1: 1, 6: 1}, {2: 2}),                          # bearing off (S7)
    small("short", {4: 1}, {6: 1, 24: 1}, white_bar=1),            # on the bar (S5)
    small("long", {3: 1, 14: 1}, {1: 1, 13: 1}),
    small("long", {1: 1, 4: 1}, {5: 1, 6: 1}, "black"),             # both bearing off (L8)
]


@pytest.mark.parametrize("position", SMALL, ids=lambda p: p.to_string())
@pytest.mark.parametrize("plies", [0, 1, 2])
def test_expectimax_equals_brute_force(position, plies):
    rows = batch.encode([position])
    got = expectimax(position.rules, rows, pip_race, plies)
    assert got.shape == (1,) and np.isclose(got[0], brute_value(position, plies))
    keys = batch.encode([position], keys=True)
    assert np.allclose(expectimax(position.rules, keys, pip_race, plies), got)


@pytest.mark.parametrize("position", SMALL, ids=lambda p: p.to_string())
@pytest.mark.parametrize("plies", [0, 1, 2])
@pytest.mark.parametrize("dice", [(6, 5), (2, 1), (3, 3)])
def test_best_turn_equals_brute_force_T1_T2(position, plies, dice):
    turns = position.legal_turns(dice)
    expected = [-brute_value(turn.position, plies) for turn in turns]
    found = best_turn(position, dice, pip_race, plies)
    assert np.allclose(found.values, expected)
    assert found.plies.shape == (len(turns),) and (found.plies == plies).all()  # full width
    assert found.choice == int(np.argmax(found.values))  # the first of equal values (T2)
    assert found.turn == turns[found.choice] and found.turn.position.turn != position.turn
    assert position.play(found.turn, dice) == found.turn.position  # a Turn of legal_turns


def test_the_evaluator_is_called_once_per_level():
    position = Position.start("short")
    for plies in (0, 1):
        CALLS.clear()
        best_turn(position, (4, 2), evaluator(counted), plies)
        assert len(CALLS) == 1 and CALLS[0] > 0
    CALLS.clear()
    expectimax("short", batch.encode([small("short", {5: 1}, {6: 1})]), counted, 2)
    assert len(CALLS) == 1 and CALLS[0] > 0
    CALLS.clear()  # a filtered level is valued once at 0 ply, then its kept children deeper
    best_turn(position, (4, 2), counted, 2, MoveFilter(3, 0.5))
    assert len(CALLS) == 3 and min(CALLS) > 0


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(positions(), st.sampled_from(ALL_ROLLS))
def test_child_i_of_expand_is_legal_turns_i_T2(position, roll):
    turns = position.legal_turns(roll)
    children, parent = batch.expand(position.rules, batch.encode([position]), np.array([roll]))
    assert len(children) == len(turns) and not parent.any()
    if turns:
        assert np.array_equal(children, batch.encode([turn.position for turn in turns]))
        found = best_turn(position, roll, pip_race)
        live = [not turn.position.is_game_over() for turn in turns]
        assert np.allclose(found.values[live], -pip_race(children[live]))


# ----------------------------------------------------------------------- L10/S9 scores

@pytest.mark.parametrize("rules, white, black, points", [
    (Rules.long(scoring="oin_mars_koks"), {2: 1}, {24: 15}, -3),  # koks (L10), black's view
    (Rules.long(scoring="oin_mars"), {2: 1}, {24: 15}, -2),    # no koks: mars
    (Rules.long(), {2: 1}, {1: 15}, -2),                       # mars: black's 15 all home
    (Rules.long(), {2: 1}, {1: 3}, -1),                        # oin: black has borne off
    (Rules.short(), {2: 1}, {24: 1, 1: 14}, -3),               # backgammon (S9)
    (Rules.short(backgammon=False), {2: 1}, {24: 1, 1: 14}, -2),
    (Rules.short(), {2: 1}, {1: 14}, -1),
])
def test_finished_games_are_scored_exactly_L10_S9(rules, white, black, points):
    position = small(rules, white, black)
    finished = position.play(position.legal_turns((1, 2))[0])  # white bears off its last
    assert finished.outcome().points == -points
    never: Any = evaluator(lambda rows: pytest.fail("a finished game was evaluated"))
    for plies in (0, 1, 2):
        assert expectimax(rules, batch.encode([finished]), never, plies)[0] == points
    found = best_turn(position, (1, 2), never if len(position.legal_turns((1, 2))) == 1
                      else pip_race)
    assert found.values[found.choice] == -points and found.turn.position == finished


def test_a_finished_game_has_no_best_turn_T4():
    finished = small("short", {}, {1: 3})
    with pytest.raises(IllegalTurnError) as caught:
        best_turn(finished, (6, 5), pip_race)
    assert caught.value.rule == "T4"


# ----------------------------------------------------------------------- bear-off races

def race_value(rows: np.ndarray) -> np.ndarray:
    """Both sides only on their home points: the opponent's expected rolls to bear off
    minus the mover's (bearoff's exact table)."""
    expected = bearoff.table().expected
    return expected[bearoff.indices(rows[:, 25:31])] - expected[bearoff.indices(rows[:, :6])]


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["long", "short"]),
       st.lists(st.integers(0, 5), min_size=5, max_size=12),
       st.lists(st.integers(0, 5), min_size=5, max_size=12),
       st.sampled_from(ALL_ROLLS))
def test_bearoff_race_best_turn_minimises_expected_rolls_L7_L8_S7(game, mine, theirs, roll):
    """With 5+ checkers a side nobody finishes within a ply, the opponent's moves do not
    touch the mover's home, so V_0(child) = E(opp) - E(mover's home after) and
    V_1(child) = E(opp) - 1 - E(mover's home after) exactly: the 0- and 1-ply best turns
    both minimise the bear-off table's expected rolls."""
    white = {p + 1: mine.count(p) for p in set(mine)}
    black = {p + 1: theirs.count(p) for p in set(theirs)}
    position = small(game, white, black)
    turns = position.legal_turns(roll)
    homes = batch.encode([turn.position for turn in turns])[:, 25:31]
    after = bearoff.table().expected[bearoff.indices(homes)]
    theirs_expected = bearoff.expected_rolls([black.get(p, 0) for p in range(1, 7)])
    for plies, shift in ((0, 0.0), (1, 1.0)):
        found = best_turn(position, roll, evaluator(race_value), plies)
        assert np.allclose(found.values, theirs_expected - shift - after)
        assert after[found.choice] <= after.min() + 1e-9
        assert after[found.choice] == pytest.approx(
            bearoff.expected_rolls(homes[found.choice]))


# ----------------------------------------------------------------------- filters, inputs

def test_filters():
    position = Position.start("short")
    full = best_turn(position, (5, 3), pip_race, 1)
    wide = best_turn(position, (5, 3), pip_race, 1, MoveFilter(100, float("inf")))
    assert np.array_equal(full.values, wide.values) and full.choice == wide.choice
    assert (full.plies == 1).all() and (wide.plies == 1).all()
    one = best_turn(position, (5, 3), pip_race, 1, MoveFilter(1, 0.0))
    zero = best_turn(position, (5, 3), pip_race, 0)
    assert (zero.plies == 0).all()
    assert one.choice == zero.choice and (one.plies == 1).sum() == 1
    assert one.plies[one.choice] == 1 and one.values[one.choice] == full.values[one.choice]
    assert set(one.plies) == {0, 1}  # the others dropped: they keep their 0-ply value
    assert np.array_equal(one.values[one.plies == 0], zero.values[one.plies == 0])
    few = best_turn(position, (5, 3), pip_race, 2, MoveFilter(3, 1.0))
    assert 1 <= (few.plies == 2).sum() <= 3 and few.plies[few.choice] == 2
    assert set(few.plies) <= {0, 2} and np.isfinite(few.values).all()
    assert np.array_equal(few.values[few.plies == 0], zero.values[few.plies == 0])
    deep = few.plies == 2  # the choice is the best of those searched, whatever the dropped
    assert few.values[few.choice] == few.values[deep].max()


@pytest.mark.parametrize("game, inputs", [
    ("long", "keys"), ("long", ("features", "nardy")), ("long", ("features", "raw")),
    ("short", "keys"), ("short", ("features", "tdgammon")),
])
def test_evaluator_inputs(game, inputs):
    from fastnardy import features

    seen: List[np.ndarray] = []

    def function(given: np.ndarray) -> np.ndarray:
        seen.append(given)
        rows = (batch.rows_from_keys(game, given) if inputs == "keys" else None)
        return pip_race(rows) if rows is not None else given.sum(axis=1)

    position = Position.start(game)
    found = best_turn(position, (6, 1), evaluator(function, inputs), 1)
    children, _ = batch.expand(game, batch.encode([position]), np.array([(6, 1)]))
    if inputs == "keys":
        assert seen[0].dtype == batch.KEY_DTYPE
        assert np.allclose(found.values, best_turn(position, (6, 1), pip_race, 1).values)
    else:
        assert seen[0].dtype == np.float32
        node = batch.chance_expand(game, children)
        assert np.array_equal(seen[0], features(game, node.children, inputs[1]))


@pytest.mark.parametrize("call", [
    lambda: best_turn(Position.start("long"), (6, 5), pip_race, 4),
    lambda: best_turn(Position.start("long"), (6, 5), pip_race, 1, (MoveFilter(),) * 4),
    lambda: best_turn(Position.start("long"), (6, 5), pip_race, 1, ()),
    lambda: best_turn(Position.start("long"), (6, 5), pip_race, -1),
    lambda: best_turn(Position.start("long"), (6, 5), "pip_race"),
    lambda: best_turn(Position.start("long"), (6, 5), pip_race, 1, (3, 0.1)),
    lambda: best_turn(Position.start("long"), (6, 5), pip_race, 1, MoveFilter(0, 0.1)),
    lambda: best_turn(Position.start("long"), (6, 5), pip_race, 1, MoveFilter(2, -1)),
    lambda: best_turn(Position.start("long"), (6, 5), evaluator(pip_race, ("features", "td"))),
    lambda: best_turn(Position.start("long"), (6, 5), evaluator(np.sum,
                                                                ("features", "tdgammon"))),
    lambda: best_turn(Position.start("long"), (6, 5), lambda rows: np.zeros(3)),
    lambda: best_turn(Position.start("long"), (6, 5), lambda rows: rows * np.nan),
    lambda: best_turn(Position.start("long"), (6, 5), lambda rows: np.full(len(rows), np.inf)),
    lambda: best_turn(Position.start("long"), (6, 5), lambda rows: ["x"] * len(rows)),
    lambda: best_turn(Position.start("long"), (7, 5), pip_race),
    lambda: best_turn("long", (6, 5), pip_race),
    lambda: expectimax("long", np.zeros((1, 50), np.int8), pip_race, 1),  # both off (T7)
    lambda: expectimax("long", np.full((1, 50), 16), pip_race, 1),
    lambda: expectimax("chess", batch.encode([Position.start("long")]), pip_race, 1),
    lambda: evaluator(pip_race, "boards"),
    lambda: evaluator(None),
])
def test_bad_input_raises_fastnardy_errors(call):
    with pytest.raises(FastNardyError):
        call()


def test_a_batch_of_rows_is_a_batch_of_searches():
    rows = batch.encode([p for p in SMALL if p.rules.game == "short"])
    together = expectimax("short", rows, pip_race, 1)
    alone = [expectimax("short", rows[i:i + 1], pip_race, 1)[0] for i in range(len(rows))]
    assert np.array_equal(together, alone)  # a row's value is summed alike in any batch
    assert expectimax("short", rows[:0], pip_race, 1).shape == (0,)
    with pytest.raises(InvalidPositionError):
        expectimax("short", np.zeros((2, 49), np.int8), pip_race, 1)



def test_a_wide_level_is_searched_in_groups_with_the_same_values(monkeypatch):
    """Rows beyond EXPAND_ROWS at a level are searched that many at a time (memory bounded:
    long nardy's full 2 ply of its benchmark set had asked for 18 GB at once); each row's
    value is its own subtree's, so the values are the same, and the evaluator is called
    once per level for each group, on no more than the group's leaves."""
    from fastnardy.search import tree
    from fastnardy.search.network import Evaluator

    rows = batch.encode([p for p in SMALL if p.rules.game == "short"] * 3)
    network = Evaluator.load("short")
    CALLS.clear()
    whole = expectimax("short", rows, counted, 2)
    assert len(CALLS) == 1
    leaves = CALLS[0]
    whole_net = expectimax("short", rows, network, 2)
    monkeypatch.setattr(tree, "EXPAND_ROWS", 2)
    CALLS.clear()
    assert np.array_equal(expectimax("short", rows, counted, 2), whole)
    assert np.array_equal(expectimax("short", rows, network, 2), whole_net)
    level_one = batch.chance_expand("short", rows).children
    most = int(np.diff(batch.chance_expand("short", level_one).offsets[::21]).max())
    assert len(CALLS) > 1 and sum(CALLS) == leaves and max(CALLS) <= 2 * most


@pytest.mark.parametrize("game", ["long", "short"])
@pytest.mark.parametrize("arithmetic", ["float", "int16"])
def test_the_line_of_a_search_is_its_values_and_their_outputs_T5(game, arithmetic):
    """Search.line is the search's own recursion: its values are Search.values' floats at 0,
    1 and 2 plies (with and without a filter), at 0 ply its outputs are the network's and
    their equity is the network's equity bit for bit (races, crashed boards and finished
    games among the rows), and deeper its outputs are those of the children chosen."""
    rules = Rules.of(game)
    network = Evaluator.load(game, arithmetic=arithmetic)
    rows = batch.encode(played(rules, 600, 5))
    search = Search(rules, network, None)
    values, outputs = search.line(rows, 0)
    assert np.array_equal(values, search.values(rows, 0))
    assert np.array_equal(equity(outputs), values)
    live = np.array([p.outcome() is None for p in batch.decode(rules, rows)])
    assert 0 < live.sum() < len(rows)
    assert np.array_equal(outputs[live], network.evaluate(rows[live], probabilities=True))
    assert np.array_equal(equity(outputs[live]), network.evaluate(rows[live]))
    few = np.ascontiguousarray(rows[::30])
    for plies, move_filter in [(1, None), (2, MoveFilter(2, 0.04)), (2, GNUBG_FILTERS)]:
        search = Search(rules, network, move_filter)
        values, outputs = search.line(few, plies)
        assert np.array_equal(values, search.values(few, plies))
        assert np.allclose(equity(outputs), values, atol=1e-6, rtol=0)


def test_the_line_of_a_search_needs_an_evaluator():
    """Outputs exist for an Evaluator only: another evaluator's line is a FastNardyError."""
    search = Search(Rules.of("short"), evaluator(pip_race), None)
    with pytest.raises(FastNardyError, match="Evaluator"):
        search.line(batch.encode([Position.start("short")]), 1)


# ----------------------------------------------------------------------- the setting's text

SETTING_TEXTS = {  # text: (its Setting, the text str() writes back)
    "net:0": (Setting(), "net:0"),
    "net:2": (Setting("net", 2, GNUBG_FILTERS), "net:2"),
    "net:2:int16": (Setting("net", 2, precision="int16"), "net:2:int16"),
    "net:2:float": (Setting("net", 2, precision="float"), "net:2:float"),
    "FILE.npz:0:float": (Setting("FILE.npz"), "FILE.npz:0"),  # a saved network: float
    "net:1:full": (Setting("net", 1, None), "net:1:full"),
    "net:2:2,0.04": (Setting("net", 2, (MoveFilter(2, 0.04),)), "net:2:2,0.04"),
    "net:3:8,0.16/1,0.0": (Setting("net", 3, GNUBG_FILTERS), "net:3"),
    "FILE.npz:1": (Setting("FILE.npz", 1), "FILE.npz:1"),
    "greedy": (Setting("greedy"), "greedy"),
    "random": (Setting("random"), "random"),
    "gnubg:beginner:1": (Setting("gnubg:beginner", 1), "gnubg:beginner:1"),
    "net:2:cubeless": (Setting("net", 2, cubeful=False), "net:2:cubeless"),
    # bgsage's plies in fastnardy's count (0: its raw network, its "1ply"), default 0
    "bgsage:1": (Setting("bgsage", 1), "bgsage:1"),
    "bgsage": (Setting("bgsage", 0), "bgsage"),
    "bgsage:0": (Setting("bgsage", 0), "bgsage"),
    "bgsage:3": (Setting("bgsage", 3), "bgsage:3"),
    "gnubg-nn:2": (Setting("gnubg-nn", 2), "gnubg-nn:2"),
    "gnubg-nn": (Setting("gnubg-nn"), "gnubg-nn"),
}


@pytest.mark.parametrize("text", list(SETTING_TEXTS))
def test_a_settings_text_round_trips(text):
    """Setting.parse reads each part of the grammar into its field, str writes the setting
    back (gnubg's filters unwritten, full width as "full"), and that text reads back to the
    same setting; setting() takes a Setting, its text or None (net:0)."""
    expected, written = SETTING_TEXTS[text]
    parsed = Setting.parse(text)
    assert parsed == expected and str(parsed) == written
    assert Setting.parse(str(parsed)) == parsed
    assert make_setting(text) == parsed and make_setting(parsed) is parsed
    assert parsed.as_dict()["setting"] == written
    if not (parsed.is_network and parsed.plies):
        assert parsed.filter is None  # no filter at 0 ply or outside a network's search
    assert make_setting(None) == Setting() == Setting.parse("net")


def test_a_settings_defaults_and_the_filter_normalised():
    """At 1 ply or more a network's setting searches with gnubg's filters unless told
    otherwise; a single MoveFilter is a 1-tuple; at 0 ply and for gnubg the filter is None."""
    assert Setting(plies=1).filter == GNUBG_FILTERS
    assert Setting(plies=1, filter=MoveFilter(2, 0.04)).filter == (MoveFilter(2, 0.04),)
    assert Setting(plies=0, filter=MoveFilter(2, 0.04)).filter is None
    assert Setting("gnubg:expert", 2).filter is None
    assert str(Setting("gnubg:expert", 0)) == "gnubg:expert"
    assert Setting.parse("gnubg:2") == Setting("gnubg:expert", 2)  # the preset by default
    assert Setting.parse("net:int16:1:cubeless") == Setting.parse("net:1:int16:cubeless")
    assert Setting("bgsage", 1).filter is None and Setting("gnubg-nn", 1).filter is None
    assert [Setting.parse(text).short_only for text in
            ("gnubg", "gnubg:beginner:1", "gnubg-nn:1", "bgsage:2", "net:1", "greedy",
             "ubgi:x")] == [True, True, True, True, False, False, False]


def test_the_shipped_networks_precision_is_the_games_unless_named(tmp_path):
    """A setting of the shipped network that names no precision values each game in its
    NET_PRECISION (int16 in short nardy, where its games against float showed it as strong;
    float in long nardy); one that names it, in that; a saved network in float unless
    named. ``resolved`` writes the game's into the setting: what every answer and every
    player's name reports."""
    assert NET_PRECISION == {"long": "float", "short": "int16"}
    default = Setting()
    assert default.precision is None and str(default) == "net:0"
    assert default.as_dict()["precision"] is None
    for game in ("long", "short"):
        rules = Rules.of(game)
        assert default.precision_for(rules) == NET_PRECISION[game]
        assert default.network(rules).arithmetic == NET_PRECISION[game]
        assert default.resolved(rules) == Setting(precision=NET_PRECISION[game])
        assert str(default.resolved(rules)) == f"net:0:{NET_PRECISION[game]}"
        for named in ("float", "int16"):
            chosen = Setting(precision=named)
            assert chosen.network(rules).arithmetic == named == chosen.precision_for(rules)
            assert chosen.resolved(rules) == chosen
    assert Setting("greedy").resolved("short") == Setting("greedy")
    from fastnardy.play.players import player

    from fastnardy.play.duel import duel

    with player("net:0", "short") as short, player("net:1", "long") as long:
        assert (short.name, long.name) == ("net:0:int16", "net:1:float")  # every door says it
    played = duel("short", "net", "greedy", 2, 1)
    assert (str(played.a), played.as_dict()["a"]) == ("net:0:int16", "net:0:int16")
    saved = tmp_path / "short.npz"
    Evaluator.load("short").save(saved)
    assert Setting(str(saved)).precision == "float"
    assert Setting(str(saved)).network("short").arithmetic == "float"
    assert Setting.parse(f"{saved}:int16").network("short").arithmetic == "int16"


@pytest.mark.parametrize("text, part", [
    ("net:x", "'x'"),                      # not a part of the grammar
    ("net:float:int16", "'int16'"),        # a precision twice
    ("net:2:2", "'2'"),                    # PLIES twice
    ("net:int16:int16", "'int16'"),        # int16 twice
    ("net:1:full:full", "'full'"),         # a filter twice
    ("net:2:cubeful", "'cubeful'"),
    ("net:-1", "'-1'"),
    ("net:int8", "'int8'"),
    ("net:2:8,0.16/", "'8,0.16/'"),        # a filter cut short
    ("FILE.npz:x", "'x'"),
    ("net:4", "plies .* not 4"),           # deeper than MAX_PLIES
    ("gnubg:expert:5", "plies .* not 5"),  # deeper than GNUBG_PLIES
    ("bgsage:4", "plies .* not 4"),        # deeper than BGSAGE_PLIES (its "5ply")
    ("gnubg-nn:5", "plies .* not 5"),
    ("bgsage:expert", "bgsage\\[:PLIES\\], not 'bgsage:expert'"),
    ("bgsage:1:cubeless", "bgsage\\[:PLIES\\]"),
    ("net:2:0,0.1", r"keep >= 1.*MoveFilter\(keep=0"),
    ("gnubg:master", "'gnubg:master'"),
    ("chess", "unknown setting 'chess'"),
    ("greedy:1", "unknown setting 'greedy:1'"),  # a policy has no depth
    ("", "unknown setting ''"),
])
def test_a_bad_settings_text_names_its_bad_part(text, part):
    with pytest.raises(FastNardyError, match=part):
        Setting.parse(text)
    with pytest.raises(FastNardyError, match=part):
        make_setting(text)


def test_a_setting_that_is_not_a_setting_or_text_is_refused():
    for bad in (3, 2.0, b"net:1", ["net"]):
        with pytest.raises(FastNardyError):
            make_setting(bad)
        with pytest.raises(FastNardyError):
            Setting.parse(bad)
    for fields in ({"evaluator": "network"}, {"plies": 1, "evaluator": "greedy"},
                   {"precision": "int8"}, {"cubeful": "yes"}, {"plies": 4},
                   {"plies": 1, "filter": (3, 0.1)}):
        with pytest.raises(FastNardyError):
            Setting(**fields)


@pytest.mark.parametrize("margin", [1e-5, float("inf"), 1e20, 0.123456789, 0.0, 2.5e-300])
def test_a_settings_text_round_trips_for_every_margin(margin):
    """A margin is written positionally, as the filter's KEEP,MARGIN reads it (no exponent;
    inf keeps the KEEP best whatever their values)."""
    written = Setting("net", 1, MoveFilter(2, margin))
    assert "e" not in str(written).split(":")[-1].replace("inf", "")
    assert Setting.parse(str(written)) == written


SEARCH_CALLS = {  # each Search method that takes plies, called with a depth of {plies!r}
    "values": "search.values(rows, {plies!r})",
    "line": "search.line(rows, {plies!r})",
    "cubeful": "search.cubeful(rows, [Cube()], {plies!r})",
    "cube_equities": "search.cube_equities(rows, [Cube()], {plies!r})",
    "choose": "search.choose(children, offsets, {plies!r})",
    "rank": "search.rank(children, offsets, {plies!r})",
}
BAD_PLIES = (-1, 0.5, "1")  # (MAX_PLIES + 1 unchecked would be a real 4-ply search)


@pytest.mark.parametrize("method", list(SEARCH_CALLS))
def test_the_searchs_methods_check_their_plies(method):
    """Search is public (search.tree's __all__): a depth that is not 0 to MAX_PLIES is a
    FastNardyError naming plies, as best_turn's and expectimax's are. Run in a process of
    its own with its address space capped, since an unchecked -1 or 0.5 recurses (plies - 1
    never reaches 0) until memory runs out."""
    import subprocess
    import sys

    code = [
        "import resource",
        "resource.setrlimit(resource.RLIMIT_AS, (3 << 29, 3 << 29))",
        "resource.setrlimit(resource.RLIMIT_CPU, (120, 120))",
        "import numpy as np",
        "from fastnardy import FastNardyError, Position, Rules, batch",
        "from fastnardy.search.cubeful import Cube",
        "from fastnardy.search.network import Evaluator",
        "from fastnardy.search.tree import Search",
        "search = Search(Rules.short(), Evaluator.load('short'), None)",
        "rows = batch.encode([Position.start('short')])",
        "children, parent = batch.expand('short', rows, np.array([[3, 1]]))",
        "offsets = batch.offsets(parent, 1)"]
    for plies in BAD_PLIES:
        code += ["try:",
                 f"    {SEARCH_CALLS[method].format(plies=plies)}",
                 "except FastNardyError as error:",
                 f"    print({repr(plies)!r}, type(error).__name__, error)",
                 "except Exception as error:",
                 f"    print({repr(plies)!r}, 'NOT A FastNardyError', type(error).__name__, error)",
                 "else:",
                 f"    print({repr(plies)!r}, 'NO ERROR')"]
    result = subprocess.run([sys.executable, "-c", "\n".join(code)], capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == len(BAD_PLIES), result.stdout
    for plies, line in zip(BAD_PLIES, lines):
        assert line.startswith(f"{plies!r} FastNardyError plies must be"), result.stdout
