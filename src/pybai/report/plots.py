"""Figures from result documents.  Every function takes results and ``ax`` and returns ``ax``.

Arms and subpopulations are labelled from 1 in every figure ("arm 1" .. "arm K", "subpop 1" ..
"subpop L"), as a reader counts them; the result documents (JSON) keep 0-based indices
(docs/reference.md).  :func:`source_labels` gives the labels of a result's sources.
"""

from __future__ import annotations

import numpy as np

__all__ = ["plot_mean_samples", "plot_allocation", "plot_allocation_heatmap", "source_labels"]


def source_labels(shape: tuple[int, ...]) -> list[str]:
    """1-based labels of the sources of an allocation of shape ``(K,)`` or ``(K, L)`` (row-major).

    >>> source_labels((3,))
    ['arm 1', 'arm 2', 'arm 3']
    >>> source_labels((2, 2))
    ['arm 1/sub 1', 'arm 1/sub 2', 'arm 2/sub 1', 'arm 2/sub 2']
    """
    if len(shape) == 1:
        return [f"arm {k + 1}" for k in range(shape[0])]
    return [f"arm {k + 1}/sub {l + 1}" for k in range(shape[0]) for l in range(shape[1])]


def plot_mean_samples(document: dict, ax, lower_bound: float | None = None):
    """Bar chart of the mean number of samples per strategy (error bars: 1 standard error)."""
    rows = document["results"]
    names = [r["strategy"] for r in rows]
    means = np.array([r["mean_samples"] for r in rows])
    se = np.array([r["sd_samples"] / np.sqrt(r["replications"]) for r in rows])
    ax.bar(names, means, yerr=se, color="#4878a8", capsize=3)
    if lower_bound is not None:
        ax.axhline(lower_bound, color="#c44e52", ls="--", label="lower bound T* kl(delta, 1-delta)")
        ax.legend(loc="upper left", fontsize=8)
    ax.set_ylabel("mean samples at stopping")
    ax.set_title(document.get("name", ""))
    ax.tick_params(axis="x", labelrotation=20)
    return ax


def plot_allocation(document: dict, ax, optimal_weights=None):
    """Mean fraction of samples per source and strategy, beside the optimal weights."""
    rows = document["results"]
    shape = np.asarray(rows[0]["mean_allocation"], dtype=float).shape
    alloc = [np.asarray(r["mean_allocation"], dtype=float).ravel() for r in rows]
    k = alloc[0].size
    series = [(r["strategy"], a) for r, a in zip(rows, alloc)]
    if optimal_weights is not None:
        series.append(("w*(mu)", np.asarray(optimal_weights, dtype=float).ravel()))
    width = 0.8 / len(series)
    x = np.arange(k)
    for j, (name, values) in enumerate(series):
        ax.bar(x + (j - (len(series) - 1) / 2) * width, values, width, label=name)
    ax.set_xticks(x)
    ax.set_xticklabels(source_labels(shape), rotation=0 if len(shape) == 1 else 45, fontsize=8)
    ax.set_xlabel("arm" if len(shape) == 1 else "arm / subpopulation")
    ax.set_ylabel("fraction of samples")
    ax.legend(fontsize=7)
    return ax


def plot_allocation_heatmap(document: dict, ax, strategy: str, vmax: float | None = None):
    """Heat map of one strategy's mean allocation over arms x subpopulations (a (K, L) result).

    Each cell shows the mean fraction of samples spent on (arm k, subpopulation l); the
    image is ``ax.images[-1]`` (for a colour bar).
    """
    rows = {r["strategy"]: r for r in document["results"]}
    if strategy not in rows:
        raise KeyError(f"no strategy {strategy!r} in the document; have {sorted(rows)}")
    alloc = np.asarray(rows[strategy]["mean_allocation"], dtype=float)
    if alloc.ndim != 2:
        raise ValueError("plot_allocation_heatmap needs a (K, L) allocation (subpopulation problems)")
    ax.imshow(alloc, cmap="viridis", vmin=0.0, vmax=vmax if vmax is not None else alloc.max())
    for (k, l), value in np.ndenumerate(alloc):
        ax.text(l, k, f"{value:.2f}", ha="center", va="center", color="white" if value < 0.6 * alloc.max() else "black", fontsize=8)
    ax.set_xticks(range(alloc.shape[1]))
    ax.set_yticks(range(alloc.shape[0]))
    ax.set_xticklabels([f"subpop {l + 1}" for l in range(alloc.shape[1])], fontsize=8)
    ax.set_yticklabels([f"arm {k + 1}" for k in range(alloc.shape[0])], fontsize=8)
    ax.set_title(f"{strategy}: mean allocation")
    return ax
