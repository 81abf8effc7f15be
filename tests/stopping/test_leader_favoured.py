"""Tests of kind "leader-favoured" of pybai.stopping.leader: the settled-leader rule with the prior weight w = 0.9
(instead of 1/2) on the leader process in G_j = w L_j + (1 - w) (1/(K - 1)) sum_i U_i.  The kernels' value at
w = 0.9 against the definition: test_leader_settled.py (parametrized by the weight)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binomtest

from pybai import BestArmProblem, FixedConfidence
from pybai.exceptions import InvalidParameterError
from pybai.models import Bernoulli, Gaussian
from pybai.problems.top_k import TopKProblem
from pybai.stopping._leader_kernels import STICKY
from pybai.stopping.leader import (FAVOURED_LEADER_WEIGHT, SCALE_PAIR_WEIGHT, BernoulliLeaderFavouredThreshold,
                                   GaussianLeaderFavouredThreshold, GaussianLeaderSettledThreshold)
from pybai.stopping.thresholds import make_threshold

# tests/stopping is on sys.path (pytest prepends a test file's folder)
from test_leader_settled import _tie_errors

W = FAVOURED_LEADER_WEIGHT
P = SCALE_PAIR_WEIGHT


@pytest.mark.parametrize("gaussian,mu,horizon", [(True, (0.0, 0.0, -1.0, -1.0), 2000),
                                                 (False, (0.5, 0.5, 0.3, 0.3), 3000)])
def test_error_rate_near_ties_is_below_delta_for_adaptive_sampling(gaussian, mu, horizon):
    # the sampling of test_leader_settled (it favours the leader of H_1 and the empirical best); two arms tied best, so
    # every stop with an arm other than 0 is an error
    runs, delta = 200, 0.3
    errors = _tie_errors(np.array(mu), gaussian, horizon, runs, 23, math.log(1 / delta), W)
    assert binomtest(errors, runs, delta, alternative="greater").pvalue > 0.01
    assert errors < 0.5 * delta * runs


def test_make_threshold_problems_default_and_refusals():
    th = make_threshold("leader-favoured", 0.1, n_alternatives=4, family="gaussian")
    assert th == GaussianLeaderFavouredThreshold(0.1, 5) and th.proven and th.stateful
    assert th.lead_weight == W == 0.9 and th.product_weight == P and th.leader_start == STICKY
    assert GaussianLeaderSettledThreshold(0.1, 5).lead_weight == 0.5
    assert th.compiled_pieces().lead == W and GaussianLeaderSettledThreshold(0.1, 5).compiled_pieces().lead == 0.5
    assert make_threshold("leader-favoured", 0.1, n_alternatives=2, family="bernoulli") == \
        BernoulliLeaderFavouredThreshold(0.1, 3)
    fc = FixedConfidence(0.1)
    # the "delta-correct" default of plain best arm (Gaussian with known variances, Bernoulli)
    assert BestArmProblem(4, Gaussian(1.0, n_sources=4), fc).threshold("delta-correct", 0.1) == \
        GaussianLeaderFavouredThreshold(0.1, 4)
    assert BestArmProblem(4, Bernoulli(n_sources=4), fc).threshold("delta-correct", 0.1) == \
        BernoulliLeaderFavouredThreshold(0.1, 4)
    with pytest.raises(InvalidParameterError, match="threshold"):
        TopKProblem(4, 2, Gaussian(1.0, n_sources=4), fc).threshold("leader-favoured", 0.1)
    # with epsilon: the same class on the epsilon hypotheses (a retargeted run keeps its e-processes)
    assert BestArmProblem(4, Gaussian(1.0, n_sources=4), fc, epsilon=0.1).threshold("delta-correct", 0.1) == \
        GaussianLeaderFavouredThreshold(0.1, 4, shift=(1.0, 0.1))
    with pytest.raises(InvalidParameterError, match="family"):
        make_threshold("leader-favoured", 0.1, n_alternatives=4, family="exponential_family")

