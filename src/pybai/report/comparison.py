"""One call to plot a comparison of strategies from per-replication outcomes: :func:`plot_comparison`.

Takes what a Python user has at hand (an :class:`~pybai.report.experiment_result.ExperimentResult`,
a DataFrame from :func:`pybai.read_outcomes` or ``to_dataframe()``, or a list of outcome rows)
and draws on a matplotlib axes, which it returns (``ax=`` draws on yours):

* one grid point: the distribution of an outcome per strategy (box: quartiles, line: median,
  triangle: mean with its 95% interval), or for a yes/no outcome (``correct``) the rate with its
  95% Wilson interval;
* a sweep (``x``, a grid key): the mean (or rate) with its 95% interval against ``x``, one line
  per strategy.

Strategies keep the colours and markers of the reports (:func:`pybai.report.registry.strategy_style`
by order of appearance); axes are named in readers' words.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pybai.report.intervals import METRICS, estimate
from pybai.report.registry import STRATEGY_COLOURS, STRATEGY_MARKERS, column_label, grid_label

__all__ = ["plot_comparison", "OUTCOME_FIELDS"]

#: the columns of an outcome row that are not grid keys
OUTCOME_FIELDS = ("experiment", "point", "strategy", "replication", "samples", "batches", "status", "recommendation",
                  "correct", "simple_regret", "false_negative", "counts", "seconds", "cpu_seconds", "gain",
                  "oracle_gain", "exact_correct")
_PROPORTIONS = ("correct", "exact_correct")


def _rows(data) -> list[dict]:
    if hasattr(data, "outcomes") and not callable(getattr(data, "to_dict", None)):
        return list(data.outcomes)
    if hasattr(data, "to_dict"):  # a pandas DataFrame
        return data.to_dict("records")
    if isinstance(data, (list, tuple)) and all(isinstance(r, dict) for r in data):
        return list(data)
    raise TypeError("plot_comparison: expected an ExperimentResult, a DataFrame of outcomes (pybai.read_outcomes) "
                    f"or a list of outcome rows, got {type(data).__name__}")


def _field(y: str) -> tuple[str, str]:
    """(outcome field, "mean" or "proportion") of ``y``: a field of the rows or a metric name (``mean_samples``)."""
    if y in METRICS:
        return METRICS[y].field, METRICS[y].kind
    return y, "proportion" if y in _PROPORTIONS else "mean"


def _values(rows: list[dict], y: str) -> list[float]:
    """The values of ``y`` in ``rows`` (a metric's transform and row filter applied; missing ones dropped)."""
    spec = METRICS.get(y)
    field = spec.field if spec is not None else y
    out = []
    for r in rows:
        if spec is not None and spec.where is not None and not spec.where(r):
            continue
        v = r.get(field)
        if v is None or (isinstance(v, float) and np.isnan(v)):
            continue
        v = float(v)
        out.append(spec.transform(v) if spec is not None and spec.transform else v)
    return out


def _labelled(rows: list[dict]) -> list[dict]:
    experiments = list(dict.fromkeys(r.get("experiment") for r in rows))
    if len(experiments) <= 1:
        return rows
    return [dict(r, strategy=f"{r.get('experiment')}: {r['strategy']}") for r in rows]


def _grid_keys(rows: list[dict]) -> list[str]:
    keys = [k for k in dict.fromkeys(k for r in rows for k in r) if k not in OUTCOME_FIELDS]
    return [k for k in keys if len({repr(r.get(k)) for r in rows}) > 1]


def plot_comparison(data, y: str = "samples", x: str | None = None, ax: Any = None):
    """Plot how the strategies compare on outcome ``y`` (module docstring); returns the axes.

    Parameters
    ----------
    data : ExperimentResult, pandas.DataFrame or list of dict
        Per-replication outcomes (``result.outcomes``, :func:`pybai.read_outcomes`,
        ``result.to_dataframe()``).  Rows of several experiments are told apart by name.
    y : str, default "samples"
        An outcome column (``samples``, ``batches``, ``simple_regret``, ``gain``, ``cpu_seconds``,
        ``correct``, ...) or a metric name (``mean_samples``, ``correct_rate``, ``error_rate``).
    x : str, optional
        A grid key to draw ``y`` against (default: the only grid key that varies, if any).
    ax : matplotlib.axes.Axes, optional
        Where to draw (default: a new figure's axes).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> rows = [{"strategy": s, "replication": r, "samples": n} for s, base in (("tas", 100), ("uniform", 150))
    ...         for r, n in enumerate(range(base, base + 10))]
    >>> ax = plot_comparison(rows)
    >>> [t.get_text() for t in ax.get_xticklabels()], ax.get_ylabel()
    (['tas\\n(n=10)', 'uniform\\n(n=10)'], 'samples at stopping, per run')
    """
    rows = _labelled(_rows(data))
    if not rows:
        raise ValueError("plot_comparison: no outcome rows to plot")
    field, kind = _field(y)
    if not any(field in r for r in rows):
        raise ValueError(f"plot_comparison: y = {y!r} is not a column of these outcomes "
                         f"({', '.join(k for k in rows[0] if k in OUTCOME_FIELDS)})")
    grid = _grid_keys(rows)
    if x is None and len(grid) == 1:
        x = grid[0]
    elif x is None and len(grid) > 1:
        raise ValueError(f"plot_comparison: several grid keys vary ({', '.join(grid)}): give x = one of them")
    if x is not None and not any(x in r for r in rows):
        raise ValueError(f"plot_comparison: x = {x!r} is not a column of these outcomes (grid keys: {grid or 'none'})")
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(6.4, 4.2))
    strategies = list(dict.fromkeys(r["strategy"] for r in rows))
    style = {s: (STRATEGY_COLOURS[i % len(STRATEGY_COLOURS)], STRATEGY_MARKERS[i % len(STRATEGY_MARKERS)])
             for i, s in enumerate(strategies)}
    name = column_label(y if y in METRICS and METRICS[y].kind == "proportion" else field)
    if x is None:
        _per_strategy(ax, rows, strategies, style, y, kind, name)
    else:
        _against(ax, rows, strategies, style, y, kind, name, x)
    ax.grid(alpha=0.3, axis="y")
    return ax


def _axis(name: str, kind: str, what: str) -> str:
    if kind == "proportion":
        return f"{name}, 95% interval" if "(rate)" in name else f"{name} (rate, 95% interval)"
    return f"{name} ({what}, 95% interval)"


def _per_strategy(ax, rows, strategies, style, y, kind, name) -> None:
    series = [(s, _values([r for r in rows if r["strategy"] == s], y)) for s in strategies]
    series = [(s, v) for s, v in series if v]
    positions = np.arange(1, len(series) + 1)
    if kind == "proportion":
        for p, (s, v) in zip(positions, series):
            mean, low, high = estimate(v, "proportion")
            ax.errorbar([p], [mean], yerr=[[mean - low], [high - mean]], fmt=style[s][1], color=style[s][0],
                        capsize=4, ms=8)
        ax.set_ylabel(_axis(name, kind, "mean"))
        ax.set_ylim(-0.02, 1.02)
    else:
        boxes = ax.boxplot([v for _, v in series], positions=positions, patch_artist=True, showfliers=True,
                           medianprops={"color": "black"})
        for box, (s, _) in zip(boxes["boxes"], series):
            box.set(facecolor=style[s][0], alpha=0.45)
        for p, (s, v) in zip(positions, series):
            mean, low, high = estimate(v)
            ax.errorbar([p], [mean], yerr=[[mean - low], [high - mean]], fmt="^", color="black", mfc="white",
                        capsize=3, zorder=4)
        ax.set_ylabel(f"{name}, per run")
    ax.set_xticks(positions)
    ax.set_xticklabels([f"{s}\n(n={len(v)})" for s, v in series], fontsize=8)
    ax.set_xlabel("strategy" + ("" if kind == "proportion" else " (box: quartiles, line: median, triangle: mean "
                                                                "with 95% interval)"))
    ax.set_title(f"{name.capitalize()} per strategy")


def _against(ax, rows, strategies, style, y, kind, name, x) -> None:
    xs = sorted({r[x] for r in rows if r.get(x) is not None}, key=lambda v: (isinstance(v, str), v))
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in xs)
    where = (lambda v: float(v)) if numeric else (lambda v: float(xs.index(v)))
    positions = [where(v) for v in xs]
    span = (max(positions) - min(positions)) or 1.0
    for i, s in enumerate(strategies):
        shift = (i - (len(strategies) - 1) / 2) * 0.012 * span  # side by side, so intervals do not hide each other
        points = []
        for value in xs:
            v = _values([r for r in rows if r["strategy"] == s and r.get(x) == value], y)
            if v:
                points.append((where(value) + shift, *estimate(v, kind)))
        if not points:
            continue
        px, mean, low, high = (np.array(c) for c in zip(*points))
        ax.errorbar(px, mean, yerr=[mean - low, high - mean], color=style[s][0], marker=style[s][1], ms=5, capsize=3,
                    lw=1.4, label=s)
    if not numeric:
        ax.set_xticks(range(len(xs)))
        ax.set_xticklabels([str(v) for v in xs])
    ax.set_xlabel(grid_label(x))
    ax.set_ylabel(_axis(name, kind, "mean"))
    if kind == "proportion":
        ax.set_ylim(-0.02, 1.02)
    ax.set_title(f"{name.capitalize()} against {grid_label(x)}")
    ax.legend(fontsize=8)
