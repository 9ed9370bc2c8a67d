"""The command line (``fastnardy`` / ``python -m fastnardy``): ``main([...])`` in process, and
a real process for what needs one (a closed pipe, Ctrl-C, the console script's name)."""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time

import pytest

import fastnardy.cli as cli
import fastnardy.cli.turns
import fastnardy
from fastnardy import Game, Position, __version__, perft
from fastnardy.testing import speed
from fastnardy.cli import build_parser, main
from fastnardy.cli.perft import UNFORCED_DEPTH

START = "long w 24:15 24:15"
SHORT_START = "short w 24:2,13:5,8:3,6:5 24:2,13:5,8:3,6:5"
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}


def run(capsys, *argv: str) -> tuple:
    """main(argv) → (exit status, stdout, stderr)."""
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def one_line_error(err: str) -> bool:
    return err.count("\n") == 1 and "Traceback" not in err and "error: " in err


def process(*argv: str, **options) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fastnardy", *argv], capture_output=True,
                          text=True, env=ENV, timeout=60, **options)


# --------------------------------------------------------------------------- rule options

def test_rule_options_apply_to_a_position_string_L5(capsys):
    status, out, _ = run(capsys, "perft", START, "2", "--only", "--head-rule", "blocked")
    lines = out.splitlines()
    assert status == 0 and lines[0] == "long(head_rule=blocked) w 24:15 24:15"
    assert lines[1].startswith(f"perft(2) = {489:>15,}")  # not the classic 484


def test_rule_options_apply_to_the_start_S8(capsys):
    status, out, _ = run(capsys, "perft", "short", "2", "--only", "--json",
                         "--hit-and-hide", "forbidden")
    assert status == 0 and json.loads(out)["perft"][0]["count"] == 202_390


def test_an_option_may_repeat_the_strings_variant_or_add_another(capsys):
    status, out, _ = run(capsys, "turns", "long(block_check=turn_end) w 24:15 24:15", "6-5",
                         "--json", "--block-check", "turn_end", "--head-rule", "tournament")
    assert status == 0
    assert json.loads(out)["position"] == "long(head_rule=tournament,block_check=turn_end) " \
                                          "w 24:15 24:15"


@pytest.mark.parametrize("position, option", [
    ("long(head_rule=tournament) w 24:15 24:15", ["--head-rule", "blocked"]),
    ("long(head_rule=classic) w 24:15 24:15", ["--head-rule", "blocked"]),  # named, if default
    ("short(hit_and_hide=forbidden) " + SHORT_START[6:], ["--hit-and-hide", "allowed"]),
])
def test_an_option_contradicting_the_string_is_an_error(capsys, position, option):
    status, out, err = run(capsys, "perft", position, "1", *option)
    assert status == 2 and out == "" and one_line_error(err) and "contradicts" in err


@pytest.mark.parametrize("argv, game", [
    (["perft", "long", "1", "--hit-and-hide", "forbidden"], "short"),
    (["turns", "short", "6", "5", "--head-rule", "blocked"], "long"),
    (["check", SHORT_START, "6-5", "24/18", "--block-rule", "none"], "long"),
    (["board", START, "--hit-and-hide", "allowed"], "short"),
    (["play", "short", "--block-check", "turn_end"], "long"),
])
def test_an_option_of_the_other_game_is_an_error(capsys, argv, game):
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == "" and one_line_error(err)
    assert f"is a {game}-nardy option" in err


# --------------------------------------------------------------------------- perft depth

def test_negative_depth_is_a_usage_error(capsys):
    status, out, err = run(capsys, "perft", "long", "-1")
    assert status == 2 and out == "" and one_line_error(err)
    assert err.startswith("python -m fastnardy perft: error: argument DEPTH: must be 0 or more")


@pytest.mark.parametrize("only", [[], ["--only"]])
def test_depth_0_counts_1_T5(capsys, only):
    status, out, _ = run(capsys, "perft", "short", "0", *only)
    assert status == 0 and out.splitlines()[1].startswith(f"perft(0) = {1:>15,}")


@pytest.mark.parametrize("game", ["long", "short"])
def test_a_depth_that_cannot_finish_needs_force(capsys, game):
    status, out, err = run(capsys, "perft", game, str(UNFORCED_DEPTH[game] + 1))
    assert status == 2 and out == "" and one_line_error(err) and "--force" in err


def test_force_counts_past_the_limit_T4(capsys):
    # white bears off its last checker with any roll: 21 finished games, each counting 1
    status, out, _ = run(capsys, "perft", "long w 1:1 24:15", "10", "--only", "--force")
    assert status == 0 and f"perft(10) = {21:>15,}" in out
    status, _, err = run(capsys, "perft", "long w 1:1 24:15", "10", "--only")
    assert status == 2 and one_line_error(err)


@pytest.mark.parametrize("argv", [["perft", "long", "--", "--"], ["perft", "long", "x"],
                                  ["perft", "long"], ["perft", "long", "0", "--divide"]])
def test_an_unusable_depth_is_one_line_and_exit_2(capsys, argv):
    status, out, err = run(capsys, *argv)
    assert status == 2 and one_line_error(err)


def test_perft_json(capsys):
    status, out, _ = run(capsys, "perft", "long", "3", "--json", "--weighted")
    document = json.loads(out)
    assert status == 0
    assert document["position"] == START and document["weighted"] is True
    assert document["backend"] == "kernel"
    assert [(r["depth"], r["count"]) for r in document["perft"]] == [
        (depth, perft(Position.start("long"), depth, weighted=True)) for depth in (1, 2, 3)]


def test_perft_divide_text_and_json_agree_T5(capsys):
    status, text, _ = run(capsys, "perft", "long", "2", "--divide")
    assert status == 0 and text.endswith("total 484\n")
    lines = text.splitlines()[:-1]
    status, out, _ = run(capsys, "perft", "long", "2", "--divide", "--json")
    document = json.loads(out)
    assert document["total"] == 484 and document["depth"] == 2
    assert [f"{r['roll'][0]}-{r['roll'][1]}  {r['turn']:<32} {r['count']:>12}  {r['position']}"
            for r in document["divide"]] == lines


def test_perft_divide_shows_each_child_position_with_rolls_high_die_first_T1_T5(capsys):
    status, out, _ = run(capsys, "perft", "short", "2", "--divide", "--json")
    document = json.loads(out)
    start = Position.start("short")
    rolls = list(dict.fromkeys(tuple(r["roll"]) for r in document["divide"]))
    assert rolls[:3] == [(1, 1), (2, 1), (2, 2)] and len(rolls) == 21
    for entry in document["divide"]:
        high, low = entry["roll"]
        assert high >= low
        child = Position.from_string(entry["position"])
        assert child == start.check_turn((high, low), entry["turn"]).position
        assert entry["count"] == perft(child, 1)


def test_perft_for_one_roll_T5(capsys):
    status, out, _ = run(capsys, "perft", "short", "2", "--roll", "5-6", "--divide", "--json")
    document = json.loads(out)
    assert status == 0 and document["roll"] == [6, 5]
    start = Position.start("short")
    expected = sum(perft(t.position, 1) for t in start.legal_turns((6, 5)))
    assert document["total"] == expected == 3300
    assert {r["turn"] for r in document["divide"]} == {str(t) for t in start.legal_turns((6, 5))}
    status, out, _ = run(capsys, "perft", "short", "2", "--roll", "65", "--only", "--json")
    assert status == 0 and json.loads(out)["perft"][0]["count"] == 3300
    status, _, err = run(capsys, "perft", "short", "0", "--roll", "6-5")
    assert status == 2 and one_line_error(err)
    status, _, err = run(capsys, "perft", "short", "2", "--roll", "7-5")
    assert status == 2 and one_line_error(err)


def test_turns_all_lists_the_21_rolls_high_die_first_T5(capsys):
    status, out, _ = run(capsys, "turns", "short", "all")
    start = Position.start("short")
    assert status == 0
    rolls = [line.split()[0] for line in out.splitlines()]
    assert list(dict.fromkeys(rolls))[:3] == ["6-6", "6-5", "6-4"] and len(set(rolls)) == 21
    assert len(rolls) == sum(len(start.legal_turns(r)) for r in fastnardy.ALL_ROLLS)
    status, out, _ = run(capsys, "turns", "short", "all", "--json")
    document = json.loads(out)
    assert [r["dice"] for r in document["rolls"]][:2] == [[6, 6], [6, 5]]
    assert len(document["rolls"]) == 21


def test_a_gnubg_position_id_is_a_position_everywhere(capsys):
    pid = "4HPwATDgc/ABMA"  # the short-nardy start
    assert run(capsys, "turns", pid, "6-5") == run(capsys, "turns", "short", "6-5")
    assert run(capsys, "perft", pid, "2", "--divide") == run(capsys, "perft", "short", "2",
                                                             "--divide")
    assert run(capsys, "check", pid, "6-5", "24/13")[:2] == (0, "24/18 18/13\n")
    status, out, _ = run(capsys, "board", pid, "--hit-and-hide", "forbidden", "--json")
    assert json.loads(out)["position"].startswith("short(hit_and_hide=forbidden) w ")
    status, _, err = run(capsys, "turns", "4HPwATDgc/ABM!", "6-5")
    assert status == 2 and one_line_error(err)


def test_help_does_not_cite_a_file_the_user_lacks(capsys):
    for command in ("perft", "turns", "check", "board", "play", "rules", "crosscheck"):
        with pytest.raises(SystemExit):
            build_parser().parse_args([command, "--help"])
        out = capsys.readouterr().out
        assert "RULES.md" not in out
        assert "\n\n" in out.split("positional arguments")[0]  # a description under usage


# --------------------------------------------------------------------------- --version, prog, help

def test_version(capsys):
    status, out, _ = run(capsys, "--version")
    assert status == 0 and out == f"fastnardy {__version__}\n"


def test_usage_names_python_m_fastnardy_when_run_with_m():
    result = process("--help")
    assert result.returncode == 0 and result.stdout.startswith("usage: python -m fastnardy ")


def test_usage_names_the_console_script(tmp_path):
    script = tmp_path / "fastnardy"  # what pip writes for [project.scripts]
    script.write_text("import sys\nfrom fastnardy.cli import main\nsys.exit(main())\n")
    result = subprocess.run([sys.executable, str(script), "perft", "--help"],
                            capture_output=True, text=True, env=ENV, timeout=60)
    assert result.returncode == 0 and result.stdout.startswith("usage: fastnardy perft ")
    result = subprocess.run([sys.executable, str(script), "perft", "long", "-3"],
                            capture_output=True, text=True, env=ENV, timeout=60)
    assert result.returncode == 2
    assert result.stderr.startswith("fastnardy perft: error: ") and one_line_error(result.stderr)


def _subparsers() -> dict:
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return sub.choices


def test_every_argument_and_subcommand_has_help():
    parser = build_parser()
    parsers = {"": parser, **_subparsers()}
    for name, each in parsers.items():
        for action in each._actions:
            assert action.help, f"{name} {action.dest} has no help"
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert all(choice.help for choice in sub._choices_actions)


def test_the_table_size_help_says_the_threads_share_one_table():
    """Issue 70, item 13: ``--tt-mb`` said "per thread" where the count's threads share one
    table (fastnardy.counting: one PerftTable a call, each bucket under its own lock)."""
    (action,) = [a for a in _subparsers()["perft"]._actions if "--tt-mb" in a.option_strings]
    assert "shared by the count's threads" in action.help and "per thread" not in action.help


@pytest.mark.parametrize("command", sorted(_subparsers()))
def test_every_subcommand_has_help_output(capsys, command):
    status, out, _ = run(capsys, command, "--help")
    assert status == 0 and out.startswith(f"usage: python -m fastnardy {command} ")


@pytest.mark.parametrize("command", ["board", "check", "play", "bench", "check-game"])
def test_backend_is_only_where_it_does_something(command):
    options = {a for action in _subparsers()[command]._actions for a in action.option_strings}
    assert "--backend" not in options


@pytest.mark.parametrize("argv", [["turns", "short", "6", "4"], ["perft", "long", "2"]])
def test_the_reference_backend_gives_the_same_output(capsys, argv):
    """The command line's door to the reference (its perft counts at every depth are
    tests/rules/test_perft.py's)."""
    kernel = run(capsys, *argv, "--json")
    reference = run(capsys, *argv, "--json", "--backend", "reference")
    assert kernel[0] == reference[0] == 0
    key = "turns" if argv[0] == "turns" else "perft"
    counts = [[r.get("turn"), r.get("count")] for r in json.loads(kernel[1])[key]]
    assert counts == [[r.get("turn"), r.get("count")] for r in json.loads(reference[1])[key]]


# --------------------------------------------------------------------------- errors, pipes, Ctrl-C

@pytest.mark.parametrize("argv", [
    ["perft", "long x", "1"],
    ["turns", "long", "7", "1"],
    ["turns", "long", "6"],
    ["check", "nonsense", "6-5", "24/18"],
    ["check", "long", "0-5", "24/18"],
    ["check", "long", "6", "5"],
    ["board", "short w 24:16 24:15"],
    ["play", "long", "--seed", "-1"],
    ["play", "long", "--player", "smart"],      # not a setting
    ["play", "long", "--player", "net:4"],      # deeper than MAX_PLIES
    ["play", "long", "--player", "gnubg"],      # GNU Backgammon plays short nardy only
    ["play", "long", "--policy", "greedy"],     # --player replaced it
    ["match", "random", "greedy", "--games", "2", "--record", "game.txt"],  # no --to/--cube
    ["check-game"],
    [],
    ["frobnicate"],
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv):
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == "" and one_line_error(err)


def test_C7_a_match_to_1_point_plays_and_records_post_crawford_games(capsys, tmp_path):
    from fastnardy import Match

    record = tmp_path / "matches.txt"
    status, out, err = run(capsys, "match", "greedy", "greedy", "--game", "long", "--to",
                           "1", "--games", "4", "--record", str(record))
    assert status == 0 and err == "" and "4 matches to 1" in out
    match = Match.from_record(record.read_text())  # the first match
    assert match.length == 1 and match.is_over() and match.crawford_game is None


def test_the_double_dash_case_prints_no_traceback():
    result = process("perft", "long", "--", "--")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == "error: DEPTH is missing\n"


def test_a_closed_stdout_exits_141_quietly():
    child = subprocess.Popen([sys.executable, "-m", "fastnardy", "turns", "short", "6", "6"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    child.stdout.close()  # `| head` that has already exited
    err = child.stderr.read()
    assert child.wait(timeout=60) == 141 and err == b""


def test_ctrl_c_while_parsing_is_one_line_and_exit_130(capsys, monkeypatch):
    def interrupted(prog):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted)
    assert run(capsys, "turns", "long", "6", "5") == (130, "", "interrupted\n")


def test_ctrl_c_in_check_game_is_one_line_and_exit_130(capsys, monkeypatch, tmp_path):
    def interrupted(text, path, progress):
        raise KeyboardInterrupt

    path = tmp_path / "game.txt"
    path.write_text(Game("long", 1).record())
    monkeypatch.setattr(fastnardy.cli.turns, "iter_games", interrupted)
    assert run(capsys, "check-game", str(path)) == (130, "", "interrupted\n")


def _mat_of(games: int) -> str:
    """A .mat export of ``games`` one-turn games."""
    return " 0 point match\n" + "".join(
        f"\n Game {g}\n alice : 0                          bob : 0\n"
        f"  1) 31: 8/5 6/5                     64: 24/18 13/9\n" for g in range(1, games + 1))


def test_check_game_of_a_large_mat_shows_its_progress(capsys, tmp_path):
    """Issue 40 item 10: a .mat of many games ran minutes without a word. With --progress
    (the default on a terminal) stderr has a line over the characters read, the games
    replayed as they are read, redrawn a megabyte at a time and ending at the total;
    without it, nothing (stderr is not a terminal here)."""
    games = 12000
    path = tmp_path / "big.mat"
    path.write_text(_mat_of(games))
    size = len(path.read_text())
    status, out, err = run(capsys, "check-game", str(path), "--progress")
    assert status == 0 and out == f"{path}: {games} games, {2 * games} turns, all legal\n"
    drawn = [line.strip() for line in err.replace("\r", "\n").splitlines() if line.strip()]
    assert drawn[0].startswith(f"{path}: characters read: 1,048,")
    assert drawn[-1].startswith(f"{path}: characters read: {size:,}/{size:,}")
    assert len(drawn) == 2  # a megabyte at a time (1.3 MB)
    assert run(capsys, "check-game", str(path)) == (0, out, "")


def test_read_mat_reports_its_progress_in_characters_and_streams_its_games():
    from fastnardy.formats.mat import iter_mat, read_mat

    text = _mat_of(12000)
    seen = []
    assert len(read_mat(text, lambda done, total: seen.append((done, total)))) == 12000
    assert [total for _, total in seen] == [len(text)] * 2 and seen[-1][0] == len(text)
    games = iter_mat(text)
    assert next(games).number == 1 and next(games).number == 2  # read as they come
    assert [g.number for g in iter_mat(text[:text.index('\n Game 6001\n')])][-1] == 6000
    assert read_mat(text) == list(iter_mat(text))


def test_ctrl_c_at_the_play_prompt_is_one_line_and_exit_130():
    child = subprocess.Popen([sys.executable, "-m", "fastnardy", "play", "long", "--human",
                              "white", "--seed", "7", "--quiet"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV,
                             # Python's own Ctrl-C even where this test inherited SIGINT
                             # ignored (a background job of a non-interactive shell)
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    seen, deadline = b"", time.monotonic() + 30
    while b"q quits): " not in seen and time.monotonic() < deadline:
        seen += os.read(child.stdout.fileno(), 4096)
    assert b"q quits): " in seen
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=30)
    assert child.returncode == 130 and err == b"interrupted\n" and b"Traceback" not in out


# --------------------------------------------------------------------------- turns, check, board

@pytest.mark.parametrize("dice", [["6", "5"], ["6-5"], ["65"]])
def test_turns_text_is_one_turn_a_line_T2(capsys, dice):
    assert run(capsys, "turns", "long", *dice) == (0, "24/18 18/13\n", "")


def test_turns_json_T1(capsys):
    status, out, _ = run(capsys, "turns", "long", "3", "3", "--json")
    document = json.loads(out)
    turns = Position.start("long").legal_turns((3, 3))
    assert status == 0 and document["position"] == START and document["dice"] == [3, 3]
    assert document["turns"] == [
        {"turn": str(turn), "steps": [list(step) for step in turn.steps],
         "position": turn.position.to_string()} for turn in turns]


@pytest.mark.parametrize("argv", [
    [START, "6", "5", "24/19 19/13"],
    [START, "6-5", "24/19 19/13"],
    ["long", "65", "24/19", "19/13"],
    ["long", "6", "5", "24/18/13"],
])
def test_check_a_legal_turn_prints_it_normalised_T2(capsys, argv):
    assert run(capsys, "check", *argv) == (0, "24/18 18/13\n", "")


def test_check_an_illegal_turn_names_the_rule_L5(capsys):
    status, out, err = run(capsys, "check", "long", "4-2", "24/20 24/22")
    assert (status, err) == (1, "")
    assert out == "L5: a second checker may not leave the head this turn (step 2, 24/22)\n"


def test_check_applies_the_rule_options_L5(capsys):
    # seeds example 3: after white's 5-5, black's 4-4 takes two head checkers under classic only
    position = "long b 24:14,4:1 24:15"
    assert run(capsys, "check", position, "4-4", "24/20 24/20")[0] == 0
    status, out, _ = run(capsys, "check", position, "4-4", "24/20 24/20",
                         "--head-rule", "tournament")
    assert status == 1 and out.startswith("L5: ")


def test_check_unreadable_notation_is_bad_input_not_an_illegal_turn_T1(capsys):
    status, out, err = run(capsys, "check", "long", "6-5", "24/x")
    assert status == 2 and out == "" and err.startswith("error: T1: cannot read point 'x'")


def test_check_reads_one_checker_over_both_dice_S4(capsys):
    status, out, _ = run(capsys, "check", "short", "6-5", "24/13")
    assert status == 0 and out == "24/18 18/13\n"


def test_check_a_pass_T3(capsys):
    assert run(capsys, "check", "long w 24:1 6:1", "6-6", "pass") == (0, "pass\n", "")
    status, out, _ = run(capsys, "check", "long", "6-5", "pass")
    assert status == 1 and out.startswith("L7: ")


def test_check_json(capsys):
    status, out, _ = run(capsys, "check", "long", "6-5", "24/19 19/13", "--json")
    assert status == 0 and json.loads(out) == {
        "legal": True, "turn": "24/18 18/13", "steps": [[24, 18, False], [18, 13, False]],
        "position": "long b 24:14,13:1 24:15"}
    status, out, _ = run(capsys, "check", "long", "4-2", "24/20 24/22", "--json")
    assert status == 1 and json.loads(out) == {
        "legal": False, "rule": "L5", "step": 2,
        "message": "a second checker may not leave the head this turn (step 2, 24/22)"}


def test_board_text_and_json(capsys):
    status, out, _ = run(capsys, "board", "short")
    assert status == 0 and out == (f"{Position.start('short')}\n"
                                   f"xgid: XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10\n"
                                   f"gnubg_ids: 4HPwATDgc/ABMA:cAkAAAAAAAAA\n")
    status, out, _ = run(capsys, "board", "short", "--json")
    document = json.loads(out)
    assert document["position"] == SHORT_START and document["gnubg_id"] == "4HPwATDgc/ABMA"
    assert document["white_points"][5] == 5 and document["black_off"] == 0
    status, out, _ = run(capsys, "board", START, "--head-rule", "tournament", "--json")
    assert json.loads(out)["position"] == "long(head_rule=tournament) w 24:15 24:15"
    assert "gnubg_id" not in json.loads(out)


# --------------------------------------------------------------------------- play

def test_self_play_repeats_with_its_seed(capsys):
    first = run(capsys, "play", "long", "--seed", "7", "--turns", "8", "--quiet")
    again = run(capsys, "play", "long", "--seed", "7", "--turns", "8", "--quiet")
    other = run(capsys, "play", "long", "--seed", "8", "--turns", "8", "--quiet")
    assert first == again and first[1] != other[1] and first[0] == 0
    lines = first[1].splitlines()
    assert lines[0].startswith("opening throw: ") and len(lines) == 10
    assert [line.split(".")[0] for line in lines[1:9]] == [str(n) for n in range(1, 9)]
    assert lines[-1].startswith("stopped after 8 turns: long ")


def test_self_play_prints_the_boards(capsys):
    status, out, _ = run(capsys, "play", "short", "--seed", "2", "--turns", "3")
    assert status == 0 and out.count("short nardy, ") == 4


def test_self_play_record_checks_clean_and_ends_the_game(capsys, tmp_path):
    path = tmp_path / "game.txt"
    status, out, _ = run(capsys, "play", "short", "--seed", "5", "--quiet", "--record", str(path))
    assert status == 0
    game = Game.from_record(path.read_text())
    outcome = game.outcome()
    assert out.splitlines()[-1].startswith(f"game over after {len(game.history)} turns: "
                                           f"{outcome.winner} wins {outcome.points} point")
    assert run(capsys, "check-game", str(path))[0] == 0


def test_play_from_a_position_string_L10(capsys):
    status, out, _ = run(capsys, "play", "long w 1:2 24:15", "--seed", "1", "--quiet")
    assert status == 0 and out.splitlines()[-1] == "game over after 1 turn: white wins 2 " \
                                                   "points, mars"


@pytest.mark.parametrize("spec", ["greedy", "net:0", "net:1:cubeless"])
def test_play_player_is_a_setting_whose_turns_the_game_plays_T1(capsys, tmp_path, spec):
    """--player SETTING: the computer is fastnardy.play.players.player(SETTING), the same
    player at every door: every turn of the recorded game is the one it chooses; a seed
    repeats the game, and the default random self-play is another game."""
    from fastnardy.play.players import player

    path = tmp_path / "game.txt"
    argv = ("play", "short", "--seed", "3", "--turns", "6", "--quiet")
    status, out, _ = run(capsys, *argv, "--player", spec, "--record", str(path))
    assert status == 0 and run(capsys, *argv, "--player", spec)[1] == out
    assert run(capsys, *argv)[1] != out  # random by default
    assert run(capsys, *argv)[1] == run(capsys, *argv, "--player", "random")[1]
    game = Game.from_record(path.read_text())
    assert len(game.history) == 6
    befores = [Position.opening(game.rules, *game.opening)[0]]
    befores += [turn.position for _, turn in game.history]
    with player(spec, game.rules) as computer:
        for before, (roll, turn) in zip(befores, game.history):
            assert computer.turn(before, roll) == turn


def test_a_person_plays_through_stdin():
    result = process("play", "long", "--human", "white", "--seed", "7", "--quiet",
                     input="?\nnonsense\n1\nq\n")
    lines = result.stdout.splitlines()
    assert result.returncode == 0 and result.stderr == ""
    assert any(line.strip().startswith("1) ") for line in lines)
    assert "\ncannot read: T1: cannot read point 'nonsense'" in result.stdout
    assert any(line.startswith("1. white ") for line in lines)
    assert any(line.startswith("2. black ") for line in lines)  # the policy's reply
    assert lines[-1] == "quit"


# --------------------------------------------------------------------------- bench

@pytest.fixture
def quick_bench(monkeypatch):
    monkeypatch.setattr(speed, "PERFT_DEPTH", {"long": 2, "short": 1})
    monkeypatch.setattr(speed, "SAMPLE_SIZE", 10)
    monkeypatch.setattr(speed, "SELFPLAY_GAMES", 5)
    short = speed.gnubg_positions()[::200]  # 10 of the 2,000
    monkeypatch.setattr(speed, "gnubg_positions", lambda: short)


def test_bench_json(capsys, quick_bench):
    status, out, _ = run(capsys, "bench", "--seconds", "0", "--json")
    document = json.loads(out)
    assert status == 0 and document["version"] == __version__
    levels = len(speed.LEVELS)
    assert [(t["game"], t["work"]) for t in document["timings"]] == [
        *[("long", 210)] * levels, ("long", 484), ("long", 5),
        *[("short", 210)] * levels, ("short", 447), ("short", 5)]
    assert all(t["per_second"] > 0 for t in document["timings"])


def test_bench_text(capsys, quick_bench):
    status, out, _ = run(capsys, "bench", "--seconds", "0")
    lines = out.splitlines()
    levels = len(speed.LEVELS)
    assert status == 0 and len(lines) == 2 * (levels + 2) + 1
    assert lines[levels].startswith("long   perft(2) from the start          484 nodes in ")
    assert lines[levels + 1].startswith("long   simulate, random                 5 games in ")
    assert "bench/speed/peers.py" in lines[-1]


@pytest.mark.parametrize("seconds", ["-1", "x", "7200"])
def test_bench_seconds_must_be_sensible(capsys, seconds):
    status, _, err = run(capsys, "bench", "--seconds", seconds)
    assert status == 2 and one_line_error(err)
