"""CI: check what the sdist and the wheel hold (MANIFEST.in and package-data decide it).

    python .ci/check_dists.py dist/fastnardy-VERSION.tar.gz dist/fastnardy-VERSION-*.whl

The sdist: the sources to build from (each kernel module's .pyx and .pxd, _features',
_bearoff's and _nnet's and _nnet_simd.h, the .pyi stubs, py.typed, the rule book, the shipped weights,
match equity rates and benchmark sets), the example trainer, the tests and their data, the
documentation site's sources (the tests run its pages), the benchmarks, README and LICENSE;
no generated C, no compiled or build files. The wheel: the package with one compiled module per kernel
module, _features, _bearoff and _nnet, the .pxd files (for code that cimports them), the .pyi stubs,
py.typed, the rule book, the shipped weights, match equity rates and benchmark sets; no C
and no .pyx. The kernel modules are read from the sdist's setup.py (KERNEL_MODULES). Prints
one line per archive, exits 1 on the first problem.
"""

from __future__ import annotations

import ast
import sys
import tarfile
import zipfile
from typing import Iterable, List, Tuple

SDIST_NEEDS = (
    "LICENSE", "README.md", "CHANGELOG.md", "pyproject.toml", "setup.py", "MANIFEST.in",
    "src/fastnardy/__init__.py", "src/fastnardy/_kernel.pyi", "src/fastnardy/_features.pyx",
    "src/fastnardy/_features.pyi", "src/fastnardy/_features.pxd", "src/fastnardy/_nnet.pyx",
    "src/fastnardy/_nnet.pxd", "src/fastnardy/_nnet.pyi", "src/fastnardy/_nnet_simd.h",
    "src/fastnardy/_bearoff.pyx", "src/fastnardy/_bearoff.pxd", "src/fastnardy/_bearoff.pyi",
    "src/fastnardy/_dice.pxd", "src/fastnardy/py.typed",
    "src/fastnardy/docs/rules.md", "src/fastnardy/data/bg_contact_ids.txt",
    "src/fastnardy/data/bg_race_ids.txt", "src/fastnardy/weights/long.npz",
    "src/fastnardy/weights/short.npz", "docs/weights.md",
    "src/fastnardy/data/met.json", "src/fastnardy/data/benchmark_long.json",
    "src/fastnardy/data/benchmark_short.json", "examples/train_td.py", "docs/conf.py",
    "docs/getting-started.md",
    "tests/conftest.py", "tests/strategies.py", "tests/data/long.perft",
    "tests/data/short.perft", "bench/correctness/differential.py",
)
SDIST_FORBIDS = (".c", ".so", ".pyc", ".html")
WHEEL_NEEDS = (
    "fastnardy/__init__.py", "fastnardy/_kernel.pyi", "fastnardy/_features.pyi",
    "fastnardy/_features.pxd", "fastnardy/_nnet.pyi", "fastnardy/_nnet.pxd",
    "fastnardy/_bearoff.pyi", "fastnardy/_bearoff.pxd",
    "fastnardy/py.typed", "fastnardy/docs/rules.md", "fastnardy/data/bg_contact_ids.txt",
    "fastnardy/data/bg_race_ids.txt", "fastnardy/weights/long.npz",
    "fastnardy/weights/short.npz", "fastnardy/data/met.json",
    "fastnardy/data/benchmark_long.json", "fastnardy/data/benchmark_short.json",
    "fastnardy/engines/__init__.py", "fastnardy/engines/reference.py",
    "fastnardy/engines/openspiel.py", "fastnardy/engines/gnubg.py",
    "fastnardy/engines/bgsage.py", "fastnardy/_dice.pxd",
    # a module of each folder of the package's satellites
    "fastnardy/__main__.py", "fastnardy/cli/__init__.py", "fastnardy/cli/options.py",
    "fastnardy/search/network.py", "fastnardy/analysis/review.py", "fastnardy/play/players.py",
    "fastnardy/envs/vector.py", "fastnardy/formats/mat.py", "fastnardy/testing/samples.py",
    "fastnardy/_utils/files.py", "fastnardy/engines/crosscheck.py",
    "fastnardy/training/labels.py",
)
WHEEL_FORBIDS = (".c", ".pyx")


def problems(kind: str, names: List[str], needs: Iterable[str],
             forbids: Tuple[str, ...]) -> List[str]:
    """What is missing from an archive, and what it must not hold."""
    found = [f"{kind} lacks {name}" for name in needs if name not in names]
    found += [f"{kind} holds {name}" for name in names if name.endswith(forbids)]
    return found


def kernel_modules(setup_py: str) -> Tuple[str, ...]:
    """The names in setup.py's ``KERNEL_MODULES = (...)``."""
    for node in ast.parse(setup_py).body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == "KERNEL_MODULES"):
            return tuple(ast.literal_eval(node.value))
    raise SystemExit("check_dists: the sdist's setup.py has no KERNEL_MODULES")


def main(sdist_path: str, wheel_path: str) -> int:
    with tarfile.open(sdist_path) as sdist:
        # every member sits under "fastnardy-VERSION/"
        members = {m.name.split("/", 1)[1]: m for m in sdist.getmembers()
                   if m.isfile() and "/" in m.name}
        setup_py = sdist.extractfile(members["setup.py"]).read().decode() \
            if "setup.py" in members else ""
    sdist_names = list(members)
    modules = kernel_modules(setup_py) if setup_py else ()
    with zipfile.ZipFile(wheel_path) as wheel:
        wheel_names = wheel.namelist()
    sdist_needs = SDIST_NEEDS + tuple(f"src/fastnardy/{name}.{ext}" for name in modules
                                      for ext in ("pyx", "pxd"))
    wheel_needs = WHEEL_NEEDS + tuple(f"fastnardy/{name}.pxd" for name in modules)
    found = problems("sdist", sdist_names, sdist_needs, SDIST_FORBIDS)
    found += [f"sdist holds build output {name}" for name in sdist_names
              if name.startswith("build/")]
    found += problems("wheel", wheel_names, wheel_needs, WHEEL_FORBIDS)
    if "_kernel" not in modules:
        found.append(f"setup.py's KERNEL_MODULES lacks _kernel: {modules}")
    for name in (*modules, "_features", "_bearoff", "_nnet"):
        compiled = [n for n in wheel_names if n.startswith(f"fastnardy/{name}.")
                    and n.endswith((".so", ".pyd"))]
        if len(compiled) != 1:
            found.append(f"wheel must hold one compiled {name}, holds {compiled}")
    for problem in found:
        print(f"check_dists: {problem}", file=sys.stderr)
    if found:
        return 1
    print(f"check_dists: sdist {len(sdist_names)} files, wheel {len(wheel_names)} files: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
