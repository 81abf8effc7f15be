"""``pybai run FILE``: simulate an experiment file (or a sweep over its [grid]) and print the table."""

from __future__ import annotations

import sys

from pybai import _interrupts
from pybai.cli._common import check_output_file, experiment_file, note, positive_int, write_json


def add_backend_options(parser) -> None:
    """``--jobs``, ``--cluster``, ``--scheduler`` (shared with ``pybai reproduce``)."""
    parser.add_argument("--jobs", type=positive_int, default=1,
                        help="local worker processes (results do not depend on it; capped at the cores and tasks)")
    parser.add_argument("--cluster", metavar="local:N",
                        help="run on a Dask LocalCluster of N worker processes (needs pybai[dask])")
    parser.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                        help="run on an existing Dask scheduler (its workers must have pybai installed)")


def add_parser(sub) -> None:
    run = sub.add_parser("run", help="run an experiment file (or a sweep over its [grid]) and print the table")
    run.add_argument("file", metavar="FILE", help="experiment file (TOML), or the name of a shipped one (pybai list)")
    add_backend_options(run)
    run.add_argument("--json", metavar="OUT", help="write the result document to OUT ('-' for stdout)")
    run.add_argument("--out", metavar="DIR",
                     help="store every finished task in DIR (JSON lines + manifest), then the result document")
    run.add_argument("--resume", action="store_true", help="with --out: run only the tasks not stored yet")
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    run.set_defaults(func=command)


def command(args) -> int:
    from pybai.exceptions import ConfigError
    from pybai.report import format_results
    from pybai.simulate import RunInterrupted, Sweep, run_sweep
    from pybai.simulate.executors import make_executor
    from pybai.simulate.store import ResultStore

    args.file = experiment_file(args.file)
    sweep = Sweep.from_file(args.file)
    if args.resume and args.out is None:
        raise ConfigError("--resume: needs --out DIR (the store to continue).")
    backend = make_executor(args.jobs, args.cluster, args.scheduler)
    check_output_file(args.json, "--json")  # refuse unwritable outputs before any work
    if args.out is not None:
        ResultStore.check_folder(args.out, sweep, args.resume)
    try:
        document = run_sweep(sweep, backend=backend, out=args.out, resume=args.resume,
                             progress=not args.quiet, note=note, source=str(args.file))
    except RunInterrupted as exc:
        _interrupts.exit_at_once()  # stopping: a further Ctrl-C ends the process at once
        print(f"pybai: {exc.message()}", file=sys.stderr)
        _interrupts.said()
        return 130
    # with --json - the document owns standard output; the table goes to standard error
    print(format_results(document), file=sys.stderr if args.json == "-" else sys.stdout)
    if args.json:
        write_json(document, args.json)
    return 0
