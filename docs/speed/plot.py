"""Draw the speed pages' plots from the benchmark results in results.json (numbers taken
from measured runs; nothing is timed here).

    python docs/speed/plot.py [--out docs/speed/plots]

The documentation build calls :func:`draw` (docs/conf.py); the SVG files are build output.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import List, Sequence, Tuple

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402 (after the backend is chosen)

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results.json"
FASTNARDY, OTHER = "#2b6cb0", "#a0aec0"


def _barh(path: Path, title: str, xlabel: str, bars: Sequence[Tuple[str, float]],
          log: bool = False) -> None:
    """One horizontal bar a program, fastnardy's in colour, the value written at its end."""
    labels = [label for label, _ in bars]
    values = [value for _, value in bars]
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(bars) + 1.2))
    colours = [FASTNARDY if label.startswith("fastnardy") or label.startswith("VectorEnv")
               else OTHER for label in labels]
    ax.barh(range(len(bars)), values, color=colours)
    ax.set_yticks(range(len(bars)), labels)
    ax.invert_yaxis()
    if log:
        ax.set_xscale("log")
    for i, value in enumerate(values):
        ax.text(value, i, f" {value:,.0f}" if value >= 1000 else f" {value:.3g}",
                va="center", fontsize=8)
    ax.set_xlim(right=max(values) * (3 if log else 1.18))
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(xlabel)
    fig.tight_layout()
    fig.savefig(path, metadata={"Date": None})
    plt.close(fig)


def _phases(path: Path, table: dict) -> None:
    """Kernel, API and reference µs per position-roll, by game, phase and rolls (log)."""
    columns: List[str] = table["columns"]
    rows = table["rows"]
    at = {name: columns.index(name) for name in columns}
    labels = [f"{r[at['game']]} {r[at['phase']]}, {r[at['rolls']]}" for r in rows]
    series = [("kernel", "kernel_us", FASTNARDY), ("API (view)", "api_us", "#63b3ed"),
              ("API, every Turn built", "api_all_us", "#90cdf4"),
              ("pure-Python reference", "ref_us", OTHER)]
    fig, ax = plt.subplots(figsize=(8, 6))
    height = 0.2
    for k, (name, column, colour) in enumerate(series):
        ax.barh([i + (k - 1.5) * height for i in range(len(rows))],
                [r[at[column]] for r in rows], height, label=name, color=colour)
    ax.set_yticks(range(len(rows)), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("µs per (position, roll), log scale")
    ax.set_title("Legal turns by phase: kernel, API and the pure-Python reference", fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, metadata={"Date": None})
    plt.close(fig)


def _learning(path: Path, table: dict) -> None:
    """A learning curve: win rate against each opponent by CPU minutes of training."""
    curve = table["curve"]
    minutes = [point["cpu_minutes"] for point in curve]
    fig, ax = plt.subplots(figsize=(8, 4))
    for opponent, colour in (("random", OTHER), ("greedy", FASTNARDY)):
        ax.plot(minutes, [100 * point[opponent] for point in curve], marker=".",
                color=colour, label=f"against {opponent} (50 games a point)")
    ax.axhline(60, color="#c53030", linestyle="--", linewidth=1, label="goal: 60% against greedy")
    ax.set_ylim(0, 100)
    ax.set_xlabel("CPU minutes of training (one core, evaluations included)")
    ax.set_ylabel("games won, %")
    ax.set_title(table["title"], fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, metadata={"Date": None})
    plt.close(fig)


def draw(out: Path = HERE / "plots") -> List[Path]:
    """Write every plot into ``out``; returns their paths."""
    plt.rcParams["svg.hashsalt"] = "fastnardy"  # the same file for the same numbers
    results = json.loads(RESULTS.read_text(encoding="utf-8"))
    out.mkdir(parents=True, exist_ok=True)
    peers = results["peers"]
    plots = {
        "children.svg": ("Children of a position and roll (best of 7 rounds)",
                         "µs per (position, roll), log scale",
                         [(p, best) for p, best, _ in peers["children"]], True),
        "counts.svg": ("Counting legal turns (best of 7 rounds; wildbg lists children)",
                       "µs per (position, roll), log scale",
                       [(p, best) for p, best, _ in peers["counts"]]
                       + [(peers["children"][0][0], peers["children"][0][1])], True),
        "perft.svg": ("Short nardy perft(3) from the start, one thread, no table",
                      "CPU seconds (less is faster)",
                      [(p, best) for p, best, _ in peers["perft3_seconds"]], False),
        "selfplay.svg": ("Random self-play of short nardy, one core",
                         "games per CPU second (more is faster)",
                         [(p, best) for p, best, _ in peers["selfplay_games_per_s"]], False),
        "environments.svg": ("Environment steps per CPU second (a VectorEnv step is a turn)",
                             "steps per CPU second, log scale",
                             [tuple(p) for p in results["environments"]["steps_per_cpu_s"]],
                             True),
        "records.svg": ("Perft records, 2 workers with a transposition table",
                        "seconds", [tuple(p) for p in results["perft_records"]["rows"]],
                        False),
    }
    written = []
    for name, (title, xlabel, bars, log) in plots.items():
        _barh(out / name, title, xlabel, bars, log)
        written.append(out / name)
    _phases(out / "phases.svg", results["phases"])
    written.append(out / "phases.svg")
    _learning(out / "learning.svg", results["learning"])
    written.append(out / "learning.svg")
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE / "plots")
    for path in draw(parser.parse_args().out):
        print(path)


if __name__ == "__main__":
    main()
