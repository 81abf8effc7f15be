"""Elimination schedules (successive rejects, sequential halving) and their elimination steps."""

import math

import numpy as np
import pytest

from pybai.fixed_budget import (
    keep_top_half,
    log_bar,
    phase_requests,
    reject_worst,
    sequential_halving_schedule,
    successive_rejects_lengths,
    successive_rejects_schedule,
)
from pybai.exceptions import InvalidParameterError


def test_successive_rejects_hand_values():
    # K = 5, T = 100: log_bar = 1/2 + 1/2 + 1/3 + 1/4 + 1/5; n_k = ceil(95 / (log_bar (6 - k)))
    assert log_bar(5) == pytest.approx(0.5 + 0.5 + 1 / 3 + 0.25 + 0.2)
    np.testing.assert_array_equal(successive_rejects_lengths(5, 100), [11, 14, 18, 27])
    np.testing.assert_array_equal(successive_rejects_schedule(5, 100), [11, 3, 4, 9])
    with pytest.raises(InvalidParameterError, match="'budget'"):
        successive_rejects_schedule(5, 4)


@pytest.mark.parametrize("K", [2, 3, 7, 20, 160])
def test_successive_rejects_never_exceeds_the_budget(K):
    for T in (K, K + 1, 2 * K + 3, 10 * K, 1000 * K + 7):
        per_phase = successive_rejects_schedule(K, T)
        active = K + 1 - np.arange(1, K)  # arms alive in phase k
        spent = int(np.sum(active * per_phase))
        assert spent <= T and np.all(per_phase >= 0)
        assert spent >= T - 2 * K  # and it uses the budget up to rounding


@pytest.mark.parametrize("K", [2, 3, 10, 33, 160])
def test_sequential_halving_schedule(K):
    for T in (K * math.ceil(math.log2(K)), 500, 12345):
        rounds = sequential_halving_schedule(K, T)
        assert len(rounds) == math.ceil(math.log2(K)) and rounds[0][0] == K
        assert sum(n * p for n, p in rounds) <= T
        left = rounds[-1][0]
        assert math.ceil(left / 2) == 1  # the last halving leaves a single arm
    assert sequential_halving_schedule(10, 200) == [(10, 5), (5, 10), (3, 16), (2, 25)]


def test_elimination_steps_and_phase_requests():
    np.testing.assert_array_equal(reject_worst([3.0, 1.0, 1.0, 5.0], [0, 1, 2, 3]), [0, 1, 3])
    np.testing.assert_array_equal(reject_worst([9.0, 1.0, 0.0, 5.0], [0, 1, 3]), [0, 3])
    np.testing.assert_array_equal(keep_top_half([1.0, 5.0, 5.0, 0.0, 2.0], [0, 1, 2, 3, 4]), [1, 2, 4])
    np.testing.assert_array_equal(keep_top_half([1.0, 1.0, 1.0], [0, 1, 2]), [0, 1])
    np.testing.assert_array_equal(phase_requests([2, 5], 3), [2, 5, 2, 5, 2, 5])

