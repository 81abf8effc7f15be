"""The approximate oracle of linear Track-and-Stop, the screened stopping rule and the cached set-up (issue 27)."""

import math

import numpy as np
import pytest

from pybai.design.minimax import ExplicitDirections, cold_start, duality_gap, solve_minimax
from pybai.models.linear import LeastSquares
from pybai.problems import FixedConfidence, Problem
from pybai.problems.linear import LinearBestArmProblem
from pybai.problems.linear.problem import tracking_tolerance
from pybai.stopping.heuristic import HeuristicThreshold
from pybai.strategies import TrackAndStop


def instance(k=200, d=4, seed=0):
    """More arms than the solver's small-problem size (160), so working sets and pruning are used."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(k, d))
    theta = rng.normal(size=d)
    return LinearBestArmProblem(x, 1.0, FixedConfidence(0.1)), x @ theta


def test_tracking_tolerance_decreases_to_the_certified_gap():
    ts = [1, 4, 9, 100, 10**4, 10**12, 10**14]
    eps = [tracking_tolerance(t) for t in ts]
    assert all(a >= b for a, b in zip(eps, eps[1:]))
    assert eps[0] <= 0.1 and eps[3] == pytest.approx(0.03)
    assert eps[-1] == 1e-6


@pytest.mark.parametrize("seed", [0, 1])
def test_approximate_weights_are_certified_eps_optimal(seed):
    p, means = instance(seed=seed)
    exact = p.oracle_result(means)  # certified to 1e-6
    hint = p.oracle_hint(exact=False, approximate=True)
    for t in (10, 100, 1000):
        w = p.tracking_weights(np.ones(p.n_sources), means, t, hint)
        eps = tracking_tolerance(t)
        value = hint.result.value  # 2 sigma^2 max_y ||y||^2_{A(w)^-1}, the T* that w achieves
        assert w.sum() == pytest.approx(1.0) and np.all(w >= 0)
        assert hint.result.lower_bound <= exact.value * (1 + 1e-6)
        assert value >= exact.value * (1 - 1e-6)
        assert (value - exact.value) <= eps * value  # certified eps-optimal, hence truly so


def test_stored_design_is_rechecked_not_resolved():
    p, means = instance(seed=2)
    hint = p.oracle_hint(exact=False, approximate=True)
    p.tracking_weights(None, means, 100, hint)
    assert hint.result.iterations > 0
    first = hint.result.weights.copy()
    w = p.tracking_weights(None, means * (1 + 1e-9), 100, hint)  # the certificate still holds
    assert hint.result.iterations == 0 and np.array_equal(w, first)
    # an estimate far away: the stored certificate fails and the design is solved again
    rng = np.random.default_rng(5)
    far = p.features @ rng.normal(size=p.n_features)
    p.tracking_weights(None, far, 100, hint)
    gap = (hint.result.value - hint.result.lower_bound) / hint.result.value
    assert gap <= tracking_tolerance(100)


def test_exact_and_certified_hints_are_not_approximate():
    p, means = instance(seed=3)
    for hint in (p.oracle_hint(), p.oracle_hint(exact=False)):
        p.tracking_weights(None, means, 100, hint)
        assert hint.get("tolerance") is None
        assert (hint.result.value - hint.result.lower_bound) <= 1e-6 * hint.result.value


def test_duality_gap_brackets_the_optimum():
    p, means = instance(seed=4)
    exact = p.oracle_result(means)
    best, others, gaps = p._directions(means)
    dirs = ExplicitDirections((p.features[best] - p.features[others]) / gaps[:, None])
    z = p.features[p._reps]
    rng = np.random.default_rng(0)
    w = rng.dirichlet(np.ones(z.shape[0]))
    v_dirs = np.arange(5)
    value, lower = duality_gap(z, dirs, w, v_dirs, np.full(5, 0.2))
    t_star = exact.value / 2.0  # 2 sigma^2 = 2
    assert lower <= t_star * (1 + 1e-9) <= value * (1 + 1e-9)


def test_cold_start_given_or_computed_gives_the_same_solve():
    p, means = instance(seed=5)
    best, others, gaps = p._directions(means)
    dirs = ExplicitDirections((p.features[best] - p.features[others]) / gaps[:, None])
    z = p.features[p._reps]
    a = solve_minimax(z, dirs, compiled=True)
    b = solve_minimax(z, dirs, compiled=True, start=cold_start(z))
    assert a.value == b.value and np.array_equal(a.weights, b.weights)


def test_spanning_set_is_computed_once():
    p, _ = instance(seed=6)
    space = p.request_space()
    first = space.initial_requests(2)
    assert np.array_equal(first, space.initial_requests(2)) and first.size == 2 * p.n_features
    assert np.linalg.matrix_rank(p.features[first[: p.n_features]]) == p.n_features


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_screened_stopping_rule_decides_as_the_full_statistic(seed):
    p, means = instance(k=60, d=3, seed=seed)
    rng = np.random.default_rng(seed)
    model = LeastSquares(p.features)
    model.update(np.arange(p.n_sources), means + rng.normal(size=p.n_sources))
    screened = 0
    for step in range(300):
        a = int(rng.integers(p.n_sources))
        model.update(np.array([a]), np.array([means[a] + rng.normal()]))
        z = p.statistic(model)
        level = z * float(rng.choice([0.5, 0.999, 1.001, 2.0]))  # thresholds on both sides, some close
        thr = HeuristicThreshold(0.1)
        thr.at = lambda t, m, level=level: level  # a fixed level at this step
        got, stop = thr.decide(p, model, step + 1)
        assert stop == (z > level)
        if stop:
            assert got == z  # the exact statistic when the rule stops
        else:
            assert got >= z * (1 - 1e-12)  # otherwise an upper bound of it (or the statistic)
            screened += got != z
    assert screened > 0
    # the statistic of Problem (no screen) gives the same decisions
    for t in (10, 10**6):
        level = HeuristicThreshold(0.1)(t)
        base_stop = Problem.statistic_against(p, model, level, t) > level
        assert HeuristicThreshold(0.1).decide(p, model, t).stop == base_stop


def test_censored_run_records_the_exact_statistic():
    _, means = instance(k=30, d=3, seed=7)
    p = LinearBestArmProblem(instance(k=30, d=3, seed=7)[0].features, 1.0, FixedConfidence(1e-9, max_samples=25))
    strat = TrackAndStop().start(p, rng=np.random.default_rng(0))
    rng = np.random.default_rng(1)
    while not strat.stopped:
        req = np.atleast_1d(strat.ask())
        strat.tell(req, means[req] + 5.0 * rng.normal(size=req.size))
    res = strat.result()
    assert res.status == "censored"
    assert res.statistic == p.statistic(strat.model_)


def test_tas_oracle_choices():
    p, _ = instance(k=20, d=3, seed=8)
    for name in ("fast", "certified", "exact"):
        TrackAndStop(oracle=name).start(p, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="oracle"):
        TrackAndStop(oracle="approximate").start(p, rng=np.random.default_rng(0))
    assert math.isfinite(tracking_tolerance(0))


def test_default_lazy_schedule_is_lazier_above_the_solvers_small_size():
    """0.25 up to SMALL distinct arms (every arm in the working set), 0.5 above (docs/linear.md)."""
    from pybai.design.minimax import SMALL

    big, _ = instance(k=SMALL + 40)
    small, _ = instance(k=SMALL)
    assert (small.tracking_oracle_growth, big.tracking_oracle_growth) == (0.25, 0.5)
    x = np.repeat(np.random.default_rng(1).normal(size=(SMALL // 2, 3)), 3, axis=0)  # copies count once
    assert LinearBestArmProblem(x, 1.0, FixedConfidence(0.1)).tracking_oracle_growth == 0.25
    assert TrackAndStop().start(big, rng=0)._default_oracle_growth() == 0.5
    assert TrackAndStop(oracle="exact").start(big, rng=0)._default_oracle_growth() == 0.0
