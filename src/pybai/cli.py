"""The ``pybai`` command line: a thin layer over the public API.

User mistakes (bad file, bad key, bad argument) exit with status 2 and one line on
standard error; they never print a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pybai import __version__
from pybai.exceptions import PybaiError

__all__ = ["main"]


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2
        self.exit(2, f"pybai: error: {message}\n")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _write_json(document: dict, path: str) -> None:
    text = json.dumps(document, indent=2)
    if path == "-":
        print(text)
        return
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(text + "\n", encoding="utf-8")
    tmp.replace(target)  # never half-written


def _cmd_run(args) -> int:
    from pybai.config import load_experiment
    from pybai.report import format_results
    from pybai.simulate import run_experiment

    experiment = load_experiment(args.file)
    document = run_experiment(experiment, jobs=args.jobs, progress=not args.quiet)
    # with --json - the document owns standard output; the table goes to standard error
    print(format_results(document), file=sys.stderr if args.json == "-" else sys.stdout)
    if args.json:
        _write_json(document, args.json)
    return 0


def _cmd_complexity(args) -> int:
    from pybai.complexity import complexity_report
    from pybai.config import load_experiment

    report = complexity_report(load_experiment(args.file))
    if args.json:
        _write_json(report, args.json)
    if args.json != "-":
        for key, value in report.items():
            print(f"{key}: {value}")
    return 0


def _cmd_demo(args) -> int:
    from pybai.demo import run_demo

    run_demo(out=Path(args.out), jobs=args.jobs, quick=args.quick)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="pybai", description="Best-arm identification: simulations, complexity, sessions.")
    parser.add_argument("--version", action="version", version=f"pybai {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    run = sub.add_parser("run", help="run an experiment file and print the comparison table")
    run.add_argument("file", help="experiment file (TOML)")
    run.add_argument("--jobs", type=_positive_int, default=1, help="worker processes (results do not depend on it)")
    run.add_argument("--json", metavar="OUT", help="write the result document to OUT ('-' for stdout)")
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    run.set_defaults(func=_cmd_run)

    cx = sub.add_parser("complexity", help="T*(mu), optimal weights and the lower bound of a file's problem")
    cx.add_argument("file", help="experiment file (TOML)")
    cx.add_argument("--json", metavar="OUT", help="write the JSON to OUT ('-' for stdout only)")
    cx.set_defaults(func=_cmd_complexity)

    demo = sub.add_parser("demo", help="short runs of the shipped experiment families (what `make demo` runs)")
    demo.add_argument("--out", default="out/demo", help="folder for figures and JSON (default out/demo)")
    demo.add_argument("--jobs", type=_positive_int, default=2)
    demo.add_argument("--quick", action="store_true", help="fewer replications")
    demo.set_defaults(func=_cmd_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``pybai`` command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except PybaiError as exc:
        print(f"pybai: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("pybai: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
