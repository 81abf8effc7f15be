"""The ``pybai`` command line: a thin layer over the public API.

One module per command (``run``, ``complexity``, ``demo``, ...), each with ``add_parser(sub)``
and ``command(args)``; ``COMMANDS`` lists them in the order ``pybai --help`` shows them.
User mistakes (bad file, bad key, bad argument) exit with status 2 and one line on
standard error; they never print a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import warnings

from pybai import _interrupts
from pybai._version import __version__
from pybai.exceptions import PybaiError, PybaiWarning

__all__ = ["main", "build_parser", "COMMANDS"]

#: command modules under ``pybai.cli``, in help order
COMMANDS = (
    "run",
    "experiments",  # the command `pybai list`
    "reproduce",
    "report",
    "complexity",
    "demo",
    "session",
    "serve",
    "validate",
    "precompile",
)


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2
        self.exit(2, f"pybai: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every command in ``COMMANDS``."""
    # the description names no command: the list below is generated from COMMANDS, so it never goes stale
    parser = _Parser(prog="pybai", description="Best-arm identification (pure-exploration bandits) from the "
                     "command line: the commands are listed below; `pybai COMMAND --help` shows the options of one.")
    parser.add_argument("--version", action="version", version=f"pybai {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name in COMMANDS:
        importlib.import_module(f"pybai.cli.{name}").add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``pybai`` command; returns the exit status.

    Ctrl-C gives one line and status 130 at any moment (see :mod:`pybai._interrupts`).
    """
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
    except KeyboardInterrupt:
        print("pybai: interrupted", file=sys.stderr)
        return 130
    with warnings.catch_warnings():
        warnings.showwarning = _one_line_warning
        try:
            _interrupts.raise_on_interrupt()
            return args.func(args)
        except PybaiError as exc:
            print(f"pybai: error: {exc}", file=sys.stderr)
            return 2
        except BrokenPipeError:  # output piped into e.g. `head`, which stopped reading: not an error
            import os

            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
        except (KeyboardInterrupt, SystemError) as exc:
            # Ctrl-C inside compiled (numba) code may surface as a SystemError caused by the KeyboardInterrupt
            if not isinstance(exc, KeyboardInterrupt) and not _caused_by_interrupt(exc):
                raise
            _interrupts.exit_at_once()
            print("pybai: interrupted", file=sys.stderr)
            _interrupts.said()
            return 130
        finally:
            _interrupts.finishing()


def _caused_by_interrupt(exc: BaseException) -> bool:
    from pybai.simulate.engine import interrupted

    return interrupted(exc)


def _one_line_warning(message, category, filename, lineno, file=None, line=None):
    """Warnings on the terminal: one line, ``pybai: warning: ...`` (no file name or source line)."""
    kind = "" if issubclass(category, PybaiWarning) else f"{category.__name__}: "
    from pybai._secrets import mask_credentials

    print(f"pybai: warning: {kind}{mask_credentials(message)}", file=sys.stderr if file is None else file)

