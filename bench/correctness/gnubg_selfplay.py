"""GNU Backgammon self-play, refereed by fastnardy.

Plays N matches of gnubg against itself (headless, 0-ply: cheap), exports each as a ``.mat``
file, then replays every file with ``fastnardy check-game``: each move gnubg played must be
legal here (S1-S9) and each roll it could not play must be a pass here (T3). It also checks
that fastnardy's position after every turn has the GNU Backgammon Position ID gnubg printed
after that move (so both number the points alike), and compares the result of every game that
ended on the board (not by a drop or a resignation) with fastnardy's S9 score times the cube.
Next to each ``NAME.mat`` it writes ``NAME.ids``: gnubg's Position ID after each turn of the
file, one a line (``-`` when the turn ended the game); the tests replay both.

    apt-get install gnubg
    python bench/correctness/gnubg_selfplay.py --matches 20 --length 5 --out /tmp/gnubg

Exit status: that of check-game (0 all legal, 1 an illegal turn, 2 an unreadable file), or 1
when a position or a score disagrees.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import List, Tuple

from fastnardy import Game, Position
from fastnardy.cli import main as fastnardy_main
from fastnardy.formats.mat import read_mat
from fastnardy.record import RecordedTurn

GNUBG = "/usr/games/gnubg"


def gnubg_script(matches: int, length: int, seed: int, out: Path) -> str:
    """gnubg commands: both players gnubg at 0 ply, one seeded match per file."""
    lines = ["set confirm new off", "set confirm save off",
             "set defaultnames white black"]  # player 0 (left column) is read as white
    for player in (0, 1):
        lines += [f"set player {player} gnubg",
                  f"set player {player} chequerplay evaluation plies 0",
                  f"set player {player} cubedecision evaluation plies 0"]
    for index in range(matches):
        lines += [f"set seed {seed + index}", f"new match {length}",
                  f"export match mat {out / f'selfplay_{seed + index:04d}.mat'}"]
    return "\n".join(lines + ["quit", ""])


def play(matches: int, length: int, seed: int, out: Path) -> Tuple[List[Path], str]:
    """Run gnubg on the script (commands on stdin, no GUI); the files it wrote and its log."""
    out.mkdir(parents=True, exist_ok=True)
    files = [out / f"selfplay_{seed + index:04d}.mat" for index in range(matches)]
    for path in files:
        path.unlink(missing_ok=True)
    log = subprocess.run([GNUBG, "-t", "-q"], input=gnubg_script(matches, length, seed, out),
                         text=True, capture_output=True, check=True).stdout
    missing = [str(p) for p in files if not p.exists()]
    if missing:
        raise SystemExit(f"gnubg did not write {', '.join(missing)}")
    return files, log


def logged_ids(log: str) -> List[str]:
    """The Position ID gnubg printed after each move ('white moves ...', 'black cannot move'),
    or "-" after a move that ended the game (gnubg prints no board then)."""
    following = re.findall(r"^(?:white|black) (?:moves|cannot move).*\n(.*)", log, re.MULTILINE)
    return [m.group(1) if m else "-" for m in map(re.compile(r"Position ID: (\S+)").search,
                                                     following)]


def replayed(path: Path) -> List[Tuple[int, RecordedTurn, Position]]:
    """(game number, recorded turn, position after it) for each turn of a .mat file."""
    return [(mat_game.number, entry, turn.position)
            for mat_game in read_mat(path.read_text(encoding="utf-8"))
            for entry, (_, turn) in zip(mat_game.to_record().turns,
                                        Game.from_record(mat_game.to_record()).history)]


def position_disagreements(path: Path, turns: List[Tuple[int, RecordedTurn, Position]],
                           ids: List[str]) -> List[str]:
    """Turns after which fastnardy's position is not the one gnubg printed ("-": game over)."""
    return [f"{path}: game {number}: line {entry.line}: gnubg {theirs}, "
            f"fastnardy {position.to_string()}"
            for (number, entry, position), theirs in zip(turns, ids)
            if theirs != (position.gnubg_id() if not position.is_game_over() else "-")]


def score_disagreements(path: Path) -> List[str]:
    """Games that ended on the board whose 'Wins N points' differs from S9 times the cube."""
    problems = []
    for mat_game in read_mat(path.read_text(encoding="utf-8")):
        game = Game.from_record(mat_game.to_record())
        outcome, result = game.outcome(mat_game.cube), mat_game.result
        if outcome is not None and (result is None or (result.side, result.points)
                                    != (outcome.winner, outcome.points)):
            problems.append(f"{path}: game {mat_game.number}: gnubg says {result}, "
                            f"fastnardy {outcome}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--length", type=int, default=5, help="match length in points")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first match")
    parser.add_argument("--out", type=Path, default=Path("gnubg_selfplay"))
    args = parser.parse_args()

    start = time.perf_counter()
    files, log = play(args.matches, args.length, args.seed, args.out)
    played = time.perf_counter() - start
    games = [g for path in files for g in read_mat(path.read_text(encoding="utf-8"))]
    turns = [a for g in games for a in g.actions if isinstance(a, RecordedTurn)]
    passes = sum(t.turn == "pass" for t in turns)
    print(f"gnubg played {len(files)} matches, {len(games)} games, {len(turns)} turns "
          f"({passes} passes) in {played:.1f} s")

    start = time.perf_counter()
    status = fastnardy_main(["check-game", *map(str, files)])
    if status:
        return status
    ids = logged_ids(log)
    replays = {path: replayed(path) for path in files}
    if len(ids) != sum(map(len, replays.values())):
        print(f"gnubg logged {len(ids)} moves, the files hold {sum(map(len, replays.values()))}")
        return 1
    problems = []
    for path, replay in replays.items():
        file_ids, ids = ids[:len(replay)], ids[len(replay):]
        path.with_suffix(".ids").write_text("\n".join(file_ids) + "\n", encoding="utf-8")
        problems += position_disagreements(path, replay, file_ids)
    print("\n".join(problems) or "after every turn fastnardy's position has the Position ID "
                                 "gnubg printed (.ids files written)")
    scores = [p for path in files for p in score_disagreements(path)]
    print("\n".join(scores) or "every game that ended on the board scores as gnubg says (S9)")
    print(f"checked in {time.perf_counter() - start:.1f} s")
    return int(bool(problems + scores))


if __name__ == "__main__":
    sys.exit(main())
