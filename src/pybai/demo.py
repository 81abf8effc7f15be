"""``pybai demo`` (what ``make demo`` runs): every shipped reproduction with its ``--quick`` settings.

Each reproduction (``pybai reproduce --list``) runs as ``pybai reproduce NAME --quick`` would,
into ``OUT/NAME/`` (stores, ``report.html``, ``figures/``, ``tables/``), and its comparison
tables are printed.  A previous demo's output folder for that reproduction is replaced.
"""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

from pybai.report import format_results
from pybai.reproductions import run_reproduction, shipped_reproductions
from pybai.simulate.store import is_store, read_store
from pybai.simulate.engine import stored_document

__all__ = ["run_demo"]


def _clear_previous(folder: Path) -> None:
    """Remove a previous demo output (only a folder that holds stores and report files)."""
    if not folder.is_dir():
        return
    expected = {"report.html", "figures", "tables"}
    if all(p.name in expected or (p.is_dir() and is_store(p)) for p in folder.iterdir()):
        shutil.rmtree(folder)


def run_demo(out: Path = Path("out/demo"), jobs: int = 2, quick: bool = True, names: list[str] | None = None) -> list[Path]:
    """Run every shipped reproduction (or ``names``) quickly; returns the HTML reports written.

    ``quick=False`` runs the full reproductions (long: minutes to hours).
    """
    reports = []
    for name in names or list(shipped_reproductions()):
        folder = Path(out) / name
        _clear_previous(folder)
        began = time.perf_counter()
        files = run_reproduction(name, quick=quick, out=folder, jobs=jobs, progress=True,
                                 note=lambda m: print(f"pybai: note: {m}", file=sys.stderr))
        for store in sorted(p for p in folder.iterdir() if p.is_dir() and is_store(p)):
            print(format_results(stored_document(read_store(store))) + "\n")
        print(f"{name}: {time.perf_counter() - began:.0f} s; report {files.html}\n")
        reports.append(files.html)
    print(f"figures, tables and HTML reports written to {out}/")
    return reports
