"""Builds the Cython kernel. Compiler directives are set here, once.

Set FASTNARDY_DEBUG=1 to build with bounds checks, wraparound checks and -O0 -g
(the debug build that a CI job or a test run can use). Set FASTNARDY_NATIVE=1 to compile for
this machine's CPU (-march=native: about 15% faster enumeration here; the wheel is then not
portable). The default build is portable.
"""

import os

from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("FASTNARDY_DEBUG", "") not in ("", "0")

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "cdivision": not DEBUG,
    "nonecheck": DEBUG,
    "embedsignature": True,
}

compile_args = ["-O0", "-g"] if DEBUG else ["-O3"]
if os.environ.get("FASTNARDY_NATIVE", "") not in ("", "0"):
    compile_args.append("-march=native")

extensions = [
    Extension(
        "fastnardy._kernel",
        sources=["src/fastnardy/_kernel.pyx"],
        extra_compile_args=compile_args,
    )
]

setup(ext_modules=cythonize(extensions, compiler_directives=directives))
