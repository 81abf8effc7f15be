r"""Closed forms of Gaussian linear best-arm identification (no solver).

For arms ``X`` (K x d), noise ``sigma``, allocation ``w`` (counts or proportions) with design
matrix :math:`A = \sum_a w_a x_a x_a^\top` and empirical best arm :math:`\hat x`, the closest
alternative in which arm x beats :math:`\hat x` costs

.. math:: \inf_{\lambda: (x - \hat x)^\top \lambda \ge 0} \sum_a w_a
          \frac{(x_a^\top(\theta - \lambda))^2}{2\sigma^2}
          = \frac{((\hat x - x)^\top \theta)^2}{2 \sigma^2 \|\hat x - x\|^2_{A^{-1}}},

reached at :math:`\lambda^* = \theta - \Delta_x A^{-1} y / \|y\|^2_{A^{-1}}` with
:math:`y = \hat x - x`, :math:`\Delta_x = y^\top\theta`.  When A is singular, a direction y
outside the range of A has infinite variance: nature moves theta along the null space of A at
no cost, so that term is 0 (and :math:`\lambda^* = \theta - \Delta_x u / \|u\|^2` with u the
projection of y on the null space of A); directions in the range use the pseudo-inverse.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["alternative_terms", "inverse_or_spectrum", "tracking_tolerance", "ORACLE_RTOL"]

#: Relative duality gap at which the oracle stops (certified).
ORACLE_RTOL = 1e-6
#: The approximate oracle of tracking rules: relative gap min(FAST_RTOL_CAP, FAST_RTOL_SCALE / sqrt(t)) at time t.
FAST_RTOL_CAP = 0.1
FAST_RTOL_SCALE = 0.3


def tracking_tolerance(t: int) -> float:
    """Relative duality gap the approximate oracle guarantees at time t: min(0.1, 0.3 t^-1/2), at least 1e-6.

    It tends to 0, so the tracked weights are certified eps_t-optimal for the estimate with
    eps_t -> 0 (see :meth:`pybai.problems.linear.problem.LinearBestArmProblem.tracking_weights`).
    """
    return float(max(ORACLE_RTOL, min(FAST_RTOL_CAP, FAST_RTOL_SCALE / math.sqrt(max(t, 1)))))


#: Relative eigenvalue under which A counts as singular.
SINGULAR_RTOL = 1e-10


def inverse_or_spectrum(a: np.ndarray):
    """(A^-1, None) when A is invertible, else (None, (vals, vecs, keep)) of its eigen-decomposition."""
    a = 0.5 * (a + a.T)
    vals, vecs = np.linalg.eigh(a)
    top = vals[-1]
    if top > 0 and vals[0] > SINGULAR_RTOL * top:
        return (vecs / vals) @ vecs.T, None
    keep = vals > SINGULAR_RTOL * top if top > 0 else np.zeros(vals.size, dtype=bool)
    return None, (vals, vecs, keep)


def alternative_terms(x: np.ndarray, best: int, gaps: np.ndarray, same: np.ndarray, inv, spectrum, two_var: float):
    """Per-arm costs of the closest alternative where the arm beats ``best``.

    Parameters
    ----------
    x : (K, d) arms; best : index of the empirical best arm;
    gaps : (K,) means[best] - means (NaN: unidentified arm, its term is 0);
    same : (K,) bool, arms identical to ``best`` (excluded: term +inf);
    inv, spectrum : output of :func:`inverse_or_spectrum`;
    two_var : 2 sigma^2.

    Returns
    -------
    terms : (K,) costs; var : (K,) ||y||^2_{A^+} ; off : (K,) bool, y outside range(A)
    """
    y = x[best] - x
    if inv is not None:
        var = ((y @ inv) * y).sum(axis=1)
        off = np.zeros(x.shape[0], dtype=bool)
    else:
        vals, vecs, keep = spectrum
        coef = y @ vecs
        var = (coef[:, keep] ** 2) @ (1.0 / vals[keep])
        off = np.linalg.norm(coef[:, ~keep], axis=1) > 1e-9 * np.maximum(np.linalg.norm(y, axis=1), 1e-300)
    g = np.where(np.isnan(gaps), 0.0, gaps)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = g * g / (two_var * var)
    terms = np.where(off | (g <= 0.0), 0.0, terms)
    terms[same] = np.inf
    return terms, var, off


def domination_statistics(x: np.ndarray, means: np.ndarray, inv: np.ndarray, two_var: float) -> np.ndarray:
    r"""For every arm x, :math:`\max_{x'} \hat\Delta(x', x)^2 / (2\sigma^2 \|x' - x\|^2_{A^{-1}})` over
    the arms x' with :math:`\hat\Delta(x', x) = \hat\mu_{x'} - \hat\mu_x > 0` (0 when there is none).

    Arm x is dominated at level beta (Soare et al. Lemma 4, Eq. 16, on the GLR scale) when its
    value exceeds beta.  O(K^2 + K d^2).
    """
    m = x @ inv
    diag = (m * x).sum(axis=1)
    var = diag[:, None] + diag[None, :] - 2.0 * (m @ x.T)  # ||x_i - x_j||^2_{A^-1}
    gap = means[:, None] - means[None, :]  # row x' beats column x by gap
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where((gap > 0.0) & (var > 0.0), gap * gap / (two_var * var), 0.0)
    return ratio.max(axis=0)
