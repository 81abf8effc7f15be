"""Whether a strategy fits a problem and a way of being driven: one refusal line per misfit.

:meth:`~pybai.strategies.base.Strategy.start` (and ``validate``) call :func:`check_fit` for the
goal, the regime, the capabilities the rule requires (:attr:`Problem.provides
<pybai.problems.base.Problem.provides>`) and (b, r) batches, and :func:`check_max_pending` for
the number of requests that may be outstanding at once.
"""

from __future__ import annotations

from pybai._validation import check_positive_int, fail
from pybai.exceptions import InvalidParameterError

__all__ = ["REQUIREMENTS", "check_fit", "check_initial_phase", "check_max_pending", "check_threshold"]

#: what a rule lacking a capability is told, in the order checked (keys: ``Problem.provides`` values)
REQUIREMENTS = {
    "features": "needs a linear problem (known arm features: environment kind 'linear-gaussian')",
    "independent-arms": ("treats arms as independent and ignores the shared features of a linear problem; on "
                         "'linear-gaussian' use game, tas, uniform or a linear design strategy (g-allocation, "
                         "xy-static, xy-adaptive, xy-fully-adaptive, rage)"),
    "posterior": ("needs a posterior over the arm means (a problem with a prior covariance, e.g. environment kind "
                  "'correlated-gaussian')"),
    "answer-mask": "needs the arms of the answer (answer_mask)",
    "known-noise": ("needs a known noise scale (confidence widths, a power analysis); under reward_model "
                    "'gaussian-unknown-variance' use tas, top-two, lucb, game or uniform"),
    "exact-identification": ("certifies the exact answer by its own rule and does not read epsilon; with "
                             "[problem] epsilon use lucb, game or uniform"),
}


def check_fit(strategy, problem, owner: str) -> None:
    """Refuse a ``problem`` whose goal, regime, capabilities or batches ``strategy`` cannot serve."""
    name = strategy.name
    if problem.goal not in strategy.goals:
        raise InvalidParameterError(f"{owner} ('{name}') cannot solve goal '{problem.goal}'; "
                                    f"it solves {', '.join(strategy.goals)}.")
    if problem.regime.kind not in strategy.regimes:
        raise InvalidParameterError(f"{owner} ('{name}') does not support the {problem.regime.kind} regime "
                                    f"(it supports {', '.join(strategy.regimes)}).")
    missing = strategy.requires - problem.provides
    if missing:
        first = next(need for need in REQUIREMENTS if need in missing)
        raise InvalidParameterError(f"{owner} ('{name}') {REQUIREMENTS[first]}.")
    if problem.batch is not None and not strategy.batched:
        raise InvalidParameterError(f"{owner} ('{name}') samples one request at a time and cannot choose (b, r) "
                                    "batches; remove [problem.batch] or use a batch strategy.")


def check_max_pending(strategy, max_pending, problem) -> None:
    """Refuse a ``max_pending`` that is not an int >= 1, or > 1 where it cannot be honoured: rules
    with a :attr:`~pybai.strategies.base.Strategy.single_request` reason, and (b, r) batch problems."""
    owner = type(strategy).__name__
    check_positive_int(max_pending, "max_pending", owner)
    if max_pending > 1 and (strategy.single_request or problem.batch is not None):
        why = strategy.single_request or "(b, r) batches are handed out one at a time"
        raise InvalidParameterError(f"{owner} ('{strategy.name}') cannot have several requests outstanding "
                                    f"(max_pending = {max_pending}): {why}; use max_pending = 1.")


def check_initial_phase(strategy, problem, owner: str) -> None:
    """Refuse an initial phase beyond max_samples or the budget (before its plan is built: memory)."""
    regime = problem.regime  # FixedConfidence (max_samples) or FixedBudget (budget)
    fixed_confidence = regime.kind == "fixed-confidence"
    cap = regime.max_samples if fixed_confidence else regime.budget * (1 if problem.batch is None else problem.batch.size)
    need = strategy._initial_size(problem)
    if need > cap:
        if fixed_confidence:
            raise fail("n_init", owner, f"at most {max(cap // problem.n_requests, 1)} (the initial phase samples each "
                       f"of the {problem.n_requests} requests n_init times, within max_samples = {cap})",
                       strategy.n_init)
        raise fail("budget", owner, f"at least the {need} samples of the initial phase (n_init = {strategy.n_init})",
                   regime.budget)
    if not fixed_confidence:
        plan = strategy._initial_batches(problem)
        unit = problem.budget_unit
        need = len(plan) if unit == "batches" else sum(b.size for b in plan)
        if need > regime.budget:
            raise fail("budget", owner, f"at least the {need} {unit} of the initial phase (n_init = "
                       f"{strategy.n_init})", regime.budget)


def check_threshold(strategy, problem, owner: str) -> None:
    """The threshold kind must be one the problem builds (checked when the file is read, not at start)."""
    regime = problem.regime
    if regime.kind != "fixed-confidence":
        return
    try:
        problem.threshold(strategy.threshold_kind, regime.delta)
    except InvalidParameterError:
        offered = []
        for kind in strategy.threshold_kinds:
            try:
                problem.threshold(kind, regime.delta)
            except InvalidParameterError:
                continue
            offered.append(f'"{kind}"')
        raise fail("threshold", owner, f"one of {', '.join(offered)} on this problem ({type(problem).__name__}, "
                   f"{type(problem.family).__name__} rewards)", strategy.threshold) from None
