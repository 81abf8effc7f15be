"""``pybai complexity FILE``: the answer, T*(mu), optimal weights and lower bound of a file's problem.

The file's ``[[strategy]]`` tables are not needed (none is run).  A file with a ``[grid]`` gets
one report per grid point: on the terminal under a line naming the point, and in JSON as
``{"points": [{"name", "grid", ...report}]}``.
"""

from __future__ import annotations

from pybai.cli._common import check_output_file, experiment_file, write_json


def add_parser(sub) -> None:
    cx = sub.add_parser("complexity", help="T*(mu), optimal weights and the lower bound of a file's problem "
                        "(per grid point)")
    cx.add_argument("file", metavar="FILE", help="experiment file (TOML), or the name of a shipped one (pybai list)")
    cx.add_argument("--json", metavar="OUT", help="write the JSON to OUT ('-' for stdout only)")
    cx.set_defaults(func=command)


def _print(report: dict, indent: str = "") -> None:
    from pybai.report.table import answer_text

    for key, value in report.items():
        if key == "answer":
            value = answer_text(value, report.get("labels"))
        elif key == "optimal_weights" and report.get("labels") is not None:
            value = ", ".join(f"{name} {w}" for name, w in zip(report["labels"], value))
        if key != "labels":
            print(f"{indent}{key}: {value}")


def command(args) -> int:
    from pybai.complexity import complexity_report
    from pybai.config import load_sweep

    check_output_file(args.json, "--json")
    path = experiment_file(args.file)
    points = load_sweep(path, need_strategies=False)
    if len(points) == 1 and not points[0].grid:
        document: dict = complexity_report(points[0])
        reports = [document]
    else:
        reports = [complexity_report(point) for point in points]
        document = {"points": [{"name": point.name, "grid": dict(point.grid), **report}
                               for point, report in zip(points, reports)]}
    if args.json:
        write_json(document, args.json)
    if args.json != "-":
        for point, report in zip(points, reports):
            if point.grid:
                print(f"{point.name}:")
            _print(report, "  " if point.grid else "")
    return 0
