"""One observation carries every metric: tell takes whole observations, in range, and counts one sample each."""

import json

import numpy as np
import pytest

from pybai import FixedConfidence, make_strategy
from pybai.exceptions import RequestError
from pybai.problems.guardrails import GuardrailProblem, Metric


def _started():
    problem = GuardrailProblem(2, [Metric("conversion", reward_model="bernoulli"),
                                   Metric("latency", sigma=20.0, at_most=250.0),
                                   Metric("refunds", reward_model="bounded", reward_range=[0, 1],
                                          at_most_vs_control=0.01)], FixedConfidence(0.1), control=0)
    s = make_strategy("uniform").start(problem, rng=0)
    return problem, s


def test_one_observation_is_one_sample():
    problem, s = _started()
    arm = int(s.ask()[0])
    s.tell([arm * 3, arm * 3 + 1, arm * 3 + 2], [1.0, 231.0, 0.0])
    assert s.t_ == 1 and s.counts_.reshape(2, 3)[arm].tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("sources, rewards, message", [
    ([0, 1], [1.0, 231.0], "metric 'refunds' is missing"),
    ([0, 2, 1], [1.0, 0.0, 231.0], "not in the arm's order"),
    ([0, 1, 2], [1.0, 231.0, 0.5], None),  # a bounded metric takes any reward in its range
    ([0, 1, 2], [0.5, 231.0, 0.0], "metric 'conversion' takes rewards 0 or 1\\. Got 0.5"),  # Bernoulli: 0 or 1
    ([0, 1, 2], [1.0, 231.0, 1.5], "metric 'refunds' takes rewards in \\[0, 1\\]"),
    ([0, 1, 2], [-1.0, 231.0, 0.5], "metric 'conversion' takes rewards 0 or 1\\. Got -1.0"),
])
def test_refused_answers_change_nothing(sources, rewards, message):
    problem, s = _started()
    assert int(s.ask()[0]) == 0
    before = json.dumps(s.get_state())
    if message is None:
        s.tell(sources, rewards)
        assert s.t_ == 1
        return
    with pytest.raises(RequestError, match=message):
        s.tell(sources, rewards)
    assert json.dumps(s.get_state()) == before


def test_metric_refusals_in_python():
    from pybai.exceptions import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="'at_most'.*objective"):
        GuardrailProblem(2, [Metric("a", sigma=1.0, at_most=1.0), Metric("b", sigma=1.0)], FixedConfidence(0.1))
    with pytest.raises(InvalidParameterError, match="'metrics'.*'a' appears twice"):
        GuardrailProblem(2, [Metric("a", sigma=1.0), Metric("a", sigma=1.0, at_most=0.0)], FixedConfidence(0.1))
    with pytest.raises(InvalidParameterError, match="'at_least_vs_control'.*margin >= 0"):
        Metric("b", sigma=1.0, at_least_vs_control=-0.1)
    with pytest.raises(InvalidParameterError, match="'control'"):
        GuardrailProblem(2, [Metric("a", sigma=1.0), Metric("b", sigma=1.0, at_most=0.0)], FixedConfidence(0.1),
                         control=2)
    with pytest.raises(InvalidParameterError, match="'sigma'"):
        Metric("a")  # a Gaussian metric needs its known sigma
