"""XY-adaptive's two readings of the phase length: Eq. (18) of the text and Fig. 3's loop."""

import numpy as np
import pytest

from pybai import InvalidParameterError, make_strategy
from pybai.design.rounding import efficient_rounding
from pybai.design.transductive import pair_directions, xy_design
from pybai.environments.linear_instances import soare_environment
from pybai.problems import FixedConfidence
from pybai.problems.linear import LinearBestArmProblem


def phase_sizes(rule, d=3, omega=0.1, alpha=0.1, seed=0):
    env = soare_environment(d, omega)
    p = LinearBestArmProblem(**env.structure(), regime=FixedConfidence(0.05, max_samples=2_000_000))
    s = make_strategy("xy-adaptive", phase_rule=rule, alpha=alpha).start(p, rng=seed)
    noise = np.random.default_rng(seed)
    sizes = []
    while not s.stopped:
        req = s.ask()
        sizes.append(req.size)
        s.tell(*env.respond(req, noise))
    return env, s, sizes[d:]  # the d spanning pulls of the initial phase come first, one per request


def uncertainty(x, counts, directions):
    inv = np.linalg.inv(x.T @ (counts[:, None] * x))
    return ((directions @ inv) * directions).sum(axis=1).max()


@pytest.mark.parametrize("rule", ["eq18", "fig3"])
def test_first_phase_is_the_smallest_that_meets_its_rule(rule):
    d, alpha = 2, 0.5
    env = soare_environment(d)
    p = LinearBestArmProblem(**env.structure(), regime=FixedConfidence(0.05))
    s = make_strategy("xy-adaptive", alpha=alpha, phase_rule=rule).start(p, rng=0)
    for _ in range(d):  # the spanning set e_1, e_2
        s.tell(*env.respond(s.ask(), np.random.default_rng(0)))
    req = s.ask()
    x = env.features
    y = np.array([x[i] - x[j] for i in range(3) for j in range(i + 1, 3)])
    goal = alpha / (d * (d + 1) + 1)  # alpha rho_0 / n_0 of Fig. 3, rho_0 = 1, n_0 = 7
    spanning = np.array([1, 1, 0])
    counts = np.bincount(req, minlength=3) + spanning
    u = uncertainty(x, counts, y)
    # the rounded XY design of one sample less no longer meets the rule
    weights = xy_design(x, pair_directions(x, np.arange(3))).weights
    np.testing.assert_array_equal(np.bincount(req, minlength=3), efficient_rounding(weights, req.size))
    less = uncertainty(x, efficient_rounding(weights, req.size - 1) + spanning, y)
    if rule == "eq18":
        assert u <= goal < less
    else:  # Fig. 3 divides the uncertainty by the phase's number of samples once more
        t = req.size + d
        assert u / t <= goal < less / (t - 1)
    assert req.size + d >= d * (d + 1) + 1


def test_fig3_phases_are_shorter_and_grow_by_about_one_over_root_alpha():
    _, s18, eq18 = phase_sizes("eq18")
    _, s3, fig3 = phase_sizes("fig3")
    assert s18.recommendation() == 0 and s3.recommendation() == 0
    assert fig3[0] < eq18[0] / 5  # 26 against 778 samples (+ the 3 spanning pulls)
    # later phases (the same directions, 1 spanning pull + the design): growth about 1/alpha = 10
    # for Eq. 18 and about 1/sqrt(alpha) = 3.2 for Fig. 3
    g18 = [b / a for a, b in zip(eq18[2:], eq18[3:])]
    g3 = [b / a for a, b in zip(fig3[2:], fig3[3:])]
    assert g18 and g3
    assert all(8 < g < 12 for g in g18) and all(2.5 < g < 4 for g in g3)


def test_bad_phase_rule_names_the_parameter():
    env = soare_environment(2)
    p = LinearBestArmProblem(**env.structure(), regime=FixedConfidence(0.05))
    with pytest.raises(InvalidParameterError, match="phase_rule"):
        make_strategy("xy-adaptive", phase_rule="eq17").start(p, rng=0)
