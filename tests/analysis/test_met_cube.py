"""The cube's values (C1-C8) as GNU Backgammon computes them (fastnardy.search.cubeful) and match
equity tables (fastnardy.search.met): Janowski's model for money and matches, fastnardy's
own tables against gnubg's Kazaross-XG2, cubeful search at 1-2 ply against a plain recursion
over the legal turns, hint and eval with a cube, and bad input. Fed gnubg's own probabilities,
the model's equities and actions are gnubg's (skipped where Debian's gnubg is absent)."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

import fastnardy
from fastnardy import FastNardyError, Game, Position, Rules, analysis
from fastnardy.batch import PROBABILITY, ROLLS, encode
from fastnardy.cli import main
from fastnardy.errors import MatchEquityError
from fastnardy.search import cubeful as cubes
from fastnardy.search.cubeful import Cube
from fastnardy.search.met import MAX_MET_BYTES, MatchEquityTable, read_met
from fastnardy.search.network import Evaluator, exact
from fastnardy.search.setting import Setting
from fastnardy.search.tree import GNUBG_FILTERS

KAZAROSS = Path("/usr/share/gnubg/met/Kazaross-XG2.xml")
GNUBG = Path("/usr/games/gnubg")
needs_kazaross = pytest.mark.skipif(not KAZAROSS.exists(), reason="gnubg's match equity tables "
                                    "are absent: apt-get install gnubg-data")
SHORT_NET = Evaluator.load("short")
NET = Setting(SHORT_NET)  # the short network at 0 ply in float, cubeful


def game_positions(game: str, seed: int, count: int):
    """Positions of a game of random turns, every other turn, unfinished."""
    played, found = Game(game, seed), []
    rng = np.random.default_rng(seed)
    while not played.is_over() and len(found) < count:
        turns = played.legal_turns()
        played.play(turns[int(rng.integers(len(turns)))])
        if len(played.history) % 2 == 0 and not played.is_over():
            found.append(played.position)
    return found


# -- match equity tables -------------------------------------------------------------------

@needs_kazaross
def test_read_met_kazaross_is_a_table_C6_C7():
    table = read_met(KAZAROSS)
    assert table.length >= 15 and "Kazaross" in table.name
    assert table.pre[0, 0] == pytest.approx(0.5)
    assert np.allclose(table.pre + table.pre.T, 1.0, atol=2e-3)
    assert table.mwc(0, 3) == 1.0 and table.mwc(3, 0) == 0.0
    assert table.mwc(3, 1, post_crawford=True) == table.post[2]
    assert table.mwc(1, 3, post_crawford=True) == pytest.approx(1 - table.post[2])
    with pytest.raises(MatchEquityError, match="away"):
        table.mwc(table.length + 1, 1)


@needs_kazaross
def test_fastnardy_short_table_is_within_0_015_of_kazaross_xg2():
    """The model's table from the shipped net's mars and koks rates against the rollout-made
    Kazaross-XG2, to 25-away (pre- and post-Crawford)."""
    theirs, ours = read_met(KAZAROSS), analysis.shipped_met("short")
    n = min(25, theirs.length)
    assert np.abs(ours.pre[:n, :n] - theirs.pre[:n, :n]).max() <= 0.015
    assert np.abs(ours.post[:n] - theirs.post[:n]).max() <= 0.015


def test_shipped_tables_are_tables_of_both_games():
    for game in ("short", "long"):
        table = analysis.shipped_met(game)
        assert table.length == 64 and table.pre[0, 0] == pytest.approx(0.5)
        assert np.allclose(table.pre + table.pre.T, 1.0, atol=1e-9)
        # needing fewer points is better
        assert (np.diff(table.pre, axis=0) <= 1e-12).all()
        assert (np.diff(table.post) <= 1e-12).all() and table.post[0] == 0.5
    with pytest.raises(FastNardyError, match="game"):
        analysis.shipped_met("nardy")


def test_model_met_without_gammons_matches_a_cubeless_race_to_n_crawford():
    """C7: with no mars or koks, the post-Crawford trailer's chance at n-away (n even) is
    2 ** -(n / 2) when it doubles at once: each game decides two points."""
    table = analysis.model_met(0.0, 0.0, length=8)
    assert table.post[1] == pytest.approx(0.5) and table.post[3] == pytest.approx(0.25)
    assert table.post[2] == table.post[3] and table.post[7] == pytest.approx(1 / 16)
    with pytest.raises(FastNardyError, match="mars"):
        analysis.model_met(0.7, 0.4)
    with pytest.raises(FastNardyError, match="length"):
        analysis.model_met(0.2, 0.0, length=65)


@pytest.mark.parametrize("text, match", [
    ("not xml at all <", "not XML"),
    ('<?xml version="1.0"?><!DOCTYPE m [<!ENTITY a "aaaa">]><met/>', "entity"),
    ("<met><info><name>x</name></info></met>", "no pre-Crawford"),
    ('<met><pre-crawford-table type="parametric"/><post-crawford-table type="explicit"/></met>',
     "parameters"),
    ('<met><pre-crawford-table type="explicit"><row><me>0.5</me><me>0.6</me></row></pre-'
     'crawford-table><post-crawford-table type="explicit"><row><me>0.5</me></row>'
     '</post-crawford-table></met>', "square"),
    ('<met><pre-crawford-table type="explicit"><row><me>1.5</me></row></pre-crawford-table>'
     '<post-crawford-table type="explicit"><row><me>0.5</me></row></post-crawford-table>'
     '</met>', "outside"),
    ('<met><pre-crawford-table type="explicit"><row><me>half</me></row></pre-crawford-table>'
     '<post-crawford-table type="explicit"><row><me>0.5</me></row></post-crawford-table>'
     '</met>', "not a number"),
])
def test_read_met_refuses_what_is_not_an_explicit_table(tmp_path, text, match):
    path = tmp_path / "bad.xml"
    path.write_text(text)
    with pytest.raises(MatchEquityError, match=match):
        read_met(path)


def _met_xml(pre: np.ndarray, post: np.ndarray) -> str:
    rows = "".join("<row>" + "".join(f"<me>{v}</me>" for v in row) + "</row>" for row in pre)
    return (f'<met><pre-crawford-table type="explicit">{rows}</pre-crawford-table>'
            f'<post-crawford-table type="explicit"><row>'
            + "".join(f"<me>{v}</me>" for v in post) + "</row></post-crawford-table></met>")


@pytest.mark.parametrize("pre, post, match", [
    (np.full((3, 3), 0.5), np.full(3, 0.5), "at 2-away 2-away is worth no more"),
    (np.zeros((3, 3)), np.zeros(3), "at 2-away 1-away is worth no more"),
    (np.ones((2, 2)), np.array([0.5, 0.25]), "at 1-away 2-away is worth no more"),
    (np.array([[0.5, 0.7], [0.6, 0.5]]), np.array([0.5, 0.3]), "not monotone"),
    (np.array([[0.5, 0.7], [0.3, 0.5]]), np.array([0.5, 0.6]), "not monotone"),
])
def test_a_degenerate_table_is_refused_at_every_door_C6(tmp_path, capsys, pre, post, match):
    """Issue 70 item 3: tables of all 0.5, all 0 or not monotone were accepted, and the cube
    model divided by zero (13 of 44 uses), printed a traceback (eval --met) or decided on
    NaN (serve --met). A table is refused where it is made: the fewer points a player needs
    the likelier it wins, and at every score winning a game is worth more than losing it
    (every shipped and gnubg-data explicit table is)."""
    with pytest.raises(MatchEquityError, match=match):
        MatchEquityTable(pre, post)
    path = tmp_path / "degenerate.xml"
    path.write_text(_met_xml(pre, post))
    with pytest.raises(MatchEquityError, match=match):
        read_met(path)
    assert main(["eval", "short", "--match", "3", "--met", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ("worth no more" in err or "not monotone" in err), err


def test_every_explicit_table_of_gnubg_data_and_fastnardy_is_sound():
    tables = [cubes.shipped_met("long"), cubes.shipped_met("short")]
    if KAZAROSS.exists():
        tables += [read_met(path) for path in sorted(KAZAROSS.parent.glob("*.xml"))
                   if path.name in ("Kazaross-XG2.xml", "Rockwell-Kazaross.xml", "jacobs.xml",
                                    "ortega.xml", "snowie.xml", "woolsey.xml")]
    for table in tables:  # each read: the checks passed; re-made, the same table
        again = MatchEquityTable(table.pre, table.post, table.name)
        assert np.array_equal(again.pre, table.pre) and again.length == table.length


def test_read_met_refuses_large_and_missing_files(tmp_path):
    big = tmp_path / "big.xml"
    big.write_bytes(b"<met>" + b" " * MAX_MET_BYTES + b"</met>")
    with pytest.raises(MatchEquityError, match="larger"):
        read_met(big)
    with pytest.raises(MatchEquityError, match="cannot read"):
        read_met(tmp_path / "absent.xml")
    with pytest.raises(MatchEquityError, match="pre must be"):
        MatchEquityTable(np.zeros((2, 3)), np.zeros(2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's ComplexWarning was what came, and a table
        with pytest.raises(MatchEquityError, match="numbers"):
            MatchEquityTable(np.full((1, 1), 0.5 + 1j), [0.5])
    assert issubclass(MatchEquityError, ValueError)
    assert fastnardy.MatchEquityError is MatchEquityError


# -- the cube's state ----------------------------------------------------------------------

@pytest.mark.parametrize("cube, match", [
    (Cube(owner="nobody"), "owner"),
    (Cube(stakes="fibonacci"), "C3"),
    (Cube(value=128), "cube value"),
    (Cube(value=0), "cube value"),
    (Cube(length=5, score=(5, 0)), "score"),
    (Cube(length=5, score=(1, 1), crawford=True), "C7"),
    (Cube(crawford=True), "C7"),
    (Cube(length=5, jacoby=True), "C8"),
    (Cube(length=5, score="3-1"), "score"),  # type: ignore[arg-type]
    (Cube(value=3), "C3: under geometric stakes the cube shows a power of 2"),
    (Cube(value=48), "C3"),
    (Cube(score=(1, 0)), "a score is a match's .C6."),
    (Cube(length=3, met="table"), "met must be a MatchEquityTable"),  # type: ignore[arg-type]
])
def test_cube_of_refuses_an_impossible_cube_state(cube, match):
    with pytest.raises(FastNardyError, match=match):
        Cube.of(cube)


def test_cube_state_C2_C3_C7():
    assert Cube(value=2).raised() == 4 and Cube(value=2, stakes="arithmetic").raised() == 3
    assert Cube(value=2, stakes="arithmetic").taken() == Cube(value=3, owner="opponent",
                                                              stakes="arithmetic")
    assert Cube(value=64).may_offer is False and Cube(owner="opponent").may_offer is False
    assert Cube(owner="mover").turned().owner == "opponent"
    crawford = Cube(length=7, score=(3, 6), crawford=True)
    assert not crawford.may_offer and not crawford.live and crawford.away == (4, 1)
    post = Cube(length=7, score=(4, 6))
    assert post.post_crawford and post.may_offer and not post.turned().may_offer
    # C6: an offer that cannot gain (the mover needs no more than the stake) is not made
    assert not Cube(length=7, score=(5, 3), value=2).may_offer
    assert Cube.money("long") == Cube()
    assert Cube.money(Rules.short(stakes="arithmetic")).stakes == "arithmetic"
    assert Cube.money(Rules.short(cube_cancels_mars=True)).cancels_mars
    assert Cube.money(Game("short").rules) == Cube()
    # C3: arithmetic stakes show any value; None is the money cube of the rules
    assert Cube.of(Cube(value=3, stakes="arithmetic")).value == 3
    assert Cube.of(None) == Cube() and Cube.of(None, Rules.short(jacoby=True)).jacoby


# -- Janowski's model ----------------------------------------------------------------------

def test_money_cube_without_gammons_is_janowskis_piecewise_line():
    """No gammons, x = 1: a centred cube's value is linear from -1 at 20% (the opponent
    cashes) to +1 at 80% (the mover cashes); an owned cube's from -1 at 0% to +1 at 80%; the
    opponent's cube's from -1 at 20% to +1 at 100%."""
    line = [float(cubes.cubeful([p, 0, 0, 0, 0], 1.0)[0]) for p in (0.2, 0.35, 0.5, 0.65, 0.8)]
    assert line == pytest.approx([-1.0, -0.5, 0.0, 0.5, 1.0], abs=1e-9)
    dead = float(cubes.cubeful([0.6, 0, 0, 0, 0], 0.0)[0])
    assert dead == pytest.approx(0.2)
    for owner, points in (("mover", (0.0, 0.4, 0.8)), ("opponent", (0.2, 0.6, 1.0))):
        line = [float(cubes.cubeful([p, 0, 0, 0, 0], 1.0, Cube(owner=owner))[0])
                for p in points]
        assert line == pytest.approx([-1.0, 0.0, 1.0], abs=1e-9), owner


def test_money_decision_is_consistent_and_gnubgs_words():
    for p in np.linspace(0.3, 0.95, 14):
        outputs = [p, 0.2 * p, 0.01, 0.1 * (1 - p), 0.0]
        decision = analysis.cube_action(outputs, 0.68)
        assert decision.double_pass == 1.0
        double = decision.double_take >= decision.no_double and decision.double_pass >= \
            decision.no_double
        assert decision.optimal == (min(decision.double_take, decision.double_pass) if double
                                    else decision.no_double)
        assert decision.action.startswith(("Double", "Redouble", "Optional")) == (
            double and "Too good" not in decision.action)
        assert max(decision.error.values()) <= 1e-12
        assert decision.take_point is not None and 0 < decision.take_point < 0.5


def test_jacoby_C8_counts_no_gammon_with_a_centred_cube():
    outputs = [0.7, 0.5, 0.1, 0.05, 0.0]
    free, jacoby = (analysis.cube_action(outputs, 0.0, cube=Cube(jacoby=j)) for j in
                    (False, True))
    assert jacoby.no_double == pytest.approx(2 * 0.7 - 1)  # cubeless, single wins only
    assert free.no_double == pytest.approx(2 * 0.7 - 1 + 0.5 + 0.1 - 0.05)


def test_match_cube_values_are_normalised_C6():
    table = analysis.shipped_met("short")
    # an even game at an even score is worth 0; a double, pass is worth the stake
    even = analysis.cube_action([0.5, 0, 0, 0, 0], 0.68,
                                cube=Cube(length=7, score=(2, 2), met=table))
    assert even.no_double == pytest.approx(0.0, abs=1e-9) and even.double_pass == 1.0
    assert even.mwc is not None and even.mwc[0] == pytest.approx(table.mwc(5, 5))
    # the Crawford game: no offer; post-Crawford the trailer doubles
    crawford = analysis.cube_action([0.3, 0.1, 0, 0.1, 0], 0.68,
                                    cube=Cube(length=7, score=(3, 6), crawford=True, met=table))
    assert "double" in crawford.action.lower() and crawford.take_point is None
    trailer = analysis.cube_action([0.3, 0.0, 0, 0.1, 0], 0.68,
                                   cube=Cube(length=7, score=(3, 6), met=table))
    assert trailer.action in ("Double, take", "Optional double, take")


def test_cube_action_refuses_bad_outputs_and_tables():
    with pytest.raises(FastNardyError, match="five"):
        analysis.cube_action([0.5, 0.1], 0.68)
    with pytest.raises(FastNardyError, match="real numbers"):  # not cast with a warning
        analysis.cube_action([0.5j, 0, 0, 0, 0], 0.68)
    with pytest.raises(FastNardyError, match="x"):
        analysis.cube_action([0.5, 0, 0, 0, 0], 1.5)
    with pytest.raises(FastNardyError, match="MatchEquityTable"):
        analysis.cube_action([0.5, 0, 0, 0, 0], 0.68,
                             cube=Cube(length=3, met="table"))  # type: ignore[arg-type]
    small = analysis.model_met(0.2, 0.0, length=3)
    with pytest.raises(MatchEquityError, match="3 away"):
        analysis.cube_action([0.5, 0, 0, 0, 0], 0.68, cube=Cube(length=7, met=small))
    # a match cube without a table reads the game's own: the same as given it
    shipped = analysis.cube_action([0.6, 0.1, 0, 0.1, 0], 0.68, cube=Cube(length=7))
    assert shipped == analysis.cube_action([0.6, 0.1, 0, 0.1, 0], 0.68,
                                           cube=Cube(length=7, met=analysis.shipped_met("short")))
    assert shipped != analysis.cube_action([0.6, 0.1, 0, 0.1, 0], 0.68,
                                           cube=Cube(length=7, met=analysis.shipped_met("long")))


# -- cubeful search at 1-2 ply -------------------------------------------------------------

def plain_one_ply(position, cube):
    """The mover's no double at 1 ply, written plainly: per roll, the turn that leaves the
    opponent the least under its proper cube action at 0 ply (exact once a game is over);
    money equity in stakes or a match-winning chance (the table in the cube)."""
    met = cube.met
    total = 0.0
    for roll, chance in zip(ROLLS.tolist(), PROBABILITY):
        values = []
        for turn in position.legal_turns(tuple(roll)):
            child = turn.position
            outputs = analysis.probabilities(child, NET) if child.outcome() is None \
                else exact(child)
            x = analysis.efficiency(child)
            decision = analysis.cube_action(outputs, x, cube=cube.turned())
            if met is None:
                values.append(decision.optimal)
            else:
                pick = {decision.no_double: 0, decision.double_take: 1,
                        decision.double_pass: 2}[decision.optimal]
                values.append(decision.mwc[pick])
        best = min(values)
        total += chance * (-best if met is None else 1.0 - best)
    return total


@pytest.mark.parametrize("cube", [Cube(), Cube(value=2, owner="mover"),
                                  Cube(length=7, score=(4, 2)), Cube(length=5, score=(2, 3),
                                                                     value=2, owner="opponent")])
def test_cube_decision_at_1_ply_is_the_plain_recursion(cube):
    met = analysis.shipped_met("short") if cube.length else None
    cube = cube._replace(met=met)
    for position in game_positions("short", 3, 2) + [
            Position.from_string("short w 2:1,1:1 6:2,5:2")]:  # the game ends within a roll
        # at 1 ply no filter acts (the root's children are valued at 0 ply): the default
        decision = analysis.cube_decision(position, cube, Setting(SHORT_NET, 1))
        mine = plain_one_ply(position, cube)
        theirs = decision.no_double if met is None else decision.mwc[0]
        assert theirs == pytest.approx(mine, abs=1e-6)  # float32 networks: rows, features


@pytest.mark.parametrize("move_filter", [None, GNUBG_FILTERS])
def test_cubeless_outputs_at_1_and_2_ply_are_the_search_s(move_filter):
    position = game_positions("short", 5, 3)[-1]
    for plies in (1, 2):
        chosen = Setting(SHORT_NET, plies, move_filter)
        decision = analysis.cube_decision(position, None, chosen)
        expected = analysis.evaluate(position, chosen).equity
        # the same turns unless the cube changes the choice: within a few hundredths
        assert decision.cubeless == pytest.approx(expected, abs=0.02)
        assert decision.plies == plies


def test_hint_with_a_cube_ranks_by_the_opponents_proper_action():
    position, cube = Position.start("short"), Cube()
    ranked = analysis.hint(position, (3, 1), NET, cube=cube)
    assert ranked.cube == cube and ranked.setting == NET
    values = [m.cubeful for m in ranked]
    assert values == sorted(values, reverse=True) and ranked[0].difference == 0.0
    for move in ranked[:4]:
        child = move.turn.position
        answer = analysis.cube_action(analysis.probabilities(child, NET),
                                      analysis.efficiency(child), cube=cube.turned())
        assert move.cubeful == pytest.approx(-answer.optimal, abs=1e-6)  # float32 nets
        assert "cubeful" in move.as_dict()
    # cubeless (a cubeless setting): no cubeful equity, no cube context, ranked by equity
    for cubeless in (Setting(SHORT_NET, cubeful=False), "net:0:cubeless"):
        plain = analysis.hint(position, (3, 1), cubeless, cube=cube)
        assert plain.cube is None and all(m.cubeful is None for m in plain)
        assert "cubeful" not in plain[0].as_dict() and plain.as_dict()["cube"] is None
        equities = [m.equity for m in plain]
        assert equities == sorted(equities, reverse=True)
        assert [m.difference for m in plain] == pytest.approx(
            [e - equities[0] for e in equities], rel=0, abs=1e-12)
    assert not math.isnan(ranked[0].cubeful)


def test_hint_ranks_cubeful_by_default_with_the_rules_money_cube_C8():
    """hint's defaults (as the CLI's): the shipped network at 0 ply (net:0) in the game's
    precision (int16 in short nardy), cubeful, under the money cube of the position's rules
    (C8: centred at 1, with the rules' Jacoby); the answer names the precision."""
    position = Position.start("short")
    default = analysis.hint(position, (3, 1))
    assert default.setting == Setting().resolved("short")
    assert str(default.setting) == "net:0:int16"
    assert default.cube == Cube.money("short") == Cube()
    assert all(m.cubeful is not None for m in default)
    quick = Setting(Evaluator.load("short", "int16"))
    ranked = analysis.hint(position, (3, 1), quick, cube=Cube())
    assert default.candidates == ranked.candidates  # the shipped net in int16: the same values
    assert analysis.hint(position, (3, 1), NET).candidates != ranked.candidates  # float's
    assert analysis.hint(position, (3, 1), "net:0").candidates == ranked.candidates
    jacoby = Position.start(Rules.short(jacoby=True))
    assert analysis.hint(jacoby, (3, 1)).cube == Cube(jacoby=True)
    long = analysis.hint(Position.start("long"), (6, 5))
    assert long.cube == Cube.money("long") and long[0].cubeful is not None


def test_evaluate_with_a_match_cube():
    cube = Cube(length=7, score=(4, 2))
    result = analysis.evaluate(Position.start("short"), NET, cube=cube)
    assert result.decision.mwc is not None and result.cubeful == result.decision.optimal
    assert result.cube == cube and result.setting == NET  # the context, apart
    assert result.decision == analysis.cube_decision(Position.start("short"), cube, NET)
    document = result.as_dict()
    assert set(document) == {"position", "setting", "plies", "filter", "precision", "cubeful",
                             "cube", "equity", "probabilities", "decision"}
    assert document["cube"]["length"] == 7 and document["cube"]["score"] == [4, 2]
    assert document["cube"]["met"] == "fastnardy" and "action" in document["decision"]
    # the default context: money play, the rules' cube
    money = analysis.evaluate(Position.start("short"), NET)
    assert money.cube == Cube() and money.decision.mwc is None
    with pytest.raises(FastNardyError, match="T4"):
        analysis.cube_decision(Position.from_string("short w - 6:2"), cube, NET)


# -- the command line ----------------------------------------------------------------------

def test_eval_and_hint_show_cubeful_equities_with_cubeless_beside(capsys):
    assert main(["eval", "short", "--match", "7", "--score", "4-2", "--cube", "2",
                 "--owner", "mover"]) == 0
    out = capsys.readouterr().out
    assert "match to 7 at 4-2 (3-away 5-away)" in out and "match-winning" in out
    assert "proper action: No redouble, take" in out or "redouble" in out.lower()
    assert main(["hint", "short", "3-1", "--top", "2", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert {"cubeful", "equity"} <= set(document["moves"][0])
    assert document["cube"]["length"] == 0
    assert main(["hint", "short", "3-1", "--top", "2"]) == 0
    out = capsys.readouterr().out
    assert "cubeful" in out and "cubeless" in out and "cube 1 centred" in out
    # the header names the setting and the cube conditions (C8: short's rules, no Jacoby)
    assert "net:0:int16 (0 ply); money play, no Jacoby (C8" in out
    assert main(["hint", "short", "3-1", "--top", "2", "--cubeless"]) == 0
    out = capsys.readouterr().out
    assert "net:0:int16:cubeless (0 ply); cubeless" in out and "cubeful" not in out
    assert main(["hint", "short", "3-1", "--top", "2", "--cubeless", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["cube"] is None and "cubeful" not in document["moves"][0]


@pytest.mark.parametrize("argv", [["--score", "4:2", "--match", "7"],
                                  ["--score", "7-0", "--match", "7"],
                                  ["--crawford"], ["--cube", "128"],
                                  ["--match", "5", "--met", "/nonexistent.xml"]])
def test_cube_options_refuse_bad_values(capsys, argv):
    assert main(["eval", "short", *argv]) == 2
    assert capsys.readouterr().err.strip()


# -- against GNU Backgammon ----------------------------------------------------------------

@pytest.mark.skipif(not GNUBG.exists() or not KAZAROSS.exists(),
                    reason="GNU Backgammon (gnubg, gnubg-data) is absent: apt-get install gnubg")
def test_fed_gnubgs_probabilities_the_cube_is_gnubgs():
    """40 positions x 10 cube states: gnubg's 0-ply outputs into the model give gnubg's
    equities within 0.005 and its proper action, except where gnubg reads its two-sided
    bear-off database (every checker of both sides home)."""
    from fastnardy.play.gnubg import Gnubg
    from fastnardy.testing.speed import gnubg_ids
    from fastnardy.testing.samples import cube_states

    found = [Position.from_gnubg_id(pid) for name, n in (("bg_contact_ids.txt", 30),
                                                         ("bg_race_ids.txt", 10))
             for pid in gnubg_ids(name)[:n]]
    rows = encode(found)
    x = cubes.efficiencies("short", rows)
    home = (rows[:, 6:25] == 0).all(axis=1) & (rows[:, 31:50] == 0).all(axis=1)
    met, gnubg = read_met(KAZAROSS), Gnubg("gnubg:expert", processes=1)
    misses = []
    try:
        for name, cube in cube_states():
            outputs, equities, actions = gnubg.cube_decisions(rows, cube, 0)
            for i in range(len(found)):
                mine = analysis.cube_action(outputs[i], float(x[i]), cube=cube._replace(met=met))
                compared = [mine.no_double] + ([mine.double_take, mine.double_pass]
                                               if cube.may_offer else [])
                gap = np.abs(np.array(compared) - equities[i, :len(compared)]).max()
                same = mine.action == actions[i] or {mine.action, actions[i]} <= {
                    "Unknown cube decision", "No double (cube not available)"}
                if gap > 0.005 or not same:
                    misses.append((name, found[i].gnubg_id(), bool(home[i]), actions[i],
                                   mine.action, float(gap)))
    finally:
        gnubg.close()
    assert all(miss[2] for miss in misses), misses
    assert len(misses) <= 4, misses


@pytest.mark.skipif(not GNUBG.exists(),
                    reason="GNU Backgammon (gnubg) is absent: apt-get install gnubg")
def test_a_two_sided_bear_off_cube_is_gnubgs_database_C2():
    """30 bear-offs of up to 6 checkers a side (gnubg reads its two-sided database there, as
    fastnardy reads its own), money cube centred, the mover's and the other side's: gnubg's
    0-ply no double, double take and double pass within 0.002 and its proper action; the
    model fed gnubg's own outputs is off by several hundredths on some."""
    from fastnardy.play.gnubg import Gnubg
    from fastnardy.search.tree import Search

    rng = np.random.default_rng(3)

    def home() -> list:
        points = rng.integers(0, 6, size=int(rng.integers(1, 7)))
        return np.bincount(points, minlength=6).tolist() + [0] * 18

    rows = encode([Position.from_points("short", home(), home()) for _ in range(30)])
    search = Search(Rules.short(), SHORT_NET, None)
    gnubg = Gnubg("gnubg:expert", processes=1)
    model_gaps = []
    try:
        for cube in (Cube(), Cube(value=2, owner="mover"), Cube(value=2, owner="opponent")):
            outputs, equities, actions = gnubg.cube_decisions(rows, cube, 0)
            ours, _ = search.cube_equities(rows, [cube] * len(rows), 0)
            shown = 3 if cube.may_offer else 1
            assert np.abs(ours[:, :shown] - equities[:, :shown]).max() < 0.002
            for i in range(len(rows)):
                mine = cubes.action_of(cube, *ours[i], gammons=False)
                assert mine == actions[i] or not cube.may_offer
                model = analysis.cube_action(outputs[i], cubes.BEAROFF_EFFICIENCY, cube=cube)
                model_gaps.append(abs(model.no_double - equities[i, 0]))
    finally:
        gnubg.close()
    assert max(model_gaps) > 0.02


# -- analyse: cube decisions and cubeful chequer play --------------------------------------

GNUBG_MATCHES = Path(__file__).parents[1] / "data" / "gnubg"
# GNU Backgammon 1.07's "show statistics match" of its own self-play matches: per player
# (white, black) its total cube decisions, doubles, takes and passes (they do not depend on
# the evaluation: a decision counts whenever the side to move may offer, C2, C7, and is not
# in a game's first position)
GNUBG_CUBE_COUNTS = {1: ((34, 2, 1, 2), (53, 3, 1, 1)), 2: ((49, 2, 2, 0), (27, 2, 1, 1)),
                     3: ((48, 2, 2, 1), (37, 3, 1, 1)), 4: ((17, 2, 1, 0), (18, 1, 2, 0)),
                     5: ((37, 1, 2, 0), (52, 2, 1, 0))}


@pytest.mark.parametrize("match", sorted(GNUBG_CUBE_COUNTS))
def test_analyse_counts_the_cube_decisions_gnubg_counts_C2_C6_C7(match):
    text = (GNUBG_MATCHES / f"selfplay_{match:04d}.mat").read_text()
    result = analysis.analyse(text, "m.mat", NET)
    assert result.cubeful and result.length == 5
    for side, expected in zip(("white", "black"), GNUBG_CUBE_COUNTS[match]):
        cube = result.side(side)["cube"]
        assert (cube["decisions"], cube["double"], cube["take"], cube["pass"]) == expected
    for review in result.cube_decisions:
        assert review.loss == pytest.approx(max(0.0, -review.decision.error[
            "no_double" if review.played == "no double" else review.played]))
        assert review.cube.length == 5 and review.cube.may_offer or review.played in (
            "take", "pass")
        assert (review.error is None) == (review.loss == 0)
    totals = result.side("white")
    both = totals["unforced"] + totals["cube"]["close"]
    assert totals["overall_error_rate"] == pytest.approx(
        1000 * (totals["equity_lost"] + totals["cube"]["equity_lost"]) / both, abs=2e-3)
    assert totals["ratings"]["overall"] == analysis.rating(totals["overall_error_rate"] / 1000)


def _record(position, *cube_actions):
    """A money game from ``position``: the cube actions ("offer", "take", "drop") before its
    first roll, then one turn (the first legal) unless dropped."""
    game = Game.from_position(position, seed=1)
    for action in cube_actions:
        getattr(game, action)()
    if not game.is_over():
        game.play(game.legal_turns()[0])
    return game.record()


def test_a_take_of_a_lost_game_is_a_wrong_take_and_a_pass_is_right():
    lost = Position.from_string("short w 1:2 6:10")  # white bears off next roll; no gammon
    taken = analysis.analyse(_record(lost, "offer", "take"), "", NET)
    offer, answer = taken.cube_decisions
    assert (offer.played, offer.side, offer.error) == ("double", "white", None)
    assert (answer.played, answer.side, answer.error) == ("take", "black", "wrong take")
    assert answer.loss == pytest.approx(1.0, abs=1e-3) and answer.mark == "very bad"
    assert taken.side("black")["cube"]["wrong take"] == 1
    passed = analysis.analyse(_record(lost, "offer", "drop"), "", NET)
    assert [c.error for c in passed.cube_decisions] == [None, None]
    assert passed.turns == ()


def test_a_double_of_an_even_game_is_a_wrong_double_and_no_double_is_right():
    # (not the start position, where the cube is not judged)
    even = Position.from_string("short b 24:2,13:5,8:3,6:5 24:2,13:5,8:3,6:4,5:1")
    doubled = analysis.analyse(_record(even, "offer", "take"), "", NET)
    offer = doubled.cube_decisions[0]
    assert offer.error == "wrong double" and offer.loss > 0.1 and offer.close
    assert offer.loss == pytest.approx(offer.decision.optimal - offer.decision.double_take)
    quiet = analysis.analyse(_record(even), "", NET)
    assert [(c.played, c.error, c.close) for c in quiet.cube_decisions] == [
        ("no double", None, False)]
    # cubeful chequer play: the loss is the cubeful difference hint gives
    turn = quiet.turns[0]
    ranked = analysis.hint(even, turn.roll, NET, cube=Cube())
    mine = next(c for c in ranked if c.turn.position == turn.played.position)
    assert turn.loss == pytest.approx(-mine.difference) and turn.cube == Cube()


def test_analyse_cubeless_is_the_chequer_analysis_in_points():
    text = (GNUBG_MATCHES / "selfplay_0004.mat").read_text()
    result = analysis.analyse(text, "m.mat", Setting(SHORT_NET, cubeful=False))
    assert not result.cubeful and result.cube_decisions == ()
    assert all(t.cube is None and t.mwc_loss == 0 for t in result.turns)
    assert result.side("white")["ratings"] == {}


def test_analyse_cli_prints_cube_decisions_and_ratings(capsys):
    path = str(GNUBG_MATCHES / "selfplay_0004.mat")
    assert main(["analyse", path, "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "double       cube 1:" in out and "take         cube 1:" in out
    assert "cube error rate" in out and "overall" in out
    assert any(name in out for name, _ in analysis.RATINGS)
    assert main(["analyse", path, "--no-progress", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["length"] == 5 and document["cube_decisions"]
    assert {"played", "proper", "loss", "error", "close"} <= set(document["cube_decisions"][0])
    assert main(["analyse", path, "--no-progress", "--met", "/nonexistent.xml"]) == 2


# -- bots with the cube --------------------------------------------------------------------

@pytest.mark.parametrize("game", ["short", "long"])
def test_networks_play_matches_with_the_cube_refereed_by_match_C2_C6_C7(game):
    """Two networks (both offer, take and drop) play paired matches to 3 through
    fastnardy.Match, which refuses any offer the rules forbid (C2, C7): every match ends
    with its winner at 3 or more points."""
    from fastnardy.play.duel import play_cube_matches
    from fastnardy.play.players import Searcher

    net = Searcher("net:0", game)
    result = play_cube_matches(Rules.of(game), net, net, 6, 3, seed=4, parallel=4)
    assert (result.won >= 0).all() and (result.games >= 2).any()
    assert (np.abs(result.points) >= 1).all()
    assert (result.won == (result.points > 0)).all()
    assert sum(result.offers) == sum(result.takes) + sum(result.drops) > 0


def test_a_player_without_a_cube_never_offers_and_always_takes():
    from fastnardy.play.duel import play_cube_matches
    from fastnardy.play.players import Greedy, Searcher

    rules = Rules.short()
    assert Greedy().cube_equities(rules, encode([Position.start(rules)]), [Cube()]) is None
    result = play_cube_matches(rules, Searcher(NET, rules), Greedy(), 4, 0, seed=2)
    assert result.offers[1] == 0 and result.drops[1] == 0
    assert result.takes[1] == result.offers[0] > 0  # greedy took every offer
    assert (result.games == 1).all()  # money play: one game each


def test_match_command_with_the_cube(capsys):
    assert main(["match", "net:0", "greedy", "--game", "long", "--to", "3", "--games", "2",
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "2 matches to 3" in out and "offered" in out
    assert main(["match", "net:0", "greedy", "--cube", "--games", "2", "--json",
                 "--no-progress"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["length"] == 0 and document["matches"] == 2
    assert main(["match", "net:0", "greedy", "--cube", "--to", "3"]) == 2


@pytest.mark.skipif(not GNUBG.exists(), reason="GNU Backgammon (gnubg) is absent: "
                                               "apt-get install gnubg")
def test_gnubg_plays_matches_with_the_cube():
    """gnubg's cubeful moves are legal turns (T1) under every cube and score, and its
    offers legal (C2, C7)."""
    from fastnardy.play import players
    from fastnardy.play.duel import play_cube_matches

    with players.player("gnubg:expert", "short") as gnubg:
        assert isinstance(gnubg, players.GnubgPlayer) and gnubg.name == "gnubg:expert"
        net = players.Searcher(NET, "short")
        result = play_cube_matches(Rules.short(), net, gnubg, 2, 3, seed=5)
    assert (result.won >= 0).all() and sum(result.offers) > 0


def test_a_long_nardy_match_plays_records_and_analyses_from_the_command_line(tmp_path, capsys):
    """Issue 37's end to end: fastnardy match --to 5 --record, then analyse, for long nardy
    with either progression (C3), and short nardy through a .mat file; long nardy's .mat
    (issue 68) reads back, a variant's is refused."""
    for rules, name in (("long", "long.txt"), ("long(stakes=arithmetic)", "arith.txt"),
                        ("short", "short.mat")):
        path = tmp_path / name
        assert main(["match", "net:0", "net:0", "--game", rules, "--to", "5", "--games", "2",
                     "--record", str(path), "--no-progress"]) == 0
        assert main(["analyse", str(path), "--json", "--no-progress"]) == 0
        out = capsys.readouterr().out
        document = json.loads(out[out.index("\n{") + 1:])  # after match's lines
        assert document["length"] == 5 and document["cubeful"]
        # the players are the same network at 0 ply: no chequer or cube error
        assert all(document["players"][side]["overall_error_rate"] == 0.0
                   for side in ("white", "black"))
    # a long-nardy .mat (its variation line) reads back; a variant .mat does not hold is refused
    assert main(["match", "net:0", "greedy", "--game", "long", "--to", "3", "--games", "2",
                 "--record", str(tmp_path / "long.mat"), "--no-progress"]) == 0
    assert main(["check-game", str(tmp_path / "long.mat")]) == 0
    assert main(["match", "net:0", "greedy", "--game", "long(stakes=arithmetic)", "--to", "3",
                 "--games", "2", "--record", str(tmp_path / "arith.mat"),
                 "--no-progress"]) == 2
    assert "default variants" in capsys.readouterr().err


def test_the_page_numbers_each_board_for_its_side_to_move_and_shows_the_cube():
    """Black's turns are drawn on black's numbering (its 24 is white's 1), and the page
    carries the cube decisions and gnubg's ratings."""
    import re

    from fastnardy.analysis import page

    text = (GNUBG_MATCHES / "selfplay_0004.mat").read_text()
    result = analysis.analyse(text, "m.mat", NET)
    html = page.page(result, "m.mat")
    sections = re.findall(r"<section class='turn'.*?</section>", html, re.S)
    assert len(sections) == len(result.turns)
    for turn, section in zip(result.turns, sections):
        label = re.search(r'class="point-number"[^>]*data-point="1"[^>]*>(\d+)<', section)
        assert label is not None and label.group(1) == ("1" if turn.side == "white" else "24")
    assert "<p class='cube'>" in html and result.side("white")["ratings"]["overall"] in html


def test_analysed_turns_carry_their_candidates_pips_and_the_luck_rating():
    text = (GNUBG_MATCHES / "selfplay_0004.mat").read_text()
    result = analysis.analyse(text, "m.mat", NET)
    for turn in result.turns:
        assert 1 <= len(turn.candidates) <= analysis.CANDIDATES
        assert turn.candidates[0].turn.position == turn.best.position or turn.loss == 0
        if not turn.forced:
            mine = [c for c in turn.candidates if c.turn.position == turn.played.position]
            assert not mine or mine[0].cubeful == pytest.approx(turn.played_equity)
        start = Position.opening("short", 3, 1)[0]
        if turn.position == start:
            assert turn.pips == (167, 167)
    assert analysis.luck_rating(0.0) == "None" and analysis.luck_rating(0.07) == \
        "Go to Las Vegas" and analysis.luck_rating(-0.04) == "Bad dice, man!"
    assert result.side("black")["luck_rating"] in analysis.LUCK_RATINGS.values()


@pytest.mark.parametrize("rows", [np.zeros((2, 49), np.int8), [[1, 2], [3]],
                                  np.full((1, 50), 16, np.int16), np.zeros((1, 50)) + 0.5,
                                  np.full((1, 50), 1, np.int8)])
def test_leaves_refuse_rows_that_are_no_positions(rows):
    with pytest.raises(FastNardyError):
        analysis.leaves("short", SHORT_NET, rows)


# -- rollouts of a cube decision -------------------------------------------------------------

def test_a_cube_rollout_of_a_last_rolls_race_doubles_and_passes_C2():
    race = Position.from_string("short w 2:2,1:2 1:4")  # the last rolls of a race
    result = analysis.cube_rollout(race, games=200, seed=3)
    assert result.action == "Double, pass" and result.double_pass == 1.0
    # white bears its four off at once with 2-2 to 6-6 (1-1 moves 4 of its 6 pips), else
    # black wins with any double: p = 5/36 + 31/36 * 30/36, and nobody doubles after white's
    # first roll (black at 1/6, then white sure), so no double is worth 2 p - 1 = 77/108;
    # the two-sided database holds the position: every game ends at once at its exact
    # value (stored to 1/32767)
    assert result.no_double.mean == pytest.approx(77 / 108, abs=1e-4)
    assert result.no_double.stderr < 1e-12
    assert result.double_take.mean > 1.0
    again = analysis.cube_rollout(race, games=200, seed=3)
    assert again.no_double.mean == result.no_double.mean  # the same dice streams
    assert set(result.as_dict()) == {"no_double", "double_take", "double_pass", "action"}


def test_a_cube_rollout_narrows_the_interval_and_plays_matches():
    position = Position.from_string("short w 24:2,13:4,8:3,6:4,5:2 24:1,13:5,8:3,6:5,2:1")
    money = analysis.cube_rollout(position, games=96, seed=1)
    assert money.no_double.stderr < money.no_double.plain_stderr
    match = analysis.cube_rollout(position, Cube(length=7, score=(3, 4)), games=32, seed=1)
    assert -3 <= match.no_double.mean <= 3 and match.action
    with pytest.raises(FastNardyError, match="may not offer"):
        analysis.cube_rollout(position, Cube(owner="opponent"), games=4)
    with pytest.raises(FastNardyError, match="T4"):
        analysis.cube_rollout(Position.from_string("short w - 6:2"), games=4)


def test_rollout_cube_decision_command(capsys):
    assert main(["rollout", "short w 2:2,1:2 1:4", "--cube-decision", "--games", "8",
                 "--json", "--no-progress"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert {"no_double", "double_take", "action", "cube"} <= set(document)
    assert main(["rollout", "short", "6-5", "--cube-decision"]) == 2


def test_per_game_totals_and_the_scores_each_game_began_at_C6():
    text = (GNUBG_MATCHES / "selfplay_0001.mat").read_text()
    result = analysis.analyse(text, "m.mat", NET)
    scores = result.scores()
    # the score lines of gnubg's export
    assert scores == {1: (0, 0), 2: (0, 1), 3: (2, 1), 4: (3, 1), 5: (3, 2), 6: (3, 4)}
    for side in ("white", "black"):
        whole = result.side(side)
        parts = [result.side(side, number) for number in scores]
        assert sum(p["unforced"] for p in parts) == whole["unforced"]
        assert sum(p["cube"]["decisions"] for p in parts) == whole["cube"]["decisions"]
    document = result.as_dict()
    assert [g["score"] for g in document["per_game"]] == [list(s) for s in scores.values()]
