"""Per-source confidence intervals for a session's status and report.

Marginal (one source at a time) intervals at level ``level``, z = Phi^-1((1 + level) / 2):

* Gaussian sources with known sigma_s: ``mean +- z sigma_s / sqrt(N_s)`` (exact);
* a family with its own interval (:meth:`pybai.models.families.Family.interval`), e.g. Student's t
  interval ``mean +- t_{N-1} s / sqrt(N)`` of Gaussian sources with unknown variances;
* sources of several reward models (the metrics of a guardrail problem, ``problem.source_support``):
  ``mean +- z sigma_s / sqrt(N_s)`` with sigma_s the metric's sigma or sub-Gaussian proxy, clipped to its range;
* Bernoulli sources: the Wilson score interval (Wilson 1927), which stays inside [0, 1] and
  is sensible for few samples and means near 0 or 1;
* models with a posterior (``model.std``, correlated arms): ``mean +- z std`` (a credible
  interval of the Gaussian posterior);
* least squares (``model.inverse_design``, linear arms): ``x_a^T theta_hat +- z sigma
  sqrt(x_a^T A^-1 x_a)``.

These describe the data; they are not the stopping rule (which uses the GLR statistic and a
threshold valid uniformly over time and sources).  A source without samples gets NaN bounds
(Bernoulli: [0, 1]).

Examples
--------
>>> import numpy as np
>>> from pybai import BestArmProblem, Gaussian, FixedConfidence
>>> problem = BestArmProblem(2, Gaussian(2.0, n_sources=2), FixedConfidence(0.1))
>>> model = problem.new_model()
>>> model.update(np.array([0, 0, 0, 0]), np.array([1.0, 2.0, 3.0, 2.0]))
>>> low, high = confidence_intervals(problem, model)
>>> round(float(low[0]), 4), round(float(high[0]), 4)      # 2 +- 1.96 * 2 / sqrt(4)
(0.04, 3.96)
>>> bool(np.isnan(low[1]))
True
"""

from __future__ import annotations

from statistics import NormalDist

import numpy as np

__all__ = ["confidence_intervals", "z_value"]


def z_value(level: float) -> float:
    """Phi^-1((1 + level) / 2): the two-sided normal quantile."""
    return NormalDist().inv_cdf((1.0 + level) / 2.0)


def confidence_intervals(problem, model, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) per source (flat arrays) for ``model`` on ``problem`` (see the module docstring).

    Raises
    ------
    InvalidParameterError
        ``level`` is not a number in (0, 1).
    """
    from pybai._validation import check_probability

    level = check_probability(level, "level", "confidence_intervals")
    own = problem.family.interval(model, level)  # e.g. Student's t for unknown variances
    if own is not None:
        return own
    z = z_value(level)
    mean = np.asarray(model.estimate, dtype=float)
    counts = np.asarray(model.counts, dtype=float)
    support = getattr(problem, "source_support", None)  # sources of different reward models (guardrail metrics)
    if support is not None:
        low, high = support()
        with np.errstate(divide="ignore", invalid="ignore"):
            half = np.where(counts > 0, z * np.sqrt(problem.family.variances) / np.sqrt(counts), np.nan)
        return np.clip(mean - half, low, high), np.clip(mean + half, low, high)
    if hasattr(model, "std"):
        half = z * np.asarray(model.std, dtype=float)
        return mean - half, mean + half
    inverse = getattr(model, "inverse_design", None)
    if hasattr(model, "inverse_design"):
        if inverse is None:
            nan = np.full(mean.shape, np.nan)
            return nan, nan.copy()
        x = np.asarray(model.features, dtype=float)
        spread = np.sqrt(np.maximum(np.einsum("ij,jk,ik->i", x, inverse, x), 0.0))
        half = z * float(problem.sigma) * spread
        return mean - half, mean + half
    with np.errstate(divide="ignore", invalid="ignore"):
        if problem.family.name == "bernoulli":
            n = counts
            p = np.where(n > 0, mean, 0.5)
            denom = 1.0 + z * z / np.maximum(n, 1e-300)
            centre = (p + z * z / (2.0 * n)) / denom
            half = z * np.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n)) / denom
            # the Wilson interval holds p exactly: exactly 0 (not 1e-17) at no success, 1 at all successes
            low = np.where((n > 0) & (p > 0.0), np.minimum(centre - half, p), 0.0)
            high = np.where((n > 0) & (p < 1.0), np.maximum(centre + half, p), 1.0)
            return np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)
        sigma = np.sqrt(np.asarray(problem.family.variances, dtype=float))
        half = np.where(counts > 0, z * sigma / np.sqrt(counts), np.nan)
    return mean - half, mean + half
