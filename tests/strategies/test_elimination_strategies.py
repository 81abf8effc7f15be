"""successive-rejects and sequential-halving as strategies: hand-computed phases, exact budget, round means."""

import numpy as np
import pytest

from pybai import BestArmProblem, FixedBudget, Gaussian, make_strategy
from pybai.strategies.state import restore_strategy


def _play(name, rewards_of, K, T, **params):
    """Run ``name`` with deterministic rewards ``rewards_of(arm, pulls_so_far)``; return pull order and strategy."""
    problem = BestArmProblem(K, Gaussian(1.0, n_sources=K), FixedBudget(T))
    s = make_strategy(name, **params).start(problem, rng=0)
    order = []
    for _ in range(T + 1):
        if s.stopped:
            break
        arm = int(s.ask()[0])
        s.tell([arm], [rewards_of(arm, order.count(arm))])
        order.append(arm)
    return order, s


def _constant(means):
    return lambda arm, n: means[arm]


def test_successive_rejects_phases_by_hand():
    # K = 5, T = 100: n_k = 11, 14, 18, 27 (tests/fixed_budget/test_schedules.py); rejected in order 4, 3, 2;
    # arms 0 and 1 share the last phase and its 3 leftover samples: 100 - 11 - 14 - 18 = 57 -> 29, 28.
    order, s = _play("successive-rejects", _constant([0.5, 0.4, 0.3, 0.2, 0.1]), 5, 100)
    assert len(order) == 100 and s.status_ == "budget-spent"
    np.testing.assert_array_equal(s.counts_, [29, 28, 18, 14, 11])
    assert 4 not in order[55:]  # phase 1 = 5 x 11 pulls, then arm 4 is rejected
    assert 3 not in order[55 + 4 * 3:]  # phase 2 = 4 survivors x 3 more pulls
    assert s.recommendation() == 0


def test_sequential_halving_rounds_by_hand():
    # K = 5, T = 100: 3 rounds, t_r = floor(100 / (5 * 3)) = 6, floor(100 / 9) = 11, floor(100 / 6) = 16;
    # 30 + 33 + 32 = 95, the 5 leftover go to the last round: arms 0, 1 get 16 + 3 and 16 + 2.
    order, s = _play("sequential-halving", _constant([0.5, 0.4, 0.3, 0.2, 0.1]), 5, 100)
    assert len(order) == 100 and s.status_ == "budget-spent"
    np.testing.assert_array_equal(s.counts_, [6 + 11 + 19, 6 + 11 + 18, 6 + 11, 6, 6])
    assert set(order[30:]) == {0, 1, 2} and set(order[63:]) == {0, 1}
    assert s.recommendation() == 0


def test_sequential_halving_scores_a_round_by_its_own_samples():
    # Arm 2 pays 10 in round 1 (its first 6 pulls) and -1 afterwards: its round-2 mean (-1) is the
    # worst of {0, 1, 2} although its overall mean (6 x 10 - 11) / 17 = 2.9 is the best.
    def rewards(arm, n):
        if arm == 2:
            return 10.0 if n < 6 else -1.0
        return [0.5, 0.4, None, 0.2, 0.1][arm]

    _, s = _play("sequential-halving", rewards, 5, 100)
    assert s.counts_[2] == 17 and s.counts_[0] > 17 and s.counts_[1] > 17


@pytest.mark.parametrize("name", ["successive-rejects", "sequential-halving"])
def test_spends_exactly_the_budget_and_recommends_a_survivor(name):
    rng = np.random.default_rng(5)
    for K in range(2, 10):
        for T in sorted({K, K + 1, 2 * K + 1, 3 * K + 2, 47, 60}):
            if T < K:
                continue
            means = rng.normal(size=K)
            order, s = _play(name, lambda arm, n: means[arm] + 0.1 * np.sin(n), K, T)
            assert len(order) == T == int(s.counts_.sum()) and s.status_ == "budget-spent", (K, T)
            assert s.recommendation() in s.active_.tolist() and len(s.active_) <= 2


@pytest.mark.parametrize("name", ["successive-rejects", "sequential-halving"])
def test_budget_below_the_initial_phase_is_refused(name):
    problem = BestArmProblem(5, Gaussian(1.0, n_sources=5), FixedBudget(4))
    with pytest.raises(Exception, match="budget"):
        make_strategy(name).start(problem)


@pytest.mark.parametrize("name", ["successive-rejects", "sequential-halving"])
def test_state_round_trip_mid_phase_continues_identically(name):
    means = [0.5, 0.45, 0.3, 0.2, 0.1, 0.0]
    problem = BestArmProblem(6, Gaussian(1.0, n_sources=6), FixedBudget(90))
    rng = np.random.default_rng(3)
    noise = rng.normal(size=90)
    a = make_strategy(name).start(problem, rng=0)
    for t in range(41):
        arm = int(a.ask()[0])
        a.tell([arm], [means[arm] + noise[t]])
    b = restore_strategy(a.get_state(), problem)
    for t in range(41, 90):
        arm_a, arm_b = int(a.ask()[0]), int(b.ask()[0])
        assert arm_a == arm_b
        a.tell([arm_a], [means[arm_a] + noise[t]])
        b.tell([arm_b], [means[arm_b] + noise[t]])
    assert a.recommendation() == b.recommendation() and a.stopped and b.stopped


@pytest.mark.parametrize("name", ["successive-rejects", "sequential-halving"])
def test_no_elimination_before_every_arm_is_pulled(name):
    # T = K: every phase is empty (n_k = 0, t_r = 0); eliminations wait for the initial phase and
    # then use one sample of every arm, so the best arm (index 3) is recommended.
    order, s = _play(name, _constant([0.1, 0.2, 0.0, 0.9, 0.3, -0.2]), 6, 6)
    assert sorted(order) == list(range(6)) and s.recommendation() == 3
