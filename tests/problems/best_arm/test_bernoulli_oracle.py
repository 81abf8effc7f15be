"""The Bernoulli oracle's warm-started joint Newton solve against a reference root finder.

The reference solves Garivier & Kaufmann (2016), Theorem 5, with scipy's brentq at every level
(x_a(y) from g_a(x) = y, then F_mu(y) = 1), independently of the numba kernels.
"""

import math

import numpy as np
import pytest
from scipy.optimize import brentq

from pybai.problems.best_arm import _kernels as K

BERNOULLI = 1


def _kl(p, q):
    out = 0.0
    if p > 0.0:
        out += p * math.log(p / q)
    if p < 1.0:
        out += (1.0 - p) * math.log((1.0 - p) / (1.0 - q))
    return out


def reference_oracle(mu):
    """(T*, w*) by nested brentq solves (tolerances at rounding level)."""
    mu = np.asarray(mu, dtype=float)
    best = int(np.argmax(mu))
    others = [a for a in range(mu.size) if a != best]

    def pooled(x, a):
        return (mu[best] + x * mu[a]) / (1.0 + x)

    def x_of_y(y, a):
        def g(x):
            return _kl(mu[best], pooled(x, a)) + x * _kl(mu[a], pooled(x, a)) - y

        hi = 1.0
        while g(hi) < 0.0:
            hi *= 2.0
        return brentq(g, 0.0, hi, xtol=1e-300, rtol=1e-15, maxiter=500)

    def f(y):
        total = -1.0
        for a in others:
            m = pooled(x_of_y(y, a), a)
            total += _kl(mu[best], m) / _kl(mu[a], m)
        return total

    y_max = min(_kl(mu[best], mu[a]) for a in others)
    hi = 0.5
    while f(y_max * (1.0 - hi)) <= 0.0:  # F grows without bound at y_max
        hi *= 0.5
    y = brentq(f, y_max * 1e-12, y_max * (1.0 - hi), xtol=1e-300, rtol=1e-15, maxiter=500)
    xs = np.zeros(mu.size)
    for a in others:
        xs[a] = x_of_y(y, a)
    xs[best] = 1.0
    return (1.0 + xs.sum() - 1.0) / y, xs / xs.sum()


def random_instances(n, seed=7):
    """Bernoulli means in [0.02, 0.98] whose best arm leads the next by at least 0.01."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        mu = rng.uniform(0.02, 0.98, size=int(rng.integers(2, 9)))
        top = np.sort(mu)
        if top[-1] - top[-2] >= 0.01:
            out.append(mu)
    return out


def _close(t, w, t_ref, w_ref):
    assert abs(t - t_ref) <= 1e-10 * t_ref
    np.testing.assert_allclose(w, w_ref, rtol=1e-10, atol=0.0)


@pytest.mark.parametrize("mu", random_instances(12), ids=lambda m: f"K{m.size}")
def test_cold_and_warm_solves_match_the_reference(mu):
    t_ref, w_ref = reference_oracle(mu)
    var = np.ones(mu.size)
    t_cold, w_cold = K.oracle_best_arm(BERNOULLI, mu, var)
    _close(t_cold, w_cold, t_ref, w_ref)
    # warm start from the solution at nearby means: the joint Newton solve
    rng = np.random.default_rng(int(mu.size))
    near = np.clip(mu + rng.normal(0.0, 0.003, mu.size), 0.01, 0.99)
    near[np.argmax(mu)] = mu.max()  # the same best arm
    hint = np.zeros(mu.size + 1)
    K.oracle_best_arm_warm(BERNOULLI, near, var, hint)
    best = int(np.argmax(mu))
    y_max = min(_kl(mu[best], mu[a]) for a in range(mu.size) if a != best)
    probe = hint.copy()
    y = K._joint_newton(BERNOULLI, mu, var, best, y_max, probe[0], probe[1:])
    assert y > 0.0  # the joint path runs
    t_warm, w_warm = K.oracle_best_arm_warm(BERNOULLI, mu, var, hint)
    _close(t_warm, w_warm, t_ref, w_ref)
    assert hint[0] == y and np.array_equal(hint[1:], probe[1:])  # the oracle used the joint solve


def test_a_track_and_stop_like_sequence_stays_on_the_cold_solution():
    """Means moving one sample at a time (and the best arm changing): every warm solve within 1e-10."""
    rng = np.random.default_rng(3)
    truth = np.array([0.3, 0.21, 0.2, 0.19, 0.18])
    counts = np.full(5, 20.0)
    sums = np.array([7.0, 6.0, 3.0, 4.0, 2.0])  # arm 1 leads at first
    hint = np.zeros(6)
    var = np.ones(5)
    checked = 0
    for _ in range(400):
        a = int(rng.integers(5))
        counts[a] += 1
        sums[a] += float(rng.random() < truth[a])
        mu = sums / counts
        t_warm, w_warm = K.oracle_best_arm_warm(BERNOULLI, mu, var, hint)
        t_cold, w_cold = K.oracle_best_arm(BERNOULLI, mu, var)
        if not math.isfinite(t_cold):
            assert not math.isfinite(t_warm)
            continue
        top = np.sort(mu)
        if top[-1] - top[-2] < 0.01:  # near ties: both solves are at the rounding noise of the KL terms
            assert abs(t_warm - t_cold) <= 1e-6 * t_cold
            continue
        _close(t_warm, w_warm, t_cold, w_cold)
        checked += 1
    assert checked > 200


@pytest.mark.parametrize("hint", [[1e-9, 1e6, 1e6, 1e6], [0.999, 1e-12, 5.0, 1e-12], [0.5, 0.0, 1.0, 1.0],
                                  [0.1, math.nan, 1.0, 1.0]])
def test_a_bad_hint_falls_back_to_the_nested_solve(hint):
    mu = np.array([0.6, 0.5, 0.45, 0.3])
    t_ref, w_ref = reference_oracle(mu)
    h = np.array(hint, dtype=float)
    h[0] *= _kl(0.6, 0.5)
    h = np.concatenate([h, [1.0]])[:5]
    t, w = K.oracle_best_arm_warm(BERNOULLI, mu, np.ones(4), h)
    _close(t, w, t_ref, w_ref)
