"""Gap-based fixed-budget rules: BayesGap (Hoffman, Shahriari and de Freitas 2014) and UGapEb
(Gabillon, Ghavamzadeh and Lazaric 2012).

Both rules see upper and lower bounds ``U_k(t)``, ``L_k(t)`` on every arm mean and

* compute the gap index ``B_k(t) = max_{i != k} U_i(t) - L_k(t)``                  (Eq. 6)
* take ``J(t) = argmin_k B_k(t)`` and ``j(t) = argmax_{k != J(t)} U_k(t)``
* pull the one of ``J(t), j(t)`` with the larger diameter ``s_k(t) = U_k(t) - L_k(t)`` (Eq. 7)
* recommend ``Omega_T = J(argmin_{t <= T} B_{J(t)}(t))``: the running minimum    (Eq. 8)

They differ only in the bounds: BayesGap uses the posterior ``mu_hat_k +- beta sigma_hat_k``
(so ``s_k = 2 beta sigma_hat_k`` and the pulled arm is the one with the larger posterior std),
with beta of Eq. (9); UGapEb uses independent empirical means ``+- b sqrt(a / N_k)``.

Readings of the paper (documented choices)
------------------------------------------
* Line 3 of Algorithm 1 prints ``j(t) = argmin_{k != J(t)} U_k(t)``; the text of section 5
  ("the best runner up arm") and the proof (Lemma B3, case 3: "j(t) has the highest upper
  bound other than J(t)") use ``argmax``.  We implement argmax.
* Ties: ``argmin``/``argmax`` take the first index; between J(t) and j(t) a tie in ``s`` pulls
  J(t); in Eq. (8) the earliest time attaining the minimum is kept (strict improvement).
* Adaptive hardness (end of section 5): the paper bounds ``Delta_k`` by
  ``max_{j != k}(mu_j + 3 s_j) - (mu_k - 3 s_k)``.  That bounds the signed quantity
  ``max_{j != k} mu_j - mu_k``, which equals ``Delta_k`` for every arm but the best; for the
  best arm ``Delta_k = mu_k - max_{j != k} mu_j`` and the printed expression can even be
  negative (then ``H_{k,0} = 0`` and, with the paper's epsilon = 0, ``H_eps = inf`` and
  beta = 0).  We use the two-sided bound that the stated intent ("upper bounding each
  Delta_k") requires: ``max(max_{j != k} U3_j - L3_k, U3_k - max_{j != k} L3_j)`` with
  ``U3/L3 = mu +- 3 s``.  It equals the printed expression whenever that one is the larger
  (every arm that is not confidently the best) and it is always >= 0.
* Eq. (9) with K > T (e.g. 160 models, T = 10 in section 6.2) would give a negative beta^2:
  the term ``T - K`` counts the samples beyond one per arm, and we take ``max(T - K, 0)``.

Defaults of the paper's experiments (section 6): epsilon = 0 and the adaptive hardness for
BayesGap (beta from Eq. 9 recomputed every round).  The paper gives no parameters for UGap;
our default is the theory value ``a = (T - K) / (4 H_eps)`` of Gabillon et al. (2012) with the
same adaptive hardness (``adaptive_hardness(mu_hat, sigma / sqrt(N), epsilon)``, the standard
error of an independent empirical mean in place of the posterior std), and bounds of width ``b sqrt(a / N_k)`` with ``b = 2 sigma`` for
Gaussian rewards (the sub-Gaussian analogue of Hoeffding's range b: both give deviation
probability ``2 exp(-2a)``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from pybai._validation import fail

__all__ = [
    "max_other",
    "arm_gaps",
    "hardness_terms",
    "hardness",
    "adaptive_gaps",
    "adaptive_hardness",
    "bayes_gap_beta",
    "gap_indices",
    "GapChoice",
    "gap_choice",
    "bayes_gap_bounds",
    "bayes_gap_step",
    "ugap_exploration",
    "ugap_bounds",
    "update_recommendation",
]


def max_other(values) -> np.ndarray:
    """``out[k] = max_{i != k} values[i]`` for every k (O(K); needs K >= 2)."""
    out = np.array(values, dtype=float)  # a copy
    top = int(np.argmax(out))
    first = out[top]
    out[top] = -np.inf
    second = out.max()
    out.fill(first)
    out[top] = second
    return out


def arm_gaps(means) -> np.ndarray:
    """``Delta_k = |max_{i != k} mu_i - mu_k|`` (section 5): sub-optimality, or the lead of the best."""
    mu = np.asarray(means, dtype=float)
    return np.abs(max_other(mu) - mu)


def hardness_terms(gaps, epsilon: float = 0.0) -> np.ndarray:
    """``H_{k,eps} = max((Delta_k + eps) / 2, eps)`` (section 5)."""
    g = np.asarray(gaps, dtype=float)
    return np.maximum(0.5 * (g + epsilon), epsilon)


def hardness(gaps, epsilon: float = 0.0) -> float:
    """``H_eps = sum_k H_{k,eps}^-2`` (section 5); ``inf`` when some ``H_{k,eps}`` is 0."""
    h = hardness_terms(gaps, epsilon)
    if h.min() <= 0.0:
        return float("inf")
    return float(np.sum(1.0 / (h * h)))


def adaptive_gaps(means, stds, width: float = 3.0) -> np.ndarray:
    """Posterior upper bounds on every ``Delta_k`` from ``mu_hat +- width sigma_hat`` (end of section 5).

    Two-sided version of the paper's expression (see the module docstring):
    ``max(max_{j != k} U3_j - L3_k, U3_k - max_{j != k} L3_j)``, clipped at 0.
    """
    mu = np.asarray(means, dtype=float)
    s = np.asarray(stds, dtype=float)
    upper = mu + width * s
    lower = mu - width * s
    below = max_other(upper) - lower  # the paper's expression: bounds max_{j != k} mu_j - mu_k
    above = upper - max_other(lower)  # bounds mu_k - max_{j != k} mu_j (the best arm's lead)
    return np.maximum(np.maximum(below, above), 0.0)


def adaptive_hardness(means, stds, epsilon: float = 0.0, width: float = 3.0) -> float:
    """Lower bound on ``H_eps`` from :func:`adaptive_gaps` (step 7 of Algorithm 1)."""
    return hardness(adaptive_gaps(means, stds, width), epsilon)


def bayes_gap_beta(budget: int, n_arms: int, sigma: float, eta: float, kappa: float, hardness_eps: float) -> float:
    """Exploration constant of Eq. (9): ``beta^2 = ((T - K) / sigma^2 + kappa / eta^2) / (4 H_eps)``.

    Parameters
    ----------
    budget, n_arms : int
        T and K; ``T - K`` is taken as ``max(T - K, 0)`` (module docstring).
    sigma, eta : float
        Noise standard deviation and prior scale.
    kappa : float
        ``sum_k ||x_k||^-2 = sum_k 1 / G_kk`` (:meth:`GaussianPosterior.kappa`).
    hardness_eps : float
        ``H_eps`` (or its adaptive lower bound); ``inf`` gives beta = 0.
    """
    if not hardness_eps > 0.0:
        raise fail("hardness_eps", "bayes_gap_beta", "a float > 0 (inf allowed)", hardness_eps)
    extra = max(budget - n_arms, 0)
    return float(np.sqrt((extra / sigma**2 + kappa / eta**2) / (4.0 * hardness_eps)))


def gap_indices(upper, lower) -> np.ndarray:
    """``B_k = max_{i != k} U_i - L_k`` (Eq. 6)."""
    return max_other(upper) - np.asarray(lower, dtype=float)


class GapChoice(NamedTuple):
    """One round of a gap rule: ``J(t)``, ``j(t)``, the arm to pull and ``B_{J(t)}(t)``."""

    J: int
    j: int
    arm: int
    bound: float


def gap_choice(upper, lower) -> GapChoice:
    """``J(t) = argmin_k B_k``, ``j(t) = argmax_{k != J} U_k``, pull ``argmax_{k in {j, J}} s_k`` (Eqs. 6-7)."""
    up = np.asarray(upper, dtype=float)
    lo = np.asarray(lower, dtype=float)
    B = gap_indices(up, lo)
    J = int(np.argmin(B))
    others = up.copy()
    others[J] = -np.inf
    j = int(np.argmax(others))
    arm = j if up[j] - lo[j] > up[J] - lo[J] else J
    return GapChoice(J, j, arm, float(B[J]))


def bayes_gap_bounds(means, stds, beta: float) -> tuple[np.ndarray, np.ndarray]:
    """BayesGap bounds ``U, L = mu_hat +- beta sigma_hat`` (section 5)."""
    mu = np.asarray(means, dtype=float)
    w = beta * np.asarray(stds, dtype=float)
    return mu + w, mu - w


def bayes_gap_step(means, stds, *, budget: int, sigma: float, eta: float, kappa: float,
                   epsilon: float = 0.0, hardness_eps: float | None = None,
                   beta: float | None = None) -> tuple[GapChoice, float]:
    """One round of BayesGap (Algorithm 1, steps 2-4 with the beta of steps 7-8).

    ``hardness_eps`` defaults to the adaptive estimate from the current posterior (as in all
    the paper's experiments).  ``beta`` given: that fixed exploration constant instead of Eq. (9).
    Returns the choice and the beta used.
    """
    if beta is None:
        h = adaptive_hardness(means, stds, epsilon) if hardness_eps is None else hardness_eps
        beta = bayes_gap_beta(budget, np.size(means), sigma, eta, kappa, h)
    return gap_choice(*bayes_gap_bounds(means, stds, beta)), beta


def ugap_exploration(budget: int, n_arms: int, hardness_eps: float) -> float:
    """UGapEb's exploration parameter at its theoretical maximum ``a = (T - K) / (4 H_eps)`` (>= 0)."""
    if not hardness_eps > 0.0:
        raise fail("hardness_eps", "ugap_exploration", "a float > 0 (inf allowed)", hardness_eps)
    return max(budget - n_arms, 0) / (4.0 * hardness_eps)


def ugap_bounds(means, counts, a: float, scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """UGapEb bounds ``mu_hat_k +- scale sqrt(a / N_k)`` (independent arms).

    ``scale`` is Hoeffding's range b for rewards in an interval of length b, or ``2 sigma``
    for Gaussian rewards (module docstring).  An arm never pulled gets ``(+inf, -inf)``.
    """
    n = np.asarray(counts, dtype=float)
    seen = n > 0
    mu = np.where(seen, np.nan_to_num(np.asarray(means, dtype=float)), 0.0)
    with np.errstate(divide="ignore"):
        w = np.where(seen, scale * np.sqrt(a / np.where(seen, n, 1.0)), np.inf)
    return mu + w, mu - w


def update_recommendation(best_bound: float, best_arm: int, choice: GapChoice) -> tuple[float, int]:
    """Running minimum of Eq. (8): keep ``(B_J(t), J(t))`` when it improves strictly on the best so far.

    Start with ``(inf, -1)``; after round T the arm is ``Omega_T``.
    """
    if choice.bound < best_bound:
        return choice.bound, choice.J
    return best_bound, best_arm
