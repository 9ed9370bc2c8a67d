"""Backend selection: the kernel by default, the reference on request, never a silent
fallback."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import fastnardy
from fastnardy import FastNardyError, Position, backend


def test_default_backend_is_the_kernel():
    assert backend.get().__name__ in ("fastnardy._kernel", "fastnardy.reference")
    assert backend.get("kernel").__name__ == "fastnardy._kernel"
    assert backend.get("reference").__name__ == "fastnardy.reference"


def test_unknown_backend_is_a_clear_error():
    with pytest.raises(FastNardyError, match="'kernel', 'reference'"):
        Position.start("long").legal_turns((6, 5), backend="cuda")


def test_a_missing_kernel_fails_loudly_at_import():
    code = ("import sys; sys.modules['fastnardy._kernel'] = None\n"
            "try:\n    import fastnardy\nexcept ImportError as e:\n    print('LOUD', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "FASTNARDY_BACKEND": "kernel"}, timeout=120)
    assert "LOUD fastnardy's compiled kernel (fastnardy._kernel) failed to import" in out.stdout


def test_reference_module_api(backend):
    start = Position.start("short")
    assert fastnardy.reference.legal_turns(start, (6, 4)) == start.legal_turns((6, 4))
    assert fastnardy.reference.perft(Position.start("long"), 2) == 484
