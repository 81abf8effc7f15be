r"""The accept/reject step of BatchRacing (Algorithm 2 of Jun, Jamieson, Nowak & Zhu 2016).

After each batch, with :math:`k_t = k - |A_t|` and the bounds :math:`L_i, U_i` of Eq. (2)
(:func:`~pybai.batch.bounds.lil_bounds`, omega = sqrt(delta / (6n)) with the total n),

* accept :math:`i \in S_t` if :math:`L_i > \max^{(k_t+1)}_{j \in S_t} U_j`;
* reject :math:`i \in S_t` if :math:`U_i < \max^{(k_t)}_{j \in S_t} L_j`;

both computed on the same :math:`S_t` (lines 9-10).  Conventions where the paper is silent:
:math:`\max^{(j)}` of fewer than j values is -inf (so when :math:`|S_t| = k_t` every survivor
is accepted) and :math:`\max^{(0)}` is +inf (when :math:`k_t = 0` every survivor is rejected).

:func:`racing_step` is the one implementation of the step: the ``batch-racing`` strategy calls
it after each batch and the compiled whole-run loop (:mod:`pybai.batch.fast_racing`) calls it
inside numba.  The deviations D(tau, omega) are computed by numpy
(:func:`survivor_deviations`, or a table in the compiled loop), never by compiled code.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from pybai.batch.bounds import lil_deviation
from pybai.batch.round_robin import kth_smallest

__all__ = ["racing_step", "survivor_deviations"]

#: below this spread of the survivors' counts, the deviations are looked up per count
_TABLE_SPREAD = 4096


def survivor_deviations(counts: np.ndarray, omega: float, sigma: float) -> np.ndarray:
    """D_sigma(T_i, omega) for the survivors' int counts (one per distinct count when they are close)."""
    c_min, c_max = int(counts.min()), int(counts.max())
    if c_max - c_min <= _TABLE_SPREAD:  # RoundRobin keeps counts within one: look D up per count
        return lil_deviation(np.arange(c_min, c_max + 1), omega, sigma)[counts - c_min]
    return lil_deviation(counts, omega, sigma)


@njit(cache=True)
def racing_step(counts, sums, devs, idx, m, k_left, accepted, rejected, low, up, work):
    """Accept and reject among the survivors idx[:m] (devs[j]: the deviation of survivor idx[j]).

    ``counts`` and ``sums`` are per-arm statistics over all arms; ``accepted`` and
    ``rejected`` (bool, all arms) are updated in place and idx[:kept] is compacted to the
    survivors (their order kept).  ``low``, ``up``, ``work`` are float work arrays of length
    >= m.  Returns ``(kept, accepted_now)``.
    """
    kt = k_left
    for j in range(m):
        i = idx[j]
        c = counts[i]
        mean = sums[i] / c if c > 0 else 0.0
        low[j] = mean - devs[j]
        up[j] = mean + devs[j]
    # (k_t + 1)-th largest U and k_t-th largest L over S_t (Algorithm 2, lines 9-10)
    u_thr = kth_smallest(up, m, m - kt - 1, work) if kt + 1 <= m else -math.inf
    l_thr = kth_smallest(low, m, m - kt, work) if kt >= 1 else math.inf
    kept = 0
    n_acc = 0
    for j in range(m):
        i = idx[j]
        acc = low[j] > u_thr
        rej = up[j] < l_thr
        if acc:
            accepted[i] = True
            n_acc += 1
        if rej:
            rejected[i] = True
        if not (acc or rej):
            idx[kept] = i
            kept += 1
    return kept, n_acc
