"""Best arm and top-k under the unknown-variance Gaussian: oracle, learner view, truth view, refusals."""

import numpy as np
import pytest
from scipy.optimize import minimize, minimize_scalar

from pybai import (BestArmProblem, FixedBudget, FixedConfidence, Gaussian, GaussianEnvironment,
                   GaussianUnknownVariance, InvalidParameterError, make_strategy)
from pybai.problems.top_k import TopKProblem


def uv_value(w, mu, var):
    """min over b != best of inf_u sum w d(mu, u) with d = (1/2) ln(1 + (mu - u)^2 / var)."""
    best = int(np.argmax(mu))
    out = np.inf
    for b in range(mu.size):
        if b == best:
            continue
        f = lambda u: 0.5 * (w[best] * np.log1p((mu[best] - u) ** 2 / var[best])
                             + w[b] * np.log1p((mu[b] - u) ** 2 / var[b]))
        grid = np.linspace(mu[b], mu[best], 2001)
        u0 = grid[np.argmin(f(grid))]
        step = grid[1] - grid[0]
        res = minimize_scalar(f, bounds=(max(mu[b], u0 - step), min(mu[best], u0 + step)), method="bounded",
                              options={"xatol": 1e-13})
        out = min(out, res.fun)
    return out


@pytest.mark.parametrize("seed", range(4))
def test_unknown_variance_oracle_is_the_max_min_of_its_transportation_costs(seed):
    rng = np.random.default_rng(seed)
    k = 4
    mu = rng.normal(0, 1, k)
    var = rng.uniform(0.2, 3.0, k)
    env = GaussianEnvironment(mu, np.sqrt(var))
    problem = BestArmProblem(k, GaussianUnknownVariance(k), FixedConfidence(0.1)).truth_view(env)
    t_star, w = problem.oracle(mu)
    assert uv_value(w, mu, var) == pytest.approx(1.0 / t_star, rel=1e-7)
    res = minimize(lambda z: -uv_value(np.exp(z) / np.exp(z).sum(), mu, var), np.log(w), method="Nelder-Mead",
                   options={"xatol": 1e-9, "fatol": 1e-14, "maxiter": 3000})
    assert -res.fun <= 1.0 / t_star * (1 + 1e-6)   # no allocation does better
    known = BestArmProblem(k, Gaussian(np.sqrt(var), n_sources=k), FixedConfidence(0.1)).oracle(mu)[0]
    assert t_star >= known * (1 - 1e-9)            # (1/2) ln(1 + x) <= x / 2: never easier than known


def test_top_k_with_one_arm_agrees_with_best_arm():
    mu = np.array([0.9, 0.5, 0.1, -0.4])
    env = GaussianEnvironment(mu, [0.5, 1.5, 1.0, 0.3])
    best = BestArmProblem(4, GaussianUnknownVariance(4), FixedConfidence(0.1)).truth_view(env).oracle(mu)
    top = TopKProblem(4, 1, GaussianUnknownVariance(4), FixedConfidence(0.1)).truth_view(env).oracle(mu)
    assert top[0] == pytest.approx(best[0], rel=1e-6)
    assert np.allclose(top[1], best[1], atol=1e-4)


def test_the_learner_view_reads_the_model_variances_in_place():
    problem = BestArmProblem(3, GaussianUnknownVariance(3), FixedConfidence(0.05))
    strategy = make_strategy("tas").start(problem, rng=1)
    assert strategy.problem_ is not problem and strategy.problem_.to_dict() == problem.to_dict()
    rng = np.random.default_rng(0)
    while strategy.t_ < 30:
        a = strategy.ask()
        strategy.tell(a, rng.normal([1.0, 0.0, 0.5][a[0]], [0.2, 2.0, 1.0][a[0]], 1))
    model = strategy.model_
    assert np.array_equal(strategy.problem_.family.variances, model.sq_devs / model.counts)
    assert min(model.counts) >= 2   # the initial phase gives every arm two samples


def test_variances_are_unknown_until_estimated():
    with pytest.raises(InvalidParameterError, match="unknown"):
        _ = GaussianUnknownVariance(3).variances
    with pytest.raises(InvalidParameterError, match="no known noise scale"):
        _ = GaussianUnknownVariance(3).sub_gaussian_scale
    with pytest.raises(InvalidParameterError, match="statistic"):
        GaussianUnknownVariance(3, "t-test")


@pytest.mark.parametrize("name", ["ucbe", "ugap", "batch-racing"])
def test_rules_that_need_a_noise_scale_refuse_it(name):
    regime = FixedBudget(60) if name != "batch-racing" else FixedConfidence(0.1)
    problem = (BestArmProblem(4, GaussianUnknownVariance(4), regime) if name != "batch-racing"
               else TopKProblem(4, 2, GaussianUnknownVariance(4), regime))
    with pytest.raises(InvalidParameterError, match="known noise scale"):
        make_strategy(name).validate(problem)


def test_no_statistic_before_two_samples():
    problem = BestArmProblem(3, GaussianUnknownVariance(3), FixedConfidence(0.05))
    strategy = make_strategy("uniform").start(problem, rng=0)
    for reward in (1.0, 0.0, 0.5):   # one sample of every arm: means, but no variance yet
        strategy.tell(strategy.ask(), [reward])
    assert not strategy.stopped
    assert np.isnan(strategy.problem_.statistic(strategy.model_))
