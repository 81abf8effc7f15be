"""The golden tests' child process: one per test file (see :class:`golden.Worker`)."""

from __future__ import annotations

import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import golden  # noqa: E402


@pytest.fixture(scope="module")
def worker():
    """The child process that computes this test file's golden cases, one after another."""
    child = golden.Worker()
    yield child
    child.close()
