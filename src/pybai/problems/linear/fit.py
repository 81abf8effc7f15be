r"""A time-uniform goodness-of-fit test of the Gaussian linear model: do the data contradict it?

The linear model says that a sample of arm a is :math:`x_a^\top\theta + \varepsilon`, with
:math:`\varepsilon \sim N(0, \sigma_a^2)`, :math:`\sigma_a \le \sigma` (a sigma-sub-Gaussian noise bound that allows
each arm its own level).  Its GLR statistic extrapolates: an arm
sampled once is judged by the fit of the others.  When the per-arm means are not linear in the
features (a constant reward on every arm, one arm far off the plane of the others), the
extrapolation can certify an arm the data never supported.  :func:`fit_test` tests the model on
the data seen so far, at every time at once, with level ``delta``; the stopping rule of
:class:`~pybai.problems.linear.LinearBestArmProblem` gives no evidence while it rejects.

**The statistic** is a weighted residual of the per-arm means :math:`\bar y_a` (counts :math:`N_a`)
about their best linear fit, each arm's term in units of a noise level the data bound from above.

**The noise levels.**  Tested at the declared sigma alone, a mean vector off the model is invisible
while the arm that shows it has few samples: every reward exactly 1.0 looks like sigma-noise around
a mean of 1.4 after one sample.  But the same data show no noise at all on the arms sampled often,
which the model cannot produce.  The model allows each arm a its own noise level
:math:`\sigma_a \le \sigma` (Gaussian noise of standard deviation at most sigma on every arm), so each
arm's residual is measured in units of its own level

.. math:: s_a^2 = \min(\sigma^2, U_a), \qquad U_a = \frac{W_a}{L(N_a - 1, \delta_2 / K)},

with :math:`W_a = \sum_i (y_{a,i} - \bar y_a)^2` the within-arm squared deviations and
:math:`L(\nu, \delta')` a time-uniform lower quantile of :math:`\chi^2_\nu`; :math:`s_a = \sigma` where
nothing is known of arm a's noise (one sample, deviations unknown).  The statistic is the weighted
residual

.. math:: R_t = \min_\theta \sum_a \frac{N_a (\bar y_a - x_a^\top\theta)^2}{2 s_a^2}
          \;\le\; \sum_a \frac{N_a (\bar y_a - x_a^\top\theta^*)^2}{2 s_a^2},

the weighted least-squares fit of the means with weights :math:`N_a / s_a^2` (it minimises the sum,
so the true :math:`\theta^*` does no better).  Each arm's rewards are an i.i.d. stream read in order
(the sampling rule only chooses how far), so its within-arm sum after n samples is
:math:`\sigma_a^2\chi^2_{n-1}` for every fixed n; the Chernoff bound
:math:`P(\chi^2_\nu \le \nu x) \le \exp(-\tfrac{\nu}{2}(x - 1 - \ln x))` (x < 1), summed over
:math:`\nu \ge 1` with weights :math:`1/(\nu(\nu + 1))` and over the K arms, gives
:math:`P(\exists t, a: W_a < \sigma_a^2 L(N_a - 1, \delta_2/K)) \le \delta_2` with
:math:`L(\nu, \delta') = \nu x` at the root of :math:`\tfrac{\nu}{2}(x - 1 - \ln x) = \ln(\nu(\nu+1)/\delta')`.
So with probability at least :math:`1 - \delta_2`, :math:`U_a \ge \sigma_a^2` for every arm at all
times, hence :math:`s_a \ge \sigma_a` and :math:`R_t \le \sum_a N_a (\bar y_a - \mu_a)^2 / (2\sigma_a^2)`:
a sum of K per-arm Gaussian deviations, each in units of its own variance, which Kaufmann & Koolen
(2021), **Theorem 9**, bound at all times at once (for any adaptive sampling): with probability at
least :math:`1 - \delta_1`, for all t, the sum is at most
:math:`\beta(t) = K C^G(\ln(1/\delta_1)/K) + 2K\ln(4 + \ln(t/K))`
(:class:`~pybai.stopping.kk21.GaussianThreshold` with one piece of K terms, the linear ``"kk21"``
level).  A chi-square-type boundary; it ignores the d degrees of freedom the fit takes, which only
makes it more cautious.  A sigma larger than the noise (a cautious choice) costs the test nothing,
and arms whose noise levels differ (say 10 times) are each measured at their own.

**Level.**  The test rejects when :math:`R_t > \beta(t)`.  Under the model (Gaussian noise of
standard deviation :math:`\sigma_a \le \sigma` on arm a, means linear in the features) it rejects at
any time with probability at most :math:`\delta_1 + \delta_2 = \delta` (:math:`\delta_1 = \delta_2 =
\delta/2`); a rejection only withholds a stop, so the stopping rule's error stays below its own
delta, and its stopping time grows only on that event.  Raising any :math:`s_a` only lowers
:math:`R_t`, so every conservative choice below keeps the level.  Rewards that show no noise at all
(every arm with two or more rewards repeats one value, an event of probability 0 under the model, so
the level is unchanged) reject the model: Gaussian noise never repeats a value, and without it
constant rewards on the arms a design samples, which fit any plane exactly, would certify an arm the
design never sampled by extrapolation alone.  One constant arm beside arms that vary does not reject
by itself (coarse rewards, such as conversions of 0 or 1 with sigma = 1/2, repeat often): it is
measured at the largest level the varying arms show (an event of probability 0 under the model, so
any level keeps the level of the test), and the residual decides.  Constant rewards whose running
deviations pick up rounding on some arms therefore still reject: every arm is then measured at that
rounding.  When no arm shows noise above rounding (1e-9 of the means' scale), the arms whose noise is
unknown (sampled once) are measured at that rounding too: without it, noiseless means off the plane
would be certified by the fit of the quiet arms through an arm sampled once, as above.  Not covered:
that inference is wrong when the unknown arm is noisy while every arm sampled twice or more is
quiet to within 1e-9 of the scale (noise levels more than a billion times apart).  A residual of the
size of rounding (means that are exactly linear, 1e-9 of their scale) never rejects: no
:math:`s_a` goes below that fraction of the means' scale.

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
        R_t, the weighted residual of the means, each arm in units of its noise level (module docstring).
    level : float
        beta(t), the time-uniform boundary of the statistic under the model.
    noise : float
        s_a of the worst arm, the noise standard deviation its residual is measured in (at most sigma).
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


def _residuals(x: np.ndarray, w: np.ndarray, y: np.ndarray) -> np.ndarray:
    """y - x theta for the weighted least-squares theta (weights w > 0), by an orthogonal solve of the rows scaled by
    sqrt(w): the weights of arms with and without noise may differ by many orders of magnitude, which the normal
    equations (their condition number squared) would not resolve.  Minimum-norm while the arms do not span R^d."""
    root = np.sqrt(w)
    theta = np.linalg.lstsq(root[:, None] * x, root * y, rcond=None)[0]
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
        (a model rebuilt from counts and sums): that arm then says nothing about its noise level and
        is measured at sigma (None: nothing known, every arm is measured at sigma).
    sigma : float
        The model's bound on every arm's noise standard deviation.
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
    devs = np.full(seen.size, np.nan) if sq_devs is None else np.asarray(sq_devs, dtype=float)[seen]
    constant = (n >= 2.0) & (devs == 0.0)  # NaN (unknown) compares False
    varied = (n >= 2.0) & (devs > 0.0) & np.isfinite(devs)
    if constant.any() and not varied.any():  # no noise anywhere: Gaussian noise never repeats a value
        return FitTest(math.inf, level, 0.0, int(seen[int(np.argmax(constant))]), True)
    # each arm's noise level s_a in units of the scale: sigma unless its own deviations bound it (module docstring)
    relative = np.full(seen.size, sigma / scale)
    if varied.any():
        low = chi_square_lower(n[varied] - 1.0, 0.5 * delta / k)
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            bound = np.sqrt(devs[varied] / low) / scale
        relative[varied] = np.where(bound < relative[varied], bound, relative[varied])  # NaN, inf: sigma
        relative[constant] = relative[varied].max()  # a repeated value: the largest level the data show
    relative = np.maximum(relative, ROUNDING)  # rounding never rejects (inf stays inf: no noise bound)
    shown = varied | constant
    if shown.any() and relative[shown].max() <= ROUNDING:  # no arm shows noise above rounding: nor do the others
        relative[:] = ROUNDING
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        weights = n / (relative * relative)
        finite = weights > 0.0  # sigma beyond the float range: those arms tell nothing
        terms = np.zeros(seen.size)
        if finite.any():
            resid = _residuals(x[finite], weights[finite] / weights[finite].max(), means[finite] / scale)
            terms[finite] = 0.5 * weights[finite] * resid * resid
        statistic = float(terms.sum()) if terms.any() else 0.0
    if statistic != statistic:  # inf / inf: a noise level beyond the float range tells nothing
        statistic = 0.0
    worst = int(np.argmax(terms))
    return FitTest(statistic, level, float(relative[worst] * scale), int(seen[worst]))


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
