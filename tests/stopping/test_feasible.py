"""The count-dependent delta-correct rule of the best-feasible-arm problem (stopping/feasible.py)."""

import math
import pickle

import numpy as np
import pytest
from numba import njit
from scipy.optimize import minimize
from scipy.stats import binomtest, norm

from pybai import Bernoulli, FixedConfidence, Gaussian
from pybai.models.base import EmpiricalMeans
from pybai.problems.feasible._qp import glr_kernel
from pybai.problems.feasible.problem import FeasibleArmProblem
from pybai.stopping.feasible import (FEASIBLE_SCALES, FeasibleMixtureThreshold, feasible_min_margin,
                                    feasible_piece_values)
from pybai.stopping.heuristic import HeuristicThreshold
from pybai.stopping.kk21 import GaussianThreshold


def _problem(K, L, q, sd=1.0, constrained=None, floor=0.0, delta=0.1):
    return FeasibleArmProblem(K, L, q, constrained, floor, Gaussian(sd, n_sources=K * L), FixedConfidence(delta))


def _values(p, counts, mu, scales, one_sided=True):
    out = np.empty(p.n_arms + p.n_subpopulations)
    a = feasible_piece_values(np.asarray(counts, float), np.asarray(mu, float), p.weights, p.floor, p.cmask,
                              p.variances, np.asarray(scales, float), one_sided, out)
    return a, out


def _log_m(n, y, s2, c):
    """ln of the two-sided normal mixture of one cell (Robbins), from its definition."""
    return n * n / (n + c) * y * y / (2 * s2) - 0.5 * math.log(1 + n / c)


# ---------------------------------------------------------------------------
# hand values
# ---------------------------------------------------------------------------


def test_hand_values_two_arms_one_subpopulation():
    # K = 2, L = 1, floor 0: answer 0 (both feasible, 1.0 > 0.5); pieces: arm 0 below its floor
    # (one cell, half-normal mixture) and arm 1 above arm 0 (two cells, closed form G^2 / (2U)).
    p = _problem(2, 1, [1.0], sd=[1.0, 2.0])
    counts, mu, c = np.array([[40.0], [90.0]]), np.array([[1.0], [0.5]]), 7.0
    a, v = _values(p, counts, mu, [c])
    assert a == 0
    n0, n1 = 40.0, 90.0
    e0, e1 = n0 * n0 / (n0 + c), n1 * n1 / (n1 + c)
    k = n0 / math.sqrt(1.0 * (n0 + c))
    feas = e0 * 1.0 / 2 + math.log(2 * norm.cdf(k * 1.0)) - 0.5 * math.log(1 + n0 / c)
    chal = 0.5 ** 2 / (2 * (1.0 / e0 + 4.0 / e1)) - 0.5 * math.log(1 + n0 / c) - 0.5 * math.log(1 + n1 / c)
    assert v[0] == pytest.approx(feas, rel=1e-12)
    assert v[1 + 1] == pytest.approx(chal, rel=1e-12)
    assert v[1 + 0] == math.inf  # no challenger piece for the answer itself
    # two-sided feasibility piece: no Phi term
    _, v2 = _values(p, counts, mu, [c], one_sided=False)
    assert v2[0] == pytest.approx(_log_m(n0, 1.0, 1.0, c), rel=1e-12)
    # two scales: log of the mean of the exponentials
    _, vv = _values(p, counts, mu, [c, 50.0])
    chal50 = (0.5 ** 2 / (2 * (1.0 / (n0 * n0 / (n0 + 50)) + 4.0 / (n1 * n1 / (n1 + 50))))
              - 0.5 * math.log(1 + n0 / 50) - 0.5 * math.log(1 + n1 / 50))
    assert vv[2] == pytest.approx(math.log((math.exp(chal) + math.exp(chal50)) / 2), rel=1e-12)


def test_hand_values_no_feasible_arm():
    # every arm below a floor: answer -1, one piece per arm with its constrained cells
    p = _problem(2, 2, [0.5, 0.5], constrained=[0], floor=[0.2])
    counts = np.array([[30.0, 5.0], [60.0, 8.0]])
    mu = np.array([[-0.3, 2.0], [0.1, -1.0]])
    c = 3.0
    a, v = _values(p, counts, mu, [c])
    assert a == -1
    for k, (n, x) in enumerate([(30.0, -0.3), (60.0, 0.1)]):
        assert v[2 + k] == pytest.approx(_log_m(n, x - 0.2, 1.0, c), rel=1e-12)  # only cell (k, 0) is constrained
    assert np.all(v[:2] == math.inf)


def test_piece_value_is_the_infimum_of_the_log_mixture_product():
    # challenger piece of a 2 x 2 instance with a clamped floor: a brute-force constrained minimisation
    # of sum_s ln M_s,c(lambda_s) over the piece equals the value with effective counts minus the regrets
    p = _problem(2, 2, [0.3, 0.7], sd=[[1.0, 0.5], [2.0, 1.5]], constrained=[0], floor=[0.0])
    counts = np.array([[50.0, 20.0], [10.0, 70.0]])
    mu = np.array([[0.4, 0.9], [-0.1, 0.8]])  # arm 1 looks infeasible (cell (1, 0) < 0): answer 0
    c = 12.0
    s2 = p.variances.ravel()
    n = counts.ravel()

    def f(lam):
        return sum(_log_m(n[i], mu.ravel()[i] - lam[i], s2[i], c) for i in range(4))

    cons = [{"type": "ineq", "fun": lambda x: 0.3 * x[2] + 0.7 * x[3] - 0.3 * x[0] - 0.7 * x[1]},
            {"type": "ineq", "fun": lambda x: x[2]}]
    best = min((minimize(f, x0, constraints=cons, method="SLSQP", options={"ftol": 1e-14, "maxiter": 500})
                for x0 in (mu.ravel(), np.zeros(4), np.full(4, 0.6))), key=lambda r: r.fun)
    _, v = _values(p, counts, mu, [c])
    assert v[2 + 1] == pytest.approx(best.fun, abs=1e-6)


# ---------------------------------------------------------------------------
# never later than the t-only threshold; the cheap filter is exact
# ---------------------------------------------------------------------------


def test_rule_stops_whenever_the_t_only_threshold_does_on_random_states():
    rng = np.random.default_rng(12)
    passed = 0
    for _ in range(600):
        K, L = int(rng.integers(1, 5)), int(rng.integers(1, 4))
        constrained = None if (K == 1 or rng.random() < 0.8) else []
        delta = float(rng.choice([0.3, 0.1, 0.01, 1e-4]))
        p = FeasibleArmProblem(K, L, rng.dirichlet(np.full(L, 2.0)), constrained, 0.0,
                               Gaussian(rng.uniform(0.3, 2.0, K * L), n_sources=K * L), FixedConfidence(delta))
        th = p.threshold("delta-correct", delta)
        total = 10 ** rng.uniform(0, 9) * K * L
        counts = np.maximum(1.0, np.round(total * rng.dirichlet(np.full(K * L, rng.choice([0.3, 1.0, 5.0]))))
                            ).reshape(K, L)
        mu = rng.normal(0.0, 1.0, (K, L))
        z = p.glr(counts, mu)
        margin = th.min_margin(counts, mu, p.weights, p.floor, p.cmask, p.variances)
        if z > th(counts.sum()):  # the old rule stops: the new one must too
            passed += 1
            assert margin > 0.0
        assert margin <= z + math.log(2) - th.level + 1e-9  # the filter's bound
    assert passed > 150


def test_needs_far_less_than_kk21_on_example_1():
    # example 1 of the paper at its optimal allocation: the GLR the rule needs, against KK21
    mu = np.array([[0.2, 0.6, 0.8], [0.4, 0.4, 0.3], [-0.2, 1.0, 1.5]])
    p = _problem(3, 3, [0.2, 0.3, 0.5])
    w = p.oracle(mu)[1].reshape(3, 3)
    th = p.threshold("delta-correct", 0.1)
    assert isinstance(th.fallback, GaussianThreshold) and th.n_alternatives == 3
    t = 2600.0  # GLR 13.6 here; KK21 with m = 12, n = 6 asks for 41.5
    assert th.min_margin(w * t, mu, p.weights, p.floor, p.cmask, p.variances) > 0.0
    assert p.glr(w * t, mu) < th(t) / 3
    assert th.min_margin(w * 2000.0, mu, p.weights, p.floor, p.cmask, p.variances) < 0.0  # GLR 10.5: not yet


# ---------------------------------------------------------------------------
# Monte Carlo on the boundary of a piece
# ---------------------------------------------------------------------------


@njit(cache=True)
def _pass_rate(mu, sd, q, floors, cmask, probs, scales, level, horizon, runs, seed, plain):
    """Fraction of runs in which the rule (or the GLR > level alone, ``plain``) ever passes.

    The truth lies on the boundary of the alternative of every answer, so every pass is an error of the
    canonical martingale.  Cells are drawn at random with fixed (non-uniform) probabilities.
    """
    np.random.seed(seed)
    K, L = mu.shape
    s2 = sd * sd
    cdf = np.cumsum(probs)
    hits = 0
    for _ in range(runs):
        counts = np.zeros((K, L))
        sums = np.zeros((K, L))
        for k in range(K):
            for l in range(L):
                counts[k, l] = 1.0
                sums[k, l] = mu[k, l] + sd[k, l] * np.random.randn()
        for _t in range(horizon):
            i = np.searchsorted(cdf, np.random.random() * cdf[-1])
            k, l = i // L, i % L
            counts[k, l] += 1.0
            sums[k, l] += mu[k, l] + sd[k, l] * np.random.randn()
            means = sums / counts
            z = glr_kernel(counts, means, q, floors, cmask, s2)
            if plain:
                if z > level:
                    hits += 1
                    break
            elif z > level - math.log(2.0) and feasible_min_margin(counts, means, q, floors, cmask, s2, scales, True,
                                                                  level) > 0.0:
                hits += 1
                break
    return hits


@pytest.mark.parametrize("case", ["tied-qualities", "mean-on-floor"])
def test_monte_carlo_pass_rate_below_delta_on_the_boundary(case):
    delta, runs = 0.3, 1000
    if case == "tied-qualities":  # two feasible arms of equal quality: mu is in Alt(0) and Alt(1)
        mu, q, m = np.array([[2.3, 2.1], [2.1, 2.3]]), np.array([0.5, 0.5]), 2
        probs = np.array([0.4, 0.1, 0.2, 0.3])
    else:  # one arm with a cell exactly on its floor: mu is in Alt(0) and Alt(-1)
        mu, q, m = np.array([[0.0, 0.5]]), np.array([0.5, 0.5]), 1
        probs = np.array([0.7, 0.3])
    floors, cmask = np.zeros(mu.shape[1]), np.ones(mu.shape[1], dtype=np.bool_)
    sd = np.ones_like(mu)
    scales = np.array(FEASIBLE_SCALES)
    level = math.log(m / delta)
    hits = _pass_rate(mu, sd, q, floors, cmask, probs, scales, level, 300, runs, 3, False)
    assert binomtest(hits, runs, delta, alternative="greater").pvalue > 0.01
    # the GLR against ln(m/delta) without the mixtures' price crosses far more often (the test has power)
    plain = _pass_rate(mu, sd, q, floors, cmask, probs, scales, level, 300, runs, 3, True)
    assert binomtest(plain, runs, delta, alternative="greater").pvalue < 0.01


# ---------------------------------------------------------------------------
# problem integration
# ---------------------------------------------------------------------------


def _model(counts, means):
    model = EmpiricalMeans(counts.size)
    model.counts[:] = counts.ravel()
    model.sums[:] = (counts * means).ravel()
    model.estimate[:] = means.ravel()
    return model


def test_problem_threshold_and_its_decision():
    p = _problem(3, 2, [0.4, 0.6], constrained=[1], floor=[0.1])
    th = p.threshold("delta-correct", 0.05)
    assert isinstance(th, FeasibleMixtureThreshold) and th.proven and th.count_dependent
    assert th.n_alternatives == 3 and th.level == pytest.approx(math.log(3 / 0.05))
    old = p.__class__.__mro__[1].threshold(p, "delta-correct", 0.05)
    assert th(1234) == old(1234)  # threshold(t): the t-only KK21 threshold, m = K |M| + K, n = 2L
    counts = np.full((3, 2), 400.0)
    means = np.array([[1.0, 0.9], [0.2, 0.3], [0.4, -0.5]])
    z, stop = th.decide(p, _model(counts, means), 2400)
    assert z == pytest.approx(p.glr(counts, means))
    assert stop == (th.min_margin(counts, means, p.weights, p.floor, p.cmask, p.variances) > 0.0) and stop
    means[1] = [0.95, 0.85]  # a close challenger blocks the stop
    assert not th.decide(p, _model(counts, means), 2400).stop
    h = p.threshold("heuristic", 0.05)
    assert isinstance(h, HeuristicThreshold)
    assert h.decide(p, _model(counts, means), 2400) == (p.glr(counts, means), p.glr(counts, means) > h(2400))
    # no constrained subpopulation: -1 is never an answer, m = K - 1
    assert _problem(3, 2, [0.5, 0.5], constrained=[]).threshold("delta-correct", 0.1).n_alternatives == 2
    # Bernoulli cells: variance proxy 1/4, same rule
    pb = FeasibleArmProblem(2, 2, [0.5, 0.5], None, 0.2, Bernoulli(n_sources=4), FixedConfidence(0.1))
    assert isinstance(pb.threshold("delta-correct", 0.1), FeasibleMixtureThreshold)
    assert pickle.loads(pickle.dumps(th)) == th


def test_bad_scales_are_refused():
    fallback = GaussianThreshold(0.1, 2, 2)
    with pytest.raises(ValueError, match="scales"):
        FeasibleMixtureThreshold(0.1, 2, fallback, scales=[1.0, -2.0])
    with pytest.raises(ValueError, match="n_alternatives"):
        FeasibleMixtureThreshold(0.1, 0, fallback)
