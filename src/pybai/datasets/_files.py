"""Paths of the data files shipped with pybai (``src/pybai/data``, listed in its README.md)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from pybai._validation import fail

__all__ = ["data_file"]


def data_file(name: str) -> Path:
    """Path of the shipped data file ``name`` (e.g. ``"winequality-red.csv"``)."""
    path = Path(str(resources.files("pybai") / "data" / name))
    if not path.is_file():
        raise fail("name", "data_file", "the name of a file in pybai/data", name)
    return path
