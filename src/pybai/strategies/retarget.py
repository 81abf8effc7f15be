"""Continuing a started strategy on a changed problem: an epsilon given to a running session."""

from __future__ import annotations

from pybai.exceptions import InvalidParameterError
from pybai.stopping.rule import StoppingRule

__all__ = ["retarget"]


def retarget(strategy, problem) -> None:
    """Continue ``strategy`` on ``problem`` from where it is: same model, counts, generator and requests.

    ``problem`` must be the strategy's problem with another answer tolerance (its
    :meth:`~pybai.problems.best_arm.problem.BestArmProblem.with_epsilon`): the same sources, family
    and regime.  The learner's view and the stopping threshold are rebuilt on it, and the
    stopping rule is applied at once (a tolerance may certify what the data already show).  The
    rule's own state (tracking sums, learners) is kept: it reads the problem anew at each step.

    Why the delta guarantee survives an epsilon chosen late, from the data: the proven rules test
    one supermartingale per pair of arms at the true means (docs/thresholds.md); the pieces of the
    alternative only move the infimum, so a wrong stop under any epsilon, chosen at any time,
    makes the supermartingale of the truth cross its level: probability at most delta.
    """
    current = strategy.problem_
    if (type(problem) is not type(current) or problem.n_sources != current.n_sources
            or problem.regime != current.regime or type(problem.family) is not type(current.family)):
        raise InvalidParameterError(f"The 'problem' parameter of retarget must be the strategy's problem with "
                                    f"another tolerance. Got {type(problem).__name__}.")
    strategy.problem_ = problem.learner_view(strategy.model_)
    regime = problem.regime
    strategy.stopping_rule_ = StoppingRule.of(problem, strategy.threshold_kind, [regime.delta])
    strategy.threshold_ = strategy.stopping_rule_.threshold
    if strategy.status_ == "running" and strategy._ready and strategy._should_stop():
        strategy.status_ = "stopped"
