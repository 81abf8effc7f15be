"""The goals' kernels as compiled loops call them: by the goal code of :class:`~pybai.problems.run_kernels.RunKernels`.

Each function is the kernel the problem's Python method calls (same arguments, same arithmetic).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pybai.problems.best_arm._kernels import alt_gradient_best_arm, glr_best_arm, oracle_best_arm_warm
from pybai.problems.run_kernels import TOP_K
from pybai.problems.top_k._kernels import top_bottom_kernel, top_k_alt_gradient, top_k_mask, top_k_statistic
from pybai.stopping._pair_mixture_kernels import min_pair_margin
from pybai.stopping._tilt_kernels import TILT_RULE, min_tilt_margin

__all__ = ["run_glr", "run_oracle", "run_mask", "run_alt_gradient", "run_pair_margin"]

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
def run_glr(kind, code, counts, means, var, k):
    """:meth:`Problem.statistic`: the GLR statistic of the empirical answer."""
    if kind == TOP_K:
        return top_k_statistic(code, counts, means, var, k)
    return glr_best_arm(code, counts, means, var)[0]


@njit(cache=True)
def run_oracle(kind, code, means, var, hint):
    """``(T*, w*)`` with a warm-start ``hint``: what :meth:`Problem.tracking_weights` tracks.

    Best arm only: the top-k oracle is an interior-point method in Python, and no tracking rule plays
    top-k (the rules with a compiled loop on top-k are ``uniform``, ``lucb`` and ``game``).  On Bernoulli
    arms the solve starts with a joint Newton step from ``hint`` (see :func:`oracle_best_arm_warm`).
    """
    return oracle_best_arm_warm(code, means, var, hint)


@njit(cache=True)
def run_mask(kind, means, k):
    """:meth:`Problem.answer_mask`."""
    if kind == TOP_K:
        return top_k_mask(means, k)
    return best_arm_mask(means)


@njit(cache=True)
def run_alt_gradient(kind, code, w, means, var, out, k):
    """:meth:`Problem.alt_gradient`: nature's best response (fills ``out``, returns its value)."""
    if kind == TOP_K:
        return top_k_alt_gradient(code, w, means, var, out, k)
    return alt_gradient_best_arm(code, w, means, var, out)


@njit(cache=True)
def run_pair_margin(kind, form, counts, means, var, k):
    """The smallest per-pair margin of :meth:`Problem.stopping_decision` with a count-dependent rule.

    ``form`` is the rule's row of :func:`pybai.stopping.compiled.compiled_rows` (columns 6 on: the
    arguments :meth:`PairMixtureThreshold.min_margin` passes).  The pairs are the problem's: the
    empirical best arm (``np.argmax``) against the others in index order (best arm), the top set
    against the bottom set of ``top_bottom`` (top-k).  Plain pieces only (no epsilon).
    """
    n = means.shape[0]
    if kind == TOP_K:
        top, bot, _ = top_bottom_kernel(means, k)
    else:
        best = np.argmax(means)
        top = np.full(1, best, dtype=np.int64)
        bot = np.empty(n - 1, dtype=np.int64)
        j = 0
        for a in range(n):
            if a != best:
                bot[j] = a
                j += 1
    n_scales = int(form[13])
    scales = form[14:14 + n_scales].copy()
    if int(form[6]) == TILT_RULE:  # the variance-adaptive rule (pybai.stopping.tilt)
        return min_tilt_margin(counts, means, top, bot, form[7], form[10], form[9], scales, 1.0, 0.0)
    return min_pair_margin(int(form[6]), counts, means, var, top, bot, form[7], form[9], form[10], scales, form[11],
                           form[12] > 0.0)
