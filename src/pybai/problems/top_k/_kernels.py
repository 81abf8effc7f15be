"""Numba kernels of top-k identification: GLR statistic and nature's best response.

Both take the top set and the bottom set as index arrays (from
:func:`pybai.problems.top_k._oracle.top_bottom`) and scan the k (n - k) pairs (i in top,
j in bottom).  For a pair, the closest alternative in which j beats i merges the two means
at the pooled mean m (every other arm unchanged), with cost
inf_m N_i d(mu_i, m) + N_j d(mu_j, m) (:func:`pybai.models._kl.pair_cost`); the alternative
to "the top-k set is S" is the union of these k (n - k) pieces.

Every kernel takes the shift (c, e) of the pieces {lambda_i <= c lambda_j - e} of
:mod:`pybai.models._shifted`: (1, 0) the plain pieces above; with epsilon-top-k their union
contains every mean vector for which S is not epsilon-top-k (docs/epsilon.md).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from pybai.models._kl import kl
from pybai.models._shifted import shifted_pair, shifted_pair_cost


@njit(cache=True)
def glr_top_k(code, counts, means, var, top, bot, c, e):
    """min over (i in top, j in bot) of the cost of the piece {lambda_i <= c lambda_j - e} (inf if no pair).

    Costs with weights ``counts`` (:func:`~pybai.models._shifted.shifted_pair_cost`; (c, e) = (1, 0):
    the plain pieces {lambda_j >= lambda_i}); NaN while a variance is not estimated
    (unknown-variance family): no evidence.
    """
    z = math.inf
    for a in range(top.shape[0]):
        i = top[a]
        for b in range(bot.shape[0]):
            j = bot[b]
            cost = shifted_pair_cost(code, counts[i], means[i], var[i], counts[j], means[j], var[j], c, e)
            if cost != cost:
                return math.nan
            if cost < z:
                z = cost
    return z


@njit(cache=True)
def alt_gradient_top_k(code, w, means, var, top, bot, c, e, out):
    """Nature's best response to allocation ``w``: fills ``out`` and returns the value.

    value = min over pairs (i in top, j in bot) of the cost of the piece {lambda_i <= c lambda_j - e}
    at weights ``w``; ``out`` gets d(mu_i, lambda*_i), d(mu_j, lambda*_j) at the minimising pair
    (first in scan order on ties), zeros elsewhere, so value == sum(w * out) and ``out`` is a
    supergradient of the concave map w -> value.
    """
    for a in range(out.shape[0]):
        out[a] = 0.0
    val = math.inf
    bi, bj = -1, -1
    for a in range(top.shape[0]):
        i = top[a]
        wi = max(w[i], 1e-300)
        for b in range(bot.shape[0]):
            j = bot[b]
            cost = shifted_pair_cost(code, wi, means[i], var[i], max(w[j], 1e-300), means[j], var[j], c, e)
            if cost < val:
                val, bi, bj = cost, i, j
    if bi < 0:
        return 0.0
    _, li, lj = shifted_pair(code, max(w[bi], 1e-300), means[bi], var[bi], max(w[bj], 1e-300), means[bj], var[bj],
                             c, e)
    out[bi] = kl(code, means[bi], li, var[bi])
    out[bj] = kl(code, means[bj], lj, var[bj])
    return val


@njit(cache=True)
def top_bottom_kernel(means, k):
    """:func:`~pybai.problems.top_k._oracle.top_bottom` in compiled code: ``(top, bot, unique)``.

    The order of ``np.lexsort((arange(n), -means))``, decreasing means with ties to the lowest index
    (a NaN mean last): a stable merge sort of ``-means``.  The top set is its first ``k`` indices in
    that order, the bottom set the rest, so the scans of :func:`glr_top_k` and
    :func:`alt_gradient_top_k` visit the pairs in the order the Python methods do.
    """
    order = np.argsort(-means, kind="mergesort")
    return order[:k], order[k:], means[order[k - 1]] > means[order[k]]


@njit(cache=True)
def top_k_statistic(code, counts, means, var, k, c, e):
    """:meth:`TopKProblem.glr`: 0 with a NaN mean, or with a tie at the boundary and the plain pieces
    (c, e) = (1, 0); else :func:`glr_top_k` (shifted pieces: positive on ties too)."""
    for a in range(means.shape[0]):
        if means[a] != means[a]:
            return 0.0
    top, bot, unique = top_bottom_kernel(means, k)
    if not unique and c == 1.0 and e == 0.0:
        return 0.0
    return glr_top_k(code, counts, means, var, top, bot, c, e)


@njit(cache=True)
def top_k_mask(means, k):
    """:meth:`TopKProblem.answer_mask`: True at the top set of :func:`top_bottom_kernel`."""
    top, _, _ = top_bottom_kernel(means, k)
    mask = np.zeros(means.shape[0], dtype=np.bool_)
    for a in range(top.shape[0]):
        mask[top[a]] = True
    return mask


@njit(cache=True)
def top_k_alt_gradient(code, w, means, var, out, k, c, e):
    """:meth:`TopKProblem.alt_gradient`: (0, zeros) with a tie at the boundary and the plain pieces,
    else :func:`alt_gradient_top_k`."""
    top, bot, unique = top_bottom_kernel(means, k)
    if not unique and c == 1.0 and e == 0.0:
        for a in range(out.shape[0]):
            out[a] = 0.0
        return 0.0
    return alt_gradient_top_k(code, w, means, var, top, bot, c, e, out)


@njit(cache=True)
def shifted_pair_arrays(code, n_i, mu_i, v_i, n_j, mu_j, v_j, c, e, cost, lam_i, lam_j):
    """:func:`~pybai.models._shifted.shifted_pair` over arrays of pairs (fills cost and the minimisers)."""
    for p in range(n_i.shape[0]):
        cost[p], lam_i[p], lam_j[p] = shifted_pair(code, n_i[p], mu_i[p], v_i[p], n_j[p], mu_j[p], v_j[p], c, e)
