"""Helpers shared by the command modules: argument types, output checks and safe JSON output."""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

from pybai.exceptions import ConfigError

__all__ = ["positive_int", "non_negative_int", "integer_argument", "write_json", "check_output_file", "note",
           "experiment_file"]


def experiment_file(text: str, argument: str = "FILE") -> str:
    """The file a command's ``FILE`` argument names: an existing path, else a shipped experiment's file.

    An existing path wins (its own errors, a folder or bad TOML, are left to the reader of the
    file); else ``text`` may be the name of a shipped experiment (``pybai list``); else one
    :class:`ConfigError` line naming the argument, saying the file does not exist and giving the
    closest shipped names.

    Parameters
    ----------
    text : str
        The command-line value.
    argument : str
        The argument's name in the error line (``"FILE"``).

    Returns
    -------
    str
        ``text`` itself, or the path of the shipped experiment ``text``.

    Raises
    ------
    ConfigError
        When ``text`` is neither an existing path nor a shipped name.
    """
    from pybai.experiments import experiment_names, experiment_path

    if Path(text).exists():
        return text
    names = experiment_names()
    if text in names:
        return str(experiment_path(text))
    stem = Path(text).name.removesuffix(".toml")
    close = difflib.get_close_matches(stem, names, n=3, cutoff=0.6)
    hint = f"closest: {', '.join(close)}; " if close else ""
    raise ConfigError(f"{argument} {text}: no such file, nor a shipped experiment name "
                      f"({hint}pybai list shows them all).")


def integer_argument(text: str, expected: str, minimum: int | None = None) -> int:
    """``text`` as an integer (at least ``minimum`` when given; within 64 bits), else ``expected ..., got ...``.

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
    from pybai._validation import INT64_MAX, INT64_MIN

    shown = repr(text) if len(text) <= 40 else f"{text[:20]!r}... ({len(text)} characters)"
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {shown}") from None
    if (minimum is not None and value < minimum) or value < INT64_MIN:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {shown}")
    if value > INT64_MAX:  # ids, seeds and counts are stored as 64-bit integers
        raise argparse.ArgumentTypeError(f"expected {expected} of at most 64 bits (below 2^63), got {shown}")
    return value


def positive_int(text: str) -> int:
    """``argparse`` type: an integer >= 1."""
    return integer_argument(text, "a positive integer", minimum=1)


def non_negative_int(text: str) -> int:
    """``argparse`` type: an integer >= 0."""
    return integer_argument(text, "an integer >= 0", minimum=0)


def note(message: str) -> None:
    """A one-line note on standard error (``pybai: note: ...``)."""
    from pybai._secrets import mask_credentials

    print(f"pybai: note: {mask_credentials(message)}", file=sys.stderr)


def check_output_file(path: str | None, option: str = "--json") -> None:
    """Refuse, before any work, an output file that cannot be written (one line, nothing left behind).

    ``-`` (standard output) and ``None`` pass; the rest is :func:`pybai._output.check_output`
    (missing parent folders are created).
    """
    if path is None or path == "-":
        return
    from pybai._output import check_output

    check_output(path, f"{option} {path}", ConfigError)


def write_json(document: dict | list, path: str, option: str = "--json") -> None:
    """Write ``document`` to ``path`` ('-' = standard output): never half-written, never replacing a
    device, FIFO or symbolic link (:func:`pybai._output.write_output`).

    A path that cannot be written gives one :class:`ConfigError` line (commands check it with
    :func:`check_output_file` before their work; this catches what changed since).
    """
    from pybai._json_text import dumps_indented

    text = dumps_indented(document, indent=2)
    if path == "-":
        print(text)
        return
    from pybai._output import write_output

    write_output(path, text + "\n", f"{option} {path}", ConfigError)
