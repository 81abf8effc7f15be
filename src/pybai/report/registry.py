"""The figure registry: ``kind -> function``, the data every kind reads, and what the kinds share.

A figure function takes a :class:`FigureData` (the result document and the stored
per-replication lines of one experiment file) and the figure's options, and returns a
matplotlib ``Figure`` (saved as PNG and embedded in the HTML report) or a :class:`TableBlock`
(an HTML table and a CSV file).  Kinds register with :func:`register_figure`; the built-in
ones live in one module per kind of drawing and are registered by importing
:mod:`pybai.report.figures`.

:func:`measured` is the one place a metric is read: a derived metric of ``[reproduce.metric]``
(:mod:`pybai.report.derived`), a registered metric with its 95% interval from the stored
replications (:mod:`pybai.report.intervals`), a key of the problem's complexity report
(``lower_bound``, ``characteristic_time``, ``theory_speedup``, ...), or the result document's value.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from pybai.report.derived import DerivedMetric
from pybai.report.intervals import METRICS, Estimate, estimate, metric_interval, ratio

__all__ = [
    "FIGURES", "FigureKind", "FigureData", "TableBlock", "Estimate", "register_figure", "measured",
    "reference_value", "DEFAULT_COLUMNS", "default_columns", "column_label", "COLUMN_LABELS", "same_value", "short_key", "new_figure", "set_title", "at_text",
    "GRID_LABELS", "grid_label", "metric_label", "STRATEGY_COLOURS", "STRATEGY_MARKERS", "strategy_style",
]

#: result-document metrics shown by the ``table`` kind and the summary tables
DEFAULT_COLUMNS = ["replications", "mean_samples", "mean_samples_stopped", "median_samples", "mean_batches",
                   "correct_rate", "censored", "mean_simple_regret", "false_negative_rate"]


@dataclass
class TableBlock:
    """A table produced by a figure kind (rendered in HTML and written as CSV)."""

    header: list[str]
    rows: list[list[Any]]
    caption: str = ""


@dataclass(frozen=True)
class FigureKind:
    function: Callable
    keys: tuple[str, ...]
    required: tuple[str, ...] = ()


FIGURES: dict[str, FigureKind] = {}

_COMMON = ("title", "caption", "strategies")


#: what a reader sees for a result or complexity key in report tables and axes (CSV files keep the keys)
COLUMN_LABELS = {
    "strategy": "strategy",
    "replications": "runs",
    "mean_samples": "mean samples",
    "mean_samples_stopped": "mean samples over the runs that stopped",
    "median_samples": "median samples",
    "sd_samples": "sd of samples",
    "mean_batches": "mean batches",
    "correct_rate": "correct answers (rate)",
    "error_rate": "errors (rate)",
    "censored": "censored runs",
    "mean_simple_regret": "mean simple regret",
    "false_negative_rate": "false-negative rate",
    "mean_gain": "mean gain",
    "oracle_gain": "oracle gain",
    "mean_seconds": "wall seconds per run",
    "mean_cpu_seconds": "CPU seconds per run",
    "wall_seconds": "wall seconds",
    "cpu_seconds": "CPU seconds",
    "characteristic_time": "T*(mu)",
    "lower_bound": "lower bound T* kl(delta, 1 - delta) (samples)",
    "log_bound": "T* ln(1/delta) (samples)",
    "optimal_weights": "w*(mu)",
    "heuristic_stop": "T* beta(t) at its fixed point (samples)",
    "samples": "samples at stopping",
    "recommendation": "recommendation",
    "simple_regret": "simple regret",
    "correct": "correct answer",
    "false_negative": "false negatives",
    "seconds": "wall seconds",
    "gain": "gain of the answer",
    "batches": "batches",
    "characteristic_time_uniform": "T*(mu) of uniform sampling",
    "heuristic_stop_uniform": "T* beta(t) at its fixed point, uniform sampling (samples)",
    "theory_speedup": "speedup in theory",
    "actual_speedup": "measured speedup",
    "exact_correct_rate": "exactly correct answers (rate)",
    "error_probability_epsilon": "error probability (within epsilon)",
    "h_lb": "H_LB (Soare et al., Eq. 6)",
    "batch_complexity_bound": "batch complexity bound",
    "dual_directions": "dual directions",
    "answer": "answer",
}

#: what a reader sees for a grid key (an axis of a sweep); other keys: their last segment
GRID_LABELS = {
    "problem.delta": "delta",
    "problem.budget": "budget",
    "problem.epsilon": "epsilon",
    "problem.k": "k",
    "problem.batch.size": "batch size b",
    "problem.batch.max_repeats": "repeats per arm and batch r",
    "environment.d": "dimension d",
}

#: the colours of strategies in every figure of a report (the n-th strategy of a file gets the
#: n-th colour): matplotlib's tab10 and two more, pairwise CIE76 distance >= 27
STRATEGY_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                    "#bcbd22", "#17becf", "#000000", "#a6761d")
#: markers that tell strategies apart without colour (same order)
STRATEGY_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "h", "<", ">", "p")


def strategy_style(data: "FigureData", strategy: str) -> dict:
    """``{"color", "marker"}`` of ``strategy``: its position among the file's strategies, the same in every figure
    (beyond :data:`STRATEGY_COLOURS` colours repeat with other markers)."""
    labels = data.strategies()
    i = labels.index(strategy) if strategy in labels else len(labels)
    return {"color": STRATEGY_COLOURS[i % len(STRATEGY_COLOURS)],
            "marker": STRATEGY_MARKERS[(i + i // len(STRATEGY_COLOURS)) % len(STRATEGY_MARKERS)]}


def grid_label(key: str) -> str:
    """The reader's name of grid key ``key`` (:data:`GRID_LABELS`), else its last segment with spaces."""
    return GRID_LABELS.get(key, short_key(key).replace("_", " "))


def metric_label(data: "FigureData", key: str) -> str:
    """The reader's name of a metric: a derived one said in words (or its ``label``), else :func:`column_label`."""
    derived = data.metrics.get(key)
    if derived is not None and (derived.label or key not in COLUMN_LABELS):
        return derived.describe(lambda k: metric_label(data, k))
    return column_label(key)


def column_label(key: str) -> str:
    """The reader's name of ``key`` (:data:`COLUMN_LABELS`), else the key with spaces for underscores."""
    return COLUMN_LABELS.get(key, key.replace("_", " "))


def default_columns(data: FigureData) -> list[str]:
    """The :data:`DEFAULT_COLUMNS` that say something about these results.

    A column is left out when no result has it, when it is zero in every result (nothing
    censored, no regret: said once in the report's summary instead), when it repeats another
    (``mean_batches`` equal to ``mean_samples``: one sample per batch), in fixed budget the samples
    and batches when every strategy spent the same (the budget), and
    ``mean_samples_stopped`` unless some run was censored.  ``correct_rate`` stays.
    """
    results = [r for p in data.points for r in p["results"]]

    def values(c):
        return [r.get(c) for r in results if r.get(c) is not None]

    def zero(c):
        return c != "correct_rate" and all(isinstance(v, (int, float)) and v == 0 for v in values(c))

    def spent(c):  # fixed budget: every strategy spent the same samples (or batches): the budget, not a result
        return data.fixed_budget and c in ("mean_samples", "median_samples", "mean_batches") and len(set(values(c))) == 1

    censored = any(r.get("censored") for r in results)
    one_per_batch = all(r.get("mean_batches") == r.get("mean_samples") for r in results)
    return [c for c in DEFAULT_COLUMNS if values(c) and not zero(c) and not spent(c)
            and (c != "mean_samples_stopped" or censored) and (c != "mean_batches" or not one_per_batch)]


def register_figure(kind: str, keys: tuple[str, ...] = (), required: tuple[str, ...] = ()):
    """Decorator: register ``function(data, options) -> Figure | TableBlock`` as figure ``kind``.

    ``keys`` are the options it accepts besides ``title``, ``caption`` and ``strategies``;
    ``required`` those it needs.
    """
    def decorate(function):
        FIGURES[kind] = FigureKind(function, tuple(dict.fromkeys(_COMMON + tuple(keys))), tuple(required))
        return function

    return decorate


@dataclass
class FigureData:
    """One experiment file's results: its result document and stored per-replication lines.

    Attributes
    ----------
    metrics : dict
        The file's derived metrics (``[reproduce.metric]``), by name.
    complexity_of : callable, optional
        ``complexity_of(point index)``: the problem's complexity report at that grid point
        (``{}`` when it has none); read lazily through :meth:`complexity`.
    """

    name: str
    document: dict
    rows: list[dict] = field(repr=False)
    fixed_budget: bool = False
    metrics: dict[str, DerivedMetric] = field(default_factory=dict, repr=False)
    complexity_of: Callable[[int], dict] | None = field(default=None, repr=False)

    def __post_init__(self):
        self.grid_keys: list[str] = list(self.document.get("grid_keys") or [])
        self.points: list[dict] = self.document.get("points") or [
            {"point": 0, "name": self.document.get("name", ""), "grid": {}, "results": self.document["results"]}
        ]
        self._cells: dict[tuple[int, str], list[dict]] = {}
        for row in self.rows:
            self._cells.setdefault((int(row.get("point", 0)), row.get("strategy")), []).append(row)
        self._complexity: dict[int, dict] = {}
        #: the arms' names (the document's ``labels``), or None: arms are then "arm 0", "arm 1", ...
        self.labels: list[str] | None = self.document.get("labels")

    def key(self, name: str, where: str = "x") -> str:
        """The full grid key of ``name`` (a dotted key or its last segment)."""
        if name in self.grid_keys:
            return name
        matches = [k for k in self.grid_keys if k.rsplit(".", 1)[-1] == name]
        if len(matches) == 1:
            return matches[0]
        raise KeyError(f"{where} = {name!r}: not a grid key of {self.name} (grid keys: {self.grid_keys or 'none'})")

    def strategies(self, wanted: list[str] | None = None) -> list[str]:
        labels: list[str] = []
        for point in self.points:
            labels.extend(r["strategy"] for r in point["results"] if r["strategy"] not in labels)
        if wanted:
            missing = [s for s in wanted if s not in labels]
            if missing:
                raise KeyError(f"strategies: {missing} not in {self.name} (has {labels})")
            return list(wanted)
        return labels

    def select(self, at: dict | None, base: dict | None = None) -> dict:
        """The point matching every ``at`` value (the first point when ``at`` is empty).

        With ``base`` (a point), the grid values ``at`` does not name are those of ``base``.
        """
        if not at:
            return base if base is not None else self.points[0]
        wanted = dict(base["grid"]) if base is not None else {}
        wanted.update({self.key(k, "at"): v for k, v in at.items()})
        for point in self.points:
            if all(same_value(point["grid"].get(k), v) for k, v in wanted.items()):
                return point
        raise KeyError(f"at = {at}: no such grid point in {self.name}")

    def rows_of(self, point: int, strategy: str) -> list[dict]:
        return self._cells.get((point, strategy), [])

    def result(self, point: dict, strategy: str) -> dict | None:
        return next((r for r in point["results"] if r["strategy"] == strategy), None)

    def complexity(self, point: dict) -> dict:
        """The problem's complexity report at ``point`` (``{}`` when not available)."""
        index = int(point["point"])
        if index not in self._complexity:
            self._complexity[index] = self.complexity_of(index) if self.complexity_of is not None else {}
        return self._complexity[index]


def same_value(a, b) -> bool:
    """Grid values equal (numbers up to rounding)."""
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)
    return a == b


def short_key(key: str) -> str:
    """The last segment of a dotted grid key (``environment.d`` -> ``d``)."""
    return key.rsplit(".", 1)[-1]


def new_figure(width=6.4, height=4.2, ncols=1):
    """A matplotlib figure (Agg backend) and its list of ``ncols`` axes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, ncols, figsize=(width, height), squeeze=False)
    return fig, list(axes[0])


def set_title(ax, options: dict, default: str) -> None:
    ax.set_title(options.get("title", default), fontsize=10)


def at_text(point: dict) -> str:
    """``d = 5, k = 10``: the grid values of a point."""
    return ", ".join(f"{grid_label(k)} = {v}" for k, v in point["grid"].items())


def _number(value):
    if isinstance(value, Estimate):
        return value
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        return float(value)
    return None


def _derived(data: FigureData, point: dict, strategy: str, metric: DerivedMetric):
    if metric.source is not None:
        values = [np.ravel(row["counts"])[metric.source] for row in data.rows_of(point["point"], strategy)
                  if row.get("counts") is not None and np.size(row["counts"]) > metric.source]
        if not values:
            return None
        mean, low, high = estimate(values)
        return Estimate(mean * metric.scale, low * metric.scale, high * metric.scale)
    at = dict(metric.at)
    other_strategy = at.pop("strategy", strategy)
    other_point = data.select(at, base=point) if at else point
    top = _number(measured(data, point, strategy, cast(str, metric.of)))
    bottom = _number(measured(data, other_point, other_strategy, cast(str, metric.over or metric.of)))
    value = ratio(bottom, top) if metric.invert else ratio(top, bottom)
    if value is None or metric.scale == 1.0:
        return value
    return Estimate(value.value * metric.scale, value.low * metric.scale, value.high * metric.scale)


def measured(data: FigureData, point: dict, strategy: str, metric: str):
    """A metric of one (point, strategy) cell for tables and figures.

    An :class:`Estimate` where the stored outcomes allow (registered and derived metrics), else a
    key of the complexity report at ``point``, else the result document's value (None if absent).
    """
    if metric in data.metrics:
        try:
            return _derived(data, point, strategy, data.metrics[metric])
        except KeyError:  # the denominator's cell is not in these results
            return None
    rows = data.rows_of(point["point"], strategy)
    if rows and metric in METRICS:
        value, low, high = cast(tuple[float, float, float], metric_interval(rows, metric))  # registered: not None
        return Estimate(value, low, high, METRICS[metric].kind)
    result = data.result(point, strategy)
    if result is not None and result.get(metric) is not None:
        return result.get(metric)
    return data.complexity(point).get(metric)


def reference_value(data: FigureData, point: dict, name: str) -> float | None:
    """A reference line's value at ``point``: the first strategy's value, else a complexity key (``lower_bound``)."""
    value = next((r.get(name) for r in point["results"] if r.get(name) is not None), None)
    if value is None:
        value = data.complexity(point).get(name)
    value = _number(value)
    return value.value if isinstance(value, Estimate) else value
