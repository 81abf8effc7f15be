"""``pybai complexity FILE``: the answer, T*(mu), optimal weights and lower bound of a file's problem."""

from __future__ import annotations

from pybai.cli._common import check_output_file, experiment_file, write_json


def add_parser(sub) -> None:
    cx = sub.add_parser("complexity", help="T*(mu), optimal weights and the lower bound of a file's problem")
    cx.add_argument("file", metavar="FILE", help="experiment file (TOML), or the name of a shipped one (pybai list)")
    cx.add_argument("--json", metavar="OUT", help="write the JSON to OUT ('-' for stdout only)")
    cx.set_defaults(func=command)


def command(args) -> int:
    from pybai.complexity import complexity_report
    from pybai.config import load_experiment

    check_output_file(args.json, "--json")
    path = experiment_file(args.file)
    report = complexity_report(load_experiment(path))
    if args.json:
        write_json(report, args.json)
    if args.json != "-":
        from pybai.report.table import answer_text

        for key, value in report.items():
            if key == "answer":
                value = answer_text(value, report.get("labels"))
            elif key == "optimal_weights" and report.get("labels") is not None:
                value = ", ".join(f"{name} {w}" for name, w in zip(report["labels"], value))
            if key != "labels":
                print(f"{key}: {value}")
    return 0
