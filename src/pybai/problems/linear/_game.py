r"""Nature's best response for linear best-arm identification, compiled for many rounds at fixed estimates.

The game sampling rule (:class:`~pybai.strategies.game.GameSampling`, LinGame on linear problems)
plays one round per sample: the learner's weights w_t, nature's closest alternative under w_t,
the per-arm gains.  Between two checks of the stopping rule the estimate is fixed, so the rounds
of the whole stretch can be played in one compiled loop: :func:`linear_best_response` is that
round's best response, the same value and supergradient as
:meth:`~pybai.problems.linear.LinearBestArmProblem.alt_gradient`:

* :math:`A(w) = \sum_a w_a x_a x_a^\top`, direction :math:`y_x = \hat x - x` for every distinct
  arm x not identical to the answer :math:`\hat x`;
* value :math:`\min_x \hat\Delta_x^2 / (2\sigma^2 \|y_x\|^2_{A(w)^{-1}})`, attained at x_j;
* gains :math:`d_a = (x_a^\top(\hat\theta - \lambda^*))^2 / (2\sigma^2)` with
  :math:`\hat\theta - \lambda^* = \hat\Delta_j A(w)^{-1} y_j / \|y_j\|^2_{A(w)^{-1}}`.

One reading differs from ``alt_gradient``: A(w) gets a ridge of 1e-12 times its mean eigenvalue,
so that weights that underflowed to 0 (the learner's exponential weights can) give the limit of
the formula as those weights go to 0 (an arm alone in its direction then gains
:math:`\hat\Delta_j^2/(2\sigma^2)`, which is the limit) instead of a singular solve.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["linear_best_response"]

#: Ridge added to A(w), relative to its mean eigenvalue.
RIDGE = 1e-12


@njit(cache=True)
def linear_best_response(data, w, out):
    """Best response to weights ``w``: writes the gains in ``out``, returns the value.

    ``data = (features (K, d), others (distinct arms other than the answer, int), gaps (K,),
    best (int), two_var)``; non-positive or NaN gaps give the value 0 and zero gains.
    """
    features, others, gaps, best, two_var = data
    k, d = features.shape
    a_mat = np.zeros((d, d))
    for a in range(k):
        if w[a] > 0.0:
            x = features[a]
            for p in range(d):
                for q in range(d):
                    a_mat[p, q] += w[a] * x[p] * x[q]
    trace = 0.0
    for p in range(d):
        trace += a_mat[p, p]
    ridge = RIDGE * max(trace / d, 1e-300)
    for p in range(d):
        a_mat[p, p] += ridge
    inv = np.linalg.inv(a_mat)
    y = np.empty(d)
    value = math.inf
    j = -1
    var_j = 0.0
    for i in range(others.shape[0]):
        x = others[i]
        g = gaps[x]
        if not g > 0.0:  # NaN or a tie: nature wins at no cost
            for a in range(k):
                out[a] = 0.0
            return 0.0
        for p in range(d):
            y[p] = features[best, p] - features[x, p]
        var = 0.0
        for p in range(d):
            s = 0.0
            for q in range(d):
                s += inv[p, q] * y[q]
            var += y[p] * s
        term = g * g / (two_var * var)
        if term < value:
            value = term
            j = x
            var_j = var
    if j < 0:
        for a in range(k):
            out[a] = 0.0
        return 0.0
    for p in range(d):
        y[p] = features[best, p] - features[j, p]
    u = inv @ y
    scale = gaps[j] / var_j
    for a in range(k):
        s = 0.0
        for p in range(d):
            s += features[a, p] * u[p]
        s *= scale
        out[a] = s * s / two_var
    return value
