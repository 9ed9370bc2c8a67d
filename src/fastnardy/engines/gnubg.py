"""GNU Backgammon's move list (its ``hint`` at 0 ply, every legal move) as a cross-check
engine for short nardy (standard backgammon)::

    python -m fastnardy.engines.gnubg [--gnubg PATH] [--one-shot D R P]
    fastnardy crosscheck "python -m fastnardy.engines.gnubg" short 2 --movegen

It runs ``gnubg -t -q`` (Debian's ``gnubg`` package) with a small script for gnubg's
embedded Python: per request, ``set board ID``, ``set dice``, ``gnubg.hint()``. The moves
come back in gnubg's notation (``24/18*/13``, ``8/7(2)``, ``bar/22``, ``6/off``) and are
played here on the board, geometrically, hitting where gnubg marks a hit: the children are
GNU Backgammon's, not fastnardy's. A move generator: it answers ``divide 1`` only (use
``--movegen``). Checked (GNU Backgammon 1.07.001, Debian), no difference: from the short
start to depth 2 with ``--movegen`` (8,547 requests, 186 s), and at depth 1 on positions of
random games (``--random 100 --seed 1``, 2,100 requests; ``--random 200 --seed 2``, 4,200).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from typing import IO, List, Optional, Sequence

from ..position import Position
from . import Frame, Roll, absent, child_text, depth_one, options, serve

# run inside gnubg: one request a line on stdin ("ID D1 D2"), one answer a line on stdout,
# marked "@@" among what gnubg prints itself: the moves, ";"-separated, or "@@error ..."
SCRIPT = """
import sys
import gnubg
for command in ("set player 0 human", "set player 1 human", "set jacoby off",
                "set evaluation chequerplay evaluation plies 0",
                "set evaluation chequerplay evaluation prune off", "new game"):
    gnubg.command(command)
for line in sys.stdin:
    try:
        pid, high, low = line.split()
        gnubg.command("set board " + pid)
        gnubg.command("set dice %s %s" % (high, low))
        moves = [m["move"] for m in gnubg.hint(100000)["hint"]]  # none: a pass
        answer = "@@" + ";".join(moves)
    except Exception as error:
        answer = "@@error " + " ".join(("%s: %s" % (type(error).__name__, error)).split())
    sys.stdout.write(answer + "\\n")
    sys.stdout.flush()
"""
_MOVE = re.compile(r"(.+?)(?:\((\d)\))?")


class GnuBackgammon:
    """A ``gnubg -t`` process running :data:`SCRIPT`."""

    def __init__(self, program: str) -> None:
        script = tempfile.NamedTemporaryFile("w", suffix=".py", delete=False)
        with script:
            script.write(SCRIPT)
        self.process = subprocess.Popen([program, "-t", "-q", "-p", script.name],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.script = script.name

    def moves(self, pid: str, roll: Roll) -> List[str]:
        """gnubg's legal moves of the position ``pid`` (its player on roll) and ``roll``."""
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None
        stdin.write(f"{pid} {roll[0]} {roll[1]}\n")
        stdin.flush()
        moves = _answer(stdout)
        self._unlink()  # gnubg has read its script: nothing is left behind if it is killed
        return moves

    def _unlink(self) -> None:
        if self.script:
            os.unlink(self.script)
            self.script = ""

    def divide(self, depth: int, roll: Roll, position: Position, as_id: bool) -> List[str]:
        """The answer lines (without 'end') to one request."""
        depth_one(depth, "GNU Backgammon's hint")
        if position.rules.game != "short" or position.rules.variants():
            raise ValueError("GNU Backgammon plays standard backgammon only (short nardy, "
                             "default rules)")
        me, me_bar, opp, opp_bar = position.mover_frame()
        frame = (tuple(me), me_bar, tuple(opp), opp_bar)
        moves = self.moves(position.gnubg_id(), roll)
        if not moves:  # T3: a pass
            return [f"1 {child_text(position, as_id, frame)} | pass"]
        return [f"1 {child_text(position, as_id, play(frame, move))} | {move}"
                for move in moves]

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait()
        self._unlink()


def _answer(stdout: IO[str]) -> List[str]:
    for line in stdout:
        if line.startswith("@@error"):
            raise ValueError(f"GNU Backgammon: {line[8:].strip()}")
        if line.startswith("@@"):
            return [move for move in line[2:].strip().split(";") if move]
    raise RuntimeError("GNU Backgammon exited")


def _point(text: str) -> int:
    return 25 if text == "bar" else 0 if text == "off" else int(text)


def play(frame: Frame, move: str) -> Frame:
    """The board after gnubg's ``move`` (``24/18*/13 8/7(2)``) in the mover's frame: each
    checker from each point to the next, an opponent's blot sent to the bar where a point
    marked ``*`` holds one (in ``24/18*(2)`` the first checker hits)."""
    me, me_bar, opp, opp_bar = list(frame[0]), frame[1], list(frame[2]), frame[3]
    for token in move.split():
        matched = _MOVE.fullmatch(token)
        if matched is None:
            raise ValueError(f"GNU Backgammon wrote a move that does not read: {move!r}")
        times = int(matched.group(2) or 1)
        points = matched.group(1).split("/")
        for _ in range(times):
            for src, dst in zip(points, points[1:]):
                start, end = _point(src.rstrip("*")), _point(dst.rstrip("*"))
                if start == 25:
                    me_bar -= 1
                else:
                    me[start - 1] -= 1
                if end:
                    me[end - 1] += 1
                if dst.endswith("*") and end and opp[24 - end] == 1:  # its point 25 - end
                    opp[24 - end] = 0  # "24/18*(2)": the first of the two hits
                    opp_bar += 1
    return tuple(me), me_bar, tuple(opp), opp_bar


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Serve GNU Backgammon's hint to the cross-checker on stdin and stdout; the exit status."""
    parser = options(__doc__.split("\n")[0])
    parser.add_argument("--gnubg", default=shutil.which("gnubg") or "/usr/games/gnubg",
                        help="the gnubg program (default %(default)s)")
    args = parser.parse_args(argv)
    if not (os.path.isfile(args.gnubg) and os.access(args.gnubg, os.X_OK)):
        absent(f"GNU Backgammon ({args.gnubg})", "apt-get install gnubg, or pass --gnubg PATH")
    engine = GnuBackgammon(args.gnubg)
    try:
        return serve(engine.divide, args.one_shot)
    finally:
        engine.close()


if __name__ == "__main__":
    sys.exit(main())
