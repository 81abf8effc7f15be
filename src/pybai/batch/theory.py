r"""Batch-complexity bound of BatchRacing (Jun, Jamieson, Nowak & Zhu 2016, Theorem 1).

Notation of the paper (section 3):

* gaps, Eq. (3): :math:`\Delta_i = \mu_i - \mu_{k+1}` for a top-k arm and
  :math:`\Delta_i = \mu_k - \mu_i` otherwise; :math:`\sigma(1), \sigma(2), \dots` orders the
  arms by increasing gap (:math:`\Delta_{\sigma(1)} = \Delta_{\sigma(2)} = \mu_k - \mu_{k+1}`);
* :math:`\omega = \sqrt{\delta / (6n)}`;
* samples that classify arm i (before Lemma 2):
  :math:`\bar T_i = 1 + \lfloor c_i \log((2/\omega) \log_2(3 c_i / \omega)) \rfloor` with
  :math:`c_i = 64 \Delta_i^{-2}` for rewards in [0, 1] (sub-Gaussian scale 1/2);
  for a general scale :math:`\sigma` the constant 64 becomes :math:`256 \sigma^2`
  (the deviation of Lemma 1 is :math:`4\sigma\sqrt{\tau \log(\cdot)}`, and Lemma 2 needs
  :math:`\Delta_i > 4 D`), and :math:`3 c_i` stays the argument of Eq. (6);
* Theorem 1, Eq. (7), for b >= 2, with :math:`r' = \min\{r, \lfloor b/2 \rfloor\}`:

  .. math::

     M_{b,r} = \frac{1}{r'} \bar T_{\sigma(1)} + \frac{1}{b}
     \sum_{i = \lfloor b/r' \rfloor + 1}^{n} \bar T_{\sigma(i)} + \log n + \frac{n}{b}
     + \frac{1}{r'} + 2,

  and :math:`M_{1,1} = \sum_i \bar T_{\sigma(i)}` (log is natural);
* theory speedup of section 5.1: :math:`M_{1,1} / M_{b,r}`.

The bound is a real number of batches (not rounded), as in the paper's speedups.
"""

from __future__ import annotations

import math

import numpy as np

from pybai._validation import check_array, check_positive_float, check_positive_int, check_probability, fail

__all__ = [
    "top_k_gaps",
    "samples_to_classify",
    "batch_complexity_bound",
    "theory_speedup",
    "check_batch_shape",
]


def check_batch_shape(size, max_repeats, owner: str = "") -> tuple[int, int]:
    """Validate a (b, r) pair: ``size`` b >= 1 and ``max_repeats`` r in [1, b]."""
    b = check_positive_int(size, "size", owner)
    r = check_positive_int(max_repeats, "max_repeats", owner)
    if r > b:
        raise fail("max_repeats", owner, f"an int in [1, size] = [1, {b}] (r <= b)", max_repeats)
    return b, r


def _check_k(k, n: int, owner: str) -> int:
    k = check_positive_int(k, "k", owner)
    if k >= n:
        raise fail("k", owner, f"an int in [1, n_arms - 1] = [1, {n - 1}]", k)
    return k


def top_k_gaps(means, k: int) -> np.ndarray:
    """Gaps of Eq. (3), in the order of ``means`` (any arm order).

    Raises when the top-k set is not unique (mu_(k) == mu_(k+1)): every bound is then infinite.
    """
    mu = check_array(means, "means", "top_k_gaps", ndim=1, min_size=2)
    k = _check_k(k, mu.size, "top_k_gaps")
    ordered = np.sort(mu)[::-1]
    mk, mk1 = ordered[k - 1], ordered[k]
    if not mk > mk1:
        raise fail("means", "top_k_gaps", "means with a unique top-k set (mu_(k) > mu_(k+1))", means)
    return np.where(mu >= mk, mu - mk1, mk - mu)


def samples_to_classify(gaps, delta: float, n_arms: int, sigma: float = 0.5) -> np.ndarray:
    r"""Per-arm :math:`\bar T_i` (before Lemma 2) as floats (integers in value).

    Parameters
    ----------
    gaps : array-like
        Positive gaps :math:`\Delta_i`.
    delta : float
        Risk in (0, 1).
    n_arms : int
        n, the number of arms (enters through :math:`\omega = \sqrt{\delta/(6n)}`).
    sigma : float, default 0.5
        Sub-Gaussian scale of the rewards (1/2 for rewards in [0, 1]).
    """
    gaps = check_array(gaps, "gaps", "samples_to_classify", low=0.0, strict_low=True)
    delta = check_probability(delta, "delta", "samples_to_classify")
    n = check_positive_int(n_arms, "n_arms", "samples_to_classify")
    sigma = check_positive_float(sigma, "sigma", "samples_to_classify")
    omega = math.sqrt(delta / (6.0 * n))
    c = 256.0 * sigma * sigma / gaps**2  # 64 / Delta^2 at sigma = 1/2
    return 1.0 + np.floor(c * np.log((2.0 / omega) * np.log2(3.0 * c / omega)))


def batch_complexity_bound(means, k: int, delta: float, size: int, max_repeats: int, sigma: float = 0.5) -> float:
    """Number of batches of Theorem 1 (Eq. (7)) after which BatchRacing stops w.p. >= 1 - delta.

    Parameters
    ----------
    means : array-like of shape (n,)
        True means (any order; the top-k set must be unique).
    k : int
        Number of top arms, 1 <= k < n.
    delta : float
    size, max_repeats : int
        b and r of the (b, r)-batch setting, 1 <= r <= b.
    sigma : float, default 0.5
        Sub-Gaussian scale (1/2 for rewards in [0, 1]).

    Examples
    --------
    >>> import numpy as np
    >>> mu = (99 - np.arange(1, 101) + 1) / 99            # "Linear" of section 5.1
    >>> m11 = batch_complexity_bound(mu, 10, 0.1, 1, 1)
    >>> round(m11 / batch_complexity_bound(mu, 10, 0.1, 16, 4), 2)
    10.84
    """
    b, r = check_batch_shape(size, max_repeats, "batch_complexity_bound")
    gaps = top_k_gaps(means, k)
    n = gaps.size
    t_bar = np.sort(samples_to_classify(gaps, delta, n, sigma))  # T_bar_sigma(1) <= T_bar_sigma(2) ...
    if b == 1:
        return float(t_bar.sum())
    # smaller gap = more samples: sigma(i) has the i-th largest T_bar
    t_bar = t_bar[::-1]
    r_eff = min(r, b // 2)  # r' of Theorem 1
    start = b // r_eff  # sum over i = floor(b / r') + 1, ..., n (1-based)
    tail = t_bar[start:].sum() if start < n else 0.0
    return float(t_bar[0] / r_eff + tail / b + math.log(n) + n / b + 1.0 / r_eff + 2.0)


def theory_speedup(means, k: int, delta: float, size: int, max_repeats: int, sigma: float = 0.5) -> float:
    """Theory-based speedup of section 5.1: M_{1,1} / M_{b,r} (Table 1, "Theory" columns)."""
    one = batch_complexity_bound(means, k, delta, 1, 1, sigma)
    return one / batch_complexity_bound(means, k, delta, size, max_repeats, sigma)
