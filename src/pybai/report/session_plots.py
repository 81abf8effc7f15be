"""Figures of a session (``pybai session report``).  Every function takes arrays and ``ax`` and returns ``ax``.

The data come from :func:`pybai.session.replay_history` (the log replayed answer by answer);
these functions only draw.
"""

from __future__ import annotations

import numpy as np

from pybai.naming import arm_names

__all__ = ["plot_samples_over_time", "plot_means_with_intervals", "plot_statistic_vs_threshold"]

_HIGHLIGHT = "#c44e52"


def plot_samples_over_time(samples, counts, ax, labels=None, highlight=(), max_labelled: int = 8):
    """Samples of every arm against the total number of samples told.

    Parameters
    ----------
    samples : array (n,)
        Total samples after each answer (x axis).
    counts : array (n, K)
        Samples of each arm after each answer.
    labels : list of str, optional
        Name of each arm (default "arm k").
    highlight : sequence of int
        Arms drawn thick (the recommendation).
    max_labelled : int
        With more arms than this, only the highlighted arms and the most sampled ones that
        stand out (final count above the median of the others) get a colour and a legend entry,
        at most ``max_labelled`` in all; the rest are drawn together as one grey band (their
        range) with their mean, so that 24 or 1,000 arms sampled alike stay readable.
    """
    samples = np.asarray(samples, dtype=float)
    counts = np.asarray(counts, dtype=float).reshape(samples.size, -1)
    k = counts.shape[1]
    labels = arm_names(k, labels)
    highlight = [int(a) for a in np.atleast_1d(highlight) if 0 <= int(a) < k] if highlight is not None else []
    final = counts[-1] if counts.size else np.zeros(k)
    order = [int(a) for a in np.argsort(-final, kind="stable") if a not in highlight]
    if k <= max_labelled:
        coloured = highlight + order
    else:
        typical = float(np.median(final[order])) if order else 0.0
        coloured = (highlight + [a for a in order if final[a] > typical])[:max_labelled]
    rest = [a for a in range(k) if a not in coloured]
    if rest:
        ax.fill_between(samples, counts[:, rest].min(axis=1), counts[:, rest].max(axis=1), step="post",
                        color="#bbbbbb", alpha=0.6, lw=0, label=f"{len(rest)} other arms (range)")
        ax.plot(samples, counts[:, rest].mean(axis=1), color="#777777", lw=1.0, ls=":", drawstyle="steps-post",
                label=f"{len(rest)} other arms (mean)")
    for a in coloured:
        strong = a in highlight
        ax.plot(samples, counts[:, a], lw=3.2 if strong else 1.4, drawstyle="steps-post", alpha=0.6 if strong else 1,
                label=labels[a] + (" (recommended)" if strong else ""), zorder=2 if strong else 3)
    ax.set_xlabel("samples told (all arms)")
    ax.set_ylabel("samples of the arm")
    ax.set_title("Samples per arm over time")
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(alpha=0.3)
    return ax


def plot_means_with_intervals(means, low, high, ax, labels=None, highlight=(), floors=None, level: float = 0.95,
                              subpopulation_names=None):
    """Each arm's mean with its confidence interval.

    Parameters
    ----------
    means, low, high : array (K,) or (K, L)
        Estimates and interval bounds; a (K, L) array draws one point per arm and
        subpopulation, side by side, coloured by subpopulation.  NaN (no samples) is skipped.
    labels : list of str, optional
        Name of each arm (default "arm k"), used as tick labels when there are few arms.
    highlight : sequence of int
        Arms marked as recommended.
    floors : dict {subpopulation: floor}, optional
        Feasibility floors drawn as dashed lines (subpopulation problems).
    """
    means = np.asarray(means, dtype=float)
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    grid = means.reshape(means.shape[0], -1)
    lo, hi = low.reshape(grid.shape), high.reshape(grid.shape)
    k, n_sub = grid.shape
    x = np.arange(k)
    width = 0.7 / n_sub
    highlight = [int(a) for a in np.atleast_1d(highlight) if 0 <= int(a) < k] if highlight is not None else []
    names = subpopulation_names or [f"subpopulation {l}" for l in range(n_sub)]
    colours = {}
    for l in range(n_sub):
        pos = x + (l - (n_sub - 1) / 2) * width
        ok = ~np.isnan(grid[:, l])
        err = np.vstack([grid[:, l] - lo[:, l], hi[:, l] - grid[:, l]])[:, ok]
        err = np.where(np.isnan(err) | (err < 0.0), 0.0, err)  # an interval that misses its mean by rounding
        line = ax.errorbar(pos[ok], grid[ok, l], yerr=err, fmt="o", ms=4 if k <= 40 else 2.5, capsize=2 if k <= 40 else 0,
                           lw=1.2, color=None if n_sub > 1 else "#4878a8", label=names[l] if n_sub > 1 else None)
        colours[l] = line[0].get_color()
        for a in highlight:
            if ok[a]:
                ax.plot(pos[a], grid[a, l], marker="*", ms=14, color=_HIGHLIGHT, zorder=4, ls="none",
                        label="recommended" if (l == 0 and a == highlight[0]) else None)
    by_value: dict[float, list[int]] = {}
    for l, value in (floors or {}).items():
        by_value.setdefault(float(value), []).append(int(l))
    for value, subs in by_value.items():  # one line per distinct floor
        shared = len(subs) > 1 or n_sub == 1
        label = "floor" if n_sub == 1 else (f"floor, {names[subs[0]]}" if len(subs) == 1
                                            else "floor, subpopulations " + ", ".join(str(l) for l in subs))
        ax.axhline(value, ls="--", lw=1, color="#555555" if shared else colours.get(subs[0], "k"), label=label)
    labels = arm_names(k, labels)
    if k <= 25:
        ax.set_xticks(x)
        ax.set_xticklabels(labels, rotation=45 if k > 8 else 0, ha="right" if k > 8 else "center", fontsize=8)
    else:
        ax.set_xlabel("arm")
    ax.set_ylabel(f"mean reward ({round(100 * level)}% interval)")
    ax.set_title("Each arm's mean with its confidence interval")
    ax.grid(alpha=0.3, axis="y")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8)
    return ax


def plot_statistic_vs_threshold(samples, statistic, threshold, ax, stopped: bool = False,
                                count_dependent: bool = False):
    """The statistic that decides the stop against the level it must reach, answer by answer.

    The session stops at the first answer where the statistic reaches the level (after the
    initial phase); that point is marked when ``stopped``.  NaN values (some source without an
    estimate yet) and ``-inf`` ones (a comparison not yet ranked) are not drawn.
    ``count_dependent``: the rule tests each comparison with its own counts; the statistic is
    then the evidence of the comparison that decides (:meth:`Problem.stopping_evidence
    <pybai.problems.base.Problem.stopping_evidence>`) and the level is the rule's.
    """
    samples = np.asarray(samples, dtype=float)
    statistic = np.where(np.isfinite(np.asarray(statistic, dtype=float)), statistic, np.nan)
    threshold = np.asarray(threshold, dtype=float)
    name = "evidence of the deciding comparison" if count_dependent else "GLR statistic"
    ax.plot(samples, statistic, color="#4878a8", lw=1.6, label=name, drawstyle="steps-post")
    ax.plot(samples, threshold, color=_HIGHLIGHT, lw=1.6, ls="--", label="threshold")
    if stopped and samples.size and np.isfinite(statistic[-1]):
        ax.plot(samples[-1], statistic[-1], "o", color="k", ms=7, label=f"stop at {int(samples[-1])} samples", zorder=4)
    ax.set_xlabel("samples told")
    ax.set_ylabel("evidence (nats)")
    ax.set_title("Stopping rule: the session stops when the statistic reaches the threshold")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    return ax
