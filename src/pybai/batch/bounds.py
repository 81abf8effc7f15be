r"""Anytime confidence bounds of Lemma 1 / Eq. (2) (Jun, Jamieson, Nowak & Zhu 2016).

Lemma 1 (a non-asymptotic law of the iterated logarithm, after Jamieson et al. 2014): for
i.i.d. zero-mean sub-Gaussian variables of scale sigma and omega in (0, sqrt(1/6)),

.. math::

   P\left(\forall \tau \ge 1,\ \left|\sum_{s \le \tau} X_s\right|
   \le 4\sigma\sqrt{\tau \log(\log_2(2\tau)/\omega)}\right) \ge 1 - 6\omega^2 .

Dividing by tau gives the deviation of the empirical mean,
:math:`D_\sigma(\tau, \omega) = \sqrt{16\sigma^2 \log(\log_2(2\tau)/\omega) / \tau}`; at
sigma = 1/2 (rewards in [0, 1]) this is the paper's
:math:`D(\tau, \omega) = \sqrt{4 \log(\log_2(2\tau)/\omega) / \tau}`.  Eq. (2) uses
:math:`\omega = \sqrt{\delta/(6n)}`, so that the n arms' bounds hold together with probability
at least 1 - delta (union bound: n * 6 omega^2 = delta).

Arms with no sample get the bounds -inf / +inf.
"""

from __future__ import annotations

import math

import numpy as np

from pybai._validation import check_positive_float, check_positive_int, check_probability, fail

__all__ = ["lil_omega", "lil_deviation", "lil_bounds"]


def lil_omega(delta: float, n_arms: int) -> float:
    """omega = sqrt(delta / (6 n)) of Eq. (2); requires omega < sqrt(1/6) (true for delta < 1)."""
    delta = check_probability(delta, "delta", "lil_omega")
    n = check_positive_int(n_arms, "n_arms", "lil_omega")
    return math.sqrt(delta / (6.0 * n))


def lil_deviation(counts, omega: float, sigma: float = 0.5) -> np.ndarray:
    """D_sigma(tau, omega) per arm, vectorised; +inf where tau = 0.

    Parameters
    ----------
    counts : array-like of int
        Samples per arm, tau >= 0.
    omega : float
        In (0, sqrt(1/6)) (Lemma 1).
    sigma : float, default 0.5
        Sub-Gaussian scale (1/2 for rewards in [0, 1]; the noise sd for Gaussian rewards).
    """
    omega = float(omega)
    if not 0.0 < omega < math.sqrt(1.0 / 6.0):
        raise fail("omega", "lil_deviation", "a float in (0, sqrt(1/6))", omega)
    sigma = check_positive_float(sigma, "sigma", "lil_deviation")
    tau = np.asarray(counts, dtype=float)
    out = np.full(tau.shape, np.inf)
    pos = tau > 0
    t = tau[pos]
    out[pos] = np.sqrt(16.0 * sigma * sigma * np.log(np.log2(2.0 * t) / omega) / t)
    return out


def lil_bounds(counts, sums, delta: float, n_arms: int | None = None, sigma: float = 0.5):
    """Lower and upper confidence bounds L_i, U_i of Eq. (2), vectorised over arms.

    Parameters
    ----------
    counts, sums : array-like of shape (m,)
        Samples and reward sums of the arms whose bounds are wanted.
    delta : float
        Risk in (0, 1).
    n_arms : int, optional
        n in omega = sqrt(delta / (6n)) (default: the number of arms given).  Pass the total
        number of arms when ``counts`` holds only the surviving ones.
    sigma : float, default 0.5

    Returns
    -------
    lower, upper : ndarray of shape (m,)
        Empirical mean -/+ D_sigma(T_i, omega); -inf / +inf for arms with no sample.
    """
    counts = np.asarray(counts)
    sums = np.asarray(sums, dtype=float)
    if counts.shape != sums.shape:
        raise fail("sums", "lil_bounds", f"of the shape of counts {counts.shape}", f"shape {sums.shape}")
    n = counts.size if n_arms is None else n_arms
    dev = lil_deviation(counts, lil_omega(delta, n), sigma)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(counts > 0, sums / np.maximum(counts, 1), 0.0)
    return mean - dev, mean + dev
