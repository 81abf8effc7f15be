"""Shared helpers of the benchmark scripts: machine/load records, markdown tables, JSON output.

Not part of pybai.  Every benchmark records the date, the machine, the pybai commit and the
1-minute load average (``os.getloadavg``) before and after each timed section, because the
project's reference machine has 2 cores that are often shared with other jobs.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import pathlib
import platform
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"


def load() -> list[float]:
    """1, 5 and 15-minute load averages (rounded)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:  # pragma: no cover - not on every platform
        return [float("nan")] * 3


def load_str(values: list[float] | None = None) -> str:
    v = load() if values is None else values
    return f"{v[0]:.2f}, {v[1]:.2f}, {v[2]:.2f}"


def _cpu_model() -> str:
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _git(*args: str) -> str | None:
    """Read-only git query (rev-parse / status); None when unavailable."""
    try:
        out = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def machine() -> dict:
    """Where and when: date, host, CPU, cores, versions, pybai commit, load."""
    import numba
    import numpy

    import pybai

    status = _git("status", "--porcelain", "--untracked-files=no")
    return {
        "date": _dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "host": platform.node(),
        "platform": platform.platform(),
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "numba": numba.__version__,
        "pybai": pybai.__version__,
        "commit": _git("rev-parse", "--short", "HEAD"),
        "tree_modified": bool(status) if status is not None else None,
        "load_at_start": load(),
        "command": " ".join([".venv/bin/python", *[_rel(a) for a in sys.argv]]),
    }


def _rel(arg: str) -> str:
    try:
        return str(pathlib.Path(arg).resolve().relative_to(ROOT))
    except ValueError:
        return arg


def machine_line(info: dict) -> str:
    return (
        f"{info['date']} on {info['host']} ({info['cpu']}, {info['cores']} cores; Python {info['python']}, "
        f"numpy {info['numpy']}, numba {info['numba']}; pybai {info['pybai']} at {info['commit']}"
        f"{' + local changes' if info.get('tree_modified') else ''}); load average at start "
        f"{load_str(info['load_at_start'])}"
    )


def table(headers: list[str], rows: list[list], align: str | None = None) -> str:
    """A markdown table (``align``: one of 'l'/'r' per column, default left then right)."""
    align = align or ("l" + "r" * (len(headers) - 1))
    sep = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(headers) + " |", "| " + " | ".join(sep) + " |"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def fmt(x, digits: int = 0) -> str:
    """Thousands-separated number, '-' for None/NaN."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{x:,.{digits}f}"


def write_json(name: str, doc: dict) -> pathlib.Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / name
    path.write_text(json.dumps(doc, indent=2, allow_nan=True) + "\n", encoding="utf-8")
    return path
