"""A saved state that was altered is refused by ``restore_strategy`` in one line, never a traceback.

States come from runs of several families (best arm, best feasible arm, linear, fixed budget,
batch top-k).  The property mutates one value at any depth (junk of another type or range, or
a deletion) and requires that restoring either succeeds or raises
:class:`~pybai.exceptions.InvalidParameterError` with a one-line message naming ``state.``;
before this check, 352 distinct exceptions came out of 2,000 such mutations.  A state that
restores is the saved one (a corruption that keeps every type, shape and invariant is refused
by the state's digest), so the run continues exactly as it would have.

The examples are derandomized (the same on every run, so CI is deterministic); to explore
further, change ``derandomize`` to ``False`` and run with ``--hypothesis-seed=N``.
"""

from __future__ import annotations

import copy
import functools
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pybai import restore_strategy
from pybai.config import parse_experiment
from pybai.exceptions import InvalidParameterError

from _corruption import DELETE, paths, play, set_path  # tests/_corruption.py

SPECS = [
    ({"goal": "best-arm", "delta": 0.1}, {"kind": "gaussian", "means": [1.0, 0.5, 0.2]}, "tas"),
    ({"goal": "best-arm", "delta": 0.1}, {"kind": "bernoulli", "means": [0.6, 0.4]}, "top-two"),
    ({"goal": "best-feasible-arm", "delta": 0.1},
     {"kind": "subpopulation-gaussian", "means": [[0.2, 0.6], [0.4, 0.4]], "weights": [0.5, 0.5]}, "tas-cs"),
    ({"goal": "best-arm", "delta": 0.1},
     {"kind": "linear-gaussian", "features": [[1, 0], [0, 1], [0.7, 0.7]], "theta": [1.0, 0.2]}, "xy-adaptive"),
    ({"goal": "best-arm", "budget": 40},
     {"kind": "correlated-gaussian", "means": [0.0, 1.0, 0.5], "kernel": {"name": "rbf", "points": [0, 1, 2]}},
     "bayes-gap"),
    ({"goal": "top-k", "k": 2, "delta": 0.1, "batch": {"size": 4, "max_repeats": 2}},
     {"kind": "gaussian", "means": [1.0, 0.8, 0.2, 0.0]}, "batch-racing"),
]
JUNK = [None, True, 0, -1, 3, 10**12, 2**70, 0.5, -0.5, float("nan"), "", "x", [], [[]], [1], [1.0, 2.0],
        ["a"], {}, {"a": 1}, [None]]


def _saved_state(spec):
    problem_table, environment, name = spec
    experiment = parse_experiment({"problem": problem_table, "environment": environment, "strategy": [{"name": name}]})
    strategy = play(experiment.strategies[0][1], experiment, 4)
    if not strategy.stopped:
        strategy.ask()  # a pending request in the state
    return experiment.problem, json.loads(json.dumps(strategy.get_state()))


@functools.cache
def _states() -> list[tuple]:
    """The saved state of each of ``SPECS`` (built on first use, not at collection)."""
    return [_saved_state(spec) for spec in SPECS]


@pytest.mark.parametrize("index", range(len(SPECS)), ids=[spec[2] for spec in SPECS])
def test_unaltered_states_restore(index):
    problem, state = _states()[index]
    assert restore_strategy(copy.deepcopy(state), problem).get_state() == state


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_an_altered_state_restores_or_is_refused_in_one_line(data):
    problem, original = _states()[data.draw(st.integers(0, len(SPECS) - 1), label="state")]
    state = copy.deepcopy(original)
    path = data.draw(st.sampled_from(list(paths(state))), label="path")
    value = data.draw(st.sampled_from(JUNK + [DELETE]), label="value")
    set_path(state, path, value)
    try:
        restored = restore_strategy(state, problem)
    except InvalidParameterError as exc:
        message = str(exc)
        assert "\n" not in message and len(message) < 400, message
    else:  # only an edit that changed nothing restores: the run continues exactly as the saved one
        assert restored.get_state() == original


def _tas_state():
    return copy.deepcopy(_states()[0][1]), _states()[0][0]


@pytest.mark.parametrize("edit, fragment", [
    (lambda s: s["model"]["counts"]["data"].__setitem__(0, s["model"]["counts"]["data"][0] + 1),
     "state.model.counts: expected non-negative counts adding up to t_"),
    (lambda s: s["model"].pop("sums"), "state.model: expected a table with the keys"),
    (lambda s: s["base"].__setitem__("t_", "5"), "state.base.t_: expected an integer"),
    (lambda s: s["base"].__setitem__("status_", "flying"), "state.base.status_: expected one of running"),
    (lambda s: s["model"]["sums"].__setitem__("shape", [2]), "state.model.sums: expected an encoded value"),
    (lambda s: s["rng"].__setitem__("bit_generator", "MT19937"), "state.rng: expected the state of a numpy PCG64"),
    (lambda s: s.pop("rule"), "state.rule: expected present"),
])
def test_specific_alterations_name_the_part(edit, fragment):
    state, problem = _tas_state()
    edit(state)
    with pytest.raises(InvalidParameterError, match=fragment.replace("(", r"\(").replace(".", r"\.")):
        restore_strategy(state, problem)


def test_a_non_finite_design_matrix_is_refused():
    problem, state = _states()[3]  # xy-adaptive on a linear problem
    state = copy.deepcopy(state)
    state["model"]["design_matrix"]["data"][0] = "nan"
    with pytest.raises(InvalidParameterError, match=r"state\.model\.design_matrix, theta and _b: expected finite"):
        restore_strategy(state, problem)
