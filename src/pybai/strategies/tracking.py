"""Turning target weights into samples: C-tracking and D-tracking (Garivier & Kaufmann 2016)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["project_capped_simplex", "c_tracking_step", "d_tracking_step", "tracking_chunk", "geometric_chunk"]


@njit(cache=True)
def project_capped_simplex(w, eps):
    """Euclidean projection of ``w`` (on the simplex) onto {v : v >= eps, sum v = 1}.

    The solution is v_a = max(w_a - eta, eps), with eta found exactly by sorting
    (water-filling).  It moves each coordinate by at most (K - 1) eps, which is what the
    C-tracking analysis of Garivier & Kaufmann (2016, Lemma 7) needs of its projection.
    """
    k = w.shape[0]
    out = np.empty(k)
    if eps <= 0.0:
        out[:] = w
        return out
    order = np.argsort(-w)
    # the j largest coordinates stay above eps: eta = (sum_{top j} w + (K - j) eps - 1) / j
    top = 0.0
    eta = 0.0
    for j in range(1, k + 1):
        top += w[order[j - 1]]
        cand = (top + (k - j) * eps - 1.0) / j
        nxt = w[order[j]] - cand if j < k else -math.inf
        if w[order[j - 1]] - cand > eps and nxt <= eps:
            eta = cand
            break
    else:
        for a in range(k):
            out[a] = 1.0 / k
        return out
    for a in range(k):
        out[a] = max(w[a] - eta, eps)
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


@njit(cache=True)
def tracking_chunk(cumulative, counts, w, t, out, cumulative_tracking):
    """``out.shape[0]`` successive tracking steps towards the same target ``w``.

    The lazy form of C-tracking (``cumulative_tracking=True``) or D-tracking: the target is
    computed once for the chunk, each step's choice is counted before the next (``counts`` is
    not modified; ``cumulative`` is, as by the single steps).
    """
    local = counts.copy()
    for i in range(out.shape[0]):
        if cumulative_tracking:
            a = c_tracking_step(cumulative, local, w, t + i)
        else:
            a = d_tracking_step(local, w, t + i)
        local[a] += 1.0
        out[i] = a


def geometric_chunk(t: int, growth: float) -> int:
    """Samples until the next check when checks happen at t_{k+1} = max(t_k + 1, ceil((1 + growth) t_k)).

    ``growth = 0`` checks after every sample.  Checking a GLR stopping rule only at these times
    keeps it delta-correct (a threshold valid at all times is valid at a subset) and delays the
    stop by at most a factor 1 + growth.
    """
    return max(1, math.ceil((1.0 + growth) * max(t, 1)) - t) if growth > 0 else 1
