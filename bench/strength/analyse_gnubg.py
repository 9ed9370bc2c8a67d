"""Issue 37's analysis goal against GNU Backgammon 1.07: ``fastnardy analyse`` (cubeful, the
match score, cube decisions; Kazaross-XG2 as gnubg's table) and gnubg's own ``analyse match``
(chequer play and cube decisions) at the same plies, on the same ``.mat`` files, one thread
each:

* per player the chequer, cube and overall error rates (mEMG) of both, and their ratio;
* which player each names the worse (the higher overall error rate);
* the cube errors: each decision gnubg's exported analysis marks with an alert (missed
  double, wrong double, wrong take, wrong pass), matched to fastnardy's decision at the same
  position (gnubg's Position ID), and fastnardy's cube errors that gnubg does not mark;
* CPU seconds (user + system) of each program's process.

    python bench/strength/analyse_gnubg.py --plies 2 tests/data/gnubg/selfplay_000[1-3].mat
"""

from __future__ import annotations

import argparse
import glob
import json
import re
import resource
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

from fastnardy import Position

GNUBG = "/usr/games/gnubg"
KAZAROSS = "/usr/share/gnubg/met/Kazaross-XG2.xml"
ALERT = re.compile(r"^Alert: (missed double|wrong double|bad double|wrong take|wrong pass|"
                   r"wrong drop|bad take|bad pass)", re.MULTILINE)
KINDS = {"bad double": "wrong double", "wrong drop": "wrong pass", "bad take": "wrong take",
         "bad pass": "wrong pass"}


def child_cpu(command: List[str], stdin: Optional[str] = None) -> Tuple[float, str]:
    """Run a command; its CPU seconds (user + system) and its stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(command, input=stdin, capture_output=True, text=True,
                         check=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), out


def gnubg_rates(text: str) -> Dict[str, Dict[str, float]]:
    """Chequer, cube and overall error rates (mEMG) per player from ``show statistics``."""
    sections = {"chequer": "Chequerplay statistics", "cube": "Cube statistics",
                "overall": "Overall statistics"}
    out: Dict[str, Dict[str, float]] = {"white": {}, "black": {}}
    for name, title in sections.items():
        part = text[text.index(title):]
        rate = re.search(r"^Error rate mEMG \(MWC\)\s+(\S+)\s+\(.*?\)\s+(\S+)", part,
                         re.MULTILINE)
        if rate is None:
            raise SystemExit(f"gnubg printed no {name} error rate")
        for index, side in enumerate(("white", "black")):
            out[side][name] = abs(float(rate.group(index + 1)))
    close = re.search(r"^Close or actual cube decisions\s+(\d+)\s+(\d+)", text, re.MULTILINE)
    if close:
        out["white"]["close"], out["black"]["close"] = int(close.group(1)), int(close.group(2))
    return out


def gnubg_alerts(exported: List[Path]) -> Set[Tuple[str, str]]:
    """(Position ID, kind) of every cube decision gnubg's exported analysis alerts."""
    found = set()
    for path in exported:
        for block in path.read_text().split("Move number")[1:]:
            position = re.search(r"Position ID: (\S+)", block)
            for alert in ALERT.finditer(block):
                kind = KINDS.get(alert.group(1), alert.group(1))
                if position:
                    found.add((position.group(1), kind))
    return found


def measure(path: Path, plies: int, precision: Optional[str]) -> Dict[str, object]:
    fast_cpu, fast_out = child_cpu([sys.executable, "-m", "fastnardy", "analyse", str(path),
                                    "--plies", str(plies), "--json", "--no-progress",
                                    "--met", KAZAROSS]
                                   + (["--precision", precision] if precision else []))
    document = json.loads(fast_out)
    ours = {side: {"chequer": totals["error_rate"], "cube": totals["cube"]["error_rate"],
                   "overall": totals["overall_error_rate"], "close": totals["cube"]["close"]}
            for side, totals in document["players"].items()}
    our_errors = set()
    for review in document["cube_decisions"]:
        if review["error"] and review["close"]:
            position = Position.from_string(review["position"])
            our_errors.add((position.gnubg_id(), review["error"]))
    with tempfile.TemporaryDirectory() as work:
        export = Path(work) / "analysis.txt"
        script = "\n".join(["set threads 1", f"import mat {path}",
                            f"set analysis chequerplay evaluation plies {plies}",
                            f"set analysis cubedecision evaluation plies {plies}",
                            "analyse match", "show statistics match",
                            f"export match text {export}", "quit", ""])
        gnubg_cpu, gnubg_out = child_cpu([GNUBG, "-t", "-q"], script)
        theirs = gnubg_rates(gnubg_out)
        alerts = gnubg_alerts(sorted(Path(work).glob("analysis*.txt")))
    worse = {name: max(("white", "black"), key=lambda s: rates[s]["overall"])
             for name, rates in (("fastnardy", ours), ("gnubg", theirs))}
    return {"file": str(path), "plies": plies,
            "fastnardy cpu s": round(fast_cpu, 2), "gnubg cpu s": round(gnubg_cpu, 2),
            "cpu ratio": round(fast_cpu / max(gnubg_cpu, 1e-9), 2),
            "fastnardy": ours, "gnubg": theirs,
            "ratio (fastnardy / gnubg)": {
                side: {k: round(ours[side][k] / theirs[side][k], 2) if theirs[side][k] else None
                       for k in ("chequer", "cube", "overall")} for side in ours},
            "worse": worse, "same worse": worse["fastnardy"] == worse["gnubg"],
            "gnubg cube errors": sorted(alerts),
            "found by fastnardy": sorted(alerts & our_errors),
            "missed by fastnardy": sorted(alerts - our_errors),
            "fastnardy only": sorted(our_errors - alerts)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", default=sorted(glob.glob(
        "tests/data/gnubg/selfplay_000[1-3].mat")))
    parser.add_argument("--plies", type=int, default=2)
    parser.add_argument("--precision", choices=("float", "int16"), default=None,
                        help="fastnardy's arithmetic (default: the game's)")
    args = parser.parse_args()
    results = [measure(Path(f), args.plies, args.precision) for f in args.files]
    within = sum(1 for r in results for side in ("white", "black")
                 if all(v is not None and 0.7 <= v <= 1.3
                        for k, v in r["ratio (fastnardy / gnubg)"][side].items()  # type: ignore[index]
                        if k == "overall"))
    print(json.dumps({"matches": results,
                      "players within 30% (overall)": f"{within} of {2 * len(results)}",
                      "same worse player": sum(bool(r["same worse"]) for r in results),
                      "cpu ratio": round(sum(r["fastnardy cpu s"] for r in results)  # type: ignore[misc]
                                         / sum(r["gnubg cpu s"] for r in results), 2)},  # type: ignore[misc]
                     indent=1))


if __name__ == "__main__":
    main()
