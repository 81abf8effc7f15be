"""SubpopulationGaussianEnvironment: cells, arm-level requests and the problem structure."""

import numpy as np
import pytest

from pybai import (
    FixedConfidence,
    InvalidParameterError,
    SubpopulationGaussianEnvironment,
)
from pybai.problems.feasible.problem import FeasibleArmProblem

MU = [[0.2, 0.6, 0.8], [0.4, 0.4, 0.3], [-0.2, 1.0, 1.5]]
Q = [0.2, 0.3, 0.5]


def test_sources_family_and_pair_respond():
    env = SubpopulationGaussianEnvironment(MU, Q, sigma=[[1, 2, 3]] * 3)
    assert env.kind == "subpopulation-gaussian" and env.n_sources == 9
    np.testing.assert_array_equal(env.source_means, np.ravel(MU))
    np.testing.assert_array_equal(env.family().sigma, [1, 2, 3] * 3)
    req = np.array([0, 4, 8, 8])
    src, rew = env.respond(req, np.random.default_rng(0))
    np.testing.assert_array_equal(src, req)
    assert rew.shape == (4,)


def test_sample_means_and_sds():
    env = SubpopulationGaussianEnvironment(MU, Q, sigma=2.0)
    rng = np.random.default_rng(1)
    x = env.sample(np.full(20000, 5), rng)
    assert x.mean() == pytest.approx(0.3, abs=0.05) and x.std() == pytest.approx(2.0, rel=0.03)


def test_arm_sampling_draws_subpopulations_with_frequencies_q():
    env = SubpopulationGaussianEnvironment(MU, Q, sampling="arm")
    rng = np.random.default_rng(2)
    n = 30000
    src, rew = env.respond(np.full(n, 1), rng)
    assert np.all(src // 3 == 1)
    freq = np.bincount(src % 3, minlength=3) / n
    se = np.sqrt(np.array(Q) * (1 - np.array(Q)) / n)
    assert np.all(np.abs(freq - Q) < 4 * se)
    # rewards come from the observed cells
    for l in range(3):
        assert rew[src == 3 + l].mean() == pytest.approx(MU[1][l], abs=0.05)
    # one request at a time works too (what the runner does)
    s1, _r1 = env.respond(np.array([2]), rng)
    assert s1.shape == (1,) and s1[0] // 3 == 2


def test_structure_builds_the_problem():
    env = SubpopulationGaussianEnvironment(MU, Q, constrained=[2, 0], floor=[0.5, -1.0], sampling="arm")
    p = FeasibleArmProblem(**env.structure(), regime=FixedConfidence(0.1))
    assert p.sampling == "arm" and p.constrained == (2, 0)
    np.testing.assert_array_equal(p.floor, [-1.0, 0.0, 0.5])
    assert p.answer(env.source_means) == 2
    assert np.isfinite(p.oracle(env.source_means)[0])


@pytest.mark.parametrize(
    "kwargs,name",
    [
        ({"means": [0.1, 0.2]}, "means"),
        ({"weights": [0.5, 0.5]}, "weights"),
        ({"weights": [0.5, 0.0, 0.5]}, "weights"),
        ({"constrained": [3]}, "constrained"),
        ({"floor": [0.0, 0.0]}, "floor"),
        ({"sigma": [1.0, 1.0, 1.0]}, "sigma"),
        ({"sigma": 0.0}, "sigma"),
        ({"sampling": "cell"}, "sampling"),
    ],
)
def test_validation_names_the_parameter(kwargs, name):
    args = {"means": MU, "weights": Q}
    args.update(kwargs)
    with pytest.raises(InvalidParameterError, match=f"'{name}' parameter"):
        SubpopulationGaussianEnvironment(**args)
