"""KL-LUCB on top-k: the pair it samples (closed-form Gaussian bounds) and delta-correctness."""


import numpy as np
import pytest

from pybai import BestArmProblem, FixedConfidence, Gaussian, GaussianEnvironment, BernoulliEnvironment, make_strategy
from pybai.problems.top_k import TopKProblem
from pybai.simulate.runner import run_replication


def started(problem, counts, sums):
    s = make_strategy("lucb").start(problem, rng=0)
    s.model_.set_statistics(np.asarray(counts, float), np.asarray(sums, float))
    s.t_ = int(sum(counts))
    s._plan_pos, s._ready = len(s._plan), True  # past the initial phase
    return s


@pytest.mark.parametrize("seed", range(5))
def test_pair_is_weakest_member_and_strongest_outsider(seed):
    rng = np.random.default_rng(seed)
    n, k = 7, 3
    p = TopKProblem(n, k, Gaussian(1.0, n_sources=n), FixedConfidence(0.1))
    counts = rng.integers(1, 50, n)
    means = rng.normal(0, 1, n)
    s = started(p, counts, means * counts)
    beta = s.threshold_(s.t_)
    width = np.sqrt(2 * beta / counts)  # Gaussian, sigma = 1: N (m - q)^2 / 2 = beta
    top = np.argsort(-means)[:k]
    rest = np.setdiff1d(np.arange(n), top)
    h = top[np.argmin((means - width)[top])]
    l_arm = rest[np.argmax((means + width)[rest])]
    assert s.ask().tolist() == [h, l_arm]


def test_best_arm_pair_unchanged():
    # k = 1: h is the empirical best arm, l the other arm with the largest UCB
    p = BestArmProblem(4, Gaussian(1.0, n_sources=4), FixedConfidence(0.1))
    s = started(p, [10, 40, 5, 20], [5.0, 30.0, 3.5, 2.0])  # means 0.5, 0.75, 0.7, 0.1
    beta = s.threshold_(75)
    ucb = np.array([0.5, 0.75, 0.7, 0.1]) + np.sqrt(2 * beta / np.array([10, 40, 5, 20]))
    assert s.ask().tolist() == [1, int(np.argmax(np.where(np.arange(4) == 1, -np.inf, ucb)))]


@pytest.mark.parametrize("stopping", ["glr", "confidence-intervals"])
@pytest.mark.parametrize("env,k", [
    (GaussianEnvironment([1.0, 0.8, 0.0, -0.1, -0.3], sigma=1.0), 2),
    (BernoulliEnvironment([0.8, 0.2, 0.65, 0.3, 0.1]), 2),
])
def test_delta_correct_on_small_top_k_instances(env, k, stopping):
    delta = 0.2
    p = TopKProblem(env.n_sources, k, env.family(), FixedConfidence(delta, max_samples=100_000))
    strategy = make_strategy("lucb", stopping=stopping)
    runs = [run_replication(strategy, env, p, np.random.SeedSequence(3, spawn_key=(r,))) for r in range(40)]
    assert all(o.status == "stopped" for o in runs)
    errors = sum(not o.correct for o in runs)
    # P(Binomial(40, 0.2) >= 15) < 0.03: a rule that is not delta-correct shows here
    assert errors <= 14
    # and it adapts: the two arms at the top-k boundary get the most samples
    counts = np.mean([o.counts for o in runs], axis=0)
    order = np.argsort(-env.source_means)
    assert counts[order[k - 1]] > counts[order[-1]] and counts[order[k]] > counts[order[-1]]
