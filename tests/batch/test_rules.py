"""The batch top-k rules' algorithms: budgets, schedules, equal gaps, easy instances, bad inputs.

The rules run as strategies against per-arm reward tables (``_reference.TableEnvironment``);
their pull-by-pull equality with plain references is in test_strategies.py.
"""

import math
import pathlib
import sys

import numpy as np
import pytest

from pybai import BatchSpec, FixedBudget, FixedConfidence, InvalidParameterError, make_strategy
from pybai.batch import halving_stage_budgets
from pybai.batch.instances import linear_instance
from pybai.models.families import Bernoulli, Gaussian
from pybai.problems.top_k import TopKProblem

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from _reference import TableEnvironment, play, reward_table, sequential_sar  # noqa: E402


def problem(n, k, regime, batch=None, family=None):
    return TopKProblem(n, k, family or Bernoulli(n_sources=n), regime, batch)


@pytest.mark.parametrize("seed,k", [(0, 2), (3, 4)])
def test_batch_sar_b1_practical_schedule_over_many_budgets(seed, k):
    means = [0.5, 0.45, 0.4, 0.6, 0.3, 0.55, 0.2]
    n = len(means)
    table = reward_table(means, 600, seed)
    for budget in range(400, 440, 3):  # many budgets: the ceilings of Eq. (10) move
        s = make_strategy("batch-sar", ties="index").start(problem(n, k, FixedBudget(budget)), rng=0)
        asked, answer = play(s, TableEnvironment(table))
        want_pulls, want_answer = sequential_sar(table, k, budget, practical=True)
        assert [a for (a,) in asked] == want_pulls and answer == want_answer


def test_batch_sar_equal_gaps():
    # constant rewards: means (1, 0.5, 0.5, 0), k = 2: both empirical gaps are 0.5 at stage 1,
    # and k' = 2 >= |S| / 2, so the best is accepted
    table = np.repeat(np.array([[1.0], [0.5], [0.5], [0.0]]), 400, axis=1)
    s = make_strategy("batch-sar", schedule="theory", ties="index")
    s.start(problem(4, 2, FixedBudget(300), family=Gaussian(1.0, n_sources=4)), rng=0)
    asked, answer = play(s, TableEnvironment(table))
    assert s.counts_[0] < s.counts_[3]  # arm 0 accepted at stage 1, arm 3 rejected at stage 2
    assert [a for (a,) in asked] == sequential_sar(table, 2, 300 - 4 - 1)[0] and answer == [0, 1]
    # all means equal (every gap 0), k = 1 of 6: the worst is rejected, stage after stage
    s = make_strategy("batch-sar", schedule="theory", ties="index")
    s.start(problem(6, 1, FixedBudget(300), family=Gaussian(1.0, n_sources=6)), rng=0)
    _, answer = play(s, TableEnvironment(np.full((6, 400), 0.5)))
    assert answer == [0] and s.accepted_.sum() == 0  # arm 0 wins the final stage
    c = s.counts_
    assert c[5] < c[4] < c[3] < c[2] < c[1]


def _gaussian_run(name, n, k, b, r, budget, seed, **params):
    rng = np.random.default_rng(n + b)
    means = rng.normal(0, 1, n)
    s = make_strategy(name, **params).start(
        problem(n, k, FixedBudget(budget), BatchSpec(b, r), Gaussian(1.0, n_sources=n)), rng=seed)
    while not s.stopped:
        req = s.ask()
        assert req.size <= b and np.unique(req, return_counts=True)[1].max() <= r
        s.tell(req, means[req] + rng.standard_normal(req.size))
    answer = s.recommendation()
    assert answer.size == k and np.unique(answer).size == k
    return s


@pytest.mark.parametrize("n,k,b,r", [(20, 3, 8, 2), (40, 5, 16, 16), (12, 4, 5, 2), (30, 2, 64, 1), (9, 3, 1, 1)])
@pytest.mark.parametrize("schedule", ["practical", "theory"])
def test_batch_sar_respects_budget(n, k, b, r, schedule):
    p = problem(n, k, FixedBudget(1), BatchSpec(b, r), Gaussian(1.0, n_sources=n))
    with pytest.raises(InvalidParameterError, match="'budget'") as err:
        make_strategy("batch-sar").start(p)
    small = int(str(err.value).split(">= ")[1].split(" ")[0])  # the smallest valid budget
    for budget in (small, small + 7, 3 * small):
        s = _gaussian_run("batch-sar", n, k, b, r, budget, 1, schedule=schedule)
        assert s.batches_ <= budget
        early = s.accepted_.sum() == k or s.survivors_.size == k - s.accepted_.sum()
        if schedule == "practical" and s.survivors_.size == s._schedule.n_tilde and not early:
            assert s.batches_ == budget and s.status_ == "budget-spent"  # the last stage spends the budget


def test_halving_stage_budgets_and_answer():
    rng = np.random.default_rng(5)
    stages = halving_stage_budgets(12_979, 100, 384, 384, 100, rng)
    assert stages.sum() == 100 and stages.size == 8
    assert stages[0] >= math.ceil(12_979 / 384)  # stage 1 pulls every arm once
    assert halving_stage_budgets(100, 10, 16, 4, 400).tolist() == [100, 100, 100, 100]
    assert halving_stage_budgets(100, 10, 16, 4, 402).tolist() == [101, 101, 100, 100]  # remainder: first stages
    means = linear_instance()
    s = make_strategy("halving").start(problem(100, 10, FixedBudget(400), BatchSpec(16, 4)), rng=5)
    while not s.stopped:
        req = s.ask()
        s.tell(req, (rng.random(req.size) < means[req]).astype(float))
    assert s.stage_budgets_.sum() == 400 and s.batches_ == 400 and s.status_ == "budget-spent"
    assert len(set(s.recommendation().tolist()) & set(range(10))) >= 8


def test_round_robin_and_racing_are_correct_on_easy_instances():
    rng = np.random.default_rng(6)
    means = np.r_[np.full(5, 0.9), np.full(45, 0.1)]
    for name, regime, batch in [("round-robin", FixedBudget(200), BatchSpec(10, 2)),
                                ("batch-racing", FixedConfidence(0.1), BatchSpec(25, 5))]:
        s = make_strategy(name).start(problem(50, 5, regime, batch), rng=rng)
        while not s.stopped:
            req = s.ask()
            s.tell(req, (rng.random(req.size) < means[req]).astype(float))
        assert s.recommendation().tolist() == [0, 1, 2, 3, 4]
        if name == "round-robin":
            assert s.batches_ == 200 and np.ptp(s.counts_) <= 1


@pytest.mark.parametrize(
    "name,regime,batch,params,key",
    [
        ("batch-racing", FixedConfidence(0.1), BatchSpec(4, 2), {"sigma": 0.0}, "'sigma'"),
        ("batch-sar", FixedBudget(10), BatchSpec(4, 2), {}, "'budget'"),
        ("batch-sar", FixedBudget(50), BatchSpec(4, 2), {"schedule": "fast"}, "'schedule'"),
        ("halving", FixedBudget(24), BatchSpec(4, 2), {}, "'budget'"),
        ("round-robin", FixedBudget(24), BatchSpec(4, 2), {}, "'budget'"),
        ("round-robin", FixedBudget(25), BatchSpec(4, 2), {"ties": "shuffle"}, "'ties'"),
    ],
)
def test_bad_inputs_name_the_key(name, regime, batch, params, key):
    with pytest.raises(InvalidParameterError, match=key):
        make_strategy(name, params).start(problem(100, 3, regime, batch))
