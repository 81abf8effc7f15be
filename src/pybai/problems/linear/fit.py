r"""A time-uniform goodness-of-fit test of the Gaussian linear model: do the data contradict it?

The linear model says that a sample of arm a is :math:`x_a^\top\theta + \varepsilon`, with
:math:`\varepsilon \sim N(0, \sigma^2)` for every arm.  Its GLR statistic extrapolates: an arm
sampled once is judged by the fit of the others.  When the per-arm means are not linear in the
features (a constant reward on every arm, one arm far off the plane of the others), the
extrapolation can certify an arm the data never supported.  :func:`fit_test` tests the model on
the data seen so far, at every time at once, with level ``delta``; the stopping rule of
:class:`~pybai.problems.linear.LinearBestArmProblem` gives no evidence while it rejects.

**The statistic.**  With :math:`N_a`, :math:`\bar y_a` the count and mean of arm a and
:math:`\hat\theta` the weighted least-squares fit of the means (the least-squares fit of the samples),
the weighted residual is

.. math:: R_t(s^2) = \frac{1}{2 s^2}\sum_a N_a (\bar y_a - x_a^\top\hat\theta)^2
          \;\le\; \frac{1}{2 s^2}\sum_a N_a (\bar y_a - x_a^\top\theta)^2
          \qquad (\hat\theta \text{ minimises the sum}).

Under the model the right-hand side at :math:`s = \sigma` is a sum of K per-arm Gaussian
deviations, which Kaufmann & Koolen (2021), **Theorem 9**, bound at all times at once (for any
adaptive sampling): with probability at least :math:`1 - \delta_1`, for all t,
:math:`R_t(\sigma^2) \le \beta(t) = K C^G(\ln(1/\delta_1)/K) + 2K\ln(4 + \ln(t/K))`
(:class:`~pybai.stopping.kk21.GaussianThreshold` with one piece of K terms, the linear ``"kk21"``
level).  A chi-square-type boundary; it ignores the d degrees of freedom the fit takes, which only
makes it more cautious.

**The noise level.**  Tested at the declared sigma alone, a mean vector off the model is invisible
while the arm that shows it has few samples: every reward exactly 1.0 looks like sigma-noise around
a mean of 1.4 after one sample.  But the same data show no noise at all on the arms sampled often,
which the model cannot produce.  So the residual is measured in units of

.. math:: s_t^2 = \min(\sigma^2, U_t), \qquad U_t = \frac{W_t}{\sum_a L(N_a - 1, \delta_2 / K)},

with :math:`W_t = \sum_a \sum_i (y_{a,i} - \bar y_a)^2` the within-arm squared deviations and
:math:`L(\nu, \delta')` a time-uniform lower quantile of :math:`\chi^2_\nu`.  Each arm's rewards are
an i.i.d. stream read in order (the sampling rule only chooses how far), so its within-arm sum after
n samples is :math:`\sigma^2\chi^2_{n-1}` for every fixed n; the Chernoff bound
:math:`P(\chi^2_\nu \le \nu x) \le \exp(-\tfrac{\nu}{2}(x - 1 - \ln x))` (x < 1), summed over
:math:`\nu \ge 1` with weights :math:`1/(\nu(\nu + 1))` and over the K arms, gives
:math:`P(\exists t: W_t < \sigma^2 \sum_a L(N_a - 1, \delta_2/K)) \le \delta_2` with
:math:`L(\nu, \delta') = \nu x` at the root of :math:`\tfrac{\nu}{2}(x - 1 - \ln x) = \ln(\nu(\nu+1)/\delta')`.
Let :math:`\sigma_0 \le \sigma` be the noise level of the arms.  With probability at least
:math:`1 - \delta_2`, :math:`U_t \ge \sigma_0^2` at all times, so :math:`s_t \ge \sigma_0` and
:math:`R_t(s_t^2) \le R_t(\sigma_0^2)`, which Theorem 9 bounds (with :math:`\sigma_0`): all the test needs.
A sigma larger than the noise (a cautious choice) therefore costs the test nothing.

**Level.**  The test rejects when :math:`R_t(s_t^2) > \beta(t)`.  Under the model (Gaussian noise
of one standard deviation at most sigma on every arm, means linear in the features) it rejects at
any time with probability at most :math:`\delta_1 + \delta_2 = \delta` (:math:`\delta_1 = \delta_2 =
\delta/2`); a rejection only withholds a stop, so the stopping rule's error stays below its own
delta, and its stopping time grows only on that event.  Rewards that repeat exactly (a constant arm)
give :math:`W_t = 0`: any residual then rejects, as Gaussian noise never repeats a value.  For the
same reason rewards that show no noise at all (every arm with two or more rewards repeats one
value, an event of probability 0 under the model, so the level is unchanged) reject the model: without
it, constant rewards on the arms a design samples, which fit any plane exactly, would certify an arm
the design never sampled by extrapolation alone.  One constant arm beside arms that vary does not
reject by itself (coarse rewards, such as conversions of 0 or 1 with sigma = 1/2, repeat often): it
lowers :math:`U_t`, and the residual decides.  A residual of the size of rounding (means that are exactly linear, 1e-9 of
their scale) never rejects.  Not covered: arms whose noise levels differ (the pooled :math:`U_t` can then fall
below the noise of a noisier arm and the test reject a model with linear means), which the model
excludes.

References
----------
.. [KK21] E. Kaufmann and W. M. Koolen. Mixture martingales revisited with applications to
   sequential tests and confidence intervals. JMLR 22(246), 2021, Theorem 9.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np

from pybai.naming import arm_name
from pybai.stopping.kk21 import GaussianThreshold

__all__ = ["FitTest", "fit_test", "chi_square_lower", "misfit_sentence"]

#: residuals below this fraction of the means' scale are rounding (the noise level never goes below it)
ROUNDING = 1e-9

#: Newton steps of :func:`chi_square_lower` (monotone convergence from the left; 1e-15 relative well before)
_NEWTON_STEPS = 80


class FitTest(NamedTuple):
    """The outcome of :func:`fit_test`.

    Attributes
    ----------
    statistic : float
        R_t(s_t^2), the weighted residual of the means in units of the noise level (module docstring).
    level : float
        beta(t), the time-uniform boundary of the statistic under the model.
    noise : float
        s_t, the noise standard deviation the residual is measured in (at most sigma).
    worst : int
        The arm of the largest residual term, or the first arm whose rewards repeat (-1 without samples).
    repeats : bool
        Whether the test rejects because an arm repeated one reward exactly (statistic inf).
    """

    statistic: float
    level: float
    noise: float
    worst: int
    repeats: bool = False

    @property
    def rejected(self) -> bool:
        """Whether the data contradict the linear model at the test's level."""
        return self.statistic > self.level


def chi_square_lower(nu: np.ndarray, delta: float) -> np.ndarray:
    r"""Time-uniform lower quantiles :math:`L(\nu, \delta)` of :math:`\chi^2_\nu` (module docstring), 0 at nu = 0.

    Parameters
    ----------
    nu : ndarray of float
        Degrees of freedom (whole numbers >= 0).
    delta : float
        Risk of the union over nu >= 1.

    Examples
    --------
    >>> import numpy as np
    >>> low = chi_square_lower(np.array([0.0, 1.0, 10.0, 1e6]), 0.05)
    >>> float(low[0]), bool(0 < low[1] < 1e-3), bool(0 < low[2] < 10), bool(0.98 < low[3] / 1e6 < 1)
    (0.0, True, True, True)
    """
    nu = np.asarray(nu, dtype=float)
    out = np.zeros(nu.shape)
    some = nu >= 1.0
    if not some.any():
        return out
    v = nu[some]
    b = 2.0 * (np.log(v) + np.log1p(v) - math.log(delta)) / v  # x - 1 - ln x = b, x in (0, 1)
    # u = ln x solves g(u) = e^u - 1 - u - b = 0, g convex and decreasing on u < 0: Newton from the left
    u = -(1.0 + b)
    for _ in range(_NEWTON_STEPS):
        e = np.exp(u)
        step = (e - 1.0 - u - b) / (e - 1.0)
        u = np.minimum(u - step, 0.0)
        if not (np.abs(step) > 1e-15 * np.maximum(np.abs(u), 1e-300)).any():
            break
    out[some] = v * np.exp(u)
    return out


@functools.lru_cache(maxsize=64)
def _boundary(delta: float, k: int) -> GaussianThreshold:
    """beta(t) of the module docstring: one piece of ``k`` terms at ``delta`` (its calibration is computed once)."""
    return GaussianThreshold(delta, 1, k)


def _residuals(x: np.ndarray, n: np.ndarray, y: np.ndarray) -> np.ndarray:
    """y - x theta for the weighted least-squares theta (weights n): normal equations (d x d, O(K d^2)) and
    one step of iterative refinement, which brings the residuals to the accuracy of an orthogonal solve.
    The pseudo-inverse while the sampled arms do not span R^d."""
    a = x.T @ (n[:, None] * x)
    a = 0.5 * (a + a.T)
    try:
        solve = np.linalg.inv(a)
        if not np.isfinite(solve).all():
            raise np.linalg.LinAlgError
    except np.linalg.LinAlgError:
        solve = np.linalg.pinv(a)
    theta = solve @ (x.T @ (n * y))
    resid = y - x @ theta
    theta = theta + solve @ (x.T @ (n * resid))
    return y - x @ theta


def fit_test(features: np.ndarray, counts: np.ndarray, sums: np.ndarray, sq_devs: np.ndarray | None, sigma: float,
             delta: float) -> FitTest:
    r"""Test the Gaussian linear model on per-arm statistics, at all times at once (module docstring).

    Parameters
    ----------
    features : ndarray (K, d)
    counts, sums : ndarray (K,)
        Samples and reward sums per arm.
    sq_devs : ndarray (K,) or None
        Per arm, the sum of squared deviations of its rewards about their mean; NaN where unknown
        (a model rebuilt from counts and sums): that arm then says nothing about the noise level
        (None: nothing known, the residual is measured at sigma).
    sigma : float
        The model's noise standard deviation.
    delta : float
        Level of the test in (0, 1): under the model it ever rejects with probability at most delta.

    Returns
    -------
    FitTest

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[1.0, 0.0], [0.0, 1.0], [0.7, 0.7]])
    >>> n = np.array([47.0, 48.0, 1.0])
    >>> fit_test(x, n, n * 1.0, np.zeros(3), 1.0, 0.05).rejected     # every reward exactly 1.0
    True
    >>> fit_test(x, n, n * np.array([1.0, 1.0, 1.4]), np.array([46.0, 47.0, 0.0]), 1.0, 0.05).rejected
    False
    """
    counts = np.asarray(counts, dtype=float)
    k = counts.shape[0]
    seen = np.flatnonzero(counts > 0)
    t = float(counts.sum())
    level = _boundary(0.5 * delta, k)(max(t, 1.0))
    if seen.size == 0:
        return FitTest(0.0, level, float(sigma), -1)
    n = counts[seen]
    means = np.asarray(sums, dtype=float)[seen] / n
    scale = float(np.max(np.abs(means)))
    if not (scale > 0.0 and math.isfinite(scale)):
        scale = 1.0
    x = np.asarray(features, dtype=float)[seen]
    resid = _residuals(x, n, means / scale)  # in units of the scale
    terms = n * resid * resid
    devs = np.full(seen.size, np.nan) if sq_devs is None else np.asarray(sq_devs, dtype=float)[seen]
    constant = (n >= 2.0) & (devs == 0.0)  # NaN (unknown) compares False
    varied = (n >= 2.0) & (devs > 0.0)
    if constant.any() and not varied.any():  # no noise anywhere: Gaussian noise never repeats a value
        return FitTest(math.inf, level, 0.0, int(seen[int(np.argmax(constant))]), True)
    known = np.isfinite(devs)
    low = chi_square_lower(np.where(known, n - 1.0, 0.0), 0.5 * delta / k)
    within = float(devs[known].sum()) if known.any() else 0.0
    bound = float(low.sum())
    variance = sigma * sigma if not bound > 0.0 else min(sigma * sigma, within / bound)
    relative = max(math.sqrt(variance) / scale, ROUNDING)  # the noise level in units of the scale (inf: none)
    with np.errstate(over="ignore"):
        statistic = 0.5 * float(terms.sum()) / (relative * relative) if terms.any() else 0.0
    if statistic != statistic:  # inf / inf: a noise level beyond the float range tells nothing
        statistic = 0.0
    return FitTest(statistic, level, relative * scale, int(seen[int(np.argmax(terms))]))


#: what to do when the data contradict the linear model
ADVICE = ("arms whose means are not a linear function of their features fit an unstructured reward model (drop the "
          "features: each arm estimated from its own rewards)")


def misfit_sentence(test: FitTest, labels=None) -> str | None:
    """The sentence a session's status says once while ``test`` rejects (which arm shows it and what to do), else None."""
    if not test.rejected:
        return None
    arm = arm_name(test.worst, labels)
    if test.repeats:
        return (f"the data contradict the linear model: {arm} repeated its reward exactly, which Gaussian noise never "
                f"does, so the rule does not stop while that lasts; {ADVICE}")
    return (f"the data contradict the linear model (the per-arm means are not linear in the features at the noise "
            f"the rewards show, furthest off at {arm}: weighted residual {test.statistic:.3g} > {test.level:.3g}), so "
            f"the rule does not stop while that lasts; {ADVICE}")
