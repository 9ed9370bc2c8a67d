"""Threads and signals: the kernel is re-entrant from finalizers, threads give the serial
results, kernel calls release the GIL, and Ctrl-C stops a long kernel call (the command line's
Ctrl-C, on worker threads and processes too, is tests/interfaces/test_long_runs.py's). (Moved from
test_search_path.py.)"""

from __future__ import annotations

import gc
import os
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from fastnardy import ALL_ROLLS, FastNardyError, Position, _kernel, batch, perft


# ----------------------------------------------------------------- re-entrancy and threads

_SAMPLE = [Position.from_gnubg_id(pid) for pid in (
    "4HPwATDgc/ABMA", "v3sAAAhmdzMAAQ", "W3OgARjh7k4BAA", "380AADjcNgAAAA", "e2sCARhs254AAA")]


def _expected_turns():
    return {(i, roll): [(t.steps, t.position.key) for t in p.legal_turns(roll)]
            for i, p in enumerate(_SAMPLE) for roll in ALL_ROLLS}


def test_the_kernel_is_reentrant_from_finalizers():
    expected = _expected_turns()
    calls = []

    class Noisy:
        def __init__(self):
            self.me = self  # a cycle: freed by the collector, at an arbitrary moment

        def __del__(self):
            p = _SAMPLE[len(calls) % len(_SAMPLE)]
            calls.append((len(p.legal_turns((6, 6))), _kernel.count_turns(
                p.rules.code, *p.mover_frame(), 5, 5),
                len(_kernel.enumerate_turns(p.rules.code, *p.mover_frame(), 2, 1))))

    old = gc.get_threshold()
    gc.set_threshold(1)
    try:
        for _ in range(3):
            for (i, roll), want in expected.items():
                Noisy()
                position = _SAMPLE[i]
                got = [(t.steps, t.position.key) for t in position.legal_turns(roll)]
                raw = _kernel.enumerate_turns(position.rules.code, *position.mover_frame(), *roll)
                assert got == want and [r[0] for r in raw] == [s for s, _ in want]
    finally:
        gc.set_threshold(*old)
        gc.collect()
    assert len(calls) > 100


def test_threads_give_the_serial_results():
    rows = batch.encode(_SAMPLE * 40)
    dice = np.array([ALL_ROLLS[i % 21] for i in range(len(rows))])
    serial = (batch.count_turns("short", rows, dice), batch.expand("short", rows, dice),
              batch.chance_expand("short", rows, keys=True), perft(_SAMPLE[0], 2))
    expected = _expected_turns()

    def work(k):
        if k % 4 == 0:
            return batch.count_turns("short", rows, dice)
        if k % 4 == 1:
            return batch.expand("short", rows, dice)
        if k % 4 == 2:
            return batch.chance_expand("short", rows, keys=True)
        for (i, roll), want in expected.items():
            assert [(t.steps, t.position.key) for t in _SAMPLE[i].legal_turns(roll)] == want
        return perft(_SAMPLE[0], 2)

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(work, range(16)))
    for k, got in enumerate(results):
        want = serial[k % 4]
        if k % 4 == 0:
            assert np.array_equal(got, want)
        elif k % 4 == 3:
            assert got == want
        else:
            assert all(np.array_equal(a, b) for a, b in zip(got, want))


def test_kernel_calls_release_the_gil():
    """While one thread runs a long perft, another keeps running Python code."""
    done = threading.Event()
    ticks = []

    def count():
        while not done.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    ticker = threading.Thread(target=count)
    ticker.start()
    try:
        start = time.perf_counter()
        perft(Position.start("long"), 4)
        elapsed = time.perf_counter() - start
    finally:
        done.set()
        ticker.join()
    during = [t for t in ticks if start <= t <= start + elapsed]
    # with the GIL held the ticker would not run at all during the call (no time bound: a
    # loaded machine slows both alike)
    assert len(during) >= 10, "the ticker thread was starved: GIL held"


# ----------------------------------------------------------------- Ctrl-C

@pytest.mark.parametrize("call", ["perft", "count_turns", "chance_expand"])
def test_a_long_kernel_call_stops_on_keyboard_interrupt(call):
    """A real SIGINT (as Ctrl-C sends) during the call: KeyboardInterrupt from the call
    itself, not from after it. No wall-clock bound but a generous one (the latency is
    bench/speed/interrupt_latency.py's)."""
    long_start = Position.start("long")
    rows = np.tile(batch.encode(_SAMPLE), (600_000, 1))  # about a second of work
    work = {
        "perft": lambda: perft(long_start, 5),  # about ten seconds of work
        "count_turns": lambda: batch.count_turns("short", rows, (6, 6)),
        "chance_expand": lambda: batch.chance_expand("short", rows[:300_000], keys=True),
    }[call]
    main = threading.main_thread().ident
    timer = threading.Timer(0.3, signal.pthread_kill, (main, signal.SIGINT))
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    finished = False
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            work()
            finished = True  # the call ignored the interrupt (or ended before it came)
            time.sleep(30)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert not finished and time.monotonic() - start < 10
    assert perft(long_start, 2) == 484  # the kernel still works afterwards



def test_one_gamebatch_hammered_from_threads_refuses_or_works() -> None:
    """Issue 24 item 1: a GameBatch shared by threads either serves a call or refuses it
    with FastNardyError ("in use by another thread"); its buffers are never corrupted."""
    import threading

    import numpy as np

    from fastnardy import FastNardyError, Rules, _kernel

    rules = Rules.of("long")
    games = _kernel.GameBatch(rules.code, True, False, 3000, 1, (2, 2), 10000, True)
    games.start(np.arange(3000), np.arange(3000))
    refused: list = []
    broken: list = []

    def hammer() -> None:
        for _ in range(15):
            try:
                children, exact, waiting, offsets = games.prepare()
                if offsets[-1] != len(children) or len(exact) != len(children):
                    broken.append((offsets[-1], len(children)))
                games.play_choices(np.zeros(len(waiting), dtype=np.int64))
            except FastNardyError as error:
                if "in use" not in str(error) and "choices must be" not in str(error):
                    broken.append(error)
                refused.append(error)

    threads = [threading.Thread(target=hammer) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert broken == []
    keys, sides, dice, status = games.state()
    assert set(np.unique(status)) <= {0, 1}  # restart: every game running or waiting


def in_threads(work, count: int = 4) -> None:
    """Run ``work`` on ``count`` threads at once, to their ends."""
    threads = [threading.Thread(target=work) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


@pytest.mark.parametrize("actions", ["turns", "steps"])
def test_one_nardy_env_hammered_from_threads_refuses_or_works(actions) -> None:
    """docs/safety.md: a NardyEnv (either encoding) shared by 4 threads serves a call or
    refuses it with FastNardyError ("in use by another thread"); no other error escapes
    (issue 38: an AttributeError did in the step encoding)."""
    pytest.importorskip("gymnasium")
    from fastnardy import FastNardyError
    from fastnardy.envs.gymnasium import NardyEnv

    env = NardyEnv("short", actions=actions)
    env.reset(seed=3)
    broken: list = []

    def hammer() -> None:
        for _ in range(200):
            try:
                mask = env.action_masks()
                if not mask.any():
                    env.reset()
                    continue
                env.step(int(np.flatnonzero(mask)[0]))  # may be stale: scored illegal
            except FastNardyError as error:
                if "in use by another thread" not in str(error) and "reset" not in str(error):
                    broken.append(error)
            except Exception as error:  # anything else is a bug
                broken.append(error)

    in_threads(hammer)
    assert broken == [], broken[:3]


def test_one_nardy_aec_hammered_from_threads_refuses_or_works() -> None:
    pytest.importorskip("pettingzoo")
    from fastnardy import FastNardyError
    from fastnardy.envs.pettingzoo import NardyAEC

    env = NardyAEC("long", actions="steps")
    env.reset(seed=1)
    broken: list = []

    def hammer() -> None:
        for _ in range(200):
            try:
                agent = env.agent_selection
                if env.terminations[agent] or env.truncations[agent]:
                    env.reset()
                    continue
                mask = env.observe(agent)["action_mask"]
                env.step(int(np.flatnonzero(mask)[0]) if mask.any() else None)
            except FastNardyError as error:
                if "in use by another thread" not in str(error) and "reset" not in str(error):
                    broken.append(error)
            except (KeyError, IndexError, AttributeError, TypeError, ValueError) as error:
                broken.append(error)

    in_threads(hammer)
    assert broken == [], broken[:3]


@pytest.mark.parametrize("actions", ["turns", "steps"])
def test_one_vector_env_hammered_from_threads_refuses_or_works(actions) -> None:
    """Issue 38 item 6: VectorEnv and NardyVectorEnv (both encodings) shared by 4 threads
    serve a call or refuse it with FastNardyError; no other error escapes, and the games
    stay consistent (every mask allows a step, every count is a legal turn's)."""
    pytest.importorskip("gymnasium")
    from fastnardy import FastNardyError
    from fastnardy.envs.gymnasium import NardyVectorEnv
    from fastnardy.envs.vector import VectorEnv

    own = VectorEnv("long", 64, seed=2, actions=actions)
    gym = NardyVectorEnv("short", 64, actions=actions)
    own.reset()
    gym.reset(seed=2)
    broken: list = []
    rng = np.random.default_rng(0)

    def hammer() -> None:
        for _ in range(60):
            try:
                out = own.step(np.zeros(64, dtype=np.int64)) if actions == "turns" else None
                if actions == "steps":
                    mask = own._settle_steps().mask
                    own.step(np.argmax(mask * rng.random(mask.shape), axis=1))
                masks = gym.action_masks()
                if not masks.any(axis=1).all():
                    broken.append("a game of the gymnasium vector env waits with no action")
                gym.step(np.argmax(masks, axis=1))
                del out
            except FastNardyError as error:
                text = str(error)
                if "in use by another thread" not in text and "not an allowed step" not in text:
                    broken.append(error)
            except Exception as error:  # anything else is a bug
                broken.append(error)

    in_threads(hammer)
    assert broken == [], broken[:3]


def test_one_turn_in_progress_hammered_from_threads_refuses_or_works() -> None:
    """A TurnInProgress (its kernel PartialTurn) shared by threads: each call is served or
    refused with FastNardyError; a refused or stale step is an IllegalTurnError."""
    from fastnardy import FastNardyError, Position
    from fastnardy.envs.steps import TurnInProgress

    broken: list = []
    start = Position.start("long")

    def hammer() -> None:
        for _ in range(300):
            turn = shared[0]
            try:
                allowed = np.flatnonzero(turn.mask())
                if turn.done or not len(allowed):
                    shared[0] = TurnInProgress(start, (6, 6))
                    continue
                turn.play(int(allowed[0]))
            except FastNardyError as error:  # IllegalTurnError included: a stale mask
                if "in use by another thread" not in str(error) and "T1" not in str(error) \
                        and "L" not in str(error)[:2]:
                    broken.append(error)
            except Exception as error:
                broken.append(error)

    shared = [TurnInProgress(start, (6, 6))]
    in_threads(hammer)
    assert broken == [], broken[:3]


@pytest.mark.skipif(not os.path.exists("/usr/games/gnubg"),
                    reason="GNU Backgammon (Debian's gnubg) is absent: apt-get install gnubg")
@pytest.mark.parametrize("processes", [1, 2])
def test_gnubg_after_an_interrupted_request_answers_the_next_one(processes):
    """Issue 40 item 3: Ctrl-C during a 2-ply request of 400 rows left its answer in the
    FIFO, and every later call got the answer before its own (right shape, wrong numbers).
    Now the interrupted drivers are stopped and started again: the next answers are right."""
    from fastnardy import Rules
    from fastnardy.play.gnubg import Gnubg

    rules = Rules.of("short")
    start = batch.encode([Position.start("short")])
    children, _ = batch.expand(rules, start, np.array([[3, 1]]))
    many = np.tile(children, (40, 1))[:400]
    fresh = Gnubg("gnubg:expert", processes=1)
    player = Gnubg("gnubg:expert", processes=processes)
    try:
        expected = fresh.probabilities(start)
        main = threading.main_thread().ident
        timer = threading.Timer(0.5, signal.pthread_kill, (main, signal.SIGINT))
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        timer.start()
        try:
            with pytest.raises(KeyboardInterrupt):
                player.probabilities(many, plies=2)
                time.sleep(30)  # the request ended before the interrupt: wait for it
        finally:
            timer.cancel()
            signal.signal(signal.SIGINT, previous)
        for _ in range(3):
            np.testing.assert_array_equal(player.probabilities(start), expected)
    finally:
        fresh.close()
        player.close()


def _envs():
    """(name, env, its reset, one legal step, the method to interrupt) of every environment
    that holds games between calls."""
    from fastnardy.envs.vector import VectorEnv

    def vector(actions):
        env = VectorEnv("short", 8, actions=actions)
        last = [env.reset()]  # what the latest call returned

        def reset():
            last[0] = env.reset()

        def step():
            last[0] = env.step(np.zeros(8, int) if actions == "turns"
                               else last[0].mask.argmax(axis=1))

        return env, reset, step, "_settle" if actions == "turns" else "_settle_steps"

    cases = [("VectorEnv turns",) + vector("turns"), ("VectorEnv steps",) + vector("steps")]
    gymnasium = pytest.importorskip("fastnardy.envs.gymnasium", exc_type=ImportError)
    single = gymnasium.NardyEnv("short")
    single.reset(seed=1)
    cases.append(("NardyEnv", single, lambda: single.reset(seed=1),
                  lambda: single.step(int(single.action_masks().argmax())), "_report"))
    batch_env = gymnasium.NardyVectorEnv("short", 4)
    batch_env.reset(seed=1)
    cases.append(("NardyVectorEnv", batch_env, lambda: batch_env.reset(seed=1),
                  lambda: batch_env.step(batch_env.action_masks().argmax(axis=1)), "_settle"))
    pettingzoo = pytest.importorskip("fastnardy.envs.pettingzoo", exc_type=ImportError)
    aec = pettingzoo.NardyAEC("short")
    aec.reset(seed=1)
    cases.append(("NardyAEC", aec, lambda: aec.reset(seed=1), lambda: aec.step(int(
        aec.observe(aec.agent_selection)["action_mask"].argmax())), "_settle"))
    return cases


@pytest.mark.parametrize("index", range(5), ids=["VectorEnv turns", "VectorEnv steps",
                                                 "NardyEnv", "NardyVectorEnv", "NardyAEC"])
def test_after_ctrl_c_inside_a_step_the_env_says_so_until_reset(index, monkeypatch):
    """Issue 40 item 10: Ctrl-C inside step(), after the kernel played the action and before
    the call settled the games: the next step was refused with a misleading shape message
    (VectorEnv), or ran on the half-settled games. Now every call but reset() says the last
    one was interrupted; reset() begins again and steps work."""
    name, env, reset, step, inner = _envs()[index]

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    with monkeypatch.context() as patched:
        patched.setattr(type(env), inner, interrupted)
        with pytest.raises(KeyboardInterrupt):
            step()
    with pytest.raises(FastNardyError, match=r"step\(\) was interrupted \(Ctrl-C\).*"
                                             r"call reset\(\)"):
        step()
    reset()
    step()
    step()
