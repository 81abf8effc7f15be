r"""Characteristic time and optimal weights of the single-metric guardrail rule.

For the truth mu with answer a*, the rule certifies a* once every item of the alternative
(:mod:`pybai.problems.guardrails.pieces`) has a test whose statistic
``v_H(N) = g^2 / (2 sum_{s in S} sigma_s^2 / N_arm(s))`` is large.  With n_k = t w_k samples of
arm k (one observation gives every metric), the rule's characteristic time is

    T*(mu)^{-1} = max_{w in simplex}  min_{items}  max_{tests H of the item}  v_H(w),

and, v_H being 1-homogeneous in w, T*(mu) = min { sum_k n_k : every item has a test with
v_H(n) >= 1 }, the smallest total count that certifies, per unit of ln(1/delta); w* = n* / T*.
Its lower-bound role: the rule stops after about T*(mu) ln(m/delta) samples when the sampling
follows w*, and no sampling does better with this rule.  (It is at least the T* of the joint
GLR, which sums the evidence of correlated metrics.)

**Exact solve by decoupling.**  A test involves at most two arms, and every two-arm test
involves a *hub*: the answer a* (objective tests obj(a*, b), a*'s relative guardrails) or the
control c (relative guardrails).  Every other arm b appears in exactly one item (its challenger
item, or its "not feasible" item when a* = -1), with tests on b alone or on b and one hub.  For
fixed hub counts, b's smallest count is then a closed form, the minimum over its item's tests of

    sigma_b^2 / (D_H - sum_{hub s in S} sigma_s^2 / n_hub(s)),   D_H = g_H^2 / 2,

(infinite when the denominator is <= 0), and the items on hubs only are satisfied or not.  T*
is the minimum over the (at most two) hub counts of the total, found by a log-spaced grid over
[T_0 10^-9, T_0] (T_0 a feasible total) refined by zoomed grids around the best points: a
search over one or two variables, whatever K.  Instances where some item has no test with
g_H > 0 (the answer's mean exactly on a bound, a tie with a feasible arm on the objective) have
T* = inf.  ``tests/problems/guardrails`` checks T* and w* against a brute-force search over the
simplex of w.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from numba import njit

from pybai.problems.guardrails.pieces import Tests

__all__ = ["guardrail_oracle", "rule_value"]

_GRID = (161, 41)  # points per hub dimension: first grid, zoomed grids
_ZOOMS = 12
_KEEP = 4  # zoomed refinements around this many of the best first-grid points


def rule_value(tests: Tests, w: np.ndarray, means: np.ndarray, variances: np.ndarray, n_metrics: int) -> float:
    """``min over items of max over tests of v_H(w)`` with arm weights ``w`` (K,), flat means/variances."""
    from pybai.stopping.guardrails import halfspace_values, min_over_items

    counts = np.repeat(np.asarray(w, dtype=float), n_metrics)
    return min_over_items(halfspace_values(tests, counts, means, variances), tests.starts)


def _alternatives(tests: Tests, means, variances, n_metrics, hubs):
    """Per item: (its non-hub arm or -1, [(D, hub terms [(hub index, variance)], non-hub variance)])."""
    items = []
    bounds = list(tests.starts) + [len(tests.e)]
    for i in range(len(tests.starts)):
        arm = -1
        alts = []
        for j in range(bounds[i], bounds[i + 1]):
            srcs = [(int(tests.s1[j]), float(tests.a1[j]))]
            if tests.s2[j] >= 0:
                srcs.append((int(tests.s2[j]), float(tests.a2[j])))
            g = tests.e[j] - sum(a * means[s] for s, a in srcs)
            if not g > 0:
                continue  # the truth is in this test's set: it never passes
            hub_terms, own = [], 0.0
            for s, _ in srcs:
                k = s // n_metrics
                if k in hubs:
                    hub_terms.append((hubs.index(k), float(variances[s])))
                else:
                    arm, own = k, own + float(variances[s])
            alts.append((g * g / 2.0, hub_terms, own))
        items.append((arm, alts))
    return items


def _flat(items):
    """The items of :func:`_alternatives` as arrays for :func:`_totals_kernel`: per item its arm and first
    alternative; per alternative D, its own variance, its hub terms (up to two: hub index, variance)."""
    arm, start, D, own, n_hub, h1, v1, h2, v2 = [], [], [], [], [], [], [], [], []
    for item_arm, alts in items:
        arm.append(item_arm)
        start.append(len(D))
        for d, hub_terms, own_var in alts:
            D.append(d)
            own.append(own_var)
            n_hub.append(len(hub_terms))
            (a, va), (b, vb) = (list(hub_terms) + [(0, 0.0), (0, 0.0)])[:2]
            h1.append(a)
            v1.append(va)
            h2.append(b)
            v2.append(vb)
    start.append(len(D))
    ints = (np.array(arm, dtype=np.int64), np.array(start, dtype=np.int64))
    return ints + tuple(np.array(x, dtype=float) for x in (D, own)) + (np.array(n_hub, dtype=np.int64),
                                                                        np.array(h1, dtype=np.int64),
                                                                        np.array(v1, dtype=float),
                                                                        np.array(h2, dtype=np.int64),
                                                                        np.array(v2, dtype=float))


def _totals(flat, hub_n: np.ndarray) -> np.ndarray:
    """Total count for each row of hub counts ``hub_n`` (P, H) (inf where an item cannot pass); ``flat`` is
    :func:`_flat` of the items."""
    item_arm, item_start, D, own, n_hub, h1, v1, h2, v2 = flat
    return _totals_kernel(item_arm, item_start, D, own, n_hub, h1, v1, h2, v2, np.ascontiguousarray(hub_n, dtype=float))


@njit(cache=True)
def _totals_kernel(item_arm, item_start, D, own, n_hub, h1, v1, h2, v2, hub_n):
    """:func:`_totals`, point by point, with the operations of the array form in the same order: the hub counts'
    sum, then per item in turn, + the smallest count of the item's arm that passes one of its tests
    (``own / (D - sum of hub terms)`` where positive), or inf when an item on hubs only has no test passing."""
    P, H = hub_n.shape
    out = np.empty(P)
    for p in range(P):
        total = 0.0
        for h in range(H):
            total += hub_n[p, h]
        for i in range(item_arm.shape[0]):
            if item_arm[i] >= 0:
                need = math.inf
                for a in range(item_start[i], item_start[i + 1]):
                    rest = D[a]
                    if n_hub[a] == 1:
                        rest = D[a] - v1[a] / hub_n[p, h1[a]]
                    elif n_hub[a] == 2:
                        rest = D[a] - (v1[a] / hub_n[p, h1[a]] + v2[a] / hub_n[p, h2[a]])
                    cand = own[a] / rest if rest > 0 else math.inf
                    if cand < need:
                        need = cand
                total = total + need
            else:
                ok = False
                for a in range(item_start[i], item_start[i + 1]):
                    hubs = 0.0
                    if n_hub[a] == 1:
                        hubs = v1[a] / hub_n[p, h1[a]]
                    elif n_hub[a] == 2:
                        hubs = v1[a] / hub_n[p, h1[a]] + v2[a] / hub_n[p, h2[a]]
                    if hubs <= D[a]:
                        ok = True
                if not ok:
                    total = math.inf
        out[p] = total
    return out


def _grid(lo, hi, n):
    axes = [np.geomspace(lo[d], hi[d], n) for d in range(len(lo))]
    mesh = np.meshgrid(*axes, indexing="ij")
    return np.stack([m.ravel() for m in mesh], axis=1)


def _smallest(values: np.ndarray, k: int) -> np.ndarray:
    """``np.argsort(values, kind="stable")[:k]`` (ties in index order) without sorting every value."""
    if values.shape[0] <= k:
        return np.argsort(values, kind="stable")
    kth = np.partition(values, k - 1)[k - 1]
    if np.isnan(kth):
        return np.argsort(values, kind="stable")[:k]
    idx = np.flatnonzero(values <= kth)
    return idx[np.argsort(values[idx], kind="stable")][:k]


@functools.lru_cache(maxsize=4)
def _zoom_factors(n_hubs: int) -> tuple[np.ndarray, ...]:
    """The factors (S, H) of each zoomed grid around a point: width ** offsets on a (41 x ... x 41) mesh, the width
    two steps of the first grid, then shrunk by 8 steps of the zoomed grid each time (read-only, computed once)."""
    width = (1e9 ** (1.0 / (_GRID[0] - 1))) ** 2  # two steps of the first grid
    offsets = np.linspace(-1.0, 1.0, _GRID[1])
    mesh = np.stack([m.ravel() for m in np.meshgrid(*([offsets] * n_hubs), indexing="ij")], axis=1)  # (S, H)
    out = []
    for _ in range(_ZOOMS):
        factors = np.power(width, mesh)
        factors.setflags(write=False)
        out.append(factors)
        width = width ** (8.0 / (_GRID[1] - 1))
    return tuple(out)


def _minimise(items, n_hubs: int):
    """(T*, hub counts) by the grid search of the module docstring."""
    items = _flat(items)
    if n_hubs == 0:
        total = float(_totals(items, np.zeros((1, 0)))[0])
        return total, np.zeros(0)
    start = 1.0
    for _ in range(200):  # a feasible point: every hub count large enough (finite when T* is)
        t0 = float(_totals(items, np.full((1, n_hubs), start))[0])
        if math.isfinite(t0):
            break
        start *= 4.0
    else:
        return math.inf, np.full(n_hubs, math.nan)
    lo, hi = np.full(n_hubs, t0 * 1e-9), np.full(n_hubs, t0)
    points = _grid(lo, hi, _GRID[0])
    totals = _totals(items, points)
    order = [i for i in _smallest(totals, _KEEP) if math.isfinite(totals[i])]
    cur_t, cur_n = totals[order], points[order]  # the candidates, refined together
    for factors in _zoom_factors(n_hubs):
        sub = cur_n[:, None, :] * factors[None, :, :]  # (C, S, H): log grid around each
        sub_t = _totals(items, sub.reshape(-1, n_hubs)).reshape(len(order), -1)
        j = np.argmin(sub_t, axis=1)
        better = sub_t[np.arange(len(order)), j] <= cur_t
        cur_t = np.where(better, sub_t[np.arange(len(order)), j], cur_t)
        cur_n = np.where(better[:, None], sub[np.arange(len(order)), j], cur_n)
    best = int(np.argmin(cur_t))
    return float(cur_t[best]), cur_n[best]


def _counts_of(items, hubs, hub_n, n_arms) -> np.ndarray:
    n = np.zeros(n_arms)
    for h, k in enumerate(hubs):
        n[k] = hub_n[h]
    row = hub_n[None, :]
    for arm, alts in items:
        if arm < 0:
            continue
        need = math.inf
        for D, hub_terms, own in alts:
            rest = D - sum(v / row[0, h] for h, v in hub_terms)
            if rest > 0:
                need = min(need, own / rest)
        n[arm] = need
    return n


def guardrail_oracle(tests: Tests, answer: int, control: int, has_relative: bool, means: np.ndarray,
                     variances: np.ndarray, n_arms: int, n_metrics: int) -> tuple[float, np.ndarray]:
    """``(T*, w*)`` of the rule at the truth (flat ``means``/``variances`` per source), w* per arm.

    Degenerate instances (an item with no test the truth is outside of) return ``(inf, uniform)``.
    """
    uniform = np.full(n_arms, 1.0 / n_arms)
    hubs: list[int] = []
    if answer >= 0:
        hubs.append(answer)
    if has_relative and control not in hubs:
        hubs.append(control)
    items = _alternatives(tests, means, variances, n_metrics, hubs)
    if any(not alts for _, alts in items):
        return math.inf, uniform
    t_star, hub_n = _minimise(items, len(hubs))
    if not math.isfinite(t_star):
        return math.inf, uniform
    n = _counts_of(items, hubs, hub_n, n_arms)
    if not np.all(np.isfinite(n)):
        return math.inf, uniform
    return float(n.sum()), n / n.sum()
