"""``pybai demo``: short runs of the shipped experiment families (what ``make demo`` runs)."""

from __future__ import annotations

from pathlib import Path

from pybai.cli._common import positive_int


def add_parser(sub) -> None:
    demo = sub.add_parser("demo", help="short runs of the shipped experiment families (what `make demo` runs)")
    demo.add_argument("--out", default="out/demo", help="folder for figures and JSON (default out/demo)")
    demo.add_argument("--jobs", type=positive_int, default=2)
    demo.add_argument("--quick", action="store_true", help="fewer replications")
    demo.set_defaults(func=command)


def command(args) -> int:
    from pybai.demo import run_demo

    run_demo(out=Path(args.out), jobs=args.jobs, quick=args.quick)
    return 0
