"""GNU Backgammon as an engine (short nardy; the player of the setting
``gnubg:PRESET[:PLIES]`` is :class:`fastnardy.play.players.GnubgPlayer`): its presets
``beginner`` and ``expert`` (noise 0.060 / none) at 0 to 4 plies (its own move filters;
cubeless, or with the cube cubeful under each game's cube and score, its own cube decisions
at the same plies), driven headless through ``data/gnubg_driver.py`` in processes of its
own; each move gnubg returns must be one of fastnardy's legal turns (T1)
(:func:`chosen`), or an EngineError."""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, List, Optional, Sequence, TextIO, Tuple, cast

import numpy as np
import numpy.typing as npt

from .. import checks
from ..batch import MIRROR_COLUMNS, decode
from ..errors import EngineError, FastNardyError
from ..rules import Rules
from ..search.cubeful import Cube, cubes_of
from ..basics import ROW_WIDTH
from ..search.setting import GNUBG_PLIES, Setting, setting as as_setting

__all__ = ["GNUBG", "Gnubg", "ROWS_PER_PROCESS", "chosen"]

HALF = ROW_WIDTH // 2
Rows = npt.NDArray[np.int8]
Indices = npt.NDArray[np.int64]

GNUBG = "/usr/games/gnubg"
DRIVER = Path(__file__).parent.parent / "data" / "gnubg_driver.py"
NOISE = {"beginner": 0.060, "expert": 0.0}  # gnubg's presets (eval.c aecSettings), 0 ply
# the rows of a request for each gnubg process that shares it: one more process (about 0.15 s
# and 70 MiB to start) saves 10 ms for each row it takes over
ROWS_PER_PROCESS = 8


class _Driver:
    """One ``gnubg -t`` process running :data:`DRIVER`, through two FIFOs."""

    def __init__(self) -> None:
        self.folder = tempfile.TemporaryDirectory(prefix="gnubg-driver-")
        fifos = [os.path.join(self.folder.name, name) for name in ("in", "out")]
        for fifo in fifos:
            os.mkfifo(fifo)
        environment = dict(os.environ, GNUBG_DRIVER_IN=fifos[0], GNUBG_DRIVER_OUT=fifos[1])
        self.process = subprocess.Popen([GNUBG, "-t", "-q", "-p", str(DRIVER)],
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, env=environment)
        try:  # Ctrl-C while gnubg starts (about 0.5 s) must not leave it running
            self.requests = self._open_writer(fifos[0])  # both ends in the driver's order
            self.answers = open(fifos[1])
        except BaseException:
            self.process.kill()
            self.process.wait(timeout=30)
            if hasattr(self, "requests"):
                self.requests.close()
            self.folder.cleanup()
            raise
        self.in_flight = False  # a request is written and its answer not yet read

    def _open_writer(self, fifo: str, seconds: float = 120.0) -> TextIO:
        """The request FIFO, once gnubg opens it: never a hang on a gnubg that died."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                descriptor = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
                break
            except OSError:  # ENXIO: no reader yet
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.process.kill()
                    raise EngineError(f"gnubg did not start the driver (exit status "
                                      f"{self.process.poll()})") from None
                time.sleep(0.05)
        os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "w")

    def ask(self, head: str, items: List[str]) -> List[str]:
        """One request line, its answer's items."""
        self.in_flight = True
        self.requests.write(f"{head} {';'.join(items)}\n")
        self.requests.flush()
        line = self.answers.readline()
        self.in_flight = False
        if not line.startswith("@@"):
            raise EngineError(f"gnubg exited ({self.process.poll()})")
        answer = line[2:].strip()
        if answer.startswith("error"):
            raise EngineError(f"gnubg: {answer}")
        return answer.split(";")

    def close(self) -> None:
        """End the process: its request FIFO closed, it ends; killed if it has not within
        2 s (a process forked since holds the FIFO's write end, so gnubg never reads its
        end)."""
        self.requests.close()
        self.answers.close()
        try:
            self.process.wait(timeout=2)  # a gnubg that reads the close ends in ~30 ms
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=30)
        self.folder.cleanup()

    def abandon(self) -> None:
        """Stop the process whose answer is no longer wanted (an interrupted request): its
        late answer must never be read as the next request's."""
        self.process.kill()
        self.process.wait(timeout=30)
        for stream in (self.requests, self.answers):
            try:
                stream.close()
            except OSError:  # the write end's flush to a reader that is gone
                pass
        self.folder.cleanup()


def cube_numbers(cube: Any) -> List[int]:
    """The driver's six numbers of a cube (the mover's view): value, owner (-1 centred, 0 the
    mover, 1 the other), length, the two scores and the Crawford flag."""
    cube = Cube.of(cube)
    if cube.jacoby or cube.stakes != "geometric" or cube.cancels_mars:
        raise FastNardyError("gnubg's cube is geometric, without Jacoby or C4")
    owner = {"centered": -1, "mover": 0, "opponent": 1}[cube.owner]
    return [cube.value, owner, cube.length, cube.score[0], cube.score[1], int(cube.crawford)]


def chosen(rules: Rules, rows: Rows, dice: npt.NDArray[Any], children: Rows,
           offsets: Indices, moves: List[List[int]]) -> Indices:
    """The index into ``children`` of each of gnubg's moves (from, to pairs in the mover's
    numbering), each checked to be one of the row's legal turns (T1)."""
    mirror = MIRROR_COLUMNS["short"]
    chosen = np.empty(len(rows), dtype=np.int64)
    for i, (row, move) in enumerate(zip(rows, moves)):
        after = row.astype(np.int64).copy()
        for source, target in zip(move[::2], move[1::2]):  # 25 the bar, 0 off
            after[source - 1] -= 1
            if target:
                after[target - 1] += 1
                hit = HALF + int(mirror[target - 1])
                if after[hit] == 1:  # a blot of the opponent's: to its bar (S3)
                    after[hit], after[-1] = 0, after[-1] + 1
        swapped = np.concatenate([after[HALF:], after[:HALF]])
        group = children[offsets[i]:offsets[i + 1]]
        same = np.flatnonzero((group == swapped).all(axis=1))
        if len(same) != 1:
            position = decode(rules, row[None])[0]
            raise EngineError(f"T1: gnubg's move {move} for dice {tuple(dice[i])} in "
                              f"{position} is not one of its legal turns")
        chosen[i] = offsets[i] + same[0]
    return chosen


class Gnubg:
    """GNU Backgammon's processes for a setting ``gnubg:PRESET[:PLIES]``: its moves
    (cubeless, money game without Jacoby; with the cube, cubeful under each row's), its
    evaluations and its cube decisions. gnubg's Python calls wait on its task queue (about
    10 ms a call however little they compute), so a request is shared among gnubg processes
    asked at once: one, started here, and one more for each :data:`ROWS_PER_PROCESS` rows a
    request has, up to ``processes``, each kept for the next requests until :meth:`close`.
    A player of one game at a time keeps one process."""

    def __init__(self, setting: "Setting | str" = "gnubg:expert", processes: int = 8) -> None:
        chosen = as_setting(setting)
        if not isinstance(chosen.evaluator, str) or chosen.evaluator not in _PRESETS:
            raise FastNardyError(f"a GNU Backgammon player's setting is gnubg[:PRESET][:PLIES], "
                                 f"not {chosen}")
        processes = checks.number(processes, "processes", 1)
        if not Path(GNUBG).exists():
            raise EngineError(f"{GNUBG} not found: apt-get install -y gnubg")
        self.setting, self.plies = chosen, chosen.plies
        self.noise = NOISE[_PRESETS[chosen.evaluator]]
        self.processes = processes
        # None: abandoned by an interrupted request (one fewer, started again when needed)
        self.drivers: List[Optional[_Driver]] = [_Driver()]  # a gnubg that fails, fails here
        self.pool = ThreadPoolExecutor(processes) if processes > 1 else None
        self.lock = threading.Lock()  # one request at a time: the FIFOs carry one line each
        self.seconds = 0.0  # gnubg's wall time (its CPU is other processes')

    def _ask(self, head: str, items: List[str]) -> List[str]:
        """The answers' items to ``items``, shared among the drivers in contiguous parts
        (threads calling at once take turns)."""
        if not items:
            return []
        with self.lock:
            wanted = min(self.processes, -(-len(items) // ROWS_PER_PROCESS))
            self.drivers = [driver for driver in self.drivers if driver is not None]
            while len(self.drivers) < wanted:
                self.drivers.append(_Driver())
            drivers = cast(List[_Driver], self.drivers)
            started = time.perf_counter()
            k = min(len(drivers), len(items))
            bounds = [len(items) * i // k for i in range(k + 1)]
            parts = [items[bounds[i]:bounds[i + 1]] for i in range(k)]
            try:
                if self.pool is None or k == 1:
                    answers = [drivers[0].ask(head, items)]
                else:
                    answers = list(self.pool.map(lambda i: drivers[i].ask(head, parts[i]),
                                                 range(k)))
            except BaseException:  # Ctrl-C: the answers still coming are no one's
                for i, driver in enumerate(drivers):
                    if driver.in_flight:
                        driver.abandon()
                        self.drivers[i] = None  # started again when a request needs it
                raise
            self.seconds += time.perf_counter() - started
        return [item for answer in answers for item in answer]

    def moves(self, rows: Rows, dice: npt.NDArray[Any]) -> List[List[int]]:
        """gnubg's move for each row: from, to pairs in the mover's numbering."""
        items = [",".join(map(str, list(row) + list(d))) for row, d in zip(rows, dice)]
        return [[int(x) for x in part.split(",") if x]
                for part in self._ask(f"best {self.noise} {self.plies}", items)]

    def probabilities(self, rows: Rows, plies: int = 0) -> npt.NDArray[np.float64]:
        """gnubg's cubeless evaluation at ``plies`` plies of each board row (short nardy,
        none finished) for its side to move: (N, 5), the five outputs of
        :data:`fastnardy.search.network.OUTPUTS` (gnubg's win, win gammon, win backgammon, lose
        gammon, lose backgammon)."""
        boards = checks.rows(rows)
        plies = checks.number(plies, "plies", 0, GNUBG_PLIES)
        items = [",".join(map(str, row)) for row in boards.astype(np.int64)]
        answer = self._ask(f"evaluate {plies}", items)
        return np.array([[float(x) for x in part.split(",")] for part in answer]).reshape(-1, 5)

    def cube_decisions(self, rows: Rows, cube: Any, plies: int = 0
                       ) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], List[str]]:
        """gnubg's cube decision of each board row for its side to move under ``cube`` (a
        :class:`fastnardy.search.cubeful.Cube`, geometric stakes, no Jacoby, or a sequence
        of them, one per row) at ``plies``: its five outputs (N, 5), its no double, double
        take and double pass equities (N, 3, normalised) and its recommendation's words."""
        boards = checks.rows(rows)
        plies = checks.number(plies, "plies", 0, GNUBG_PLIES)
        items = [",".join(map(str, list(row) + cube_numbers(one)))
                 for row, one in zip(boards.astype(np.int64), cubes_of(cube, len(boards)))]
        answer = self._ask(f"cube {plies}", items)
        fields = [part.split(",", 8) for part in answer]
        outputs = np.array([[float(x) for x in f[:5]] for f in fields]).reshape(-1, 5)
        equities = np.array([[float(x) for x in f[5:8]] for f in fields]).reshape(-1, 3)
        return outputs, equities, [f[8] for f in fields]

    def cubeful_moves(self, rows: Rows, dice: npt.NDArray[Any], cubes: Sequence[Any]
                      ) -> List[List[int]]:
        """gnubg's cubeful move at its plies for each row under its cube (the mover's
        view): from, to pairs in the mover's numbering."""
        items = [",".join(map(str, list(row) + list(d) + cube_numbers(cube)))
                 for row, d, cube in zip(checks.rows(rows).astype(np.int64), dice,
                                         cubes_of(cubes, len(rows)))]
        return [[int(x) for x in part.split(",") if x]
                for part in self._ask(f"move {self.noise} {self.plies}", items)]

    def close(self) -> None:
        """End the processes."""
        if self.pool is not None:
            self.pool.shutdown()
        for driver in self.drivers:
            if driver is not None:  # None: abandoned by an interrupted request
                driver.close()


_PRESETS = {f"gnubg:{preset}": preset for preset in NOISE}
