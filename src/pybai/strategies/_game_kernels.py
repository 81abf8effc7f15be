"""Compiled kernels of the game sampling rule: AdaHedge and many rounds of the game at fixed estimates."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from pybai.problems.compiled import run_alt_gradient
from pybai.strategies._compiled import check_deltas, draw_reward, record
from pybai.strategies.design_exploration import design_step
from pybai.strategies.tracking import c_tracking_step

__all__ = ["adahedge_weights", "adahedge_update", "game_stretch", "game_run"]


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
            log_s = math.log(max(s, 2.0))
            for a in range(k):
                g[a] = (math.sqrt(g[a]) + math.sqrt(log_s * widths[a])) ** 2
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
def game_run(plan, truth, sd, bernoulli, noise, kind, k, code, var, c, e, rule, max_samples, counts, sums, est,
             cum_loss, mix_gap, cumulative, optimistic, stop_t, stop_z, snap_counts, snap_sums):
    """A whole run of the game rule, one round per sample (see :mod:`pybai.strategies._compiled`).

    Each round as ``GameSampling._select``: AdaHedge weights, nature's best response
    ``run_alt_gradient`` (the problem's), optimistic gains (sqrt(g_a) + sqrt(ln(max(t, 2)) / max(N_a, 1)))^2
    with ``optimistic``, the AdaHedge update with the losses -g, a C-tracking step.  Returns
    ``(t, tells, statistic, checked, mix_gap)``.
    """
    n_plan = plan.shape[0]
    n = counts.shape[0]  # the sources; ``k`` is the size of the answer (top-k)
    w = np.empty(n)
    g = np.empty(n)
    loss = np.empty(n)
    t = 0
    z = 0.0
    done = 0
    while True:
        if t < n_plan:
            a = plan[t]
        else:
            adahedge_weights(cum_loss, mix_gap, w)
            run_alt_gradient(kind, code, w, est, var, g, k, c, e)
            if optimistic:
                log_t = math.log(max(t, 2))
                for i in range(n):
                    root = math.sqrt(g[i]) + math.sqrt(log_t * (1.0 / max(counts[i], 1.0)))
                    g[i] = root * root
            for i in range(n):
                loss[i] = -1.0 * g[i]
            mix_gap = adahedge_update(cum_loss, mix_gap, w, loss)
            a = c_tracking_step(cumulative, counts, w, float(t))
        record(counts, sums, est, a, draw_reward(noise, truth, sd, bernoulli, a))
        t += 1
        if t >= n_plan:
            z, done = check_deltas(kind, k, code, counts, sums, est, var, c, e, rule, t, done, stop_t, stop_z,
                                   snap_counts, snap_sums)
            if done == rule.times.shape[0]:
                return t, t, z, True, mix_gap
        if t >= max_samples:
            return t, t, z, t >= n_plan, mix_gap
