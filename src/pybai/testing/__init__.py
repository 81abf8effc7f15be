"""The common checks of pybai, for strategies, problems, reward families and storage backends.

A rule, goal, reward family or storage backend written outside pybai calls the same checks as
pybai's own test suite (which runs every one of them on everything pybai ships):

* :func:`check_strategy` -- a registered strategy on every instance of its goals, in every regime
  it declares: whole runs within the regime, same seed same run, the request rules of ask/tell,
  read-only arrays, partial answers, several outstanding requests, a JSON state round trip, bad
  parameters, ``max_samples`` (:mod:`pybai.testing.strategies`);
* :func:`check_problem` -- a problem on a truth: the answer, the oracle against its own GLR, the
  GLR's scaling, nature's best response, pickling (:mod:`pybai.testing.problems`);
* :func:`check_family` -- a reward family: its support, bounds, units and description
  (:mod:`pybai.testing.families`);
* :func:`check_storage` -- a session database backend: create, open, ask, tell, replay, stored
  states, several sessions (:mod:`pybai.testing.storage`).

A new goal or family gives the strategies an instance with :func:`register_instance`.  Every
check is a plain function that raises :class:`AssertionError` naming what failed, or
:class:`CheckSkipped` for a case it does not apply to; pytest is optional (:func:`pytest_check`
turns a skip into pytest's, :func:`parametrize_cases` parametrises a test over the cases).

Examples
--------
>>> from pybai.testing import check_family
>>> from pybai.models import Bernoulli
>>> sorted(check_family(Bernoulli(n_sources=3)).values())[0]
'passed'
"""

from __future__ import annotations

from pybai.testing._outcomes import CheckSkipped, pytest_check, raises, run_checks
from pybai.testing.families import check_family
from pybai.testing.instances import (BATCH, GOAL_INSTANCES, REGIMES, Case, build, case_id, register_instance,
                                     strategy_cases)
from pybai.testing.problems import check_problem
from pybai.testing.storage import check_storage
from pybai.testing.strategies import CASE_CHECKS, RULE_CHECKS, check_strategy

__all__ = ["check_strategy", "check_problem", "check_family", "check_storage", "register_instance",
           "strategy_cases", "case_id", "build", "Case", "REGIMES", "BATCH", "GOAL_INSTANCES", "CASE_CHECKS",
           "RULE_CHECKS", "CheckSkipped", "raises", "run_checks", "pytest_check", "parametrize_cases"]


def parametrize_cases(names=None, labels=None, where=None):
    """``pytest.mark.parametrize("case", ...)`` over :func:`strategy_cases` (ids by :func:`case_id`),
    keeping the cases for which ``where(case)`` is true.

    >>> import pytest
    >>> mark = parametrize_cases(["uniform"], ["bernoulli"], where=lambda case: case.regime == "fixed-budget")
    >>> [case_id(case) for case in mark.args[1]]
    ['uniform-best-arm-bernoulli-fixed-budget-seq', 'uniform-best-arm-bernoulli-fixed-budget-batch']
    """
    import pytest

    cases = [case for case in strategy_cases(names, labels) if where is None or where(case)]
    return pytest.mark.parametrize("case", cases, ids=[case_id(case) for case in cases])
