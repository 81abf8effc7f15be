"""Best arm identification with fairness constraints on subpopulations (BAICS): exact math.

Reference: Y. Wu, Z. Zheng, T. Zhu, "Best Arm Identification with Fairness Constraints on
Subpopulations" (sections 2-4, Theorem 3.2, equations (6)-(8), (10)).

Model
-----
``K`` arms x ``L`` subpopulations; observations of cell (k, l) are N(mu[k, l], sigma2[k, l])
with known variance.  ``weights`` q (length L, positive; only used through q / sum(q),
which is what is done here) gives the quality ``mu_k = sum_l q_l mu[k, l]``.
``constrained`` (boolean mask, the paper's [M]) and ``floors`` (length L, the paper uses 0)
define feasibility: arm k is feasible iff ``mu[k, l] >= floors[l]`` for every constrained l.
The answer is the feasible arm of largest quality, or -1 when no arm is feasible (the
paper's k* = 0).

Generalisation of the paper (sigma = 1, floors = 0): everything is shifted by the floors
and the Gaussian KL of a cell is ``d[k,l](x, y) = (x - y)^2 / (2 sigma2[k, l])``.  With this
convention

* ``feasible_glr`` is Z(t) = inf_{lambda in Alt(mu_hat)} sum N[k,l] d[k,l](mu_hat, lambda),
  i.e. the paper's (10), equal to (t/2) F_{mu_hat}(N/t) when sigma = 1 (the paper's F has no
  1/2 factor);
* ``feasible_oracle`` returns T*(mu) with T*(mu)^{-1} = max_w inf_Alt sum w d, i.e. the
  paper's (6) (its 1/2 is inside d), so E[tau_delta] >= T*(mu) kl(delta, 1 - delta).

The alternative of a feasible answer ``a`` is the union of "a infeasible" (one constrained
cell of a at its floor, the paper's f_fea) and "some b != a feasible with q . lambda_b >=
q . lambda_a" (the paper's f_opt; the paper writes lambda_k = sum_l lambda_{k,l} in
Theorem 3.2 but the quality, and its proof, are q-weighted: lambda_k = sum_l q_l lambda_{k,l}).
The inner QPs are solved exactly (see ``pybai.models._feasible_pieces``), the outer maximisation by an
interior-point method (see ``_feasible_outer``).

Sampling models (``sampling`` argument of ``feasible_oracle``)
---------------------------------------------------------------
* ``"pair"``: the learner picks the cell (k, l); w ranges over the simplex of K x L.
* ``"arm"``: the learner picks the arm, the subpopulation arrives with probability q_l,
  so ``w[k, l] = v_k q_l`` with v in the simplex over arms.

Degenerate instances (T* infinite): the answer is feasible and either one of its
constrained means is exactly on the floor or another feasible arm has exactly the same
quality.  ``feasible_oracle`` then returns ``(inf, uniform weights)`` and ``feasible_glr``
returns 0.  With no feasible arm every arm strictly violates a floor, so that case is never
degenerate and has the closed form (7):

* pair: T* = sum_k 1 / D_k with D_k = max over violated constrained l of
  d[k,l](mu[k,l], floors[l]), w puts mass (1/D_k)/T* on one maximising cell of each arm
  (lowest l on ties);
* arm: T* = sum_k 1 / E_k with E_k = sum over violated constrained l of q_l d[k,l](...),
  v_k = (1/E_k)/T*.
"""

from __future__ import annotations

import math

import numpy as np

from pybai.exceptions import InvalidParameterError
from pybai.problems.feasible._outer import solve_barrier
from pybai.problems.feasible.cells import SAMPLING_MODELS
from pybai.models._feasible_pieces import answer_kernel
from pybai.problems.feasible._qp import (
    alt_supergradient,
    check_inputs,
    glr_kernel,
    is_degenerate,
)

__all__ = [
    "feasible_answer",
    "feasible_glr",
    "feasible_oracle",
    "feasible_subgradient_step",
    "feasible_alt_value",
    "project_simplex",
]

_WARM_MIX = 0.01
_WARM_MUB = 0.01


def _vec(x, L, name):
    a = np.array(x, dtype=np.float64, order="C")
    if a.ndim == 0:
        a = np.full(L, float(a))
    if a.ndim != 1:
        raise InvalidParameterError(f"{name} must be a scalar or a vector of length L")
    return a


def _prepare(means, weights, constrained, floors, sigma2=1.0, w=None):
    """Validated float64 copies ``(mu, q, floors, cmask, s2, w)``; q is normalised.

    Every array is a fresh C-contiguous, writable copy: the kernels are compiled (and cached by
    ``pybai precompile``) for that one layout, and a transposed or column-indexed input
    (``means[:, order]`` is Fortran-ordered) or a read-only one (a model's means are read-only
    views, a user's array may be too) would otherwise make numba compile each kernel again for
    its type (about 15 s of CPU on the first call of a process; the values computed are the same).
    """
    mu = np.array(means, dtype=np.float64, order="C")
    if mu.ndim != 2:
        raise InvalidParameterError("means must be a (K, L) array")
    K, L = mu.shape
    q = _vec(weights, L, "weights")
    f = _vec(floors, L, "floors")
    c = np.asarray(constrained)
    if c.ndim != 1:
        raise InvalidParameterError("constrained must be a boolean mask of length L")
    c = c.astype(np.bool_, order="C")
    s2 = np.array(sigma2, dtype=np.float64, order="C")
    if s2.ndim == 0:
        s2 = np.full((K, L), float(s2))
    ww = np.zeros((K, L)) if w is None else np.array(w, dtype=np.float64, order="C")
    if mu.size == 0:
        raise InvalidParameterError("means must be a non-empty (K, L) array")
    if ww.ndim != 2 or s2.ndim != 2:
        raise InvalidParameterError("counts / weights and sigma2 must be (K, L) arrays")
    try:
        check_inputs(mu, q, f, c, s2, ww)
    except ValueError as exc:  # raised inside the numba kernel, which knows only built-in errors
        raise InvalidParameterError(str(exc)) from None
    q = q / q.sum()
    return mu, q, f, c, s2, ww


def feasible_answer(means, weights, constrained, floors=0.0) -> int:
    """Feasible arm of largest quality ``sum_l q_l means[k, l]``, or -1 if none is feasible.

    Arm k is feasible iff ``means[k, l] >= floors[l]`` for every constrained l (a mean exactly
    on its floor is feasible).  Exact ties in quality among feasible arms are broken towards
    the lowest index (such instances are degenerate: see ``feasible_oracle``).
    """
    mu, q, f, c, _, _ = _prepare(means, weights, constrained, floors)
    return int(answer_kernel(mu, q, f, c))


def feasible_glr(counts, means, weights, constrained, floors=0.0, sigma2=1.0) -> float:
    """GLR statistic of the empirical answer of ``means`` (the paper's Z(t), equation (10)).

    ``inf_{lambda in Alt(means)} sum_{k,l} counts[k,l] (means[k,l] - lambda[k,l])^2
    / (2 sigma2[k,l])`` where Alt is the set of mean matrices whose answer differs from
    ``feasible_answer(means, ...)``.  Equals (t/2) F_{mu_hat}(counts/t) in the paper's
    notation when sigma2 = 1.  Cells with zero count move freely (cost 0), so the statistic
    is the exact infimum (possibly not attained).  Returns 0 for degenerate empirical
    instances (quality ties among feasible arms, answer mean on a floor) and +inf when the
    alternative is empty (a single arm and no constrained subpopulation).

    ``means`` must be finite everywhere (use any finite placeholder for unsampled cells:
    it only matters through the empirical answer).  Only ratios of ``weights`` matter.
    """
    mu = np.array(means, dtype=np.float64, order="C")
    if mu.ndim != 2:
        raise InvalidParameterError("means must be a (K, L) array")
    K, L = mu.shape
    q = np.array(weights, dtype=np.float64, order="C")
    f = np.array(floors, dtype=np.float64, order="C")
    if f.ndim == 0:
        f = np.full(L, float(f))
    s2 = np.array(sigma2, dtype=np.float64, order="C")
    if s2.ndim == 0:
        s2 = np.full((K, L), float(s2))
    n = np.array(counts, dtype=np.float64, order="C")
    c = np.array(constrained, dtype=np.bool_, order="C")
    if q.ndim != 1 or f.ndim != 1 or c.ndim != 1 or s2.ndim != 2 or n.ndim != 2:
        raise InvalidParameterError("bad dimensions: expected counts/means/sigma2 (K, L) and q/floors/constrained (L,)")
    return float(glr_kernel(n, mu, q, f, c, s2))


def feasible_alt_value(w, means, weights, constrained, floors=0.0, sigma2=1.0) -> float:
    """``inf_{lambda in Alt(means)} sum w d(means, lambda)`` for a (K, L) weight matrix.

    Same quantity as ``feasible_glr`` (with weights instead of counts); for w in the
    simplex it is the paper's F_mu(w) / 2 when sigma2 = 1.
    """
    return feasible_glr(w, means, weights, constrained, floors, sigma2)


def project_simplex(x):
    """Euclidean projection of a vector (any shape, flattened) onto the probability simplex."""
    x = np.asarray(x, dtype=np.float64)
    v = x.ravel()
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - 1.0
    idx = np.arange(1, v.size + 1)
    rho = np.nonzero(u - css / idx > 0)[0][-1]
    theta = css[rho] / (rho + 1.0)
    return np.maximum(v - theta, 0.0).reshape(x.shape)


def _no_feasible_oracle(mu, q, f, c, s2, arm_mode):
    K, L = mu.shape
    viol = c[None, :] & (mu < f[None, :])
    d = np.where(viol, (f[None, :] - mu) ** 2 / (2.0 * s2), 0.0)
    if arm_mode:
        E = d @ q
        T = float(np.sum(1.0 / E))
        v = (1.0 / E) / T
        return T, np.outer(v, q)
    lk = np.argmax(d, axis=1)
    D = d[np.arange(K), lk]
    T = float(np.sum(1.0 / D))
    w = np.zeros((K, L))
    w[np.arange(K), lk] = (1.0 / D) / T
    return T, w


def feasible_oracle(means, weights, constrained, floors=0.0, sigma2=1.0, sampling="pair",
                    warm_start=None, tol=1e-10):
    """Characteristic time T*(mu) and optimal sampling weights (Theorem 3.2).

    Returns ``(T_star, w)`` with ``T_star^{-1} = max_w inf_{lambda in Alt(mu)} sum_{k,l}
    w[k,l] (mu[k,l] - lambda[k,l])^2 / (2 sigma2[k,l])`` (the paper's (6)) and ``w`` a (K, L)
    maximiser summing to 1 (not unique in general).

    * no feasible arm: closed form (7) (see the module docstring);
    * feasible answer: max_w min(f_opt, f_fea) of (8), generalised to floors, per-cell
      variances and q-weighted qualities, solved to relative accuracy ``tol`` on T*^{-1}
      (interior point with exact inner QPs; the returned ``T_star`` is ``1 / F(w)`` for the
      returned ``w``, hence an upper bound on the true T* within that accuracy).

    ``sampling="arm"`` restricts to ``w[k, l] = v_k q_l`` (q normalised).  ``warm_start``:
    a previous (K, L) weight matrix (or length-K arm distribution for "arm"), used as the
    interior starting point after mixing with the uniform weights.  Degenerate instances
    (answer mean exactly on a floor, exact quality tie among feasible arms) return
    ``(inf, uniform)``; a single arm with no constrained subpopulation (empty alternative)
    returns ``(0.0, uniform)``.
    """
    if sampling not in SAMPLING_MODELS:
        raise InvalidParameterError(f"sampling must be one of {SAMPLING_MODELS}, got {sampling!r}")
    if not (tol > 0):
        raise InvalidParameterError("tol must be positive")
    mu, q, f, c, s2, _ = _prepare(means, weights, constrained, floors, sigma2)
    K, L = mu.shape
    arm_mode = sampling == "arm"
    uniform = np.outer(np.full(K, 1.0 / K), q) if arm_mode else np.full((K, L), 1.0 / (K * L))
    a = int(answer_kernel(mu, q, f, c))
    if a < 0:
        return _no_feasible_oracle(mu, q, f, c, s2, arm_mode)
    if K == 1 and not c.any():
        return 0.0, uniform
    if is_degenerate(mu, q, f, c, a):
        return math.inf, uniform
    n = K if arm_mode else K * L
    u0 = np.full(n, 1.0 / n)
    mub_scale = 1.0
    if warm_start is not None:
        ws = np.asarray(warm_start, dtype=np.float64)
        if arm_mode and ws.shape == (K, L):
            ws = ws.sum(axis=1)
        ws = ws.ravel()
        if ws.shape == (n,) and np.all(np.isfinite(ws)) and np.all(ws >= 0) and ws.sum() > 0:
            u0 = (1.0 - _WARM_MIX) * ws / ws.sum() + _WARM_MIX * u0
            mub_scale = _WARM_MUB
    u, val, _ = solve_barrier(mu, s2, q, f, c, a, arm_mode, u0, float(tol), mub_scale)
    if not (val > 0):
        return math.inf, uniform
    w = np.outer(u, q) if arm_mode else u.reshape(K, L).copy()
    return 1.0 / float(val), w


def feasible_subgradient_step(w, means, weights, constrained, floors=0.0, sigma2=1.0, step=1.0,
                              sampling="pair"):
    """One projected supergradient ascent step on the paper's F_mu (section 4.1).

    ``w_new = P_simplex(w + step * c)`` where ``c`` is the divergence vector of a minimiser
    lambda* of the alternative at ``w`` in the paper's scaling (its F has no 1/2 factor):
    ``c[k, l] = (mu[k, l] - lambda*[k, l])^2 / sigma2[k, l]``, so that F_mu(w) = c . w and
    ``step=1`` is the paper's choice.  With no feasible arm the same step is taken on (7).
    Zero entries of ``w`` are replaced by 1e-12 to evaluate c (the one-sided derivative at
    the boundary is finite; the infimum is not attained there).  With ``sampling="arm"`` the
    step is taken on the arm weights v = w.sum(axis=1) (gradient ``c @ q``) and the result is
    ``outer(v, q)``.
    """
    mu, q, f, c, s2, ww = _prepare(means, weights, constrained, floors, sigma2, w)
    a = int(answer_kernel(mu, q, f, c))
    weff = np.where(ww > 0, ww, 1e-12)
    out = np.zeros_like(mu)
    alt_supergradient(mu, s2, q, f, c, weff, a, out)
    if sampling == "arm":
        return np.outer(project_simplex(ww.sum(axis=1) + step * 2.0 * (out @ q)), q)
    return project_simplex(ww + step * 2.0 * out)
