"""Ctrl-C in the ``pybai`` command: one line and exit status 130, whenever it comes.

Python turns Ctrl-C (SIGINT) into ``KeyboardInterrupt``; one that nobody catches prints a
traceback and ends the process by the signal (status -2).  The command avoids both in three
phases, and only when this process *is* the ``pybai`` command (:func:`launched_as_command`):
importing pybai from a script or a notebook changes nothing.

* start-up (importing pybai, reading the arguments): nothing has been written yet, so Ctrl-C
  exits at once (:func:`exit_at_once`);
* the command's work (:func:`raise_on_interrupt`): the first Ctrl-C raises
  ``KeyboardInterrupt``, which the command turns into its own line and status 130 after
  stopping its workers and keeping what was stored;
* after that first Ctrl-C, while the command stops: a second Ctrl-C exits at once;
* once the command has its exit status (:func:`finishing`): Ctrl-C is ignored while the
  interpreter exits (Python resets its own handlers to the default, which would end the
  process by the signal, during its last steps).

A process started with SIGINT ignored (``nohup``, a background job of a script) keeps it ignored.

Worker processes that the command starts by ``spawn`` (Dask's LocalCluster) import pybai first
thing (``multiprocessing`` runs the parent's main module in them): there
:func:`at_import` makes them ignore Ctrl-C, which reaches the whole process group, so that the
main process alone decides and closes them (no traceback from every worker).
"""

from __future__ import annotations

import os
import signal
import sys

__all__ = ["at_import", "launched_as_command", "spawned_by_command", "exit_at_once", "raise_on_interrupt", "said", "finishing"]

_state = {"active": False, "said": False}

#: file names of the console script that runs the command
_NAMES = ("pybai", "pybai.exe", "pybai-script.py")


def launched_as_command() -> bool:
    """True in the process of the ``pybai`` command (``pybai ...``, ``python -m pybai[.cli] ...``).

    Read from the interpreter's own command line (:data:`sys.orig_argv`), which worker
    processes started by ``multiprocessing`` or Dask do not share (they copy :data:`sys.argv`).
    """
    argv = list(getattr(sys, "orig_argv", []))
    if len(argv) >= 2 and os.path.basename(argv[1]) in _NAMES:
        return True
    return any(a == "-m" and b in ("pybai", "pybai.cli") for a, b in zip(argv, argv[1:]))


def spawned_by_command() -> bool:
    """True in a worker process that the ``pybai`` command started with ``multiprocessing``'s spawn.

    Such a process runs ``python -c ... --multiprocessing-fork`` with the parent's
    :data:`sys.argv` copied in.
    """
    if "--multiprocessing-fork" not in getattr(sys, "orig_argv", []) or not sys.argv:
        return False
    first = str(sys.argv[0]).replace("\\", "/")
    return os.path.basename(first) in _NAMES or first.endswith(("pybai/__main__.py", "pybai/cli/__main__.py"))


def at_import() -> None:
    """Run by ``import pybai``: the start-up handling of the command, or its workers' (else nothing)."""
    if spawned_by_command():
        _install(signal.SIG_IGN)
    else:
        exit_at_once()


def _install(handler) -> None:
    try:
        signal.signal(signal.SIGINT, handler)
    except ValueError:  # not the main thread: leave Python's handling alone
        pass


def _exit_now(signum=None, frame=None) -> None:
    if not _state["said"]:
        try:
            os.write(2, b"pybai: interrupted\n")
        except OSError:
            pass
    os._exit(130)


def _first_interrupt(signum, frame) -> None:
    _install(_exit_now)  # a second Ctrl-C while the command stops: exit at once
    raise KeyboardInterrupt


def exit_at_once() -> None:
    """From now on Ctrl-C ends the process at once: one line, status 130 (command processes only)."""
    if _state["active"] or (launched_as_command() and signal.getsignal(signal.SIGINT) is not signal.SIG_IGN):
        _state["active"] = True
        _install(_exit_now)


def raise_on_interrupt() -> None:
    """From now on the first Ctrl-C raises ``KeyboardInterrupt`` and a second one exits at once."""
    if _state["active"]:
        _install(_first_interrupt)


def said() -> None:
    """The command printed its interrupt line: an exit at once adds none."""
    _state["said"] = True


def finishing() -> None:
    """The command has its exit status: Ctrl-C is ignored while the process exits."""
    if _state["active"]:
        _install(signal.SIG_IGN)
