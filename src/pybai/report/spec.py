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
    ranking = { by = "mean_samples", order = [["tas"], ["uniform"]] }   # optional: a ranking in words, best first
    [reproduce.metric]                  # optional: derived metrics (pybai.report.derived)
    over_lower_bound = { of = "mean_samples", over = "lower_bound" }
    [[reproduce.variant]]               # zero or more: the file run again with changes, in its own store
    name = "delta-correct"              # store OUT/<file>--delta-correct/
    title = "..."
    set = { "strategy.threshold" = "delta-correct", replications = 200 }   # overrides, as quick
    quick = { replications = 10 }       # --quick: applied after the file's quick
    compare = ["mean_samples"]          # a table beside the file's own run (same replications)
    # [[reproduce.variant.figure]], [reproduce.variant.paper]: its own (default: the file's figures)

A dotted override through an array of tables (``"strategy.threshold"``) sets the value in
every table of the array (every ``[[strategy]]``).

Examples
--------
>>> spec = parse_reproduce({"name": "x", "quick": {"replications": 5, "grid": {"problem.delta": [0.1]}}})
>>> doc = apply_quick({"replications": 100, "grid": {"problem.delta": [0.1, 0.01]}}, spec)
>>> doc["replications"], doc["grid"]
(5, {'problem.delta': [0.1]})
>>> spec = parse_reproduce({"name": "x", "variant": [{"name": "proven", "set": {"strategy.threshold": "delta-correct"}}]})
>>> doc = apply_variant({"name": "f", "strategy": [{"name": "tas"}, {"name": "lucb"}], "reproduce": {}}, spec, "proven")
>>> doc["name"], doc["strategy"], doc["reproduce"]["as_variant"]
('f--proven', [{'name': 'tas', 'threshold': 'delta-correct'}, {'name': 'lucb', 'threshold': 'delta-correct'}], 'proven')
"""

from __future__ import annotations

import copy
import difflib
from dataclasses import dataclass, field
from typing import Any

from pybai.exceptions import ConfigError
from pybai.report.derived import DerivedMetric, parse_metrics

__all__ = ["ReproduceSpec", "FigureSpec", "PaperTable", "VariantSpec", "parse_reproduce", "apply_quick",
           "apply_variant", "VARIANT_SEPARATOR"]

_TOP_KEYS = ("name", "title", "description", "quick", "figure", "paper", "metric", "variant", "as_variant")
_PAPER_KEYS = ("source", "columns", "rows", "note", "ranking")
_VARIANT_KEYS = ("name", "title", "description", "set", "quick", "figure", "paper", "compare")

#: between a file's name and its variant's, in the variant's experiment name and store folder
VARIANT_SEPARATOR = "--"


@dataclass
class FigureSpec:
    """One ``[[reproduce.figure]]``: its kind and options (validated against the kind's keys)."""

    kind: str
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class PaperTable:
    """Published numbers: ``columns`` names (``strategy``, grid keys, metrics) and ``rows`` of values.

    ``ranking``: ``(metric, tiers)``, the paper's ranking of strategies in words (tiers of
    strategy labels, best first), checked against the runs by :mod:`pybai.report.agreement`.
    """

    source: str
    columns: list[str]
    rows: list[list[Any]]
    note: str = ""
    ranking: tuple[str, list[list[str]]] | None = None


@dataclass
class VariantSpec:
    """One ``[[reproduce.variant]]``: the file run again with ``overrides``, presented on its own."""

    name: str
    title: str = ""
    description: str = ""
    overrides: dict[str, Any] = field(default_factory=dict)
    quick: dict[str, Any] = field(default_factory=dict)
    figures: list[FigureSpec] = field(default_factory=list)
    paper: PaperTable | None = None
    compare: list[str] = field(default_factory=list)


@dataclass
class ReproduceSpec:
    """A file's ``[reproduce]`` table; ``as_variant`` names the variant a stored document was run as."""

    name: str
    title: str = ""
    description: str = ""
    quick: dict[str, Any] = field(default_factory=dict)
    figures: list[FigureSpec] = field(default_factory=list)
    paper: PaperTable | None = None
    metrics: dict[str, DerivedMetric] = field(default_factory=dict)
    variants: list[VariantSpec] = field(default_factory=list)
    as_variant: str | None = None

    def variant(self, name: str) -> VariantSpec:
        for variant in self.variants:
            if variant.name == name:
                return variant
        known = ", ".join(v.name for v in self.variants) or "none"
        raise ConfigError(f'reproduce.variant: no variant named "{name}" (declared: {known}).')

    def presentation(self) -> "ReproduceSpec":
        """How a run of this table is shown: the variant's title, description, figures and paper when ``as_variant``."""
        if self.as_variant is None:
            return self
        variant = self.variant(self.as_variant)
        return ReproduceSpec(self.name, variant.title or f"{self.title} ({variant.name})", variant.description,
                             figures=variant.figures or self.figures, paper=variant.paper, metrics=self.metrics)


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
    return PaperTable(_string(table, "source", where), columns, rows, str(table.get("note", "")),
                      _ranking(table.get("ranking"), f"{where}.ranking"))


def _ranking(table: Any, where: str) -> tuple[str, list[list[str]]] | None:
    """``ranking = { by = METRIC, order = [[best, ...], [next, ...]] }``, validated."""
    if table is None:
        return None
    example = '{ by = "mean_gain", order = [["halving"], ["batch-sar"], ["round-robin"]] }'
    if not isinstance(table, dict) or set(table) != {"by", "order"}:
        raise ConfigError(f"{where}: expected a table with keys by and order, e.g. {example}.")
    by, order = table["by"], table["order"]
    if not isinstance(by, str) or not by:
        raise ConfigError(f"{where}.by: expected a metric name, got {by!r}.")
    if (not isinstance(order, list) or len(order) < 2 or not all(
            isinstance(tier, list) and tier and all(isinstance(s, str) and s for s in tier) for tier in order)):
        raise ConfigError(f"{where}.order: expected at least two tiers of strategy labels, best first, e.g. {example}.")
    return by, [list(tier) for tier in order]


def _overrides(table: Any, where: str, example: str) -> dict[str, Any]:
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: expected a table of overrides, e.g. {example}.")
    if "grid" in table and (not isinstance(table["grid"], dict) or not table["grid"]):
        raise ConfigError(f"{where}.grid: expected a table of grid axes and their (fewer) values.")
    if "replications" in table and (isinstance(table["replications"], bool) or not isinstance(table["replications"], int)
                                    or table["replications"] < 1):
        raise ConfigError(f"{where}.replications: expected a positive integer, got {table['replications']!r}.")
    return table


def _figures(table: dict, where: str) -> list[FigureSpec]:
    figures = table.get("figure", [])
    if isinstance(figures, dict):
        figures = [figures]
    if not isinstance(figures, list):
        raise ConfigError(f"{where}.figure: expected [[{where}.figure]] tables.")
    return [_figure(entry, f"{where}.figure[{i}]") for i, entry in enumerate(figures)]


def _variant(table: Any, where: str) -> VariantSpec:
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: expected a table, got {table!r}.")
    _unknown(where, table, _VARIANT_KEYS)
    name = _string(table, "name", where)
    if not all(c.isalnum() or c in "-_" for c in name) or VARIANT_SEPARATOR in name:
        raise ConfigError(f"{where}.name: expected letters, digits, single '-' and '_' (a folder name), got {name!r}.")
    compare = table.get("compare", [])
    if not isinstance(compare, list) or not all(isinstance(c, str) for c in compare):
        raise ConfigError(f"{where}.compare: expected a list of metric names, got {compare!r}.")
    return VariantSpec(
        name=name,
        title=_string(table, "title", where, ""),
        description=_string(table, "description", where, ""),
        overrides=_overrides(table.get("set", {}), f"{where}.set", '{ "strategy.threshold" = "delta-correct" }'),
        quick=_overrides(table.get("quick", {}), f"{where}.quick", "{ replications = 10 }"),
        figures=_figures(table, where),
        paper=None if "paper" not in table else _paper(table["paper"], f"{where}.paper"),
        compare=list(compare),
    )


def parse_reproduce(table: Any, where: str = "reproduce") -> ReproduceSpec | None:
    """The validated ``[reproduce]`` table (None when absent); raises :class:`ConfigError` naming the key."""
    if table is None:
        return None
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: expected a table, got {table!r}.")
    _unknown(where, table, _TOP_KEYS)
    variants = table.get("variant", [])
    if not isinstance(variants, list):
        raise ConfigError(f"{where}.variant: expected [[reproduce.variant]] tables.")
    spec = ReproduceSpec(
        name=_string(table, "name", where),
        title=_string(table, "title", where, ""),
        description=_string(table, "description", where, ""),
        quick=_overrides(table.get("quick", {}), f"{where}.quick", "{ replications = 20 }"),
        figures=_figures(table, where),
        paper=None if "paper" not in table else _paper(table["paper"], f"{where}.paper"),
        metrics=parse_metrics(table.get("metric"), f"{where}.metric"),
        variants=[_variant(entry, f"{where}.variant[{i}]") for i, entry in enumerate(variants)],
    )
    names = [v.name for v in spec.variants]
    if len(set(names)) != len(names):
        raise ConfigError(f"{where}.variant: two variants share a name ({', '.join(names)}).")
    if "as_variant" in table:
        spec.as_variant = _string(table, "as_variant", where)
        spec.variant(spec.as_variant)  # a store's variant must be declared
    return spec


def _set(node: Any, parts: list[str], value: Any, key: str) -> None:
    """Set ``parts`` (a dotted path) below ``node``; a list of tables on the way gets the rest in each table."""
    if isinstance(node, list):
        if not node or not all(isinstance(item, dict) for item in node):
            raise ConfigError(f'reproduce override "{key}": a list on the way is not an array of tables.')
        for item in node:
            _set(item, parts, value, key)
        return
    if not isinstance(node, dict):
        raise ConfigError(f'reproduce override "{key}": {parts[0]} is below a value that is not a table.')
    if len(parts) == 1:
        node[parts[0]] = copy.deepcopy(value)
        return
    _set(node.setdefault(parts[0], {}), parts[1:], value, key)


def _apply(document: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``document`` with ``overrides`` applied (top-level, dotted and ``grid`` keys)."""
    document = copy.deepcopy(document)
    for key, value in overrides.items():
        if key == "grid":
            grid = document.get("grid")
            for axis, values in value.items():
                if not isinstance(grid, dict) or axis not in grid:
                    raise ConfigError(f'reproduce.quick.grid."{axis}": the file has no such grid axis.')
                grid[axis] = copy.deepcopy(values)
            continue
        _set(document, key.split("."), value, key)
    return document


def apply_quick(document: dict[str, Any], spec: ReproduceSpec | None) -> dict[str, Any]:
    """A copy of ``document`` with the ``--quick`` overrides of ``spec`` applied.

    Top-level keys replace the file's; dotted keys (``"problem.max_samples"``) set nested
    values; ``grid`` replaces the values of existing grid axes (an axis the file does not
    have is refused).  A document run as a variant (:func:`apply_variant`) then gets the
    variant's own quick overrides.
    """
    if spec is None:
        return copy.deepcopy(document)
    document = _apply(document, spec.quick)
    variant = (document.get("reproduce") or {}).get("as_variant")
    return _apply(document, spec.variant(variant).quick) if variant is not None else document


def apply_variant(document: dict[str, Any], spec: ReproduceSpec, name: str, default_name: str = "experiment") -> dict[str, Any]:
    """The file's document run as variant ``name``: its overrides applied, named ``<file>--<variant>``.

    The seed is the file's, so the variant sees the same replications (truths and noise) as the
    file's own run; ``reproduce.as_variant`` records which variant the document is.
    """
    variant = spec.variant(name)
    result = _apply(document, variant.overrides)
    result["name"] = f"{document.get('name', default_name)}{VARIANT_SEPARATOR}{name}"
    result.setdefault("reproduce", {})["as_variant"] = name
    return result
