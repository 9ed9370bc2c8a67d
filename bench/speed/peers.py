"""fastnardy beside the other move generators, measured live in one run.

    python bench/speed/peers.py [--rounds 7] [--passes 3] [--peers DIR] [--previous SRC] [--json FILE]

Every program runs in a process of its own, once per round, the programs interleaved
(A B C … A B C …), so that load on a shared machine falls on all of them alike; every figure
is thread CPU time, measured inside the program around its own loop. Rows compare like with
like, on the 2,000 GNU Backgammon benchmark positions shipped in fastnardy/data (1,000 contact,
1,000 race) x the
21 rolls:

* children: wildbg's ``all_positions_after_moving`` and bkgm's ``legal_positions`` (native
  Rust drivers) against ``batch.expand`` (keys and rows), ``batch.chance_expand`` and
  ``list(legal_turns)``, and bgsage's ``possible_moves`` (Python -> C++);
* counts: ``batch.count_turns``, one ``_kernel.count_turns`` call each, ``len(legal_turns)``;
  and OpenSpiel's ``legal_actions`` (half-turn actions, at nodes of random OpenSpiel games);
* perft: short nardy from the start, one thread, no table, in every program;
* self-play: random games (a uniform roll, a uniform legal child), games per CPU second;
* features: ``fastnardy.features`` of the positions' keys and rows (tdgammon and raw inputs)
  divided by ``np.full`` of the same float32 output, timed in the same process.

Each row gives the best and the median of its rounds, its best ÷ the reference's best (the
way the goals are set) and the median over the rounds of its ratio to the reference in the
same round, which moves less on a busy machine.

The Rust drivers come from ``--peers DIR`` (a folder that ``shared/peers/build.sh DIR``
built), else from ``$FASTNARDY_PEERS``, else ``shared/peers/build.sh`` beside the repository
builds them (about a minute, once) into ``$TMPDIR/fastnardy-peers``. Programs that are
missing (no peers kit, bgsage or open_spiel not installed: ``pip install ".[peers]"``) are
left out with a note. It runs against the installed fastnardy; ``--previous SRC`` adds every
fastnardy row again for another copy (e.g. the previous main built in place: its ``src``
folder, put first on ``PYTHONPATH`` of those runs), interleaved with the rest, so that a
change is measured against what it changes in the same run. A level the other copy does not
have is left out of its rows.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
from importlib import resources
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional

from fastnardy.testing.speed import GNUBG_ID_FILES, LEVELS

HERE = Path(__file__).resolve().parent
DATA = resources.files("fastnardy").joinpath("data")
IDS = [str(DATA.joinpath(name)) for name in GNUBG_ID_FILES]
KIT = HERE.parents[2] / "shared" / "peers"
WORKER = [sys.executable, str(HERE / "peer_worker.py")]


class Program(NamedTuple):
    group: str  # children, counts, perft, self-play
    name: str
    how: str
    command: List[str]
    reference: bool = False  # the row the others in its group are divided by
    path: Optional[str] = None  # PYTHONPATH of the run (another copy of fastnardy)


def find_drivers(peers: Optional[str]) -> "tuple[Optional[Path], str]":
    """The folder holding bin/wildbg-driver and bin/bkgm-driver, built if need be."""
    folder = peers or os.environ.get("FASTNARDY_PEERS")
    if folder:
        path = Path(folder)
        if not (path / "bin" / "wildbg-driver").exists():
            raise SystemExit(f"no bin/wildbg-driver in {path}: build it with "
                             f"shared/peers/build.sh {path}")
        return path, f"the native peers from {path}"
    path = Path(tempfile.gettempdir()) / "fastnardy-peers"
    if (path / "bin" / "wildbg-driver").exists() and (path / "bin" / "bkgm-driver").exists():
        return path, f"the native peers from {path}"
    if not (KIT / "build.sh").exists():
        return None, ("wildbg and bkgm left out: no shared/peers beside the repository "
                      "(give --peers DIR)")
    print(f"building wildbg and bkgm into {path} (about a minute) ...", file=sys.stderr)
    subprocess.run(["bash", str(KIT / "build.sh"), str(path)], check=True,
                   stdout=subprocess.DEVNULL)
    return path, f"the native peers built from {KIT} into {path}"


def programs(drivers: Optional[Path], passes: int, depth: int, games: int) -> "tuple[List[Program], List[str]]":
    notes: List[str] = []
    out: List[Program] = []

    def movegen(name: str, how: str, command: List[str], group: str = "children",
                reference: bool = False) -> None:
        out.append(Program(group, name, how, [*command, *IDS, str(passes)], reference))

    if drivers:
        wildbg, bkgm = str(drivers / "bin" / "wildbg-driver"), str(drivers / "bin" / "bkgm-driver")
        movegen("wildbg all_positions_after_moving", "Rust", [wildbg, "movegen"], reference=True)
        movegen("bkgm legal_positions", "Rust (a few duplicate children on races)",
                [bkgm, "movegen"])
    else:
        wildbg = bkgm = ""
    for name, level in LEVELS.items():
        if level.group == "children":
            movegen(f"fastnardy {name}", level.how, [*WORKER, "movegen", f"fastnardy:{name}"])
    if importlib.util.find_spec("bgsage"):
        movegen("bgsage possible_moves", "Python -> C++",
                [*WORKER, "movegen", "bgsage.possible_moves"])
    else:
        notes.append("bgsage left out: not installed (pip install bgsage)")
    for name, level in LEVELS.items():
        if level.group == "counts":
            movegen(f"fastnardy {name}", level.how, [*WORKER, "movegen", f"fastnardy:{name}"],
                    group="counts")
    if importlib.util.find_spec("pyspiel"):
        movegen("OpenSpiel legal_actions()", "Python -> C++, half-turn actions at nodes of "
                "random games", [*WORKER, "movegen", "openspiel.legal_actions"], group="counts")
    else:
        notes.append("OpenSpiel left out: not installed (pip install open_spiel)")
    if drivers:
        out.append(Program("perft", f"wildbg perft({depth})", "Rust", [wildbg, "perft", str(depth)],
                           True))
        out.append(Program("perft", f"bkgm perft({depth})", "Rust", [bkgm, "perft", str(depth)]))
    out.append(Program("perft", f"fastnardy perft({depth})", "serial, no table",
                       [*WORKER, "perft", "fastnardy", str(depth)]))
    seed = "11"
    if drivers:
        out.append(Program("self-play", "wildbg driver playout", "Rust",
                           [wildbg, "playout", str(games), seed], True))
        out.append(Program("self-play", "bkgm driver playout", "Rust",
                           [bkgm, "playout", str(games), seed]))
    out.append(Program("self-play", "fastnardy simulate('short')", "kernel, one thread",
                       [*WORKER, "playout", "fastnardy", str(games), seed]))
    for kind in ("tdgammon", "raw"):
        for source in ("keys", "rows"):
            out.append(Program("features", f"fastnardy features({source}, {kind!r})",
                               "÷ np.full of the same (N, F) float32",
                               [*WORKER, "features", "fastnardy", kind, source, *IDS,
                                str(passes)]))
    return out, notes


def previous_rows(table: List[Program], src: str) -> List[Program]:
    """The fastnardy rows again, run with the copy in ``src`` (the levels it has)."""
    found = subprocess.run([sys.executable, "-c", "import fastnardy.testing.speed as b; "
                            "print('\\n'.join(b.LEVELS))"], env={**os.environ, "PYTHONPATH": src},
                           check=True, capture_output=True, text=True).stdout.splitlines()
    rows = []
    for p in table:
        if not p.name.startswith("fastnardy"):
            continue
        level = p.command[3].split(":", 1)[1] if p.command[2] == "movegen" else None
        if level is not None and level not in found:
            continue
        rows.append(p._replace(name="previous " + p.name, how=p.how + f" ({src})",
                               reference=False, path=src))
    return rows


def figure(program: Program, result: Dict[str, Dict[str, float]]) -> "tuple[float, str]":
    """One round's figure of a program: µs per position-roll, CPU s, or games per CPU s."""
    if "perft" in result:
        return result["perft"]["cpu"], str(result["perft"]["nodes"])
    if "playout" in result:
        run = result["playout"]
        return run["games"] / run["cpu"], f"{run['games']} games"
    if "features" in result:
        return result["features"]["ratio"], "2000 positions"
    calls = sum(result[part]["calls"] for part in ("contact", "race"))
    cpu = sum(result[part]["cpu"] for part in ("contact", "race"))
    count = sum(result[part]["count"] for part in ("contact", "race"))
    return cpu / calls * 1e6, str(count)


UNITS = {"children": "µs per position-roll", "counts": "µs per position-roll",
         "perft": "CPU s", "self-play": "games per CPU s",
         "features": "÷ np.full (same process)"}


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--passes", type=int, default=3, help="timed passes per round")
    parser.add_argument("--depth", type=int, default=3, help="short perft depth")
    parser.add_argument("--games", type=int, default=20000, help="self-play games per round")
    parser.add_argument("--peers", help="a folder that shared/peers/build.sh built")
    parser.add_argument("--previous", help="the src folder of another fastnardy copy to run "
                        "beside this one (e.g. the previous main, built in place)")
    parser.add_argument("--json", help="write every round's figures to this file")
    args = parser.parse_args(argv)
    drivers, found = find_drivers(args.peers)
    table, notes = programs(drivers, args.passes, args.depth, args.games)
    if args.previous:
        extra = previous_rows(table, str(Path(args.previous).resolve()))
        table = [q for p in table for q in [p] + [e for e in extra if e.name == "previous " + p.name]]
    load_before = os.getloadavg()
    rounds: Dict[str, List[float]] = {p.name: [] for p in table}
    checks: Dict[str, set] = {p.name: set() for p in table}
    for _ in range(args.rounds):
        for program in table:
            env = {**os.environ, "PYTHONPATH": program.path} if program.path else None
            done = subprocess.run(program.command, check=True, capture_output=True, text=True,
                                  env=env)
            value, check = figure(program, json.loads(done.stdout.strip().splitlines()[-1]))
            rounds[program.name].append(value)
            checks[program.name].add(check)
    load_after = os.getloadavg()
    print(f"{args.rounds} interleaved rounds, each program in its own process, thread CPU "
          f"time; {found}; load average {load_before[0]:.2f} before, {load_after[0]:.2f} "
          f"after, on {os.cpu_count()} cores\n")
    for group in ("children", "counts", "perft", "self-play", "features"):
        rows = [p for p in table if p.group == group]
        # counts are divided by wildbg's children too: the goals of issue 12 are set so
        reference = next((p for p in table if p.reference and p.group == (
            "children" if group == "counts" else group)), None)
        best = max if group == "self-play" else min
        name = reference.name.split()[0] if reference else "-"
        print(f"| {group} | how | {UNITS[group]}: best | median | ÷ {name} (best) "
              f"| ÷ {name} (median of the rounds' ratios) | work per round |")
        print("|---|---|---|---|---|---|---|")
        base = best(rounds[reference.name]) if reference else None
        for p in rows:
            values = rounds[p.name]
            ratio = paired = "-"
            if reference:
                # each round's pair ran minutes apart at most: on a busy machine the
                # median of their ratios moves less than the ratio of the bests
                ratio = f"{best(values) / base:.2f}"
                pairs = zip(values, rounds[reference.name])
                paired = f"{statistics.median(v / r for v, r in pairs):.2f}"
            work = "; ".join(sorted(checks[p.name]))
            print(f"| {p.name} | {p.how} | {best(values):.3f} | {statistics.median(values):.3f} "
                  f"| {ratio} | {paired} | {work} |")
        print()
    for note in notes:
        print(note)
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"rounds": rounds, "load": [load_before, load_after]}, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
