"""The compiled pieces a problem offers for whole simulated runs (:meth:`Problem.run_kernels`).

A compiled loop (:mod:`pybai.strategies._compiled`) calls these numba functions where the
ask/tell path calls the problem's Python methods; each is the very kernel those methods call,
so the loop's decisions are the ask/tell path's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

__all__ = ["RunKernels", "best_arm_mask"]


@njit(cache=True)
def best_arm_mask(means, k):
    """True at the first largest mean (``np.argmax``), False elsewhere; ``k`` is unused (one arm)."""
    mask = np.zeros(means.shape[0], dtype=np.bool_)
    mask[np.argmax(means)] = True
    return mask


@dataclass(frozen=True)
class RunKernels:
    """What a compiled run needs from a problem.

    Attributes
    ----------
    code : int
        The family's kernel code (:mod:`pybai.models._kl`).
    variances : ndarray
        The family's known variances.
    glr : numba function ``(code, counts, means, var) -> (statistic, answer)``
        The GLR statistic of :meth:`Problem.statistic` (the stopping rule compares it with the threshold).
    oracle : numba function ``(code, means, var, hint) -> (T*, w)``
        The oracle with a warm-start ``hint`` (what :meth:`Problem.tracking_weights` returns).
    mask : numba function ``(means, k) -> bool array``
        :meth:`Problem.answer_mask`.
    k : int
        Size of the answer (the ``k`` passed to ``mask``).
    shift : tuple of float
        ``(c, e)``: :attr:`Problem.pair_shift` of the transportation costs.
    alt_gradient : numba function ``(code, w, means, var, out) -> value`` or None
        Nature's best response of :meth:`Problem.alt_gradient`.
    """

    code: int
    variances: np.ndarray
    glr: Any
    oracle: Any
    mask: Any
    k: int
    shift: tuple[float, float]
    alt_gradient: Any = None
