"""Fixed-budget performance measures (section 3 of Hoffman, Shahriari and de Freitas 2014).

The simple regret of a recommendation ``Omega_T`` is ``R = mu* - mu_{Omega_T}`` (Eq. 1); the
probability of error at tolerance epsilon is ``Pr(R > epsilon)``, estimated over runs.
"""

from __future__ import annotations

import numpy as np

from pybai._validation import check_positive_float, fail

__all__ = ["simple_regret", "error_probability_epsilon"]


def simple_regret(means, recommendations) -> np.ndarray | float:
    """``max(mu) - mu[recommendation]`` (Eq. 1), vectorised over runs.

    Parameters
    ----------
    means : array-like of shape (K,) or (R, K)
        The truth (one row per run, or one truth for every run).
    recommendations : int or array-like of shape (R,)

    Returns
    -------
    float, or ndarray of shape (R,)
    """
    mu = np.asarray(means, dtype=float)
    rec = np.asarray(recommendations)
    if not np.issubdtype(rec.dtype, np.integer):
        raise fail("recommendations", "simple_regret", "arm indices (ints)", recommendations)
    K = mu.shape[-1]
    if np.any(rec < 0) or np.any(rec >= K):
        raise fail("recommendations", "simple_regret", f"arm indices in [0, {K})", recommendations)
    if mu.ndim == 1:
        out = mu.max() - mu[rec]
    else:
        if rec.ndim != 1 or rec.shape[0] != mu.shape[0]:
            raise fail("recommendations", "simple_regret", f"one arm per run ({mu.shape[0]})", recommendations)
        out = mu.max(axis=1) - mu[np.arange(mu.shape[0]), rec]
    return float(out) if np.ndim(out) == 0 else out


def error_probability_epsilon(means, recommendations, epsilon: float = 0.0) -> float:
    """Fraction of runs whose recommendation is not within epsilon of the best: ``mean(R > epsilon)``.

    With epsilon = 0 a recommendation tied with the best arm counts as correct.
    """
    eps = check_positive_float(epsilon, "epsilon", "error_probability_epsilon", allow_zero=True)
    regret = np.atleast_1d(simple_regret(means, recommendations))
    return float(np.mean(regret > eps))
