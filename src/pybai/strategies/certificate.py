"""What a fixed-confidence stop proves: the threshold kind that decided it and whether it is a guarantee.

Whether a threshold is proven delta-correct is said in one place: the ``proven`` attribute of its
class (:class:`pybai.stopping.base.Threshold`; e.g. ``HeuristicThreshold.proven`` is False,
``GaussianPairMixtureThreshold.proven`` True).  A rule whose stopping does not use ``threshold``
at all declares its own proven rule in :attr:`Strategy.proven_rule
<pybai.strategies.base.Strategy.proven_rule>` (batch-racing's anytime bounds, RAGE's elimination),
or its own unproven one in :attr:`Strategy.stopping_rule <pybai.strategies.base.Strategy.stopping_rule>`
(the practitioners' baselines: a fixed horizon, a mixture SPRT, a posterior probability).
Everything that says "certified" (the result message, ``pybai session status``, the session
report, ``pybai run``'s table header) asks the functions below.

Examples
--------
>>> from pybai import BestArmProblem, Gaussian, FixedConfidence, make_strategy
>>> problem = BestArmProblem(3, Gaussian(1.0, n_sources=3), FixedConfidence(0.05))
>>> threshold_kind(make_strategy("tas"), problem), is_proven(make_strategy("tas"), problem)
('heuristic', False)
>>> is_proven(make_strategy("tas", threshold="delta-correct"), problem)
True
"""

from __future__ import annotations

from typing import Any, cast

__all__ = ["threshold_kind", "is_proven", "certified", "stopped_message", "kind_note"]


def threshold_kind(strategy: Any, problem: Any = None) -> str | None:
    """The kind of threshold that decides the stop: ``"heuristic"``, ``"delta-correct"``, ...

    ``"delta-correct"`` for a rule with its own proven stopping rule (its ``threshold`` is
    unused), the name of its own unproven rule for a rule with a :attr:`stopping_rule`
    (``"mixture-sprt"``); None in fixed budget (no stopping threshold).

    Parameters
    ----------
    strategy : Strategy
        Started, or not (then ``problem`` is needed).
    problem : Problem, optional
        Default: the problem the strategy was started on.
    """
    problem = strategy.problem_ if problem is None else problem
    if problem.regime.kind != "fixed-confidence":
        return None
    if strategy.stopping_rule:
        return strategy.stopping_rule
    if strategy.proven_rule:
        return "delta-correct"
    return str(strategy.threshold).strip().lower().replace("_", "-")


def is_proven(strategy: Any, problem: Any = None) -> bool:
    """Whether a stop of ``strategy`` on ``problem`` is proven delta-correct (False in fixed budget).

    Reads the ``proven`` attribute of the threshold the problem builds for the strategy's kind
    (the started strategy's own ``threshold_`` when there is one).
    """
    problem_ = getattr(strategy, "problem_", None) if problem is None else problem
    kind = threshold_kind(strategy, problem_)
    if kind is None or strategy.stopping_rule:
        return False
    if strategy.proven_rule:
        return True
    built = getattr(strategy, "threshold_", None) if problem is None else None
    if built is None:
        known = cast(Any, problem_)  # not None: threshold_kind gave a kind
        built = known.threshold(strategy.threshold, known.regime.delta)
    return bool(built.proven)


def certified(strategy: Any) -> bool:
    """True only when a started strategy has stopped on a proven stopping rule."""
    return strategy.status_ == "stopped" and is_proven(strategy)


def kind_note(kind: str | None, proven: bool, default: bool = False) -> str:
    """``kind`` in words for headers: ``"heuristic (papers' default, not a proven guarantee)"``.

    >>> kind_note("heuristic", False, default=True)
    "heuristic (papers' default, not a proven guarantee)"
    >>> kind_note("delta-correct", True)
    'delta-correct (proven)'
    """
    if kind is None:
        return "none (fixed budget)"
    if proven:
        return f"{kind} (proven)"
    return f"{kind} ({'papers' + chr(39) + ' default, ' if default else ''}not a proven guarantee)"


def stopped_message(strategy: Any) -> str:
    """The message of a fixed-confidence run that stopped: "certified" only on a proven rule."""
    if is_proven(strategy):
        return "stopped: the answer is certified at the requested confidence"
    return f"stopped: the {threshold_kind(strategy)} threshold was crossed (not a proven guarantee)"
