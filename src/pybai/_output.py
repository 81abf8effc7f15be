"""Writing a file a user named, without ever replacing what is there: :func:`write_output`.

Every output of pybai (``--json``, ``--csv``, reports, figures, result stores) goes through
:func:`write_output`:

* a new path or a regular file is written **atomically**: a temporary file beside it (a fresh
  name, never an existing file), renamed into place, so a reader sees the old content or the
  whole new one; an existing file keeps its permissions;
* a **symbolic link** is kept: what it points to is written (atomically when that is a regular
  file or does not exist yet);
* a **device** (``/dev/stdout``, ``/dev/null``, a terminal) or a **FIFO** is written through,
  never replaced by a regular file; a FIFO that no process reads is refused at once rather
  than waited on, as are a directory and a socket;
* any failure is one line naming the path (``cannot write there (No space left on device)``).

:func:`check_output` makes the same decisions before a long computation, so that a command
refuses an output it could not write before any work.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path

from pybai.exceptions import InvalidParameterError

__all__ = ["write_output", "check_output"]


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "a special file"


def _target(path: Path, label: str, error: type[Exception]) -> tuple[Path, os.stat_result | None]:
    """The file the output goes to (a symbolic link followed) and its status (None: does not exist yet)."""
    real = Path(os.path.realpath(path))
    try:
        st = os.stat(real)
    except FileNotFoundError:
        return real, None
    except OSError as exc:
        raise error(f"{label}: cannot write there ({exc.strerror or exc}).") from None
    if stat.S_ISDIR(st.st_mode):
        raise error(f"{label}: is a folder, expected a file name.")
    if stat.S_ISSOCK(st.st_mode):
        raise error(f"{label}: is a socket, expected a file name.")
    return real, st


def check_output(path, label: str | None = None, error: type[Exception] = InvalidParameterError) -> None:
    """Refuse, before any work, an output :func:`write_output` could not write (one ``error`` line).

    A regular file (or a new one) needs a folder where a file can be created (the missing folders
    are created) and, when it exists, write permission; a device or FIFO needs write permission.
    Nothing is left behind.
    """
    label = label or str(path)
    real, st = _target(Path(path), label, error)
    if st is not None and not stat.S_ISREG(st.st_mode):
        if not os.access(real, os.W_OK):
            raise error(f"{label}: cannot write there ({_kind(st.st_mode)} without write permission).")
        return
    if st is not None and not os.access(real, os.W_OK):
        raise error(f"{label}: cannot write there (Permission denied).")
    try:
        real.parent.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=real.parent, prefix=f".{real.name}.", suffix=".probe")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise error(f"{label}: cannot write there ({exc.strerror or exc}).") from None


def write_output(path, data: str | bytes, label: str | None = None,
                 error: type[Exception] = InvalidParameterError) -> Path:
    """Write ``data`` (text is UTF-8) to ``path`` as the module docstring says; returns ``path``.

    Parameters
    ----------
    path : str or Path
        What the user named.
    data : str or bytes
    label : str, optional
        How the error line names the output (``"--json out.json"``); default the path.
    error : exception class
        Raised with one line when the output cannot be written (default
        :class:`~pybai.exceptions.InvalidParameterError`).

    Returns
    -------
    Path
        ``path`` as given (a symbolic link stays a link).
    """
    path = Path(path)
    label = label or str(path)
    payload = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    real, st = _target(path, label, error)
    try:
        if st is not None and not stat.S_ISREG(st.st_mode):
            _write_through(real, st.st_mode, payload, label, error)
        else:
            _write_atomic(real, st, payload)
    except OSError as exc:
        raise error(f"{label}: cannot write there ({exc.strerror or exc}).") from None
    return path


def _write_through(real: Path, mode: int, payload: bytes, label: str, error: type[Exception]) -> None:
    """Write into a device or FIFO as it is (no rename, no truncation of what is not a file)."""
    flags = os.O_WRONLY | getattr(os, "O_CLOEXEC", 0)
    if stat.S_ISFIFO(mode):  # without a reader, opening would wait forever: refuse instead
        try:
            fd = os.open(real, flags | os.O_NONBLOCK)
        except OSError as exc:
            if exc.errno == errno.ENXIO:
                raise error(f"{label}: is a FIFO (named pipe) that no process reads; start the reader first.") \
                    from None
            raise
        os.set_blocking(fd, True)
    else:
        fd = os.open(real, flags)
    try:
        view = memoryview(payload)
        while view:
            written = os.write(fd, view)
            view = view[written:]
    finally:
        os.close(fd)


def _write_atomic(real: Path, st: os.stat_result | None, payload: bytes) -> None:
    """A temporary file beside ``real`` (a fresh name), renamed onto it; removed on failure."""
    real.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=real.parent, prefix=f".{real.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
        if st is not None:
            os.chmod(tmp, stat.S_IMODE(st.st_mode))
        else:  # a new file: the permissions open() would give it
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, real)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
