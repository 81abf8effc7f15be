"""The checks every problem must pass on a truth (:class:`~pybai.problems.base.Problem`).

A problem holds the math of a goal: the answer of a truth, the GLR statistic, the oracle
``(T*, w*)`` and, when it offers one, nature's best response.  The checks tie them together: the
oracle's weights make the GLR at the truth equal ``1 / T*`` and no other allocation does better,
the GLR scales with the counts, the best response gives the GLR's value.  Each check is a plain
function of ``(environment, problem)`` (the problem as a learner builds it, the environment
holding the truth) that raises :class:`AssertionError`; :func:`check_problem` runs them all.
"""

from __future__ import annotations

import json
import math
import pickle
from typing import Any

import numpy as np

from pybai.exceptions import InvalidParameterError
from pybai.testing._outcomes import CheckSkipped, raises, run_checks

__all__ = ["truth_means", "check_answer", "check_oracle", "check_oracle_is_optimal", "check_glr_scaling",
           "check_best_response", "check_answer_mask", "check_description", "check_means_are_checked",
           "PROBLEM_CHECKS", "check_problem"]

#: relative tolerance of the identities between the oracle, the GLR and the best response (iterative solvers)
RTOL = 1e-6


def truth_means(environment, problem) -> tuple[Any, np.ndarray]:
    """The problem with the truth's family parameters and the true means in the learner's units."""
    view = problem.truth_view(environment)
    return view, np.asarray(view.family.learner_means(environment.source_means), dtype=float)


def check_answer(environment, problem) -> None:
    """The answer of the truth is a correct answer for it."""
    means = environment.source_means
    answer = problem.answer(means)
    assert problem.is_correct(answer, means), f"answer({means}) = {answer!r} is not correct for the same means"


def _unique(view, mu) -> None:
    if not view.answer_is_unique(mu):
        raise CheckSkipped("the truth has no unique answer (T* is infinite)")


def check_oracle(environment, problem) -> None:
    """``oracle(mu)`` gives a finite ``T* > 0`` and weights on the simplex with which the GLR at
    the truth is ``1 / T*`` (the characteristic time is the inverse of the optimal GLR rate).

    The GLR is read at the source counts one sample spread by the weights observes: the weights times
    :attr:`RequestSpace.observation_size <pybai.problems.requests.RequestSpace.observation_size>` (1, or M
    when an observation reads every one of M metrics of its arm: an arm's share w / M per source)."""
    view, mu = truth_means(environment, problem)
    _unique(view, mu)
    t_star, w = view.oracle(mu)
    w = np.asarray(w, dtype=float)
    assert math.isfinite(t_star) and t_star > 0, f"T* = {t_star!r}"
    assert w.shape == (problem.n_sources,), f"weights of shape {w.shape} for {problem.n_sources} sources"
    assert np.all(w >= 0) and abs(w.sum() - 1.0) <= 1e-9, f"weights {w} are not a probability vector"
    rate = view.glr(w * problem.request_space().observation_size, mu)
    assert math.isclose(rate * t_star, 1.0, rel_tol=RTOL), f"glr(w*, mu) = {rate!r} but 1 / T* = {1 / t_star!r}"


def check_oracle_is_optimal(environment, problem, draws: int = 100) -> None:
    """No other allocation of the samples makes the GLR at the truth larger than ``1 / T*``
    (allocations drawn at random; problems whose every source can be asked alone)."""
    if problem.n_requests != problem.n_sources:
        raise CheckSkipped("a request is not one source: not every allocation of the sources can be asked")
    view, mu = truth_means(environment, problem)
    _unique(view, mu)
    t_star, _ = view.oracle(mu)
    rng = np.random.default_rng(2)
    for _ in range(draws):
        w = rng.dirichlet(np.full(problem.n_sources, 0.5))
        rate = view.glr(w, mu)
        assert rate <= (1.0 + RTOL) / t_star, f"glr(w, mu) = {rate!r} > 1 / T* = {1 / t_star!r} at w = {w}"


def check_glr_scaling(environment, problem) -> None:
    """The GLR is nonnegative and proportional to the counts: ``glr(c N, mu) = c glr(N, mu)``."""
    view, mu = truth_means(environment, problem)
    rng = np.random.default_rng(3)
    for _ in range(5):
        counts = rng.uniform(1.0, 40.0, problem.n_sources)
        value = view.glr(counts, mu)
        assert value >= 0.0, f"glr({counts}, mu) = {value!r} < 0"
        scaled = view.glr(3.0 * counts, mu)
        assert math.isclose(scaled, 3.0 * value, rel_tol=1e-9, abs_tol=1e-12), \
            f"glr(3 N, mu) = {scaled!r} but 3 glr(N, mu) = {3.0 * value!r}"


def check_best_response(environment, problem) -> None:
    """Nature's best response to an allocation has the GLR's value (problems that offer one)."""
    view, mu = truth_means(environment, problem)
    _unique(view, mu)
    rng = np.random.default_rng(4)
    for w in (np.asarray(view.oracle(mu)[1], dtype=float), rng.dirichlet(np.ones(problem.n_sources))):
        try:
            value, gains = view.alt_gradient(mu, w)
        except NotImplementedError:
            raise CheckSkipped("no alt_gradient") from None
        assert np.shape(gains) == (problem.n_sources,), f"gains of shape {np.shape(gains)}"
        expected = view.glr(w, mu)
        assert math.isclose(value, expected, rel_tol=RTOL, abs_tol=1e-12), \
            f"alt_gradient value {value!r} but glr(w, mu) = {expected!r} at w = {w}"


def check_answer_mask(environment, problem) -> None:
    """A problem that provides ``"answer-mask"`` marks exactly the sources of its answer."""
    if "answer-mask" not in problem.provides:
        raise CheckSkipped("no answer mask")
    mu = environment.source_means
    mask = np.asarray(problem.answer_mask(mu))
    assert mask.dtype == bool and mask.shape == (problem.n_sources,), f"answer_mask {mask!r}"
    members = sorted(int(a) for a in np.atleast_1d(problem.answer(mu)))
    assert np.flatnonzero(mask).tolist() == members, f"answer_mask marks {np.flatnonzero(mask)}, the answer is {members}"


def check_description(environment, problem) -> None:
    """``to_dict()`` is JSON-serialisable and the problem pickles (workers receive it) to the same one."""
    doc = problem.to_dict()
    assert json.loads(json.dumps(doc)) == doc, f"to_dict() is not plain JSON: {doc!r}"
    assert pickle.loads(pickle.dumps(problem)).to_dict() == doc, "a pickled copy has another description"


def check_means_are_checked(environment, problem) -> None:
    """Means of the wrong length are refused with an error naming ``means``."""
    with raises(InvalidParameterError, match="means", doing="check_means of one value too many"):
        problem.check_means(np.zeros(problem.n_sources + 1))


#: the checks of one problem on one truth
PROBLEM_CHECKS = (check_answer, check_oracle, check_oracle_is_optimal, check_glr_scaling, check_best_response,
                  check_answer_mask, check_description, check_means_are_checked)


def check_problem(environment, problem) -> dict[str, str]:
    """Run every check of :data:`PROBLEM_CHECKS` on ``problem`` with the truth of ``environment``.

    Returns
    -------
    dict
        ``{check name: "passed" | "skipped: why"}``.

    Raises
    ------
    AssertionError
        One line per failed check.
    """
    return run_checks((check.__name__, check, (environment, problem)) for check in PROBLEM_CHECKS)
