"""The long runs people leave alone (issue 13): Ctrl-C stops perft on worker threads and
process pools, not only on the main thread; a checkpoint resumes an interrupted or killed
count with the same result and refuses another call's file; every file the command line
writes is written whole (a failed write leaves the old file and exits 2); a full stdout is
one line and exit 2; readers stop at their limit; a table larger than the memory is refused.

No wall-clock assertion: a stop must come within a generous bound (10 s) where the count
would take minutes, so a loaded machine passes and an ignored Ctrl-C fails; the latency
itself is measured by bench/speed/interrupt_latency.py."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from types import SimpleNamespace
from typing import Callable, List

import numpy as np
import pytest

from fastnardy import FastNardyError, Position, ResourceLimitError, Rules, _kernel, perft, simulate
from fastnardy import counting
from fastnardy.analysis import rollout
from fastnardy.batch import encode
from fastnardy.cli import main
from fastnardy._utils import files as _files
from fastnardy.cli.options import EXIT_INTERRUPTED
from fastnardy.counting import PerftProgress, available_memory
from fastnardy.play.gnubg import GNUBG
from fastnardy.search.network import Evaluator
from fastnardy.testing.speed import gnubg_positions
from fastnardy.training.labels import labels

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
LONG = Position.start("long")
GENEROUS = 10.0  # seconds: the bound a busy machine meets; the counts below take minutes


def _default_sigint() -> None:
    """Python's own Ctrl-C in a child, even where this test inherited SIGINT ignored (a
    background job of a non-interactive shell)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _interrupt_main_thread_after(seconds: float) -> threading.Timer:
    """A real SIGINT to this process's main thread, as Ctrl-C sends."""
    timer = threading.Timer(seconds, signal.pthread_kill,
                            (threading.main_thread().ident, signal.SIGINT))
    timer.start()
    return timer


def _interrupted_in_this_process(run: Callable[[], object], after: float) -> None:
    """``run`` sent a real SIGINT after ``after`` seconds: it raises KeyboardInterrupt (it
    does not end first), soon."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = _interrupt_main_thread_after(after)
    sent = time.monotonic() + after
    try:
        with pytest.raises(KeyboardInterrupt):
            run()
    finally:
        timer.cancel()  # a run that ended first fails here, not the next test by its signal
        signal.signal(signal.SIGINT, previous)
    assert time.monotonic() - sent < GENEROUS


def _worker_threads_end() -> None:
    """The ThreadPoolExecutor threads have ended (they are not left playing or counting)."""
    deadline = time.monotonic() + GENEROUS
    while any(t.name.startswith("ThreadPoolExecutor") for t in threading.enumerate()) \
            and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not any(t.name.startswith("ThreadPoolExecutor") for t in threading.enumerate())


def _cli_perft_interrupted(extra: List[str], settle: float) -> None:
    """``fastnardy perft long 6 --only --no-progress EXTRA``, sent SIGINT ``settle`` s after
    the count has begun (its first line printed: the interpreter, fastnardy and the kernel
    are loaded; a SIGINT during start-up ends Python by its own default, the -2 returncode
    seen before when a test slept a fixed 2 s on a busy machine): exit 130 with the one
    line ``interrupted``, no traceback."""
    child = subprocess.Popen([sys.executable, "-m", "fastnardy", "perft", "long", "6", "--only",
                              "--no-progress", *extra], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=ENV, preexec_fn=_default_sigint)
    try:
        first = child.stdout.readline()  # the position, printed just before perft starts
        assert first.startswith(b"long w")
        time.sleep(settle)
        child.send_signal(signal.SIGINT)
        sent = time.monotonic()
        out, err = child.communicate(timeout=60)
    finally:
        child.kill()
    assert time.monotonic() - sent < GENEROUS
    assert child.returncode == 130 and err == b"interrupted\n" and b"Traceback" not in out, \
        err[-500:]


@pytest.mark.parametrize("how", ["threads", "threads+table", "process pool"])
def test_ctrl_c_stops_perft_on_workers(how):
    """perft(long, 6) takes minutes on two cores; Ctrl-C ends the call, the threads' kernel
    calls stop (they poll the call's stop flag) and the process pool's workers end."""
    pool = ProcessPoolExecutor(2) if how == "process pool" else None
    if pool is not None:
        pool.submit(int).result()  # the workers are up before the clock starts
    _interrupted_in_this_process(lambda: perft(LONG, 6, workers=None if pool else 2,
                                               executor=pool,
                                               tt_mb=64 if how == "threads+table" else None),
                                 1.0)
    if pool is None:
        _worker_threads_end()
    else:
        deadline = time.monotonic() + GENEROUS
        while any(p.is_alive() for p in pool._processes.values()) \
                and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(p.is_alive() for p in pool._processes.values())
        pool.shutdown(wait=False)
    assert perft(LONG, 2, workers=2) == 484  # and perft works afterwards


def _python_evaluator(rows):
    """A plain callable, so that self-play returns to Python at every turn-step (policy 2),
    spending 10 ms of its thread's CPU on each: a chunk of 2,000 games takes seconds."""
    until = time.thread_time() + 0.01
    while time.thread_time() < until:
        pass
    return np.zeros(len(rows))


_python_evaluator.inputs = "rows"


@pytest.mark.parametrize("game, policy", [("short", "greedy"), ("long", "random"),
                                          ("long", "network"), ("long", "python")])
def test_ctrl_c_stops_self_play_on_worker_threads(game, policy):
    """Issue 40 item 6: simulate on two threads, interrupted: the KeyboardInterrupt comes,
    and the chunks running on the threads stop (they watch the run's Stop) instead of
    playing on: the process spends next to no CPU from the interrupt on. A chunk of the
    Python evaluator plays for seconds of CPU: left to finish, two would burn them."""
    chosen = (Evaluator.load(game) if policy == "network" else
              _python_evaluator if policy == "python" else policy)
    stopped: List[float] = []

    def run() -> None:
        try:
            simulate(game, 10 ** 8, 1, chosen, workers=2)
        finally:
            stopped.append(time.process_time())  # the CPU clock at the interrupt

    _interrupted_in_this_process(run, 1.0)
    _worker_threads_end()
    time.sleep(0.5)
    assert time.process_time() - stopped[0] < 0.3  # the Python evaluator's chunks: seconds


def test_worker_threads_queue_two_tasks_each_so_a_halt_has_little_to_cancel():
    """Issue 70, item 5: a rollout of 10^6 games on two threads queued all its 15,625
    chunks at once; Ctrl-C then waited 0.37-0.54 s for the waiters to be unhooked and
    every queued chunk cancelled. The threads now get two tasks each at a time: a caller
    that reads three results and stops has started at most three more."""
    from fastnardy._utils import executors

    started: List[int] = []

    def task(i: int) -> int:
        started.append(i)
        time.sleep(0.001)
        return i

    call = executors.Call(threading.Event)
    results = executors.completed(call, task, range(10_000), None, 2)
    read = [next(results) for _ in range(3)]
    time.sleep(0.2)  # threads left alone: before, they ran through the queue meanwhile
    results.close()
    assert len(read) == 3 and len(started) <= 3 + 2 * 2
    _worker_threads_end()


@pytest.mark.skipif(not Path(GNUBG).exists(), reason="GNU Backgammon (gnubg) is absent: "
                                                     "apt-get install gnubg")
@pytest.mark.parametrize("after", [0.02, 0.1, 0.2, 0.35])
def test_ctrl_c_while_gnubg_starts_leaves_no_gnubg_running(after):
    """Issue 70, item 5: Ctrl-C while gnubg started (about half a second) left a 72 MiB
    gnubg running for a minute or more (6 of 13 tries). Interrupted at any moment of its
    start, the player leaves no gnubg behind."""
    from fastnardy.play.gnubg import Gnubg

    def children() -> List[str]:
        listed = subprocess.run(["pgrep", "-P", str(os.getpid()), "gnubg"],
                                capture_output=True, text=True).stdout
        return listed.split()

    assert not children()
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = _interrupt_main_thread_after(after)
    try:
        Gnubg("gnubg:expert", processes=2).close()  # one that started before the signal
        time.sleep(GENEROUS)  # the signal comes here, if not during the start
    except KeyboardInterrupt:
        pass
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert not children()


def test_a_stop_set_by_another_thread_ends_the_kernel_calls_T5():
    """The kernel's Stop: a self-play of 10**7 long games on a thread (minutes) ends soon
    after another thread sets it; a call given a Stop already set does not start."""
    stop = _kernel.Stop()
    rules = Rules.long()
    outcome = []

    def play() -> None:
        try:
            _kernel.simulate_games(rules.code, *rules.kernel_scoring(), 1, 0, 10 ** 7, (0, 1),
                                   10000, stop)
            outcome.append("finished")
        except KeyboardInterrupt:
            outcome.append("stopped")

    thread = threading.Thread(target=play)
    thread.start()
    time.sleep(0.3)
    stop.set()
    thread.join(GENEROUS)
    assert outcome == ["stopped"] and stop.is_set()
    me, me_bar, opp, opp_bar = LONG.mover_frame()
    with pytest.raises(KeyboardInterrupt):
        _kernel.perft_count(rules.code, me, me_bar, opp, opp_bar, 7, False, None, False, stop)
    games = _kernel.GameBatch(rules.code, *rules.kernel_scoring(), 4, 0, (2, 2))
    games.start(np.arange(4), np.arange(4))
    with pytest.raises(KeyboardInterrupt):
        games.prepare(stop)
    assert len(games.prepare()[2]) == 4  # the games where they were, played on without it
    with pytest.raises(FastNardyError, match="stop must be a Stop or None"):
        _kernel.simulate_games(rules.code, *rules.kernel_scoring(), 1, 0, 1, (0, 0), 10, True)


def test_ctrl_c_quiets_the_dask_clients_logs_before_the_call_stops(capfd):
    """The command line's --dask (cli.options.dask_executor): from the moment Ctrl-C is
    pressed, before the call halts its work on the cluster (which makes the client report on
    it), every Dask and tornado logger is quiet, distributed.client's own too (its
    "Couldn't gather 1 keys, rescheduling" had come before perft's ``interrupted``); Python's
    handler is back afterwards."""
    import logging

    distributed = pytest.importorskip("distributed", reason="dask.distributed is not "
                                      "installed (pip install 'dask[distributed]')")
    from fastnardy.cli.options import dask_executor

    names = ("distributed", "distributed.client", "tornado.application")
    levels = {name: logging.getLogger(name).level for name in names}
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                      dashboard_address=None) as cluster:
            with pytest.raises(KeyboardInterrupt):
                with dask_executor(cluster.scheduler_address) as executor:
                    assert executor.submit(int, "7").result() == 7
                    assert logging.getLogger("distributed.client").isEnabledFor(logging.WARNING)
                    try:
                        signal.raise_signal(signal.SIGINT)
                    except KeyboardInterrupt:  # the library halts its call here
                        assert not any(logging.getLogger(name).isEnabledFor(logging.CRITICAL)
                                       for name in names)
                        logging.getLogger("distributed.client").warning(
                            "Couldn't gather 1 keys, rescheduling")
                        raise
            assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        assert "Couldn't gather" not in capfd.readouterr().err
    finally:
        signal.signal(signal.SIGINT, previous)
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)


def test_ctrl_c_stops_a_dask_cluster_too():
    """Issue 40 item 7: perft, self-play and (issue 39) a rollout and a trainer's labels (a
    network's and gnubg's) on a real Dask cluster (two worker processes), and the command
    line's perft --dask, interrupted: the call ends, and the subtasks
    running on the workers stop (every worker sets the Stops of the call's subtasks) and
    those queued end at once, so the workers' CPU afterwards is what an idle cluster
    spends; the cluster works on."""
    distributed = pytest.importorskip("distributed", reason="dask.distributed is not "
                                      "installed (pip install 'dask[distributed]')")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        executor = client.get_executor()
        assert perft(LONG, 2, executor=executor) == 484  # the workers are up

        def spent_in_3_seconds() -> float:
            """The busiest worker's CPU seconds in the next 3 s."""
            start = client.run(time.process_time)
            time.sleep(3.0)
            end = client.run(time.process_time)
            return max(end[w] - start[w] for w in end)

        idle = spent_in_3_seconds()
        for run in (lambda: _interrupted_in_this_process(
                        lambda: perft(LONG, 6, executor=executor), 1.5),
                    lambda: _interrupted_in_this_process(lambda: simulate(
                        "long", 10 ** 8, 1, "greedy", executor=executor), 1.5),
                    lambda: _interrupted_in_this_process(lambda: rollout(
                        Position.start("short"), None, 10 ** 6, executor=client), 1.5),
                    lambda: _interrupted_in_this_process(lambda: labels(
                        "short", np.repeat(encode([Position.start("short")]), 10 ** 6,
                                           axis=0), "net:1:full", executor=client), 1.5),
                    lambda: _cli_perft_interrupted(["--dask", cluster.scheduler_address], 1.5)):
            run()
            spent = spent_in_3_seconds()
            assert spent < idle + 0.5, (spent, idle)  # a busy worker: about 3.0
        if Path(GNUBG).exists():  # gnubg's labels: its processes on the workers are killed
            count = ["sh", "-c", "pgrep -c -P $PPID gnubg || true"]  # the worker's gnubg
            rows = encode(gnubg_positions())  # 2,000 distinct: none from gnubg's cache
            _interrupted_in_this_process(lambda: labels("short", rows, "gnubg:expert:2",
                                                        executor=client), 1.5)
            deadline = time.monotonic() + GENEROUS
            while time.monotonic() < deadline and any(
                    done.stdout.strip() != b"0" for done in client.run(
                        subprocess.run, count, capture_output=True).values()):
                time.sleep(0.1)
            assert all(done.stdout.strip() == b"0" for done in client.run(
                subprocess.run, count, capture_output=True).values())
        assert perft(LONG, 3, executor=executor) == perft(LONG, 3)


@pytest.mark.parametrize("after", [0.05, 0.1, 0.15, 0.25])
def test_ctrl_c_while_the_command_loads_is_one_line_and_exit_130(after):
    """Issue 70, item 5: Ctrl-C in the command's first tenths of a second (while Python
    imports fastnardy) printed a traceback of 8 to 28 lines and ended by the signal. The
    command's entry point (_fastnardy_command, outside the package) catches it too."""
    import _fastnardy_command

    script = Path(sys.executable).parent / "fastnardy"
    if not script.exists():
        pytest.skip(f"the fastnardy command is not installed beside {sys.executable}")
    assert "_fastnardy_command" in script.read_text()  # the installed entry point
    child = subprocess.Popen([str(script), "perft", "long", "6", "--only", "--no-progress"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV,
                             preexec_fn=_default_sigint)
    try:
        time.sleep(after)
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
    finally:
        child.kill()
    assert child.returncode == _fastnardy_command.EXIT_INTERRUPTED == EXIT_INTERRUPTED
    assert err == b"interrupted\n", err[-500:]


@pytest.mark.parametrize("extra", [[], ["--workers", "2"], ["--workers", "2", "--tt-mb", "64"]])
def test_the_command_line_stops_on_ctrl_c_with_one_line_and_exit_130(extra):
    _cli_perft_interrupted(extra, 0.5)


def test_the_td_trainer_stops_on_ctrl_c_with_one_line_and_exit_130(tmp_path):
    """examples/train_td.py: SIGINT once training has begun (its first progress line) ends
    it with ``interrupted`` and 130, no traceback."""
    script = Path(__file__).resolve().parents[2] / "examples" / "train_td.py"
    child = subprocess.Popen([sys.executable, str(script), "--game", "short", "--games",
                              "1000000", "--report", "0.1", "--out", str(tmp_path / "x.npz")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV,
                             preexec_fn=_default_sigint)
    try:
        assert child.stdout.readline()  # a progress line: training has begun
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=120)
    finally:
        child.kill()
    assert child.returncode == 130 and err == b"interrupted\n" and b"Traceback" not in out


# --------------------------------------------------------------------------- checkpoints

def _stop_after(n: int):
    def progress(p: PerftProgress) -> None:
        if p.done >= n:
            raise KeyboardInterrupt

    return progress


@pytest.mark.parametrize("workers", [None, 2])
def test_an_interrupted_checkpointed_count_resumes_with_the_same_count(tmp_path, workers):
    path = tmp_path / "long5.json"
    want = 2_411_418  # perft(long, 4)
    with pytest.raises(KeyboardInterrupt):
        perft(LONG, 4, workers=workers, checkpoint=path, progress=_stop_after(5))
    saved = json.loads(path.read_text())
    assert saved["position"] == LONG.to_string() and saved["depth"] == 4
    assert 5 <= len(saved["done"]) < 64
    seen = []
    assert perft(LONG, 4, workers=workers, checkpoint=path, progress=seen.append) == want
    assert seen[0].done > len(saved["done"])  # resumed: the saved subtasks were not recounted
    assert len(json.loads(path.read_text())["done"]) == seen[-1].total
    assert perft(LONG, 4, checkpoint=path) == want  # a finished checkpoint: at once


def test_a_killed_checkpointed_run_resumes_with_the_same_count(tmp_path):
    """The process dies (os._exit: no finally runs) after some subtasks; the checkpoint on
    disk is whole and the next run finishes the count."""
    path = tmp_path / "short3.json"
    script = ("import os\nfrom fastnardy import Position, perft\n"
              "def progress(p):\n    if p.done == 20: os._exit(9)\n"
              f"perft(Position.start('short'), 3, weighted=True, checkpoint={str(path)!r}, "
              "progress=progress)\n")
    assert subprocess.run([sys.executable, "-c", script], env=ENV, timeout=120).returncode == 9
    assert 1 <= len(json.loads(path.read_text())["done"]) <= 20
    short = Position.start("short")
    assert perft(short, 3, weighted=True, checkpoint=path) == perft(short, 3, weighted=True)


def test_a_checkpoint_of_another_call_is_refused(tmp_path):
    path = tmp_path / "c.json"
    perft(LONG, 3, checkpoint=path)
    for kwargs in ({"depth": 4}, {"weighted": True}):
        with pytest.raises(FastNardyError, match="belongs to perft\\(3\\)"):
            perft(LONG, kwargs.get("depth", 3), weighted=kwargs.get("weighted", False),
                  checkpoint=path)
    with pytest.raises(FastNardyError, match="belongs to"):
        perft(Position.start("short"), 3, checkpoint=path)
    path.write_text("{not json")
    with pytest.raises(FastNardyError, match="not a fastnardy perft checkpoint"):
        perft(LONG, 3, checkpoint=path)
    document = {"fastnardy_perft_checkpoint": 2, "position": LONG.to_string(), "depth": 3,
                "weighted": False, "parallelism": 1, "done": [["long w 24:15 24:15", 2, -5]]}
    path.write_text(json.dumps({**document, "sha256": counting._checksum(document)}))
    with pytest.raises(FastNardyError, match="does not read"):
        perft(LONG, 3, checkpoint=path)
    with pytest.raises(FastNardyError, match="checkpoint must name a file"):
        perft(LONG, 3, checkpoint=3)


def test_a_damaged_checkpoint_is_refused_not_counted_T5(tmp_path):
    """One stored count +1 (perft(short, 3) would be 116,154,994): the checksum does not
    match, the file is refused; a checkpoint from before checksums is refused too."""
    path = tmp_path / "short3.json"
    short = Position.start("short")
    with pytest.raises(KeyboardInterrupt):
        perft(short, 3, checkpoint=path, progress=_stop_after(3))
    saved = json.loads(path.read_text())
    saved["done"][0][2] += 1
    path.write_text(json.dumps(saved))
    with pytest.raises(FastNardyError, match="is damaged.*delete it to start afresh"):
        perft(short, 3, checkpoint=path)
    del saved["sha256"]
    saved["fastnardy_perft_checkpoint"] = 1
    path.write_text(json.dumps(saved))
    with pytest.raises(FastNardyError, match="without a checksum.*delete it to start afresh"):
        perft(short, 3, checkpoint=path)


def test_the_eta_after_a_resume_is_the_work_left_at_this_runs_rate(tmp_path, monkeypatch,
                                                                   capsys):
    """Issue 70 item 14: the ETA divided this run's seconds by every finished subtask, the
    checkpoint's too, so a run resumed with 160 of 166 done said 'ETA 0 s' where 5 were
    left at a second each. A clock that ticks a second a reading times this run."""
    path = tmp_path / "long4.json"
    with pytest.raises(KeyboardInterrupt):
        perft(LONG, 4, checkpoint=path, progress=_stop_after(160))
    ticks = iter(range(1_000))
    monkeypatch.setattr(counting, "time", SimpleNamespace(perf_counter=lambda: next(ticks),
                                                          monotonic=time.monotonic))
    main(["perft", "long", "4", "--only", "--checkpoint", str(path), "--progress"])
    lines = capsys.readouterr().err.split("\r")[1:]
    assert [line.split(", ")[0] for line in lines] == \
        [f"  perft(4): {done}/166 subtrees" for done in range(161, 167)]
    assert [re.search(r"ETA (\d+) s", line).group(1) for line in lines] == \
        ["5", "4", "3", "2", "1", "0"]
    seen: List[PerftProgress] = []
    perft(LONG, 4, checkpoint=path, progress=seen.append)  # finished: nothing to report
    assert seen == []
    again = tmp_path / "again.json"
    with pytest.raises(KeyboardInterrupt):
        perft(LONG, 4, checkpoint=again, progress=_stop_after(3))
    perft(LONG, 4, checkpoint=again, progress=seen.append)
    assert {p.resumed_subtasks for p in seen} == {3} and seen[0].done == 4


def test_the_command_line_resumes_a_checkpoint(tmp_path):
    path = tmp_path / "cli.json"
    args = [sys.executable, "-m", "fastnardy", "perft", "long", "4", "--only", "--workers", "2",
            "--checkpoint", str(path)]
    first = subprocess.run(args, capture_output=True, text=True, env=ENV, timeout=300)
    again = subprocess.run(args, capture_output=True, text=True, env=ENV, timeout=300)
    assert first.returncode == again.returncode == 0
    assert "2,411,418" in first.stdout and "2,411,418" in again.stdout
    # the resumed count's rate is of the nodes counted in this run: none
    assert "from the checkpoint" not in first.stdout
    assert "0.0 M nodes/s   2,411,418 nodes from the checkpoint" in again.stdout
    other = subprocess.run(args[:5] + ["3"] + args[6:], capture_output=True, text=True,
                           env=ENV, timeout=300)
    assert other.returncode == 2 and other.stderr.startswith("error: the checkpoint")
    assert other.stderr.count("\n") == 1
    divide = subprocess.run(args + ["--divide"], capture_output=True, text=True, env=ENV,
                            timeout=300)
    assert divide.returncode == 2 and divide.stderr.count("\n") == 1


# --------------------------------------------------------------------------- files

def _fastnardy_with_file_limit(limit: int, *argv: str) -> subprocess.CompletedProcess:
    """The command line with RLIMIT_FSIZE: a write past ``limit`` bytes fails (EFBIG)."""
    import resource

    def limit_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run([sys.executable, "-m", "fastnardy", *argv], capture_output=True,
                          text=True, env=ENV, timeout=120, preexec_fn=limit_files)


@pytest.mark.parametrize("option", ["--svg", "--record"])
def test_a_failed_write_leaves_the_old_file_whole_and_exits_2(tmp_path, option):
    path = tmp_path / "old.out"
    path.write_text("the old file\n")
    argv = (["board", "long", "--svg", str(path)] if option == "--svg" else
            ["play", "short", "--seed", "3", "--quiet", "--record", str(path)])
    result = _fastnardy_with_file_limit(1000, *argv)
    assert result.returncode == 2 and result.stderr.startswith(f"error: cannot write {path}")
    assert result.stderr.count("\n") == 1
    assert path.read_text() == "the old file\n"
    assert os.listdir(tmp_path) == ["old.out"]  # no temporary file left behind
    fine = _fastnardy_with_file_limit(10 ** 7, *argv)
    assert fine.returncode == 0 and path.read_text() != "the old file\n"


def test_write_whole_keeps_the_mode_of_the_file_it_replaces(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"old")
    os.chmod(path, 0o640)
    _files.write_whole(path, b"new")
    assert path.read_bytes() == b"new" and os.stat(path).st_mode & 0o777 == 0o640
    with pytest.raises(FastNardyError, match="cannot write"):
        _files.write_whole(tmp_path / "no" / "such" / "folder", b"x")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_a_full_stdout_is_one_line_and_exit_2():
    with open("/dev/full", "w") as full:
        result = subprocess.run([sys.executable, "-m", "fastnardy", "turns", "short", "6-4"],
                                stdout=full, stderr=subprocess.PIPE, text=True, env=ENV,
                                timeout=60)
    assert result.returncode == 2
    assert result.stderr == "error: cannot write: No space left on device\n"


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_check_game_stops_reading_an_endless_stream():
    result = subprocess.run([sys.executable, "-m", "fastnardy", "check-game", "/dev/zero"],
                            capture_output=True, text=True, env=ENV, timeout=120)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == (f"/dev/zero: error: /dev/zero is larger than "
                             f"{_files.MAX_READ_BYTES:,} bytes, the limit of what fastnardy "
                             f"reads\n")


def test_read_text_refuses_more_than_its_limit_and_bad_utf8(tmp_path):
    path = tmp_path / "r"
    path.write_bytes(b"x" * 100)
    assert _files.read_text(path, limit=100) == "x" * 100
    with pytest.raises(FastNardyError, match="larger than"):
        _files.read_text(path, limit=99)
    path.write_bytes(b"\xff\xfe")
    with pytest.raises(FastNardyError, match="not UTF-8"):
        _files.read_text(path)


# --------------------------------------------------------------------------- memory

def test_a_table_larger_than_the_memory_is_refused_at_once():
    available = available_memory()
    assert available is not None and available > 0
    too_big = min(2 * available >> 20, 1 << 20)
    if too_big << 20 <= available:
        pytest.skip("this machine has more than the largest table (1 TB)")
    with pytest.raises(ResourceLimitError, match="memory available"):
        perft(LONG, 2, tt_mb=too_big)
    with pytest.raises(ResourceLimitError):
        perft(LONG, 3, tt_mb=too_big, workers=2)
