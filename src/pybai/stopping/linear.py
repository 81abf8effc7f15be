r"""Stopping thresholds of Gaussian linear best-arm identification.

The GLR statistic of a linear problem (:meth:`~pybai.problems.linear.LinearBestArmProblem.glr`)
is :math:`\min_x \hat\Delta_x^2 / (2\sigma^2 \|\hat x - x\|^2_{A_t^{-1}})`.  Whatever the
allocation, if the empirical answer is wrong then theta lies in the alternative, so

.. math:: \mathrm{GLR}_t \le \frac{\|\hat\theta_t - \theta\|^2_{A_t}}{2\sigma^2}
          = \frac{\|S_t\|^2_{A_t^{-1}}}{2\sigma^2},
          \qquad S_t = \sum_{s \le t} \varepsilon_s x_s ,

a d-dimensional deviation.  Two bounds on it:

* :class:`LinearSelfNormalizedThreshold` (kind ``"delta-correct"``, proven for any adaptive
  allocation and stopping time): Abbasi-Yadkori, Pal & Szepesvari (2011), **Theorem 1**
  (self-normalised bound for vector-valued martingales): for sigma-sub-Gaussian noise and
  :math:`\bar V_t = \lambda I + A_t`, with probability at least 1 - delta, for all t >= 0,
  :math:`\|S_t\|^2_{\bar V_t^{-1}} \le 2\sigma^2 \ln(\det(\bar V_t)^{1/2}\det(\lambda I)^{-1/2}/\delta)`.
  Since :math:`\lambda I + A_t \preceq (1 + \lambda/\lambda_{\min}(A_t)) A_t`,
  :math:`\|S_t\|^2_{A_t^{-1}} \le (1 + \lambda/\lambda_{\min}(A_t)) \|S_t\|^2_{\bar V_t^{-1}}`, so
  stopping when

  .. math:: \mathrm{GLR}_t > \beta(A_t, \delta) = \Big(1 + \frac{\lambda}{\lambda_{\min}(A_t)}\Big)
            \Big(\ln\frac{1}{\delta} + \frac12 \ln\det\big(I + A_t/\lambda\big)\Big)

  errs with probability at most delta (the same argument as Jedra & Proutiere 2020, Prop. 2,
  who use a forced lower bound on :math:`\lambda_{\min}`; we read it from the design).  The
  threshold depends on the design matrix, not only on t: the stopping rules evaluate it with
  ``threshold.at(t, model)``, which reads the model's design matrix.  lambda is fixed before
  sampling: :math:`\lambda = \max_a \|x_a\|^2` (so the threshold is invariant to rescaling the
  features).
* :class:`SoareProp1Threshold` (kind ``"soare-prop1"``): the confidence width of
  Soare et al. (2014), Prop. 1 with its footnote, written on the GLR scale.  Eq. (11) stops when
  :math:`c\|y\|_{A^{-1}}\sqrt{\log(c' n^2 K^2/\delta)} \le \hat\Delta(y)` for every y, with
  :math:`c = 2\sigma\sqrt2`, :math:`c' = 6/\pi^2`, i.e. when
  :math:`\mathrm{GLR}_n \ge (c^2 / 2\sigma^2) \log(c' n^2 K^2/\delta) = 4\log(6 n^2 K^2/(\pi^2\delta))`.
  Proven for fixed (non-adaptive) allocations (Azuma); not for adaptive ones.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pybai._validation import check_positive_float, check_positive_int, fail
from pybai.stopping.base import Threshold, check_delta_share

__all__ = ["LinearSelfNormalizedThreshold", "SoareProp1Threshold"]


class LinearSelfNormalizedThreshold(Threshold):
    r"""Delta-correct GLR threshold for linear bandits from the self-normalised bound (see module).

    Parameters
    ----------
    delta : float
    regularization : float
        lambda > 0 of the bound, fixed before sampling.

    Examples
    --------
    >>> import numpy as np
    >>> th = LinearSelfNormalizedThreshold(0.05, 1.0)
    >>> round(th.on_design(np.diag([99.0, 99.0])), 4)   # (1 + 1/99) (ln 20 + ln 100)
    7.6777
    >>> round(th.on_design(np.diag([99.0, 99.0]), delta_share=0.5), 4)   # delta / 2: + (1 + 1/99) ln 2
    8.3778
    """

    name = "delta-correct"
    proven = True

    def __init__(self, delta: float, regularization: float):
        super().__init__(delta)
        self.regularization = check_positive_float(regularization, "regularization", type(self).__name__)
        self._log_inv_delta = -math.log(self.delta)

    def at(self, t: float, model: Any = None, delta_share: float = 1.0) -> float:
        """beta(A, delta * delta_share) for the design matrix A of ``model`` (``t`` is not read).

        Parameters
        ----------
        t : float
            Number of samples (unused: the design matrix carries what the bound needs).
        model : LeastSquares
            Any object with a ``design_matrix`` (d x d).
        delta_share : float, default 1.0
            Share of ``delta`` spent on this test, in ``(0, 1]`` (XY-adaptive: one share per phase).

        Returns
        -------
        float
            ``inf`` while the design matrix is singular.
        """
        return self.on_design(model.design_matrix, delta_share)

    def on_design(self, design_matrix, delta_share: float = 1.0) -> float:
        """beta(A, delta * delta_share) for the design matrix A (inf while A is singular)."""
        if delta_share == 1.0 and not isinstance(delta_share, bool):
            log_inv_delta = self._log_inv_delta
        else:
            log_inv_delta = -math.log(self.delta * check_delta_share(delta_share, type(self).__name__))
        a = np.asarray(design_matrix, dtype=float)
        a = 0.5 * (a + a.T)
        lam = self.regularization
        low = float(np.linalg.eigvalsh(a)[0])
        if not low > 0.0:
            return math.inf
        sign, logdet = np.linalg.slogdet(np.eye(a.shape[0]) + a / lam)
        return float((1.0 + lam / low) * (log_inv_delta + 0.5 * logdet))

    def __call__(self, t: float) -> float:
        raise fail("t", type(self).__name__, "a design matrix (this threshold depends on the design: use "
                   "at(t, model) or on_design(A))", t)

    def values(self, t):
        return self(t)

    def _params(self) -> dict:
        return {"delta": self.delta, "regularization": self.regularization}


class SoareProp1Threshold(Threshold):
    r""":math:`\beta(n) = 4 \ln(6 n^2 K^2 / (\pi^2 \delta))`: Soare et al. Prop. 1 / Eq. (11) on the GLR scale.

    Examples
    --------
    >>> round(SoareProp1Threshold(0.05, 6)(1000), 3)   # 4 ln(6 * 1000^2 * 36 / (pi^2 0.05))
    79.588
    """

    name = "soare-prop1"
    proven = False  # proven for fixed allocations only (Azuma)

    def __init__(self, delta: float, n_arms: int):
        super().__init__(delta)
        self.n_arms = check_positive_int(n_arms, "n_arms", type(self).__name__)
        self._const = math.log(6.0 * self.n_arms**2 / (math.pi**2 * self.delta))

    def __call__(self, t: float) -> float:
        if not t >= 1:
            raise fail("t", type(self).__name__, "a sample count >= 1", t)
        return 4.0 * (self._const + 2.0 * math.log(t))

    def values(self, t) -> np.ndarray:
        arr = np.asarray(t, dtype=float)
        if not np.all(arr >= 1.0):
            raise fail("t", type(self).__name__, "sample counts >= 1", t)
        return 4.0 * (self._const + 2.0 * np.log(arr))

    def _params(self) -> dict:
        return {"delta": self.delta, "n_arms": self.n_arms}
