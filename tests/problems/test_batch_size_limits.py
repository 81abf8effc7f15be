"""Batch sizes that no run could complete, or that no memory could hold, are refused with one line."""

import pytest

from pybai._validation import BATCH_SIZE_LIMIT
from pybai.config import parse_experiment
from pybai.exceptions import ConfigError, InvalidParameterError
from pybai.problems import BatchSpec, FixedConfidence, TopKProblem
from pybai.models import Gaussian


def document(size, max_repeats=4, **problem):
    return {"name": "b", "replications": 1, "seed": 1,
            "problem": {"goal": "top-k", "k": 2, "batch": {"size": size, "max_repeats": max_repeats}, **problem},
            "environment": {"kind": "gaussian", "means": [1.0, 0.8, 0.6, 0.2]},
            "strategy": [{"name": "batch-racing"}]}


@pytest.mark.parametrize("size, problem, phrase", [
    (10**12, {"delta": 0.1}, "problem.batch.size: expected an int in [1, 1e+07]"),
    (BATCH_SIZE_LIMIT + 1, {"budget": 2}, "problem.batch.size: expected an int in [1, 1e+07]"),
    (5000, {"delta": 0.1, "max_samples": 4999}, "problem.batch.size: expected at most max_samples (4999)"),
])
def test_refused_with_one_line_naming_batch_size(size, problem, phrase):
    with pytest.raises(ConfigError) as info:
        parse_experiment(document(size, max_repeats=size, **problem))
    assert phrase in str(info.value) and "\n" not in str(info.value)


def test_the_api_refuses_the_same_sizes():
    with pytest.raises(InvalidParameterError, match="'size' parameter of BatchSpec"):
        BatchSpec(BATCH_SIZE_LIMIT + 1, 1)
    with pytest.raises(InvalidParameterError, match=r"max_samples \(100\)"):
        TopKProblem(4, 2, Gaussian(n_sources=4), FixedConfidence(0.1, max_samples=100), batch=BatchSpec(101, 1))
    # at the limits: accepted
    TopKProblem(4, 2, Gaussian(n_sources=4), FixedConfidence(0.1, max_samples=100), batch=BatchSpec(100, 1))
    parse_experiment(document(BATCH_SIZE_LIMIT, max_repeats=4, delta=0.1, max_samples=BATCH_SIZE_LIMIT))
