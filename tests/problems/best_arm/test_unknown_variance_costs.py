import math

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from pybai.models import _kl
from pybai.models._transport import transport_pair, transport_pair_cost
from pybai.models.unknown_variance import MeansAndVariances as GaussianUnknownVariance
from pybai.problems.best_arm import _kernels

PLUGIN, TRANSPORT = _kl.GAUSSIAN, _kl.GAUSSIAN_UV


def plugin_pair_cost(n1, x1, s1, n2, x2, s2):
    """The EV-GLR pair cost: the known-variance Gaussian cost with the variances plugged in."""
    if s1 == 0.0 and s2 == 0.0:
        return np.inf if x1 > x2 else 0.0
    return _kl.pair_cost(_kl.GAUSSIAN, n1, x1, s1, n2, x2, s2)


def glr_best_arm_uv(code, counts, means, variances):
    return _kernels.glr_best_arm(code, counts, means, variances)


def objective(u, n1, x1, s1, n2, x2, s2):
    return 0.5 * n1 * np.log1p((x1 - u) ** 2 / s1) + 0.5 * n2 * np.log1p((x2 - u) ** 2 / s2)


def objective_t(t, n1, x1, s1, n2, x2, s2):
    """The objective at u = x2 + t (x1 - x2), with x1 - u and u - x2 formed without cancellation."""
    d = x1 - x2
    return 0.5 * n1 * np.log1p(((1 - t) * d) ** 2 / s1) + 0.5 * n2 * np.log1p((t * d) ** 2 / s2)


def brute_force(*args):
    """A fine grid over t in [0, 1], then a bounded scalar search around each of the best grid points."""
    grid = np.linspace(0.0, 1.0, 20001)
    values = objective_t(grid, *args)
    best = values.min()
    step = grid[1] - grid[0]
    for i in np.argsort(values)[:5]:
        lo, hi = max(0.0, grid[i] - step), min(1.0, grid[i] + step)
        res = minimize_scalar(objective_t, bounds=(lo, hi), method="bounded", args=args,
                              options={"xatol": 1e-14})
        best = min(best, res.fun)
    return best


def random_instances(seed, count):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n1, n2 = rng.integers(2, 300, size=2).astype(float)
        x2 = rng.normal(0, 10)
        d = 10 ** rng.uniform(-3, 1)
        s1, s2 = 10 ** rng.uniform(-4, 3, size=2)
        yield n1, x2 + d, s1, n2, x2, s2


def test_transport_cost_matches_brute_force_on_random_instances():
    for args in random_instances(0, 300):
        z, u = transport_pair(*args)
        ref = brute_force(*args)
        n1, x1, s1, n2, x2, s2 = args
        assert x2 <= u <= x1
        assert z == pytest.approx(objective(u, *args), rel=1e-9)    # the value is the cost at the point
        assert z <= ref * (1 + 1e-12)                              # never above any point the search finds
        assert z == pytest.approx(ref, rel=1e-10)


@pytest.mark.parametrize("n1, n2", [(10.0, 10.0), (10.0, 14.0), (30.0, 7.0)])
def test_transport_cost_finds_the_global_minimum_of_a_two_well_objective(n1, n2):
    # small variances: ln(1 + x^2) is concave for |x| > 1 and the objective has a local minimum near
    # each mean (a single bisection on the derivative could stop at either, or at the maximum between)
    x1, x2, s1, s2 = 1.0, 0.0, 1e-3, 2e-3
    grid = np.linspace(x2, x1, 200001)
    values = objective(grid, n1, x1, s1, n2, x2, s2)
    interior_minima = np.flatnonzero((values[1:-1] < values[:-2]) & (values[1:-1] < values[2:]))
    assert interior_minima.size == 2
    z, u = transport_pair(n1, x1, s1, n2, x2, s2)
    assert z == pytest.approx(brute_force(n1, x1, s1, n2, x2, s2), rel=1e-10)
    assert abs(u - grid[np.argmin(values)]) < 1e-4


def test_plugin_cost_is_the_known_variance_gaussian_cost_with_the_variances_plugged_in():
    for n1, x1, s1, n2, x2, s2 in random_instances(1, 200):
        known = _kl.pair_cost(_kl.GAUSSIAN, n1, x1, s1, n2, x2, s2)
        assert plugin_pair_cost(n1, x1, s1, n2, x2, s2) == pytest.approx(known, rel=1e-14)
    rng = np.random.default_rng(2)
    for _ in range(50):
        k = rng.integers(2, 8)
        counts = rng.integers(2, 100, size=k).astype(float)
        means = rng.normal(size=k)
        variances = 10 ** rng.uniform(-2, 2, size=k)
        z, best = glr_best_arm_uv(PLUGIN, counts, means, variances)
        z_known, best_known = _kernels.glr_best_arm(_kl.GAUSSIAN, counts, means, variances)
        assert best == best_known and z == pytest.approx(z_known, rel=1e-14)


def test_transport_cost_is_between_two_plugin_costs():
    # ln(1+x) <= x gives T <= plug-in; ln(1+x) >= x/(1+x) with (mu - u)^2 <= D^2 on [x2, x1]
    # gives T >= the plug-in cost with the variances s + D^2
    for n1, x1, s1, n2, x2, s2 in random_instances(3, 300):
        t = transport_pair_cost(n1, x1, s1, n2, x2, s2)
        d2 = (x1 - x2) ** 2
        assert t <= plugin_pair_cost(n1, x1, s1, n2, x2, s2) * (1 + 1e-12)
        assert t >= plugin_pair_cost(n1, x1, s1 + d2, n2, x2, s2 + d2) * (1 - 1e-12)


def test_both_costs_vanish_without_a_gap_and_grow_with_it():
    for cost in (plugin_pair_cost, transport_pair_cost):
        assert cost(10.0, 0.3, 1.0, 20.0, 0.3, 2.0) == 0.0
        assert cost(10.0, 0.2, 1.0, 20.0, 0.3, 2.0) == 0.0     # arm 1 below arm 2: nothing to reject
        assert cost(0.0, 1.0, 1.0, 20.0, 0.3, 2.0) == 0.0      # no sample
        values = [cost(10.0, gap, 1.0, 20.0, 0.0, 2.0) for gap in np.geomspace(1e-3, 1e2, 40)]
        assert np.all(np.diff(values) > 0)
        more = [cost(n, 1.0, 1.0, 20.0, 0.0, 2.0) for n in range(2, 40)]
        assert np.all(np.diff(more) > 0)


def test_transport_cost_symmetries():
    for n1, x1, s1, n2, x2, s2 in random_instances(4, 100):
        t = transport_pair_cost(n1, x1, s1, n2, x2, s2)
        # a shift and a scale of the rewards leave it unchanged (s scales as the square)
        assert transport_pair_cost(n1, 3 * x1 + 5, 9 * s1, n2, 3 * x2 + 5, 9 * s2) == pytest.approx(t, rel=1e-9)
        # reflecting the rewards swaps the roles of the two arms
        assert transport_pair_cost(n2, -x2, s2, n1, -x1, s1) == pytest.approx(t, rel=1e-12)


def test_zero_variances():
    d2 = 0.25
    assert transport_pair(10.0, 1.0, 0.0, 20.0, 0.5, 2.0) == (pytest.approx(10.0 * np.log1p(d2 / 2.0)), 1.0)
    assert transport_pair(10.0, 1.0, 3.0, 20.0, 0.5, 0.0) == (pytest.approx(5.0 * np.log1p(d2 / 3.0)), 0.5)
    assert transport_pair_cost(10.0, 1.0, 0.0, 20.0, 0.5, 0.0) == np.inf
    assert plugin_pair_cost(10.0, 1.0, 0.0, 20.0, 0.5, 0.0) == np.inf


def test_best_arm_glr_from_the_model():
    rng = np.random.default_rng(5)
    sigma = np.array([1.0, 0.2, 2.0, 0.5])
    means = np.array([0.0, 0.5, 0.1, 0.3])
    model = GaussianUnknownVariance(4)
    sources = np.repeat(np.arange(4), 50)
    model.update(sources, rng.normal(means[sources], sigma[sources]))
    for kind, cost in ((PLUGIN, plugin_pair_cost), (TRANSPORT, transport_pair_cost)):
        z, best = glr_best_arm_uv(kind, model.counts, model.estimate, model.variances)
        assert best == int(np.argmax(model.estimate))
        pairs = [cost(model.counts[best], model.estimate[best], model.variances[best],
                      model.counts[b], model.estimate[b], model.variances[b]) for b in range(4) if b != best]
        assert z == min(pairs) > 0
    # a tie gives 0; an arm without a variance gives NaN (never a stop)
    assert glr_best_arm_uv(TRANSPORT, np.array([5.0, 5.0]), np.array([1.0, 1.0]), np.ones(2))[0] == 0.0
    one = GaussianUnknownVariance(3)
    one.update(np.array([0, 0, 1, 1, 2]), np.array([1.0, 2.0, 0.0, 0.5, 0.2]))
    for kind in (PLUGIN, TRANSPORT):
        assert np.isnan(glr_best_arm_uv(kind, one.counts, one.estimate, one.variances)[0])


@pytest.mark.parametrize("args", [
    (5.0, 1e-300, 1e-12, 5.0, 0.0, 1e-12),       # constant arms 1e-300 apart (variances at the floor)
    (5.0, 5e-324, 1e-12, 5.0, 0.0, 1e-12),       # a subnormal difference
    (3.0, 1e-160, 1e-320, 4.0, 0.0, 1e-12),      # a subnormal variance on one side
    (5.0, 1.0, 1e-300, 5.0, 0.0, 1e-300),        # ratios near the top of the floats
    (5.0, 1e100, 1e-300, 5.0, -1e100, 1.0),      # a ratio that overflows: that mean is pinned
    (5.0, 1e100, 1e-300, 5.0, -1e100, 1e-300),   # both overflow
    (5.0, 1.0, 0.0, 5.0, 0.0, 1.0),              # a variance of 0
])
def test_transport_pair_at_degenerate_scales_divides_by_no_underflowed_number(args):
    z, u = transport_pair(*args)
    n1, x1, s1, n2, x2, s2 = args
    assert z >= 0.0 and x2 <= u <= x1
    if s1 > 0.0 and s2 > 0.0 and math.isfinite(z):
        # the value is the objective at u, within the first-order bound of the end solutions (1e-280 n)
        assert z == pytest.approx(objective(u, *args), rel=1e-9, abs=1e-270)
    if x1 - x2 < 1e-150:
        assert z < 1e-250  # nothing separates arms 1e-300 apart


def test_transport_pair_keeps_its_arithmetic_on_usual_scales():
    from pybai.models._transport import _transport_t

    for n1, x1, s1, n2, x2, s2 in random_instances(3, 100):
        d2 = (x1 - x2) ** 2
        h, t = _transport_t(n1 / (n1 + n2), s1 / d2, s2 / d2)
        assert transport_pair(n1, x1, s1, n2, x2, s2) == (0.5 * (n1 + n2) * h, x2 + t * (x1 - x2))


@pytest.mark.parametrize("code", [PLUGIN, TRANSPORT])
def test_the_oracle_is_scale_free_down_to_the_smallest_allowed_sigma(code):
    """Gaussian arms with sigma = 1e-100 (the end of the allowed range): products of two variances underflow;
    T* and w* are those of the same arms at scale 1."""
    means, var = np.array([1.0, 0.9, 0.5, 0.2]), np.ones(4)
    t1, w1 = _kernels.oracle_best_arm(code, means, var)
    for scale in (1e-100, 1e100):
        t, w = _kernels.oracle_best_arm(code, means * scale, var * scale * scale)
        assert t == pytest.approx(t1, rel=1e-9) and np.allclose(w, w1, rtol=1e-9)
        tw, ww = _kernels.oracle_best_arm_warm(code, means * scale, var * scale * scale, np.zeros(5))
        assert tw == pytest.approx(t1, rel=1e-9)


def test_a_warm_start_below_the_smallest_normal_float_gives_an_infinite_time():
    """Bernoulli-coded means 1e-300 apart (binomial fractions within the 1e-9 tolerance, bounded rewards): the
    warm start of the last step may underflow; T* is then infinite, never a division by 0."""
    means = np.array([0.0, 1e-300, 2e-300, 3e-300])
    t, w = _kernels.oracle_best_arm_warm(_kl.BERNOULLI, means, np.ones(4), np.array([5.18e-317, 0, 0, 0, 0.0]))
    assert t == math.inf or t > 1e40
    assert np.isclose(w.sum(), 1.0)
