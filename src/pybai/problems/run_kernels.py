"""The compiled pieces a problem offers for whole simulated runs (:meth:`Problem.run_kernels`).

A compiled loop (:mod:`pybai.strategies._compiled`) calls the goal's kernels through
:mod:`pybai.problems.compiled` where the ask/tell path calls the problem's Python methods; each is
the very kernel those methods call, so the loop's decisions are the ask/tell path's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["RunKernels", "BEST_ARM", "TOP_K"]

#: ``RunKernels.kind`` of best-arm identification
BEST_ARM = 0
#: ``RunKernels.kind`` of top-k identification (GLR, answer mask and best response; no oracle: no
#: tracking rule plays top-k)
TOP_K = 1


@dataclass(frozen=True)
class RunKernels:
    """What a compiled run needs from a problem.

    Attributes
    ----------
    kind : int
        The goal's code for the functions of :mod:`pybai.problems.compiled`.
    code : int
        The family's kernel code (:mod:`pybai.models._kl`).
    variances : ndarray
        The family's known variances.
    k : int
        Size of the answer.
    shift : tuple of float
        ``(c, e)``: :attr:`Problem.shift` of the pieces (the GLR, best response, transportation costs and stopping rule).
    """

    kind: int
    code: int
    variances: np.ndarray
    k: int
    shift: tuple[float, float]
