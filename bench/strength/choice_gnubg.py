"""Issue 67's choice goal against GNU Backgammon 1.07: on contact positions of gnubg's set
(``data/bg_contact_ids.txt``, crashed boards left out, in a seeded order, each with a seeded
roll of two legal turns or more), how often fastnardy's first turn at a setting
(:func:`fastnardy.analysis.hint`, default ``net:2:cubeless``) is gnubg's own at the same plies
(``gnubg:expert:P``, its move filters, no cube). One JSON line.

    python bench/strength/choice_gnubg.py --positions 400 --seed 10
"""

from __future__ import annotations

import argparse
import json
import random
import time

from fastnardy import Position, analysis
from fastnardy.batch import encode
from fastnardy.play.players import player
from fastnardy.search.network import crashes
from fastnardy.search.setting import Setting
from fastnardy.testing.speed import gnubg_ids


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--setting", default="net:2:cubeless")
    args = parser.parse_args()
    chosen = Setting.parse(args.setting)
    rng = random.Random(args.seed)
    ids = gnubg_ids("bg_contact_ids.txt")
    rng.shuffle(ids)
    same = total = 0
    started = time.perf_counter()
    with player(f"gnubg:expert:{chosen.plies}", "short") as gnubg:
        for pid in ids:
            position = Position.from_gnubg_id(pid)
            if crashes("short", encode([position]))[0]:
                continue
            roll = (rng.randint(1, 6), rng.randint(1, 6))
            if len(position.legal_turns(roll)) < 2:
                continue
            mine = analysis.hint(position, roll, chosen)[0].turn
            same += str(mine) == str(gnubg.turn(position, roll))
            total += 1
            if total == args.positions:
                break
    print(json.dumps({"setting": str(chosen.resolved("short")), "gnubg": f"gnubg:expert:"
                      f"{chosen.plies}", "seed": args.seed, "same": same, "positions": total,
                      "share": round(same / total, 4) if total else None,
                      "seconds": round(time.perf_counter() - started, 1)}))


if __name__ == "__main__":
    main()
