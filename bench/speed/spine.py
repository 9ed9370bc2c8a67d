"""The doors' speed before and after the evaluation spine (issue 65's goal: ``hint``,
``analyse``, ``match`` and self-play within 5% of the main before it, 8217246): the same
requests, in thread CPU seconds (median of ``--rounds``), measured on the installed package,
whichever side of the spine it is. Install each version in its own venv (or put its
``src`` first on ``PYTHONPATH`` after an in-place build), then run this script with each,
alternately, several times:

    for i in 1 2 3; do PYTHONPATH=OLD/src python bench/speed/spine.py; python bench/speed/spine.py; done

The requests: ``hint`` of 30 short and 30 long positions of random games at 0, 1 and 2
plies, cubeful (money play, gnubg's filters: the command line's request on both sides);
``analyse`` of GNU Backgammon's self-play match ``tests/data/gnubg/selfplay_0001.mat`` at 0
ply, cubeful; a 400-game duel of the shipped long network against itself at 0 ply
(``fastnardy match net:0 net:0``); 2,000 self-play games of each game with the int16
network (``simulate``)."""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path
from typing import Callable, Dict, List, Tuple

from fastnardy import Position, Rules, analysis, simulate
from fastnardy.search.network import Evaluator

ROOT = Path(__file__).resolve().parents[2]
MATCH = ROOT / "tests" / "data" / "gnubg" / "selfplay_0001.mat"
try:  # after the spine
    from fastnardy.play.duel import play_games
    from fastnardy.play.players import player
    from fastnardy.search.setting import Setting
    SPINE = True
except ImportError:  # before it (8217246)
    from fastnardy.play.match import Network, play_match
    from fastnardy.search.tree import GNUBG_FILTERS
    SPINE = False


def positions(game: str, count: int, seed: int) -> List[Tuple[Position, Tuple[int, int]]]:
    """Positions of random games, each with a roll of two legal turns or more."""
    rng = random.Random(seed)
    out: List[Tuple[Position, Tuple[int, int]]] = []
    position = Position.start(game)
    while len(out) < count:
        if position.outcome() is not None:
            position = Position.start(game)
        roll = (rng.randint(1, 6), rng.randint(1, 6))
        legal = position.legal_turns(roll)
        if len(legal) > 1 and rng.random() < 0.2:
            out.append((position, roll))
        position = rng.choice(list(legal)).position if legal else position.pass_turn()
    return out


def hint(game: str, plies: int) -> Callable[[], object]:
    requests = positions(game, 30 if plies < 2 else 10, 5)
    if SPINE:
        setting = Setting("net", plies)
        return lambda: [analysis.hint(p, r, setting) for p, r in requests]
    net = Evaluator.load(game)
    return lambda: [analysis.hint(p, r, net, plies, GNUBG_FILTERS if plies else None,
                                  cube=analysis.Cube.money(game)) for p, r in requests]


def analyse() -> Callable[[], object]:
    text = MATCH.read_text()
    if SPINE:
        return lambda: analysis.analyse(text, MATCH.name, "net:0")
    return lambda: analysis.analyse(text, MATCH.name, Evaluator.load("short"), 0)


def duel() -> Callable[[], object]:
    rules = Rules.long()
    if SPINE:
        a, b = player("net:0", rules), player("net:0", rules)
        return lambda: play_games(rules, a, b, 400, 1)
    net = Evaluator.load("long")
    return lambda: play_match(rules, Network(net, 0), Network(net, 0), 400, 1)


def selfplay(game: str) -> Callable[[], object]:
    net = Evaluator.load(game, "int16")
    return lambda: simulate(game, 2000, 1, net)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    work: Dict[str, Callable[[], object]] = {
        **{f"hint {game} {plies} ply": hint(game, plies) for game in ("short", "long")
           for plies in (0, 1, 2)},
        "analyse selfplay_0001 0 ply": analyse(), "match long net:0 400 games": duel(),
        "self-play short int16": selfplay("short"), "self-play long int16": selfplay("long")}
    print(f"{'after' if SPINE else 'before'} the spine: thread CPU s, median of {args.rounds}")
    for name, run in work.items():
        run()  # warm: the networks read, the caches filled
        times = []
        for _ in range(args.rounds):
            start = time.thread_time()
            run()
            times.append(time.thread_time() - start)
        print(f"{name:<30} {statistics.median(times):8.4f}")


if __name__ == "__main__":
    main()
