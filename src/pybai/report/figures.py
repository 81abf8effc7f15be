"""Figure kinds of ``[[reproduce.figure]]``: a registry ``kind -> function``, drawn from stored results only.

A figure function takes a :class:`FigureData` (the result document and the stored
per-replication lines of one experiment file) and the figure's options, and returns a
matplotlib ``Figure`` (saved as PNG and embedded in the HTML report) or a :class:`TableBlock`
(an HTML table and a CSV file).  Families add kinds with :func:`register_figure`::

    @register_figure("regret-vs-budget", keys=("x", "title"), required=("x",))
    def regret_vs_budget(data, options): ...

Built-in kinds: ``metric-vs-grid``, ``allocation``, ``boxplot``, ``histogram``, ``table``
(options in docs/engine.md).  ``at = { "environment.d" = 5 }`` picks a grid point where a
kind shows one point (default: the first point).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pybai.report.intervals import METRICS, metric_interval

__all__ = ["FIGURES", "FigureKind", "FigureData", "TableBlock", "Estimate", "register_figure", "measured", "DEFAULT_COLUMNS"]

#: result-document metrics shown by the ``table`` kind and the summary tables
DEFAULT_COLUMNS = ["replications", "mean_samples", "median_samples", "mean_batches", "correct_rate", "censored",
                   "mean_simple_regret", "false_negative_rate"]


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
    """One experiment file's results: its result document and stored per-replication lines."""

    name: str
    document: dict
    rows: list[dict] = field(repr=False)
    fixed_budget: bool = False

    def __post_init__(self):
        self.grid_keys: list[str] = list(self.document.get("grid_keys") or [])
        self.points: list[dict] = self.document.get("points") or [
            {"point": 0, "name": self.document.get("name", ""), "grid": {}, "results": self.document["results"]}
        ]
        self._cells: dict[tuple[int, str], list[dict]] = {}
        for row in self.rows:
            self._cells.setdefault((int(row.get("point", 0)), row.get("strategy")), []).append(row)

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

    def select(self, at: dict | None) -> dict:
        """The point matching every ``at`` value (the first point when ``at`` is empty)."""
        if not at:
            return self.points[0]
        wanted = {self.key(k, "at"): v for k, v in at.items()}
        for point in self.points:
            if all(_same(point["grid"].get(k), v) for k, v in wanted.items()):
                return point
        raise KeyError(f"at = {at}: no such grid point in {self.name}")

    def rows_of(self, point: int, strategy: str) -> list[dict]:
        return self._cells.get((point, strategy), [])

    def result(self, point: dict, strategy: str) -> dict | None:
        return next((r for r in point["results"] if r["strategy"] == strategy), None)


def _same(a, b) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)
    return a == b


def _label(key: str) -> str:
    return key.rsplit(".", 1)[-1]


def _figure(width=6.4, height=4.2, ncols=1):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, ncols, figsize=(width, height), squeeze=False)
    return fig, list(axes[0])


def _title(ax, data: FigureData, options: dict, default: str) -> None:
    ax.set_title(options.get("title", default), fontsize=10)


def _at_text(point: dict) -> str:
    return ", ".join(f"{_label(k)} = {v}" for k, v in point["grid"].items())


@register_figure("metric-vs-grid", keys=("x", "y", "log_x", "log_y", "hline", "at"), required=("x", "y"))
def metric_vs_grid(data: FigureData, options: dict):
    """One line per strategy (and per value of the other grid keys): metric ``y`` against grid key ``x``.

    Means over replications get 95% intervals from the stored outcomes (error bars).
    ``hline``: a number, or a metric drawn as a dashed reference line (e.g. a lower bound).
    """
    x_key, metric = data.key(options["x"]), options["y"]
    others = [k for k in data.grid_keys if k != x_key]
    at = {data.key(k, "at"): v for k, v in (options.get("at") or {}).items()}
    fig, (ax,) = _figure()
    points = [p for p in data.points if all(_same(p["grid"].get(k), v) for k, v in at.items())]
    xs_all = [p["grid"].get(x_key) for p in points]
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in xs_all)
    categories = list(dict.fromkeys(map(str, xs_all)))
    position = (lambda v: float(v)) if numeric else (lambda v: float(categories.index(str(v))))
    groups: dict[tuple, list[dict]] = {}
    for p in points:
        groups.setdefault(tuple((k, p["grid"].get(k)) for k in others if k not in at), []).append(p)
    drawn = 0
    import matplotlib

    colours = [c["color"] for c in matplotlib.rcParams["axes.prop_cycle"]]
    styles = ["-", "--", ":", "-."]
    for i, strategy in enumerate(data.strategies(options.get("strategies"))):
        for g, (group, pts) in enumerate(groups.items()):
            xs, ys, lo, hi = [], [], [], []
            for p in sorted(pts, key=lambda p: position(p["grid"].get(x_key))):
                rows = data.rows_of(p["point"], strategy)
                est = metric_interval(rows, metric) if rows else None
                if est is None:
                    result = data.result(p, strategy)
                    value = None if result is None else result.get(metric)
                    if value is None:
                        continue
                    est = (float(value), float(value), float(value))
                if not math.isfinite(est[0]):
                    continue
                xs.append(position(p["grid"].get(x_key)))
                ys.append(est[0])
                lo.append(est[0] - est[1])
                hi.append(est[2] - est[0])
            if not xs:
                continue
            suffix = ", ".join(f"{_label(k)}={v}" for k, v in group)
            ax.errorbar(xs, ys, yerr=[lo, hi], marker="os^Dv"[g % 5], ms=4, capsize=3, lw=1.4,
                        color=colours[i % len(colours)], ls=styles[g % len(styles)],
                        label=strategy + (f" ({suffix})" if suffix else ""))
            drawn += 1
    hline = options.get("hline")
    if isinstance(hline, (int, float)) and not isinstance(hline, bool):
        ax.axhline(float(hline), color="black", ls="--", lw=1, label=f"{hline:g}")
    elif isinstance(hline, str):
        ref = [(position(p["grid"].get(x_key)), r.get(hline)) for p in points for r in p["results"][:1]
               if r.get(hline) is not None]
        ref = sorted(set(ref))
        if ref:
            ax.plot(*zip(*ref), color="black", ls="--", lw=1, label=hline)
    if not numeric:
        ax.set_xticks(range(len(categories)))
        ax.set_xticklabels(categories)
    if options.get("log_x") and numeric:
        ax.set_xscale("log")
    if options.get("log_y"):
        ax.set_yscale("log")
    ax.set_xlabel(x_key)
    ax.set_ylabel(metric + (" (95% interval)" if metric in METRICS else ""))
    _title(ax, data, options, f"{data.name}: {metric} vs {_label(x_key)}")
    if drawn or hline is not None:
        ax.legend(fontsize=8, loc="best")
    ax.grid(alpha=0.3)
    return fig


def _heatmap(ax, alloc: np.ndarray, title: str, vmax: float, row_labels: bool = True):
    image = ax.imshow(alloc, cmap="viridis", vmin=0.0, vmax=vmax, aspect="auto")
    for (k, l), value in np.ndenumerate(alloc):
        ax.text(l, k, f"{value:.2f}", ha="center", va="center", fontsize=8,
                color="white" if value < 0.6 * vmax else "black")
    ax.set_xticks(range(alloc.shape[1]))
    ax.set_yticks(range(alloc.shape[0]))
    ax.set_xticklabels([str(l) for l in range(alloc.shape[1])], fontsize=8)
    ax.set_yticklabels([str(k) for k in range(alloc.shape[0])] if row_labels else [], fontsize=8)
    ax.set_xlabel("subpopulation", fontsize=8)
    if row_labels:
        ax.set_ylabel("arm", fontsize=8)
    ax.set_title(title, fontsize=9)
    return image


@register_figure("allocation", keys=("at", "reference", "reference_label"))
def allocation(data: FigureData, options: dict):
    """Mean fraction of samples per source and strategy: bars, or heat maps for arms x subpopulations.

    ``reference``: weights drawn beside the strategies' bars (e.g. the optimal w*), labelled
    ``reference_label`` (default "reference").
    """
    point = data.select(options.get("at"))
    labels = [s for s in data.strategies(options.get("strategies")) if data.result(point, s)]
    allocs = [np.asarray(data.result(point, s)["mean_allocation"], dtype=float) for s in labels]
    where = _at_text(point)
    if allocs and allocs[0].ndim == 2:
        vmax = max(float(a.max()) for a in allocs) or 1.0
        fig, axes = _figure(width=3.4 * len(labels) + 0.8, height=3.4, ncols=len(labels))
        for j, (ax, label, alloc) in enumerate(zip(axes, labels, allocs)):
            image = _heatmap(ax, alloc, label, vmax, row_labels=j == 0)
        fig.colorbar(image, ax=axes, shrink=0.85, label="fraction of samples")
        fig.suptitle(options.get("title", f"{data.name}: mean allocation" + (f" ({where})" if where else "")),
                     fontsize=10)
        return fig
    series = list(zip(labels, allocs))
    if options.get("reference") is not None:
        series.append((options.get("reference_label", "reference"), np.asarray(options["reference"], dtype=float)))
    size = allocs[0].size if allocs else 1
    fig, (ax,) = _figure(width=min(max(6.4, 0.25 * size * len(series) + 2), 16))
    width = 0.8 / max(len(series), 1)
    for j, (label, alloc) in enumerate(series):
        x = np.arange(alloc.size)
        ax.bar(x + (j - (len(series) - 1) / 2) * width, alloc.ravel(), width, label=label,
               hatch="//" if j == len(labels) else None, edgecolor="black" if j == len(labels) else None)
    if allocs:
        ax.set_xticks(np.arange(allocs[0].size))
    ax.set_xlabel("source (arm index)")
    ax.set_ylabel("mean fraction of samples")
    _title(ax, data, options, f"{data.name}: mean allocation" + (f" ({where})" if where else ""))
    ax.legend(fontsize=8)
    return fig


def _values(rows: list[dict], field_name: str) -> list:
    return [row.get(field_name) for row in rows if row.get(field_name) is not None]


@register_figure("boxplot", keys=("y", "at", "log_y"), required=("y",))
def boxplot(data: FigureData, options: dict):
    """Per-replication distribution of outcome ``y`` (samples, simple_regret, ...), one box per strategy."""
    point = data.select(options.get("at"))
    labels = data.strategies(options.get("strategies"))
    series = [[float(v) for v in _values(data.rows_of(point["point"], s), options["y"])] for s in labels]
    keep = [(label, values) for label, values in zip(labels, series) if values]
    fig, (ax,) = _figure(width=max(5.0, 1.1 * len(keep) + 2))
    if keep:
        ax.boxplot([v for _, v in keep], showmeans=True, meanprops={"marker": "^", "markerfacecolor": "white"})
        ax.set_xticks(range(1, len(keep) + 1))
        ax.set_xticklabels([f"{label}\n(n={len(v)})" for label, v in keep], fontsize=8)
    if options.get("log_y"):
        ax.set_yscale("log")
    ax.set_xlabel("strategy (box: quartiles, line: median, triangle: mean)")
    ax.set_ylabel(f"{options['y']} per replication")
    where = _at_text(point)
    _title(ax, data, options, f"{data.name}: {options['y']}" + (f" ({where})" if where else ""))
    ax.grid(alpha=0.3, axis="y")
    return fig


@register_figure("histogram", keys=("y", "at", "bins", "log_y"), required=("y",))
def histogram(data: FigureData, options: dict):
    """Distribution of outcome ``y`` per strategy: counts per value when discrete (e.g. the recommendation)."""
    point = data.select(options.get("at"))
    labels = data.strategies(options.get("strategies"))
    series = {s: _values(data.rows_of(point["point"], s), options["y"]) for s in labels}
    series = {s: v for s, v in series.items() if v}
    values = [v for vs in series.values() for v in vs]
    discrete = all(isinstance(v, (bool, int, list)) for v in values)
    fig, (ax,) = _figure()
    if discrete:
        keys = sorted({str(v) for v in values}, key=lambda s: (len(s), s))
        width = 0.8 / max(len(series), 1)
        for j, (label, vs) in enumerate(series.items()):
            texts = [str(v) for v in vs]
            freq = [texts.count(k) / len(texts) for k in keys]
            ax.bar(np.arange(len(keys)) + (j - (len(series) - 1) / 2) * width, freq, width, label=label)
        ax.set_xticks(range(len(keys)))
        ax.set_xticklabels(keys, fontsize=8, rotation=30 if max(map(len, keys), default=0) > 4 else 0)
        ax.set_ylabel("fraction of replications")
        ax.set_ylim(0, 1.18)  # room for the legend above the bars
    else:
        numbers = np.array([float(v) for v in values], dtype=float)
        bins = np.histogram_bin_edges(numbers[np.isfinite(numbers)], bins=int(options.get("bins", 30)))
        for label, vs in series.items():
            ax.hist([float(v) for v in vs], bins=bins, histtype="step", lw=1.5, label=label)
        ax.set_ylabel("replications")
    if options.get("log_y"):
        ax.set_yscale("log")
    ax.set_xlabel(options["y"])
    where = _at_text(point)
    _title(ax, data, options, f"{data.name}: {options['y']}" + (f" ({where})" if where else ""))
    if series:
        ax.legend(fontsize=8)
    return fig


@dataclass(frozen=True)
class Estimate:
    """A measured metric with its 95% interval; prints as ``mean ± half-width`` (means) or ``p [low, high]``."""

    value: float
    low: float
    high: float
    kind: str = "mean"

    def __str__(self) -> str:
        if not math.isfinite(self.value):
            return "-"
        if self.kind == "proportion":
            return f"{self.value:.3g} [{self.low:.3g}, {self.high:.3g}]"
        half = (self.high - self.low) / 2
        if abs(self.value) >= 100:
            return f"{self.value:,.0f} ± {half:,.0f}"
        return f"{self.value:.4g} ± {half:.2g}"


def measured(data: FigureData, point: dict, strategy: str, metric: str):
    """A measured metric for tables: an :class:`Estimate` where the stored outcomes allow, else the document's value."""
    rows = data.rows_of(point["point"], strategy)
    if rows and metric in METRICS:
        return Estimate(*metric_interval(rows, metric), METRICS[metric].kind)
    result = data.result(point, strategy)
    return None if result is None else result.get(metric)


@register_figure("table", keys=("columns", "at"))
def table(data: FigureData, options: dict) -> TableBlock:
    """Metrics per (grid point, strategy); means carry their 95% half-width."""
    columns = options.get("columns") or [c for c in DEFAULT_COLUMNS
                                         if any(r.get(c) is not None for p in data.points for r in p["results"])]
    at = {data.key(k, "at"): v for k, v in (options.get("at") or {}).items()}
    header = [_label(k) for k in data.grid_keys] + ["strategy"] + columns
    rows = []
    for point in data.points:
        if not all(_same(point["grid"].get(k), v) for k, v in at.items()):
            continue
        for strategy in data.strategies(options.get("strategies")):
            if data.result(point, strategy) is None:
                continue
            rows.append([point["grid"].get(k) for k in data.grid_keys] + [strategy]
                        + [measured(data, point, strategy, c) for c in columns])
    return TableBlock(header, rows, options.get("caption", options.get("title", "")))
