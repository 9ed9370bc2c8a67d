"""fastnardy.search.bearoff's two-sided database: exact win chances and cubeful money
equities of bear-offs (L8/S7 bearing off, L7/S6 max dice, T5 rolls, C2/C3 the cube), judged
by the exact recursion on the reference's legal turns in every rule variant, and by GNU
Backgammon's own two-sided database (the file gnubg-nn ships: a test-only judge)."""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path

import numpy as np
import pytest

from fastnardy import ALL_ROLLS, FastNardyError, InvalidPositionError, Rules
from fastnardy.batch import encode
from fastnardy.search import bearoff
from fastnardy.search.network import Evaluator

from conftest import bear_off, bearoff_home

WEIGHTS = {roll: (1 if roll[0] == roll[1] else 2) / 36 for roll in ALL_ROLLS}
VARIANTS = [Rules.long(), Rules.long(head_rule="blocked", block_rule="opponent_home"),
            Rules.long(block_rule="none", block_check="turn_end"),
            Rules.long(head_rule="tournament", scoring="oin_mars_koks"),
            Rules.short(), Rules.short(hit_and_hide="forbidden", backgammon=False)]


def values(db: bearoff.Database, mover: list, other: list) -> tuple:
    win, equities = db.values(encode([bear_off(Rules.short(), mover, other)]))
    return float(win[0]), equities[0]


def cube(no_double: float, theirs: float) -> float:
    """The mover's equity with its best cube action (C2, C3): the module docstring's cube."""
    return max(no_double, min(2 * theirs, 1.0))


def test_four_checkers_in_one_roll_are_off_with_4_4_5_5_or_6_6_only_S7(db):
    # the example: white must bear its last four off at once (black's last checker
    # is off next roll whatever it throws): only 4-4, 5-5 and 6-6 do it, 3/36
    win, (centred, owned, theirs) = values(db, [0, 2, 1, 1, 0, 0], [0, 1, 0, 0, 0, 0])
    assert win == pytest.approx(3 / 36, abs=1e-9)
    assert centred == owned == theirs == pytest.approx(3 / 36 - 33 / 36, abs=1e-4)


def test_a_lone_checker_each_on_the_six_point_is_a_double_and_a_pass_C2(db):
    # 27 of 36 rolls bear a checker off the 6 point; so does the other side's reply: the
    # mover holding the cube doubles, and the other side, owning a cube of 2 it would redouble
    # at once, is at 2 theirs = 2 (27/36 - 9/36) = 1 (a take and a pass are worth the same)
    win, (centred, owned, theirs) = values(db, [0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 1])
    assert win > 27 / 36
    assert theirs == pytest.approx(27 / 36 - 9 / 36, abs=1e-4)
    assert cube(centred, theirs) == pytest.approx(1.0, abs=1e-4)


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda rules: rules.code)
def test_entries_satisfy_the_exact_recursion_on_the_reference_turns_L8_S7(db, rules):
    # every value with its own best turn, each roll weighted by T5; the children come from
    # the pure-Python reference under the variant's rules, not from the kernel that built
    # the database: win to 1e-9 (the stored uint32), equities to 1e-4 (the stored int16)
    rng = np.random.default_rng(rules.code.__hash__() % 2**32)
    for _ in range(12):
        mover, other = bearoff_home(rng, db.checkers), bearoff_home(rng, db.checkers)
        start = bear_off(rules, mover, other)
        expected = np.zeros(4)
        for roll in ALL_ROLLS:
            best = np.full(4, -2.0)
            for turn in start.legal_turns(roll, backend="reference"):
                child = turn.position
                assert child.black_points == start.black_points and child.white_bar == 0
                after = child.white_points[:6]
                if sum(after) == 0:  # borne off: won
                    seen = (0.0, (-1.0, -1.0, -1.0))
                else:
                    seen = values(db, other, after)
                win, (centred, owned, theirs) = seen
                best = np.maximum(best, [1 - win, -cube(centred, theirs), -theirs,
                                         -cube(owned, theirs)])
            expected += WEIGHTS[roll] * best
        win, equities = values(db, mover, other)
        assert win == pytest.approx(expected[0], abs=1e-9)
        assert np.allclose(equities, expected[1:], atol=1e-4)


def test_every_entry_equals_gnubgs_two_sided_database(db):
    # gnubg_ts0.bd: 6 points x 6 checkers, 4 uint16 an entry (cubeless equity; cubeful money
    # equities with the cube owned, centred, the other side's: CFMONEY's order), entry
    # nUs * n + nThem, a side ranked as PositionBearoff ranks it (ours of the counts read
    # from point 6 down); all 851,929 entries with both sides on the board
    gnubg_nn = pytest.importorskip(
        "gnubg_nn", reason="gnubg-nn (the test extra) ships GNU Backgammon's two-sided database")
    path = Path(gnubg_nn.__file__).parent / "data" / "gnubg_ts0.bd"
    raw = path.read_bytes()
    assert raw[:16] == b"gnubg-TS-06-06-1"
    n = 924
    theirs_db = np.frombuffer(raw[40:], dtype="<u2").reshape(-1, 4) / 32767.5 - 1.0
    ranks = bearoff.indices(bearoff.table().positions[:n, ::-1])  # gnubg's rank of each
    a, b = np.meshgrid(np.arange(1, n), np.arange(1, n), indexing="ij")
    a, b = a.ravel(), b.ravel()
    gnubg = theirs_db[ranks[a] * n + ranks[b]]
    entries = a * db.size + b
    win = db.wins[entries] / 4294967295.0
    ours = db.cubeful[entries] / 32767.0
    assert np.abs(win - (gnubg[:, 0] + 1) / 2).max() < 1e-4
    gnubg_equities = gnubg[:, [2, 1, 3]]  # centred, owned, theirs
    assert np.abs(ours - gnubg_equities).max() < 0.002

    def action(equities: np.ndarray, holder: int) -> tuple:
        """0 no double, 1 double take, 2 double pass; and how far the choice is from a tie."""
        no_double, taken = equities[:, holder], 2 * equities[:, 2]
        doubles = np.minimum(taken, 1.0) > no_double
        chosen = np.where(doubles, np.where(taken > 1.0, 2, 1), 0)
        margin = np.minimum(np.abs(np.minimum(taken, 1.0) - no_double),
                            np.where(doubles, np.abs(taken - 1.0), np.inf))
        return chosen, margin

    for holder in (0, 1):  # the cube centred, the cube the mover's
        chosen, margin = action(ours, holder)
        expected, _ = action(gnubg_equities, holder)
        differ = chosen != expected
        # the same proper cube action but at near-ties, which gnubg's 16-bit equities (off by
        # up to 1.2e-4 from the exact ones, 2.4e-4 for a take) cannot tell apart
        assert differ.sum() < 400 and margin[differ].max() < 3e-4
        assert np.bincount(chosen, minlength=3).min() > 90_000  # all three happen


def test_the_evaluator_values_a_bear_off_by_the_database_float_and_int16(db):
    start = bear_off(Rules.short(), [0, 2, 1, 1, 0, 0], [0, 1, 0, 0, 0, 0])
    for arithmetic in ("float", "int16"):
        evaluator = Evaluator.load("short", arithmetic=arithmetic)
        assert evaluator.bearoff is db
        outputs = evaluator.evaluate(start, probabilities=True)[0]
        assert outputs[0] == pytest.approx(3 / 36, abs=1e-6)
        assert outputs[1:].max() < 1e-30
        assert evaluator.value(start) == pytest.approx(2 * 3 / 36 - 1, abs=2e-6)
        without = Evaluator.load("short", arithmetic=arithmetic, bearoff=False)
        assert without.bearoff is None
        assert abs(without.evaluate(start, probabilities=True)[0][0] - 3 / 36) > 0.01


def test_a_built_file_is_the_same_database_and_is_deterministic(tmp_path, db):
    first = bearoff.build(6, tmp_path / "a.bin")
    second = bearoff.build(6, tmp_path / "b.bin")
    assert hashlib.sha256(first.read_bytes()).digest() == \
        hashlib.sha256(second.read_bytes()).digest()
    loaded = bearoff.load(first)
    assert loaded.checkers == 6 and loaded.path == first
    assert np.array_equal(loaded.wins, db.wins) and np.array_equal(loaded.cubeful, db.cubeful)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.bin", "b.bin"]  # no leftovers


def test_an_interrupted_build_keeps_its_levels_and_resumes(tmp_path):
    levels = []

    def stop_at_20(done: int, total: int) -> None:
        levels.append(done)
        if done == 20:
            raise KeyboardInterrupt

    target = tmp_path / "db.bin"
    with pytest.raises(KeyboardInterrupt):
        bearoff.build(4, target, progress=stop_at_20)
    assert not target.exists()
    assert (tmp_path / "db.bin.partial").exists()
    resumed = []
    bearoff.build(4, target, progress=lambda done, total: resumed.append(done))
    assert resumed[0] == 21 and resumed[-1] == 49  # 12 * 4 + 1 pip levels
    fresh = bearoff.build(4, tmp_path / "fresh.bin")
    assert target.read_bytes() == fresh.read_bytes()


def test_two_builds_of_one_file_at_once_the_second_is_refused(tmp_path):
    started, release = threading.Event(), threading.Event()

    def slow(done: int, total: int) -> None:
        started.set()
        release.wait(10)

    worker = threading.Thread(target=lambda: bearoff.build(3, tmp_path / "db.bin",
                                                           progress=slow))
    worker.start()
    try:
        assert started.wait(10)
        with pytest.raises(FastNardyError, match="another build"):
            bearoff.build(3, tmp_path / "db.bin")
    finally:
        release.set()
        worker.join()
    assert bearoff.load(tmp_path / "db.bin").checkers == 3


def test_a_file_that_is_not_a_whole_database_is_refused(tmp_path):
    path = bearoff.build(2, tmp_path / "db.bin")
    data = path.read_bytes()
    (tmp_path / "short.bin").write_bytes(data[:-1])
    (tmp_path / "other.bin").write_bytes(b"x" * len(data))
    for name in ("short.bin", "other.bin"):
        with pytest.raises(FastNardyError, match="build it again|not a fastnardy bear-off"):
            bearoff.load(tmp_path / name)
    with pytest.raises(FastNardyError, match="checkers must be an integer between 1 and 12"):
        bearoff.build(13, tmp_path / "x.bin")
    with pytest.raises(InvalidPositionError, match="does not hold it"):
        bearoff.load(path).values(encode([bear_off(Rules.short(), [0, 3, 0, 0, 0, 0],
                                                   [1, 0, 0, 0, 0, 0])]))


def test_database_prefers_the_largest_file_in_the_folder(tmp_path, monkeypatch):
    bearoff.build(7, tmp_path / bearoff.file_name(7))
    monkeypatch.setenv("FASTNARDY_DATA", str(tmp_path))
    assert bearoff.folder() == tmp_path
    found = bearoff._default()
    assert found.checkers == 7 and found.path == tmp_path / "bearoff-7.bin"
    (tmp_path / bearoff.file_name(8)).write_bytes(b"not a database")
    with pytest.warns(UserWarning, match="bearoff-8.bin is not a fastnardy bear-off database"):
        assert bearoff._default().checkers == 7  # the broken larger one skipped
    monkeypatch.setenv("FASTNARDY_DATA", str(tmp_path / "empty"))
    assert bearoff._default().checkers == bearoff.DEFAULT_CHECKERS
    monkeypatch.delenv("FASTNARDY_DATA")  # then the cache folder, then ~/.cache
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert bearoff.folder() == tmp_path / "cache" / "fastnardy"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert bearoff.folder() == tmp_path / "home" / ".cache" / "fastnardy"


def test_the_build_command_writes_the_file_and_says_what_it_cost(tmp_path, capsys):
    from fastnardy.cli import main

    out = tmp_path / "db.bin"
    assert main(["bearoff-build", "--checkers", "3", "--out", str(out), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["path"] == str(out) and document["checkers"] == 3
    assert document["bytes"] == out.stat().st_size == 64 + 84 ** 2 * 10  # C(9, 6) = 84
    assert document["cpu_seconds"] >= 0 and document["peak_memory_bytes"] > 0
    assert bearoff.load(out).checkers == 3
    assert main(["bearoff-build", "--checkers", "13", "--out", str(out)]) == 2
    assert "between 1 and 12" in capsys.readouterr().err


@pytest.mark.parametrize("game", ["long", "short"])
def test_a_search_stops_where_the_database_holds_the_position_T5(db, game):
    # a held position's value at any plies is its entry (the recursion the database solved):
    # the search values it at 0 ply and expands nothing below it, cubeless and in money play
    from fastnardy.search.cubeful import Cube
    from fastnardy.search.tree import Search

    rng = np.random.default_rng(11)
    rows = encode([bear_off(Rules.of(game), bearoff_home(rng, 6), bearoff_home(rng, 6))
                   for _ in range(20)])
    exact_win, equities = db.values(rows)
    search = Search(Rules.of(game), Evaluator.load(game), None)
    for plies in (1, 2):
        before = search.evaluations
        assert np.allclose(search.values(rows, plies), 2 * exact_win - 1, atol=2e-6)
        assert search.evaluations - before == len(rows)
        seen, _ = search.cube_equities(rows, [Cube()] * len(rows), plies)
        assert np.allclose(seen[:, 0], equities[:, 0], atol=1e-12)  # no double, centred
        assert np.allclose(seen[:, 1], 2 * equities[:, 2], atol=1e-12)  # double, take
    unheld = Search(Rules.of(game), Evaluator.load(game, bearoff=False), None)
    before = unheld.evaluations
    unheld.values(rows, 1)
    assert unheld.evaluations - before > 10 * len(rows)
