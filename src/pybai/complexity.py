"""The complexity of an experiment's problem, as ``pybai complexity`` reports it."""

from __future__ import annotations

from pybai.config.experiment import Experiment

__all__ = ["complexity_report"]


def complexity_report(experiment: Experiment) -> dict:
    """The problem's report on the experiment's truth (:meth:`pybai.problems.base.Problem.complexity`).

    For fixed-confidence goals: answer, characteristic time T*(mu), optimal weights w*(mu) and
    the lower bound T*(mu) kl(delta, 1 - delta); each family adds its own keys, and ``labels`` is
    added when the arms are named.
    """
    problem = experiment.problem.truth_view(experiment.environment)  # e.g. the truth's unknown variances
    report = problem.complexity(problem.family.learner_means(experiment.environment.source_means))
    if problem.labels is not None:
        report["labels"] = list(problem.labels)
    return report
