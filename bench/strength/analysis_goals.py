"""The goals of issue 21, measured: analysis against GNU Backgammon's, and rollout intervals.

    python bench/strength/analysis_goals.py analyse --file tests/data/gnubg/selfplay_0001.mat --plies 2
    python bench/strength/analysis_goals.py rollout --games 144
    python bench/strength/analysis_goals.py cube --every 4

``analyse``: CPU time (user + system, of the child process) of ``fastnardy analyse FILE
--plies P --json`` and of GNU Backgammon's ``analyse match`` at P plies (chequer play only,
one thread) on the same ``.mat``, with each one's error rate (mEMG) per player, the turns it
marks doubtful or worse and its unforced turns. gnubg's figures are cubeful match equity
(MWC normalised to EMG), fastnardy's cubeless points: the same scale for most chequer plays,
not for turns where the match score or the cube changes what a gammon is worth.

``rollout``: a short-nardy contact position's candidates rolled out by
:func:`fastnardy.analysis.rollouts.rollout` at the same games, the 95% interval's half width with and
without variance reduction, and the correlation between the candidates' plain game results
on the same dice streams (common random numbers).

``cube``: fastnardy's money-game cube action (:func:`fastnardy.analysis.cube_decision` at
``net:P`` with GNU Backgammon's move filters, Janowski's model as gnubg approximates it)
against gnubg's own ``hint`` before the roll (money session, Jacoby off, cube centred, the
same plies) on positions from gnubg's self-play matches in tests/data/gnubg, each action
compared by its kind (no double, double take, double pass, too good). One JSON line per
measurement.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import numpy as np

from fastnardy import Position, analysis

GNUBG = "/usr/games/gnubg"
CONTACT = "short w 24:2,13:4,8:3,6:4,5:2 24:1,13:5,8:3,6:5,2:1"


def _child_cpu(command: List[str], stdin: Optional[str] = None) -> Tuple[float, str]:
    """Run a command; its CPU seconds (user + system) and its stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(command, input=stdin, capture_output=True, text=True, check=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), out


def gnubg_statistics(text: str) -> Dict[str, Dict[str, float]]:
    """Error rate, marks and unforced moves per player from ``show statistics match``."""
    def row(label: str) -> List[str]:
        match = re.search(rf"^{re.escape(label)}\s+(\S+).*?\s+(\S+)(?:\s+\(.*\))?\s*$", text,
                          re.MULTILINE)
        if match is None:
            raise SystemExit(f"gnubg printed no {label!r} line")
        return [match.group(1), match.group(2)]

    rates = re.search(r"^Error rate mEMG \(MWC\)\s+(\S+)\s+\(.*?\)\s+(\S+)", text, re.MULTILINE)
    if rates is None:
        raise SystemExit("gnubg printed no error rate")
    out: Dict[str, Dict[str, float]] = {}
    for index, side in enumerate(("white", "black")):
        marked = sum(int(row(f"Moves marked {name}")[index])
                     for name in ("doubtful", "bad", "very bad"))
        out[side] = {"error_rate": abs(float(rates.group(index + 1))),
                     "unforced": int(row("Unforced moves")[index]),
                     "marked": marked, "moves": int(row("Total moves")[index])}
    return out


def measure_analyse(path: Path, plies: int) -> Dict[str, object]:
    fast_cpu, fast_out = _child_cpu([sys.executable, "-m", "fastnardy", "analyse", str(path),
                                     "--plies", str(plies), "--json", "--no-progress"])
    document = json.loads(fast_out)
    fast = {side: {"error_rate": totals["error_rate"], "unforced": totals["unforced"],
                   "marked": sum(totals["marks"].values()), "moves": totals["turns"]}
            for side, totals in document["players"].items()}
    script = "\n".join(["set threads 1", f"import mat {path}",
                        f"set analysis chequerplay evaluation plies {plies}",
                        "set analysis cube off", "analyse match", "show statistics match",
                        "quit", ""])
    if not Path(GNUBG).exists():
        return {"file": str(path), "plies": plies, "fastnardy cpu s": round(fast_cpu, 2),
                "fastnardy": fast, "gnubg": "not installed (apt-get install -y gnubg)"}
    gnubg_cpu, gnubg_out = _child_cpu([GNUBG, "-t", "-q"], script)
    return {"file": str(path), "plies": plies, "turns": len(document["turns"]),
            "fastnardy cpu s": round(fast_cpu, 2), "gnubg cpu s": round(gnubg_cpu, 2),
            "ratio": round(fast_cpu / max(gnubg_cpu, 1e-9), 2),
            "fastnardy": fast, "gnubg": gnubg_statistics(gnubg_out)}


def measure_rollout(games: int, dice: Tuple[int, int], seed: int) -> Dict[str, object]:
    position = Position.from_string(CONTACT)
    started = time.process_time()
    moves = analysis.rollout(position, dice, games, seed=seed)
    seconds = time.process_time() - started
    correlation = np.corrcoef(np.array([m.outcomes for m in moves]))
    pairs = correlation[np.triu_indices(len(moves), 1)]
    widths = [(1.96 * m.stderr, 1.96 * m.plain_stderr) for m in moves]
    ratio = float(np.mean([p / r for r, p in widths if r > 0]))
    return {"position": CONTACT, "dice": list(dice), "games": games, "seed": seed,
            "candidates": len(moves), "cpu s": round(seconds, 1),
            "half width with variance reduction (mean)": round(float(np.mean(
                [r for r, _ in widths])), 4),
            "half width plain (mean)": round(float(np.mean([p for _, p in widths])), 4),
            "narrower by (mean ratio)": round(ratio, 2),
            "correlation of candidates' plain results (mean, min, max)": [
                round(float(pairs.mean()), 3), round(float(pairs.min()), 3),
                round(float(pairs.max()), 3)]}


def white_to_move(position: Position) -> Position:
    """The same position with its side to move as white (each side's points are in its own
    numbering, so swapping the colours keeps the position; gnubg's IDs are the mover's)."""
    if position.turn == "white":
        return position
    return Position.from_points(position.rules, position.black_points, position.white_points,
                                "white", position.black_bar, position.white_bar)


def measure_cube(files: List[Path], every: int, plies: int) -> Dict[str, object]:
    """fastnardy's money cube action against gnubg's (``hint`` before the roll, money
    session, Jacoby off, cube centred) on the positions before every ``every``-th turn of
    gnubg's self-play matches."""
    from fastnardy import Game
    from fastnardy.formats.games import read_games
    from fastnardy.search.setting import Setting

    positions = []
    for path in files:
        for record in read_games(path.read_text(), str(path)):
            replay = Game.from_record(record)
            for number, (_, turn) in enumerate(replay.history):
                if number % every == every - 1 and turn.position.outcome() is None:
                    positions.append(white_to_move(turn.position))
    script = ["set automatic roll off", "set jacoby off", "new session",
              f"set evaluation cubedecision eval plies {plies}"]
    for position in positions:
        script += [f"set board {position.gnubg_id()}", "set turn 0", "hint"]
    out = subprocess.run([GNUBG, "-t", "-q"], input="\n".join(script + ["quit", "y", ""]),
                         capture_output=True, text=True).stdout
    theirs = re.findall(r"Proper cube action: (.*)", out)
    if len(theirs) != len(positions):
        raise SystemExit(f"gnubg gave {len(theirs)} cube actions for {len(positions)} positions")
    kinds = {"no double": "no double", "double, take": "double, take",
             "double, pass": "double, pass", "too good": "too good, pass"}

    def kind(action: str) -> str:  # gnubg's words, and fastnardy's ("No double, take" ...)
        return next((kind for key, kind in kinds.items() if action.lower().startswith(key)),
                    action)

    # at 1 ply or more GNU Backgammon's filters: each roll's turn chosen at 0 ply, as gnubg's
    # cubeful evaluation does (and fastnardy's cube decision did before the setting)
    setting = Setting("net", plies)
    agree = 0
    table: Dict[str, int] = {}
    for position, text in zip(positions, theirs):
        gnubg = kind(text)
        ours = kind(analysis.cube_decision(position, None, setting).action)
        agree += ours == gnubg
        table[f"{ours} / gnubg {gnubg}"] = table.get(f"{ours} / gnubg {gnubg}", 0) + 1
    return {"positions": len(positions), "plies": plies, "agree": agree,
            "share": round(agree / len(positions), 3), "fastnardy / gnubg": table}


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    p_an = sub.add_parser("analyse")
    p_an.add_argument("--file", type=Path, default=Path(__file__).parents[2] / "tests" / "data"
                      / "gnubg" / "selfplay_0001.mat")
    p_an.add_argument("--plies", type=int, default=2)
    p_roll = sub.add_parser("rollout")
    p_roll.add_argument("--games", type=int, default=144)
    p_roll.add_argument("--seed", type=int, default=1)
    p_cube = sub.add_parser("cube")
    p_cube.add_argument("--every", type=int, default=4)
    p_cube.add_argument("--plies", type=int, default=0)
    args = parser.parse_args(argv)
    if args.what == "cube":
        data = Path(__file__).parents[2] / "tests" / "data" / "gnubg"
        files = sorted(data.glob("selfplay_000*.mat"))
        print(json.dumps(measure_cube(files, args.every, args.plies)), flush=True)
    elif args.what == "analyse":
        print(json.dumps(measure_analyse(args.file.resolve(), args.plies)), flush=True)
    else:
        print(json.dumps(measure_rollout(args.games, (6, 5), args.seed)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
