"""The results store of ``pybai run FILE --out DIR``: one folder per experiment file.

Files in the folder:

``manifest.json``
    What the store holds: the parsed experiment file (``document``) and its SHA-256
    (``digest``, over canonical JSON, so comments and key order do not matter), the grid
    points, the block size and the pybai version.  A store is only ever continued by the same
    parsed file: ``--resume`` with another file is refused, never mixed.
``outcomes.jsonl``
    JSON lines, one per replication: ``point`` (grid point index) and one column per grid key
    (its dotted path, e.g. ``environment.d``), ``strategy`` (label), ``replication``,
    ``samples``, ``batches``, ``status``, ``recommendation``, ``correct``, ``simple_regret``,
    ``false_negative`` (null where not defined; NaN is written as null), ``counts`` (samples
    per source, shaped like the sources), ``seconds``, ``cpu_seconds``; top-k adds ``gain`` and ``oracle_gain`` (sum of the true means over the answer and over the true top k).  Every finished task
    appends its lines in one ``write``, so a killed run loses at most the
    tasks in flight (the lines are in the operating system's hands as soon as ``write``
    returns; a background thread fsyncs them to the disk right after, without holding the
    run up: on this machine an ``fsync`` takes about 5 ms, a cheap task 30 ms); a torn last line
    is ignored and cut off before the next append.
    ``pandas.read_json(DIR / "outcomes.jsonl", lines=True)`` reads it (polars: ``read_ndjson``).
``results.json``, ``summary.txt``
    The result document and its table, written when a run completes.
``.pybai-lock``
    Locked (``flock``) by the run writing to the store: a second run on the same folder is
    refused with one line while the first one runs.

A folder with outcomes but no manifest is refused, with or without ``--resume``: nothing says
which experiment file its lines belong to.
"""

from __future__ import annotations

import json
import math
import os
import threading
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, cast

import numpy as np

from pybai._json_text import dumps_indented
from pybai._output import write_output
from pybai._validation import read_user_text
from pybai._version import __version__
from pybai.exceptions import ConfigError
from pybai.simulate.runner import Outcome
from pybai.simulate.tasks import BLOCK, Sweep, Task, TaskResult

__all__ = ["ResultStore", "StoredResults", "read_store", "is_store", "write_text_atomic", "STORE_FORMAT"]

STORE_FORMAT = "pybai-store"
STORE_VERSION = 1
MANIFEST = "manifest.json"
OUTCOMES = "outcomes.jsonl"
RESULTS = "results.json"
SUMMARY = "summary.txt"
LOCK = ".pybai-lock"

_FLOATS = ("simple_regret", "false_negative", "seconds", "cpu_seconds")


def is_store(folder: str | Path) -> bool:
    """True when ``folder`` holds a store (its manifest)."""
    return (Path(folder) / MANIFEST).is_file()


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` (:func:`pybai._output.write_output`: a temporary file renamed into place,
    removed on failure; a device, FIFO or symbolic link written through, never replaced)."""
    write_output(path, text)


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return value if math.isfinite(value) else None
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def outcome_row(sweep: Sweep, task: Task, replication: int, outcome: Outcome) -> dict[str, Any]:
    """The stored line of one replication."""
    experiment = sweep.experiments[task.point]
    row: dict[str, Any] = {"point": task.point}
    row.update({key: _jsonable(value) for key, value in experiment.grid.items()})
    row.update({
        "strategy": experiment.strategies[task.strategy][0],
        "replication": replication,
        "samples": int(outcome.samples),
        "batches": int(outcome.batches),
        "status": outcome.status,
        "recommendation": _jsonable(outcome.recommendation),
        "correct": bool(outcome.correct),
        "simple_regret": _jsonable(outcome.simple_regret),
        "false_negative": _jsonable(outcome.false_negative),
        "counts": _jsonable(np.asarray(outcome.counts)),
        "seconds": _jsonable(outcome.seconds),
        "cpu_seconds": _jsonable(outcome.cpu_seconds),
    })
    if outcome.gain is not None:  # goals with a gain (top-k): the answer's and the oracle's
        row["gain"] = _jsonable(outcome.gain)
        row["oracle_gain"] = _jsonable(outcome.oracle_gain)
    if outcome.exact_correct is not None:  # epsilon-best-arm identification: exact identification too
        row["exact_correct"] = bool(outcome.exact_correct)
    return row


def row_outcome(row: dict[str, Any]) -> Outcome:
    """The :class:`Outcome` of a stored line (NaN restored where null was written)."""
    def num(key):
        value = row.get(key)
        return math.nan if value is None else float(value)

    return Outcome(
        samples=int(row["samples"]), batches=int(row["batches"]), status=str(row["status"]),
        recommendation=row["recommendation"], correct=bool(row["correct"]),
        simple_regret=num("simple_regret"),
        false_negative=None if row.get("false_negative") is None else float(row["false_negative"]),
        counts=np.asarray(row["counts"], dtype=float), seconds=num("seconds"), cpu_seconds=num("cpu_seconds"),
        gain=None if row.get("gain") is None else float(row["gain"]),
        oracle_gain=None if row.get("oracle_gain") is None else float(row["oracle_gain"]),
        exact_correct=None if row.get("exact_correct") is None else bool(row["exact_correct"]),
    )


def _read_lines(path: Path) -> tuple[list[dict], int]:
    """Parsed lines and the byte length of the whole-line prefix (a torn last line is dropped)."""
    if not path.is_file():
        return [], 0
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1
    rows = []
    for line in data[:end].splitlines():
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            continue  # a line torn by a crash of the machine (not of the process): ignored
        if isinstance(row, dict):
            rows.append(row)
    return rows, end


def _complete_tasks(sweep: Sweep, tasks: list[Task], rows: list[dict]) -> tuple[dict[Task, list[Outcome]], list[dict]]:
    """Tasks whose every replication is stored (first stored line per replication), and their lines."""
    labels = [{label: s for s, (label, _) in enumerate(e.strategies)} for e in sweep.experiments]
    found: dict[tuple[int, int, int], dict] = {}
    for row in rows:
        try:
            point = int(row["point"])
            key = (point, labels[point][row["strategy"]], int(row["replication"]))
        except (KeyError, TypeError, ValueError, IndexError):
            continue
        found.setdefault(key, row)
    complete: dict[Task, list[Outcome]] = {}
    kept: list[dict] = []
    for task in tasks:
        task_rows = [found.get((task.point, task.strategy, r)) for r in range(task.first, task.last)]
        if all(row is not None for row in task_rows):
            rows = cast(list[dict], task_rows)  # none is None
            complete[task] = [row_outcome(row) for row in rows]
            kept.extend(rows)
    return complete, kept


def _manifest(sweep: Sweep, source: str | None) -> dict[str, Any]:
    return {
        "format": STORE_FORMAT,
        "format_version": STORE_VERSION,
        "name": sweep.name,
        "digest": sweep.digest(),
        "source": source,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "pybai_version": __version__,
        "block": BLOCK,
        "gridded": sweep.gridded,
        "grid_keys": sweep.grid_keys,
        "points": [
            {"point": p, "name": e.name, "grid": _jsonable_dict(e.grid), "replications": e.replications,
             "strategies": [label for label, _ in e.strategies]}
            for p, e in enumerate(sweep.experiments)
        ],
        "files": {"outcomes": OUTCOMES, "results": RESULTS, "summary": SUMMARY},
        "document": sweep.document,
    }


def _jsonable_dict(values: dict) -> dict:
    return {k: _jsonable(v) for k, v in values.items()}


def _load_manifest(folder: Path) -> dict[str, Any]:
    text = read_user_text(folder / MANIFEST, "a store manifest (JSON)", ConfigError)  # capped, no special files
    try:
        manifest = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ConfigError(f"{folder}: unreadable store manifest ({exc}).") from None
    if not isinstance(manifest, dict) or manifest.get("format") != STORE_FORMAT:
        raise ConfigError(f"{folder}/{MANIFEST}: not a pybai store manifest.")
    if manifest.get("format_version") != STORE_VERSION:
        raise ConfigError(f"{folder}: store format {manifest.get('format_version')}, this pybai reads {STORE_VERSION}.")
    return manifest


def take_lock(folder: Path) -> int | None:
    """Lock the store in ``folder`` for this process, or refuse with one line when a run holds it.

    An advisory ``flock`` on the file ``.pybai-lock`` (the system drops it when the process
    ends, however it ends); None where the platform has no ``fcntl``.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        return None
    path = folder / LOCK
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
    except OSError as exc:
        raise ConfigError(f"--out {folder}: cannot lock the store ({exc.strerror or exc}).") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        os.close(fd)
        who = f" (process {holder})" if holder.isdigit() else ""
        raise ConfigError(f"--out {folder}: another pybai run is writing to this store{who}; wait until it "
                          "ends, then --resume, or choose another folder.") from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
    return fd


def release_lock(fd: int | None) -> None:
    """Give up a lock of :func:`take_lock`."""
    if fd is not None:
        os.close(fd)  # closing the descriptor drops the flock


class _Syncer:
    """A thread that fsyncs ``fd`` whenever lines were appended since its last fsync."""

    def __init__(self, fd: int):
        self.fd, self.dirty, self.done = fd, threading.Event(), False
        self.thread = threading.Thread(target=self._run, name="pybai-store-fsync", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while True:
            self.dirty.wait()
            self.dirty.clear()
            try:
                os.fsync(self.fd)
            except OSError:
                pass
            if self.done:
                return

    def close(self) -> None:
        self.done = True
        self.dirty.set()
        self.thread.join()


class ResultStore:
    """An open store being appended to (use :meth:`open`).

    ``fsync``: ``"background"`` (default: a thread fsyncs after each append, the run does not
    wait), ``"each"`` (fsync inside every append) or ``"none"``.
    """

    def __init__(self, folder: Path, sweep: Sweep, fsync: str = "background"):
        if fsync not in ("background", "each", "none"):
            raise ValueError(f"fsync: expected 'background', 'each' or 'none', got {fsync!r}")
        self.folder, self.sweep, self.fsync = folder, sweep, fsync
        self._fd: int | None = None
        self._syncer: _Syncer | None = None
        self._lock: int | None = None

    @classmethod
    def check_folder(cls, folder: str | Path, sweep: Sweep, resume: bool, locked: bool = False) -> Path:
        """Refuse, before any work, a folder that cannot hold this sweep's store (one line each).

        Also refused: a store another run holds (unless ``locked``: this process holds it).
        """
        folder = Path(folder)
        if folder.exists() and not folder.is_dir():
            raise ConfigError(f"--out {folder}: is a file, expected a folder for the results store.")
        if (folder / MANIFEST).exists():
            if not resume:
                raise ConfigError(
                    f"--out {folder}: holds stored results already; add --resume to continue them, or choose another folder."
                )
            manifest = _load_manifest(folder)
            if manifest.get("digest") != sweep.digest():
                raise ConfigError(
                    f"--out {folder}: holds the store of another experiment file (\"{manifest.get('name')}\", "
                    "different content); refused, not mixed: choose another folder."
                )
        elif folder.is_dir() and {p.name for p in folder.iterdir()} & {OUTCOMES, RESULTS}:
            # outcomes of an unknown experiment file: resuming would mix them with this one's
            raise ConfigError(f"--out {folder}: holds results without a manifest ({MANIFEST} is missing), so "
                              "nothing says which experiment file they belong to; refused, not mixed: choose "
                              "another folder.")
        try:
            folder.mkdir(parents=True, exist_ok=True)
            probe = folder / ".pybai-write-test"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as exc:
            raise ConfigError(f"--out {folder}: cannot write there ({exc.strerror or exc}).") from None
        if not locked:
            release_lock(take_lock(folder))  # refuse a store in use before any work
        return folder

    @classmethod
    def open(cls, folder: str | Path, sweep: Sweep, resume: bool = False, source: str | None = None,
             fsync: str = "background") -> "ResultStore":
        """Create the store in ``folder``, or continue it (``resume``) when it holds this sweep's."""
        folder = cls.check_folder(folder, sweep, resume)
        lock = take_lock(folder)
        try:
            cls.check_folder(folder, sweep, resume, locked=True)  # again, holding the lock: what another run left
            store = cls(folder, sweep, fsync)
            store._lock = lock
            if not (folder / MANIFEST).exists():
                write_text_atomic(folder / MANIFEST,
                                  json.dumps(_manifest(sweep, source), indent=1, default=str) + "\n")
        except BaseException:
            release_lock(lock)
            raise
        return store

    def completed(self, tasks: list[Task]) -> dict[Task, list[Outcome]]:
        """Outcomes of the tasks already stored completely (everything else is to be run)."""
        rows, _ = _read_lines(self.folder / OUTCOMES)
        return _complete_tasks(self.sweep, tasks, rows)[0]

    def _open_for_append(self) -> int:
        path = self.folder / OUTCOMES
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        size = os.fstat(fd).st_size
        if size:
            with open(path, "rb") as fh:  # cut a torn last line before appending
                fh.seek(max(size - 1, 0))
                if fh.read(1) != b"\n":
                    _, end = _read_lines(path)
                    os.ftruncate(fd, end)
        return fd

    def append(self, result: TaskResult) -> None:
        """Append one finished task's lines in one write, then fsync."""
        if self._fd is None:
            self._fd = self._open_for_append()
            if self.fsync == "background":
                self._syncer = _Syncer(self._fd)
        task = result.task
        lines = [
            json.dumps(outcome_row(self.sweep, task, r, o), separators=(",", ":"), allow_nan=False)
            for r, o in zip(range(task.first, task.last), result.outcomes)
        ]
        data = ("\n".join(lines) + "\n").encode("utf-8")
        view = memoryview(data)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]
        if self._syncer is not None:
            self._syncer.dirty.set()
        elif self.fsync == "each":
            os.fsync(self._fd)

    def write_results(self, document: dict, table: str) -> None:
        """The result document and its table, beside the outcomes."""
        write_text_atomic(self.folder / RESULTS, dumps_indented(document, indent=2) + "\n")
        write_text_atomic(self.folder / SUMMARY, table + "\n")

    def close(self) -> None:
        """Wait for the last fsync and close the file (the store stays locked: see :meth:`release`)."""
        if self._syncer is not None:
            self._syncer.close()
            self._syncer = None
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def release(self) -> None:
        """Close the store and give up its lock (another run may then continue it)."""
        self.close()
        release_lock(self._lock)
        self._lock = None


@dataclass
class StoredResults:
    """A store read back: its manifest, the sweep re-parsed from it, complete tasks and their lines."""

    folder: Path
    manifest: dict[str, Any]
    sweep: Sweep
    outcomes: dict[Task, list[Outcome]] = field(repr=False)
    rows: list[dict[str, Any]] = field(repr=False)
    tasks_total: int = 0


def read_store(folder: str | Path) -> StoredResults:
    """Read a store (no simulation): complete tasks only, in task order."""
    from pybai.simulate.tasks import make_tasks

    folder = Path(folder)
    if not folder.is_dir():
        raise ConfigError(f"{folder}: no such folder.")
    if not is_store(folder):
        raise ConfigError(f"{folder}: not a results store (no {MANIFEST}).")
    manifest = _load_manifest(folder)
    document = manifest.get("document")
    if not isinstance(document, dict):
        raise ConfigError(f"{folder}/{MANIFEST}: no experiment document.")
    sweep = Sweep.from_document(document, default_name=str(manifest.get("name", folder.name)))
    tasks = make_tasks(sweep.experiments, int(manifest.get("block", BLOCK)))
    rows, _ = _read_lines(folder / OUTCOMES)
    outcomes, kept = _complete_tasks(sweep, tasks, rows)
    return StoredResults(folder, manifest, sweep, outcomes, kept, len(tasks))
