"""LUCB on bounded rewards with the KL_inf statistic: its bounds come from the betting tables."""

import numpy as np
import pytest

import pybai
from pybai import BestArmProblem, BetaEnvironment, Bounded, FixedConfidence
from pybai.models import _kl


@pytest.mark.parametrize("seed", [0, 1])
def test_lucb_kl_inf_stops_where_gaussian_bounds_starved_an_arm(seed):
    # With the Gaussian second-order bounds, arm 2 (far below, small variance) looked settled after a
    # few samples, LUCB never sampled it again and every run reached max_samples (20 000).
    problem = BestArmProblem(3, Bounded(3, 0.0, 1.0, "kl-inf"), FixedConfidence(0.01, max_samples=5_000))
    out = pybai.run_replication(pybai.make_strategy("lucb", threshold="delta-correct"),
                                BetaEnvironment([0.6, 0.5, 0.3], 0.1), problem, np.random.SeedSequence(seed))
    assert out.status == "stopped" and out.recommendation == 0
    assert out.samples < 1_000


def test_bounds_are_the_betting_confidence_sequence():
    fam = Bounded(2, 0.0, 1.0, "kl-inf")
    model = fam.new_model(2)
    rng = np.random.default_rng(3)
    model.update(np.repeat([0, 1], 200), np.concatenate([rng.beta(30, 30, 200), rng.beta(20, 80, 200)]))
    view = fam.for_model(model)
    level = 4.0
    lower = np.array([True, False])
    bounds = view.confidence_bounds(model, model.estimate, level, lower)
    lo, hi = view.interval(model, 1.0 - 2.0 * np.exp(-level))   # the same tables at the same level
    assert bounds[0] == pytest.approx(lo[0]) and bounds[1] == pytest.approx(hi[1])
    assert bounds[0] < model.estimate[0] and bounds[1] > model.estimate[1]
    # sub-Bernoulli keeps the Bernoulli KL bounds of the default
    sb = Bounded(2, 0.0, 1.0, "sub-bernoulli")
    m2 = sb.new_model(2)
    m2.update(np.array([0, 0, 1]), np.array([0.2, 0.4, 0.9]))
    got = sb.for_model(m2).confidence_bounds(m2, m2.estimate, level, lower)
    assert got[0] == pytest.approx(_kl.lower_bound(_kl.BERNOULLI, m2.estimate[0], 2.0, 1.0, level))
    assert got[1] == pytest.approx(_kl.upper_bound(_kl.BERNOULLI, m2.estimate[1], 1.0, 1.0, level))
