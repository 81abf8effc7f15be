"""Building the learner's problem from the ``[problem]`` table and the environment's structure."""

from __future__ import annotations

from collections.abc import Callable

from pybai.config.guardrails import guardrail_problem
from pybai.config.keys import Table, config_message, closest, parameters_of
from pybai.config.reward_models import all_keys, apply_reward_model
from pybai.environments.base import Environment
from pybai.exceptions import ConfigError, InvalidParameterError
from pybai.problems import BatchSpec, BestArmProblem, FixedBudget, FixedConfidence, Problem
from pybai.problems.correlated import CorrelatedBestArmProblem
from pybai.problems.feasible.problem import FeasibleArmProblem
from pybai.problems.linear import LinearBestArmProblem
from pybai.problems.top_k import TopKProblem

__all__ = ["GOALS", "GOAL_KEYS", "DEFAULT_MAX_SAMPLES", "build_problem", "build_problem_on", "read_regime",
           "register_goal"]

def _best_arm_with_optional_prior(n_arms, family, regime, batch=None, *, epsilon=None, covariance=None,
                                  sigma=None, eta=1.0, prior_mean=0.0, labels=None):
    """Best arm on a ``callable`` environment: with a prior when it gives a covariance."""
    if covariance is None:
        return BestArmProblem(n_arms, family, regime, batch, epsilon=epsilon, labels=labels)
    return CorrelatedBestArmProblem(n_arms, family, covariance, sigma, eta, prior_mean, regime=regime,
                                    batch=batch, epsilon=epsilon, labels=labels)


#: goal -> {environment kind -> problem class}
GOALS: dict[str, dict[str, Callable[..., Problem]]] = {
    "best-arm": {"gaussian": BestArmProblem, "bernoulli": BestArmProblem, "beta": BestArmProblem,
                 "binomial": BestArmProblem,
                 "correlated-gaussian": CorrelatedBestArmProblem, "callable": _best_arm_with_optional_prior,
                 "linear-gaussian": LinearBestArmProblem, "multi-metric": guardrail_problem},
    "best-feasible-arm": {"subpopulation-gaussian": FeasibleArmProblem},
    "top-k": {"gaussian": TopKProblem, "bernoulli": TopKProblem, "beta": TopKProblem, "binomial": TopKProblem},
}

#: goal -> keys of the [problem] table passed to the problem's constructor
GOAL_KEYS: dict[str, tuple[str, ...]] = {"top-k": ("k", "epsilon", "epsilon_mode"),
                                         "best-arm": ("epsilon", "epsilon_mode", "metric", "control")}

DEFAULT_MAX_SAMPLES = 1_000_000


def register_goal(goal: str, problems_by_kind: dict[str, type], keys: tuple[str, ...] = ()) -> None:
    """Make ``goal`` available on the given environment kinds (a family's addition)."""
    GOALS.setdefault(goal, {}).update(problems_by_kind)
    GOAL_KEYS[goal] = tuple(keys)


def read_regime(table: Table):
    """(regime, batch) from the ``[problem]`` table: exactly one of delta / budget.

    ``[problem.batch]``: ``size`` (b) and ``max_repeats`` (r, default b: no limit per source
    beyond the batch size).
    """
    has_delta, has_budget = table.has("delta"), table.has("budget")
    if not has_delta and not has_budget:
        for key in sorted(table.data):  # a typo of one of them ("deltaa") is named as such
            hint = closest(key, ("delta", "budget"))
            if hint:
                raise ConfigError(f"{table.key(key)}: unknown key{hint}.")
    if has_delta == has_budget:
        raise ConfigError(f"{table.prefix}: expected exactly one of 'delta' (fixed confidence) or 'budget' (fixed budget).")
    if has_delta:
        regime = table.construct(FixedConfidence, ("delta", "max_samples"), finish=False)
    else:
        if table.has("max_samples"):
            raise ConfigError(f"{table.key('max_samples')}: only for fixed confidence (with 'delta').")
        regime = table.construct(FixedBudget, ("budget",), finish=False)
    batch = None
    bt = table.table("batch", None)
    if bt is not None:
        size = bt.raw("size")
        batch = bt.construct(BatchSpec, ("size", "max_repeats"), **({} if bt.has("max_repeats") else {"max_repeats": size}))
        if isinstance(regime, FixedConfidence) and batch.size > regime.max_samples:
            raise ConfigError(f"{bt.key('size')}: expected at most max_samples ({regime.max_samples}) samples per "
                              f"batch (a larger batch is never completed), got {batch.size}.")
    return regime, batch


def build_problem(table: Table, environment: Environment) -> Problem:
    """The problem a learner faces on ``environment`` (its public structure only).

    The environment's truth, when it has a single one, must be one the problem's correctness is
    defined on (:meth:`~pybai.problems.base.Problem.check_truth`: e.g. no relative epsilon on a
    negative best mean); a truth drawn per replication is checked when each run is scored.
    """
    problem = build_problem_on(table, environment.kind, environment.structure())
    try:
        truth = environment.source_means
    except InvalidParameterError:  # a truth drawn per replication (e.g. from a prior)
        return problem
    try:
        problem.check_truth(truth)
    except InvalidParameterError as exc:
        raise ConfigError(config_message(table.prefix, str(exc))) from None
    return problem


def build_problem_on(table: Table, kind: str, structure: dict) -> Problem:
    """The problem of the ``[problem]`` table on an environment of kind ``kind`` whose public
    structure (the problem constructor's keywords) is ``structure``; no truth needed (sessions)."""
    goal = table.str("goal", choices=sorted(GOALS))
    regime, batch = read_regime(table)
    by_kind = GOALS[goal]
    if kind not in by_kind:
        raise ConfigError(
            f"problem.goal: goal \"{goal}\" is not available on environment kind \"{kind}\" "
            f"(expected one of: {', '.join(sorted(by_kind))})."
        )
    cls = by_kind[kind]
    keys = GOAL_KEYS.get(goal, ())
    accepted = parameters_of(cls)
    for key in keys:
        if table.has(key) and key not in accepted:
            raise ConfigError(f"{table.key(key)}: not available for goal \"{goal}\" on environment kind "
                              f"\"{kind}\".")
    if "labels" in structure and "labels" not in accepted:
        raise ConfigError(f"environment.labels: not available for goal \"{goal}\" on environment kind \"{kind}\".")
    structure = apply_reward_model(table, structure)
    valid = ("goal", "delta", "budget", "max_samples", "batch", *(k for keys in GOAL_KEYS.values() for k in keys),
             *all_keys())
    return table.construct(cls, keys, also_valid=valid, **structure, regime=regime, batch=batch)
