"""Environment steps per CPU second, side by side: fastnardy's VectorEnv (random actions,
long and short nardy), pgx's backgammon on the CPU (jit-compiled, vmapped) and OpenSpiel's
C++ backgammon driven from Python (issue 15's goals: the vector environment at least 10x
pgx's steps per CPU second, and at least 1 million random long-nardy steps per CPU second),
and the step encoding beside the turn encoding (issue 38's goals: NardyEnv(actions="steps")
at least 0.5x the steps per CPU second of actions="turns"; VectorEnv(actions="steps") at
least 500,000 steps per CPU second and at least 0.3x its own turn steps).

    python bench/speed/env_steps.py [--rounds 3] [--batch 4096] [--seconds 2] [--only NAME ...]

Each contender runs in its own process, one process per contender per round, the rounds
interleaved (A B C A B C ...); the median over the rounds is printed. Time is the process's
CPU time (``time.process_time``, all its threads: XLA runs on several), measured after a
warm-up (jit compilation, the first steps). What a step is differs, and is printed:

* fastnardy: one turn of one game (every game of the batch chooses one of its legal turns,
  uniformly at random by numpy; forced turns are played inside the step). Observations are
  keys (``--observation keys``) or features.
* fastnardy gymnasium vector: one turn of one game of ``NardyVectorEnv`` (the agent's
  random legal turn, then the kernel's random opponent up to the agent's next choice), its
  (N, 52) observations made every step.
* fastnardy NardyEnv steps / turns: one step of one ``NardyEnv`` (``"steps"``: one checker
  step, a random allowed one, the opponent's turns inside the step that completes a turn;
  ``"turns"``: one random legal turn and the opponent's up to the next choice).
* fastnardy VectorEnv steps / turns, rows: one step of one game of ``VectorEnv`` with
  board-row observations (``"steps"``: one checker step of every game, a random allowed one
  from its mask, and the turns it completes; ``"turns"``: one random legal turn).
* pgx: one call of ``env.step`` for one game, which moves ONE checker (a turn is up to four
  steps), a uniformly random legal action from ``legal_action_mask``.
* OpenSpiel: one ``apply_action`` at a player node (an action moves two checkers; a double
  is two actions), a uniformly random legal action; chance nodes are sampled and not
  counted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def fastnardy_worker(game: str, batch: int, seconds: float, observation: str) -> dict:
    import numpy as np

    from fastnardy.envs.vector import VectorEnv

    seen = "keys" if observation == "keys" else ("features",
                                                 "nardy" if game == "long" else "tdgammon")
    env = VectorEnv(game, batch, 1, observation=seen)
    rng = np.random.default_rng(0)
    step = env.reset()
    for _ in range(20):  # warm-up
        step = env.step((rng.random(batch) * step.counts).astype(np.int64))
    steps, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        for _ in range(10):
            step = env.step((rng.random(batch) * step.counts).astype(np.int64))
        steps += 10 * batch
    return {"steps": steps, "cpu": time.process_time() - start}


def gymnasium_worker(game: str, batch: int, seconds: float) -> dict:
    import numpy as np

    from fastnardy.envs.gymnasium import NardyVectorEnv

    env = NardyVectorEnv(game, batch)
    rng = np.random.default_rng(0)
    _, info = env.reset(seed=1)
    for _ in range(20):  # warm-up
        _, _, _, _, info = env.step((rng.random(batch) * info["legal"]).astype(np.int64))
    steps, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        for _ in range(10):
            _, _, _, _, info = env.step((rng.random(batch) * info["legal"]).astype(np.int64))
        steps += 10 * batch
    return {"steps": steps, "cpu": time.process_time() - start}


def vector_worker(game: str, batch: int, seconds: float, actions: str) -> dict:
    import numpy as np

    from fastnardy.envs.vector import VectorEnv

    env = VectorEnv(game, batch, 1, actions=actions)
    rng = np.random.default_rng(0)
    step = env.reset()

    def choose(step):
        if actions == "steps":
            return np.argmax(step.mask * rng.random(step.mask.shape), axis=1)
        return (rng.random(batch) * step.counts).astype(np.int64)

    for _ in range(20):  # warm-up
        step = env.step(choose(step))
    steps, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        for _ in range(10):
            step = env.step(choose(step))
        steps += 10 * batch
    return {"steps": steps, "cpu": time.process_time() - start}


def steps_worker(game: str, seconds: float, actions: str = "steps") -> dict:
    import numpy as np

    from fastnardy.envs.gymnasium import NardyEnv

    env = NardyEnv(game, actions=actions)
    rng = np.random.default_rng(0)
    _, info = env.reset(seed=1)
    steps, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        _, _, terminated, truncated, info = env.step(
            int(rng.choice(np.flatnonzero(info["action_mask"]))))
        if terminated or truncated:
            _, info = env.reset()
        steps += 1
    return {"steps": steps, "cpu": time.process_time() - start}


def pgx_worker(batch: int, seconds: float) -> dict:
    import jax
    import jax.numpy as jnp
    import pgx

    env = pgx.make("backgammon")
    init = jax.jit(jax.vmap(env.init))
    step = jax.jit(jax.vmap(env.step))

    @jax.jit
    def act(state, key):
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        return jax.random.categorical(key, logits, axis=-1)

    key = jax.random.PRNGKey(0)
    key, sub = jax.random.split(key)
    state = init(jax.random.split(sub, batch))

    def one(state, key):
        key, k1, k2 = jax.random.split(key, 3)
        action = act(state, k1)
        state = step(state, action, jax.random.split(k2, batch))
        return state, key

    for _ in range(20):  # warm-up and compilation
        state, key = one(state, key)
    state.current_player.block_until_ready()
    steps, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        for _ in range(10):
            state, key = one(state, key)
        state.current_player.block_until_ready()
        steps += 10 * batch
    return {"steps": steps, "cpu": time.process_time() - start}


def openspiel_worker(seconds: float) -> dict:
    import random

    import pyspiel

    game = pyspiel.load_game("backgammon")
    rng = random.Random(0)
    steps, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probs)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                steps += 1
    return {"steps": steps, "cpu": time.process_time() - start}


CONTENDERS = {
    "fastnardy long, keys": "fastnardy long keys",
    "fastnardy long, features": "fastnardy long features",
    "fastnardy short, keys": "fastnardy short keys",
    "fastnardy short, features": "fastnardy short features",
    "fastnardy long, gymnasium vector": "gymnasium long",
    "fastnardy long, NardyEnv steps": "steps long steps",
    "fastnardy long, NardyEnv turns": "steps long turns",
    "fastnardy short, NardyEnv steps": "steps short steps",
    "fastnardy short, NardyEnv turns": "steps short turns",
    "fastnardy long, VectorEnv steps, rows": "vector long steps",
    "fastnardy long, VectorEnv turns, rows": "vector long turns",
    "fastnardy short, VectorEnv steps, rows": "vector short steps",
    "fastnardy short, VectorEnv turns, rows": "vector short turns",
    "pgx backgammon": "pgx",
    "OpenSpiel backgammon": "openspiel",
}


def worker(argv: list) -> None:
    what, batch, seconds = argv[0], int(argv[1]), float(argv[2])
    if what == "fastnardy":
        out = fastnardy_worker(argv[3], batch, seconds, argv[4])
    elif what == "gymnasium":
        out = gymnasium_worker(argv[3], batch, seconds)
    elif what == "steps":
        out = steps_worker(argv[3], seconds, argv[4])
    elif what == "vector":
        out = vector_worker(argv[3], batch, seconds, argv[4])
    elif what == "pgx":
        out = pgx_worker(batch, seconds)
    else:
        out = openspiel_worker(seconds)
    print(json.dumps(out))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args()
    names = [n for n in CONTENDERS if args.only is None or any(o in n for o in args.only)]
    rates = {name: [] for name in names}
    errors = {}
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    for _ in range(args.rounds):
        for name in names:
            if name in errors:
                continue
            what = CONTENDERS[name].split()
            command = [sys.executable, __file__, "--worker", what[0], str(args.batch),
                       str(args.seconds), *what[1:]]
            done = subprocess.run(command, capture_output=True, text=True, env=env)
            if done.returncode:
                errors[name] = done.stderr.strip().splitlines()[-1:]
                continue
            out = json.loads(done.stdout.strip().splitlines()[-1])
            rates[name].append(out["steps"] / out["cpu"])
    print(f"environment steps per CPU second (median of {args.rounds} interleaved rounds, "
          f"batch {args.batch}, {args.seconds} CPU s each)")
    for name in names:
        if name in errors:
            print(f"  {name:40s} failed: {errors[name]}")
        else:
            print(f"  {name:40s} {statistics.median(rates[name]):>14,.0f}")
    for name in names:  # issue 38: each encoding's steps against the other's
        other = name.replace("steps", "turns")
        if "steps" in name and other in names and rates[name] and rates[other]:
            print(f"  {name} / turns: "
                  f"{statistics.median(rates[name]) / statistics.median(rates[other]):.2f}x")
    if "pgx backgammon" in names and rates.get("pgx backgammon"):
        pgx_rate = statistics.median(rates["pgx backgammon"])
        for name in names:
            if name.startswith("fastnardy") and rates[name]:
                print(f"  {name} / pgx: {statistics.median(rates[name]) / pgx_rate:.1f}x")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(sys.argv[2:])
    else:
        main()
