"""Helpers shared by the command modules: argument types and safe JSON output."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

__all__ = ["positive_int", "write_json"]


def positive_int(text: str) -> int:
    """``argparse`` type: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def write_json(document: dict, path: str) -> None:
    """Write ``document`` to ``path`` ('-' = standard output) atomically: never half-written."""
    text = json.dumps(document, indent=2)
    if path == "-":
        print(text)
        return
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(text + "\n", encoding="utf-8")
    tmp.replace(target)
