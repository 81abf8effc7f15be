"""LinearBestArmProblem: GLR against brute force, oracle against scipy and closed forms, invariances."""

import math

import numpy as np
import pytest
from scipy.optimize import minimize

from pybai.environments.linear_instances import soare_environment
from pybai.exceptions import InvalidParameterError
from pybai.models import Gaussian
from pybai.models.linear import LeastSquares
from pybai.problems import BestArmProblem, FixedConfidence, Problem
from pybai.problems.linear import LinearBestArmProblem

FC = FixedConfidence(0.1)


def make(x, sigma=1.0):
    return LinearBestArmProblem(np.asarray(x, float), sigma, FC)


def brute_glr(x, counts, theta, sigma):
    """inf over the alternative, one half-space {(x_j - x_best)^T lam >= 0} at a time, by SLSQP."""
    means = x @ theta
    best = int(np.argmax(means))
    a = x.T @ (counts[:, None] * x)
    out = np.inf
    for j in range(x.shape[0]):
        if np.array_equal(x[j], x[best]):
            continue
        y = x[j] - x[best]
        res = minimize(lambda lam: (lam - theta) @ a @ (lam - theta) / (2 * sigma**2), theta,
                       jac=lambda lam: a @ (lam - theta) / sigma**2, method="SLSQP",
                       constraints=[{"type": "ineq", "fun": lambda lam: y @ lam, "jac": lambda lam: y}],
                       options={"ftol": 1e-14, "maxiter": 500})
        out = min(out, res.fun)
    return out


def scipy_t_star(x, theta, sigma):
    """Independent oracle: SLSQP on min_{w, t} t s.t. t >= 2 sigma^2 ||x* - x||^2_{A(w)^-1} / Delta_x^2."""
    means = x @ theta
    best = int(np.argmax(means))
    others = [j for j in range(len(x)) if j != best]
    y = (x[best] - x[others]) / (means[best] - means[others])[:, None]
    k = len(x)

    def vals(w):
        return 2 * sigma**2 * np.einsum("ij,jk,ik->i", y, np.linalg.inv(x.T @ (w[:, None] * x)), y)

    w0 = np.full(k, 1.0 / k)
    cons = [{"type": "eq", "fun": lambda z: z[:k].sum() - 1},
            {"type": "ineq", "fun": lambda z: z[k] - vals(np.maximum(z[:k], 1e-12))}]
    res = minimize(lambda z: z[k], np.r_[w0, vals(w0).max()], method="SLSQP", constraints=cons,
                   bounds=[(1e-10, 1)] * k + [(0, None)], options={"ftol": 1e-13, "maxiter": 2000})
    w = np.maximum(res.x[:k], 1e-12)
    return vals(w / w.sum()).max()


# --- construction -----------------------------------------------------------------------------
def test_bad_inputs_name_the_parameter():
    with pytest.raises(InvalidParameterError, match="'features'.*at least 2 rows"):
        make([[1.0, 0.0]])
    with pytest.raises(InvalidParameterError, match="'features'.*rank 2.*rank is 1"):
        make([[1.0, 0.0], [2.0, 0.0], [3.0, 0.0]])
    with pytest.raises(InvalidParameterError, match="'features'"):
        make([[1.0, np.nan], [0.0, 1.0]])
    with pytest.raises(InvalidParameterError, match="'features'.*distinct"):
        make([[1.0], [1.0]])
    with pytest.raises(InvalidParameterError, match="'sigma'"):
        LinearBestArmProblem(np.eye(2), -1.0, FC)
    with pytest.raises(InvalidParameterError, match="'sigma'"):
        LinearBestArmProblem(np.eye(2), [1.0, 1.0], FC)


def test_answer_ties_nan_and_duplicates():
    p = make([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.5, 0.5]])
    assert p.answer([1.0, 1.0, 1.0, 0.0]) == 0                 # ties: lowest index
    assert p.answer([0.0, 1.0, 2.0, 0.5]) == 0                 # arm 2 duplicates arm 0
    assert p.answer([np.nan, 0.2, np.nan, 0.1]) == 1           # NaN never chosen
    assert p.n_distinct == 3
    assert p.simple_regret(1, [1.0, 0.5, 1.0, 0.75]) == pytest.approx(0.5)


def test_duplicates_do_not_change_glr_or_oracle():
    x = np.array([[1.0, 0.0], [0.0, 1.0], [0.8, 0.5]])
    theta = np.array([1.0, 0.3])
    dup = np.vstack([x, x[0], x[2]])
    p, q = make(x), make(dup)
    t1, w1 = p.oracle(x @ theta)
    t2, w2 = q.oracle(dup @ theta)
    assert t2 == pytest.approx(t1, rel=1e-5)
    np.testing.assert_allclose(w2[:3], w1, atol=1e-4)
    assert w2[3] == 0 and w2[4] == 0                           # weights on the first row of a group
    counts = np.array([3.0, 2.0, 4.0])
    assert q.glr(np.r_[counts, 0, 0], dup @ theta) == pytest.approx(p.glr(counts, x @ theta), rel=1e-12)


# --- GLR --------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(4))
def test_glr_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(5, 3))
    theta = rng.normal(size=3)
    counts = rng.integers(1, 20, size=5).astype(float)
    p = make(x, sigma=0.7)
    assert p.glr(counts, x @ theta) == pytest.approx(brute_glr(x, counts, theta, 0.7), rel=1e-6)


def test_glr_singular_design_is_zero_and_the_limit_of_regular_ones():
    # with A singular some competitor direction always leaves range(A) (if all x_j - x_hat were in
    # the span of the sampled arms, so would be every arm): the GLR is 0, the limit of regular designs
    x = np.array([[1.0, 0.0], [2.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    p = make(x)
    means = x @ np.array([0.5, -3.0])                          # best: arm 1
    counts = np.array([4.0, 3.0, 0.0, 0.0])
    assert p.glr(counts, means) == 0.0
    lim = [p.glr(counts + np.array([0, 0, eps, eps]), means) for eps in (1e-3, 1e-6, 1e-9)]
    assert lim[0] > lim[1] > lim[2] > 0 and lim[2] < 1e-6


def test_statistic_from_model_and_nan_estimates():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(6, 3))
    p = make(x, sigma=0.5)
    model = p.new_model()
    assert isinstance(model, LeastSquares)
    init = p.request_space().initial_requests(2)
    assert init.size == 6 and np.linalg.matrix_rank(x[init]) == 3
    model.update(init, rng.normal(size=init.size))
    for s in rng.integers(0, 6, size=30):
        model.update(np.array([s]), np.array([rng.normal()]))
    assert p.statistic(model) == pytest.approx(p.glr(model.counts, model.estimate), rel=1e-10)
    fresh = p.new_model()
    fresh.update(np.array([0]), np.array([1.0]))                # estimates mostly NaN
    assert p.glr(fresh.counts, fresh.estimate) == 0.0


# --- alt_gradient -----------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(3))
def test_alt_gradient_consistent_with_glr_and_a_supergradient(seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(6, 3))
    theta = rng.normal(size=3)
    means = x @ theta
    p = make(x, sigma=1.3)
    w = rng.dirichlet(np.ones(6))
    value, d = p.alt_gradient(means, w)
    assert p.glr(250.0 * w, means) == pytest.approx(250.0 * value, rel=1e-10)
    assert w @ d == pytest.approx(value, rel=1e-10)
    for _ in range(20):
        w2 = rng.dirichlet(np.ones(6))
        assert p.alt_gradient(means, w2)[0] <= w2 @ d * (1 + 1e-10)


def test_alt_gradient_singular_allocation():
    x = np.array([[1.0, 0.0], [0.0, 1.0], [0.9, 0.2]])
    p = make(x)
    means = x @ np.array([1.0, 0.0])
    w = np.array([1.0, 0.0, 0.0])                             # arm 2 - arm 0 leaves range(A)
    value, d = p.alt_gradient(means, w)
    assert value == 0.0 and d[0] == pytest.approx(0.0, abs=1e-15)
    w2 = np.array([0.3, 0.4, 0.3])
    assert p.alt_gradient(means, w2)[0] <= w2 @ d + 1e-12      # still a supergradient


@pytest.mark.parametrize("seed", range(4))
def test_best_response_kernel_equals_alt_gradient(seed):
    """The compiled best response (many rounds at fixed means) gives alt_gradient's value and gains."""
    rng = np.random.default_rng(seed)
    d = 2 + seed % 3
    x = np.vstack([rng.normal(size=(d + 3, d)), np.eye(d)[:1]])     # the last row duplicates no one...
    x[-1] = x[2]                                                      # ...until made a copy of arm 2
    p = make(x, sigma=0.8)
    means = x @ rng.normal(size=d)
    kernel, data = p.best_response_kernel(means)
    out = np.empty(x.shape[0])
    for _ in range(10):
        w = rng.dirichlet(np.ones(x.shape[0]))
        value, gains = p.alt_gradient(means, w)
        assert kernel(data, w, out) == pytest.approx(value, rel=1e-9)
        np.testing.assert_allclose(out, gains, rtol=1e-7, atol=1e-15)


def test_best_response_kernel_limit_when_weights_vanish():
    """w_j -> 0 on the arm alone in direction e_j: gain of arm j -> Delta^2 / (2 sigma^2), the ridge's limit."""
    x = np.eye(3)
    p = make(x)
    means = np.array([2.0, 0.0, 0.5])
    kernel, data = p.best_response_kernel(means)
    out = np.empty(3)
    kernel(data, np.array([0.5, 0.5, 0.0]), out)                    # arm 2 has no weight at all
    assert out[2] == pytest.approx(1.5**2 / 2, rel=1e-9) and out[0] == pytest.approx(0.0, abs=1e-9)
    value, gains = p.alt_gradient(means, np.array([0.5, 0.5, 1e-9]))  # the exact formula near the limit
    np.testing.assert_allclose(out, gains, rtol=1e-6, atol=1e-8)
    tied = p.best_response_kernel(np.array([1.0, 1.0, 0.0]))
    assert tied[0](tied[1], np.full(3, 1 / 3), out) == 0.0 and not out.any()


# --- oracle -----------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(4))
def test_oracle_against_scipy(seed):
    rng = np.random.default_rng(10 + seed)
    x = rng.normal(size=(4, 2 + seed % 2))
    theta = rng.normal(size=x.shape[1])
    p = make(x, sigma=0.8)
    res = p.oracle_result(x @ theta)
    ref = scipy_t_star(x, theta, 0.8)
    assert res.relative_gap <= 1e-6
    assert res.lower_bound <= ref * (1 + 1e-7)
    assert res.value <= ref * (1 + 1e-6)
    t, w = p.oracle(x @ theta)
    assert w.sum() == pytest.approx(1.0) and 1.0 / p.alt_gradient(x @ theta, w)[0] == pytest.approx(t, rel=1e-9)


def test_oracle_rotation_invariance():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(7, 3))
    theta = rng.normal(size=3)
    rot, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    t1, w1 = make(x).oracle(x @ theta)
    t2, w2 = make(x @ rot).oracle((x @ rot) @ (rot.T @ theta))
    assert t2 == pytest.approx(t1, rel=2e-6)
    np.testing.assert_allclose(w2, w1, atol=1e-3)


def test_canonical_basis_is_the_gaussian_bandit():
    means = np.array([1.0, 0.7, 0.4, 0.1])
    lin = make(np.eye(4), sigma=0.5)
    mab = BestArmProblem(4, Gaussian(0.5, n_sources=4), FC)
    t_lin, w_lin = lin.oracle(means)
    t_mab, w_mab = mab.oracle(means)
    assert t_lin == pytest.approx(t_mab, rel=1e-5)
    np.testing.assert_allclose(w_lin, w_mab, atol=1e-4)
    # Lemma 2: H_MAB <= H_LB <= 2 H_MAB on the canonical basis
    gaps = means[0] - means[1:]
    h_mab = 1 / gaps.min() ** 2 + (1 / gaps**2).sum()
    assert h_mab <= lin.h_lb(means) <= 2 * h_mab
    assert lin.h_lb(means) == pytest.approx(t_lin / (2 * 0.25))


@pytest.mark.parametrize("seed", range(3))
def test_lemma_2_bounds(seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(6, 3))
    means = x @ rng.normal(size=3)
    p = make(x)
    best = int(np.argmax(means))
    y = x[best] - x
    gaps = np.delete(means[best] - means, best)
    # the proof bounds the largest eigenvalue of Lambda by max ||x||^2 (the paper writes L)
    low = np.max(np.delete((y**2).sum(1), best)) / (np.max((x**2).sum(1)) * gaps.min() ** 2)
    assert low <= p.h_lb(means) <= 4 * 3 / gaps.min() ** 2


def test_section_6_instance_t_star():
    omega = 0.01
    env = soare_environment(5, omega)
    p = LinearBestArmProblem(**env.structure(), regime=FC)
    means = env.source_means
    res = p.oracle_result(means)
    gap = 2 * (1 - math.cos(omega))
    # lower bound: the single direction x1 - x6 alone; its c-optimal variance is (|y_1| + |y_2|)^2
    # (Elfving: y points at the face [e_1, -e_2] of conv(+-arms))
    lower = 2 * ((1 - math.cos(omega)) + math.sin(omega)) ** 2 / gap**2
    # upper bound: any allocation w gives T* <= 1 / value(w)
    w = np.array([0.005, 0.99485, 5e-5, 5e-5, 5e-5, 0.0])
    upper = 1.0 / p.alt_gradient(means, w)[0]
    assert lower <= res.lower_bound <= res.value <= upper
    assert res.value == pytest.approx(20_200, rel=1e-3)        # the "about 20,200"
    assert res.weights[5] < 1e-5 and res.weights[1] > 0.99      # x_{d+1} unused, e_2 carries it
    assert p.h_lb(means) == pytest.approx(res.value / 2)


def test_ties_warm_start_and_n_star():
    p = make(np.eye(3))
    t, w = p.oracle([1.0, 1.0, 0.0])
    assert t == math.inf and w.sum() == pytest.approx(1.0)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(30, 4))
    theta = rng.normal(size=4)
    q = make(x)
    hint = q.oracle_hint()
    cold = q.oracle(x @ theta)[0]
    assert q.oracle(x @ theta, hint)[0] == pytest.approx(cold, rel=2e-6)
    assert q.oracle(x @ theta * 1.01, hint)[0] == pytest.approx(q.oracle(x @ theta * 1.01)[0], rel=2e-6)
    assert hint.result.relative_gap <= 1e-6
    delta = 0.05
    n = q.n_star(x @ theta, delta)
    h = q.h_lb(x @ theta)
    assert n == pytest.approx(8 * h * math.log(6 / math.pi**2 * n * n * 30**2 / delta), rel=1e-9)


@pytest.mark.skipif(not hasattr(Problem, "complexity"), reason="core complexity() hook not on this branch")
def test_complexity_reports_h_lb():
    p = make(np.eye(3))
    report = p.complexity(np.array([1.0, 0.5, 0.0]))
    assert report["h_lb"] == pytest.approx(p.h_lb(np.array([1.0, 0.5, 0.0])), rel=1e-6)


@pytest.mark.parametrize("gap", [0.0, 5e-324, 1e-300, 1e-200, 1e-126])
def test_oracle_on_gaps_beyond_floating_point_is_a_tie(gap):
    """Gaps so small that ||(x* - x) / gap||^2 overflows (1e-300, a subnormal) answer T* = inf with uniform
    weights, as a tie does, instead of failing inside the design solver; a small but representable gap still
    gets a finite T*."""
    p = make(np.array([[1.0, 0.0], [0.0, 1.0], [0.7, 0.7], [0.2, 0.9]]))
    means = np.array([gap, 0.0, 0.0, 0.0])
    t, w = p.oracle(means)
    if gap < 1e-120:
        assert t == math.inf and np.allclose(w, 0.25)
    else:
        assert math.isfinite(t) and w.sum() == pytest.approx(1.0)
    hint = p.oracle_hint()
    t_hint, w_hint = p.oracle(means, hint)
    assert (t_hint == math.inf) == (t == math.inf) and np.all(np.isfinite(w_hint))
