"""Figure kinds that summarise metrics per strategy: ``table``, ``bars`` and ``complexity``."""

from __future__ import annotations

import numpy as np

from pybai.report.intervals import Estimate, format_number
from pybai.report.registry import (
    FigureData, column_label, default_columns, TableBlock, at_text, measured, metric_label, new_figure, reference_value,
    register_figure, same_value, set_title, short_key, strategy_style,
)
from pybai.report.table import answer_text

__all__ = ["table", "bars", "complexity"]


def _points(data: FigureData, options: dict) -> list[dict]:
    """The points matching every ``at`` value (all of them without ``at``)."""
    at = {data.key(k, "at"): v for k, v in (options.get("at") or {}).items()}
    return [p for p in data.points if all(same_value(p["grid"].get(k), v) for k, v in at.items())]


@register_figure("table", keys=("columns", "at"))
def table(data: FigureData, options: dict) -> TableBlock:
    """Metrics per (grid point, strategy); means carry their 95% half-width; derived metrics are allowed."""
    columns = options.get("columns") or default_columns(data)
    header = [short_key(k) for k in data.grid_keys] + ["strategy"] + columns
    rows = []
    for point in _points(data, options):
        for strategy in data.strategies(options.get("strategies")):
            if data.result(point, strategy) is None:
                continue
            rows.append([point["grid"].get(k) for k in data.grid_keys] + [strategy]
                        + [measured(data, point, strategy, c) for c in columns])
    lead = len(data.grid_keys) + 1
    zero = [i for i, c in enumerate(columns, start=lead) if c != "correct_rate" and rows
            and all(_is_zero(row[i]) for row in rows)]
    caption = options.get("caption", options.get("title", ""))
    if zero:  # a column of zeros says one thing: say it once
        caption += (" " if caption else "") + f"(0 in every row, not shown: {', '.join(column_label(header[i]) for i in zero)})"
        header = [h for i, h in enumerate(header) if i not in zero]
        rows = [[v for i, v in enumerate(row) if i not in zero] for row in rows]
    return TableBlock(header, rows, caption)


def _is_zero(value) -> bool:
    if isinstance(value, Estimate):
        return value.value == 0 and value.low == 0 and value.high == 0
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == 0


@register_figure("bars", keys=("y", "at", "hline", "log_y"))
def bars(data: FigureData, options: dict):
    """Metric ``y`` (default ``mean_samples``) per strategy as bars with 95% intervals, at one point.

    ``hline``: a number, or a metric or complexity key drawn as a dashed reference line (e.g.
    ``lower_bound``, the bound T*(mu) kl(delta, 1 - delta), or ``oracle_gain``).
    """
    metric = options.get("y", "mean_samples")
    point = data.select(options.get("at"))
    labels, values, low, high = [], [], [], []
    for strategy in data.strategies(options.get("strategies")):
        value = measured(data, point, strategy, metric) if data.result(point, strategy) is not None else None
        if isinstance(value, Estimate):
            centre, lo, hi = value.value, value.low, value.high
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            centre = lo = hi = float(value)
        else:
            continue
        labels.append(strategy)
        values.append(centre)
        low.append(centre - lo)
        high.append(hi - centre)
    fig, (ax,) = new_figure(width=max(5.0, 0.8 * len(labels) + 2.5))
    ax.bar(range(len(labels)), values, yerr=[low, high], capsize=3,
           color=[strategy_style(data, s)["color"] for s in labels])
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, fontsize=8, rotation=20 if len(labels) > 4 else 0)
    hline = options.get("hline")
    line = float(hline) if isinstance(hline, (int, float)) and not isinstance(hline, bool) else (
        reference_value(data, point, hline) if isinstance(hline, str) else None)
    if line is not None:
        ax.axhline(line, color="#c44e52", ls="--",
                   label=f"{column_label(hline)} = {format_number(line)}" if isinstance(hline, str) else None)
        if isinstance(hline, str):
            ax.legend(fontsize=8, loc="best")
    if options.get("log_y"):
        ax.set_yscale("log")
    ax.set_ylabel(metric_label(data, metric) + " (95% interval)")
    where = at_text(point)
    set_title(ax, options, f"{data.name}: {metric_label(data, metric)}" + (f" ({where})" if where else ""))
    ax.grid(alpha=0.3, axis="y")
    return fig


def _cell(key: str, value, labels=None):
    if key == "answer":
        return answer_text(value, labels)
    if isinstance(value, (list, tuple, np.ndarray)):
        return str(np.round(np.asarray(value, dtype=float), 3).tolist())
    return value


@register_figure("complexity", keys=("columns", "at"))
def complexity(data: FigureData, options: dict) -> TableBlock:
    """The problem's complexity report per grid point (``pybai complexity``): T*(mu), the lower bound, w*, ...

    ``columns``: the keys shown (default: every number the report gives but ``answer``).
    """
    points = _points(data, options)
    reports = [data.complexity(p) for p in points]
    columns = options.get("columns") or [k for k in dict.fromkeys(k for r in reports for k in r)
                                         if k != "answer" and any(isinstance(r.get(k), (int, float)) for r in reports)]
    header = [short_key(k) for k in data.grid_keys] + list(columns)
    rows = [[p["grid"].get(k) for k in data.grid_keys] + [_cell(c, r.get(c), data.labels) for c in columns]
            for p, r in zip(points, reports) if r]
    caption = options.get("caption", options.get("title", "Complexity of the instance (pybai complexity)"))
    return TableBlock(header, rows, caption)
