"""The contract strategies batch-racing, batch-sar, halving and round-robin.

* at b = r = 1 (no [problem.batch]) they are sequential Racing and SAR, pull by pull, against
  the plain references of ``_reference.py``;
* with batches and either tie order, every batch and the answer are those of the plain
  references (Algorithm 1 pull by pull, Algorithms 2-4 step by step), also when batches are
  answered in parts;
* budgets count batches, runs are reproducible, states restore mid-batch, bad inputs name their key.
"""

import pathlib
import sys

import numpy as np
import pytest

from pybai import BatchSpec, BernoulliEnvironment, FixedBudget, FixedConfidence, InvalidParameterError, make_strategy
from pybai.models.families import Bernoulli
from pybai.problems.top_k import TopKProblem
from pybai.simulate.runner import run_replication

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import _reference as ref  # noqa: E402
from _reference import TableEnvironment, play, reward_table, sequential_racing, sequential_sar  # noqa: E402


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


MEANS = np.array([0.9, 0.2, 0.75, 0.1, 0.8, 0.3, 0.05, 0.5, 0.35, 0.45, 0.15, 0.4])


def _reference_run(name, table, k, b, r, ties, seed, budget):
    """The plain reference's batches and answer, with the tie order (and Halving's spread) the strategy draws."""
    rng = np.random.default_rng(seed)
    n = table.shape[0]
    priority = rng.permutation(n) if ties == "random" else np.arange(n)
    if name == "batch-racing":
        return ref.batch_racing(table, k, 0.1, b, r, priority)
    if name == "batch-sar":
        return ref.batch_sar(table, k, budget, b, r, priority)
    if name == "halving":
        return ref.halving(table, k, budget, b, r, priority, rng if ties == "random" else None)
    return ref.round_robin_rule(table, k, budget, b, r, priority)


@pytest.mark.parametrize("name", ["batch-racing", "batch-sar", "halving", "round-robin"])
@pytest.mark.parametrize("ties", ["random", "index"])
@pytest.mark.parametrize("b,r", [(8, 3), (5, 5), (3, 1)])
def test_the_rules_are_the_plain_algorithms_in_batches(name, ties, b, r):
    table = reward_table(MEANS, 20_000, 4)
    n, k, budget = MEANS.size, 3, 40
    regime = FixedConfidence(0.1) if name == "batch-racing" else FixedBudget(budget)
    want, want_answer = _reference_run(name, table, k, b, r, ties, 9, budget)
    for partial in (False, True):
        s = make_strategy(name, ties=ties).start(problem(n, k, regime, BatchSpec(b, r)), rng=np.random.default_rng(9))
        asked, answer = play(s, TableEnvironment(table), partial=partial)
        assert asked == want and answer == want_answer
        assert s.batches_ == len(want) and all(len(a) <= b for a in asked)
        if isinstance(regime, FixedBudget) and name != "batch-sar":
            assert s.status_ == "budget-spent" and s.batches_ == budget


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
    assert np.array_equal(copy.counts_, s.counts_) and np.array_equal(copy.survivors_, s.survivors_)


def test_censored_racing_answers_from_its_complete_batches():
    # max_samples cuts the 4th batch of 5: the rule never decides on it, its answer is that of the
    # three complete batches; the model holds the cut batch's samples
    means = np.array([0.9, 0.1, 0.8, 0.2, 0.85, 0.3])
    table = reward_table(means, 100, 2)
    p = TopKProblem(6, 2, Bernoulli(n_sources=6), FixedConfidence(0.1, max_samples=17), BatchSpec(5, 2))
    s = make_strategy("batch-racing").start(p, rng=0)
    env = TableEnvironment(table)
    for _ in range(3):
        s.tell(*env.respond(s.ask()))
    answer = s.recommendation()
    req = s.ask()
    assert req.size == 2 and s.censored_answer_ is not None
    s.tell(*env.respond(req))
    assert s.status_ == "censored" and s.t_ == 17 and s.counts_.sum() == 17
    assert s.recommendation().tolist() == answer.tolist() == s.censored_answer_.tolist()
    assert s.result().statistic == 0.0


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
