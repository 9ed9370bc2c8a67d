"""Issue 37's cube goals against GNU Backgammon 1.07 (Debian ``gnubg``), at 0 ply:

* **the model**: fed gnubg's own 0-ply outputs of a position, fastnardy's no double, double
  take and double pass equities (:func:`fastnardy.search.cubeful.cube_action`, gnubg's table
  Kazaross-XG2 read from ``gnubg-data``, the ``met`` of each cube context) within
  ``--tolerance`` of gnubg's, and the proper action gnubg's;
* **the network**: fastnardy's shipped short network's outputs in the same model
  (:func:`fastnardy.analysis.cube_decision`, ``net:0``, the same table), its proper action
  against gnubg's, with the errors in the opponent's take point and the no double / double
  gap beside it.

Positions: the first ``--contact`` and ``--race`` of ``data/bg_contact_ids.txt`` and
``bg_race_ids.txt``; ten cube states (money centred and owned, and match scores from
2-away 2-away to 11-away 11-away, the Crawford game and post-Crawford both ways).

    python bench/strength/cube_gnubg.py --contact 400 --race 100
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Dict, List

import numpy as np

from fastnardy import Position
from fastnardy.analysis import cube_decision
from fastnardy.search.cubeful import cube_action, efficiencies
from fastnardy.search.met import read_met
from fastnardy.batch import encode
from fastnardy.play.gnubg import Gnubg
from fastnardy.testing.speed import gnubg_ids
from fastnardy.testing.samples import cube_states

KAZAROSS = "/usr/share/gnubg/met/Kazaross-XG2.xml"
CUBES = cube_states()
NOT_AVAILABLE = {"Unknown cube decision", "No double (cube not available)"}


def same_action(ours: str, theirs: str) -> bool:
    return ours == theirs or (ours in NOT_AVAILABLE and theirs in NOT_AVAILABLE)


def positions(contact: int, race: int) -> List[Position]:
    return [Position.from_gnubg_id(pid) for name, n in (("bg_contact_ids.txt", contact),
                                                        ("bg_race_ids.txt", race))
            for pid in gnubg_ids(name)[:n]]


def compare(found: List[Position], tolerance: float, processes: int) -> Dict[str, object]:
    met = read_met(KAZAROSS)
    rows = encode(found)
    x = efficiencies("short", rows)
    gnubg = Gnubg("gnubg:expert", processes=processes)
    model_ok = model_cases = net_ok = 0
    worst = 0.0
    take_point_errors: List[float] = []
    gap_errors: List[float] = []
    per_cube: Dict[str, List[int]] = {}
    offers = [0, 0]  # the network's action gnubg's, of the cases where gnubg would double
    seconds = {"gnubg": 0.0, "fastnardy model": 0.0, "fastnardy net": 0.0}
    misses: List[Dict[str, object]] = []
    try:
        for name, given in CUBES:
            cube = given._replace(met=met)  # gnubg's table in every match context
            started = time.perf_counter()
            outputs, equities, actions = gnubg.cube_decisions(rows, cube, 0)
            seconds["gnubg"] += time.perf_counter() - started
            tally = per_cube.setdefault(name, [0, 0, 0])
            for i, position in enumerate(found):
                started = time.process_time()
                mine = cube_action(outputs[i], float(x[i]), cube=cube)
                seconds["fastnardy model"] += time.process_time() - started
                compared = [mine.no_double] + ([mine.double_take, mine.double_pass]
                                               if cube.value < 64 and cube.may_offer else [])
                gap = float(np.max(np.abs(np.array(compared) - equities[i, :len(compared)])))
                worst = max(worst, gap)
                ok = gap <= tolerance and same_action(mine.action, actions[i])
                model_ok += ok
                model_cases += 1
                tally[0] += ok
                if not ok and len(misses) < 10:
                    misses.append({"cube": name, "position": position.gnubg_id()
                                   if hasattr(position, "gnubg_id") else str(position),
                                   "gnubg": [*map(float, equities[i]), actions[i]],
                                   "fastnardy": [mine.no_double, mine.double_take,
                                                 mine.double_pass, mine.action]})
                started = time.process_time()
                net = cube_decision(position, cube, "net:0")
                seconds["fastnardy net"] += time.process_time() - started
                net_same = same_action(net.action, actions[i])
                net_ok += net_same
                if not actions[i].startswith("No ") and actions[i] not in NOT_AVAILABLE:
                    offers[0] += net_same
                    offers[1] += 1
                tally[1] += net_same
                tally[2] += 1
                if cube.may_offer and net.take_point is not None:
                    take_point_errors.append(net.take_point - (mine.take_point or 0.0))
                    gap_errors.append((net.double_take - net.no_double)
                                      - (float(equities[i, 1]) - float(equities[i, 0])))
    finally:
        gnubg.close()
    return {"positions": len(found), "cases": model_cases,
            "model agrees": model_ok, "model share": round(model_ok / model_cases, 4),
            "worst equity gap": round(worst, 6), "tolerance": tolerance,
            "network action = gnubg's": net_ok, "network share": round(net_ok / model_cases, 4),
            "where gnubg doubles (or is too good), network action = gnubg's [same, cases]":
                offers,
            "take point error (mean abs)": round(float(np.mean(np.abs(take_point_errors))), 4),
            "double - no double error (mean abs)": round(float(np.mean(np.abs(gap_errors))), 4),
            "per cube [model, net, cases]": per_cube, "seconds": {k: round(v, 2)
                                                                  for k, v in seconds.items()},
            "model misses": misses}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contact", type=int, default=400)
    parser.add_argument("--race", type=int, default=100)
    parser.add_argument("--tolerance", type=float, default=0.005)
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args()
    print(json.dumps(compare(positions(args.contact, args.race), args.tolerance,
                             args.processes), indent=1))


if __name__ == "__main__":
    main()
