"""The linear-bandit rules of Soare et al. (2014) and the lazy modern rules on linear problems."""

import math

import numpy as np
import pytest

from pybai import InvalidParameterError, SessionStateError, make_strategy
from pybai.design.rounding import rounded_increment
from pybai.environments.linear import LinearGaussianEnvironment
from pybai.environments.linear_instances import soare_environment
from pybai.problems import FixedConfidence
from pybai.problems.linear import LinearBestArmProblem
from pybai.strategies.tracking import geometric_chunk


def problem_of(env, delta=0.05, max_samples=5_000_000):
    return LinearBestArmProblem(**env.structure(), regime=FixedConfidence(delta, max_samples=max_samples))


def play(strategy, env, seed=0):
    noise = np.random.default_rng(seed)
    for _ in range(100_000):
        if strategy.stopped:
            break
        strategy.tell(*env.respond(strategy.ask(), noise))
    return strategy.result()


# ---------------------------------------------------------------- thresholds (their math: tests/stopping/test_linear.py)
def test_problem_thresholds_and_the_stopping_decision_on_the_design():
    env = soare_environment(3)
    p = problem_of(env)
    assert p.threshold("heuristic", 0.05)(100) == pytest.approx(math.log((1 + math.log(100)) / 0.05))
    th = p.threshold("delta-correct", 0.05)
    assert th.proven and th.regularization == pytest.approx(1.0)
    model = p.new_model()
    model.update(np.array([0, 1, 2, 0]), np.array([1.0, 0.0, 0.5, 2.0]))
    level = th.at(4, model)
    assert level == th.on_design(model.design_matrix) and math.isfinite(level)
    z, stop = th.decide(p, model, 4)  # the statistic against threshold.at(t, model)
    assert z == p.statistic(model) and stop == (z > level)
    assert not hasattr(p, "threshold_at")
    with pytest.raises(InvalidParameterError, match="threshold"):
        p.threshold("kt-mixture", 0.05)


# ---------------------------------------------------------------- rounding of stretches
def test_rounded_increment_is_exact_monotone_and_tracks_the_design():
    rng = np.random.default_rng(0)
    for w in ([3 / 7, 1 / 7, 1 / 7, 2 / 7], [0.2] * 5, rng.random(6)):
        w = np.asarray(w) / np.sum(w)
        counts = np.zeros(len(w), dtype=np.int64)
        for size in (1, 3, 7, 50, 1000):
            add = rounded_increment(w, counts, size)
            assert add.sum() == size and np.all(add >= 0)
            counts += add
        assert np.abs(counts - counts.sum() * w).max() <= len(w)


def test_geometric_chunks():
    assert geometric_chunk(100, 0.0) == 1
    assert geometric_chunk(100, 0.01) == 1 and geometric_chunk(1000, 0.01) == 10
    assert geometric_chunk(0, 0.5) >= 1 and geometric_chunk(10, 0.5) == 5


# ---------------------------------------------------------------- the paper's instance
@pytest.fixture(scope="module")
def soare5():
    env = soare_environment(5)
    return env, problem_of(env)


def test_static_allocations_follow_their_designs(soare5):
    env, p = soare5
    for name in ("g-allocation", "xy-static"):
        res = play(make_strategy(name, check_growth=0.05).start(p, rng=0), env)
        c = res.counts
        assert res.status == "stopped" and res.recommendation == 0
        assert c[:5].min() >= 0.99 * c[:5].max() and c[5] <= 2  # uniform on the canonical arms (Fig. 5)


def test_oracle_is_a_reference_and_puts_its_samples_on_e2(soare5):
    env, p = soare5
    s = make_strategy("xy-oracle", check_growth=0.05).start(p, rng=0)
    assert type(s).reference and "reference" in type(s).reference_note
    s.reveal_truth(env.source_means)  # as the simulation runner does for a reference
    res = play(s, env)
    assert res.recommendation == 0 and res.counts[1] > 0.95 * res.samples
    untold = make_strategy("xy-oracle").start(p)
    with pytest.raises(SessionStateError, match="true theta"):
        while True:  # the spanning set first, then the oracle design needs the truth
            untold.tell(*env.respond(untold.ask(), np.random.default_rng(0)))
    with pytest.raises(InvalidParameterError, match="learning strategy"):
        make_strategy("xy-static").start(p).reveal_truth(env.source_means)


def test_xy_adaptive_phases_discard_and_focus_on_e2(soare5):
    env, p = soare5
    s = make_strategy("xy-adaptive").start(p, rng=1)
    res = play(s, env, seed=1)
    assert res.status == "stopped" and res.recommendation == 0
    assert res.counts[1] > 0.9 * res.samples  # mimics the oracle (Fig. 5)
    assert s.phase_ >= 3 and np.flatnonzero(s.active_).tolist() == [0]


def test_xy_adaptive_phase_length_is_eq18():
    env = soare_environment(2)
    p = problem_of(env)
    s = make_strategy("xy-adaptive", alpha=0.5).start(p, rng=0)
    while s._plan_pos < len(s._plan):
        s.tell(*env.respond(s.ask(), np.random.default_rng(0)))
    req = s.ask()  # phase 1: the XY design of all pairs after the 2 canonical pulls
    x = env.features
    a = np.eye(2)  # A_0: one pull of e_1 and e_2
    a = a + x.T @ (np.bincount(req, minlength=3)[:, None] * x)
    y = np.array([x[i] - x[j] for i in range(3) for j in range(i + 1, 3)])
    value = ((y @ np.linalg.inv(a)) * y).sum(axis=1).max()
    assert value <= 0.5 / 7 < value * (req.size + 2) / (req.size + 1)  # rho^0 / n_0 = 1/7, alpha = 0.5
    assert req.size + 2 >= 7  # at least d(d+1)+1 samples per phase


def test_fully_adaptive_uses_prop2_and_stops_right(soare5):
    env, p = soare5
    res = play(make_strategy("xy-fully-adaptive", theta_norm=2.0, check_growth=0.05).start(p, rng=0), env)
    assert res.status == "stopped" and res.recommendation == 0 and res.statistic > 1.0
    assert res.counts[1] > 0.9 * res.samples


@pytest.mark.slow
def test_lazy_tas_and_game_match_their_per_step_versions_on_average():
    env = LinearGaussianEnvironment([[1.0, 0.0], [0.0, 1.0], [0.7, 0.6]], [1.0, 0.2], 0.5)
    p = problem_of(env, delta=0.1)
    t_star = p.oracle(env.source_means)[0]
    for name, lazy in (("tas", {"check_growth": 0.05, "oracle_growth": 0.5}), ("game", {"check_growth": 0.05})):
        seq = np.mean([play(make_strategy(name).start(p, rng=s), env, s).samples for s in range(10)])
        chunked = np.mean([play(make_strategy(name, **lazy).start(p, rng=s), env, s).samples for s in range(10)])
        assert chunked <= 1.5 * seq + 20 and chunked >= 0.5 * seq
        assert chunked < 10 * t_star * math.log(1 / 0.1)


# ---------------------------------------------------------------- delta-correctness
@pytest.mark.slow
@pytest.mark.parametrize("name,params", [("tas", {"check_growth": 0.1, "oracle_growth": 1.0}),
                                          ("game", {"check_growth": 0.1}), ("xy-static", {"check_growth": 0.1}),
                                          ("xy-adaptive", {}), ("g-allocation", {"check_growth": 0.1})])
def test_delta_correct_threshold_on_random_instances(name, params):
    """Hard random instances (small gaps), delta = 0.2: the proven threshold errs at most delta.

    With 40 runs, P(errors >= 14 | p = 0.2) < 1%: the check fails a wrong threshold, not noise.
    """
    rng = np.random.default_rng(42)
    errors = runs = 0
    for i in range(8):
        x = rng.normal(size=(4, 2))
        theta = rng.normal(size=2)
        means = x @ theta
        order = np.sort(means)
        theta *= 0.3 / max(order[-1] - order[-2], 1e-3)  # gap of the two best: 0.3 (sigma = 1)
        env = LinearGaussianEnvironment(x, theta, 1.0)
        p = problem_of(env, delta=0.2, max_samples=200_000)
        for r in range(5):
            res = play(make_strategy(name, threshold="delta-correct", **params).start(p, rng=100 * i + r), env,
                       seed=100 * i + r)
            runs += 1
            errors += res.recommendation != p.answer(env.source_means)
    assert errors < 14, (errors, runs)
