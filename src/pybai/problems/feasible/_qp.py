"""Numba kernels of BAICS: the whole alternative set at a weight matrix, solved exactly.

Best arm identification with fairness constraints on subpopulations (Wu, Zheng & Zhu).
Notation, the answer and the pieces of the alternative (feasibility pieces, challenger pieces
and the exact solution of one challenger piece's QP, with its derivatives) are in
:mod:`pybai.models._feasible_pieces`; this module takes the minimum over the pieces: the value
of the alternative (:func:`alt_value`), the GLR statistic (:func:`glr_kernel`), a supergradient
(:func:`alt_supergradient`), the degenerate instances (:func:`is_degenerate`) and the input checks.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from pybai.models._feasible_pieces import answer_kernel, challenger_piece, is_feasible, quality


@njit(cache=True)
def check_inputs(mu, q, floors, cmask, s2, w):
    """Shape and domain checks shared by the public entry points (raise ValueError)."""
    K = mu.shape[0]
    L = mu.shape[1]
    if K < 1 or L < 1:
        raise ValueError("means must be a non-empty (K, L) array")
    if q.shape[0] != L or floors.shape[0] != L or cmask.shape[0] != L:
        raise ValueError("weights, floors and constrained must have length L")
    if s2.shape[0] != K or s2.shape[1] != L:
        raise ValueError("sigma2 must have shape (K, L)")
    if w.shape[0] != K or w.shape[1] != L:
        raise ValueError("counts / weights must have shape (K, L)")
    for l in range(L):
        if not (q[l] > 0.0 and q[l] < math.inf):
            raise ValueError("importance weights q must be positive and finite")
        if not math.isfinite(floors[l]):
            raise ValueError("floors must be finite")
    for k in range(K):
        for l in range(L):
            if not math.isfinite(mu[k, l]):
                raise ValueError("means must be finite")
            if not (s2[k, l] > 0.0 and s2[k, l] < math.inf):
                raise ValueError("sigma2 must be positive and finite")
            if not (w[k, l] >= 0.0 and w[k, l] < math.inf):
                raise ValueError("counts / weights must be non-negative and finite")


@njit(cache=True)
def is_degenerate(mu, q, floors, cmask, a):
    """True when inf over Alt is 0 for every w (T* infinite).

    Happens iff a feasible answer ``a`` has a constrained mean exactly on its floor or
    another feasible arm has exactly the same quality.  With no feasible arm every arm
    strictly violates a floor, so that case is never degenerate.
    """
    if a < 0:
        return False
    for l in range(mu.shape[1]):
        if cmask[l] and mu[a, l] == floors[l]:
            return True
    qa = quality(mu, q, a)
    for k in range(mu.shape[0]):
        if k != a and is_feasible(mu, floors, cmask, k) and quality(mu, q, k) == qa:
            return True
    return False


@njit(cache=True)
def _cheapest_feasible(mu, s2, floors, cmask, w):
    """(value, arm) of the cheapest way to make one arm feasible (first arm on ties)."""
    best = math.inf
    kbest = 0
    for k in range(mu.shape[0]):
        v = 0.0
        for l in range(mu.shape[1]):
            if cmask[l] and mu[k, l] < floors[l]:
                dl = floors[l] - mu[k, l]
                v += w[k, l] * dl * dl / (2.0 * s2[k, l])
        if v < best:
            best = v
            kbest = k
    return best, kbest


@njit(cache=True)
def no_feasible_value(mu, s2, floors, cmask, w):
    """inf over Alt when no arm is feasible: cheapest way to make one arm feasible."""
    return _cheapest_feasible(mu, s2, floors, cmask, w)[0]


@njit(cache=True)
def _best_piece(mu, s2, q, floors, cmask, w, a):
    """(value, kind, which) of the minimising piece of Alt for a feasible answer ``a``.

    ``kind`` 0: the feasibility piece of constrained subpopulation ``which``; 1: the challenger
    piece of arm ``which``; -1: no piece (value inf).  First piece on ties: feasibility pieces
    in subpopulation order, then challengers in arm order.
    """
    K = mu.shape[0]
    L = mu.shape[1]
    val = math.inf
    kind = -1
    which = -1
    for l in range(L):
        if cmask[l]:
            dl = mu[a, l] - floors[l]
            v = w[a, l] * dl * dl / (2.0 * s2[a, l])
            if v < val:
                val = v
                kind = 0
                which = l
    grad = np.empty(0)
    hess = np.empty((0, 0))
    brk = np.empty(L)
    state = np.empty(L, dtype=np.int64)
    for b in range(K):
        if b == a:
            continue
        v = challenger_piece(mu, s2, q, floors, cmask, a, b, w, grad, hess, 0, brk, state)
        if v < val:
            val = v
            kind = 1
            which = b
    return val, kind, which


@njit(cache=True)
def alt_value(mu, s2, q, floors, cmask, w, a):
    """inf_{lambda in Alt(mu)} sum w d(mu, lambda) for the answer ``a`` of ``mu``."""
    if a < 0:
        return no_feasible_value(mu, s2, floors, cmask, w)
    return _best_piece(mu, s2, q, floors, cmask, w, a)[0]


@njit(cache=True)
def glr_kernel(counts, mu, q, floors, cmask, s2):
    """GLR statistic of the empirical answer; validates its inputs."""
    check_inputs(mu, q, floors, cmask, s2, counts)
    a = answer_kernel(mu, q, floors, cmask)
    return alt_value(mu, s2, q, floors, cmask, counts, a)


@njit(cache=True)
def alt_supergradient(mu, s2, q, floors, cmask, w, a, out):
    """Value of inf over Alt at ``w`` and the divergence vector of a minimiser in ``out``.

    ``out`` (K, L) receives d(mu, lambda*) for the minimising piece (first one on ties),
    so that ``value == sum(out * w)``: a supergradient of the concave map w -> value.
    """
    K = mu.shape[0]
    L = mu.shape[1]
    for k in range(K):
        for l in range(L):
            out[k, l] = 0.0
    if a < 0:
        best, kbest = _cheapest_feasible(mu, s2, floors, cmask, w)
        for l in range(L):
            if cmask[l] and mu[kbest, l] < floors[l]:
                dl = floors[l] - mu[kbest, l]
                out[kbest, l] = dl * dl / (2.0 * s2[kbest, l])
        return best
    val, kind, which = _best_piece(mu, s2, q, floors, cmask, w, a)
    if kind == 0:
        dl = mu[a, which] - floors[which]
        out[a, which] = dl * dl / (2.0 * s2[a, which])
    elif kind == 1:
        grad = np.empty(2 * L)
        challenger_piece(mu, s2, q, floors, cmask, a, which, w, grad, np.empty((0, 0)), 1, np.empty(L),
                         np.empty(L, dtype=np.int64))
        for l in range(L):
            out[a, l] = grad[l]
            out[which, l] = grad[L + l]
    return val
