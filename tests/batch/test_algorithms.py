import math
import pathlib
import sys

import numpy as np
import pytest

from pybai.batch import BatchRacing, BatchSAR, Halving, UniformRoundRobin, draw_batch_sums
from pybai.batch.instances import linear_instance
from pybai.exceptions import InvalidParameterError, SessionStateError

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from _reference import reward_table, sequential_racing, sequential_sar  # noqa: E402


def run_with_table(algo, table):
    """Drive a batch algorithm with b = 1; return the pulled arms in order and the answer."""
    pulled = []
    while not algo.done:
        a = algo.next_batch()
        assert a.sum() == 1
        arm = int(np.flatnonzero(a)[0])
        sums = np.zeros(a.size)
        sums[arm] = table[arm, algo.counts[arm]]
        pulled.append(arm)
        algo.observe(a, sums)
    return pulled, algo.answer().tolist()


@pytest.mark.parametrize("seed", [0, 1])
def test_batch_racing_b1_is_sequential_racing(seed):
    means = [0.9, 0.15, 0.8, 0.2, 0.1, 0.85]
    table = reward_table(means, 4000, seed)
    want_pulls, want_answer = sequential_racing(table, 3, 0.2)
    pulls, answer = run_with_table(BatchRacing(6, 3, 1, 1, 0.2), table)
    assert pulls == want_pulls
    assert answer == want_answer == [0, 2, 5]


@pytest.mark.parametrize("seed,k", [(0, 2), (1, 3), (2, 1)])
def test_batch_sar_b1_theory_schedule_is_sar(seed, k):
    means = [0.5, 0.45, 0.4, 0.6, 0.3, 0.55, 0.2]
    n, budget = len(means), 700
    table = reward_table(means, budget, seed)
    algo = BatchSAR(n, k, 1, 1, budget, schedule="theory")
    pulls, answer = run_with_table(algo, table)
    # BatchSAR at b = r = 1 is SAR with budget B - n - 1 (sar.py docstring)
    want_pulls, want_answer = sequential_sar(table, k, budget - n - 1)
    assert pulls == want_pulls
    assert answer == want_answer
    assert len(pulls) <= budget


@pytest.mark.parametrize("seed,k", [(0, 2), (3, 4)])
def test_batch_sar_b1_practical_schedule(seed, k):
    means = [0.5, 0.45, 0.4, 0.6, 0.3, 0.55, 0.2]
    n = len(means)
    table = reward_table(means, 600, seed)
    for budget in range(400, 440, 3):  # many budgets: the ceilings of Eq. (10) move
        pulls, answer = run_with_table(BatchSAR(n, k, 1, 1, budget), table)
        want_pulls, want_answer = sequential_sar(table, k, budget, practical=True)
        assert pulls == want_pulls and answer == want_answer


def test_batch_sar_equal_gaps():
    # constant rewards: means (1, 0.5, 0.5, 0), k = 2: both empirical gaps are 0.5 at stage 1,
    # and k' = 2 >= |S| / 2, so the best is accepted
    table = np.repeat(np.array([[1.0], [0.5], [0.5], [0.0]]), 400, axis=1)
    algo = BatchSAR(4, 2, 1, 1, 300, schedule="theory")
    pulls, answer = run_with_table(algo, table)
    assert algo.counts[0] < algo.counts[3]  # arm 0 accepted at stage 1, arm 3 rejected at stage 2
    assert pulls == sequential_sar(table, 2, 300 - 4 - 1)[0] and answer == [0, 1]
    # all means equal (every gap 0), k = 1 of 6: the worst is rejected, stage after stage
    algo = BatchSAR(6, 1, 1, 1, 300, schedule="theory")
    _, answer = run_with_table(algo, np.full((6, 400), 0.5))
    assert answer == [0] and algo.accepted.sum() == 0  # arm 0 wins the final stage
    assert algo.counts[5] < algo.counts[4] < algo.counts[3] < algo.counts[2] < algo.counts[1]


# --- budgets, batch validity, answers ---------------------------------------------------


def drive(algo, means, rng, family="bernoulli", sigma=1.0, max_batches=100_000):
    for _ in range(max_batches):
        if algo.done:
            break
        a = algo.next_batch()
        assert a.sum() <= algo.size and a.max() <= algo.max_repeats and a.min() >= 0
        algo.observe(a, draw_batch_sums(rng, a, means, family, sigma))
    assert algo.done
    ans = algo.answer()
    assert ans.size == algo.k and np.unique(ans).size == algo.k
    return ans


@pytest.mark.parametrize("n,k,b,r", [(20, 3, 8, 2), (40, 5, 16, 16), (12, 4, 5, 2), (30, 2, 64, 1), (9, 3, 1, 1)])
@pytest.mark.parametrize("schedule", ["practical", "theory"])
def test_batch_sar_respects_budget(n, k, b, r, schedule):
    rng = np.random.default_rng(n + b)
    means = rng.normal(0, 1, n)
    with pytest.raises(InvalidParameterError, match="'budget'") as err:
        BatchSAR(n, k, b, r, 1)
    small = int(str(err.value).split(">= ")[1].split(" ")[0])  # the smallest valid budget
    for budget in (small, small + 7, 3 * small):
        algo = BatchSAR(n, k, b, r, budget, schedule=schedule, rng=rng)
        drive(algo, means, rng, "gaussian")
        assert algo.n_batches <= budget
        if schedule == "practical" and algo.stage == n - algo.n_tilde + 1 and not _early(algo):
            assert algo.n_batches == budget  # the last stage spends the budget


def _early(algo):
    return algo.accepted.sum() == algo.k or algo.active.sum() == algo.k - algo.accepted.sum()


def test_halving_stage_budgets_and_answer():
    rng = np.random.default_rng(5)
    h = Halving(12_979, 100, 384, 384, 100, rng=rng)
    assert h.stage_budgets.sum() == 100 and h.stage_budgets.size == 8
    assert h.stage_budgets[0] >= math.ceil(12_979 / 384)  # stage 1 pulls every arm once
    h2 = Halving(100, 10, 16, 4, 400)
    assert h2.stage_budgets.tolist() == [100, 100, 100, 100]
    means = linear_instance()
    ans = drive(Halving(100, 10, 16, 4, 400, rng=rng), means, rng)
    assert len(set(ans) & set(range(10))) >= 8


def test_round_robin_strategy_and_racing_are_correct_on_easy_instances():
    rng = np.random.default_rng(6)
    means = np.r_[np.full(5, 0.9), np.full(45, 0.1)]
    rr = UniformRoundRobin(50, 5, 10, 2, 200, rng=rng)
    assert drive(rr, means, rng).tolist() == [0, 1, 2, 3, 4] and rr.n_batches == 200
    assert np.ptp(rr.counts) <= 1
    race = BatchRacing(50, 5, 25, 5, 0.1, rng=rng)
    assert drive(race, means, rng).tolist() == [0, 1, 2, 3, 4]


def test_cycle_errors():
    algo = UniformRoundRobin(5, 2, 2, 1, 3)
    with pytest.raises(SessionStateError):
        algo.observe(np.zeros(5, int), np.zeros(5))
    a = algo.next_batch()
    with pytest.raises(InvalidParameterError, match="'pulls'"):
        algo.observe(a[::-1] * 0, np.zeros(5))
    with pytest.raises(InvalidParameterError, match="'sums'"):
        algo.observe(a, np.full(5, np.nan))
    np.testing.assert_array_equal(algo.next_batch(), a)  # pending batch is stable
    for _ in range(3):
        b = algo.next_batch()
        algo.observe(b, b * 1.0)
    with pytest.raises(SessionStateError):
        algo.next_batch()


@pytest.mark.parametrize(
    "make,key",
    [
        (lambda: BatchRacing(10, 0, 4, 2, 0.1), "'k'"),
        (lambda: BatchRacing(10, 10, 4, 2, 0.1), "'k'"),
        (lambda: BatchRacing(10, 3, 4, 8, 0.1), "'max_repeats'"),
        (lambda: BatchRacing(10, 3, 4, 2, 1.0), "'delta'"),
        (lambda: BatchSAR(100, 3, 4, 2, 10), "'budget'"),
        (lambda: BatchSAR(10, 3, 4, 2, 50, schedule="fast"), "'schedule'"),
        (lambda: Halving(100, 3, 4, 2, 24), "'budget'"),
        (lambda: UniformRoundRobin(100, 3, 4, 2, 24), "'budget'"),
        (lambda: UniformRoundRobin(100, 3, 4, 2, 25, rng=3), "'rng'"),
    ],
)
def test_bad_inputs_name_the_key(make, key):
    with pytest.raises(InvalidParameterError, match=key):
        make()
