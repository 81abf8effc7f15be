"""Figure kind ``allocation``: the mean fraction of samples per source and strategy (bars, or heat maps).

Arms and subpopulations are numbered from 0 as everywhere in pybai ("arm 0" .. "arm K-1",
"subpop 0" .. "subpop L-1"); arms with labels (the document's ``labels``) are shown by name.
"""

from __future__ import annotations

from typing import cast

import numpy as np

from pybai import naming
from pybai.report.registry import FigureData, at_text, new_figure, register_figure, set_title, strategy_style

__all__ = ["allocation", "arm_labels"]

#: above this many arms the bars are not labelled one by one
_LABELLED = 30


def arm_labels(k: int, labels=None) -> list[str]:
    """Names of ``k`` arms: their ``labels``, else numbered from 0.

    >>> arm_labels(3), arm_labels(2, ["control", "treatment"])
    (['arm 0', 'arm 1', 'arm 2'], ['control', 'treatment'])
    """
    return naming.arm_names(k, labels)


def _names(options: dict, key: str, n: int, default: list[str]) -> list[str]:
    """The ``key`` option (one name per row or column) when it has ``n`` names, else ``default``."""
    names = options.get(key)
    return [str(v) for v in names] if isinstance(names, list) and len(names) == n else default


def _heatmap(ax, alloc: np.ndarray, title: str, vmax: float, row_labels: bool = True,
             arm_names: list[str] | None = None, subpopulation_names: list[str] | None = None):
    image = ax.imshow(alloc, cmap="viridis", vmin=0.0, vmax=vmax, aspect="auto")
    for (k, l), value in np.ndenumerate(alloc):
        ax.text(l, k, f"{value:.2f}", ha="center", va="center", fontsize=8,
                color="white" if value < 0.6 * vmax else "black")
    ax.set_xticks(range(alloc.shape[1]))
    ax.set_yticks(range(alloc.shape[0]))
    columns = subpopulation_names or [f"subpop {l}" for l in range(alloc.shape[1])]
    ax.set_xticklabels(columns, fontsize=8, rotation=30 if subpopulation_names else 0,
                       ha="right" if subpopulation_names else "center")
    ax.set_yticklabels((arm_names or arm_labels(alloc.shape[0])) if row_labels else [], fontsize=8)
    ax.set_xlabel("subpopulation", fontsize=8)
    if row_labels:
        ax.set_ylabel("arm", fontsize=8)
    ax.set_title(title, fontsize=9)
    return image


def _reference(data: FigureData, point: dict, options: dict) -> np.ndarray | None:
    """The ``reference`` weights: a list of numbers, or a complexity key such as ``optimal_weights``."""
    reference = options.get("reference")
    if isinstance(reference, str):
        reference = data.complexity(point).get(reference)
    return None if reference is None else np.asarray(reference, dtype=float)


@register_figure("allocation", keys=("at", "reference", "reference_label", "vmax", "arm_names", "subpopulation_names"))
def allocation(data: FigureData, options: dict):
    """Mean fraction of samples per source and strategy: bars, or heat maps for arms x subpopulations.

    ``reference``: weights drawn beside the strategies' (e.g. the optimal w*, as numbers or as the
    complexity key ``"optimal_weights"``), labelled ``reference_label`` (default "reference").
    ``vmax``: the top of the heat maps' colour scale (default: the largest fraction shown).
    ``arm_names``, ``subpopulation_names``: lists of names for the rows and columns (default
    the document's ``labels``, else "arm 0", ..., "subpop 0", ..., counted from 0).
    """
    point = data.select(options.get("at"))
    labels = [s for s in data.strategies(options.get("strategies")) if data.result(point, s)]
    series = [(s, np.asarray(cast(dict, data.result(point, s))["mean_allocation"], dtype=np.float64)) for s in labels]
    reference = _reference(data, point, options)
    if (reference is not None and series and series[0][1].ndim == 2 and reference.size != series[0][1].size
            and reference.size == series[0][1].shape[0]):
        # weights per arm beside allocations per source (several metrics of one observation): compare per arm
        series = [(s, alloc.sum(axis=1)) for s, alloc in series]
    if reference is not None:
        series.append((options.get("reference_label", "reference"), reference))
    where = at_text(point)
    title = f"{data.name}: mean allocation" + (f" ({where})" if where else "")
    if series and series[0][1].ndim == 2:
        vmax = float(options.get("vmax") or max(float(a.max()) for _, a in series) or 1.0)
        fig, axes = new_figure(width=3.4 * len(series) + 0.8, height=3.4, ncols=len(series))
        k, n_sub = series[0][1].shape
        arm_names = _names(options, "arm_names", k, arm_labels(k, data.labels))
        sub_names = _names(options, "subpopulation_names", n_sub, [])
        for j, (ax, (label, alloc)) in enumerate(zip(axes, series)):
            image = _heatmap(ax, alloc.reshape(series[0][1].shape), label, vmax, row_labels=j == 0,
                             arm_names=arm_names, subpopulation_names=sub_names or None)
        fig.colorbar(image, ax=axes, shrink=0.85, label="fraction of samples")
        fig.suptitle(options.get("title", title), fontsize=10)
        return fig
    size = series[0][1].size if series else 1
    fig, (ax,) = new_figure(width=min(max(6.4, 0.25 * size * len(series) + 2), 16))
    width = 0.8 / max(len(series), 1)
    for j, (label, alloc) in enumerate(series):
        x = np.arange(alloc.size)
        is_reference = j == len(labels)
        ax.bar(x + (j - (len(series) - 1) / 2) * width, alloc.ravel(), width, label=label,
               hatch="//" if is_reference else None, edgecolor="black" if is_reference else None,
               color="white" if is_reference else strategy_style(data, label)["color"])
    if size <= _LABELLED:
        ax.set_xticks(np.arange(size))
        ax.set_xticklabels(_names(options, "arm_names", size, arm_labels(size, data.labels)), fontsize=8,
                           rotation=0 if size <= 12 else 90)
        ax.set_xlabel("arm")
    else:  # too many arms to name each: numbered ticks, counted from 0
        from matplotlib.ticker import FuncFormatter

        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}" if float(v).is_integer() else ""))
        ax.set_xlabel(f"arm (0 to {size - 1})")
    ax.set_ylabel("mean fraction of samples")
    set_title(ax, options, title)
    ax.legend(fontsize=8)
    return fig
