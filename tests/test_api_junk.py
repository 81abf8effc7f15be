"""Hypothesis harness of the Python API surface: public constructors and ask/tell with junk values.

The invariant: a call with one argument replaced by junk (numpy scalars, complex numbers, booleans,
object, 0-d and read-only arrays, NaN, huge numbers, wrong shapes, None, strings) either succeeds
or raises a :class:`pybai.exceptions.PybaiError` naming what is wrong; never another exception.
Extend ``CONSTRUCTORS`` when a public class lands.
"""

import warnings

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pybai
from pybai import (BatchSpec, Bernoulli, BernoulliEnvironment, BestArmProblem, EmpiricalMeans, FixedBudget,
                   FixedConfidence, Gaussian, GaussianEnvironment, GaussianUnknownVariance, MeansAndVariances,
                   make_strategy)
from pybai.exceptions import PybaiError

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def _read_only(values):
    out = np.array(values, dtype=float)
    out.setflags(write=False)
    return out


JUNK = st.sampled_from([
    np.float64(0.5), np.int64(3), 1 + 2j, True, np.bool_(True), None, "x", -1, 0, 1e300, float("nan"),
    float("inf"), [1.0, 0.5], [None, 1.0], {}, np.array(0.3), np.array([[1.0]]), np.array([1, 2], dtype=object),
    np.array([1 + 1j, 2]), _read_only([1.0, 0.5, 0.2]), np.arange(10**6, dtype=float),
])

CONSTRUCTORS = {
    "BestArmProblem": (BestArmProblem, dict(n_arms=3, family=Gaussian(1.0, n_sources=3), regime=FixedConfidence(0.1))),
    "TopKProblem": (pybai.TopKProblem, dict(n_arms=4, k=2, family=Gaussian(1.0, n_sources=4),
                                            regime=FixedConfidence(0.1))),
    "GaussianEnvironment": (GaussianEnvironment, dict(means=[1.0, 0.5, 0.2], sigma=1.0)),
    "BernoulliEnvironment": (BernoulliEnvironment, dict(means=[0.5, 0.4])),
    "BetaEnvironment": (pybai.BetaEnvironment, dict(means=[0.5, 0.4], sd=0.1)),
    "Gaussian": (Gaussian, dict(sigma=1.0, n_sources=3)),
    "Bernoulli": (Bernoulli, dict(n_sources=3)),
    "GaussianUnknownVariance": (GaussianUnknownVariance, dict(n_sources=3, statistic="glr")),
    "Bounded": (pybai.Bounded, dict(n_sources=3, low=0.0, high=1.0, statistic="kl-inf")),
    "FixedConfidence": (FixedConfidence, dict(delta=0.1, max_samples=100)),
    "FixedBudget": (FixedBudget, dict(budget=100)),
    "BatchSpec": (BatchSpec, dict(size=4, max_repeats=2)),
    "EmpiricalMeans": (EmpiricalMeans, dict(n_sources=3)),
    "MeansAndVariances": (MeansAndVariances, dict(n_sources=3)),
}
CASES = [(name, key) for name, (_, base) in CONSTRUCTORS.items() for key in base]


@SETTINGS
@given(case=st.sampled_from(CASES), junk=JUNK)
def test_constructors_take_junk_cleanly(case, junk):
    name, key = case
    cls, base = CONSTRUCTORS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            cls(**{**base, key: junk})
        except PybaiError:
            pass


FAMILIES = [Gaussian(1.0, n_sources=3), GaussianUnknownVariance(3), pybai.Bounded(3, 0.0, 1.0)]


@SETTINGS
@given(strategy=st.sampled_from(["tas", "top-two", "uniform", "lucb"]), family=st.sampled_from(FAMILIES),
       which=st.sampled_from(["sources", "rewards"]), junk=JUNK)
def test_tell_takes_junk_cleanly_and_changes_nothing(strategy, family, which, junk):
    s = make_strategy(strategy).start(BestArmProblem(3, family, FixedConfidence(0.1)), rng=0)
    asked = s.ask()
    before = (s.t_, s.counts_.copy())
    try:
        s.tell(junk, [0.5]) if which == "sources" else s.tell(asked, junk)
    except PybaiError:
        assert s.t_ == before[0] and np.array_equal(s.counts_, before[1])
