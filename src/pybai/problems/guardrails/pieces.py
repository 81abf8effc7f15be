r"""The alternative to an answer of a guardrail problem, as single-metric half-space tests.

Notation of :mod:`pybai.problems.guardrails.metrics`: K arms, M metrics, sources (k, m) flattened
``k * M + m``, the objective m = 0 with sense s_0 (+1 maximise, -1 minimise), guardrails
``h_g <= 0``, control c.  A *test* is a closed half-space of the means of one metric,

    H = { lambda : a_1 lambda_{s_1} + a_2 lambda_{s_2} >= e },   a_i in {-1, +1},

over one source, or two sources of the **same metric** in two different arms (an arm against
the control, or two arms' objectives).  For an answer h the tests are grouped in *items*; the
answer is certified when every item has one test whose evidence passes:

* h >= 0: one item per guardrail g binding h, ``{break(h, g)}`` with
  break(h, g) = {h_g(lambda_h) >= 0}; one item per other arm b,
  ``{obj(h, b), keep(b, g) for g binding b}`` with obj(h, b) = {s_0 lambda_{b,0} >= s_0 lambda_{h,0} + epsilon}
  (epsilon = 0 unless the problem has an answer tolerance on the objective) and keep(b, g) = {h_g(lambda_b) <= 0};
* h = -1 (no arm keeps every guardrail): one item per arm k, ``{keep(k, g) for g binding k}``.

Why it suffices (any correlation between the metrics of an observation): the truth mu has
answer a* != h only if mu lies in one test of every item... precisely, if h >= 0 breaks a
guardrail g under mu, mu is in break(h, g); if h is feasible under mu, a* >= 0 is feasible and
at least as good, so mu is in obj(h, a*) and in every keep(a*, g); if h = -1, mu is in every
keep(a*, g).  With a tolerance epsilon > 0 on the objective, h >= 0 is wrong when it breaks a guardrail
or a feasible arm beats it by more than epsilon: then mu is in break(h, g), or in obj(h, a*) (offset
epsilon) and every keep(a*, g); obj(h, a*) only shrinks as epsilon grows (h = -1 is unaffected: a
tolerance on the objective does not relax a guardrail).  docs/guardrails.md gives the theorem built on it.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from pybai.problems.guardrails.metrics import Guardrails

__all__ = ["Tests", "answer_of", "feasible_arms", "build_tests", "guardrail_values"]


class Tests(NamedTuple):
    """Half-space tests grouped in items (items are contiguous runs of tests).

    Attributes
    ----------
    s1, s2 : ndarray of int64
        The sources of each test (``s2 = -1``: a single source).
    a1, a2 : ndarray of float
        Their coefficients (+1 or -1; ``a2 = 0`` for a single source).
    e : ndarray of float
        The offset: the test's set is {a1 lambda_s1 + a2 lambda_s2 >= e}.
    starts : ndarray of int64
        Index of the first test of each item.
    kinds : tuple of str
        "break", "keep" or "objective", per test (for reports).
    arms : ndarray of int64
        The arm each test speaks about (the guarded arm, or the challenger b of obj(h, b)).
    """

    s1: np.ndarray
    a1: np.ndarray
    s2: np.ndarray
    a2: np.ndarray
    e: np.ndarray
    starts: np.ndarray
    kinds: tuple[str, ...]
    arms: np.ndarray


def guardrail_values(mu: np.ndarray, guards: Guardrails, control: int) -> np.ndarray:
    """``h_g(mu_k)`` for every arm k and guardrail g, shape (K, G); -inf where g does not bind k."""
    K = mu.shape[0]
    own = mu[:, guards.metric]
    ctrl = mu[control, guards.metric]
    h = guards.sign * (own - np.where(guards.relative, ctrl, 0.0)) - guards.bound
    binds = np.ones((K, guards.metric.shape[0]), dtype=bool)
    binds[control] = ~guards.relative
    return np.where(binds, h, -np.inf)


def feasible_arms(mu: np.ndarray, guards: Guardrails, control: int) -> np.ndarray:
    """Which arms keep every guardrail under means ``mu`` (K, M) (a mean on its bound keeps it)."""
    h = guardrail_values(mu, guards, control)
    return np.all(h <= 0.0, axis=1)


def answer_of(mu: np.ndarray, guards: Guardrails, control: int, sense: float) -> int:
    """The feasible arm of best objective (lowest index on ties), or -1 when none is feasible."""
    return int(_answer_kernel(mu, guards.metric, guards.sign, guards.relative, guards.bound, control, sense))


@njit(cache=True)
def _answer_kernel(mu, metric, sign, relative, bound, control, sense):
    best, arm = -math.inf, -1
    for k in range(mu.shape[0]):
        ok = True
        for g in range(metric.shape[0]):
            if relative[g]:
                if k == control:
                    continue
                h = sign[g] * (mu[k, metric[g]] - mu[control, metric[g]]) - bound[g]
            else:
                h = sign[g] * mu[k, metric[g]] - bound[g]
            if not h <= 0.0:
                ok = False
                break
        if ok and sense * mu[k, 0] > best:
            best, arm = sense * mu[k, 0], k
    return arm


def build_tests(answer: int, n_arms: int, n_metrics: int, guards: Guardrails, control: int, sense: float,
                epsilon: float = 0.0) -> Tests:
    """The tests of the alternative to ``answer`` (module docstring), grouped in items; ``epsilon`` >= 0 is the
    offset of the objective tests (an additive tolerance on the objective)."""
    M = n_metrics
    s1: list[int] = []
    a1: list[float] = []
    s2: list[int] = []
    a2: list[float] = []
    e: list[float] = []
    kinds: list[str] = []
    arms: list[int] = []
    starts: list[int] = []

    def guard_test(k, g, keep):
        m, s, b = int(guards.metric[g]), float(guards.sign[g]), float(guards.bound[g])
        flip = -1.0 if keep else 1.0  # break: {h >= 0}; keep: {-h >= 0}
        s1.append(k * M + m)
        a1.append(flip * s)
        if guards.relative[g]:
            s2.append(control * M + m)
            a2.append(-flip * s)
        else:
            s2.append(-1)
            a2.append(0.0)
        e.append(flip * b)
        kinds.append("keep" if keep else "break")
        arms.append(k)

    n_guards = guards.metric.shape[0]
    if answer >= 0:
        for g in range(n_guards):
            if guards.applies(answer, control)[g]:
                starts.append(len(e))
                guard_test(answer, g, keep=False)
        for b in range(n_arms):
            if b == answer:
                continue
            starts.append(len(e))
            s1.append(b * M)
            a1.append(sense)
            s2.append(answer * M)
            a2.append(-sense)
            e.append(float(epsilon))
            kinds.append("objective")
            arms.append(b)
            for g in range(n_guards):
                if guards.applies(b, control)[g]:
                    guard_test(b, g, keep=True)
    else:
        for k in range(n_arms):
            starts.append(len(e))
            for g in range(n_guards):
                if guards.applies(k, control)[g]:
                    guard_test(k, g, keep=True)
    return Tests(np.array(s1, dtype=np.int64), np.array(a1, dtype=float), np.array(s2, dtype=np.int64),
                 np.array(a2, dtype=float), np.array(e, dtype=float), np.array(starts, dtype=np.int64),
                 tuple(kinds), np.array(arms, dtype=np.int64))
