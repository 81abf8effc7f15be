"""A saved state records which e-process decided its remembered rejections (``stopping_rule``); a state saved under
another process (an older version's ``"delta-correct"``, or before the record existed) keeps its leaders and
segments and forgets those rejections, and a stop it made is not decided again."""

import json

import numpy as np
import pytest

from pybai import BestArmProblem, FixedConfidence, Gaussian, make_strategy
from pybai._serialize import encode
from pybai.exceptions import InvalidParameterError
from pybai.strategies.state import restore_strategy, state_digest

PROBLEM = BestArmProblem(4, Gaussian(1.0, n_sources=4), FixedConfidence(0.1))
MEANS = np.array([1.0, 0.2, 0.1, 0.0])


def _run(steps=None):
    strategy = make_strategy("tas", {"threshold": "delta-correct"}).start(PROBLEM, rng=3)
    rng = np.random.default_rng(7)
    while strategy.status_ == "running" and (steps is None or strategy.t_ < steps):
        arms = strategy.ask()
        strategy.tell(arms, list(rng.normal(MEANS[arms], 1.0)))
    return strategy


def _resigned(state, **changes):
    state = json.loads(json.dumps(state))
    for key, value in changes.items():
        if value is None:
            state.pop(key, None)
        else:
            state[key] = value
    state["digest"] = state_digest(state)
    return state


def _flags(strategy):
    return strategy.threshold_.state_[4 * 4: 5 * 4]


def test_the_state_names_its_process_and_restores_it_exactly():
    strategy = _run(steps=40)
    state = strategy.get_state()
    assert state["stopping_rule"] == strategy.threshold_.process_id()
    assert "lead=0.9" in state["stopping_rule"] and "delta=0.1" in state["stopping_rule"]
    restored = restore_strategy(json.loads(json.dumps(state)), PROBLEM)
    assert np.array_equal(restored.threshold_.state_, strategy.threshold_.state_)


def test_a_state_of_another_process_keeps_its_leaders_and_forgets_its_rejections():
    strategy = _run(steps=60)
    state = strategy.get_state()
    raw = strategy.threshold_.state_.copy()
    raw[4 * 4 + 2] = 1.0  # a remembered rejection, as another process might have recorded it
    for changes in ({"stopping_rule": "GaussianLeaderSettledThreshold lead=0.5 shift=(1.0, 0.0) delta=0.1"},
                    {"stopping_rule": None}):  # another weight; a state saved before the record existed
        edited = _resigned(state, stopping=encode(raw), **changes)
        restored = restore_strategy(edited, PROBLEM)
        assert not _flags(restored).any()  # the rejections are gone ...
        kept = np.delete(restored.threshold_.state_, np.s_[16:20])
        assert np.array_equal(kept, np.delete(raw, np.s_[16:20]))  # ... the leaders and segments are not
    same = restore_strategy(_resigned(state, stopping=encode(raw)), PROBLEM)
    assert _flags(same)[2] == 1.0  # under the same process the rejection stays


def test_a_stop_made_under_another_process_is_not_decided_again():
    strategy = _run()
    assert strategy.status_ == "stopped"
    state = strategy.get_state()
    # a statistic the current rule would not give: refused under the same process, kept under another
    wrong = json.loads(json.dumps(state))
    wrong["base"]["statistic_"] = state["base"]["statistic_"] + 1.0
    with pytest.raises(InvalidParameterError, match="statistic"):
        restore_strategy(_resigned(wrong), PROBLEM)
    other = _resigned(wrong, stopping_rule="GaussianLeaderSettledThreshold lead=0.5 shift=(1.0, 0.0) delta=0.1")
    restored = restore_strategy(other, PROBLEM)
    assert restored.status_ == "stopped" and restored.t_ == strategy.t_
