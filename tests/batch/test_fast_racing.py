"""The compiled whole-run path of batch-racing equals the ask/tell loop, bit for bit.

Both paths start from the same strategy generator and the same noise generator; the fast
path must leave the same strategy state (counts, sums, survivors, answer, status, batches),
the same result, and the noise generator at the same point of its stream.
"""

import numpy as np
import pytest

from pybai import BatchSpec, BernoulliEnvironment, FixedConfidence, InvalidParameterError, make_strategy
from pybai.batch import fast_racing
from pybai.batch.fast_racing import simulate_batch_racing
from pybai.batch.round_robin import kth_smallest
from pybai.environments import GaussianEnvironment
from pybai.models.families import Bernoulli, Gaussian
from pybai.problems.top_k import TopKProblem
from pybai.simulate.runner import run_replication

MEANS = np.array([0.95, 0.1, 0.7, 0.3, 0.85, 0.15, 0.05])  # k = 3: gap 0.4 between the 3rd and 4th arm


def _problem(env, k, batch, delta=0.1, max_samples=1_000_000):
    n = env.n_sources
    family = Bernoulli(n_sources=n) if isinstance(env, BernoulliEnvironment) else Gaussian(env.sigma, n_sources=n)
    return TopKProblem(n, k, family, FixedConfidence(delta=delta, max_samples=max_samples), batch)


def _both(env, problem, seed, **params):
    """(strategy, noise) after the ask/tell loop and after the fast path, from the same seeds."""
    runs = []
    for fast in (False, True):
        s = make_strategy("batch-racing", **params).start(problem, rng=np.random.default_rng(seed))
        noise = np.random.default_rng(seed + 100)
        if fast:
            sigma = getattr(env, "sigma", None)
            assert s.simulate_run(env.means, noise, sigma=sigma)
        while not s.stopped:
            s.tell(*env.respond(s.ask(), noise))
        runs.append((s, noise))
    return runs


CASES = [
    # (environment, k, batch, params, max_samples)
    (BernoulliEnvironment(MEANS), 3, None, {}, 1_000_000),  # b = r = 1: sequential Racing
    (BernoulliEnvironment(MEANS), 3, BatchSpec(8, 3), {}, 1_000_000),
    (BernoulliEnvironment(MEANS), 3, BatchSpec(5, 5), {"ties": "index"}, 1_000_000),
    (BernoulliEnvironment(MEANS), 3, BatchSpec(7, 2), {}, 400),  # censored, last batch cut at max_samples
    (GaussianEnvironment(MEANS, 0.3), 3, BatchSpec(6, 2), {}, 1_000_000),
    (GaussianEnvironment(MEANS, np.linspace(0.2, 0.4, MEANS.size)), 3, None, {"sigma": 0.4}, 1_000_000),
]


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("seed", [0, 7])
def test_fast_path_equals_ask_tell(case, seed):
    env, k, batch, params, max_samples = CASES[case]
    problem = _problem(env, k, batch, max_samples=max_samples)
    (slow, noise_slow), (fast, noise_fast) = _both(env, problem, seed, **params)
    a, b = slow.result(), fast.result()
    assert (a.status, a.samples, a.batches) == (b.status, b.samples, b.batches)
    assert np.array_equal(a.recommendation, b.recommendation)
    assert np.array_equal(a.counts, b.counts) and np.array_equal(a.means, b.means, equal_nan=True)
    assert a.statistic == b.statistic
    assert slow.get_state() == fast.get_state()  # rule arrays, model, pending cut batch, request ids
    assert noise_slow.random() == noise_fast.random()  # the same number of draws was taken
    if max_samples == 400:
        assert a.status == "censored" and a.samples == 400
    else:
        assert a.status == "stopped" and a.batches > 20


def test_runner_fast_and_generic_paths_agree_on_outcomes():
    env = BernoulliEnvironment(MEANS)
    problem = _problem(env, 3, BatchSpec(4, 2), delta=0.2)
    strategy = make_strategy("batch-racing")
    for seed in (3, 4):
        want = run_replication(strategy, env, problem, np.random.SeedSequence(seed), fast=False)
        got = run_replication(strategy, env, problem, np.random.SeedSequence(seed))
        assert (want.samples, want.batches, want.status, want.correct) == (got.samples, got.batches, got.status, got.correct)
        assert np.array_equal(want.recommendation, got.recommendation) and np.array_equal(want.counts, got.counts)


def test_the_deviation_table_is_extended_beyond_its_first_size(monkeypatch):
    # a first table of 4 entries: the compiled loop returns for a larger one many times
    monkeypatch.setattr(fast_racing, "_FIRST_TABLE", 4)
    env = BernoulliEnvironment(MEANS)
    problem = _problem(env, 3, BatchSpec(3, 2))
    (slow, _), (fast, _) = _both(env, problem, 1)
    assert fast.counts_.max() > 64
    assert slow.get_state() == fast.get_state()


def test_fast_path_refuses_a_started_run_and_bad_input():
    env = BernoulliEnvironment(MEANS)
    s = make_strategy("batch-racing").start(_problem(env, 3, None), rng=0)
    noise = np.random.default_rng(0)
    s.tell(*env.respond(s.ask(), noise))
    state = noise.bit_generator.state
    assert s.simulate_run(env.means, noise) is False and noise.bit_generator.state == state
    params = dict(k=1, size=2, max_repeats=1, omega=0.05, scale=0.5, priority=np.arange(4), max_samples=100)
    with pytest.raises(InvalidParameterError, match="means"):
        simulate_batch_racing([0.1, 0.2], noise, **params)
    with pytest.raises(InvalidParameterError, match="rng"):
        simulate_batch_racing([0.1, 0.2, 0.3, 0.4], 0, **params)


def test_quickselect_is_the_order_statistic():
    rng = np.random.default_rng(0)
    work = np.empty(40)
    for _ in range(200):
        m = int(rng.integers(1, 40))
        values = rng.choice([-np.inf, np.inf, 0.5, 0.25, 0.0], size=40) if rng.random() < 0.3 else rng.normal(size=40)
        kth = int(rng.integers(0, m))
        assert kth_smallest(values, m, kth, work) == np.sort(values[:m])[kth]
