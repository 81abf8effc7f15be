"""BayesGap's exploration constant: Eq. (9) by default, a fixed number as an option (issue 26)."""

import numpy as np
import pytest

from pybai import FixedBudget, InvalidParameterError, make_strategy
from pybai.environments.correlated import CorrelatedGaussianEnvironment
from pybai.fixed_budget.gaps import bayes_gap_step
from pybai.problems.correlated import CorrelatedBestArmProblem


def test_a_fixed_beta_replaces_eq9():
    means, stds = np.array([0.5, 0.2, 0.0]), np.array([0.3, 0.4, 0.5])
    kwargs = dict(budget=30, sigma=1.0, eta=1.0, kappa=1.0)
    _, adaptive = bayes_gap_step(means, stds, **kwargs)
    choice, fixed = bayes_gap_step(means, stds, beta=3.0, **kwargs)
    assert fixed == 3.0 and adaptive != 3.0
    assert choice == bayes_gap_step(means, stds, beta=3.0, hardness_eps=123.0, **kwargs)[0]


def _run(beta):
    env = CorrelatedGaussianEnvironment(np.linspace(1.0, 0.0, 8), kernel={"name": "rbf", "lengthscale": 1.0,
                                                                         "points": list(range(8))}, sigma=0.5)
    problem = CorrelatedBestArmProblem(**env.structure(), regime=FixedBudget(40))
    params = {} if beta is None else {"beta": beta}
    s = make_strategy("bayes-gap", params).start(problem, rng=0)
    rng = np.random.default_rng(1)
    while not s.stopped:
        a = s.ask()
        s.tell(a, env.sample(a, rng))
    return s.counts_.copy()


def test_eq9_is_the_default_and_a_large_beta_explores_more():
    assert np.array_equal(_run(None), _run("eq9"))
    wide, default = _run(50.0), _run(None)
    assert not np.array_equal(wide, default)
    assert np.count_nonzero(wide) >= np.count_nonzero(default)


@pytest.mark.parametrize("bad", [0, -1.0, "eq10", True, float("inf"), [1.0]])
def test_bad_beta_names_the_parameter(bad):
    with pytest.raises(InvalidParameterError, match="'beta'"):
        make_strategy("bayes-gap", {"beta": bad}).validate(None)
