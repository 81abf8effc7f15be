"""The goals' kernels as compiled loops call them: by the goal code of :class:`~pybai.problems.run_kernels.RunKernels`.

Each function is the kernel the problem's Python method calls (same arguments, same arithmetic),
with the shift (c, e) of the problem's pieces (:attr:`~pybai.problems.base.Problem.shift`; (1, 0):
the plain pieces, another shift: an answer tolerance).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pybai.problems.best_arm._answers import tracking_weights
from pybai.problems.best_arm._kernels import alt_gradient_best_arm, glr_best_arm
from pybai.problems.run_kernels import TOP_K
from pybai.problems.top_k._kernels import top_bottom_kernel, top_k_alt_gradient, top_k_mask, top_k_statistic

__all__ = ["run_glr", "run_tracking_weights", "run_mask", "run_alt_gradient", "run_pieces"]

# The compiled loops call these by a goal code, not by passing numba functions as arguments:
# functions passed as arguments make numba types that hold weak references, which failed in Dask
# workers ("underlying object has vanished").  A goal adds its branch here.


@njit(cache=True)
def best_arm_mask(means):
    """True at the first largest mean (``np.argmax``), False elsewhere."""
    mask = np.zeros(means.shape[0], dtype=np.bool_)
    mask[np.argmax(means)] = True
    return mask


@njit(cache=True)
def run_glr(kind, code, counts, means, var, k, c, e):
    """:meth:`Problem.statistic`: the GLR statistic of the empirical answer."""
    if kind == TOP_K:
        return top_k_statistic(code, counts, means, var, k, c, e)
    return glr_best_arm(code, counts, means, var, c, e)[0]


@njit(cache=True)
def run_tracking_weights(kind, code, counts, means, var, t, c, e, hint):
    """:meth:`Problem.tracking_weights` after ``t`` samples, with the warm-start ``hint`` (updated in place).

    Best arm only: the top-k oracle is an interior-point method in Python, and no tracking rule plays
    top-k (the rules with a compiled loop on top-k are ``uniform``, ``lucb`` and ``game``).  Plain pieces: the oracle weights (on Bernoulli arms the solve starts with a joint Newton
    step from ``hint``); an answer tolerance: Sticky Track-and-Stop's
    (:func:`~pybai.problems.best_arm._answers.tracking_weights`).
    """
    return tracking_weights(code, counts, means, var, t, c, e, hint)


@njit(cache=True)
def run_mask(kind, means, k):
    """:meth:`Problem.answer_mask`."""
    if kind == TOP_K:
        return top_k_mask(means, k)
    return best_arm_mask(means)


@njit(cache=True)
def run_alt_gradient(kind, code, w, means, var, out, k, c, e):
    """:meth:`Problem.alt_gradient`: nature's best response (fills ``out``, returns its value)."""
    if kind == TOP_K:
        return top_k_alt_gradient(code, w, means, var, out, k, c, e)
    return alt_gradient_best_arm(code, w, means, var, c, e, out)


@njit(cache=True)
def run_pieces(kind, means, k):
    """:meth:`Problem.pieces` as ``(top, bottom)``: the empirical best arm (``np.argmax``) against the
    others in index order (best arm), the top set against the bottom set of ``top_bottom`` (top-k)."""
    n = means.shape[0]
    if kind == TOP_K:
        top, bot, _ = top_bottom_kernel(means, k)
        return top, bot
    best = np.argmax(means)
    top = np.full(1, best, dtype=np.int64)
    bot = np.empty(n - 1, dtype=np.int64)
    j = 0
    for a in range(n):
        if a != best:
            bot[j] = a
            j += 1
    return top, bot
