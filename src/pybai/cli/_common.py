"""Helpers shared by the command modules: argument types, output checks and safe JSON output."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pybai.exceptions import ConfigError

__all__ = ["positive_int", "non_negative_int", "integer_argument", "write_json", "check_output_file", "note"]


def integer_argument(text: str, expected: str, minimum: int | None = None) -> int:
    """``text`` as an integer (at least ``minimum`` when given), else ``expected ..., got ...``.

    Parameters
    ----------
    text : str
        The command-line value.
    expected : str
        What the error line says was expected (``"a positive integer"``).
    minimum : int, optional
        Smallest value accepted; none by default.

    Returns
    -------
    int

    Raises
    ------
    argparse.ArgumentTypeError
        When ``text`` is not an integer or is below ``minimum``.
    """
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
    if minimum is not None and value < minimum:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
    return value


def positive_int(text: str) -> int:
    """``argparse`` type: an integer >= 1."""
    return integer_argument(text, "a positive integer", minimum=1)


def non_negative_int(text: str) -> int:
    """``argparse`` type: an integer >= 0."""
    return integer_argument(text, "an integer >= 0", minimum=0)


def note(message: str) -> None:
    """A one-line note on standard error (``pybai: note: ...``)."""
    print(f"pybai: note: {message}", file=sys.stderr)


def check_output_file(path: str | None, option: str = "--json") -> None:
    """Refuse, before any work, an output file that cannot be written (one line, nothing left behind).

    ``-`` (standard output) and ``None`` pass.  The check creates the parent folders and a
    probe file beside the target, then removes the probe.
    """
    if path is None or path == "-":
        return
    target = Path(path)
    if target.is_dir():
        raise ConfigError(f"{option} {path}: is a folder, expected a file name.")
    probe = target.with_name(target.name + ".tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(probe, "w", encoding="utf-8"):
            pass
    except OSError as exc:
        raise ConfigError(f"{option} {path}: cannot write there ({exc.strerror or exc}).") from None
    finally:
        try:
            probe.unlink()
        except OSError:
            pass


def write_json(document: dict, path: str, option: str = "--json") -> None:
    """Write ``document`` to ``path`` ('-' = standard output) atomically: never half-written.

    A path that cannot be written gives one :class:`ConfigError` line (commands check it with
    :func:`check_output_file` before their work; this catches what changed since).
    """
    text = json.dumps(document, indent=2)
    if path == "-":
        print(text)
        return
    target = Path(path)
    tmp = target.with_name(target.name + ".tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text + "\n", encoding="utf-8")
        tmp.replace(target)
    except OSError as exc:
        raise ConfigError(f"{option} {path}: cannot write there ({exc.strerror or exc}).") from None
    finally:
        if tmp.exists():
            tmp.unlink()
