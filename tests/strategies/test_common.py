"""The common checks of every registered strategy, on every goal and regime it declares.

The checks are those of :mod:`pybai.testing.strategies` (the same a strategy written outside
pybai calls); the cases come from the registry and from :data:`pybai.testing.GOAL_INSTANCES`, so a
new strategy or a new goal is covered without editing this file.  Below them, the checks that
only pybai's own rules need (a fresh process, the refusals of the linear and posterior rules).
"""

import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from pybai import (
    BatchLimitError,
    BernoulliEnvironment,
    BestArmProblem,
    FixedConfidence,
    InvalidParameterError,
    get_strategy_class,
    registered_names,
)
from pybai.testing import build, case_id, parametrize_cases, pytest_check, strategy_cases
from pybai.testing import strategies as checks

CASES = strategy_cases()


def test_standard_strategies_are_registered():
    assert {"uniform", "tas", "lucb", "top-two", "game", "tas-cs"} <= set(registered_names())
    assert {c.name for c in CASES} == set(registered_names()), "every registered strategy has a case"


#: SEEDS: of the strategy and of the rewards in the whole runs below.  Runs made by one test and reused by
#: a later one of this file (pytest-xdist keeps a file on one worker): each case's whole run with SEEDS,
#: compared with a second one by the same-seed check, and its run saved mid-way (with the uninterrupted
#: continuation), continued by the JSON round trip here and by the fresh process
SEEDS = (7, 3)


@pytest.fixture(scope="module")
def made():
    return {"runs": {}, "saved": {}}


def _saved(made, case):
    if case not in made["saved"]:
        made["saved"][case] = checks.saved_mid_run(case)
    return made["saved"][case]


@parametrize_cases()
def test_runs_within_its_regime_and_recommends(case, made):
    made["runs"][case] = checks.check_runs_within_its_regime(case, seeds=SEEDS)


@parametrize_cases()
def test_same_seed_same_run(case, made):
    """A new run with SEEDS against the one of the test above (two new runs when it did not run)."""
    pytest_check(checks.check_same_seed_same_run, case, made["runs"].get(case))


@parametrize_cases()
def test_request_rules(case):
    pytest_check(checks.check_request_rules, case)


@parametrize_cases()
def test_asked_requests_and_estimates_cannot_be_changed_by_the_caller(case):
    pytest_check(checks.check_read_only_arrays, case)


@parametrize_cases(where=lambda case: case.batched)
def test_partial_answer_keeps_the_rest_pending(case):
    pytest_check(checks.check_partial_answer, case)


@parametrize_cases(where=lambda case: not case.batched)
def test_several_outstanding_requests_answered_in_any_order(case):
    pytest_check(checks.check_outstanding_requests, case)


@pytest.mark.parametrize("case", [c for c in CASES if not c.batched and c.regime == "fixed-confidence"
                                  and c.goal == "best-arm"][:6], ids=case_id)
def test_a_burst_of_asks_is_spread(case):
    pytest_check(checks.check_burst_is_spread, case)


@parametrize_cases()
def test_state_round_trip_through_json(case, made):
    pytest_check(checks.check_state_round_trip, case, 17, _saved(made, case))


@pytest.mark.parametrize("name", registered_names())
@pytest.mark.parametrize("check", checks.RULE_CHECKS, ids=lambda check: check.__name__)
def test_rule_checks(check, name):
    pytest_check(check, name)


def test_batch_limits_are_enforced():
    from pybai import Uniform
    from pybai.problems import BatchSpec

    env = BernoulliEnvironment([0.5, 0.4, 0.3])
    problem = BestArmProblem(3, env.family(), FixedConfidence(0.1), BatchSpec(4, 2))

    class Greedy(Uniform):
        def _select(self):
            return np.zeros(3, dtype=int)  # three pulls of one arm: r = 2 allows two

    s = Greedy().start(problem, rng=0)
    with pytest.raises(BatchLimitError, match="r = 2"):
        while True:
            s.tell(*env.respond(s.ask(), np.random.default_rng(0)))


#: The fresh-process round trip restores one case per strategy, goal, regime and batching (55 of the
#: 253 cases): what a new process could lose (state held outside the saved document) does not depend
#: on the instance, and every case's restore is checked in-process by the JSON round trip above.
_FIRST: dict = {}
for _case in CASES:
    _FIRST.setdefault((_case.name, _case.goal, _case.regime, _case.batched), _case)
FRESH_CASES = list(_FIRST.values())


def test_round_trip_in_a_fresh_process(tmp_path, made):
    """Stop mid-run, serialise, restore in a new process, continue: exactly the uninterrupted run (the
    runs saved for the JSON round trip above)."""
    saved = {str(i): _saved(made, case) for i, case in enumerate(FRESH_CASES)}
    saved = {key: item for key, item in saved.items() if item is not None}
    src = tmp_path / "saved.json"
    out = tmp_path / "out.json"
    src.write_text(json.dumps({key: {k: v for k, v in item.items() if k != "run"} for key, item in saved.items()}))
    here = pathlib.Path(__file__).parent
    proc = subprocess.run([sys.executable, str(here / "_resume_child.py"), str(src), str(out)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(out.read_text())
    # nearly every case is saved mid-run; a rule stopping by its own unproven rule (Thompson sampling at
    # P(best) > 0.95, a fixed horizon) may legitimately end within the first 17 asks
    own = sum(1 for case in FRESH_CASES if get_strategy_class(case.name).stopping_rule)
    assert len(got) == len(saved) >= len(FRESH_CASES) - 2 - own
    for key, item in saved.items():
        assert got[key] == item["run"], (item["case"], got[key], item["run"])


@pytest.mark.parametrize("name", [n for n in registered_names() if "posterior" in get_strategy_class(n).requires])
def test_posterior_rules_refuse_independent_arms(name):
    _, problem = build("best-arm", "gaussian", "fixed-budget", False)
    with pytest.raises(InvalidParameterError, match="posterior"):
        get_strategy_class(name)().start(problem)


@pytest.mark.parametrize("name", [n for n in registered_names() if "features" in get_strategy_class(n).requires])
def test_linear_rules_refuse_independent_arms(name):
    _, problem = build("best-arm", "gaussian", "fixed-confidence", False)
    with pytest.raises(InvalidParameterError, match="linear"):
        get_strategy_class(name)().start(problem)
