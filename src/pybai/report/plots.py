"""Figures from result documents.  Every function takes results and ``ax`` and returns ``ax``."""

from __future__ import annotations

import numpy as np

__all__ = ["plot_mean_samples", "plot_allocation"]


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
    ax.set_xticklabels([str(i) for i in range(k)])
    ax.set_xlabel("source")
    ax.set_ylabel("fraction of samples")
    ax.legend(fontsize=7)
    return ax
