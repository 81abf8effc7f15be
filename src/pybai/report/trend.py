"""Figure kind ``metric-vs-grid``: a metric against a grid key, one line per strategy, with 95% intervals."""

from __future__ import annotations

import math

from pybai.report.intervals import METRICS, Estimate
from pybai.report.registry import (
    FigureData, column_label, grid_label, measured, metric_label, new_figure, reference_value, register_figure,
    same_value, set_title, strategy_style,
)

__all__ = ["metric_vs_grid"]


def _interval(value) -> tuple[float, float, float] | None:
    """``(value, low, high)`` of a measured cell (an exact number has no spread), None if not a finite number."""
    if isinstance(value, Estimate):
        return (value.value, value.low, value.high) if math.isfinite(value.value) else None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(float(value)):
        return (float(value),) * 3
    return None


@register_figure("metric-vs-grid", keys=("x", "y", "log_x", "log_y", "hline", "at"), required=("x", "y"))
def metric_vs_grid(data: FigureData, options: dict):
    """One line per strategy (and per value of the other grid keys): metric ``y`` against grid key ``x``.

    Means over replications get 95% intervals from the stored outcomes (error bars); ``y`` may
    be a derived metric (``[reproduce.metric]``).  ``hline``: a number, or a metric or complexity
    key (e.g. ``lower_bound``) drawn as a dashed reference line across the points.
    """
    x_key, metric = data.key(options["x"]), options["y"]
    others = [k for k in data.grid_keys if k != x_key]
    at = {data.key(k, "at"): v for k, v in (options.get("at") or {}).items()}
    fig, (ax,) = new_figure()
    points = [p for p in data.points if all(same_value(p["grid"].get(k), v) for k, v in at.items())]
    xs_all = [p["grid"].get(x_key) for p in points]
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in xs_all)
    categories = list(dict.fromkeys(map(str, xs_all)))
    position = (lambda v: float(v)) if numeric else (lambda v: float(categories.index(str(v))))
    groups: dict[tuple, list[dict]] = {}
    for p in points:
        groups.setdefault(tuple((k, p["grid"].get(k)) for k in others if k not in at), []).append(p)
    drawn = 0
    styles = ["-", "--", ":", "-."]
    for strategy in data.strategies(options.get("strategies")):
        style = strategy_style(data, strategy)
        for g, (group, pts) in enumerate(groups.items()):
            xs, ys, lo, hi = [], [], [], []
            for p in sorted(pts, key=lambda p: position(p["grid"].get(x_key))):
                if data.result(p, strategy) is None:
                    continue
                est = _interval(measured(data, p, strategy, metric))
                if est is None:
                    continue
                xs.append(position(p["grid"].get(x_key)))
                ys.append(est[0])
                lo.append(est[0] - est[1])
                hi.append(est[2] - est[0])
            if not xs:
                continue
            suffix = ", ".join(f"{grid_label(k)} = {v}" for k, v in group)
            ax.errorbar(xs, ys, yerr=[lo, hi], marker=style["marker"], ms=4, capsize=3, lw=1.4,
                        color=style["color"], ls=styles[g % len(styles)],
                        label=strategy + (f" ({suffix})" if suffix else ""))
            drawn += 1
    hline = options.get("hline")
    if isinstance(hline, (int, float)) and not isinstance(hline, bool):
        ax.axhline(float(hline), color="black", ls="--", lw=1, label=f"{hline:g}")
    elif isinstance(hline, str):
        ref = sorted({(position(p["grid"].get(x_key)), reference_value(data, p, hline)) for p in points}
                     - {(x, None) for x in map(position, xs_all)})
        if ref:
            ax.plot(*zip(*ref), color="black", ls="--", lw=1, label=column_label(hline))
    if not numeric:
        ax.set_xticks(range(len(categories)))
        ax.set_xticklabels(categories)
    if options.get("log_x") and numeric:
        ax.set_xscale("log")
    if options.get("log_y"):
        ax.set_yscale("log")
    ax.set_xlabel(grid_label(x_key))
    interval = metric in METRICS or metric in data.metrics
    ax.set_ylabel(metric_label(data, metric) + (" (95% interval)" if interval else ""))
    set_title(ax, options, f"{data.name}: {metric_label(data, metric)} against {grid_label(x_key)}")
    if drawn or hline is not None:
        ax.legend(fontsize=8, loc="best")
    ax.grid(alpha=0.3)
    return fig
