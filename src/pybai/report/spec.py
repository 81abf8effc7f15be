"""The ``[reproduce]`` table of a shipped experiment file: validated, and its ``--quick`` overrides.

Syntax (see docs/engine.md)::

    [reproduce]
    name = "baics-table1"               # NAME of `pybai reproduce NAME`; files sharing it form one reproduction
    title = "Table 1 of Wu, Zheng & Zhu"
    description = "..."                 # optional paragraph under the title
    quick = { replications = 20 }       # --quick: top-level keys, dotted keys ("problem.max_samples"),
                                        # and grid = { "environment.d" = [2, 5] } (replaces those axes' values)
    [[reproduce.figure]]                # zero or more; kinds in pybai.report.figures.FIGURES
    kind = "metric-vs-grid"
    x = "environment.d"
    y = "mean_samples"
    [reproduce.paper]                   # optional: published numbers shown beside the measured ones
    source = "..."
    columns = ["strategy", "mean_samples"]
    rows = [["tas", 1703]]
    note = "..."

Examples
--------
>>> spec = parse_reproduce({"name": "x", "quick": {"replications": 5, "grid": {"problem.delta": [0.1]}}})
>>> doc = apply_quick({"replications": 100, "grid": {"problem.delta": [0.1, 0.01]}}, spec)
>>> doc["replications"], doc["grid"]
(5, {'problem.delta': [0.1]})
"""

from __future__ import annotations

import copy
import difflib
from dataclasses import dataclass, field
from typing import Any

from pybai.exceptions import ConfigError

__all__ = ["ReproduceSpec", "FigureSpec", "PaperTable", "parse_reproduce", "apply_quick"]

_TOP_KEYS = ("name", "title", "description", "quick", "figure", "paper")
_PAPER_KEYS = ("source", "columns", "rows", "note")


@dataclass
class FigureSpec:
    """One ``[[reproduce.figure]]``: its kind and options (validated against the kind's keys)."""

    kind: str
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class PaperTable:
    """Published numbers: ``columns`` names (``strategy``, grid keys, metrics) and ``rows`` of values."""

    source: str
    columns: list[str]
    rows: list[list[Any]]
    note: str = ""


@dataclass
class ReproduceSpec:
    name: str
    title: str = ""
    description: str = ""
    quick: dict[str, Any] = field(default_factory=dict)
    figures: list[FigureSpec] = field(default_factory=list)
    paper: PaperTable | None = None


def _unknown(where: str, keys, allowed) -> None:
    for key in keys:
        if key not in allowed:
            close = difflib.get_close_matches(str(key), list(allowed), n=1)
            hint = f' (did you mean "{close[0]}"?)' if close else f" (expected one of {', '.join(allowed)})"
            raise ConfigError(f'{where}.{key}: unknown key{hint}.')


def _string(table: dict, key: str, where: str, default: str | None = None) -> str:
    value = table.get(key, default)
    if not isinstance(value, str) or (default is None and not value):
        raise ConfigError(f"{where}.{key}: expected a non-empty string, got {value!r}.")
    return value


def _figure(entry: Any, where: str) -> FigureSpec:
    from pybai.report.figures import FIGURES

    if not isinstance(entry, dict):
        raise ConfigError(f"{where}: expected a table, got {entry!r}.")
    kind = entry.get("kind")
    if kind not in FIGURES:
        raise ConfigError(f"{where}.kind: expected one of {', '.join(sorted(FIGURES))}, got {kind!r}.")
    spec = FIGURES[kind]
    options = {k: v for k, v in entry.items() if k != "kind"}
    _unknown(where, options, spec.keys)
    for key in spec.required:
        if key not in options:
            raise ConfigError(f"{where}.{key}: missing (a {kind} figure needs {', '.join(spec.required)}).")
    for key in ("x", "y", "title", "caption"):
        if key in options and not isinstance(options[key], str):
            raise ConfigError(f"{where}.{key}: expected a string, got {options[key]!r}.")
    for key in ("log_x", "log_y"):
        if key in options and not isinstance(options[key], bool):
            raise ConfigError(f"{where}.{key}: expected true or false, got {options[key]!r}.")
    for key in ("strategies", "columns"):
        if key in options and (not isinstance(options[key], list) or not all(isinstance(s, str) for s in options[key])):
            raise ConfigError(f"{where}.{key}: expected a list of strings, got {options[key]!r}.")
    if "at" in options and not isinstance(options["at"], dict):
        raise ConfigError(f"{where}.at: expected a table of grid values, e.g. {{ \"environment.d\" = 5 }}.")
    return FigureSpec(kind, options)


def _paper(table: Any, where: str) -> PaperTable:
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: expected a table, got {table!r}.")
    _unknown(where, table, _PAPER_KEYS)
    columns, rows = table.get("columns"), table.get("rows")
    if not isinstance(columns, list) or not columns or not all(isinstance(c, str) for c in columns):
        raise ConfigError(f"{where}.columns: expected a non-empty list of column names, got {columns!r}.")
    if not isinstance(rows, list) or not all(isinstance(r, list) and len(r) == len(columns) for r in rows):
        raise ConfigError(f"{where}.rows: expected a list of rows with {len(columns)} values each (one per column).")
    return PaperTable(_string(table, "source", where), columns, rows, str(table.get("note", "")))


def parse_reproduce(table: Any, where: str = "reproduce") -> ReproduceSpec | None:
    """The validated ``[reproduce]`` table (None when absent); raises :class:`ConfigError` naming the key."""
    if table is None:
        return None
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: expected a table, got {table!r}.")
    _unknown(where, table, _TOP_KEYS)
    quick = table.get("quick", {})
    if not isinstance(quick, dict):
        raise ConfigError(f"{where}.quick: expected a table of overrides, e.g. {{ replications = 20 }}.")
    if "grid" in quick and (not isinstance(quick["grid"], dict) or not quick["grid"]):
        raise ConfigError(f"{where}.quick.grid: expected a table of grid axes and their (fewer) values.")
    if "replications" in quick and (isinstance(quick["replications"], bool) or not isinstance(quick["replications"], int)
                                    or quick["replications"] < 1):
        raise ConfigError(f"{where}.quick.replications: expected a positive integer, got {quick['replications']!r}.")
    figures = table.get("figure", [])
    if isinstance(figures, dict):
        figures = [figures]
    if not isinstance(figures, list):
        raise ConfigError(f"{where}.figure: expected [[reproduce.figure]] tables.")
    return ReproduceSpec(
        name=_string(table, "name", where),
        title=_string(table, "title", where, ""),
        description=_string(table, "description", where, ""),
        quick=quick,
        figures=[_figure(entry, f"{where}.figure[{i}]") for i, entry in enumerate(figures)],
        paper=None if "paper" not in table else _paper(table["paper"], f"{where}.paper"),
    )


def apply_quick(document: dict[str, Any], spec: ReproduceSpec | None) -> dict[str, Any]:
    """A copy of ``document`` with the ``--quick`` overrides of ``spec`` applied.

    Top-level keys replace the file's; dotted keys (``"problem.max_samples"``) set nested
    values; ``grid`` replaces the values of existing grid axes (an axis the file does not
    have is refused).
    """
    document = copy.deepcopy(document)
    if spec is None:
        return document
    for key, value in spec.quick.items():
        if key == "grid":
            grid = document.get("grid")
            for axis, values in value.items():
                if not isinstance(grid, dict) or axis not in grid:
                    raise ConfigError(f'reproduce.quick.grid."{axis}": the file has no such grid axis.')
                grid[axis] = copy.deepcopy(values)
            continue
        parts = key.split(".")
        node = document
        for part in parts[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ConfigError(f'reproduce.quick."{key}": {part} is not a table.')
        node[parts[-1]] = copy.deepcopy(value)
    return document
