"""Builds the Cython modules (the kernel and the features). Compiler directives are set here,
once, for both.

Set FASTNARDY_DEBUG=1 to build with bounds checks, wraparound checks and -O0 -g, unstripped
(the debug build that a CI job or a test run can use); the normal build is -O3 and stripped.
Each build keeps its generated C and objects under its own folder (build/release,
build/debug or build/native; build/release-clang with CC=clang), so switching between them
in one tree never reuses the other's output (and
`build_ext --inplace` always copies its own kernel into src/); the generated C never lands
in src/.
Set FASTNARDY_NATIVE=1 to compile for this machine's CPU (-march=native: about 15% faster
enumeration here; the result is then not portable). The default build is portable.
Set FASTNARDY_PROFILE=1 for the release build (-O3, the same directives) with symbols, not
stripped, under build/profile: what `perf record` needs to name the kernel's functions.
Set FASTNARDY_NO_INT128=1 to build perft's 128-bit counts as two 64-bit halves, the path of
compilers without unsigned __int128 (MSVC), under build/noint128: CI tests that path with gcc.
Compiler flags are gcc's and clang's (the compilers the code builds with, on Linux and macOS;
CC=clang picks clang); the release build is stripped on Linux.
With gcc on Linux the build is guided by a profile (PGO): the modules are built instrumented,
run once on a short workload of both games (PGO_WORKLOAD: the benchmark levels, perft,
self-play, the inputs, the networks; a few seconds), and built again with what the run
counted, so that the compiler lays out the generator's branches as they go (about 10% faster
expansions and counts on the project's machine). The same code and the same results: the
profile changes only the compiler's choices. Set FASTNARDY_PGO=0 to build once without it;
a workload that fails leaves the build without a profile, with a warning.
"""

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

DEBUG = os.environ.get("FASTNARDY_DEBUG", "") not in ("", "0")
NATIVE = os.environ.get("FASTNARDY_NATIVE", "") not in ("", "0")
PROFILE = os.environ.get("FASTNARDY_PROFILE", "") not in ("", "0") and not DEBUG
NO_INT128 = os.environ.get("FASTNARDY_NO_INT128", "") not in ("", "0")
# another compiler (CC=clang) builds in its own folder too: objects are never shared
COMPILER = os.path.basename(os.environ.get("CC", "").split(" ")[0])
PGO = (os.environ.get("FASTNARDY_PGO", "1") not in ("", "0") and not DEBUG
       and sys.platform.startswith("linux")
       and "gcc" in os.path.basename((os.environ.get("CC") or sysconfig.get_config_var("CC")
                                      or "").split(" ")[0]))
BUILD_BASE = os.path.join("build", ("debug" if DEBUG else "native" if NATIVE else
                                    "profile" if PROFILE else "noint128" if NO_INT128 else
                                    "release") + (f"-{COMPILER}" if COMPILER else ""))

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "cdivision": not DEBUG,
    "nonecheck": DEBUG,
    "embedsignature": True,
}

compile_args = ["-O0", "-g"] if DEBUG else ["-O3", "-g"] if PROFILE else ["-O3"]
# No code here relies on floating-point traps: without them the compiler may vectorise the
# network's clamped sigmoid (fastnardy._nnet), the same results either way.
compile_args.append("-fno-trapping-math")
# The network's floats are the same on every CPU: no multiply and add fused into one rounding
# where a clone (AVX-512 implies FMA) or -march=native would allow it.
compile_args.append("-ffp-contract=off")
if NATIVE:
    compile_args.append("-march=native")
link_args = ["-s"] if sys.platform.startswith("linux") and not (DEBUG or PROFILE) else []

# The kernel, one extension module per concern (they cimport each other's .pxd); the
# public import path is fastnardy._kernel, which gathers their names. Beside it, the
# features of board rows (_features, which cimports the kernel's key decoder), the two-sided
# bear-off database's loops (_bearoff) and the network's inference (_nnet, which cimports
# the features and the database's lookup). All are built
# with the same directives and flags.
KERNEL_MODULES = ("_packed", "_movegen", "_args", "_perftcount", "_batches", "_gamebatch",
                  "_steps",
                  "_values", "_kernel")
COMPILED_MODULES = KERNEL_MODULES + ("_features", "_bearoff", "_nnet")

extensions = [
    Extension(
        f"fastnardy.{name}",
        sources=[f"src/fastnardy/{name}.pyx"],
        extra_compile_args=compile_args,
        extra_link_args=link_args,
        define_macros=[("NB_NO_INT128", "1")] if NO_INT128 else [],
        depends=["src/fastnardy/_nnet.h", "src/fastnardy/_nnet_simd.h"] if name == "_nnet"
        else [],
    )
    for name in COMPILED_MODULES
]


# What the instrumented build runs (PGO): every benchmark level of both games (expansions
# into keys and rows, counts, the Python API's turns, perft, self-play), the inputs of every
# kind and the networks. Code it does not run is compiled as without a profile
# (-fprofile-partial-training), not as cold code: a profile that missed the inputs had made
# them four times slower.
PGO_WORKLOAD = """
from fastnardy import batch
from fastnardy.search.inputs import ENCODINGS, features
from fastnardy.search.network import Evaluator
from fastnardy.testing import speed
speed.measure(0.02)
for game in ("long", "short"):
    positions = speed.benchmark_positions(game)[:400]
    for keys in (False, True):
        boards = batch.encode(positions, keys=keys)
        for kind, only in ENCODINGS.items():
            if only in (None, game):
                features(game, boards, kind)
    rows = batch.encode(positions)
    for precision in ("float", "int16"):
        Evaluator.load(game, precision).evaluate(rows)
"""


class BuildExt(build_ext):
    """The build, guided by a profile where PGO is on (module docstring); an in-place build
    copies the kernel into src/ even over a newer file there, which may be the other
    build's (a plain copy would keep it)."""

    def run(self) -> None:
        if not PGO:
            super().run()
            return
        self._compiler_option = self.compiler  # run() replaces it by the compiler object
        profile = os.path.abspath(os.path.join(BUILD_BASE, "pgo-profile"))
        shutil.rmtree(profile, ignore_errors=True)
        self._build_with(["-fprofile-generate", f"-fprofile-dir={profile}"],
                         ["-fprofile-generate"])
        if self._run_workload():
            self._build_with(["-fprofile-use", f"-fprofile-dir={profile}",
                              "-fprofile-correction", "-fprofile-partial-training",
                              "-Wno-missing-profile"], [])
        else:
            print("warning: the PGO workload failed; building without a profile",
                  file=sys.stderr)
            self._build_with([], [])

    def _build_with(self, compile_extra: "list[str]", link_extra: "list[str]") -> None:
        """Every module built again with these flags added."""
        for ext in self.extensions:
            ext.extra_compile_args = compile_args + compile_extra
            ext.extra_link_args = link_args + link_extra
        self.force = True
        self.compiler = self._compiler_option
        super().run()

    def _run_workload(self) -> bool:
        """PGO_WORKLOAD run on the modules just built (a copy of the package with them)."""
        with tempfile.TemporaryDirectory() as folder:
            package = os.path.join(folder, "fastnardy")
            shutil.copytree(os.path.join("src", "fastnardy"), package,
                            ignore=shutil.ignore_patterns("*.so", "__pycache__"))
            for ext in self.extensions:
                shutil.copy(self.get_ext_fullpath(ext.name), package)
            done = subprocess.run([sys.executable, "-c", PGO_WORKLOAD], cwd=folder,
                                  env={**os.environ, "PYTHONPATH": folder})
            return done.returncode == 0

    def copy_extensions_to_source(self) -> None:
        self.force = True  # set after compiling: it only makes the copy unconditional
        super().copy_extensions_to_source()


# Cython and the C compiler use every core: the modules are independent once cythonized.
JOBS = os.cpu_count() or 1

setup(
    cmdclass={"build_ext": BuildExt},
    ext_modules=cythonize(extensions, compiler_directives=directives, include_path=["src"],
                          build_dir=os.path.join(BUILD_BASE, "cython"), nthreads=JOBS),
    options={"build": {"build_base": BUILD_BASE}, "build_ext": {"parallel": JOBS}},
)
