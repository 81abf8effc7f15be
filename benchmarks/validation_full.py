"""The full validation suite, one process per instance family, resumable; merged table for docs/validation.md.

``pybai validate`` (full sizes) runs every family in one process: hours of CPU.  This script runs
``pybai validate --family NAME --strategy S --json DIR/NAME-S.json`` for every registered family and
every strategy that declares the family's goal, skipping the pairs whose JSON is already in DIR (or
whose family has a whole-family ``DIR/NAME.json``), ``--jobs`` processes at a time; an interrupted
run therefore resumes pair by pair.  Seeds depend only on the family's index in the registry, the
instance and the run (not on the strategy), so the rows equal those of one ``pybai validate`` run.
It then writes the merged table to ``benchmarks/results/validation-full.{json,md}``.

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
from pybai.validation.suite import Row, strategies_for  # noqa: E402


def pairs() -> list[tuple[str, str]]:
    """(family, strategy) for every registered family and strategy the suite runs on it, in table order."""
    out = []
    for name, family in FAMILIES.items():
        names = set(strategies_for(family.goal, "fixed-confidence"))
        if family.budgets:
            names |= set(strategies_for(family.goal, "fixed-budget"))
        out.extend((name, s) for s in sorted(names))
    return out


def _done(directory: pathlib.Path, family: str, strategy: str) -> bool:
    return (directory / f"{family}.json").exists() or (directory / f"{family}-{strategy}.json").exists()


def run_missing(directory: pathlib.Path, jobs: int) -> None:
    """Run the (family, strategy) pairs without a JSON in ``directory``, ``jobs`` processes at a time."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    todo = [(f, s) for f, s in pairs() if not _done(directory, f, s)]
    running: list[tuple[str, subprocess.Popen]] = []
    while todo or running:
        while todo and len(running) < jobs:
            family, strategy = todo.pop(0)
            tag = f"{family}-{strategy}"
            log = (directory / f"{tag}.log").open("w")
            cmd = [sys.executable, "-m", "pybai.cli", "validate", "--family", family, "--strategy", strategy,
                   "--json", str(directory / f"{tag}.json")]
            running.append((tag, subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)))
        time.sleep(2.0)
        still = []
        for tag, proc in running:
            if proc.poll() is None:
                still.append((tag, proc))
            else:
                print(f"{tag}: exit {proc.returncode}", flush=True)
        running = still


def merge(directory: pathlib.Path) -> dict:
    """Rows in table order: a family's whole JSON if present, else its per-strategy JSONs."""
    docs = []
    complete = []
    for name in FAMILIES:
        whole = directory / f"{name}.json"
        if whole.exists():
            docs.append(json.loads(whole.read_text()))
            complete.append(name)
            continue
        wanted = [s for f, s in pairs() if f == name]
        found = [directory / f"{name}-{s}.json" for s in wanted if (directory / f"{name}-{s}.json").exists()]
        docs.extend(json.loads(path.read_text()) for path in found)
        if len(found) == len(wanted):
            complete.append(name)
    rows = [row for doc in docs for row in doc["rows"]]
    return {"dates": sorted({d["date"] for d in docs}), "seed": docs[0]["seed"] if docs else None,
            "settings": docs[0]["settings"] if docs else None, "rows": rows,
            "cpu_seconds": round(sum(d["cpu_seconds"] for d in docs), 1),
            "families": complete, "missing": [name for name in FAMILIES if name not in complete]}


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
