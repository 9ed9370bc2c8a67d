"""How hostile engines end under fastnardy.engines.crosscheck: for each engine and both kinds
(a long-running process and --one-shot), the wall time from the request to the
EngineError against the deadline, the driver's peak memory, and the processes of the
engine's group still alive afterwards (issue 24, item 4).

    python bench/correctness/hostile_engines.py [--timeout 2]

The engines: one printing a blank line every 0.5 s, one printing one valid line a second,
one that forks a child holding stdout and exits, one writing output as fast as it can
(one line, and 4,000-byte lines), one that sleeps. Prints one line per case and exits 1 when
a case overran its deadline by more than a second or left a process behind.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import List

from fastnardy import EngineError, Position
from fastnardy.engines import crosscheck as xc

ENGINES = {
    "blank line every 0.5 s": "while True:\n    print(flush=True); time.sleep(0.5)\n",
    "valid line every 1 s": "while True:\n    print('1 long b 24:14,18:1 24:15', flush=True)"
                            "; time.sleep(1)\n",
    "forks, exits": "if os.fork() == 0:\n    time.sleep(600)\n",
    "one endless line": "while True:\n    sys.stdout.write('1' * 65536); sys.stdout.flush()\n",
    "4,000-byte lines flat out": "while True:\n    sys.stdout.write(('1 ' + 'x' * 4000 + "
                                 "'\\n') * 64); sys.stdout.flush()\n",
    "sleeps": "time.sleep(600)\n",
}


def group_alive(pgid: int) -> List[int]:
    """The processes of group ``pgid`` that are not zombies."""
    alive = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] not in ("Z", "X") and int(fields[2]) == pgid:
            alive.append(int(stat.parent.name))
    return alive


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--timeout", type=float, default=2.0)
    args = parser.parse_args(argv)
    failed = False
    with tempfile.TemporaryDirectory() as folder:
        for name, body in ENGINES.items():
            for kind in (xc.ProcessEngine, xc.OneShotEngine):
                script, pid_file = Path(folder) / "engine.py", Path(folder) / "engine.pid"
                read = "sys.stdin.readline()\n" if kind is xc.ProcessEngine else ""
                script.write_text("import os, sys, time\nopen(sys.argv[1], 'w')"
                                  f".write(str(os.getpgid(0)))\n{read}{body}")
                engine = kind([sys.executable, str(script), str(pid_file)],
                              timeout=args.timeout)
                start = time.perf_counter()
                try:
                    xc.crosscheck(engine, Position.start("long"), 1)
                    error = "no error"
                except EngineError as exc:
                    error = str(exc)[len(f"the engine {engine.name!r} "):][:70]
                elapsed = time.perf_counter() - start
                time.sleep(0.2)  # SIGKILL lands when the process is next scheduled
                left = group_alive(int(pid_file.read_text()))
                peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
                failed |= elapsed > args.timeout + 1 or bool(left)
                print(f"{name:27} {kind.__name__:13} {elapsed:5.2f} s  peak {peak:5.0f} MB  "
                      f"left {len(left)}  {error}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
