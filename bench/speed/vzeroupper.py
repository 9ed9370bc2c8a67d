"""Exits of AVX code that leave the vector registers' upper halves dirty, in built modules.

    FASTNARDY_PROFILE=1 python setup.py build_ext     # symbols kept, under build/profile
    python bench/speed/vzeroupper.py build/profile/lib*/fastnardy/*.so

A function that writes ymm or zmm registers must clear their upper halves (``vzeroupper``)
before it returns or jumps into other code: the package's SSE code (the move generator,
Cython's own) then runs with them dirty, and Intel's cores pay for that on every SSE
instruction (AMD's do not). GCC adds the instruction at returns, but it once reached a
baseline function by a tail call without it: ``batch.expand`` into keys took a quarter
longer on the Intel machine (``8d56bbe``). This reads ``objdump -d`` of each module and
prints every ``ret`` or ``jmp`` into another function met, in address order within a
function, after a ymm or zmm write and no ``vzeroupper`` since (address order is not
control flow, so a line printed is a place to look at, and none printed is the goal); the
release build is stripped, so its functions have no names to split on. Exit status 1 when it
prints one.
"""

from __future__ import annotations

import re
import subprocess
import sys
from typing import Iterator, List, Tuple

FUNCTION = re.compile(r"^[0-9a-f]+ <([^>]+)>:$")


def functions(module: str) -> Iterator[Tuple[str, List[str]]]:
    """(name, instructions) of each function in ``objdump -d`` of ``module``."""
    listing = subprocess.run(["objdump", "-d", "--no-show-raw-insn", module],
                             capture_output=True, text=True, check=True).stdout
    name = ""
    body: List[str] = []
    for line in listing.splitlines():
        start = FUNCTION.match(line)
        if start:
            if name:
                yield name, body
            name, body = start.group(1), []
        elif name and ":\t" in line:
            body.append(line.split(":\t", 1)[1].strip())
    if name:
        yield name, body


def dirty_exits(name: str, body: List[str]) -> Iterator[str]:
    """The exits of one function taken with the upper halves dirty (address order)."""
    dirty = False
    for instruction in body:
        if instruction.startswith("vzeroupper"):
            dirty = False
        elif re.search(r"%[yz]mm", instruction):
            dirty = True
        leaves = instruction.startswith("ret") or (
            instruction.startswith("jmp") and "<" in instruction
            and not instruction.split("<", 1)[1].startswith(name))
        if leaves and dirty:
            yield instruction


def main(modules: List[str]) -> int:
    found = 0
    for module in modules:
        for name, body in functions(module):
            for instruction in dirty_exits(name, body):
                print(f"{module}: {name}: {instruction}")
                found += 1
    print(f"{found} exits with the upper halves dirty in {len(modules)} modules")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
