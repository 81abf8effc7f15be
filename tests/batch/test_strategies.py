"""The contract strategies batch-racing, batch-sar, halving and round-robin (Strategy wrappers).

* at b = r = 1 (no [problem.batch]) they are sequential Racing and SAR, pull by pull, against
  the plain references of ``_reference.py``;
* with batches, the wrapper's run is the stand-alone algorithm's run on the same rewards;
* budgets count batches, runs are reproducible, bad inputs name their key.
"""

import pathlib
import sys

import numpy as np
import pytest

from pybai import BatchSpec, BernoulliEnvironment, FixedBudget, FixedConfidence, InvalidParameterError, make_strategy
from pybai.batch import BatchRacing, BatchSAR, Halving, UniformRoundRobin
from pybai.models.families import Bernoulli
from pybai.problems.top_k import TopKProblem
from pybai.simulate.runner import run_replication

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from _reference import reward_table, sequential_racing, sequential_sar  # noqa: E402


class TableEnvironment:
    """Answers each request with the next unused reward of its arm in ``table``."""

    def __init__(self, table):
        self.table = table
        self.used = np.zeros(table.shape[0], dtype=int)

    def respond(self, requests, rng=None):
        rewards = np.empty(requests.size)
        for j, arm in enumerate(requests.tolist()):
            rewards[j] = self.table[arm, self.used[arm]]
            self.used[arm] += 1
        return requests, rewards


def play(strategy, env, partial=False):
    """Run to the end; return the requests in order (one list per batch) and the recommendation."""
    asked = []
    while not strategy.stopped:
        req = strategy.ask()
        asked.append(req.tolist())
        src, rew = env.respond(req)
        if partial and req.size > 1:  # answer in two parts: the wrapper must wait for the whole batch
            strategy.tell(src[:1], rew[:1])
            strategy.tell(src[1:], rew[1:])
        else:
            strategy.tell(src, rew)
    return asked, strategy.recommendation().tolist()


def problem(n, k, regime, batch=None):
    return TopKProblem(n, k, Bernoulli(n_sources=n), regime, batch)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_batch_racing_without_batches_is_sequential_racing(seed):
    means = [0.9, 0.15, 0.8, 0.2, 0.1, 0.85]
    table = reward_table(means, 4000, seed)
    want_pulls, want_answer = sequential_racing(table, 3, 0.2)
    s = make_strategy("batch-racing", ties="index").start(problem(6, 3, FixedConfidence(0.2)), rng=seed)
    asked, answer = play(s, TableEnvironment(table))
    assert [a for (a,) in asked] == want_pulls  # one sample per batch, the same arm each time
    assert answer == want_answer == [0, 2, 5]
    assert s.status_ == "stopped" and s.batches_ == s.t_ == len(want_pulls)
    assert 0 < s.result().statistic <= 1


@pytest.mark.parametrize("seed,k", [(0, 2), (1, 3), (2, 1)])
def test_batch_sar_without_batches_is_sar(seed, k):
    means = [0.5, 0.45, 0.4, 0.6, 0.3, 0.55, 0.2]
    n, budget = len(means), 700
    table = reward_table(means, budget, seed)
    s = make_strategy("batch-sar", schedule="theory", ties="index").start(problem(n, k, FixedBudget(budget)), rng=0)
    asked, answer = play(s, TableEnvironment(table))
    want_pulls, want_answer = sequential_sar(table, k, budget - n - 1)  # sar.py: SAR on B - n - 1 samples
    assert [a for (a,) in asked] == want_pulls and answer == want_answer
    assert s.status_ == "stopped" and s.t_ < budget  # the theoretical schedule ends early


@pytest.mark.parametrize("seed,k", [(0, 2), (3, 4)])
def test_batch_sar_practical_schedule_without_batches(seed, k):
    means = [0.5, 0.45, 0.4, 0.6, 0.3, 0.55, 0.2]
    table = reward_table(means, 600, seed)
    for budget in (401, 417, 430):
        s = make_strategy("batch-sar", ties="index").start(problem(7, k, FixedBudget(budget)), rng=0)
        asked, answer = play(s, TableEnvironment(table))
        want_pulls, want_answer = sequential_sar(table, k, budget, practical=True)
        assert [a for (a,) in asked] == want_pulls and answer == want_answer


def engine_run(engine, table):
    """The stand-alone algorithm on the same per-arm reward sequences; the pulls per batch."""
    used = np.zeros(table.shape[0], dtype=int)
    batches = []
    while not engine.done:
        pulls = engine.next_batch()
        sums = np.array([table[i, used[i]:used[i] + p].sum() for i, p in enumerate(pulls)])
        used += pulls
        batches.append(np.repeat(np.arange(pulls.size), pulls).tolist())
        engine.observe(pulls, sums)
    return batches, engine.answer().tolist()


@pytest.mark.parametrize("name,regime,make", [
    ("batch-racing", FixedConfidence(0.1), lambda n, k, b, r, rng: BatchRacing(n, k, b, r, 0.1, rng=rng)),
    ("batch-sar", FixedBudget(40), lambda n, k, b, r, rng: BatchSAR(n, k, b, r, 40, rng=rng)),
    ("halving", FixedBudget(40), lambda n, k, b, r, rng: Halving(n, k, b, r, 40, rng=rng)),
    ("round-robin", FixedBudget(40), lambda n, k, b, r, rng: UniformRoundRobin(n, k, b, r, 40, rng=rng)),
])
def test_the_strategy_is_the_algorithm_in_batches(name, regime, make):
    means = np.array([0.9, 0.2, 0.75, 0.1, 0.8, 0.3, 0.05, 0.5, 0.35, 0.45, 0.15, 0.4])
    table = reward_table(means, 20_000, 4)
    n, k, b, r = means.size, 3, 8, 3
    s = make_strategy(name).start(problem(n, k, regime, BatchSpec(b, r)), rng=np.random.default_rng(9))
    asked, answer = play(s, TableEnvironment(table), partial=True)
    want, want_answer = engine_run(make(n, k, b, r, np.random.default_rng(9)), table)
    assert asked == want and answer == want_answer
    assert s.batches_ == len(want) and all(len(a) <= b for a in asked)
    if isinstance(regime, FixedBudget) and name != "batch-sar":
        assert s.status_ == "budget-spent" and s.batches_ == 40


def test_state_round_trip_mid_batch():
    from pybai.strategies.state import restore_strategy

    means = np.array([0.9, 0.2, 0.7, 0.1, 0.75, 0.3, 0.05, 0.6])
    table = reward_table(means, 5000, 1)
    p = problem(8, 2, FixedBudget(60), BatchSpec(6, 2))
    s = make_strategy("batch-sar", schedule="theory").start(p, rng=3)
    env = TableEnvironment(table)
    for _ in range(5):
        s.tell(*env.respond(s.ask()))
    src, rew = env.respond(s.ask())
    s.tell(src[:2], rew[:2])  # part of a batch
    copy = restore_strategy(s.get_state(), p)
    env2 = TableEnvironment(table)
    env2.used = env.used.copy()
    copy.tell(src[2:], rew[2:])
    s.tell(src[2:], rew[2:])
    assert play(copy, env2) == play(s, env)
    assert np.array_equal(copy.engine_.counts, s.engine_.counts)


def test_budgets_count_batches_through_the_runner():
    env = BernoulliEnvironment([0.8, 0.7, 0.6, 0.3, 0.2, 0.2, 0.1, 0.1])
    p = TopKProblem(8, 2, env.family(), FixedBudget(25), BatchSpec(10, 3))
    seed = np.random.SeedSequence(5)
    for name in ("halving", "round-robin"):
        out = run_replication(make_strategy(name), env, p, seed)
        assert out.batches == 25 and out.samples == 250 and out.status == "budget-spent"
        assert out.false_negative is not None
    a = run_replication(make_strategy("batch-sar"), env, p, seed)
    b = run_replication(make_strategy("batch-sar"), env, p, seed)
    assert a.batches <= 25 and a.recommendation.tolist() == b.recommendation.tolist()
    assert np.array_equal(a.counts, b.counts)


@pytest.mark.parametrize("name,regime,params,key", [
    ("batch-sar", FixedBudget(3), {}, "'budget'"),  # too small to pull every arm once
    ("halving", FixedBudget(2), {}, "'budget'"),
    ("round-robin", FixedBudget(2), {}, "'budget'"),
    ("batch-sar", FixedBudget(50), {"schedule": "fast"}, "'schedule'"),
    ("batch-racing", FixedConfidence(0.1), {"sigma": -1.0}, "'sigma'"),
    ("batch-racing", FixedConfidence(0.1), {"ties": "first"}, "'ties'"),
])
def test_bad_inputs_name_the_key(name, regime, params, key):
    p = problem(30, 3, regime, BatchSpec(8, 2))
    with pytest.raises(InvalidParameterError, match=key):
        make_strategy(name, params).start(p)


def test_problem_refuses_bad_k_and_r():
    with pytest.raises(InvalidParameterError, match="'k'"):
        problem(5, 5, FixedBudget(10))
    with pytest.raises(InvalidParameterError, match="'k'"):
        problem(5, 0, FixedBudget(10))
    with pytest.raises(InvalidParameterError, match="'max_repeats'"):
        BatchSpec(4, 8)


def test_batch_rules_solve_only_top_k():
    from pybai import BestArmProblem

    p = BestArmProblem(4, Bernoulli(n_sources=4), FixedBudget(20), BatchSpec(4, 2))
    with pytest.raises(InvalidParameterError, match="top-k"):
        make_strategy("halving").start(p)
