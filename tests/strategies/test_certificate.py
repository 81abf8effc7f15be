"""Which stops certify (pybai.strategies.certificate): one place, the thresholds' ``proven``."""

import copy
import pickle

import numpy as np
import pytest

from pybai import BestArmProblem, Bernoulli, FixedBudget, FixedConfidence, Gaussian, make_strategy
from pybai.stopping.thresholds import DEFAULT_KIND, KINDS, is_default_kind
from pybai.strategies.certificate import certified, is_proven, threshold_kind

GAUSS = BestArmProblem(3, Gaussian(1.0, n_sources=3), FixedConfidence(0.1))
BERN = BestArmProblem(3, Bernoulli(n_sources=3), FixedConfidence(0.1))


def test_the_default_kind_is_the_heuristic_marked_as_unchosen():
    s = make_strategy("tas")
    assert s.threshold == "heuristic" and is_default_kind(s.threshold)
    assert is_default_kind(s.clone().threshold) and is_default_kind(pickle.loads(pickle.dumps(s)).threshold)
    assert is_default_kind(copy.deepcopy(s).threshold)
    assert not is_default_kind(make_strategy("tas", threshold="heuristic").threshold)
    assert repr(DEFAULT_KIND) == "'heuristic'" and hash(DEFAULT_KIND) == hash("heuristic")


@pytest.mark.parametrize("problem", [GAUSS, BERN], ids=["gaussian", "bernoulli"])
@pytest.mark.parametrize("kind", KINDS)
def test_only_the_heuristic_kind_is_unproven(problem, kind):
    if kind in ("kt-mixture", "pair-tilt") and problem is GAUSS:
        pytest.skip(f"{kind} is for rewards in [0, 1]")
    strategy = make_strategy("tas", threshold=kind)
    assert threshold_kind(strategy, problem) == kind
    assert is_proven(strategy, problem) is (kind != "heuristic")
    started = make_strategy("tas", threshold=kind).start(problem, rng=0)
    assert is_proven(started) is (kind != "heuristic") is bool(started.threshold_.proven)


def test_fixed_budget_has_no_threshold_kind():
    problem = BestArmProblem(3, Gaussian(1.0, n_sources=3), FixedBudget(30))
    strategy = make_strategy("uniform").start(problem, rng=0)
    assert threshold_kind(strategy) is None and not is_proven(strategy)


@pytest.mark.parametrize("kind", ["heuristic", "delta-correct"])
def test_the_result_message_says_certified_only_for_a_proven_threshold(kind):
    strategy = make_strategy("tas", threshold=kind).start(GAUSS, rng=0)
    rng = np.random.default_rng(0)
    while not strategy.stopped:
        req = strategy.ask()
        strategy.tell(req, rng.normal([1.5, 0.0, -0.5])[req])
    message = strategy.result().message
    assert strategy.status_ == "stopped" and certified(strategy) is (kind == "delta-correct")
    if kind == "heuristic":
        assert message == "stopped: the heuristic threshold was crossed (not a proven guarantee)"
    else:
        assert message == "stopped: the answer is certified at the requested confidence"
