"""CI: check what the sdist and the wheel hold (MANIFEST.in and package-data decide it).

    python .ci/check_dists.py dist/fastnardy-VERSION.tar.gz dist/fastnardy-VERSION-*.whl

The sdist: the sources to build from (.pyx, .pxd, .pyi, py.typed, the rule book), the tests
and their data, the benchmarks, README and LICENSE; no generated C, no compiled or build
files. The wheel: the package with its compiled modules (_kernel, _features), the .pyi,
.pxd, py.typed and the rule book; no C and no .pyx. Prints one line per archive, exits 1 on
the first problem.
"""

from __future__ import annotations

import sys
import tarfile
import zipfile
from typing import Iterable, List, Tuple

SDIST_NEEDS = (
    "LICENSE", "README.md", "pyproject.toml", "setup.py", "MANIFEST.in",
    "src/fastnardy/__init__.py", "src/fastnardy/_kernel.pyx", "src/fastnardy/_kernel.pxd",
    "src/fastnardy/_kernel.pyi", "src/fastnardy/_features.pyx", "src/fastnardy/_features.pyi",
    "src/fastnardy/py.typed", "src/fastnardy/docs/rules.md",
    "tests/conftest.py", "tests/strategies.py", "tests/data/long.perft",
    "tests/data/short.perft", "bench/differential.py",
)
SDIST_FORBIDS = (".c", ".so", ".pyc", ".html")
WHEEL_NEEDS = (
    "fastnardy/__init__.py", "fastnardy/_kernel.pyi", "fastnardy/_kernel.pxd",
    "fastnardy/_features.pyi",
    "fastnardy/py.typed", "fastnardy/docs/rules.md",
)
WHEEL_FORBIDS = (".c", ".pyx")


def problems(kind: str, names: List[str], needs: Iterable[str],
             forbids: Tuple[str, ...]) -> List[str]:
    """What is missing from an archive, and what it must not hold."""
    found = [f"{kind} lacks {name}" for name in needs if name not in names]
    found += [f"{kind} holds {name}" for name in names if name.endswith(forbids)]
    return found


def main(sdist_path: str, wheel_path: str) -> int:
    with tarfile.open(sdist_path) as sdist:
        # every member sits under "fastnardy-VERSION/"
        sdist_names = [m.name.split("/", 1)[1] for m in sdist.getmembers()
                       if m.isfile() and "/" in m.name]
    with zipfile.ZipFile(wheel_path) as wheel:
        wheel_names = wheel.namelist()
    found = problems("sdist", sdist_names, SDIST_NEEDS, SDIST_FORBIDS)
    found += [f"sdist holds build output {name}" for name in sdist_names
              if name.startswith("build/")]
    found += problems("wheel", wheel_names, WHEEL_NEEDS, WHEEL_FORBIDS)
    for module in ("_kernel", "_features"):
        compiled = [name for name in wheel_names if name.startswith(f"fastnardy/{module}.")
                    and name.endswith((".so", ".pyd"))]
        if len(compiled) != 1:
            found.append(f"wheel must hold one compiled {module}, holds {compiled}")
    for problem in found:
        print(f"check_dists: {problem}", file=sys.stderr)
    if found:
        return 1
    print(f"check_dists: sdist {len(sdist_names)} files, wheel {len(wheel_names)} files: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
