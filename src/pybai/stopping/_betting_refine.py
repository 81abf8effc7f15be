r"""Certified infimum over the level of a pair's betting statistic, from exact stores (numba kernel).

For a pair (a ranked above b) and additive tolerance e >= 0 the betting rule
(:mod:`pybai.stopping.betting`) needs a lower bound of

    inf over l in [0, 1 - e] of  f(l) = g(l) + h(l + e),   g = ln M^+_a (nonincreasing),  h = ln M^-_b (nondecreasing).

On any interval [q, r], f >= g(r) + h(q + e).  The level grid gives that bound for its cells (one
cell apart: the loss the exact stores remove).  When both arms keep their distinct rewards
(:mod:`pybai.models._betting_exact`), g and h can be evaluated at any level, and
:func:`refine_pair` runs a best-first branch and bound: start from the grid's cells (their bounds
read from the tables; with e > 0 the table gives h at the grid level l_{i+s} <= q + e, and at the
last cell g at l_{i+1} >= r = 1 - e: such an end is evaluated exactly when its cell is first
chosen), split the cell of smallest bound at its midpoint m (bounds g(m) + h(q + e)
and g(r) + h(m + e) for the halves; f(m) is an upper value of the infimum), until

* (decision, ``decide``) every open cell's bound exceeds ``level`` (certified: stop), or a
  midpoint has f(m) <= ``level`` (the infimum is at most ``level``: no stop), or
* the gap between the best upper value and the smallest bound is at most ``tol``, or
* ``budget`` midpoints were evaluated (the bound reached so far is returned: no stop unless it
  already exceeds ``level``).

The value returned is always a certified lower bound of the infimum (the minimum of the bounds of
the cells left), so the rule's guarantee holds whichever way the search ends.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from pybai.models._betting_exact import log_mix_down, log_mix_up

__all__ = ["refine_pair", "DEFAULT_BUDGET"]

#: midpoints evaluated at most per pair and check
DEFAULT_BUDGET = 400
_MIN_WIDTH = 1e-12


@njit(cache=True)
def _move(k, last, oq, orr, og, oh, og_ok, oh_ok):
    """Cell ``last`` takes the place of cell ``k``."""
    oq[k] = oq[last]
    orr[k] = orr[last]
    og[k] = og[last]
    oh[k] = oh[last]
    og_ok[k] = og_ok[last]
    oh_ok[k] = oh_ok[last]


@njit(cache=True)
def refine_pair(ln_up_a, ln_down_b, grid, shift, e, level, decide, tol, budget,
                vals_a, cnts_a, na, vals_b, cnts_b, nb, bets):
    """Certified lower bound of inf_l g(l) + h(l + e) (module docstring); ``shift`` = floor(e (L - 1))."""
    n_cells = grid.shape[0] - 1 - shift
    top = 1.0 - e
    if decide:  # the common case far from the level: the midpoint of the lowest cell is already below it
        k = 0
        for i in range(1, n_cells):
            if ln_up_a[i + 1] + ln_down_b[i + shift] < ln_up_a[k + 1] + ln_down_b[k + shift]:
                k = i
        m = 0.5 * (grid[k] + min(grid[k + 1], top))
        if log_mix_up(vals_a, cnts_a, na, bets, m) + log_mix_down(vals_b, cnts_b, nb, bets, m + e) <= level:
            return ln_up_a[k + 1] + ln_down_b[k + shift]  # the grid's bound, <= f(m) <= level
    cap = n_cells + 2 * budget + 2
    oq = np.empty(cap)
    orr = np.empty(cap)
    og = np.empty(cap)  # lower bound of g at the right end
    oh = np.empty(cap)  # lower bound of h at the left end (+ e)
    og_ok = np.empty(cap, dtype=np.bool_)  # og is g(r) itself (not a grid bound of it)
    oh_ok = np.empty(cap, dtype=np.bool_)
    n_open = 0
    closed = math.inf
    for i in range(n_cells):
        lb = ln_up_a[i + 1] + ln_down_b[i + shift]
        if decide and lb > level:
            if lb < closed:
                closed = lb
            continue
        oq[n_open] = grid[i]
        orr[n_open] = min(grid[i + 1], top)
        og[n_open] = ln_up_a[i + 1]
        oh[n_open] = ln_down_b[i + shift]
        og_ok[n_open] = grid[i + 1] <= top
        oh_ok[n_open] = shift == 0 and e == 0.0
        n_open += 1
    upper = math.inf
    evals = 0
    while n_open > 0:
        k = 0
        for i in range(1, n_open):
            if og[i] + oh[i] < og[k] + oh[k]:
                k = i
        low = min(og[k] + oh[k], closed)
        if upper - low <= tol or evals >= budget:
            break
        q = oq[k]
        r = orr[k]
        if not (og_ok[k] and oh_ok[k]):  # a grid bound at an end: evaluate that end exactly, keep the cell
            if not og_ok[k]:
                og[k] = max(og[k], log_mix_up(vals_a, cnts_a, na, bets, r))
                og_ok[k] = True
            if not oh_ok[k]:
                oh[k] = max(oh[k], log_mix_down(vals_b, cnts_b, nb, bets, q + e))
                oh_ok[k] = True
            evals += 1
            if decide and og[k] + oh[k] > level:
                closed = min(closed, og[k] + oh[k])
                n_open -= 1
                _move(k, n_open, oq, orr, og, oh, og_ok, oh_ok)
            continue
        g_r = og[k]
        h_q = oh[k]
        n_open -= 1  # take cell k out (the last one fills its place)
        _move(k, n_open, oq, orr, og, oh, og_ok, oh_ok)
        if r - q < _MIN_WIDTH:
            closed = min(closed, g_r + h_q)
            continue
        m = 0.5 * (q + r)
        g_m = log_mix_up(vals_a, cnts_a, na, bets, m)
        h_m = log_mix_down(vals_b, cnts_b, nb, bets, m + e)
        evals += 1
        f_m = g_m + h_m
        if f_m < upper:
            upper = f_m
        if decide and f_m <= level:  # the infimum is at most level: no stop
            closed = min(closed, g_m + h_q, g_r + h_m)
            break
        for side in range(2):
            cq = q if side == 0 else m
            cr = m if side == 0 else r
            cg = g_m if side == 0 else g_r
            ch = h_q if side == 0 else h_m
            lb = cg + ch
            if decide and lb > level:
                if lb < closed:
                    closed = lb
                continue
            oq[n_open] = cq
            orr[n_open] = cr
            og[n_open] = cg
            oh[n_open] = ch
            og_ok[n_open] = True
            oh_ok[n_open] = True
            n_open += 1
    low = closed
    for i in range(n_open):
        if og[i] + oh[i] < low:
            low = og[i] + oh[i]
    return low
