"""``pybai demo``: every shipped reproduction in its quick version (what ``make demo`` runs).

A failing reproduction does not stop the others; the exit status is 1 when any failed.
"""

from __future__ import annotations

from pathlib import Path

from pybai.cli._common import positive_int


def add_parser(sub) -> None:
    demo = sub.add_parser("demo", help="every shipped reproduction with --quick settings, then a summary table (what `make demo` runs)")
    demo.add_argument("--out", default="out/demo", help="folder for stores, figures and reports (default out/demo)")
    demo.add_argument("--jobs", type=positive_int, default=2)
    demo.add_argument("--full", action="store_true", help="the full reproductions instead of the quick ones (long)")
    demo.add_argument("--quick", action="store_true", help=argparse_suppress())
    demo.add_argument("names", nargs="*", help="only these reproductions (default: all)")
    demo.set_defaults(func=command)


def argparse_suppress():
    import argparse

    return argparse.SUPPRESS


def command(args) -> int:
    from pybai.demo import run_demo

    rows = run_demo(out=Path(args.out), jobs=args.jobs, quick=not args.full, names=args.names or None)
    return 1 if any(row.status != "ok" for row in rows) else 0
