"""``pybai run FILE``: simulate an experiment file and print the comparison table."""

from __future__ import annotations

import sys

from pybai.cli._common import positive_int, write_json


def add_parser(sub) -> None:
    run = sub.add_parser("run", help="run an experiment file and print the comparison table")
    run.add_argument("file", help="experiment file (TOML)")
    run.add_argument("--jobs", type=positive_int, default=1, help="worker processes (results do not depend on it)")
    run.add_argument("--json", metavar="OUT", help="write the result document to OUT ('-' for stdout)")
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    run.set_defaults(func=command)


def command(args) -> int:
    from pybai.config import load_experiment
    from pybai.report import format_results
    from pybai.simulate import run_experiment

    experiment = load_experiment(args.file)
    document = run_experiment(experiment, jobs=args.jobs, progress=not args.quiet)
    # with --json - the document owns standard output; the table goes to standard error
    print(format_results(document), file=sys.stderr if args.json == "-" else sys.stdout)
    if args.json:
        write_json(document, args.json)
    return 0
