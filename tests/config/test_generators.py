"""Environments whose means come from a generator (``generator = ...`` instead of ``means``)."""

import numpy as np
import pytest

from pybai.batch.instances import linear_instance, twitter_instance
from pybai.config import parse_experiment
from pybai.exceptions import ConfigError


def doc(environment, goal="top-k"):
    return {"name": "g", "replications": 2, "problem": {"goal": goal, "budget": 2000, "k": 3,
                                                        "batch": {"size": 8, "max_repeats": 2}},
            "environment": environment, "strategy": [{"name": "halving"}]}


def test_linear_and_power_law_are_the_instances():
    e = parse_experiment(doc({"kind": "bernoulli", "generator": "linear", "arms": 20})).environment
    np.testing.assert_array_equal(e.source_means, linear_instance(20))
    e = parse_experiment(doc({"kind": "bernoulli", "generator": "power-law", "arms": 1000, "exponent": 0.7})).environment
    np.testing.assert_array_equal(e.source_means, twitter_instance(1000, exponent=0.7))
    assert e.source_means[0] == 0.05 and np.all(np.diff(e.source_means) <= 0)


def test_random_generators_are_fixed_by_their_seed():
    env = {"kind": "gaussian", "generator": "virus", "sigma": 0.1 ** 0.5}
    a = parse_experiment(doc(env)).environment.source_means
    b = parse_experiment(doc(env)).environment.source_means
    c = parse_experiment(doc({**env, "seed": 1})).environment.source_means
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c) and a.size == 12_979
    # heavy right tail: strongly right-skewed, the largest far beyond the smallest
    z = (a - a.mean()) / a.std()
    assert (z**3).mean() > 2 and a.max() - np.median(a) > 2 * (np.median(a) - a.min())
    s = parse_experiment(doc({"kind": "bernoulli", "generator": "sparse", "arms": 30, "shuffle": True}))
    means = s.environment.source_means
    assert sorted(means.tolist()) == sorted([0.5] * 10 + [0.3] * 20) and means[:10].tolist() != [0.5] * 10


@pytest.mark.parametrize("environment,key", [
    ({"kind": "bernoulli", "generator": "virus"}, "environment.generator"),  # Gaussian only
    ({"kind": "bernoulli", "generator": "zipf"}, "environment.generator"),
    ({"kind": "bernoulli", "generator": "linear", "means": [0.1, 0.2]}, "environment.means"),
    ({"kind": "bernoulli", "generator": "linear", "arms": 1}, "environment.arms"),
    ({"kind": "bernoulli", "generator": "power-law", "exponent": -1}, "environment.exponent"),
    ({"kind": "bernoulli", "generator": "linear", "exponent": 1}, "environment.exponent"),  # not a key of linear
    ({"kind": "gaussian", "generator": "virus", "seed": -2}, "environment.seed"),
    ({"kind": "bernoulli", "generator": "sparse", "shuffle": 1}, "environment.shuffle"),
])
def test_bad_generator_keys_are_named(environment, key):
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        parse_experiment(doc(environment))
