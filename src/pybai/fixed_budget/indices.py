"""Index and acquisition rules compared with BayesGap in section 6 of Hoffman, Shahriari and de
Freitas (2014): UCBE, BayesUCB, GP-UCB, Thompson sampling, PI and EI.

Each function is pure and vectorised over arms: it turns the current estimates into one value
per arm, and the rule pulls the arm with the largest value (first index on ties).  The Bayesian
rules read the posterior means and standard deviations of the arm means
(:class:`pybai.models.posterior.GaussianPosterior`); UCBE reads empirical means and counts.
After the budget, these rules recommend the arm with the largest posterior (or empirical) mean.

Exploration parameters and defaults
-----------------------------------
Section 6 of the paper does not state the parameters used for these baselines (only epsilon =
0 and the adaptive hardness estimate of BayesGap).  Our defaults, with their source:

* UCBE (Audibert, Bubeck and Munos 2010): index ``mu_hat_k + scale sqrt(a / N_k)``, theory
  requires ``0 < a <= (25/36) (T - K) / H_1``, ``H_1 = sum_k Delta_k^-2``; default ``a`` at that
  maximum (c = 25/36) with ``H_1`` estimated adaptively like BayesGap's hardness:
  ``independent_hardness(adaptive_gaps(mu_hat, sigma / sqrt(N)))`` (every arm pulled once first).  ``scale`` is 1
  for rewards in [0, 1], ``2 sigma`` for Gaussian rewards (same deviation probability).
* BayesUCB (Kaufmann, Cappe and Garivier 2012): quantile ``1 - 1/(t (log T)^c)`` of the posterior
  of each mean; c = 0 (the value of their experiments; theory needs c >= 5).
* GP-UCB (Srinivas et al. 2010, Theorem 1, finite arm set):
  ``beta_t = 2 log(K t^2 pi^2 / (6 delta))``, index ``mu_hat + sqrt(beta_t) sigma_hat``;
  default delta = 0.1 and ``beta_scale = 1`` (the theory value; GP-UCB's own experiments shrink
  beta_t, which ``beta_scale`` < 1 reproduces).
* Thompson sampling: one joint draw of the means from the posterior (with the generator passed
  in), pull its argmax.  No parameter.
* PI and EI: improvement over the incumbent = the best posterior mean (as in the paper's
  description), margin xi = 0.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import ndtr, ndtri

from pybai._validation import check_positive_float, check_positive_int, check_probability, fail

__all__ = [
    "UCBE_C",
    "independent_hardness",
    "ucbe_exploration",
    "ucbe_index",
    "bayes_ucb_level",
    "bayes_ucb_index",
    "gp_ucb_beta",
    "gp_ucb_index",
    "thompson_draw",
    "probability_of_improvement",
    "expected_improvement",
]

UCBE_C = 25.0 / 36.0
"""Largest c in ``a = c (T - K) / H_1`` covered by UCBE's theorem (Audibert et al. 2010)."""

_SQRT_2PI = math.sqrt(2.0 * math.pi)


def independent_hardness(gaps) -> float:
    """``H_1 = sum_k Delta_k^-2`` (Audibert et al. 2010; the best arm's Delta is its lead); inf if a gap is 0."""
    g = np.asarray(gaps, dtype=float)
    if np.any(g <= 0.0):
        return float("inf")
    return float(np.sum(g**-2.0))


def ucbe_exploration(budget: int, n_arms: int, hardness_h1: float, c: float = UCBE_C) -> float:
    """UCBE's ``a = c (T - K) / H_1`` (>= 0; ``H_1 = inf`` gives 0)."""
    check_positive_float(c, "c", "ucbe_exploration")
    if not hardness_h1 > 0.0:
        raise fail("hardness_h1", "ucbe_exploration", "a float > 0 (inf allowed)", hardness_h1)
    return c * max(budget - n_arms, 0) / hardness_h1


def ucbe_index(means, counts, a: float, scale: float = 1.0) -> np.ndarray:
    """UCBE index ``mu_hat_k + scale sqrt(a / N_k)``; ``+inf`` for an arm never pulled."""
    n = np.asarray(counts, dtype=float)
    seen = n > 0
    safe = np.where(seen, n, 1.0)
    mu = np.where(seen, np.nan_to_num(np.asarray(means, dtype=float)), 0.0)
    return np.where(seen, mu + scale * np.sqrt(a / safe), np.inf)


def bayes_ucb_level(t: int, horizon: int, c: float = 0.0) -> float:
    """Quantile level ``1 - 1/(t (log T)^c)`` of BayesUCB at round t (1-based).

    At t = 1 the level is 0 (every index is -inf, a pure tie); we use ``max(t, 2)``, which only
    changes which arm the first-round tie picks.
    """
    t = max(int(t), 2)
    horizon = max(int(horizon), 2)
    return 1.0 - 1.0 / (t * math.log(horizon) ** c)


def bayes_ucb_index(means, stds, t: int, horizon: int, c: float = 0.0) -> np.ndarray:
    """BayesUCB index: the ``bayes_ucb_level`` quantile of ``N(mu_hat_k, sigma_hat_k^2)``."""
    level = bayes_ucb_level(t, horizon, c)
    z = float(ndtri(min(max(level, 0.0), 1.0)))
    return np.asarray(means, dtype=float) + z * np.asarray(stds, dtype=float)


def gp_ucb_beta(t: int, n_arms: int, delta: float = 0.1, beta_scale: float = 1.0) -> float:
    """``beta_t = beta_scale * 2 log(K t^2 pi^2 / (6 delta))`` (Srinivas et al. 2010, Theorem 1)."""
    t = check_positive_int(t, "t", "gp_ucb_beta")
    n_arms = check_positive_int(n_arms, "n_arms", "gp_ucb_beta")
    delta = check_probability(delta, "delta", "gp_ucb_beta")
    beta_scale = check_positive_float(beta_scale, "beta_scale", "gp_ucb_beta")
    return beta_scale * 2.0 * math.log(n_arms * t**2 * math.pi**2 / (6.0 * delta))


def gp_ucb_index(means, stds, beta: float) -> np.ndarray:
    """GP-UCB index ``mu_hat_k + sqrt(beta_t) sigma_hat_k``."""
    return np.asarray(means, dtype=float) + math.sqrt(beta) * np.asarray(stds, dtype=float)


def thompson_draw(means, root, rng: np.random.Generator) -> np.ndarray:
    """One joint posterior draw ``mu_hat + R z`` (``covariance = R R^T``, R of shape (K, d)).

    Thompson sampling pulls ``argmax`` of the draw.  Pass ``root = diag(stds)`` (or a 1-d array
    of stds) for independent arms.
    """
    mu = np.asarray(means, dtype=float)
    r = np.asarray(root, dtype=float)
    if r.ndim == 1:
        return mu + r * rng.standard_normal(mu.shape[0])
    return mu + r @ rng.standard_normal(r.shape[1])


def _improvement(means, stds, incumbent, xi):
    mu = np.asarray(means, dtype=float)
    s = np.asarray(stds, dtype=float)
    best = float(np.max(mu)) if incumbent is None else float(incumbent)
    diff = mu - best - xi
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(s > 0.0, diff / np.where(s > 0.0, s, 1.0), np.where(diff > 0, np.inf, -np.inf))
    return diff, s, z


def probability_of_improvement(means, stds, incumbent: float | None = None, xi: float = 0.0) -> np.ndarray:
    """PI: ``Phi((mu_hat_k - f* - xi) / sigma_hat_k)``, f* = the best posterior mean by default.

    An arm with zero posterior std gets 1 if it improves strictly, else 0.
    """
    _, _, z = _improvement(means, stds, incumbent, xi)
    return ndtr(z)


def expected_improvement(means, stds, incumbent: float | None = None, xi: float = 0.0) -> np.ndarray:
    """EI: ``(mu_hat - f* - xi) Phi(z) + sigma_hat phi(z)``, ``z = (mu_hat - f* - xi) / sigma_hat``.

    f* = the best posterior mean by default.  An arm with zero std gets ``max(mu_hat - f* - xi, 0)``.
    """
    diff, s, z = _improvement(means, stds, incumbent, xi)
    zf = np.where(np.isfinite(z), z, 0.0)
    density = np.exp(-0.5 * zf * zf) / _SQRT_2PI
    out = diff * ndtr(z) + s * density
    return np.where(s > 0.0, out, np.maximum(diff, 0.0))
