"""``pybai demo`` (what ``make demo`` runs): every shipped reproduction with its ``--quick`` settings.

Each reproduction (``pybai reproduce --list``) runs as ``pybai reproduce NAME --quick`` does
(:func:`~pybai.reproductions.run_reproduction`: the same preflight checks, backends and stores),
into ``OUT/NAME/`` (stores, ``report.html``, ``figures/``, ``tables/``), and its comparison
tables are printed.  A previous demo's output folder for that reproduction is replaced.  A
reproduction that fails is reported and the demo goes on with the next; it ends with one
summary table (reproduction, status, time, report) and :func:`run_demo` returns its rows, so
that the command exits non-zero when any failed.
"""

from __future__ import annotations

import shutil
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

from pybai.exceptions import ConfigError, PybaiError

__all__ = ["run_demo", "DemoRow", "summary_table", "QUICK_MINUTES"]

#: Wall-clock minutes of the whole quick demo (``make demo``: ``--jobs 2``) on 2 cores, printed up front
#: (None: not measured; the header then says each reproduction's time is shown).  Measured 2026-11-28 on a
#: fresh clone: 16 reproductions in 8 min 34 s on 2 free cores (load 0.4-2.3, 14.7 min of CPU; 18 min 13 s on
#: the same VM shared with other jobs), rounded up.
QUICK_MINUTES: int | None = 9


@dataclass
class DemoRow:
    """One reproduction of the demo: ``status`` is ``"ok"`` or ``"failed"`` (then ``error`` says why)."""

    name: str
    status: str
    seconds: float
    report: Path | None = None
    error: str = ""


def _clear_previous(folder: Path) -> None:
    """Remove a previous demo output (only a folder that holds stores and report files)."""
    from pybai.simulate.store import is_store

    if not folder.is_dir():
        return
    expected = {"report.html", "figures", "tables"}
    if all(p.name in expected or (p.is_dir() and is_store(p)) for p in folder.iterdir()):
        shutil.rmtree(folder)


def _duration(seconds: float) -> str:
    """``42 s``, ``3 min 05 s``."""
    seconds = round(seconds)
    return f"{seconds} s" if seconds < 60 else f"{seconds // 60} min {seconds % 60:02d} s"


def summary_table(rows: list[DemoRow]) -> str:
    """The demo's closing table: one line per reproduction, then the totals."""
    name_width = max([len("reproduction"), *(len(r.name) for r in rows)])
    lines = [f"{'reproduction':<{name_width}}  {'status':<6}  {'time':>10}  report"]
    for row in rows:
        where = str(row.report) if row.report is not None else f"- ({row.error})"
        lines.append(f"{row.name:<{name_width}}  {row.status:<6}  {_duration(row.seconds):>10}  {where}")
    failed = [r.name for r in rows if r.status != "ok"]
    total = _duration(sum(r.seconds for r in rows))
    lines.append(f"{len(rows)} reproduction(s) in {total}: {len(rows) - len(failed)} ok, {len(failed)} failed"
                 + (f" ({', '.join(failed)})" if failed else ""))
    return "\n".join(lines)


def _failure(name: str, exc: Exception) -> str:
    """One line for the summary; a traceback on standard error for what is not a user-facing error."""
    if isinstance(exc, PybaiError):
        message = str(exc)
    else:  # a bug: its traceback helps whoever reads the log
        traceback.print_exception(exc, file=sys.stderr)
        message = f"{type(exc).__name__}: {exc}"
    message = " ".join(message.split())
    print(f"pybai: error: {name}: {message}", file=sys.stderr, flush=True)
    return message if len(message) <= 200 else message[:197] + "..."


def run_demo(out: Path = Path("out/demo"), jobs: int = 2, quick: bool = True,
             names: list[str] | None = None) -> list[DemoRow]:
    """Run every shipped reproduction (or ``names``); one row per reproduction, failed ones included.

    ``quick=False`` runs the full reproductions (long: minutes to hours).  A reproduction that
    fails is reported on standard error and the next one runs; Ctrl-C stops the demo.

    Raises
    ------
    ConfigError
        When ``names`` holds a name that is not a shipped reproduction (before anything runs).
    """
    from pybai.report import format_results
    from pybai.reproductions import run_reproduction, shipped_reproductions
    from pybai.simulate.engine import stored_document
    from pybai.simulate.store import is_store, read_store

    known = shipped_reproductions()
    unknown = [name for name in names or [] if name not in known]
    if unknown:
        raise ConfigError(f"demo: unknown reproduction name(s) {', '.join(unknown)}; expected some of "
                          f"{', '.join(known)}.")
    names = names or list(known)
    settings = "--quick settings" if quick else "full settings (long: minutes to hours each)"
    if quick and len(names) == len(known) and QUICK_MINUTES is not None:
        expected = f"; about {QUICK_MINUTES} min on 2 cores with --jobs 2"
    else:
        expected = "; each one's time is shown when it ends"
    print(f"pybai demo: {len(names)} reproduction(s) with their {settings}, into {out}/{expected}.\n", flush=True)
    rows: list[DemoRow] = []
    began = time.perf_counter()
    for index, name in enumerate(names, 1):
        print(f"[{index}/{len(names)}] {name} (demo running for {_duration(time.perf_counter() - began)})",
              flush=True)
        folder = Path(out) / name
        start = time.perf_counter()
        try:
            _clear_previous(folder)
            files = run_reproduction(name, quick=quick, out=folder, jobs=jobs, progress=True,
                                     note=lambda m: print(f"pybai: note: {m}", file=sys.stderr))
            for store in sorted(p for p in folder.iterdir() if p.is_dir() and is_store(p)):
                print(format_results(stored_document(read_store(store))) + "\n")
        except Exception as exc:  # noqa: BLE001 - reported in the summary; the demo goes on
            rows.append(DemoRow(name, "failed", time.perf_counter() - start, None, _failure(name, exc)))
            continue
        seconds = time.perf_counter() - start
        print(f"{name}: {_duration(seconds)}; report {files.html}\n", flush=True)
        rows.append(DemoRow(name, "ok", seconds, files.html))
    print(summary_table(rows))
    print(f"figures, tables and HTML reports written to {out}/")
    return rows
