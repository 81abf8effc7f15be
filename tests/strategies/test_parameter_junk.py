"""Property: a strategy parameter set to junk is refused in one line or the strategy runs.

For every strategy of the shipped experiment files (instances up to 200 sources), one parameter
is replaced by a value of another type or an extreme one; building, validating on the file's
problem, starting and running 20 rounds must either work or raise a
:class:`~pybai.exceptions.PybaiError` with a one-line message.  A longer random run of the same
check (7,500 mutations) found that 1e308 made ``oracle_growth`` (tas), ``c`` (bayes-ucb),
``theta_norm`` and ``regularization`` (xy-fully-adaptive) overflow at run time: those are rows of
``tests/test_bad_input.py`` now.  Derandomized examples (deterministic in CI).
"""

from __future__ import annotations

import functools
import json
import tomllib
import warnings
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pybai
from pybai import make_strategy
from pybai.config import parse_sweep
from pybai.exceptions import InvalidParameterError, PybaiError

from _corruption import play  # tests/_corruption.py

JUNK = [None, True, False, 0, -1, 2, 10**12, 2**70, 2**1100, 0.0, 0.5, 1.5, -0.5, 1e-320, 1e308, float("nan"),
        float("inf"), "", "x", "C", "D", "auto", "delta-correct", [], [1], [0.5, 0.5], {}, np.float64(0.5), np.int64(3)]


@functools.cache
def _pairs():
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for path in sorted((Path(pybai.__file__).parent / "experiments").glob("*.toml")):
            with open(path, "rb") as fh:
                experiment = parse_sweep(tomllib.load(fh))[0]
            if experiment.problem.n_sources > 200:
                continue
            for _, strategy in experiment.strategies:
                if strategy.get_params():
                    out.append((experiment, strategy.name, strategy.get_params()))
    return out


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_junk_parameter_is_refused_in_one_line_or_runs(data):
    experiment, name, params = _pairs()[data.draw(st.integers(0, len(_pairs()) - 1), label="pair")]
    params = dict(params)
    key = data.draw(st.sampled_from(sorted(params)), label="parameter")
    params[key] = data.draw(st.sampled_from(JUNK), label="value")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            play(make_strategy(name, **params).validate(experiment.problem), experiment, 20)
        except PybaiError as exc:
            assert "\n" not in str(exc), str(exc)


REWARD_JUNK = [True, False, np.True_, "0.5", "x", b"1", 0.5 + 1j, np.complex128(0.5), None, {}, object(), 2**1100,
               [True], ["0.5"], [0.5 + 0j], [None], [[True]]]
REWARD_JUNK_ARRAYS = [np.array([True]), np.array(["0.5"]), np.array([0.5 + 1j]), np.array([0.5 + 1j], dtype=object),
                      np.array([None], dtype=object), np.array([b"1"])]
REAL = [0.5, 1, np.float64(0.5), np.int64(1), np.float32(0.5), [0.5], (1,), np.array(0.5), np.array([1], dtype=np.int8),
        np.array([0.5], dtype=object)]


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_junk_rewards_are_refused_in_one_line_and_change_nothing(data):
    """tell() with a reward of a junk type (bool, string, complex, object, numpy scalars and arrays of those)
    raises one line naming 'rewards' and leaves the state as it was; a real number is recorded."""
    experiment, name, params = _pairs()[data.draw(st.integers(0, len(_pairs()) - 1), label="pair")]
    if experiment.problem.family.name != "gaussian" or experiment.problem.batch is not None:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        strategy = make_strategy(name, **params).start(experiment.problem, rng=1)
        if strategy.reference or strategy.stopped:
            return
        request = strategy.ask()
        if request.size != 1 or experiment.problem.n_requests != experiment.problem.n_sources:
            return
        before = json.dumps(strategy.get_state())
        junk = data.draw(st.sampled_from(REWARD_JUNK + REWARD_JUNK_ARRAYS), label="reward")
        try:
            strategy.tell(request, junk)
        except InvalidParameterError as exc:
            assert "\n" not in str(exc) and "'rewards'" in str(exc), str(exc)
        else:
            raise AssertionError(f"tell accepted the reward {junk!r}")
        assert json.dumps(strategy.get_state()) == before
        real = data.draw(st.sampled_from(REAL), label="real reward")
        strategy.tell(request, real)
        assert strategy.t_ == 1 and float(strategy.sums_.sum()) == np.asarray(real, dtype=float).item()
