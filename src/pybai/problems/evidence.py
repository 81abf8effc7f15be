"""What decides a fixed-confidence stop, in numbers a reader can compare: the deciding piece's statistic and its level.

A GLR stopping rule with a threshold of ``t`` alone stops when the GLR statistic exceeds
``threshold.at(t, model)``.  The count-dependent rules (per-pair mixtures, betting, unknown
variances, feasibility) test each piece of the alternative with its own counts: they stop when
the smallest *margin* over the pieces is positive, where a piece's margin is a certified lower
bound on its log-evidence minus the rule's level ``ln(m / delta)`` (or its form).  The status of
a session, its dashboard and its report show, instead of a t-only level the rule never compares
with, the piece that decides: ``(level + margin, level)``, from the same margin computation as the
decision (:meth:`Problem._stopping_margin <pybai.problems.base.Problem._stopping_margin>`).

:func:`pair_stopping` and :func:`pair_margin` are the decision of the problems whose pieces are
pairs of arms (best arm, top-k) and sets of cells (best feasible arm).
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["stopping_evidence", "pair_stopping", "pair_margin"]


def stopping_evidence(problem: Any, model: Any, threshold: Any, t: int) -> tuple[float, float]:
    """``(statistic, level)`` of the piece that decides ``problem``'s stopping rule now.

    * A threshold of ``t`` alone (or one that reads the model, as the linear self-normalised one):
      the GLR statistic and ``threshold.at(t, model)``.
    * A count-dependent rule: ``(level + margin, level)``, ``margin`` the smallest margin over the
      pieces the rule tests (the first failing one, in the order the rule visits them, while it
      does not stop), ``level`` the rule's (read after the margin: a heuristic level follows t).

    The decision is :meth:`~pybai.problems.base.Problem.stopping_decision`'s, called here; the value is
    moved by at most a rounding error (1e-9 relative) where ``level + margin`` would disagree with it, so
    that ``statistic >= level`` exactly when the rule stops.  ``statistic`` may be ``-inf`` (a pair not yet
    ranked, a source without samples).
    """
    stop = bool(problem.stopping_decision(model, threshold, t)[1])
    margin = problem._stopping_margin(model, threshold) if getattr(threshold, "count_dependent", False) else None
    if margin is not None:
        level = float(threshold.level)
        statistic = level + float(margin)
    else:
        statistic, level = float(problem.statistic(model)), float(threshold.at(t, model))
    if stop != (statistic >= level) and abs(statistic - level) <= 1e-9 * max(1.0, abs(level)):
        statistic = level if stop else math.nextafter(level, -math.inf)  # the rounding of one sum
    return statistic, level


def pair_margin(problem: Any, model: Any, threshold: Any, top, bottom) -> float:
    """The count-dependent rule's margin over the pairs (a in ``top``, b in ``bottom``) of ``problem``.

    The pieces are {lambda_b >= lambda_a} shifted by the problem's ``pair_shift`` (epsilon-best-arm
    identification: {lambda_a <= c lambda_b - e}).
    """
    c, e = problem.pair_shift
    if c == 1.0 and e == 0.0:
        return threshold.model_margin(model, problem.family.variances, top, bottom)
    return threshold.model_margin(model, problem.family.variances, top, bottom, slope=c, offset=e)


def pair_stopping(problem: Any, model: Any, threshold: Any, t: int) -> tuple[float, bool]:
    """The decision of a problem that tests piece by piece: its GLR, the proven filter, then its margin.

    A piece whose GLR is at most ``threshold.min_statistic`` cannot pass (the smallest piece's GLR
    is the statistic); otherwise the rule stops when :meth:`_stopping_margin` is positive.
    """
    z = problem.statistic(model)
    if not getattr(threshold, "count_dependent", False):
        return z, z > threshold.at(t, model)
    if not z > threshold.min_statistic:
        return z, False
    return z, problem._stopping_margin(model, threshold) > 0.0
