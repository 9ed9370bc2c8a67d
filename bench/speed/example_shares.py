"""Where the example programs spend their time: the kernel (compiled fastnardy), the user's
code (the example's own functions: its evaluator, network, bot glue, and the numpy calls
they make), fastnardy's Python, and the rest (OpenSpiel's Python MCTS, numpy called from
elsewhere), from cProfile (issue 15's goal: at least half in the kernel or the user's
evaluator).

    python bench/speed/example_shares.py [expectimax_player td_learner openspiel_mcts]

Each example runs with its small defaults under cProfile. cProfile does not see compiled
Cython functions (their time lands in the Python caller's own time), so every compiled
entry point is first wrapped in a Python function of this file named ``kernel_*`` (the
functions of ``fastnardy._kernel`` and ``fastnardy._features``, the methods of ``GameBatch``,
and the compiled methods of Position, Turn and LegalTurns): a wrapper's own time is the
kernel's (plus one Python call). A function's own time goes to its category by where it is
defined; a function of none (a numpy or builtin call) is split among its callers by the
time spent in it from each, up to four callers up.
"""

from __future__ import annotations

import cProfile
import importlib
import pstats
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ("expectimax_player", "td_learner", "openspiel_mcts")


def _wrap(function):
    def kernel_call(*args, **kwargs):
        return function(*args, **kwargs)

    return kernel_call


def instrument() -> None:
    """Wrap the compiled entry points (see the module docstring)."""
    from fastnardy import _features, _kernel, position

    for module in (_kernel, _features):
        for name in dir(module):
            value = getattr(module, name)
            if callable(value) and not isinstance(value, type) and not name.startswith("__"):
                setattr(module, name, _wrap(value))
    compiled = _kernel.GameBatch

    class GameBatch(compiled):  # type: ignore[misc, valid-type]
        prepare = _wrap(compiled.prepare)
        play_values = _wrap(compiled.play_values)
        play_choices = _wrap(compiled.play_choices)

    _kernel.GameBatch = GameBatch
    for cls in (position.Position, position.Turn):
        for base in cls.__mro__[1:]:
            if base.__module__.startswith("fastnardy._"):
                for name, value in vars(base).items():
                    if not name.startswith("__") and callable(value) and name not in vars(cls):
                        setattr(cls, name, _wrap(value))


def category(func) -> str:
    filename, _, name = func
    if name == "kernel_call":
        return "kernel"
    if "/examples/" in filename:
        return "user"
    if "/fastnardy/" in filename:
        return "fastnardy Python"
    return ""


def shares(stats: pstats.Stats) -> dict:
    table = stats.stats  # func -> (cc, nc, tt, ct, callers)
    out = defaultdict(float)

    def spread(func, amount: float, depth: int) -> None:
        kind = category(func)
        if kind or depth == 4:
            out[kind or "other"] += amount
            return
        callers = table[func][4] if func in table else {}
        total = sum(entry[2] for entry in callers.values())  # time in func from each caller
        if not callers or total <= 0:
            out["other"] += amount
            return
        for caller, entry in callers.items():
            spread(caller, amount * entry[2] / total, depth + 1)

    for func, (_, _, tt, _, _) in table.items():
        spread(func, tt, 0)
    return dict(out)


def main() -> None:
    names = sys.argv[1:] or list(EXAMPLES)
    instrument()
    sys.path.insert(0, str(ROOT / "examples"))
    for name in names:
        module = importlib.import_module(name)
        profile = cProfile.Profile()
        profile.runcall(module.main, [])
        found = shares(pstats.Stats(profile))
        total = sum(found.values())
        parts = ", ".join(f"{kind} {100 * value / total:.1f}%"
                          for kind, value in sorted(found.items(), key=lambda kv: -kv[1]))
        print(f"{name}: {total:.2f} s profiled: {parts}")


if __name__ == "__main__":
    main()
