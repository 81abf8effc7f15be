"""Summaries of replications: the per-strategy rows of the result document (docs/reference.md)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from pybai.problems.base import Problem
from pybai.simulate.runner import Outcome

__all__ = ["summarize"]


def _num(x, digits=6):
    if x is None:
        return None
    x = float(x)
    return None if math.isnan(x) else round(x, digits)


def summarize(label: str, problem: Problem, outcomes: Sequence[Outcome], wall_seconds: float | None = None) -> dict:
    """Summary of one strategy's replications (a row of the result document's ``results``).

    ``wall_seconds`` is the wall time of this strategy's replications (from the start of its
    first task to the end of its last, as the driver saw them; the sum of the replications'
    own wall times when not given); ``cpu_seconds`` the CPU time of its replications summed
    over workers.  ``censored`` runs count in ``mean_samples`` at their cap;
    ``mean_samples_stopped`` is the mean over the other runs (None when every run is censored).
    """
    samples = np.array([o.samples for o in outcomes], dtype=float)
    fractions = np.array([o.counts / max(o.counts.sum(), 1.0) for o in outcomes])
    regrets = np.array([o.simple_regret for o in outcomes], dtype=float)
    fnr: list[Any] = [o.false_negative for o in outcomes]  # floats, or None for goals without one
    batched = problem.batch is not None
    stopped = [o.samples for o in outcomes if o.status != "censored"]
    summary = {
        "strategy": label,
        "replications": len(outcomes),
        "mean_samples": _num(samples.mean(), 3),
        "mean_samples_stopped": _num(np.mean(stopped), 3) if stopped else None,
        "sd_samples": _num(samples.std(ddof=1) if len(samples) > 1 else 0.0, 3),
        "median_samples": _num(np.median(samples), 1),
        "mean_batches": _num(np.mean([o.batches for o in outcomes]), 3) if batched else None,
        "censored": int(sum(o.status == "censored" for o in outcomes)),
        "correct_rate": _num(np.mean([o.correct for o in outcomes])),
        "mean_simple_regret": _num(np.nanmean(regrets)) if np.isfinite(regrets).any() else None,
        "false_negative_rate": _num(np.mean(fnr)) if fnr and fnr[0] is not None else None,
        "mean_allocation": np.round(fractions.mean(axis=0).reshape(problem.source_shape), 6).tolist(),
        "wall_seconds": _num(sum(o.seconds for o in outcomes) if wall_seconds is None else wall_seconds, 3),
        "cpu_seconds": _num(sum(o.cpu_seconds for o in outcomes), 3),
    }
    error_eps = problem.error_probability_epsilon(regrets)  # None unless the problem sets an epsilon
    if error_eps is not None:
        summary["error_probability_epsilon"] = _num(error_eps)
    exact = [getattr(o, "exact_correct", None) for o in outcomes]
    if exact and exact[0] is not None:  # epsilon-best-arm identification: correct_rate counts epsilon-good answers
        summary["exact_correct_rate"] = _num(np.mean([bool(x) for x in exact]))
    gains: list[Any] = [getattr(o, "gain", None) for o in outcomes]
    if gains and gains[0] is not None:  # goals with a gain (top-k): mean gain and the oracle's
        summary["mean_gain"] = _num(np.mean(gains))
        summary["oracle_gain"] = _num(np.mean([o.oracle_gain for o in outcomes]))
    return summary
