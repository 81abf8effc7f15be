"""The compiled pieces of the guardrail oracle's grid search give exactly what their array forms give."""

import numpy as np

from pybai import FixedConfidence
from pybai.problems.guardrails import GuardrailProblem, Metric
from pybai.problems.guardrails.oracle import _alternatives, _flat, _grid, _smallest, _totals


def _totals_array_form(items, hub_n):
    """The totals of the grid search written with whole-array operations (the reference)."""
    P = hub_n.shape[0]
    total = hub_n.sum(axis=1)
    for arm, alts in items:
        if arm >= 0:
            need = np.full(P, np.inf)
            for D, hub_terms, own in alts:
                rest = D - sum(v / hub_n[:, h] for h, v in hub_terms) if hub_terms else np.full(P, D)
                with np.errstate(divide="ignore"):
                    need = np.minimum(need, np.where(rest > 0, own / np.where(rest > 0, rest, 1.0), np.inf))
            total = total + need
        else:
            ok = np.zeros(P, dtype=bool)
            for D, hub_terms, _ in alts:
                ok |= sum(v / hub_n[:, h] for h, v in hub_terms) <= D
            total = np.where(ok, total, np.inf)
    return total


def test_totals_equal_the_array_form():
    metrics = [Metric("revenue", sigma=1.0), Metric("latency", sigma=1.0, at_most=0.0),
               Metric("refunds", reward_model="bernoulli", at_most_vs_control=0.05)]
    p = GuardrailProblem(4, metrics, FixedConfidence(0.1))
    rng = np.random.default_rng(1)
    checked = set()
    for _ in range(40):
        mu = np.column_stack([rng.normal(size=4), rng.normal(scale=0.4, size=4), rng.uniform(0.1, 0.3, 4)]).ravel()
        a = p.answer(mu)
        hubs = [h for h in (a, p.control) if h >= 0]
        hubs = sorted(set(hubs), key=hubs.index)
        items = _alternatives(p.tests(a), mu, p.variances, p.n_metrics, hubs)
        points = _grid(np.full(len(hubs), 1e-6), np.full(len(hubs), 1e3), 41) if hubs else np.zeros((1, 0))
        got, want = _totals(_flat(items), points), _totals_array_form(items, points)
        assert np.array_equal(got, want)
        checked.add((len(hubs), bool(np.isinf(want).any())))
    assert {(1, True), (2, True)} <= checked


def test_smallest_is_the_stable_sort_head():
    rng = np.random.default_rng(0)
    for _ in range(2000):
        n = int(rng.integers(1, 60))
        v = rng.integers(0, 6, n).astype(float)  # many ties
        v[rng.random(n) < 0.2] = np.inf
        k = int(rng.integers(1, 6))
        assert np.array_equal(_smallest(v, k), np.argsort(v, kind="stable")[:k])
