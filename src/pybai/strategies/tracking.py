"""Turning target weights into samples: C-tracking and D-tracking (Garivier & Kaufmann 2016)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["project_capped_simplex", "c_tracking_step", "d_tracking_step"]


@njit(cache=True)
def project_capped_simplex(w, eps):
    """Euclidean projection of ``w`` (on the simplex) onto {v : v >= eps, sum v = 1}.

    The solution is v_a = max(w_a - eta, eps) with eta found by water-filling; it moves
    each coordinate by at most (K - 1) eps, which is what the C-tracking analysis of
    Garivier & Kaufmann (2016, Lemma 7) needs of its "L-infinity projection".
    """
    k = w.shape[0]
    out = np.empty(k)
    if eps <= 0.0:
        out[:] = w
        return out
    # eta solves sum_a max(w_a - eta, eps) = 1; the left side is non-increasing in eta.
    lo, hi = -1.0, 1.0
    for _ in range(100):
        eta = 0.5 * (lo + hi)
        s = 0.0
        for a in range(k):
            s += max(w[a] - eta, eps)
        if s > 1.0:
            lo = eta
        else:
            hi = eta
        if hi - lo < 1e-15:
            break
    eta = 0.5 * (lo + hi)
    s = 0.0
    for a in range(k):
        out[a] = max(w[a] - eta, eps)
        s += out[a]
    for a in range(k):
        out[a] /= s
    return out


@njit(cache=True)
def c_tracking_step(cumulative, counts, w, t):
    """C-tracking: add the eps_t-projection of ``w`` to ``cumulative``; return the next source.

    eps_t = (K^2 + t)^(-1/2) / 2 and A_{t+1} = argmax_a sum_{s<=t} w_a^{eps_s}(s) - N_a(t).
    """
    k = w.shape[0]
    eps = 0.5 / math.sqrt(k * k + t)
    if eps > 1.0 / k:
        eps = 1.0 / k
    v = project_capped_simplex(w, eps)
    best = 0
    best_val = -math.inf
    for a in range(k):
        cumulative[a] += v[a]
        val = cumulative[a] - counts[a]
        if val > best_val:
            best_val = val
            best = a
    return best


@njit(cache=True)
def d_tracking_step(counts, w, t):
    """D-tracking with forced exploration: an under-sampled source, else argmax t w_a - N_a.

    Under-sampled: N_a(t) < sqrt(t) - K/2 (Garivier & Kaufmann 2016, Eq. (13)).
    """
    k = w.shape[0]
    limit = math.sqrt(t) - 0.5 * k
    best = -1
    for a in range(k):
        if counts[a] < limit and (best < 0 or counts[a] < counts[best]):
            best = a
    if best >= 0:
        return best
    best_val = -math.inf
    for a in range(k):
        val = t * w[a] - counts[a]
        if val > best_val:
            best_val = val
            best = a
    return best
