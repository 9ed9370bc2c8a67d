"""Hostile files and inputs, round four (issue 40): every reader refuses what it cannot read
with one clear FastNardyError, in time linear in the input (the players line of a .mat and
an evaluator's JSON metadata were quadratic), with a bounded quote of the input, never an
int() of thousands of digits, never opening a FIFO or reading an endless device."""

from __future__ import annotations

import dataclasses
import json
import re
import tracemalloc
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from fastnardy import FastNardyError, InvalidPositionError, InvalidRecordError, Position
from fastnardy.cli import main
from fastnardy.formats.mat import read_mat
from fastnardy.record import read_record
from fastnardy.search import Evaluator

HEADER = " 5 point match\n\n Game 1\n"
PLAYERS = " alice : 0                          bob : 0\n"
GAME = HEADER + PLAYERS + "  1) 31: 8/5 6/5                     64: 24/18 13/9\n"
HUGE = "9" * 5000  # more digits than int() converts (4300)
LONG = "9" * 900  # within a .mat line's 1,000 characters, beyond any count


def refused(reader, text: str, message: str, error=InvalidRecordError) -> str:
    with pytest.raises(error, match=message) as caught:
        reader(text)
    text = str(caught.value)
    assert len(text) < 400, text[:400]  # a bounded quote, never the whole input
    return text


def run_bounded(code: str, seconds: float = 60) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter, killed after ``seconds``: a hang fails the test
    instead of the run (this is a bound, not a speed assertion)."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=seconds)


def test_mat_players_line_repeating_name_score_is_refused_without_backtracking():
    """Issue 40 item 1: ``a : 1 `` repeated (1 MB) took minutes in the players-line regex:
    now a line of more than 1,000 characters is refused by its length, and within that the
    players line is read in one pass."""
    refused(read_mat, HEADER + " " + "a : 1 " * 160 + "\n", "expected the players and scores")
    refused(read_mat, HEADER + " " + "a : 1 " * 170_000 + "\n", "1,020,000 characters long")
    done = run_bounded("from fastnardy.formats.mat import read_mat\n"
                       f"text = {HEADER!r} + ' ' + 'a : 1 ' * 170_000 + '\\n'\n"
                       "try:\n    read_mat(text)\nexcept ValueError:\n    print('refused')")
    assert done.stdout.strip() == "refused", done.stderr[-500:]


def test_mat_and_record_numbers_of_thousands_of_digits_are_refused():
    """Issue 40 item 4: a match length, game number, score, Wins N, Doubles => N of 5,000
    digits (int() refuses more than 4,300) is a clear InvalidRecordError."""
    cases = [
        (f" {LONG} point match\n\n Game 1\n" + PLAYERS, "point match"),
        (f" 5 point match\n\n Game {LONG}\n" + PLAYERS, "expected ' Game 1'"),
        (HEADER + f" alice : {LONG}          bob : 0\n", "players and scores"),
        (GAME + f"  2) 52: 13/8 13/11                   Doubles => {LONG}\n", "cannot read"),
        (GAME + f"      Wins {LONG} points\n", "cannot read|expected a numbered line"),
        (GAME + f"  {LONG}) 52: 13/8 13/11\n", "expected a numbered line|cannot read"),
        (f" {HUGE} point match\n", "5,013 characters long"),
    ]
    for text, message in cases:
        refused(read_mat, text, message)
    refused(read_record, f"rules short\nwhite alice\nblack bob\nopening 3 1\n{HUGE} white "
                         f"3-1 8/5 6/5\n", "expected a header line")


def test_check_game_exits_2_with_one_line_for_a_huge_number(tmp_path: Path, capsys):
    path = tmp_path / "huge.mat"
    path.write_text(f" {HUGE} point match\n\n Game 1\n" + PLAYERS)
    assert main(["check-game", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1 and len(err) < 400


def test_one_long_move_line_is_refused_by_its_length_with_a_bounded_quote():
    """Issue 40 item 5: ``65: `` + ``24/18 `` x N took 160x the file in memory; a line of
    a match export is at most 1,000 characters."""
    text = GAME + "  2) 65: " + "24/18 " * 200_000 + "\n"
    refused(read_mat, text, r"line 6 is 1,200,\d+ characters long")
    refused(read_record, "rules short" + "x" * 12_000_000 + "\n", "line 1")
    refused(Position.from_gnubg_id, "A" * 10_000_000, "characters",
            error=InvalidPositionError)


def _evaluator_with_metadata(tmp_path: Path, metadata: str) -> Path:
    net = Evaluator.load("short")
    members = {"kind": np.array(net.kind), "metadata": np.array(metadata),
               "hidden_weights": net.hidden_weights, "hidden_bias": net.hidden_bias,
               "output_weights": net.output_weights, "output_bias": net.output_bias}
    path = tmp_path / "hostile.npz"
    np.savez(path, **members)
    return path


def test_evaluator_metadata_of_escaped_quotes_is_scanned_once(tmp_path: Path):
    """Issue 40 item 1: ``"`` then escaped quotes (150 KB) took 12.5 s in the string scan
    before the depth check; now one pass, and the metadata is refused as not JSON."""
    path = _evaluator_with_metadata(tmp_path, '"' + '\\"' * 1_000_000)
    with pytest.raises(FastNardyError, match="not JSON"):
        Evaluator.load(path)
    done = run_bounded(f"from fastnardy.search import Evaluator\ntry:\n"
                       f"    Evaluator.load({str(path)!r})\nexcept ValueError as e:\n"
                       f"    print('refused')")
    assert done.stdout.strip() == "refused", done.stderr[-500:]
    good = _evaluator_with_metadata(tmp_path, json.dumps({"note": 'a "quoted" [word]'}))
    assert Evaluator.load(good).metadata["note"] == 'a "quoted" [word]'


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
def test_evaluator_files_that_are_devices_or_fifos_are_refused_unopened(tmp_path: Path):
    """Issue 40 item 2: Evaluator.load('/dev/zero') read the endless stream inside zipfile;
    a FIFO blocked in open(). Both are refused before any read, and the records' reader
    refuses a FIFO too."""
    with pytest.raises(FastNardyError, match="not a regular file"):
        Evaluator.load("/dev/zero")
    fifo = tmp_path / "fifo.npz"
    os.mkfifo(fifo)
    done = run_bounded(f"from fastnardy.search import Evaluator\ntry:\n"
                       f"    Evaluator.load({str(fifo)!r})\nexcept ValueError as e:\n"
                       f"    print(e)", seconds=30)
    assert "not a regular file" in done.stdout, done.stderr[-500:]
    record = tmp_path / "fifo.record"
    os.mkfifo(record)
    done = run_bounded(f"from fastnardy.cli import main\nimport sys\n"
                       f"sys.exit(main(['check-game', {str(record)!r}]))", seconds=30)
    assert done.returncode == 2 and "FIFO" in done.stderr, done.stderr[-500:]
    big = tmp_path / "big.npz"
    with open(big, "wb") as handle:
        handle.truncate(300 << 20)  # sparse: 300 MB of zeros, no disk used
    with pytest.raises(FastNardyError, match="more than the"):
        Evaluator.load(big)


def test_evaluator_weights_beyond_float32_are_refused_without_a_warning(tmp_path: Path):
    """Issue 40 item 10: float64 weights of 3e39 cast to float32 overflowed with numpy's
    warning; now a refusal."""
    net = Evaluator.load("short")
    path = tmp_path / "big.npz"
    members = {"kind": np.array(net.kind), "metadata": np.array(json.dumps(net.metadata)),
               "hidden_weights": net.hidden_weights.astype(np.float64) * 1e40,
               "hidden_bias": net.hidden_bias, "output_weights": net.output_weights,
               "output_bias": net.output_bias}
    np.savez(path, **members)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's overflow warning would fail the test
        with pytest.raises(FastNardyError, match="not finite as a float32"):
            Evaluator.load(path)


def _gnubg_games(count: int) -> str:
    """A money-play .mat of ``count`` games, GNU Backgammon's own self-play games
    (tests/data/gnubg) one after another, renumbered."""
    games = []
    for path in sorted((Path(__file__).parents[1] / "data" / "gnubg").glob("*.mat")):
        games += re.split(r"\n(?= Game \d+\n)", path.read_text())[1:]
    return " 0 point match\n" + "".join(
        "\n" + re.sub(r"^ Game \d+", f" Game {number}", games[number % len(games)]).rstrip()
        + "\n" for number in range(1, count + 1))


def _peak(reader, text: str) -> float:
    """The most memory ``reader(text)`` held at once (Python's own allocations, the text
    itself not counted), as a multiple of the text's length."""
    tracemalloc.start()
    try:
        kept = reader(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert kept
    return peak / len(text)


@pytest.mark.skipif(sys.version_info < (3, 10), reason="slotted records need Python 3.10+")
def test_list_readers_hold_a_few_times_the_file_not_fifteen():
    """Issue 40, memory: read_mat and read_games held 13-15x a .mat of one-turn games (as
    GNU Backgammon lays them out). Now a record shares its rolls, sides, names, scores and
    turn texts, its values are slotted and the text is split 64 K characters at a time. At
    these sizes (about a megabyte; a larger file is nearer the floor) one-turn games take
    3.6x, GNU Backgammon's own games 4.3x and a fastnardy match record 5.1x (a turn a line,
    each line number an int of its own). The floor is an object per turn (72 bytes) and its
    line number (32 bytes, shared by a .mat line's two turns) against 25-28 characters of
    text a turn."""
    from fastnardy.formats.games import read_games
    from fastnardy.formats.mat import write_mat
    from fastnardy.record import MatchRecord, read_match, write_match
    game = read_mat(" 0 point match\n Game 1\n Alice : 0   Bob : 0\n  1) 31: 8/5 6/5\n"
                    "      Wins 1 point\n")[0]
    one_turn = write_mat([dataclasses.replace(game, number=g) for g in range(1, 10001)])
    assert _peak(read_mat, one_turn) < 3.9
    assert _peak(read_games, one_turn) < 3.9
    gnubg = _gnubg_games(1000)
    assert _peak(read_games, gnubg) < 4.6
    record = write_match(MatchRecord(1, tuple(game for game in read_games(gnubg)
                                              if game.opening is not None)))
    assert _peak(read_match, record) < 5.5
