"""epsilon-top-k identification with the fixed-confidence rules of top-k (lucb, game, uniform): ties and
near-ties at the k-th / (k+1)-th boundary stop with an epsilon-correct set; separated instances cost about
what exact top-k costs; the error rate stays below delta, and a rule shifted the wrong way fails that check."""

import numpy as np
import pytest
from scipy.stats import binomtest

from pybai import BernoulliEnvironment, FixedConfidence, GaussianEnvironment, make_strategy
from pybai.problems.top_k import TopKProblem

RULES = [("lucb", {}), ("lucb", {"stopping": "confidence-intervals"}), ("game", {}), ("uniform", {})]
IDS = ["lucb", "lucb-ci", "game", "uniform"]


def _run(name, params, env, problem, seed):
    s = make_strategy(name, **params).start(problem, rng=seed)
    noise = np.random.default_rng(1000 + seed)
    while not s.stopped:
        s.tell(*env.respond(s.ask(), noise))
    return s


@pytest.mark.parametrize("means", [[1.0, 0.7, 0.7, 0.2], [1.0, 0.7, 0.66, 0.2]], ids=["tie", "near-tie"])
@pytest.mark.parametrize("name,params", RULES, ids=IDS)
def test_ties_and_near_ties_at_the_boundary_stop_epsilon_correct(name, params, means):
    env = GaussianEnvironment(means, sigma=1.0)
    problem = TopKProblem(4, 2, env.family(), FixedConfidence(0.1, max_samples=50_000), epsilon=0.25)
    exact = TopKProblem(4, 2, env.family(), FixedConfidence(0.1))
    for seed in range(3):
        s = _run(name, {**params, "threshold": "delta-correct"}, env, problem, seed)
        assert s.status_ == "stopped"
        answer = s.recommendation()
        assert problem.is_correct(answer, env.source_means)
        if means[1] == means[2]:  # on the exact tie either tied arm completes a correct set
            assert exact.is_correct(answer, env.source_means)


@pytest.mark.parametrize("name", ["lucb", "game"])
def test_bernoulli_relative_near_tie_stops(name):
    env = BernoulliEnvironment([0.8, 0.6, 0.59, 0.2])
    problem = TopKProblem(4, 2, env.family(), FixedConfidence(0.1, max_samples=50_000), epsilon=0.2,
                          epsilon_mode="relative")
    for seed in range(2):
        s = _run(name, {"threshold": "delta-correct"}, env, problem, seed)
        assert s.status_ == "stopped" and problem.is_correct(s.recommendation(), env.source_means)


def test_separated_instance_costs_about_exact_top_k():
    env = GaussianEnvironment([1.0, 0.8, 0.3, 0.0], sigma=1.0)
    plain = TopKProblem(4, 2, env.family(), FixedConfidence(0.05))
    eps = TopKProblem(4, 2, env.family(), FixedConfidence(0.05), epsilon=0.02)  # gaps >= 25 epsilon
    for name, runs in (("uniform", 10), ("lucb", 40)):
        a = np.array([_run(name, {}, env, plain, s).t_ for s in range(runs)], dtype=float)
        b = np.array([_run(name, {}, env, eps, s).t_ for s in range(runs)], dtype=float)
        if name == "uniform":  # same samples, a larger statistic: never later
            assert (b <= a).all()
        assert 0.85 <= b.mean() / a.mean() <= 1.1


def _errors(stop_problem, judge, env, runs, delta):
    wrong = 0
    for seed in range(runs):
        s = _run("uniform", {"threshold": "delta-correct"}, env, stop_problem, seed)
        assert s.status_ == "stopped"
        wrong += not judge.is_correct(s.recommendation(), env.source_means)
    return wrong


def test_error_rate_is_below_delta_and_a_rule_shifted_the_wrong_way_fails():
    """Arms 2 and 3 are 0.3 below mu_(2) = 0: not epsilon-good at epsilon = 0.2.  The pairwise rule errs
    at most at rate delta; the same rule with its pieces shifted the wrong amount (1.5: a tolerance far wider
    than the one judged) returns such arms far more often, and the binomial check rejects it."""
    env = GaussianEnvironment([0.5, 0.0, -0.3, -0.3], sigma=1.0)
    delta, runs = 0.2, 60
    regime = FixedConfidence(delta, max_samples=20_000)
    judge = TopKProblem(4, 2, env.family(), regime, epsilon=0.2)
    good = _errors(judge, judge, env, runs, delta)
    assert binomtest(good, runs, delta, alternative="greater").pvalue >= 0.01
    wrong_way = TopKProblem(4, 2, env.family(), regime, epsilon=1.5)
    bad = _errors(wrong_way, judge, env, runs, delta)
    assert binomtest(bad, runs, delta, alternative="greater").pvalue < 0.01


def test_batch_racing_refuses_epsilon_with_one_line():
    """batch-racing certifies the exact set by its own rule: it requires "exact-identification"."""
    from pybai.exceptions import InvalidParameterError

    env = GaussianEnvironment([1.0, 0.7, 0.7, 0.2], sigma=1.0)
    problem = TopKProblem(4, 2, env.family(), FixedConfidence(0.1), epsilon=0.25)
    assert "exact-identification" not in problem.provides
    assert "exact-identification" in TopKProblem(4, 2, env.family(), FixedConfidence(0.1)).provides
    with pytest.raises(InvalidParameterError, match="does not read epsilon"):
        make_strategy("batch-racing").start(problem, rng=0)
