import itertools

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from pybai import Bernoulli, BestArmProblem, FixedConfidence, Gaussian
from pybai.models import _kl


def problem(means, family="gaussian", sigma=1.0):
    k = len(means)
    fam = Gaussian(sigma, n_sources=k) if family == "gaussian" else Bernoulli(n_sources=k)
    return BestArmProblem(k, fam, FixedConfidence(0.1))


def pair_value(w, means, kl, best, a):
    """inf over lambda_a >= lambda_best of w_best d(mu_best, l) + w_a d(mu_a, l), by 1-d search."""
    res = minimize_scalar(
        lambda m: w[best] * kl(means[best], m, best) + w[a] * kl(means[a], m, a),
        bounds=(means[a], means[best]),
        method="bounded",
        options={"xatol": 1e-12},
    )
    return res.fun


def brute_force_tstar(means, kl, grid=120):
    """max over a grid of the simplex (K = 3) of min_a pair values."""
    means = np.asarray(means)
    best = int(np.argmax(means))
    others = [a for a in range(3) if a != best]
    value, arg = -1.0, None
    for i, j in itertools.product(range(1, grid), repeat=2):
        if i + j >= grid:
            continue
        w = np.empty(3)
        w[best], w[others[0]], w[others[1]] = i / grid, j / grid, 1 - (i + j) / grid
        v = min(pair_value(w, means, kl, best, a) for a in others)
        if v > value:
            value, arg = v, w
    return 1.0 / value, arg


def test_gk16_table2_instances():
    t1, w1 = problem([0.5, 0.45, 0.43, 0.4], "bernoulli").oracle([0.5, 0.45, 0.43, 0.4])
    assert t1 == pytest.approx(989.79, abs=0.01)
    np.testing.assert_allclose(w1, [0.417, 0.390, 0.136, 0.057], atol=5e-4)
    t2, w2 = problem([0.3, 0.21, 0.2, 0.19, 0.18], "bernoulli").oracle([0.3, 0.21, 0.2, 0.19, 0.18])
    assert t2 == pytest.approx(326.64, abs=0.01)
    np.testing.assert_allclose(w2, [0.336, 0.251, 0.177, 0.132, 0.104], atol=5e-4)


@pytest.mark.parametrize(
    "means,family,sigma",
    [
        ([1.0, 0.5, 0.0], "gaussian", 1.0),
        ([0.2, 0.9, 0.5], "gaussian", [1.0, 0.5, 2.0]),
        ([0.6, 0.5, 0.2], "bernoulli", 1.0),
        ([0.1, 0.05, 0.3], "bernoulli", 1.0),
    ],
)
def test_oracle_matches_brute_force(means, family, sigma):
    p = problem(means, family, sigma)
    var = p.family.variances
    if family == "gaussian":
        kl = lambda x, y, a: (x - y) ** 2 / (2 * var[a])  # noqa: E731
    else:
        kl = lambda x, y, a: _kl.kl(_kl.BERNOULLI, x, y, 1.0)  # noqa: E731
    t_star, w = p.oracle(means)
    t_grid, w_grid = brute_force_tstar(means, kl)
    # the exact optimum is at least as good as any grid point, and the grid is close
    assert t_star <= t_grid * (1 + 1e-9)
    assert t_star == pytest.approx(t_grid, rel=1e-2)
    np.testing.assert_allclose(w, w_grid, atol=0.03)
    # exactness: the optimal weights equalise the pair values, and their min is 1/T*
    best = int(np.argmax(means))
    values = [pair_value(w, np.asarray(means), kl, best, a) for a in range(3) if a != best]
    np.testing.assert_allclose(values, 1.0 / t_star, rtol=1e-7)


@pytest.mark.parametrize("seed", range(5))
def test_oracle_invariances(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 8))
    means = rng.normal(size=k)
    p = problem(means)
    t_star, w = p.oracle(means)
    assert w.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.all(w > 0)
    t_shift, w_shift = p.oracle(means + 3.7)
    assert t_shift == pytest.approx(t_star, rel=1e-9)
    np.testing.assert_allclose(w_shift, w, rtol=1e-7)
    perm = rng.permutation(k)
    t_perm, w_perm = p.oracle(means[perm])
    assert t_perm == pytest.approx(t_star, rel=1e-9)
    np.testing.assert_allclose(w_perm, w[perm], rtol=1e-7)
    # scaling sigma by s multiplies T* by s^2
    p2 = problem(means, sigma=2.0)
    assert p2.oracle(means)[0] == pytest.approx(4 * t_star, rel=1e-9)


def test_two_gaussian_arms_closed_form():
    # K = 2, equal variances: w* = (1/2, 1/2), T* = 8 sigma^2 / Delta^2
    t_star, w = problem([1.0, 0.25], sigma=1.5).oracle([1.0, 0.25])
    assert t_star == pytest.approx(8 * 1.5**2 / 0.75**2, rel=1e-12)
    np.testing.assert_allclose(w, [0.5, 0.5], rtol=1e-12)


def test_degenerate_instances():
    t_star, w = problem([1.0, 1.0, 0.0]).oracle([1.0, 1.0, 0.0])
    assert t_star == np.inf
    np.testing.assert_allclose(w, [0.5, 0.5, 0.0])  # uniform on the tied leaders
    # ... which is the limit of w*(mu) when the two leaders merge
    _, w_near = problem([1.0, 1.0 - 1e-6, 0.0]).oracle([1.0, 1.0 - 1e-6, 0.0])
    np.testing.assert_allclose(w_near, [0.5, 0.5, 0.0], atol=1e-5)
    assert problem([1.0, 1.0]).glr(np.array([5.0, 5.0]), np.array([1.0, 1.0])) == 0.0


def test_glr_matches_brute_force():
    rng = np.random.default_rng(3)
    for family in ("gaussian", "bernoulli"):
        for _ in range(10):
            k = 4
            means = rng.uniform(0.05, 0.95, size=k)
            counts = rng.integers(1, 50, size=k).astype(float)
            p = problem(means, family)
            var = p.family.variances
            if family == "gaussian":
                kl = lambda x, y, a: (x - y) ** 2 / (2 * var[a])  # noqa: E731
            else:
                kl = lambda x, y, a: _kl.kl(_kl.BERNOULLI, x, y, 1.0)  # noqa: E731
            best = int(np.argmax(means))
            expected = min(pair_value(counts, means, kl, best, a) for a in range(k) if a != best)
            assert p.glr(counts, means) == pytest.approx(expected, rel=1e-6)


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=60, deadline=None)
@given(
    means=st.lists(st.floats(0.02, 0.98), min_size=2, max_size=8, unique=True),
    family=st.sampled_from(["gaussian", "bernoulli"]),
)
def test_glr_at_optimal_allocation_is_t_over_tstar(means, family):
    """max-min duality: the GLR of the true means under counts t w* equals t / T* (exactly)."""
    means = np.asarray(means)
    if np.sort(means)[-1] - np.sort(means)[-2] < 1e-3:
        return  # near-ties: T* too large for a meaningful relative check
    p = problem(means, family)
    t_star, w = p.oracle(means)
    t = 1000.0
    assert p.glr(t * w, means) == pytest.approx(t / t_star, rel=1e-8)
    # and no other allocation does better (w* is the maximiser)
    rng = np.random.default_rng(0)
    for v in rng.dirichlet(np.ones(len(means)), size=20):
        assert p.glr(t * v, means) <= t / t_star * (1 + 1e-9)
