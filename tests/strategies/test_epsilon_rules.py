"""epsilon-best-arm identification with every fixed-confidence rule of the best arm: ties and
near-ties stop in every run with an epsilon-good answer; on separated instances the epsilon rule
costs no more than exact identification (pathwise for uniform sampling) and about the same."""

import numpy as np
import pytest

from pybai import BernoulliEnvironment, BestArmProblem, FixedConfidence, GaussianEnvironment, make_strategy

RULES = [("uniform", {}), ("tas", {}), ("top-two", {"challenger": "tc"}), ("top-two", {"beta": "ids"}),
         ("lucb", {}), ("lucb", {"stopping": "confidence-intervals"}), ("game", {})]


def _run(name, params, env, problem, seed):
    s = make_strategy(name, **params).start(problem, rng=seed)
    noise = np.random.default_rng(1000 + seed)
    while not s.stopped:
        s.tell(*env.respond(s.ask(), noise))
    return s


@pytest.mark.parametrize("means", [[1.0, 1.0, 0.4], [1.0, 0.93, 0.4]], ids=["tie", "near-tie"])
@pytest.mark.parametrize("name,params", RULES, ids=[f"{n}-{'-'.join(map(str, p.values())) or 'default'}" for n, p in RULES])
def test_ties_and_near_ties_stop_with_an_epsilon_good_answer(name, params, means):
    env = GaussianEnvironment(means, sigma=1.0)
    problem = BestArmProblem(3, env.family(), FixedConfidence(0.1, max_samples=50_000), epsilon=0.3)
    for seed in range(4):
        s = _run(name, {**params, "threshold": "delta-correct"}, env, problem, seed)
        assert s.status_ == "stopped"
        assert problem.is_correct(s.recommendation(), env.source_means)


@pytest.mark.parametrize("name,params", [("tas", {}), ("top-two", {"challenger": "tc"}), ("lucb", {})])
def test_bernoulli_relative_near_tie_stops(name, params):
    env = BernoulliEnvironment([0.6, 0.58, 0.2])
    problem = BestArmProblem(3, env.family(), FixedConfidence(0.1, max_samples=50_000), epsilon=0.2,
                             epsilon_mode="relative")
    for seed in range(3):
        s = _run(name, params, env, problem, seed)
        assert s.status_ == "stopped" and problem.is_correct(s.recommendation(), env.source_means)


def test_separated_instance_costs_no_more_than_exact_identification():
    env = GaussianEnvironment([1.0, 0.5, 0.2], sigma=1.0)
    plain = BestArmProblem(3, env.family(), FixedConfidence(0.05))
    eps = BestArmProblem(3, env.family(), FixedConfidence(0.05), epsilon=0.01)  # gaps >= 50 epsilon
    for name, runs in (("uniform", 20), ("top-two", 100)):
        a = np.array([_run(name, {}, env, plain, s).t_ for s in range(runs)], dtype=float)
        b = np.array([_run(name, {}, env, eps, s).t_ for s in range(runs)], dtype=float)
        if name == "uniform":  # same samples, a larger statistic: never later
            assert (b <= a).all()
        assert 0.9 <= b.mean() / a.mean() <= 1.1


def test_sticky_track_and_stop_tracks_the_first_candidate_answer():
    problem = BestArmProblem(3, GaussianEnvironment([1, 1, 0]).family(), FixedConfidence(0.1), epsilon=0.2)
    counts = np.array([100.0, 100.0, 100.0])
    # arm 1 looks slightly better, arm 0 is still a candidate: arm 0's weights are tracked
    w = problem.tracking_weights(counts, np.array([1.0, 1.02, 0.0]), 300)
    want = problem.oracle_for_answer(np.array([1.0, 1.02, 0.0]), 0)[1]
    assert np.allclose(w, want)
    # with arm 0 far below, it is excluded and arm 1 (the best) is tracked
    w = problem.tracking_weights(counts, np.array([0.0, 1.0, 0.5]), 300)
    assert np.allclose(w, problem.oracle_for_answer(np.array([0.0, 1.0, 0.5]), 1)[1])
