"""Numba kernels shared by the best-feasible-arm problem and its stopping rule: the answer and one piece.

Best arm identification with fairness constraints on subpopulations (Wu, Zheng & Zhu).
Arms ``k < K``, subpopulations ``l < L``; Gaussian cells N(mu[k, l], s2[k, l]); quality
``q . mu[k]``; arm ``k`` is feasible iff ``mu[k, l] >= floors[l]`` for every constrained
``l`` (``cmask[l]``).  ``d[k, l](x, y) = (x - y)^2 / (2 s2[k, l])`` is the Gaussian KL.

For a weight (or count) matrix ``w >= 0`` and the answer ``a >= 0`` of ``mu``
(:func:`answer_kernel`), the alternative set is the union of

* the *feasibility* pieces ``{lambda[a, l] <= floors[l]}`` for constrained ``l``: value
  ``w[a, l] d[a, l](mu[a, l], floors[l])`` (the paper's f_fea, floors shifted);
* the *challenger* pieces ``{q . lambda[b] >= q . lambda[a], lambda[b, l] >= floors[l]
  for constrained l}`` for ``b != a`` (the paper's f_opt; note the q-weighted quality):
  :func:`challenger_piece`.

Why here, below both users: the problem reads the pieces at its counts and weights (GLR, oracle:
:mod:`pybai.problems.feasible._qp`, :mod:`pybai.problems.feasible._outer`) and the stopping rule
reads them at effective counts (:mod:`pybai.stopping.feasible`); the stopping layer may not import
the problems.  Like the pair costs of :mod:`pybai.models._kl` (the two-arm pieces of best arm and
top-k), these are divergences to the alternative, pure numba with no import from the package.

A challenger piece is the convex QP (only rows ``a`` and ``b`` move)

    min  sum_l w[a,l] d(mu[a,l], x_l) + sum_l w[b,l] d(mu[b,l], y_l)
    s.t. q . y >= q . x,   y_l >= f_l  (constrained l).

KKT with multiplier nu >= 0 of the quality constraint gives
``x_l = mu[a,l] - nu q_l s2[a,l] / w[a,l]`` and
``y_l = max(f_l, mu[b,l] + nu q_l s2[b,l] / w[b,l])`` (the max only for constrained l),
so ``q . y(nu) - q . x(nu)`` is piecewise linear and nondecreasing in nu, with one
breakpoint ``nu_l = (f_l - mu[b,l]) w[b,l] / (q_l s2[b,l])`` per cell of ``b`` below its
floor.  Walking the sorted breakpoints gives the exact nu*, the set S of cells still
clamped at their floor, and the closed form

    value = sum_{l in S} w[b,l] d(mu[b,l], f_l) + G_S^2 / (2 U_S),
    G_S = q . mu[a] - sum_{l not in S} q_l mu[b,l] - sum_{l in S} q_l f_l     (> 0),
    U_S = sum_l q_l^2 s2[a,l] / w[a,l] + sum_{l not in S} q_l^2 s2[b,l] / w[b,l],

(value = the clamping cost alone when the gap after clamping is <= 0).  A zero weight
in row ``a`` or in an unclamped cell of row ``b`` makes U infinite: the gap closes for
free by moving that cell, which is the exact infimum (not attained).

The closed form is smooth in w for a fixed S and C^1 across changes of S (Danskin):
the gradient is the divergence vector of the minimiser, and for the cells in U (with
``z_i = r_i / w_i^2``, ``r_i = q_l^2 s2_i``, ``nu = G/U``) the Hessian is
``(nu^2 / U) z z^T - diag(nu^2 z_i / w_i)`` (negative semidefinite, ``H w = 0``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["is_feasible", "quality", "answer_kernel", "challenger_piece"]


@njit(cache=True)
def is_feasible(mu, floors, cmask, k):
    """Arm k meets every constrained floor (a mean on its floor counts as feasible)."""
    for l in range(mu.shape[1]):
        if cmask[l] and mu[k, l] < floors[l]:
            return False
    return True


@njit(cache=True)
def quality(mu, q, k):
    """q-weighted quality of arm k."""
    v = 0.0
    for l in range(mu.shape[1]):
        v += q[l] * mu[k, l]
    return v


@njit(cache=True)
def answer_kernel(mu, q, floors, cmask):
    """Feasible arm of largest quality (lowest index on ties), -1 if none is feasible."""
    best = -1
    best_val = -math.inf
    for k in range(mu.shape[0]):
        if is_feasible(mu, floors, cmask, k):
            v = quality(mu, q, k)
            if best < 0 or v > best_val:
                best = k
                best_val = v
    return best


@njit(cache=True)
def challenger_piece(mu, s2, q, floors, cmask, a, b, w, grad, hess, need, brk, state):
    """Exact value of the challenger piece (b overtakes a), with derivatives.

    ``w`` is (K, L).  ``need``: 0 value only; 1 also ``grad`` (2L: row a then row b, the
    divergence vector of the minimiser, i.e. a supergradient); 2 also ``hess`` (2L, 2L).
    ``brk`` (L floats) and ``state`` (L ints) are scratch.  With a zero weight that makes
    the infimum unattained the returned gradient is only the clamping part (callers that
    need a supergradient there perturb w).
    """
    L = mu.shape[1]
    if need >= 1:
        for i in range(2 * L):
            grad[i] = 0.0
    if need >= 2:
        for i in range(2 * L):
            for j in range(2 * L):
                hess[i, j] = 0.0
    gap = 0.0  # quality gap after raising the violated cells of b to their floors
    U = 0.0
    base = 0.0
    free = False
    nviol = 0
    for l in range(L):
        gap += q[l] * mu[a, l]
        if w[a, l] > 0.0:
            U += q[l] * q[l] * s2[a, l] / w[a, l]
        else:
            free = True
    for l in range(L):
        wb = w[b, l]
        if cmask[l] and mu[b, l] < floors[l]:
            dl = floors[l] - mu[b, l]
            gap -= q[l] * floors[l]
            c = dl * dl / (2.0 * s2[b, l])
            base += wb * c
            if need >= 1:
                grad[L + l] = c
            state[l] = 1
            nviol += 1
            if wb > 0.0:
                brk[l] = dl * wb / (q[l] * s2[b, l])
            else:
                brk[l] = 0.0
                free = True
        else:
            state[l] = 0
            gap -= q[l] * mu[b, l]
            if wb > 0.0:
                U += q[l] * q[l] * s2[b, l] / wb
            else:
                free = True
    if gap <= 0.0 or free:
        return base
    # walk the breakpoints in increasing order (at most L of them)
    off = gap
    for _ in range(nviol):
        j = -1
        for l in range(L):
            if state[l] == 1 and (j < 0 or brk[l] < brk[j]):
                j = l
        if off / U <= brk[j]:
            break
        r = q[j] * q[j] * s2[b, j] / w[b, j]
        U += r
        off += q[j] * (floors[j] - mu[b, j])
        dl = floors[j] - mu[b, j]
        base -= w[b, j] * dl * dl / (2.0 * s2[b, j])
        state[j] = 2
    nu = off / U
    val = base + 0.5 * off * nu
    if need >= 1:
        for l in range(L):
            disp = nu * q[l] * s2[a, l] / w[a, l]
            grad[l] = disp * disp / (2.0 * s2[a, l])
            if state[l] != 1:
                disp = nu * q[l] * s2[b, l] / w[b, l]
                grad[L + l] = disp * disp / (2.0 * s2[b, l])
    if need >= 2:
        nu2 = nu * nu
        # per coordinate i of (row a, row b): its weight, z_i = q_l^2 s2 / w^2, and whether it moves
        wv = np.empty(2 * L)
        zv = np.empty(2 * L)
        for i in range(2 * L):
            k = a if i < L else b
            l = i if i < L else i - L
            wv[i] = w[k, l]
            zv[i] = q[l] * q[l] * s2[k, l] / (wv[i] * wv[i])
        for i in range(2 * L):
            if i >= L and state[i - L] == 1:
                continue
            for j in range(2 * L):
                if j >= L and state[j - L] == 1:
                    continue
                hess[i, j] = nu2 * zv[i] * zv[j] / U
            hess[i, i] -= nu2 * zv[i] / wv[i]
    return val
