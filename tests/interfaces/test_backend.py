"""Backend selection: the kernel by default, the reference on request, never a silent
fallback."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

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


def test_a_source_tree_without_its_kernel_says_so(tmp_path):
    """PYTHONPATH=src in front of an installed copy imports the unbuilt sources."""
    source = Path(fastnardy.__file__).parent
    shutil.copytree(source, tmp_path / "fastnardy",
                    ignore=lambda _, names: [n for n in names if n.endswith((".so", ".pyd"))])
    out = subprocess.run([sys.executable, "-c", "import fastnardy"], capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": str(tmp_path)}, timeout=120)
    assert out.returncode == 1
    assert f"It is not built in {tmp_path / 'fastnardy'}: that is a source tree" in out.stderr


def test_reference_module_api(backend):
    start = Position.start("short")
    assert fastnardy.reference.legal_turns(start, (6, 4)) == start.legal_turns((6, 4))
    assert fastnardy.reference.perft(Position.start("long"), 2) == 484
