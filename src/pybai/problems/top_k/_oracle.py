r"""Characteristic time and optimal weights of top-k identification, with a certificate.

For a unique top-k set (top arms i, bottom arms j), the lower-bound game is

.. math::

   1/T^*(\mu) = \max_{w \in \Sigma_n} \min_{i \in top, j \in bot} c_{ij}(w_i, w_j),
   \qquad c_{ij}(x, y) = \inf_m\ x\, d(\mu_i, m) + y\, d(\mu_j, m),

each :math:`c_{ij}` concave and 1-homogeneous.  By homogeneity it is equivalent to the convex
program :math:`T^* = \min \{\sum_a N_a : c_{ij}(N_i, N_j) \ge 1\ \forall (i, j)\}`, with
:math:`w^* = N^* / \sum_a N^*_a`.  This module solves the program by a primal log-barrier
(interior-point) method: Newton steps on :math:`t \sum_a N_a - \sum_p \log(c_p(N) - 1)` for
t growing geometrically, with exact gradients :math:`\partial_x c = d(\mu_i, m)`,
:math:`\partial_y c = d(\mu_j, m)` (envelope theorem, m the pooled mean) and exact Hessians.

Certificate.  Every iterate is feasible, so :math:`\sum_a N_a / \min_p c_p(N)` is an upper
bound on T* (attained by the returned weights).  Lower bounds come from weak duality: for
any :math:`\lambda \ge 0` and any point N, concavity and homogeneity give
:math:`c_p(N') \le g_p(N) \cdot N'` with :math:`g_p` the gradient at N, so
:math:`T^* \ge \sum_p \lambda_p / \max_a \sum_p \lambda_p g_{p,a}(N)`.  The barrier's dual
estimate :math:`\lambda_p = 1/(t (c_p - 1))` gives one such bound per centring step; a last
linear program (:math:`\max \sum \lambda` s.t. :math:`G^\top \lambda \le 1`, the tangent
linearisation at the final point, tight to second order) gives the final one.  The result
carries both bounds, so callers can check the accuracy (typically a relative gap < 1e-9).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.linalg import cho_factor, cho_solve

from pybai.models._kl import GAUSSIAN, GAUSSIAN_UV, pooled_mean
from pybai.problems.top_k._kernels import shifted_pair_arrays

__all__ = ["TopKOracleResult", "top_k_oracle", "pair_terms", "top_bottom"]

_EPS = 1e-15
_MAX_OUTER = 60
_MAX_NEWTON = 60
_GROWTH = 16.0
_LP_FROM = 1e-5  # barrier gap below which each centring also solves the certificate LP


@dataclass(frozen=True)
class TopKOracleResult:
    """T* (upper bound attained by ``weights``), a certified lower bound, and the weights."""

    t_star: float
    weights: np.ndarray
    lower: float
    newton_steps: int

    @property
    def relative_gap(self) -> float:
        return (self.t_star - self.lower) / self.t_star if math.isfinite(self.t_star) else 0.0


def top_bottom(means: np.ndarray, k: int):
    """(top, bottom, unique): the k largest means (ties: lowest index) and the rest."""
    n = means.size
    order = np.lexsort((np.arange(n), -means))
    top, bot = order[:k], order[k:]
    unique = bool(means[order[k - 1]] > means[order[k]])
    return top, bot, unique


def _kl(code, p, m, var):
    if code == GAUSSIAN:
        return (p - m) ** 2 / (2.0 * var)
    if code == GAUSSIAN_UV:
        return 0.5 * np.log1p((p - m) ** 2 / var)
    p = np.clip(p, 0.0, 1.0)
    m = np.clip(m, _EPS, 1.0 - _EPS)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(p > 0, p * np.log(p / m), 0.0)
        b = np.where(p < 1, (1 - p) * np.log((1 - p) / (1 - m)), 0.0)
    return np.maximum(a + b, 0.0)


def _dkl(code, p, m, var):
    """Derivative of d(p, m) in m."""
    if code == GAUSSIAN:
        return (m - p) / var
    if code == GAUSSIAN_UV:
        return (m - p) / (var + (m - p) ** 2)
    m = np.clip(m, _EPS, 1.0 - _EPS)
    return (m - p) / (m * (1.0 - m))


def pair_terms(code, n_i, n_j, mu_i, mu_j, v_i, v_j, c=1.0, e=0.0, hessian=False):
    """Pair values c_ij(N_i, N_j) of the pieces {lambda_i <= c lambda_j - e}, gradients (g_i, g_j) and,
    optionally, Hessian entries.

    Vectorised over pairs.  Returns ``(c, g_i, g_j)`` or ``(c, g_i, g_j, h_ii, h_ij, h_jj)``.  Gradients by
    the envelope theorem at the minimiser (lambda_i, lambda_j).  The plain pieces (c, e) = (1, 0) merge the
    two means at the pooled mean m, whose derivatives in (N_i, N_j) have closed forms; a shifted piece's
    minimiser is :func:`~pybai.models._shifted.shifted_pair`'s, its Hessian entries by the implicit
    function theorem on the first-order condition c n_i d'(mu_i, c y - e) + n_j d'(mu_j, y) = 0 (zero
    where the minimiser sits at the edge y = 1 of a Bernoulli mean).
    """
    plain = c == 1.0 and e == 0.0
    if not plain:
        n_i, n_j, mu_i, mu_j, v_i, v_j = np.broadcast_arrays(*(np.ascontiguousarray(x, dtype=float) for x in
                                                               (n_i, n_j, mu_i, mu_j, v_i, v_j)))
        flat = [np.ascontiguousarray(x).ravel() for x in (n_i, mu_i, v_i, n_j, mu_j, v_j)]
        cost, la, lb = np.empty(flat[0].size), np.empty(flat[0].size), np.empty(flat[0].size)
        shifted_pair_arrays(code, *flat, float(c), float(e), cost, la, lb)
        la, lb = la.reshape(n_i.shape), lb.reshape(n_i.shape)
    elif code == GAUSSIAN:
        a, b = n_i / v_i, n_j / v_j
        s = a + b
        la = lb = (a * mu_i + b * mu_j) / s
        dm_i, dm_j = (mu_i - la) / (v_i * s), (mu_j - la) / (v_j * s)
    elif code == GAUSSIAN_UV:
        n_i, n_j, mu_i, mu_j, v_i, v_j = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in
                                                               (n_i, n_j, mu_i, mu_j, v_i, v_j)))
        la = lb = np.array([pooled_mean(code, *args) for args in zip(n_i.flat, mu_i.flat, v_i.flat, n_j.flat,
                                                                         mu_j.flat, v_j.flat)]).reshape(n_i.shape)
        # implicit function theorem on n_i d_i'(m) + n_j d_j'(m) = 0
        e_i, e_j = (la - mu_i) ** 2, (la - mu_j) ** 2
        curv = n_i * (v_i - e_i) / (v_i + e_i) ** 2 + n_j * (v_j - e_j) / (v_j + e_j) ** 2
        curv = np.where(curv > 0, curv, np.inf)
        dm_i, dm_j = -((la - mu_i) / (v_i + e_i)) / curv, -((la - mu_j) / (v_j + e_j)) / curv
    else:
        s = n_i + n_j
        la = lb = (n_i * mu_i + n_j * mu_j) / s
        dm_i, dm_j = (mu_i - la) / s, (mu_j - la) / s
    g_i, g_j = _kl(code, mu_i, la, v_i), _kl(code, mu_j, lb, v_j)
    val = n_i * g_i + n_j * g_j
    if not hessian:
        return val, g_i, g_j
    d_i, d_j = _dkl(code, mu_i, la, v_i), _dkl(code, mu_j, lb, v_j)
    if plain:
        return val, g_i, g_j, d_i * dm_i, d_i * dm_j, d_j * dm_j
    curv = c * c * n_i * _d2kl(code, mu_i, la, v_i) + n_j * _d2kl(code, mu_j, lb, v_j)
    inside = (lb < 1.0 - 1e-12) & (curv > 0)
    inv = np.where(inside, 1.0 / np.where(inside, curv, 1.0), 0.0)
    return val, g_i, g_j, -(c * d_i) ** 2 * inv, -c * d_i * d_j * inv, -d_j * d_j * inv


def _dual_bound(lam, g_i, g_j, pi, pj, n):
    """sum(lam) / max_a load_a: a lower bound on T* for lam >= 0 (see the module docstring)."""
    load = np.bincount(pi, lam * g_i, n) + np.bincount(pj, lam * g_j, n)
    top = load.max()
    return float(lam.sum() / top) if top > 0 else 0.0


def _lp_bound(g_i, g_j, pi, pj, n):
    """max sum(lam) s.t. G^T lam <= 1, lam >= 0 (tangent linearisation): a lower bound on T*."""
    from scipy import sparse  # here, as linprog: scipy.optimize costs ~0.3-0.5 s to import, and sessions never call this
    from scipy.optimize import linprog

    p = g_i.size
    rows = np.r_[pi, pj]
    cols = np.r_[np.arange(p), np.arange(p)]
    a_ub = sparse.csr_matrix((np.r_[g_i, g_j], (rows, cols)), shape=(n, p))
    res = linprog(-np.ones(p), A_ub=a_ub, b_ub=np.ones(n), bounds=(0, None), method="highs")
    if res.status != 0:
        return 0.0
    lam = np.maximum(res.x, 0.0)
    return _dual_bound(lam, g_i, g_j, pi, pj, n)  # re-checked: exact feasibility after rounding


def _d2kl(code, p, m, var):
    """Second derivative of d(p, m) in m."""
    if code == GAUSSIAN:
        return np.ones_like(m) / var
    if code == GAUSSIAN_UV:
        u = (m - p) ** 2
        return (var - u) / (var + u) ** 2
    m = np.clip(m, _EPS, 1.0 - _EPS)
    return p / (m * m) + (1.0 - p) / ((1.0 - m) * (1.0 - m))


def top_k_oracle(code: int, means: np.ndarray, var: np.ndarray, k: int, rtol: float = 1e-8,
                 shift: tuple[float, float] = (1.0, 0.0)) -> TopKOracleResult:
    """Solve the top-k lower-bound program (module docstring); ``code`` is a family code.

    Returns ``T* = inf`` and uniform weights on the arms tied at the boundary when the top-k
    set is not unique.  ``shift`` = (c, e) != (1, 0): the program of epsilon-top-k's pairwise rule,
    the pieces {lambda_i <= c lambda_j - e} (i in the top-k set of ``means``, ties by index, j
    outside); ``T = inf`` (uniform weights) when ``means`` lies in one of them.
    """
    means = np.asarray(means, dtype=float)
    var = np.asarray(var, dtype=float)
    n = means.size
    top, bot, unique = top_bottom(means, k)
    c_s, e_s = float(shift[0]), float(shift[1])
    plain = c_s == 1.0 and e_s == 0.0
    if plain and not unique:
        # T* is infinite; the weights' limit concentrates on the tied boundary arms
        tied = means == means[top[-1]]
        return TopKOracleResult(math.inf, tied / tied.sum(), math.inf, 0)
    pi, pj = np.repeat(top, bot.size), np.tile(bot, top.size)
    mu_i, mu_j, v_i, v_j = means[pi], means[pj], var[pi], var[pj]
    n_pairs = pi.size
    if not plain and not np.all(mu_i > c_s * mu_j - e_s):
        return TopKOracleResult(math.inf, np.full(n, 1.0 / n), math.inf, 0)
    if not plain and (code == GAUSSIAN or (code == GAUSSIAN_UV and c_s == 1.0)):
        # a location-scale family: the shifted piece of (i, j) is the plain piece of (i, j'), with
        # j' of mean c mu_j - e and variance c^2 v_j (same divergences, same gradients)
        mu_j, v_j = c_s * mu_j - e_s, (c_s * c_s * v_j if code == GAUSSIAN else v_j)
        c_s, e_s = 1.0, 0.0

    def terms(nn, hessian=False):
        return pair_terms(code, nn[pi], nn[pj], mu_i, mu_j, v_i, v_j, c_s, e_s, hessian)

    c_unit, _, _ = terms(np.ones(n))
    nn = np.full(n, 2.0 / c_unit.min())  # strictly feasible: c_p(N) >= 2
    t = n_pairs / nn.sum()
    lower, steps = 0.0, 0
    diag_i, diag_j, off_ij, off_ji = pi * (n + 1), pj * (n + 1), pi * n + pj, pj * n + pi
    for _ in range(_MAX_OUTER):
        for _ in range(_MAX_NEWTON):
            c, g_i, g_j, h_ii, h_ij, h_jj = terms(nn, hessian=True)
            s = c - 1.0
            grad = t - np.bincount(pi, g_i / s, n) - np.bincount(pj, g_j / s, n)
            s2 = s * s
            a, b, d = g_i * g_i / s2 - h_ii / s, g_i * g_j / s2 - h_ij / s, g_j * g_j / s2 - h_jj / s
            hess = (np.bincount(diag_i, a, n * n) + np.bincount(diag_j, d, n * n)
                    + np.bincount(off_ij, b, n * n) + np.bincount(off_ji, b, n * n)).reshape(n, n)
            try:
                # Cholesky (the barrier Hessian is positive definite); scipy's LAPACK call avoids
                # numpy.linalg.solve's slow threaded path on small matrices
                step_dir = -cho_solve(cho_factor(hess, check_finite=False), grad, check_finite=False)
            except (np.linalg.LinAlgError, ValueError):
                break
            dec = float(-grad @ step_dir)  # squared Newton decrement
            steps += 1
            if not dec > 2e-9:
                break
            step = 1.0
            neg = step_dir < 0
            if neg.any():
                step = min(1.0, 0.99 * float(np.min(-nn[neg] / step_dir[neg])))
            moved = False
            for _ in range(60):
                trial = nn + step * step_dir
                c_new, _, _ = terms(trial)
                if np.all(c_new > 1.0):
                    # f(trial) - f(nn), written as differences to avoid cancelling large terms
                    change = t * step * step_dir.sum() - np.log1p((c_new - c) / s).sum()
                    if change <= -0.25 * step * dec:
                        moved = True
                        break
                step *= 0.5
            if not moved:
                break  # centred as far as rounding allows
            nn = trial
        c, g_i, g_j = terms(nn)
        upper = nn.sum() / c.min()
        lower = max(lower, _dual_bound(1.0 / (t * (c - 1.0)), g_i, g_j, pi, pj, n))
        if upper - lower <= rtol * upper:
            break
        barrier_gap = n_pairs / (t * nn.sum())  # relative suboptimality of the central point
        if barrier_gap <= _LP_FROM:
            # the tangent LP at a near-central point is tight to second order in its distance
            lower = max(lower, _lp_bound(g_i, g_j, pi, pj, n))
            if upper - lower <= rtol * upper:
                break
        if barrier_gap <= 1e-14:
            break
        t *= _GROWTH
    c, g_i, g_j = terms(nn)
    upper = float(nn.sum() / c.min())
    if upper - lower > rtol * upper:
        lower = max(lower, _lp_bound(g_i, g_j, pi, pj, n))
    return TopKOracleResult(upper, nn / nn.sum(), min(lower, upper), steps)
