r"""Forced exploration of the *design* for linear bandits (Jedra & Proutiere 2020).

With arms that share a parameter, consistency of the least-squares estimate needs the design
matrix :math:`A_t = \sum_{s \le t} x_{a_s} x_{a_s}^\top` to grow in every direction, not every arm
to be pulled: an arm whose features are spanned by well-sampled arms is already estimated.
The per-arm forced exploration of Garivier & Kaufmann (2016) (C-tracking's projection on
:math:`\{w_a \ge \varepsilon_t\}`, D-tracking's :math:`N_a < \sqrt t - K/2`) pulls every arm about
:math:`\sqrt t` times; on the section-6 instance of Soare et al. that is ~30 samples on each of
e_3..e_d and on x_{d+1} at t = 1,500, while their optimal weights ask for 0-4.

Jedra & Proutiere (2020, *Optimal best-arm identification in linear bandits*, NeurIPS, section 3,
sampling rule with forced exploration) instead fix a spanning set
:math:`\mathcal A_0 = \{a_1, \dots, a_d\}` of linearly independent arms and, at every round,

* if :math:`\lambda_{\min}(A_t) < f(t) = c_{\mathcal A_0}\sqrt t` with
  :math:`c_{\mathcal A_0} = \lambda_{\min}(\sum_{a \in \mathcal A_0} x_a x_a^\top)/\sqrt d`:
  pull the next arm of :math:`\mathcal A_0` (round robin);
* otherwise track the target weights without any projection:
  :math:`\arg\min_a N_a(t) - \sum_{s \le t} w_a(s)` (cumulative, "C") or
  :math:`\arg\min_a N_a(t) - t w_a(t)` (direct, "D").

The rule guarantees :math:`\lambda_{\min}(A_t) \gtrsim c_{\mathcal A_0}\sqrt t`, hence consistency of
:math:`\hat\theta_t` and of the plug-in weights, which is what their proofs of asymptotic
optimality (almost surely and in expectation, with lazy updates of the weights) use; with the
spanning set e_1..e_d above, e_3..e_d get about :math:`\sqrt{t/d}` samples each and x_{d+1} none.
(The constants: the paper's :math:`c_{\mathcal A_0}`, as also used in the authors' published code;
the spanning set: :meth:`DesignSpace.initial_requests <pybai.problems.linear.DesignSpace.initial_requests>`, d independent arms by pivoted QR, the ones
the initial phase pulls.)  The sum over s runs over every round after the initial phase,
forced ones included, so arms over-pulled by the forcing are tracked less afterwards.

Checking :math:`\lambda_{\min}(A_t)` at every sample would cost a d x d eigenvalue problem per
sample; since :math:`\lambda_{\min}` only grows when samples are added, the last exact value is a
lower bound, and it is recomputed only when that bound falls below :math:`f(t)`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["DesignExploration", "design_step", "design_tracking_chunk"]


@njit(cache=True)
def design_step(cumulative, local, w, s, a_mat, lam, features, spanning, level_scale, j, cumulative_tracking):
    """One sample at time ``s`` towards ``w`` with the forced exploration of the design.

    Updates ``cumulative`` (running sum of the targets), ``local`` (counts) and ``a_mat`` (design
    matrix) with the chosen arm; ``lam`` is a lower bound on lambda_min(a_mat) (recomputed only
    when it falls below the forcing level), ``j`` the position in ``spanning`` of the next forced
    pull.  Returns ``(arm, lam, j)``.
    """
    k = w.shape[0]
    for a in range(k):
        cumulative[a] += w[a]
    forced = False
    if level_scale > 0.0:
        level = level_scale * math.sqrt(s)
        if lam < level:  # the cached value is a lower bound: recompute before forcing
            lam = np.linalg.eigvalsh(a_mat)[0]
            forced = lam < level
    if forced:
        arm = spanning[j]
        j = (j + 1) % spanning.shape[0]
    else:
        arm = 0
        best_val = -math.inf
        for a in range(k):
            val = cumulative[a] - local[a] if cumulative_tracking else s * w[a] - local[a]
            if val > best_val:
                best_val = val
                arm = a
    local[arm] += 1.0
    x = features[arm]
    for p in range(x.shape[0]):
        for q in range(x.shape[0]):
            a_mat[p, q] += x[p] * x[q]
    return arm, lam, j


@njit(cache=True)
def design_tracking_chunk(cumulative, counts, w, t, out, features, design, spanning, level_scale, next_forced,
                          cumulative_tracking):
    """``out.shape[0]`` samples towards ``w`` with the forced exploration of the design.

    ``design`` (d x d, not modified) is the design matrix after ``t`` samples, ``counts`` the
    per-arm counts (not modified), ``cumulative`` the running sum of the targets (updated);
    ``level_scale`` = c_{A_0} (0: no forced exploration).  Returns the position in ``spanning`` of
    the next forced pull.
    """
    local = counts.copy()
    a_mat = design.copy()
    lam = np.linalg.eigvalsh(a_mat)[0] if level_scale > 0.0 else 0.0
    j = next_forced
    for i in range(out.shape[0]):
        arm, lam, j = design_step(cumulative, local, w, t + i, a_mat, lam, features, spanning, level_scale, j,
                                  cumulative_tracking)
        out[i] = arm
    return j


class DesignExploration:
    """The spanning set and c_{A_0} of a problem (see the module docstring).

    Parameters
    ----------
    features : ndarray of shape (K, d)
    spanning : ndarray of int
        The spanning set A_0 (a design space's initial requests, one round:
        :meth:`~pybai.problems.linear.DesignSpace.design`).
    forced : bool, default True
        False: the same unprojected tracking without forced exploration (for rules that explore
        by other means, e.g. optimism).
    """

    def __init__(self, features: np.ndarray, spanning: np.ndarray, forced: bool = True):
        self.features = np.ascontiguousarray(features, dtype=float)
        self.spanning = np.asarray(spanning, dtype=np.intp)
        x0 = self.features[self.spanning]
        d = self.features.shape[1]
        self.level_scale = float(np.linalg.eigvalsh(x0.T @ x0)[0] / math.sqrt(d)) if forced else 0.0

    def level(self, t: int) -> float:
        """f(t) = c_{A_0} sqrt(t)."""
        return self.level_scale * math.sqrt(t)

    def chunk(self, cumulative, counts, w, t: int, size: int, design, next_forced: int,
              cumulative_tracking: bool) -> tuple[np.ndarray, int]:
        """The next ``size`` arms and the new round-robin position (see :func:`design_tracking_chunk`)."""
        out = np.empty(size, dtype=np.intp)
        nxt = design_tracking_chunk(cumulative, np.asarray(counts, dtype=float), np.asarray(w, dtype=float),
                                    float(t), out, self.features, np.ascontiguousarray(design, dtype=float),
                                    self.spanning, self.level_scale, int(next_forced), cumulative_tracking)
        return out, int(nxt)
