"""``pybai list [--json]``: the shipped experiments, by the names every command taking a FILE accepts.

The module is named ``experiments`` (the command ``list``) so that ``pybai.cli.list`` never
shadows the builtin inside the package.
"""

from __future__ import annotations

from pathlib import Path

from pybai.cli._common import write_json
from pybai.exceptions import ConfigError


def add_parser(sub) -> None:
    ls = sub.add_parser("list", help="list the shipped experiments (names that run and complexity accept as FILE), "
                        "their goals and titles")
    ls.add_argument("--json", action="store_true", help="print a JSON list of {name, goal, title, path}")
    ls.set_defaults(func=command)


def _leading_comment(path: Path) -> str:
    """The file's first comment line (without ``#``), else ``""``."""
    from pybai._validation import read_user_text

    for line in read_user_text(path, "an experiment file (TOML)", ConfigError).splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            return stripped.lstrip("#").strip()
        if stripped:
            return ""
    return ""


def shipped_experiments() -> list[dict]:
    """``{name, goal, title, path}`` of every shipped experiment, by name.

    The title is the file's first comment line (a whole sentence saying what the experiment
    finds), else its ``[reproduce]`` title, else its ``name``.
    """
    from pybai.config.experiment import read_document
    from pybai.experiments import experiment_names, experiment_path

    rows = []
    for name in experiment_names():
        path = experiment_path(name)
        doc = read_document(path)
        reproduce, problem = doc.get("reproduce"), doc.get("problem")
        reproduce = reproduce if isinstance(reproduce, dict) else {}
        problem = problem if isinstance(problem, dict) else {}
        title = _leading_comment(path) or reproduce.get("title") or str(doc.get("name", name))
        rows.append({"name": name, "goal": str(problem.get("goal", "")), "title": str(title), "path": str(path)})
    return rows


def command(args) -> int:
    rows = shipped_experiments()
    if args.json:
        write_json(rows, "-")
        return 0
    name_width = max(len(r["name"]) for r in rows)
    goal_width = max(len(r["goal"]) for r in rows)
    for r in rows:
        print(f"{r['name']:<{name_width}}  {r['goal']:<{goal_width}}  {r['title']}")
    return 0
