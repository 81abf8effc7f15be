"""Compiled kernels of the game sampling rule: AdaHedge and many rounds of the game at fixed estimates."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from pybai.problems.compiled import run_alt_gradient
from pybai.strategies.design_exploration import design_step
from pybai.strategies.tracking import c_tracking_step

__all__ = ["adahedge_weights", "adahedge_update", "game_stretch", "game_step", "optimistic_gain", "optimistic_gains"]


@njit(cache=True)
def adahedge_weights(cum_loss, mix_gap, out):
    """AdaHedge weights (de Rooij et al. 2014): w ~ exp(-eta L), eta = ln K / Delta."""
    k = cum_loss.shape[0]
    low = cum_loss.min()
    if mix_gap <= 0.0:  # eta = inf: uniform on the leaders
        n = 0
        for i in range(k):
            out[i] = 1.0 if cum_loss[i] == low else 0.0
            n += out[i] > 0.0
        for i in range(k):
            out[i] /= n
        return
    eta = math.log(k) / mix_gap
    total = 0.0
    for i in range(k):
        out[i] = math.exp(-eta * (cum_loss[i] - low))
        total += out[i]
    for i in range(k):
        out[i] /= total


@njit(cache=True)
def adahedge_update(cum_loss, mix_gap, w, loss):
    """Add ``loss`` to the cumulative losses; return the new cumulative mixability gap."""
    k = cum_loss.shape[0]
    h = 0.0
    for i in range(k):
        h += w[i] * loss[i]
    if mix_gap <= 0.0:
        m = math.inf
        for i in range(k):
            if w[i] > 0.0 and loss[i] < m:
                m = loss[i]
    else:
        eta = math.log(k) / mix_gap
        low = loss.min()
        s = 0.0
        for i in range(k):
            s += w[i] * math.exp(-eta * (loss[i] - low))
        m = low - math.log(s) / eta
    for i in range(k):
        cum_loss[i] += loss[i]
    return mix_gap + max(h - m, 0.0)


@njit(cache=True)
def game_stretch(best_response, data, cum_loss, mix_gap, widths, cumulative, counts, t, out, features, design,
                 spanning, level_scale, next_forced, design_mode):
    """Play ``out.shape[0]`` rounds of the game at fixed estimates, one per sample.

    Round s = t, t + 1, ...: AdaHedge weights w_s from ``cum_loss`` and ``mix_gap``; nature's best
    response ``best_response(data, w_s, gains)`` (a problem's
    :meth:`~pybai.problems.base.Problem.best_response_kernel`); optimistic gains
    (sqrt(g_a) + sqrt(ln(s) widths_a))^2 when ``widths`` is not empty; the AdaHedge update with
    the losses -gains; one tracking step towards w_s -- with the forced exploration of the
    design (``design_mode``, :func:`~pybai.strategies.design_exploration.design_step`) or
    C-tracking's projection (:func:`~pybai.strategies.tracking.c_tracking_step`).  ``counts`` and
    ``design`` are not modified; ``cum_loss`` and ``cumulative`` are.  Returns
    ``(mix_gap, next_forced)``.
    """
    k = cum_loss.shape[0]
    w = np.empty(k)
    g = np.empty(k)
    local = counts.copy()
    a_mat = design.copy()
    lam = np.linalg.eigvalsh(a_mat)[0] if design_mode and level_scale > 0.0 else 0.0
    j = next_forced
    optimistic = widths.shape[0] > 0
    for i in range(out.shape[0]):
        s = t + i
        adahedge_weights(cum_loss, mix_gap, w)
        best_response(data, w, g)
        if optimistic:
            optimistic_gains(g, widths, math.log(max(s, 2.0)))
        for a in range(k):
            g[a] = -g[a]
        mix_gap = adahedge_update(cum_loss, mix_gap, w, g)
        if design_mode:
            arm, lam, j = design_step(cumulative, local, w, s, a_mat, lam, features, spanning, level_scale, j, True)
        else:
            arm = c_tracking_step(cumulative, local, w, s)
            local[arm] += 1.0
        out[i] = arm
    return mix_gap, j


@njit(cache=True)
def optimistic_gain(g, width, log_t):
    """(sqrt(g) + sqrt(ln(t) width))^2: a gain widened by the confidence width of its mean (UCB optimism)."""
    root = math.sqrt(g) + math.sqrt(log_t * width)
    return root * root


@njit(cache=True)
def optimistic_gains(g, widths, log_t):
    """:func:`optimistic_gain` of every source, in place."""
    for a in range(g.shape[0]):
        g[a] = optimistic_gain(g[a], widths[a], log_t)


@njit(cache=True, inline="always")
def game_step(kind, code, counts, est, var, k, c, e, t, cum_loss, mix_gap, cumulative, optimistic, w, g, loss):
    """One round of the game after ``t`` samples, one sample (``GameSampling._select`` on a problem with kernels).

    AdaHedge weights ``w``, nature's best response (``run_alt_gradient``: the problem's, on the pieces
    shifted by (c, e)) into ``g``, optimistic gains with the widths 1 / max(N_a, 1) (``optimistic``), the
    AdaHedge update with the losses -g, a C-tracking step.  ``w``, ``g`` and ``loss`` are work space.
    Returns ``(source, mix_gap)``.
    """
    adahedge_weights(cum_loss, mix_gap, w)
    run_alt_gradient(kind, code, w, est, var, g, k, c, e)
    n = counts.shape[0]
    if optimistic:
        for i in range(n):
            loss[i] = 1.0 / max(counts[i], 1.0)
        optimistic_gains(g, loss, math.log(max(t, 2)))
    for i in range(n):
        loss[i] = -1.0 * g[i]
    mix_gap = adahedge_update(cum_loss, mix_gap, w, loss)
    return c_tracking_step(cumulative, counts, w, float(t)), mix_gap
