"""The Bernoulli KL confidence bounds: the replayed bisection equals the plain 60-step bisection bit for bit."""

import math

import numpy as np
import pytest
from numba import njit
from scipy.optimize import brentq

from pybai.models import _kl


@njit(cache=True)
def plain_bisection(x, n, level, edge):
    """The bounds' definition: 60 bisection steps, every one evaluating the divergence."""
    inside = min(max(x, 0.0), 1.0)
    outside = edge
    if n * _kl.kl(_kl.BERNOULLI, x, outside, 1.0) <= level:
        return edge
    for _ in range(60):
        mid = 0.5 * (inside + outside)
        if n * _kl.kl(_kl.BERNOULLI, x, mid, 1.0) > level:
            outside = mid
        else:
            inside = mid
    return inside


@njit(cache=True)
def mismatches(xs, ns, levels):
    bad = 0
    for i in range(xs.shape[0]):
        x, n, level = xs[i], ns[i], levels[i]
        if plain_bisection(x, n, level, 1.0) != _kl.upper_bound(_kl.BERNOULLI, x, n, 1.0, level):
            bad += 1
        if plain_bisection(x, n, level, 0.0) != _kl.lower_bound(_kl.BERNOULLI, x, n, 1.0, level):
            bad += 1
    return bad


def _inputs(seed, size):
    """Sample means of n Bernoulli draws (and some arbitrary points, 0 and 1), n up to 1e6, levels 1e-9..150."""
    rng = np.random.default_rng(seed)
    ns = np.floor(np.exp(rng.uniform(0.0, 14.0, size)))
    xs = np.round(rng.uniform(0.0, 1.0, size) * ns) / ns
    xs[::5] = rng.uniform(0.0, 1.0, size)[::5]
    xs[::11] = 0.0
    xs[::13] = 1.0
    levels = np.exp(rng.uniform(-20.0, 5.0, size))
    return xs, ns, levels


@pytest.mark.parametrize("seed", [0, 1])
def test_bounds_equal_the_plain_bisection_bit_for_bit(seed):
    xs, ns, levels = _inputs(seed, 50_000)
    assert mismatches(xs, ns, levels) == 0


@pytest.mark.parametrize("x,n,level", [(0.0, 1.0, 1e-300), (1.0, 5.0, 0.0), (0.5, 1e12, 1e-6), (1e-9, 3.0, 2.0),
                                       (0.999999, 1e7, 3.0), (0.3, 1.0, 50.0), (0.25, 4.0, 0.0)])
def test_edge_cases_equal_the_plain_bisection(x, n, level):
    assert _kl.upper_bound(_kl.BERNOULLI, x, n, 1.0, level) == plain_bisection(x, n, level, 1.0)
    assert _kl.lower_bound(_kl.BERNOULLI, x, n, 1.0, level) == plain_bisection(x, n, level, 0.0)


def test_bounds_are_on_the_safe_side_of_the_root_and_close_to_it():
    """n d(x, bound) <= level (the bound is the inside point), at the root (brentq) up to the rounding of f."""
    xs, ns, levels = _inputs(5, 300)
    for x, n, level in zip(xs, ns, levels):
        for edge, bound in ((1.0, _kl.upper_bound), (0.0, _kl.lower_bound)):
            b = bound(_kl.BERNOULLI, x, n, 1.0, level)
            assert n * _kl.kl(_kl.BERNOULLI, x, b, 1.0) <= level
            if b == edge:
                continue

            def f(q):
                return n * _kl.kl(_kl.BERNOULLI, x, q, 1.0) - level

            root = brentq(f, x, edge, xtol=1e-300, rtol=1e-15)
            slope = n * abs(root - x) / (root * (1.0 - root))  # f'(root): rounding of f moves the root by ~u n / f'
            resolution = abs(edge - x) * 2.0 ** -59  # 60 halvings of the segment
            assert abs(b - root) <= 1e-12 * root + 100.0 * 2.2e-16 * (level + n) / slope + resolution


def test_the_window_is_proven_on_typical_inputs():
    """The fast path runs: a window strictly inside the segment, the root between its ends."""
    for x, n, level in ((0.3, 400.0, 5.0), (0.21, 1000.0, 4.0), (0.05, 30.0, 2.0)):
        for edge in (1.0, 0.0):
            side = 1.0 if edge > x else -1.0
            near, far = _kl._known_window(_kl.BERNOULLI, x, n, 1.0, level, x, edge, side)
            root = plain_bisection(x, n, level, edge)
            assert near != x and far != edge
            assert side * (root - near) > 0.0 and side * (far - root) > 0.0
            assert abs(far - near) < 1e-9 * max(abs(root), 1e-3)
            assert not math.isnan(near + far)
