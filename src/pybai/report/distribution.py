"""Figure kinds ``boxplot`` and ``histogram``: the per-replication distribution of an outcome, per strategy."""

from __future__ import annotations

import numpy as np

from pybai.naming import answer_name
from pybai.report.registry import FigureData, at_text, column_label, new_figure, register_figure, set_title, strategy_style

__all__ = ["boxplot", "histogram"]


def _values(rows: list[dict], field_name: str) -> list:
    return [row.get(field_name) for row in rows if row.get(field_name) is not None]


def _value_label(value, field_name: str, labels=None) -> str:
    """A discrete value in words: a recommendation names its arms (from 0, or by their labels)."""
    if field_name == "recommendation" and not isinstance(value, bool) and isinstance(value, (int, list)):
        if labels is not None and isinstance(value, int) and 0 <= value < len(labels):
            return labels[value]  # a tick: the label alone
        return answer_name(value, labels)
    return str(value)


@register_figure("boxplot", keys=("y", "at", "log_y"), required=("y",))
def boxplot(data: FigureData, options: dict):
    """Per-replication distribution of outcome ``y`` (samples, simple_regret, ...), one box per strategy."""
    point = data.select(options.get("at"))
    labels = data.strategies(options.get("strategies"))
    series = [[float(v) for v in _values(data.rows_of(point["point"], s), options["y"])] for s in labels]
    keep = [(label, values) for label, values in zip(labels, series) if values]
    fig, (ax,) = new_figure(width=max(5.0, 1.1 * len(keep) + 2))
    if keep:
        boxes = ax.boxplot([v for _, v in keep], showmeans=True, patch_artist=True,
                           meanprops={"marker": "^", "markerfacecolor": "white", "markeredgecolor": "black"},
                           medianprops={"color": "black"})
        for box, (label, _) in zip(boxes["boxes"], keep):
            box.set(facecolor=strategy_style(data, label)["color"], alpha=0.55)
        ax.set_xticks(range(1, len(keep) + 1))
        ax.set_xticklabels([f"{label}\n(n={len(v)})" for label, v in keep], fontsize=8)
    if options.get("log_y"):
        ax.set_yscale("log")
    ax.set_xlabel("strategy (box: quartiles, line: median, triangle: mean)")
    ax.set_ylabel(f"{column_label(options['y'])}, per run")
    where = at_text(point)
    set_title(ax, options, f"{data.name}: {column_label(options['y'])}" + (f" ({where})" if where else ""))
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
    fig, (ax,) = new_figure()
    if discrete:
        keys = sorted({str(v) for v in values}, key=lambda s: (len(s), s))
        names = {str(v): _value_label(v, options["y"], data.labels) for v in values}
        width = 0.8 / max(len(series), 1)
        for j, (label, vs) in enumerate(series.items()):
            texts = [str(v) for v in vs]
            freq = [texts.count(k) / len(texts) for k in keys]
            ax.bar(np.arange(len(keys)) + (j - (len(series) - 1) / 2) * width, freq, width, label=label,
                   color=strategy_style(data, label)["color"])
        ax.set_xticks(range(len(keys)))
        ticks = [names[k] for k in keys]
        ax.set_xticklabels(ticks, fontsize=8, rotation=30 if max(map(len, ticks), default=0) > 6 else 0)
        ax.set_ylabel("fraction of runs")
        ax.set_ylim(0, 1.18)  # room for the legend above the bars
    else:
        numbers = np.array([float(v) for v in values], dtype=float)
        bins = np.histogram_bin_edges(numbers[np.isfinite(numbers)], bins=int(options.get("bins", 30)))
        for label, vs in series.items():
            ax.hist([float(v) for v in vs], bins=bins, histtype="step", lw=1.5, label=label,
                    color=strategy_style(data, label)["color"])
        ax.set_ylabel("runs")
    if options.get("log_y"):
        ax.set_yscale("log")
    ax.set_xlabel(column_label(options["y"]))
    where = at_text(point)
    set_title(ax, options, f"{data.name}: {column_label(options['y'])}" + (f" ({where})" if where else ""))
    if series:
        ax.legend(fontsize=8)
    return fig
