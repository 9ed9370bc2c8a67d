"""fastnardy.analysis (hint, eval and the cube, luck, game analysis, rollouts) and its
commands: 0 ply and tiny game counts, so that the whole file takes a few seconds."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest

from fastnardy import FastNardyError, Game, Position, analysis
from fastnardy.analysis import rollouts
from fastnardy.analysis import page as analysis_page
from fastnardy.cli import main
from fastnardy.batch import PROBABILITY, ROLLS, encode
from fastnardy.search.inputs import features
from fastnardy.search.network import Evaluator, equity
from fastnardy.search import tree
from fastnardy.search.tree import GNUBG_FILTERS, MoveFilter
from fastnardy.search.setting import NET_PRECISION, Setting
from fastnardy.training.labels import labels
from fastnardy.formats.mat import MatGame, write_mat
from fastnardy.record import RecordedTurn
from fastnardy.search.tree import best_turn, expectimax

SHORT = Position.start("short")
LONG = Position.start("long")
NETWORKS = {game: Evaluator.load(game) for game in ("long", "short")}
# a short-nardy position in contact, white to move
CONTACT = Position.from_string("short w 24:2,13:4,8:3,6:4,5:2 24:1,13:5,8:3,6:5,2:1")


def run(capsys, *argv: str) -> tuple:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _is_best_turns_ranking(moves, found, turns) -> None:
    """A cubeless hint is best_turn's ranking: its children best first (those the filter
    dropped last; ties in T2 order), each equity best_turn's value and each difference that
    less the best's, bit for bit; the equity of the probabilities beside it (the five
    outputs of its line, Search.rank, seen by the mover) is the equity up to the float64
    rounding of that sum."""
    deepest = found.plies.max()
    order = sorted(range(len(turns)),
                   key=lambda i: (found.plies[i] != deepest, -found.values[i], i))
    assert [m.turn.position for m in moves] == [turns[i].position for i in order]
    assert [m.plies for m in moves] == [int(found.plies[i]) for i in order]
    best = found.values[found.choice]
    assert [m.difference for m in moves] == [found.values[i] - best for i in order]
    assert [m.equity for m in moves] == [found.values[i] for i in order]
    for move in moves:
        assert equity(np.array([move.probabilities]))[0] == pytest.approx(move.equity,
                                                                          rel=0, abs=1e-12)


@pytest.mark.parametrize("position", [SHORT, LONG, CONTACT])
def test_hint_T1_lists_every_legal_turn_best_first_with_best_turns_values(position):
    """Ranked cubeless (a cubeless setting), hint is best_turn's ranking: no cubeful
    equities, no cube context."""
    network = NETWORKS[position.rules.game]
    moves = analysis.hint(position, (6, 5), Setting(network, cubeful=False))
    found = best_turn(position, (6, 5), network)
    assert moves.cube is None and all(m.cubeful is None for m in moves)
    assert sorted(str(m.turn) for m in moves) == sorted(map(str, position.legal_turns((6, 5))))
    assert moves[0].difference == 0 and str(moves[0].turn) == str(found.turn)
    assert all(m.difference <= 0 for m in moves)
    # the probabilities are the network's after the turn, mover's view
    _is_best_turns_ranking(moves, found, position.legal_turns((6, 5)))


@pytest.mark.parametrize("cubeful", [False, True])
def test_hint_with_a_filter_values_dropped_turns_at_0_ply(cubeful):
    network = NETWORKS["short"]
    moves = analysis.hint(CONTACT, (3, 1), Setting(network, plies=1,
                                                   filter=MoveFilter(2, 0.5), cubeful=cubeful))
    assert [m.plies for m in moves].count(1) == 2 and moves[0].plies == 1
    assert all(m.plies == 0 for m in moves[2:])


def test_probabilities_flip_twice_is_identity_and_swaps_sides():
    p = np.array([0.6, 0.2, 0.01, 0.1, 0.02])
    assert np.allclose(analysis.flip(analysis.flip(p)), p)
    assert np.allclose(analysis.flip(p), [0.4, 0.1, 0.02, 0.2, 0.01])
    assert equity(analysis.flip(p)[None])[0] == pytest.approx(-equity(p[None])[0])


@pytest.mark.parametrize("game", ["short", "long"])
def test_eval_at_0_and_1_ply_agrees_with_the_search_T5(game):
    position = Position.start(game)
    network = NETWORKS[game]
    zero = analysis.evaluate(position, Setting(network, 0))
    rows = encode([position])
    # a board and its feature array are summed by two paths, each within 1e-6 of the
    # network's definition in every output (tests/kernel/test_nnet.py): equities within 3e-6
    assert zero.equity == pytest.approx(float(network(features(game, rows, network.kind))[0]),
                                        abs=3e-6)
    one = analysis.evaluate(position, Setting(network, 1, filter=None))
    assert one.equity == pytest.approx(float(expectimax(game, rows, network, 1)[0]))
    # at 1 ply the probabilities are those after each roll's best turn: the same equity
    assert equity(np.array([one.probabilities]))[0] == pytest.approx(one.equity, abs=1e-5)


# a long-nardy position in contact, white to move
LONG_CONTACT = Position.from_string("long w 24:11,22:1,15:1,10:1,5:1 24:9,20:1,19:1,18:1,"
                                    "16:1,13:1,6:1")


@pytest.mark.parametrize("position", [CONTACT, LONG_CONTACT])
@pytest.mark.parametrize("move_filter", [MoveFilter(2, 0.04), GNUBG_FILTERS])
def test_eval_and_hint_at_2_plies_show_the_probabilities_of_their_equity_T5(position,
                                                                            move_filter):
    """At 2 plies eval's equity is expectimax's with the filter at each level, hint's values
    are best_turn's, and the probabilities beside each are those of the line searched: their
    equity is the equity shown (GNUBG_FILTERS: a filter per level, the levels counted as the
    search counts them), and eval's are the 2-ply labels of the trainers (one search,
    Search.line: the same floats)."""
    network = NETWORKS[position.rules.game]
    rows = encode([position])
    two = analysis.evaluate(position, Setting(network, 2, move_filter))
    assert two.equity == float(expectimax(position.rules, rows, network, 2, move_filter)[0])
    assert equity(np.array([two.probabilities]))[0] == pytest.approx(two.equity, abs=1e-6)
    np.testing.assert_array_equal(two.probabilities,
                                  labels(position.rules, rows, Setting(network, 2,
                                                                       move_filter))[0])
    moves = analysis.hint(position, (4, 2), Setting(network, 2, move_filter, cubeful=False))
    found = best_turn(position, (4, 2), network, 2, move_filter)
    assert str(moves[0].turn) == str(found.turn)
    # a turn the filter dropped keeps its 0-ply value, in best_turn too (no longer NaN)
    assert not np.isnan(found.values).any() and (found.plies == 0).any()
    _is_best_turns_ranking(moves, found, position.legal_turns((4, 2)))
    if move_filter == GNUBG_FILTERS:  # a setting's default filter at 1 ply or more
        assert analysis.hint(position, (4, 2), Setting(network, 2, cubeful=False)) == moves
        assert analysis.evaluate(position, Setting(network, 2)) == two


def test_eval_and_hint_are_the_same_searched_in_pieces(monkeypatch):
    """The line's rows are searched EXPAND_ROWS at a time (Search.line, the search's own
    recursion): the same floats in any pieces (T5: each row's mean is its own)."""
    network = NETWORKS["short"]
    whole = analysis.evaluate(CONTACT, Setting(network, 2, MoveFilter(2, 0.04)))
    cubeless, cubeful = Setting(network, 1, None, cubeful=False), Setting(network, 1, None)
    moves = analysis.hint(CONTACT, (1, 1), cubeless)
    ranked = analysis.hint(CONTACT, (1, 1), cubeful)
    monkeypatch.setattr(tree, "EXPAND_ROWS", 5)
    pieces = analysis.evaluate(CONTACT, Setting(network, 2, MoveFilter(2, 0.04)))
    assert (pieces.equity, pieces.probabilities) == (whole.equity, whole.probabilities)
    assert pieces.decision == whole.decision
    assert analysis.hint(CONTACT, (1, 1), cubeless) == moves
    assert analysis.hint(CONTACT, (1, 1), cubeful) == ranked


def test_cube_take_point_is_20_percent_with_a_live_cube_and_no_gammons():
    """Janowski: x = 1, no gammons: double/take equals double/pass at 80% (take point 20%)."""
    at = analysis.cube_action([0.8, 0, 0, 0, 0], 1.0)
    assert at.double_take == pytest.approx(1.0, abs=1e-6)
    # the proper action in GNU Backgammon's words
    assert analysis.cube_action([0.5, 0, 0, 0, 0], 0.68).action == "No double, take"
    assert analysis.cube_action([0.74, 0, 0, 0, 0], 0.68).action == "Double, take"
    assert analysis.cube_action([0.9, 0, 0, 0, 0], 0.68).action == "Double, pass"
    assert analysis.cube_action([0.9, 0.6, 0, 0, 0], 0.68).action == \
        "Too good to double, pass"
    assert analysis.cube_action([0.9, 0, 0, 0, 0], 0.68,
                                cube=analysis.Cube(owner="opponent")).action == \
        "No double (cube not available)"
    with pytest.raises(FastNardyError, match="owner"):
        analysis.cube_action([0.9, 0, 0, 0, 0], 0.68, cube=analysis.Cube(owner="nobody"))


def test_cube_efficiency_contact_and_race():
    assert analysis.efficiency(CONTACT) == analysis.CONTACT_EFFICIENCY
    race = Position.from_string("short w 9:5,5:5,4:5 6:5,5:5,4:5")
    assert analysis.efficiency(race) == pytest.approx(0.55 + 0.00125 * 90)  # 90 pips
    # every checker of both sides in its home: gnubg's bear-off efficiency
    home = Position.from_string("short w 6:5,5:5,4:5 6:5,5:5,4:5")
    assert analysis.efficiency(home) == analysis.BEAROFF_EFFICIENCY
    assert analysis.efficiency(LONG) == analysis.CONTACT_EFFICIENCY


@pytest.mark.parametrize("position", [SHORT, CONTACT, LONG])
def test_luck_has_mean_0_over_the_21_rolls_T5(position):
    network = NETWORKS[position.rules.game]
    lucks = np.array([analysis.luck(position, tuple(roll), Setting(network))
                      for roll in ROLLS.tolist()])
    assert lucks @ PROBABILITY == pytest.approx(0.0, abs=1e-9)
    assert lucks.std() > 0


def _net_game(game: str, seed: int, turns: int) -> Game:
    """A game whose every turn is the 0-ply network's choice."""
    network = NETWORKS[game]
    played = Game(game, seed)
    while not played.is_over() and len(played.history) < turns:
        played.play(best_turn(played.position, played.dice, network).turn)
    return played


@pytest.mark.parametrize("game", ["short", "long"])
def test_analysing_the_networks_own_play_at_0_ply_finds_no_error(game):
    record = _net_game(game, 5, 30).to_record()
    result = analysis.analyse_game(record, Setting(NETWORKS[game], 0, cubeful=False))
    turns = result.turns
    assert not result.cubeful and result.cube_decisions == ()
    assert len(turns) == len(record.turns)
    assert all(t.loss == 0 and str(t.best) == str(t.played) and t.mark is None for t in turns)


@pytest.mark.parametrize("game", ["short", "long"])
def test_analysing_the_cubeful_players_own_play_at_0_ply_finds_no_error_C8(game):
    """hint, the analysis and the player of one setting choose alike: the turns of net:0's
    player with the money cube in play (C8, cubeful, the default) are the best turns of the
    cubeful analysis (the default), which loses nothing on them."""
    from fastnardy.play.players import player

    played = Game(game, 7)
    with player("net:0", game) as bot:
        while not played.is_over() and len(played.history) < 30:
            cube = analysis.Cube.money(played.rules)
            played.play(bot.turn(played.position, played.dice, cube))
    record = played.to_record()
    result = analysis.analyse_game(record, "net:0")
    assert result.cubeful and str(result.setting) == f"net:0:{NET_PRECISION[game]}"
    assert len(result.turns) == len(record.turns) == len(played.history)
    assert all(t.cube is not None and t.cube.length == 0 for t in result.turns)
    assert all(t.loss == 0 and str(t.best) == str(t.played) and t.mark is None
               for t in result.turns)


def test_a_worse_turn_loses_its_difference_and_is_marked():
    network = NETWORKS["short"]
    game = Game("short", players=("Ann", "Bob"), opening=(6, 5))
    worst = analysis.hint(game.position, (6, 5), Setting(network, cubeful=False))[-1]
    game.play(worst.turn)
    result = analysis.analyse(game.record(), "", Setting(network, 0, cubeful=False))
    first = result.turns[0]
    assert first.loss == pytest.approx(-worst.difference)
    assert first.mark == analysis.mark(-worst.difference) == "very bad"
    totals = result.side("white")
    assert totals["name"] == "Ann" and totals["unforced"] == 1
    assert totals["error_rate"] == pytest.approx(1000 * first.loss, abs=1e-3)
    # cubeful (the default): the loss is the cubeful difference of hint with the money cube
    cubeful = analysis.analyse(game.record(), "", Setting(network, 0)).turns[0]
    ranked = analysis.hint(Position.opening("short", 6, 5)[0], (6, 5), Setting(network),
                           cube=analysis.Cube())
    mine = next(c for c in ranked if c.turn.position == worst.turn.position)
    assert cubeful.loss == pytest.approx(-mine.difference, abs=1e-9)


def _mat_text() -> str:
    game = _net_game("short", 11, 12)
    turns = tuple(RecordedTurn(n, before.turn, roll, str(turn)) for n, (before, (roll, turn))
                  in enumerate(zip([Position.opening("short", *game.opening)[0]]
                                   + [t.position for _, t in game.history],
                                   game.history), 1))
    return write_mat([MatGame(0, 1, ("gnu", "fast"), (0, 0), turns)])


def test_analyse_reads_a_gnubg_mat_export(tmp_path, capsys):
    path = tmp_path / "match.mat"
    path.write_text(_mat_text())
    status, out, err = run(capsys, "analyse", str(path), "--json")
    assert status == 0, err
    document = json.loads(out)
    assert len(document["turns"]) == 12
    assert {"played", "best", "loss"} <= set(document["turns"][0])
    assert document["players"]["white"]["name"] == "gnu"
    assert document["players"]["white"]["error_rate"] == 0.0


def test_C7_analyse_reads_a_1_point_match_as_post_crawford():
    """A match to 1 point has no Crawford game (C7): its game is analysed at 0-0 of 1,
    not refused as a Crawford game where both players need 1 point."""
    import dataclasses

    from fastnardy.formats.mat import read_mat

    game = dataclasses.replace(read_mat(_mat_text())[0], match_length=1)
    result = analysis.analyse(write_mat([game]), "match.mat", "net:0")
    assert result.length == 1 and len(result.turns) == 12
    assert all(turn.cube.score == (0, 0) and not turn.cube.crawford for turn in result.turns)


def test_the_html_page_is_self_contained_with_a_board_per_turn():
    network = NETWORKS["long"]
    game = Game("long", 2)
    for _ in range(6):
        game.play(game.legal_turns()[-1])
    result = analysis.analyse(game.record(), "", Setting(network, 0))
    page = analysis_page.page(result, "game.txt")
    assert page.count("<section class='turn'") == 6
    # a board a turn, a second on a marked turn, and the plot of the equity
    assert page.count("<svg") == 6 + sum(t.mark is not None for t in result.turns) + 1
    assert not re.search(r"\s(src|href)=", page)  # nothing to fetch


def test_the_html_page_gives_each_short_turn_its_xgid_and_gnubg_ids_C6():
    """Issue 68, item 2: each short-nardy turn of the page carries its XGID and GNU
    Backgammon's ids (position, roll, cube and match score as the turn was played): they
    read back to the turn's position and roll at the match's score."""
    import dataclasses

    from fastnardy.formats.ids import read_gnubg_ids, read_xgid
    from fastnardy.formats.mat import read_mat

    game = dataclasses.replace(read_mat(_mat_text())[0], match_length=5)
    result = analysis.analyse(write_mat([game]), "match.mat", "net:0")
    page = analysis_page.page(result, "match.mat")
    xgids = re.findall(r"<code>(XGID=[^<]+)</code>", page)
    gnubg = re.findall(r"<code>([A-Za-z0-9+/]{14}:[A-Za-z0-9+/]{12})</code>", page)
    assert len(xgids) == len(gnubg) == len(result.turns)
    for turn, xgid, pair in zip(result.turns, xgids, gnubg):
        for state in (read_xgid(xgid), read_gnubg_ids(pair)):
            assert state.position == turn.position and state.length == 5
            assert sorted(state.dice or ()) == sorted(turn.roll)
            assert state.cube_context()[:5] == turn.cube[:5]


CHROMIUM = pytest.mark.skipif(not shutil.which("chromium"), reason="headless Chromium is not "
                              "installed (apt-get install chromium)")


def _chromium_dom(url: str, *options: str) -> str:
    """The DOM of ``url`` in headless Chromium once its scripts have run."""
    return subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", *options,
                           "--dump-dom", url], capture_output=True, text=True,
                          timeout=60).stdout


@CHROMIUM
def test_the_html_page_navigates_in_headless_chromium(tmp_path):
    game = Game("short", 4)
    for _ in range(4):
        game.play(game.legal_turns()[0])
    result = analysis.analyse(game.record(), "", Setting(NETWORKS["short"], 0))
    path = tmp_path / "page.html"
    path.write_text(analysis_page.page(result))
    dom = _chromium_dom(f"file://{path}#turn-3")
    assert "class=\"turn shown\" id=\"board-3\"" in dom
    assert dom.count("turn shown") == 1 and ">3 / 4<" in dom


# What the page shows in a window: the visible width, the page's width (wider: it scrolls
# sideways), the right edges of the totals' last headers, of the turn list and of the shown
# turn's candidates, and the list's width against what it shows.
_MEASURE = """<script>
const right=e=>Math.round(e.getBoundingClientRect().right);
const list=document.getElementById('list'),totals=document.querySelector('table');
const out=document.createElement('output');
out.id='measured';
out.textContent=JSON.stringify({window:document.documentElement.clientWidth,
  page:document.documentElement.scrollWidth,
  heads:Object.fromEntries([...totals.querySelectorAll('th')].map(h=>[h.textContent,right(h)])),
  list:right(list),list_content:list.scrollWidth,list_shown:list.clientWidth,
  candidates:right(document.querySelector('.turn.shown .candidates'))});
document.body.append(out);
</script></body>"""


@CHROMIUM
def test_the_html_page_fits_a_1280_pixel_window(tmp_path):
    """At 1,280 px the cubeful page's totals show their rating and luck columns, the turn
    list shows all its columns and the boards' candidates fit beside it: nothing needs the
    page to scroll sideways."""
    result = analysis.analyse(_mat_text(), "match.mat", "net:0")
    path = tmp_path / "page.html"
    path.write_text(analysis_page.page(result).replace("</body>", _MEASURE))
    dom = _chromium_dom(f"file://{path}#turn-2", "--window-size=1280,900")
    found = re.search(r'<output id="measured">(.*?)</output>', dom)
    assert found is not None, dom[-2000:]
    seen = json.loads(found.group(1))
    width = seen["window"]
    assert 1200 < width <= 1280 and seen["page"] <= width
    assert seen["heads"]["rating"] <= width and seen["heads"]["luck"] <= width
    assert seen["list_content"] <= seen["list_shown"] and seen["list"] <= width
    assert seen["list"] < seen["candidates"] <= width  # side by side, not one under the other


def test_dice_streams_are_uniform_and_split_proof():
    games = np.arange(36_000)
    rolls = analysis.dice_stream(7, games, 3)
    assert np.array_equal(rolls[100:200], analysis.dice_stream(7, games[100:200], 3))
    shares = np.bincount(rolls, minlength=21) / len(rolls)
    assert np.allclose(shares, PROBABILITY, atol=0.005)
    assert not np.array_equal(rolls, analysis.dice_stream(7, games, 4))


def test_T5_a_rollouts_game_j_throws_the_kernels_dice_of_game_j_from_a_position():
    """The rollout's first roll of game j is the one the kernel's GameBatch throws for
    stream j of the same seed from a given position (and self-play from positions)."""
    from fastnardy import _kernel
    from fastnardy.batch import keys_from_rows

    rules = CONTACT.rules
    keys = keys_from_rows(rules, encode([CONTACT] * 50))
    for seed in (0, 11, 2 ** 64 - 1):
        games = _kernel.GameBatch(rules.code, False, True, 50, seed, (2, 2))
        games.start(np.arange(50, dtype=np.int64), np.arange(50, dtype=np.int64), keys,
                    np.zeros(50, dtype=np.int8))
        games.prepare()  # each throws its first roll and waits for a choice
        now, _, thrown, status = games.state()
        waiting = (now == keys) & (status == 1)  # still on the first roll (not forced on)
        assert waiting.sum() >= 45
        rolled = ROLLS[analysis.dice_stream(seed, np.arange(50), 0)]
        assert np.array_equal(np.sort(thrown.reshape(-1, 2), axis=1)[waiting], rolled[waiting])


def test_rollout_truncated_at_0_is_the_evaluators_value():
    network = NETWORKS["short"]
    moves = analysis.rollout(CONTACT, (4, 2), 4, setting=Setting(network), truncate=0)
    values = best_turn(CONTACT, (4, 2), network).values
    assert sorted(m.mean for m in moves) == pytest.approx(sorted(values))
    assert all(m.stderr == 0 and m.ci[0] == m.ci[1] for m in moves)


def test_rollout_gives_the_same_result_however_split(monkeypatch):
    network = NETWORKS["short"]
    monkeypatch.setattr(rollouts, "_CHUNK", 2)  # three chunks a candidate
    serial = analysis.rollout(CONTACT, (6, 6), 6, setting=Setting(network), truncate=3, seed=3)
    split = analysis.rollout(CONTACT, (6, 6), 6, setting=Setting(network), truncate=3, seed=3,
                             workers=2)
    assert [m.as_dict() for m in serial] == [m.as_dict() for m in split]
    monkeypatch.setattr(rollouts, "_CHUNK", 6)  # other batches: the same up to rounding
    whole = analysis.rollout(CONTACT, (6, 6), 6, setting=Setting(network), truncate=3, seed=3)
    assert [str(m.turn) for m in whole] == [str(m.turn) for m in serial]
    assert np.allclose([m.equities for m in whole], [m.equities for m in serial], atol=1e-5)
    for move in serial:
        assert move.ci[0] <= move.mean <= move.ci[1]


def test_rollout_on_a_process_pool_or_a_dask_cluster_is_the_serial_rollout(capsys):
    """Issue 39 item 2: the games of a rollout played on a process pool, on a real Dask
    cluster (given its Client or the Client's executor) or by ``fastnardy rollout --dask``
    give the serial numbers, game for game (game j throws dice stream j wherever it is
    played, and a subtask plays whole chunks); progress counts every chunk once."""
    distributed = pytest.importorskip("distributed", reason="dask.distributed is not "
                                      "installed (pip install 'dask[distributed]')")
    network = NETWORKS["short"]
    options = {"setting": Setting(network), "truncate": 4, "seed": 3}
    serial = analysis.rollout(CONTACT, (6, 6), 150, **options)
    chunks = len(serial) * 3  # 150 games: chunks of 64, 64 and 22

    def same(moves: list) -> bool:
        return [str(m.turn) for m in moves] == [str(m.turn) for m in serial] and all(
            np.array_equal(m.equities, n.equities) for m, n in zip(moves, serial))

    with ProcessPoolExecutor(2) as pool:
        assert same(analysis.rollout(CONTACT, (6, 6), 150, executor=pool, **options))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        for executor in (client, client.get_executor()):
            seen: list = []
            assert same(analysis.rollout(CONTACT, (6, 6), 150, executor=executor,
                                         progress=lambda *done: seen.append(done), **options))
            assert seen[-1] == (chunks, chunks) and len(seen) <= chunks
        status, out, _ = run(capsys, "rollout", CONTACT.to_string(), "6-6", "--games", "150",
                             "--truncate", "4", "--seed", "3", "--precision", "float", "--json",
                             "--dask", cluster.scheduler_address)
    assert status == 0 and json.loads(out)["moves"] == [m.as_dict() for m in serial]
    for bad, message in (({"executor": "pool"}, "executor must be"),
                         ({"executor": client, "workers": 2}, "not both")):
        with pytest.raises(FastNardyError, match=message):
            analysis.rollout(CONTACT, (6, 6), 2, **bad)


def test_hint_and_eval_json_schemas(capsys):
    status, out, _ = run(capsys, "hint", "short", "6-5", "--json", "--top", "3")
    document = json.loads(out)
    assert status == 0 and len(document["moves"]) == 3
    assert {"turn", "equity"} <= set(document["moves"][0])
    status, out, _ = run(capsys, "eval", "long", "--json")
    document = json.loads(out)
    assert status == 0 and "equity" in document and "action" in document["decision"]
    # the cube context apart from the decision: money play, the cube at 1 centred (C8)
    assert "action" not in document["cube"]
    assert (document["cube"]["value"], document["cube"]["owner"]) == (1, "centered")
    status, out, _ = run(capsys, "rollout", SHORT.to_string(), "2-1", "--games", "2",
                         "--truncate", "2", "--json")
    document = json.loads(out)
    assert status == 0 and {"turn", "mean", "ci"} <= set(document["moves"][0])


@pytest.mark.parametrize("argv", [
    ["hint", "short", "7-1"], ["hint", "nowhere", "6-5"], ["eval", "short w 24:16 24:15"],
    ["analyse", "/nonexistent/game.mat"], ["rollout", "short", "--games", "1"],
    ["hint", "short", "6-5", "--filter", "0,1"], ["eval", "short", "--weights", "/no.npz"],
    ["hint", "short", "6-5", "--plies", "1", "--filter", "0,1"],
])
def test_bad_input_is_exit_2_with_one_line(capsys, argv):
    status, out, err = run(capsys, *argv)
    assert status == 2 and err.count("\n") == 1 and "Traceback" not in err


def test_a_mat_that_is_not_one_is_exit_2(tmp_path, capsys):
    path = tmp_path / "bad.mat"
    path.write_text(" 5 point match\n\n Game 1\n a : 0   b : 0\n  1) 77: 24/18\n")
    status, _, err = run(capsys, "analyse", str(path))
    assert status == 2 and err.count("\n") == 1 and "line" in err


def test_match_is_seeded_and_paired_and_names_bad_players(capsys):
    status, out, _ = run(capsys, "match", "net:0", "random", "--game", "short", "--games", "4",
                         "--seed", "2", "--json")
    first = json.loads(out)
    assert status == 0 and first["games"] == 4 and first["unfinished"] == 0
    again = json.loads(run(capsys, "match", "net:0", "random", "--game", "short", "--games",
                           "4", "--seed", "2", "--json")[1])
    timings = ("cpu_seconds", "games_per_second", "engine_seconds")
    assert {k: v for k, v in again.items() if k not in timings} == \
        {k: v for k, v in first.items() if k not in timings}
    for argv in (["match", "net:7", "greedy"], ["match", "greedy", "random", "--games", "3"],
                 ["match", "gnubg:expert", "greedy", "--game", "long"]):
        status, _, err = run(capsys, *argv)
        assert status == 2 and err.count("\n") == 1


def test_play_against_the_network_with_a_hint_key(monkeypatch, capsys):
    answers = iter(["h", "q"])
    monkeypatch.setattr("builtins.input", lambda prompt: next(answers))
    status, out, _ = run(capsys, "play", "short", "--human", "white", "--player", "net:1",
                         "--seed", "3", "--quiet")
    best = analysis.hint(Game("short", 3).position, Game("short", 3).dice)[0]
    assert status == 0 and f"   1) {best.turn}" in out and out.rstrip().endswith("quit")


def test_ctrl_c_in_a_rollout_on_workers_is_exit_130_with_progress_on_stderr():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.Popen([sys.executable, "-m", "fastnardy", "rollout", "short", "6-5",
                              "--games", "200000", "--truncate", "2", "--workers", "2",
                              "--progress"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=env, preexec_fn=lambda: signal.signal(signal.SIGINT,
                                                                       signal.SIG_DFL))
    seen, deadline = b"", time.monotonic() + 60
    while b"rollout chunks: " not in seen and time.monotonic() < deadline:
        seen += os.read(child.stderr.fileno(), 4096)
    assert b"rollout chunks: " in seen
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=60)
    assert child.returncode == 130 and (seen + err).endswith(b"interrupted\n")
    assert out == b"" and b"Traceback" not in seen + err
