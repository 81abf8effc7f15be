"""The full validation suite, one process per instance family, resumable; merged table for docs/validation.md.

``pybai validate`` (full sizes) runs every family in one process: about an hour of CPU.  This script
runs ``pybai validate --family NAME --json DIR/NAME.json`` for every registered family whose JSON is
not yet in DIR (so an interrupted run resumes family by family; seeds depend only on the family's
index in the registry, so the rows equal those of one ``pybai validate`` run), ``--jobs`` families
at a time, then writes the merged table to ``benchmarks/results/validation-full.{json,md}``.

Usage::

    PYTHONPATH=src .venv/bin/python benchmarks/validation_full.py [--dir runs/validate] [--jobs 2] [--merge-only]
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
sys.path.insert(0, str(ROOT / "src"))

from pybai.validation import FAMILIES, format_table  # noqa: E402
from pybai.validation.suite import Row  # noqa: E402


def run_missing(directory: pathlib.Path, jobs: int) -> None:
    """Run the families without a JSON in ``directory``, ``jobs`` processes at a time."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    todo = [name for name in FAMILIES if not (directory / f"{name}.json").exists()]
    running: list[tuple[str, subprocess.Popen]] = []
    while todo or running:
        while todo and len(running) < jobs:
            name = todo.pop(0)
            log = (directory / f"{name}.log").open("w")
            cmd = [sys.executable, "-m", "pybai.cli", "validate", "--family", name, "--json",
                   str(directory / f"{name}.json")]
            running.append((name, subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)))
        time.sleep(2.0)
        still = []
        for name, proc in running:
            if proc.poll() is None:
                still.append((name, proc))
            else:
                print(f"{name}: exit {proc.returncode}", flush=True)
        running = still


def merge(directory: pathlib.Path) -> dict:
    """Rows of every family's JSON in registry order (extra JSONs such as NAME-STRATEGY.json appended)."""
    docs = []
    for name in FAMILIES:
        for path in sorted(directory.glob(f"{name}*.json")):
            if path.stem == name or path.stem.startswith(name + "-") and path.stem[len(name) + 1:] not in FAMILIES:
                docs.append(json.loads(path.read_text()))
    rows = [row for doc in docs for row in doc["rows"]]
    return {"dates": sorted({d["date"] for d in docs}), "seed": docs[0]["seed"] if docs else None,
            "settings": docs[0]["settings"] if docs else None, "rows": rows,
            "cpu_seconds": round(sum(d["cpu_seconds"] for d in docs), 1),
            "families": [name for name in FAMILIES if (directory / f"{name}.json").exists()],
            "missing": [name for name in FAMILIES if not (directory / f"{name}.json").exists()]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", type=pathlib.Path, default=ROOT / "runs" / "validate")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--merge-only", action="store_true")
    args = ap.parse_args(argv)
    args.dir.mkdir(parents=True, exist_ok=True)
    if not args.merge_only:
        run_missing(args.dir, max(1, args.jobs))
    doc = merge(args.dir)
    rows = [Row(**r) for r in doc["rows"]]
    failed = [r for r in rows if r.verdict == "FAIL"]
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "validation-full.json").write_text(json.dumps(doc, indent=1) + "\n")
    text = (f"Full validation suite ({doc['dates']}, seed {doc['seed']}, sizes {doc['settings']}): {len(rows)} rows, "
            f"{len(failed)} failed, {doc['cpu_seconds']:.0f} s CPU in all; families missing: "
            f"{', '.join(doc['missing']) or 'none'}.\n\n```\n{format_table(rows)}\n```\n")
    (RESULTS / "validation-full.md").write_text(text)
    print(text)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
