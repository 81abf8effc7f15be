"""The one-sided invariant t-test Bayes factor and its Student-t lower bound (pybai.models._invariant)."""

import math

import numpy as np
import pytest
from scipy import integrate, special

from pybai.models._invariant import (
    PRECISIONS, _log_t_density_constant, log_bayes_factor, log_bayes_factor_one_sided, log_t_cdf_lower)


def by_integration(x, lam, sign, c):
    """ln of the definition: half-normal prior 2 N(0, 1/c) on sign * effect >= 0, Haar prior on the scale."""
    n = x.size
    z = x - lam
    s_y = np.sum(z) / np.linalg.norm(z)
    shift = (n - 1) * math.log(math.sqrt(n - 1)) - (n - 1) / 2  # keeps the integrands near 1

    def scale_integral(eta):
        return integrate.quad(lambda r: math.exp((n - 1) * math.log(r) - r * r / 2 + r * eta * s_y
                                                 - n * eta * eta / 2 - shift), 0, np.inf, limit=200)[0]

    null = integrate.quad(lambda r: math.exp((n - 1) * math.log(r) - r * r / 2 - shift), 0, np.inf)[0]
    prior = lambda eta: 2 * math.sqrt(c / (2 * math.pi)) * math.exp(-c * eta * eta / 2)  # noqa: E731
    lo, hi = (0, np.inf) if sign > 0 else (-np.inf, 0)
    return math.log(integrate.quad(lambda e: prior(e) * scale_integral(e), lo, hi)[0] / null)


def closed_form(x, lam, sign, c):
    """2 B_c P(T_n <= sign S_y sqrt(n / (n + c - S_y^2))) with scipy's exact t distribution function."""
    n = x.size
    d = x.mean() - lam
    v = np.sum((x - lam) ** 2)
    s_y = n * d / math.sqrt(v)
    two_sided = 0.5 * math.log(c / (n + c)) - 0.5 * n * math.log1p(-s_y * s_y / (n + c))
    return two_sided + math.log(2) + math.log(special.stdtr(n, sign * s_y * math.sqrt(n / (n + c - s_y * s_y))))


def test_closed_form_is_the_definition_and_the_kernel_bounds_it_from_below():
    rng = np.random.default_rng(8)
    for _ in range(8):
        n = int(rng.integers(2, 10))
        x = rng.normal(0.5, 1.3, n)
        lam, sign, c = float(rng.normal()), float(rng.choice([-1.0, 1.0])), float(rng.choice(PRECISIONS[:6]))
        exact = closed_form(x, lam, sign, c)
        assert exact == pytest.approx(by_integration(x, lam, sign, c), abs=1e-6)
        got = log_bayes_factor_one_sided(float(n), float(x.mean()), float(np.sum((x - x.mean()) ** 2)), lam,
                                         np.array([c]), sign)
        assert got <= exact + 1e-12
        if sign * (x.mean() - lam) > 0:  # the prior's side: the bound is close
            assert got >= exact - 0.25


def test_t_bound_is_below_scipy_and_nondecreasing():
    w = np.linspace(-25, 25, 20001)
    for nu in (2.0, 3.0, 11.0, 80.0, 5e4):
        log_const = _log_t_density_constant(nu)
        assert log_const == pytest.approx(special.gammaln((nu + 1) / 2) - special.gammaln(nu / 2)
                                          - 0.5 * math.log(nu * math.pi), abs=1e-9)
        got = np.array([log_t_cdf_lower(nu, v, log_const) for v in w])
        exact = np.log(special.stdtr(nu, w))
        assert np.all(got <= exact + 1e-12)
        assert np.all(np.diff(got) >= 0.0)
        assert np.max((exact - got)[w >= 0]) < 0.25
        if nu >= 50:
            assert np.max((exact - got)[w >= 3]) < 3e-4


def test_one_sided_factor_is_monotone_gains_at_most_ln2_and_has_mean_at_most_one():
    rng = np.random.default_rng(4)
    c = np.array(PRECISIONS)
    for _ in range(20):
        n = float(rng.integers(2, 200))
        xbar, sq = float(rng.normal()), n * float(rng.uniform(0.1, 3))
        lams = np.linspace(xbar - 3, xbar + 3, 301)
        up = np.array([log_bayes_factor_one_sided(n, xbar, sq, q, c, 1.0) for q in lams])
        down = np.array([log_bayes_factor_one_sided(n, xbar, sq, q, c, -1.0) for q in lams])
        two = np.array([log_bayes_factor(n, xbar, sq, q, c) for q in lams])
        assert np.all(np.diff(up) <= 1e-12) and np.all(np.diff(down) >= -1e-12)
        assert np.all(up <= two + math.log(2) + 1e-12) and np.all(down <= two + math.log(2) + 1e-12)
    # the exact one-sided factor has mean 1 under the null (a probability mixture of likelihood
    # ratios of the maximal invariant); the kernel's value is below it
    n, lam = 6, -0.4
    x = rng.normal(lam, 2.5, size=(100_000, n))
    d = x.mean(axis=1) - lam
    s_y = n * d / np.sqrt(np.sum((x - lam) ** 2, axis=1))
    exact = np.zeros(x.shape[0])
    for cj in PRECISIONS:
        two = 0.5 * np.log(cj / (n + cj)) - 0.5 * n * np.log1p(-s_y * s_y / (n + cj))
        exact += np.exp(two) * 2 * special.stdtr(n, s_y * np.sqrt(n / (n + cj - s_y * s_y))) / len(PRECISIONS)
    assert exact.mean() == pytest.approx(1.0, abs=0.03)
    sq = np.sum((x - x.mean(axis=1, keepdims=True)) ** 2, axis=1)
    kernel = np.exp([log_bayes_factor_one_sided(float(n), m, s, lam, c, 1.0) for m, s in zip(x.mean(axis=1), sq)])
    assert np.all(kernel <= exact * (1 + 1e-9))
