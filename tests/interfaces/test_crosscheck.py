"""fastnardy.engines.crosscheck: the protocol, the walk (perft counts and --movegen), the reports,
the exit codes and engine failures, against the reference adapter
(``python -m fastnardy.engines.reference``, whole and broken in each rule), small fake
engines and hostile ones (each must end by its deadline with the documented EngineError and
leave no process of its group behind)."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from fastnardy import EngineError, FastNardyError, Position
from fastnardy.engines import crosscheck as xc
from fastnardy.cli import main
from fastnardy.cli.crosscheck import SHOWN
from fastnardy.notation import decode_position_id, parse_position

REFERENCE = [sys.executable, "-m", "fastnardy.engines.reference"]
SHORT_START = "short w 24:2,13:5,8:3,6:5 24:2,13:5,8:3,6:5"


def engine_script(tmp_path: Path, body: str) -> list:
    """A fake engine: a Python script reading requests on stdin."""
    script = tmp_path / "engine.py"
    script.write_text(textwrap.dedent(body))
    return [sys.executable, str(script)]


def cli(capsys, *argv: str) -> tuple:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


# --------------------------------------------------------------------------- agreement

def test_the_reference_agrees_at_depth_2_long_T5():
    with xc.ProcessEngine(REFERENCE) as engine:
        assert xc.crosscheck(engine, Position.start("long"), 2) is None
        assert engine.requests == 21  # one divide per roll at the root: every count agreed


def test_the_reference_agrees_over_gnubg_ids_and_one_shot_T1():
    with xc.ProcessEngine(REFERENCE, "gnubg") as engine:
        assert xc.crosscheck(engine, Position.start("short"), 1) is None
    one_shot = xc.OneShotEngine(REFERENCE + ["--one-shot"], "string")
    position = Position.from_string("short w 6:3 1:2")
    with xc.ProcessEngine(REFERENCE) as engine:  # one process a request: two requests only
        for roll in ((6, 6), (2, 1)):
            assert one_shot.divide(position, roll, 2) == engine.divide(position, roll, 2)
    assert one_shot.requests == 2


# --------------------------------------------------------------------------- broken engines

BROKEN = [
    ("L3", "long w 24:15 24:15"),
    ("L4", "long w 24:15 24:15"),
    ("L5", "long w 24:15 24:15"),
    ("L6", "long w 24:10,18:1,17:1,16:1,15:1,14:1 24:15"),
    ("L7", "long w 24:15 24:15"),
    ("L8", "long w 10:1,3:14 24:15"),
    ("S3", SHORT_START),
    ("S4", SHORT_START),
    ("S5", "short w bar:1,13:5,8:3,6:6 24:2,13:5,8:3,6:5"),
    ("S6", SHORT_START),
    ("S7", "short w 10:1,3:14 24:2,13:5,8:3,6:5"),
    ("S8", "short(hit_and_hide=forbidden) w 13:2,8:2,7:2,6:9 24:14,15:1"),
]


@pytest.mark.parametrize("rule, position", BROKEN, ids=[rule for rule, _ in BROKEN])
def test_a_reference_broken_in_one_rule_is_caught_and_named(rule, position):
    with xc.ProcessEngine(REFERENCE + ["--break", rule]) as engine:
        found = xc.crosscheck(engine, Position.from_string(position), 1)
    assert found is not None and found.extra
    assert {extra.rule for extra in found.extra} == {rule}
    assert found.path == () and found.depth == 1
    for extra in found.extra:  # steps that reach the child, except where no steps do (L4)
        assert extra.reason and bool(extra.steps) == (rule not in ("L4", "S4"))


def test_a_difference_below_the_root_is_found_by_counts_and_walked_to_S5():
    # black's blot on its 24 (white's 1) can be hit by white's 6-6 (7/1*); then black's 6-6
    # cannot enter (S5) and must pass
    root = Position.from_string("short w 24:2,13:5,8:3,6:5 24:1,13:5,8:3,6:5,5:1")
    with xc.ProcessEngine(REFERENCE + ["--break", "S5"]) as engine:
        found = xc.crosscheck(engine, root, 2)
    assert found is not None and found.depth == 1 and found.roll == (6, 6)
    (roll, turn), = found.path
    assert roll == (6, 6) and turn.position == found.position and found.position.black_bar
    assert [str(t) for t in found.missing] == ["pass"]
    assert {extra.rule for extra in found.extra} == {"S5"}
    assert all(Position.from_string(extra.position) for extra in found.extra)
    report = found.report()
    assert f"path: 6-6 {turn}" in report and "missing: pass" in report and "S5: " in report
    document = found.as_dict()
    assert document["path"][0]["position"] == found.position.to_string()
    assert json.loads(json.dumps(document)) == document


def test_the_engines_steps_name_the_rule_without_a_search_L5():
    with xc.ProcessEngine(REFERENCE + ["--break", "L5", "--steps"]) as engine:
        found = xc.crosscheck(engine, Position.start("long"), 1)
    assert found is not None
    assert [(e.rule, e.steps) for e in found.extra] == [("L5", "24/18 24/18 24/18 24/18")]


def test_explain_names_the_rule_of_an_illegal_child_L6_L4():
    start = Position.start("long")
    extra = xc.explain(start, (6, 5), "long b 24:13,18:1,19:1 24:15")
    assert extra.rule == "L5" and extra.steps == "24/18 24/19"
    nowhere = xc.explain(start, (6, 5), "long b 24:14,10:1 24:15")
    assert nowhere.rule == "L4" and nowhere.steps == ""
    with pytest.raises(FastNardyError, match="legal turn"):
        xc.explain(start, (6, 5), start.legal_turns((6, 5))[0].position.to_string())


# --------------------------------------------------------------------------- fake engines

def test_duplicate_children_are_reported_not_counted_twice(tmp_path):
    # an engine listing every child twice, as bkgm does on some races
    command = engine_script(tmp_path, """
        import subprocess, sys
        ref = subprocess.Popen([sys.executable, "-m", "fastnardy.engines.reference"],
                               stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True, bufsize=1)
        for request in sys.stdin:
            ref.stdin.write(request); ref.stdin.flush()
            if request.strip() == "quit":
                break
            lines = []
            for line in iter(ref.stdout.readline, "end\\n"):
                lines.append(line)
            print("".join(lines + lines[:1]) + "end", flush=True)
    """)
    with xc.ProcessEngine(command) as engine:
        found = xc.crosscheck(engine, Position.start("long"), 1)
    assert found is not None and not found.missing and not found.extra
    assert found.duplicates == (("long b 24:13,18:2 24:15", 2),)
    assert "listed 2 times: long b 24:13,18:2 24:15" in found.report()


def test_a_wrong_count_with_agreeing_children_is_reported(tmp_path):
    command = engine_script(tmp_path, """
        import subprocess, sys
        ref = subprocess.Popen([sys.executable, "-m", "fastnardy.engines.reference"],
                               stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True, bufsize=1)
        for request in sys.stdin:
            ref.stdin.write(request); ref.stdin.flush()
            if request.strip() == "quit":
                break
            for line in iter(ref.stdout.readline, "end\\n"):
                count, child = line.split(" ", 1)
                print(int(count) + (request.split()[1] == "2"), child, end="")
            print("end", flush=True)
    """)
    with xc.ProcessEngine(command) as engine:
        found = xc.crosscheck(engine, Position.start("long"), 2)
    assert found is not None and found.counts and found.roll == (6, 6)
    (turn, ours, theirs), = found.counts
    assert theirs == ours + 1 and str(turn) == "24/18 24/18"


@pytest.mark.parametrize("body, message", [
    ("import sys\nsys.stdin.readline()\nsys.exit(3)\n", "exited while answering .*status 3"),
    ("import sys\nsys.stdin.readline()\nprint('garbage here', flush=True)\nprint('end')\n",
     "does not read: 'garbage here'"),
    ("import sys\nsys.stdin.readline()\nprint('1 long b 24:14,99:1 24:15\\nend', flush=True)\n",
     "child that does not read"),
    ("import sys\nsys.stdin.readline()\nprint('1 long w 24:14,18:1 24:15\\nend', flush=True)\n",
     "white to move after white's turn"),
    ("import sys\nsys.stdin.readline()\nprint('error no such position', flush=True)\n",
     "with 'error no such position'"),
    ("import sys\nsys.stdin.readline()\nsys.stderr.write('boom\\n')\nraise SystemExit(1)\n",
     "last stderr line: 'boom'"),
    ("import sys, time\nsys.stdin.readline()\ntime.sleep(30)\n", "did not answer .* within"),
    ("import sys\nsys.stdin.readline()\nprint('1 ' + 'x' * 5000, flush=True)\n",
     "longer than 4096"),
])
def test_engine_failures_are_engine_errors_naming_the_line(tmp_path, body, message):
    command = engine_script(tmp_path, body)
    with pytest.raises(EngineError, match=message):
        with xc.ProcessEngine(command, timeout=1.5) as engine:
            xc.crosscheck(engine, Position.start("long"), 1)


def test_one_shot_engine_failures(tmp_path):
    failing = engine_script(tmp_path, "import sys\nprint('nonsense')\nsys.exit(4)\n")
    with pytest.raises(EngineError, match="exited with status 4"):
        xc.crosscheck(xc.OneShotEngine(failing), Position.start("long"), 1)
    slow = engine_script(tmp_path, "import time\ntime.sleep(30)\n")
    with pytest.raises(EngineError, match="within"):
        xc.crosscheck(xc.OneShotEngine(slow, timeout=1), Position.start("long"), 1)
    with pytest.raises(EngineError, match="cannot start"):
        xc.OneShotEngine(["/nonexistent/engine"]).divide(Position.start("long"), (6, 5), 1)


@pytest.mark.parametrize("call", [
    lambda: xc.ProcessEngine(""),
    lambda: xc.ProcessEngine("'unclosed"),
    lambda: xc.ProcessEngine(5),
    lambda: xc.ProcessEngine(REFERENCE, format="fen"),
    lambda: xc.ProcessEngine(REFERENCE, timeout=0),
    lambda: xc.ProcessEngine(REFERENCE, timeout=True),
    lambda: xc.OneShotEngine(REFERENCE, timeout=-1),
    lambda: xc.crosscheck(None, Position.start("long"), 1),
    lambda: xc.crosscheck(xc.OneShotEngine(REFERENCE), "long", 1),
    lambda: xc.crosscheck(xc.OneShotEngine(REFERENCE), Position.start("long"), 0),
    lambda: xc.crosscheck(xc.OneShotEngine(REFERENCE, "gnubg"), Position.start("long"), 1),
])
def test_bad_arguments_are_documented_errors(call):
    with pytest.raises(FastNardyError):
        call()


# --------------------------------------------------------------------------- command line

def test_cli_exit_codes_0_1_2(capsys, tmp_path):
    engine = " ".join(f"'{word}'" for word in REFERENCE)
    status, out, err = cli(capsys, "crosscheck", engine, "short w 6:3 1:2", "2")
    assert status == 0 and out.startswith("agree: 21 requests") and err == ""
    status, out, _ = cli(capsys, "crosscheck", engine + " --break L7", "long", "1")
    assert status == 1 and out.startswith("difference at long w 24:15 24:15, roll 6-6")
    assert "L7: a play using both dice exists" in out
    status, out, _ = cli(capsys, "crosscheck", engine + " --break S3", "4HPwATDgc/ABMA", "1",
                         "--json")
    document = json.loads(out)
    assert status == 1 and document["format"] == "gnubg" and not document["agree"]
    assert {e["rule"] for e in document["difference"]["extra"]} == {"S3"}
    crash = " ".join(engine_script(tmp_path, "import sys\nsys.stdin.readline()\nsys.exit(3)\n"))
    status, out, err = cli(capsys, "crosscheck", crash, "long", "1")
    assert status == 2 and out == "" and err.startswith("error: the engine ")
    assert err.count("\n") == 1
    status, _, err = cli(capsys, "crosscheck", engine, "long", "0")
    assert status == 2 and err.count("\n") == 1
    status, _, err = cli(capsys, "crosscheck", engine, "long", "1", "--format", "gnubg")
    assert status == 2 and "short nardy only" in err


BROKEN_S3 = " ".join(f"'{word}'" for word in REFERENCE) + " --break S3"


def test_one_broken_rule_is_one_summary_line_and_a_bounded_text(capsys):
    """Issue 70 item 14: an engine broken in S3 lists 17 illegal turns at the start's 6-6;
    the text began with no summary and printed 20 lines, one per turn."""
    status, out, _ = cli(capsys, "crosscheck", BROKEN_S3, SHORT_START, "1")
    lines = out.splitlines()
    assert status == 1 and lines[0] == (f"difference at {SHORT_START}, roll 6-6, depth 1: the "
                                        f"engine lists 17 illegal turns (S3)")
    assert len(lines) == 3 + SHOWN + 1 and lines[-1] == "extra: 14 more (--json lists every one)"


def test_the_json_writes_every_extra_turns_board_T7(capsys):
    """Issue 70 item 14: an extra turn's ``position`` was empty where T7 refuses its board
    (two colours on one point); it is the board as the engine gave it."""
    status, out, _ = cli(capsys, "crosscheck", BROKEN_S3, SHORT_START, "1", "--json")
    extra = json.loads(out)["difference"]["extra"]
    assert status == 1 and len(extra) == 17
    refused = 0
    for each in extra:  # every board written, the illegal ones as the engine gave them
        _, turn, white, white_bar, black, black_bar = parse_position(each["position"])
        assert turn == "black" and (black, black_bar, white, white_bar) == \
            decode_position_id(each["child"])
        try:
            Position.from_string(each["position"])
        except FastNardyError as error:
            assert "holds both white and black" in str(error)
            refused += 1
    assert refused == 14  # 14 of the 17 leave a checker on a point the opponent holds


def test_a_summary_tallies_the_rules_and_report_takes_a_bound():
    with xc.ProcessEngine(REFERENCE + ["--break", "S4"]) as engine:
        found = xc.crosscheck(engine, Position.from_string(SHORT_START), 1)
    assert found.summary().endswith(": the engine misses 10 legal turns (S4) and lists 14 "
                                    "illegal turns (S4)")
    full, short = found.report().splitlines(), found.report(2).splitlines()
    assert len(full) == 3 + 10 + 14 and full[0] == found.summary()
    assert short[3:5] == full[3:5] and short[5] == "missing: 8 more (--json lists every one)"
    assert short[-1] == "extra: 12 more (--json lists every one)" and len(short) == 3 + 3 + 3
    for bad in (0, -1, True, 2.0, "3"):
        with pytest.raises(FastNardyError, match="most must be"):
            found.report(bad)


# --------------------------------------------------------------------------- movegen, rules

def test_the_reference_agrees_at_depth_2_as_a_move_generator_T5():
    with xc.ProcessEngine(REFERENCE) as engine:
        assert xc.crosscheck(engine, Position.start("long"), 2, movegen=True) is None
        # the root's 21 rolls, then the 21 of each distinct child (22 children, 21 distinct:
        # 6-5 and 5-6 are one roll; a child met twice is asked once)
        assert engine.requests > 21 * 10
        assert xc.crosscheck(engine, Position.from_string("short w 6:3 1:2"), 2,
                             movegen=True) is None


def test_movegen_walks_a_break_that_shows_only_below_the_root_S5():
    root = Position.from_string("short w 24:2,13:5,8:3,6:5 24:1,13:5,8:3,6:5,5:1")
    with xc.ProcessEngine(REFERENCE + ["--break", "S5"], "gnubg") as engine:
        found = xc.crosscheck(engine, root, 2, movegen=True)
    assert found is not None and found.depth == 1 and len(found.path) == 1
    assert found.position.black_bar and {extra.rule for extra in found.extra} == {"S5"}
    assert [str(t) for t in found.missing] == ["pass"] and found.missing_rules == ("T3",)


HIDE = "short(hit_and_hide=forbidden) w 13:2,8:2,7:2,6:9 24:14,15:1"


def test_the_rules_travel_with_every_request_or_the_format_is_refused_S8():
    position = Position.from_string(HIDE)
    assert xc.default_format(position.rules) == "string"
    assert xc.default_format(Position.start("short").rules) == "gnubg"
    with pytest.raises(FastNardyError, match="cannot carry the rules short"):
        xc.crosscheck(xc.ProcessEngine(REFERENCE, "gnubg"), position, 1)
    with xc.ProcessEngine(REFERENCE) as engine:  # the string names hit_and_hide=forbidden
        assert xc.crosscheck(engine, position, 1) is None


def test_an_extra_turns_found_steps_keep_their_hit_marks_S8():
    with xc.ProcessEngine(REFERENCE + ["--break", "S8"]) as engine:
        found = xc.crosscheck(engine, Position.from_string(HIDE), 1)
    assert found is not None and found.extra
    assert all("*" in extra.steps for extra in found.extra)  # 15/9* hides on 9: S8


STRICT = [  # an engine that drops the turns whose steps match, where, and the rule named
    ("'/off' in steps", "short w 6:2,5:13 24:15", "S7"),
    ("steps.count('24/') >= 2", "long w 24:15 24:15", "L5"),
    ("steps.startswith('bar/')", "short w bar:1,13:5,8:3,6:6 24:2,13:5,8:3,6:5", "S5"),
    ("'*' in steps", "short w 24:2,13:5,8:3,6:5 24:1,13:5,8:3,6:5,5:1", "S3"),
]


@pytest.mark.parametrize("drop, position, rule", STRICT, ids=[r for _, _, r in STRICT])
def test_missing_turns_name_the_rule_they_depend_on(tmp_path, drop, position, rule):
    command = engine_script(tmp_path, f"""
        from fastnardy.engines import serve
        from fastnardy.engines.reference import divide

        def strict(depth, roll, position, as_id):
            lines = divide(depth, roll, position, as_id, True)
            return [line for line in lines
                    if not (lambda steps: {drop})(line.split(' | ')[1])]

        serve(strict)
    """)
    with xc.ProcessEngine(command, "string") as engine:
        found = xc.crosscheck(engine, Position.from_string(position), 1)
    assert found is not None and found.missing and not found.extra
    assert set(found.missing_rules) == {rule}
    assert f"(depends on {rule})" in found.report()
    assert {m["rule"] for m in found.as_dict()["missing"]} == {rule}


def test_random_positions_are_seeded_and_checked_by_the_cli(capsys):
    start = Position.start("short")
    first = list(xc.random_positions(start, 5, 3))
    assert first == list(xc.random_positions(start, 5, 3)) != list(
        xc.random_positions(start, 5, 4))
    assert not any(p.is_game_over() for p in first)
    engine = " ".join(f"'{word}'" for word in REFERENCE)
    status, out, _ = cli(capsys, "crosscheck", engine, "short", "1", "--random", "3",
                         "--seed", "2")
    assert status == 0 and "3 positions of random games from short w" in out
    status, out, _ = cli(capsys, "crosscheck", engine + " --break S6", "long", "1",
                         "--random", "20", "--seed", "2", "--json")
    document = json.loads(out)
    assert status == 1 and document["positions"] <= 20 and document["random"] == 20
    with pytest.raises(FastNardyError):
        xc.random_positions(start, 0, 1)


# --------------------------------------------------------------------------- hostile engines

def _group_alive(pgid: int) -> list:
    """The processes of group ``pgid`` that are not zombies (read from /proc), once SIGKILL
    has had up to 10 s to land (it is delivered when the process is next scheduled)."""
    for _ in range(200):
        alive = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if fields[0] not in ("Z", "X") and int(fields[2]) == pgid:
                alive.append(int(stat.parent.name))
        if not alive:
            break
        time.sleep(0.05)
    return alive


HOSTILE = {  # engine body after the request is read, the error, one-shot too
    "blank lines every 0.2 s": ("while True:\n    print(flush=True); time.sleep(0.2)\n",
                                "did not answer .* within 0.5 s"),
    "blank lines flat out": ("while True:\n    print(flush=True)\n",
                             "more than 10000 lines"),
    "a valid line every 0.3 s": ("while True:\n    print('1 long b 24:14,18:1 24:15', "
                                 "flush=True); time.sleep(0.3)\n",
                                 "did not answer .* within 0.5 s"),
    "forks, exits, its child holds stdout": (  # the keeper kills the child: EOF at once
        "if os.fork() == 0:\n    open(sys.argv[1] + '.child', 'w').write('forked')\n"
        "    time.sleep(60)\n"
        "while not os.path.exists(sys.argv[1] + '.child'):\n    time.sleep(0.01)\n",
        "exited while answering|with nothing"),
    "a huge line": ("while True:\n    sys.stdout.write('1' * 65536); sys.stdout.flush()\n",
                    "longer than 4096 bytes"),
    "megabytes of lines": ("while True:\n    sys.stdout.write(('1 ' + 'x' * 4000 + '\\n') "
                           "* 64); sys.stdout.flush()\n",
                           "more than 4194304 bytes"),
}


@pytest.mark.parametrize("one_shot", [False, True], ids=["process", "one-shot"])
@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_engines_end_by_the_deadline_leaving_no_process(tmp_path, name, one_shot):
    body, message = HOSTILE[name]
    pid_file = tmp_path / "engine.pid"
    read = "" if one_shot else "sys.stdin.readline()\n"
    command = engine_script(tmp_path, f"import os, sys, time\n"
                                      f"open(sys.argv[1], 'w').write(str(os.getpgid(0)))\n"
                                      f"{read}{body}") + [str(pid_file)]
    kind = xc.OneShotEngine if one_shot else xc.ProcessEngine
    engine = kind(command, timeout=0.5)
    with pytest.raises(EngineError, match=message):
        xc.crosscheck(engine, Position.start("long"), 1)  # no with: crosscheck closes it
    assert _group_alive(int(pid_file.read_text())) == []  # the forked child too
    assert Path(str(pid_file) + ".child").exists() == name.startswith("forks")


def _alive(pid: int) -> bool:
    """Whether process ``pid`` is there and not a zombie, once SIGKILL has had up to 10 s."""
    for _ in range(200):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return False
        if state in ("Z", "X"):
            return False
        time.sleep(0.05)
    return True


SETSID = {  # engine body after the request is read: a process out of the engine's group
    "a child calls setsid(), the engine hangs": (
        "child = os.fork()\nif child == 0:\n    os.setsid(); time.sleep(60); os._exit(0)\n"
        "open(sys.argv[1], 'w').write(str(child))\ntime.sleep(60)\n",
        "did not answer .* within 0.5 s"),
    "a daemon (fork, setsid, fork), the engine exits": (
        "if os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
        "        open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(60)\n"
        "    os._exit(0)\n"
        "while not os.path.exists(sys.argv[1]):\n    time.sleep(0.01)\n",
        "exited while answering|with nothing"),
}


@pytest.mark.parametrize("one_shot", [False, True], ids=["process", "one-shot"])
@pytest.mark.parametrize("name", list(SETSID))
def test_nothing_an_engine_forks_outlives_it_setsid_and_daemons_too(tmp_path, name, one_shot):
    """Issue 40 item 10: a child that left the engine's process group (setsid) survived the
    group kill, as did a daemon whose parent exited (reparented to init). The engine's
    keeper is the child subreaper of all it forks and kills them all."""
    body, message = SETSID[name]
    pid_file = tmp_path / "forked.pid"
    read = "" if one_shot else "sys.stdin.readline()\n"
    command = engine_script(tmp_path, f"import os, sys, time\n{read}{body}") + [str(pid_file)]
    kind = xc.OneShotEngine if one_shot else xc.ProcessEngine
    with pytest.raises(EngineError, match=message):
        xc.crosscheck(kind(command, timeout=0.5), Position.start("long"), 1)
    forked = int(pid_file.read_text())
    assert os.getpgid(0) != forked  # it had left every group of ours
    assert not _alive(forked)


def test_an_empty_one_shot_answer_without_end_is_an_engine_failure(capsys, tmp_path):
    command = engine_script(tmp_path, "pass\n")
    with pytest.raises(EngineError, match="with nothing"):
        xc.crosscheck(xc.OneShotEngine(command), Position.start("long"), 1)
    status, out, err = cli(capsys, "crosscheck", " ".join(command), "long", "1", "--one-shot")
    assert status == 2 and out == "" and "with nothing" in err


def test_ctrl_c_in_crosscheck_closes_the_engine_and_its_group(tmp_path):
    pid_file = tmp_path / "engine.pid"
    command = engine_script(tmp_path, "import os, sys, time\n"
                                      "open(sys.argv[1], 'w').write(str(os.getpgid(0)))\n"
                                      "sys.stdin.readline()\ntime.sleep(60)\n") + [str(pid_file)]
    engine = xc.ProcessEngine(command, timeout=30)

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.5)
    try:
        with pytest.raises(KeyboardInterrupt):
            xc.crosscheck(engine, Position.start("long"), 1)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert _group_alive(int(pid_file.read_text())) == []


# --------------------------------------------------------------------------- adapters

@pytest.mark.parametrize("argv, message", [
    (["fastnardy.engines.openspiel", "--shim", "/nonexistent/libosshim.so"],
     "OpenSpiel's position shim /nonexistent/libosshim.so is not installed"),
    (["fastnardy.engines.gnubg", "--gnubg", "/nonexistent/gnubg"],
     "GNU Backgammon \\(/nonexistent/gnubg\\) is not installed"),
])
def test_an_adapter_without_its_engine_exits_with_one_line(argv, message):
    done = subprocess.run([sys.executable, "-m", *argv], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert re.fullmatch(f"error: {message} \\(.*\\)\n", done.stderr)


OSSHIM = Path(os.environ.get("FASTNARDY_OSSHIM", Path(tempfile.gettempdir()) / "fastnardy-peers"
                             / "osshim" / "libosshim.so"))


@pytest.mark.skipif(not OSSHIM.exists(), reason="the peers kit's OpenSpiel shim "
                    "(osshim/libosshim.so, built by ../shared/peers/build.sh) is not here")
def test_openspiel_backgammon_agrees_at_depth_1_S1_T5():
    pytest.importorskip("pyspiel")
    command = [sys.executable, "-m", "fastnardy.engines.openspiel", "--shim", str(OSSHIM)]
    with xc.ProcessEngine(command, "gnubg") as engine:
        assert xc.crosscheck(engine, Position.start("short"), 1) is None
        middle = Position.from_string("short b bar:1,13:4,8:3,7:2,6:4 24:2,13:5,10:1,8:2,6:5")
        assert xc.crosscheck(engine, middle, 1) is None


GNUBG = shutil.which("gnubg") or "/usr/games/gnubg"
HIT_TWICE = "short w 24:2,13:5,8:3,6:5 18:2,13:4,8:2,7:1,6:5,2:1"  # 6-6: 24/18*(2)


@pytest.mark.skipif(not os.access(GNUBG, os.X_OK), reason="GNU Backgammon (Debian's gnubg) "
                    "is not installed")
def test_gnubg_through_its_hint_agrees_as_a_move_generator_S3():
    command = [sys.executable, "-m", "fastnardy.engines.gnubg", "--gnubg", GNUBG]
    with xc.ProcessEngine(command, "gnubg") as engine:
        assert xc.crosscheck(engine, Position.from_string(HIT_TWICE), 1, movegen=True) is None
        with pytest.raises(EngineError, match="divide 1 only"):
            xc.crosscheck(engine, Position.start("short"), 2)


@pytest.mark.skipif(importlib.util.find_spec("bgbot_cpp") is None,
                    reason="bgsage is not installed (pip install bgsage)")
def test_bgsage_agrees_as_a_move_generator_S1_S5():
    with xc.ProcessEngine([sys.executable, "-m", "fastnardy.engines.bgsage"]) as engine:
        for text in (HIT_TWICE, "short w bar:1,13:5,8:3,6:6 24:2,13:5,8:3,6:5"):
            assert xc.crosscheck(engine, Position.from_string(text), 1, movegen=True) is None
