"""The benchmarks run in the pytest process itself: under pytest-xdist's workers (``-n auto``
in the project's pytest options, for the tests) pytest-benchmark would switch them off."""

from __future__ import annotations

import pytest


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """No workers for ``-n auto`` (an explicit ``-n N`` is the caller's choice)."""
    return 0
