"""Track-and-Stop's fast oracles: lazy schedule bounded, fast = exact where it should be, any workers."""

import math

import numpy as np
import pytest

from pybai import make_strategy
from pybai.config.experiment import parse_experiment
from pybai.environments.linear import LinearGaussianEnvironment
from pybai.environments.subpopulation import SubpopulationGaussianEnvironment
from pybai.problems import FixedConfidence
from pybai.problems.feasible.problem import FeasibleArmProblem
from pybai.problems.linear import LinearBestArmProblem
from pybai.simulate.montecarlo import run_outcomes

SUB = {"means": [[0.2, 0.6], [0.4, 0.3], [-0.2, 1.0]], "weights": [0.4, 0.6], "sigma": 1.0}
LIN = {"features": [[1.0, 0.0], [0.0, 1.0], [0.6, 0.5], [0.8, 0.3]], "theta": [1.0, 0.3], "sigma": 0.5}


def play(strategy, env, problem, seed, calls=None):
    s = strategy.start(problem, rng=seed)
    noise = np.random.default_rng(100 + seed)
    while not s.stopped:
        s.tell(*env.respond(s.ask(), noise))
    return s


class Counting:
    """Wraps a problem's oracle: records the time of every call."""

    def __init__(self, problem, strategy):
        self.times = []
        self.strategy = strategy
        original = problem.oracle

        def oracle(means, hint=None):
            self.times.append(strategy.t_)
            return original(means, hint) if hint is not None else original(means)

        problem.oracle = oracle


@pytest.mark.parametrize("sampling", ["pair", "arm"])
def test_tas_cs_lazy_schedule_is_geometric(sampling):
    env = SubpopulationGaussianEnvironment(**SUB, sampling=sampling)
    problem = FeasibleArmProblem(**env.structure(), regime=FixedConfidence(0.1, max_samples=50_000))
    strategy = make_strategy("tas-cs")
    s = strategy.start(problem, rng=1)
    counter = Counting(problem, s)
    noise = np.random.default_rng(7)
    while not s.stopped:
        s.tell(*env.respond(s.ask(), noise))
    times = counter.times
    t0, t_end = times[0], s.t_
    # solved at t_0 and then once t grew by 2%: at most log(t/t0)/log(1.02) + 1 solves
    assert 2 <= len(times) <= math.log(t_end / t0) / math.log(1.02) + 2
    assert all(b >= math.ceil(1.02 * a) for a, b in zip(times, times[1:]))
    assert len(times) < t_end - t0  # fewer solves than steps (the exact oracle solves at every step)


def test_tas_cs_exact_solves_every_step():
    env = SubpopulationGaussianEnvironment(**SUB)
    problem = FeasibleArmProblem(**env.structure(), regime=FixedConfidence(0.2, max_samples=50_000))
    s = make_strategy("tas-cs", oracle="exact").start(problem, rng=2)
    counter = Counting(problem, s)
    noise = np.random.default_rng(3)
    while not s.stopped:
        s.tell(*env.respond(s.ask(), noise))
    assert counter.times == list(range(counter.times[0], s.t_))


def _linear(theta=None, delta=0.05):
    env = LinearGaussianEnvironment(**dict(LIN, theta=theta or LIN["theta"]))
    return env, LinearBestArmProblem(**env.structure(), regime=FixedConfidence(delta, max_samples=100_000))


@pytest.mark.parametrize("seed", range(2))
def test_linear_fast_solver_gives_the_exact_runs(seed):
    # per-step solves: the compiled solver equals the reference up to rounding, so the runs agree
    env, problem = _linear([1.0, 0.1], 0.2)
    exact = play(make_strategy("tas", oracle="exact"), env, problem, seed)
    fast = play(make_strategy("tas", oracle_growth=0.0), env, problem, seed)
    assert fast.t_ == exact.t_ and fast.recommendation() == exact.recommendation()
    np.testing.assert_array_equal(fast.counts_, exact.counts_)


def test_linear_fast_default_is_lazy_and_correct():
    env, problem = _linear()
    s = make_strategy("tas").start(problem, rng=4)
    counter = Counting(problem, s)
    noise = np.random.default_rng(5)
    while not s.stopped:
        s.tell(*env.respond(s.ask(), noise))
    assert s.recommendation() == 0 and s.status_ == "stopped"
    times = counter.times
    assert len(times) <= math.log(s.t_ / times[0]) / math.log(1.25) + 2


def test_fast_oracles_identical_for_any_number_of_workers():
    doc = {"name": "lazy", "replications": 4, "seed": 11, "problem": {"goal": "best-feasible-arm", "delta": 0.1},
           "environment": dict(SUB, kind="subpopulation-gaussian", sampling="arm"),
           "strategy": [{"name": "tas-cs"}]}
    one = run_outcomes(parse_experiment(doc), jobs=1)
    two = run_outcomes(parse_experiment(doc), jobs=2)
    assert [(o.samples, o.recommendation) for o in one[0]] == [(o.samples, o.recommendation) for o in two[0]]
    lin = {"name": "lazy-linear", "replications": 4, "seed": 12, "problem": {"goal": "best-arm", "delta": 0.1},
           "environment": dict(LIN, kind="linear-gaussian"), "strategy": [{"name": "tas"}]}
    one = run_outcomes(parse_experiment(lin), jobs=1)
    two = run_outcomes(parse_experiment(lin), jobs=2)
    assert [(o.samples, o.recommendation) for o in one[0]] == [(o.samples, o.recommendation) for o in two[0]]
