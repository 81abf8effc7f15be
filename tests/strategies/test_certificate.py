"""Which stops certify (pybai.strategies.certificate): one place, the thresholds' ``proven``."""

import copy
import pickle

import numpy as np
import pytest

from pybai import BestArmProblem, Bernoulli, FixedBudget, FixedConfidence, Gaussian, TopKProblem, make_strategy
from pybai.exceptions import InvalidParameterError
from pybai.stopping.thresholds import KINDS, UNSET_KIND
from pybai.strategies.certificate import certified, is_proven, threshold_kind

GAUSS = BestArmProblem(3, Gaussian(1.0, n_sources=3), FixedConfidence(0.1))
BERN = BestArmProblem(3, Bernoulli(n_sources=3), FixedConfidence(0.1))


def test_an_unset_threshold_runs_the_heuristic_and_stays_unset():
    s = make_strategy("tas")
    assert s.threshold is None and s.threshold_kind == UNSET_KIND == "heuristic"
    assert s.clone().threshold is None and pickle.loads(pickle.dumps(s)).threshold is None
    assert copy.deepcopy(s).threshold is None and "threshold=None" in repr(s)
    chosen = make_strategy("tas", threshold="heuristic")
    assert chosen.threshold == chosen.threshold_kind == "heuristic"
    assert s.start(GAUSS).threshold_ == chosen.start(GAUSS).threshold_  # the same test either way


@pytest.mark.parametrize("problem", [GAUSS, BERN], ids=["gaussian", "bernoulli"])
@pytest.mark.parametrize("kind", KINDS)
def test_only_the_heuristic_kind_is_unproven(problem, kind):
    if kind in ("kt-mixture", "pair-tilt") and problem is GAUSS:
        pytest.skip(f"{kind} is for rewards in [0, 1]")
    name = "tas"
    if kind == "topk-leader":  # a top-k rule: refused by name on best arm, proven on top-k
        with pytest.raises(InvalidParameterError, match="'threshold' parameter of TrackAndStop"):
            make_strategy("tas", threshold=kind).start(problem, rng=0)
        family = Gaussian(1.0, n_sources=4) if problem is GAUSS else Bernoulli(n_sources=4)
        problem, name = TopKProblem(4, 2, family, FixedConfidence(0.1)), "lucb"
    strategy = make_strategy(name, threshold=kind)
    assert threshold_kind(strategy, problem) == kind
    assert is_proven(strategy, problem) is (kind != "heuristic")
    started = make_strategy(name, threshold=kind).start(problem, rng=0)
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
