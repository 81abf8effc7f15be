"""Building the learner's problem from the ``[problem]`` table and the environment's structure."""

from __future__ import annotations

from pybai.config.keys import Table
from pybai.environments.base import Environment
from pybai.exceptions import ConfigError
from pybai.problems import BatchSpec, BestArmProblem, FixedBudget, FixedConfidence, Problem
from pybai.problems.feasible_arm import FeasibleArmProblem

__all__ = ["GOALS", "build_problem", "read_regime"]

#: goal -> {environment kind -> problem class}
GOALS: dict[str, dict[str, type]] = {
    "best-arm": {"gaussian": BestArmProblem, "bernoulli": BestArmProblem},
    "best-feasible-arm": {"subpopulation-gaussian": FeasibleArmProblem},
}

DEFAULT_MAX_SAMPLES = 1_000_000


def read_regime(table: Table):
    """(regime, batch) from the ``[problem]`` table: exactly one of delta / budget."""
    has_delta, has_budget = table.has("delta"), table.has("budget")
    if has_delta == has_budget:
        raise ConfigError(f"{table.prefix}: expected exactly one of 'delta' (fixed confidence) or 'budget' (fixed budget).")
    if has_delta:
        delta = table.float("delta", low=0.0, high=1.0, open_low=True, open_high=True)
        max_samples = table.int("max_samples", DEFAULT_MAX_SAMPLES, minimum=1)
        regime = FixedConfidence(delta, max_samples)
    else:
        if table.has("max_samples"):
            raise ConfigError(f"{table.key('max_samples')}: only for fixed confidence (with 'delta').")
        regime = FixedBudget(table.int("budget", minimum=1))
    batch = None
    bt = table.table("batch", None)
    if bt is not None:
        size = bt.int("size", minimum=1)
        repeats = bt.int("max_repeats", 1, minimum=1)
        if repeats > size:
            raise ConfigError(f"{bt.key('max_repeats')}: expected an integer <= batch.size ({size}), got {repeats}.")
        bt.finish()
        batch = BatchSpec(size, repeats)
    return regime, batch


def build_problem(table: Table, environment: Environment) -> Problem:
    """The problem a learner faces on ``environment`` (its public structure only)."""
    goal = table.str("goal", choices=sorted(GOALS))
    regime, batch = read_regime(table)
    extra = {}
    if goal == "top-k":
        extra["k"] = table.int("k", minimum=1)
    table.finish()
    by_kind = GOALS[goal]
    if environment.kind not in by_kind:
        raise ConfigError(
            f"problem.goal: goal \"{goal}\" is not available on environment kind \"{environment.kind}\" "
            f"(expected one of: {', '.join(sorted(by_kind))})."
        )
    return by_kind[environment.kind](**environment.structure(), regime=regime, batch=batch, **extra)
