"""The status document of a session (``Session.status``, ``pybai session status --json``)."""

from __future__ import annotations

from typing import Any

import math

import numpy as np

from pybai._version import __version__
from pybai.naming import answer_name
from pybai.problems.base import FixedConfidence
from pybai.session.intervals import confidence_intervals
from pybai.session.near_tie import near_tie, progress
from pybai.strategies.base import Strategy
from pybai.strategies.certificate import is_proven, threshold_kind

__all__ = ["session_status", "describe_answer", "recommendation_label", "stop_reason", "state_label",
           "stopping_evidence", "STATISTIC_NAMES"]

#: what the status's ``statistic`` is, by whether the rule tests each piece with its own counts
STATISTIC_NAMES = {False: "GLR statistic", True: "evidence of the deciding comparison"}


def stop_reason(message: str) -> str:
    """A result message without its status prefix ("stopped: the answer ..." -> "the answer ...")."""
    return message.split(": ", 1)[1] if message.startswith(("stopped: ", "censored: ")) else message


def state_label(status: str, certified: bool) -> str:
    """Where a session stands, in a few words: "running", "certified", "stopped, not certified",
    "censored at max_samples" or "budget spent" (the dashboard's badge and session list)."""
    if status == "stopped":
        return "certified" if certified else "stopped, not certified"
    return {"censored": "censored at max_samples", "budget-spent": "budget spent"}.get(status, status)


def describe_answer(problem, recommendation) -> str:
    """A recommendation in words: "arm 2", "control (arm 2)", "arms 0, 3", "no feasible arm (-1)", "none yet"."""
    if recommendation is None:
        return "none yet"
    return answer_name(recommendation, problem.labels)


def recommendation_label(problem, recommendation):
    """The recommendation as labels: a label, a list of labels (top-k), or None (no labels, no arm)."""
    labels = problem.labels
    if labels is None or recommendation is None:
        return None
    if np.ndim(recommendation):
        return [labels[int(a)] for a in np.asarray(recommendation).ravel()]
    return labels[int(recommendation)] if 0 <= int(recommendation) < len(labels) else None


def _plain(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()] if value.ndim else _plain(value.item())
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def session_status(session, replay, level: float, *, n_requests: int, n_answers: int, created: str,
                   last: str | None) -> dict:
    """The document of :meth:`pybai.session.Session.status` from the replayed strategy and the log's counts."""
    strategy = replay.strategy
    res = strategy.result()
    problem = session.problem
    statistic, threshold = _statistic(strategy)
    low, high = confidence_intervals(problem, strategy.model_, level)
    sd = problem.family.sample_sd(strategy.model_)
    shape = problem.source_shape
    outstanding = strategy.outstanding
    pending: Any = [{"request": int(rid), "size": int(part.size), "created": replay.created.get(rid)}
                    for rid, part in outstanding.items()]
    if session.spec.max_pending == 1:  # today's form: one object or null
        pending = {"request": pending[0]["request"], "size": pending[0]["size"]} if pending else None
    regime = problem.regime
    counted = strategy.threshold_ is not None and strategy.threshold_.count_dependent
    proven = is_proven(strategy)
    estimate = progress(problem, strategy)
    return {
        "name": session.spec.name,
        "goal": problem.goal,
        "strategy": session.spec.label,
        "seed": session.spec.seed,
        "regime": regime.kind,
        "delta": getattr(regime, "delta", None),
        "budget": getattr(regime, "budget", None),
        "status": res.status,
        "state": state_label(res.status, res.status == "stopped" and proven),
        "stopped": bool(res.stopped),
        "message": res.message,
        "recommendation": _plain(res.recommendation),
        "answer": describe_answer(problem, res.recommendation),
        "labels": None if problem.labels is None else list(problem.labels),
        "recommendation_label": recommendation_label(problem, res.recommendation),
        "samples": int(res.samples),
        "batches": int(res.batches),
        "requests": int(n_requests),
        "answers": int(n_answers),
        "pending": pending,
        "max_pending": int(session.spec.max_pending),
        "expire_after": session.spec.expire_after,
        "withdrawn": len(replay.withdrawn),
        "statistic": statistic,
        "threshold": threshold,
        "threshold_kind": threshold_kind(strategy),
        "threshold_count_dependent": counted,
        "statistic_name": None if threshold is None else STATISTIC_NAMES[counted],
        "proven": proven,
        "certified": res.status == "stopped" and proven,
        "epsilon": getattr(problem, "epsilon", None),
        "epsilon_mode": getattr(problem, "epsilon_mode", None) if getattr(problem, "epsilon", None) else None,
        "epsilon_settable": bool(isinstance(regime, FixedConfidence) and res.status == "running" and proven
                                 and hasattr(session.spec.problem, "with_epsilon") and replay.last_request > 0),
        "estimated_samples_to_stop": None if estimate is None else estimate[1],
        "max_samples": getattr(regime, "max_samples", None),
        "near_tie": None if estimate is None else near_tie(problem, strategy, proven, estimate, (low, high), level),
        "reward_model_note": (problem.misfit(strategy.model_) if hasattr(problem, "misfit")  # a model beyond its family
                              else problem.family.misfit(strategy.model_, problem.labels)),
        "metrics": None if getattr(problem, "metric_names", None) is None else list(problem.metric_names),
        "guardrails": _guardrails(problem, strategy),
        "counts": _plain(res.counts.reshape(shape).astype(int)),
        "means": _plain(res.means.reshape(shape)),
        "ci_low": _plain(low.reshape(shape)),
        "ci_high": _plain(high.reshape(shape)),
        "sd": None if sd is None else _plain(np.asarray(sd, dtype=float).reshape(shape)),
        "level": level,
        "created": created,
        "last_answer": last,
        "version": __version__,
    }


def stopping_evidence(strategy) -> tuple[float, float] | None:
    """The statistic that decides the strategy's fixed-confidence stop now and its level, or None.

    :meth:`Threshold.evidence <pybai.stopping.base.Threshold.evidence>` on the
    strategy's model and threshold: the rule stops exactly when ``statistic >= level``.  None in
    fixed budget, before the first sample, while an estimate is undefined or infinite, and for a
    strategy that stops by a rule of its own (it
    overrides ``_should_stop``, unless its ``glr_stopping`` says the GLR rule decides, as LUCB's).
    """
    if not stopping_evidence_applies(strategy) or not np.isfinite(strategy.model_.estimate).all():
        return None  # no statistic while a source has no estimate (or one beyond the float range)
    return strategy.threshold_.evidence(strategy.problem_, strategy.model_, strategy.t_)


def stopping_evidence_applies(strategy) -> bool:
    """Whether :func:`stopping_evidence` has a statistic to show: a fixed-confidence threshold, a
    sample, and the problem's stopping rule (not one of the strategy's own)."""
    if strategy.threshold_ is None or strategy.t_ == 0:
        return False
    return type(strategy)._should_stop is Strategy._should_stop or bool(getattr(strategy, "glr_stopping", False))


def _statistic(strategy) -> tuple[float | None, float | None]:
    """The deciding statistic and its level (:func:`stopping_evidence`): statistic >= threshold exactly
    when the rule stops; null statistic while it is undefined (a source without an estimate)."""
    if not np.isfinite(strategy.model_.estimate).all() and stopping_evidence_applies(strategy):
        # a source without an estimate (or one beyond the float range): no statistic yet, the level alone
        threshold = strategy.threshold_
        try:
            level = threshold.level if threshold.count_dependent else \
                threshold.at(strategy.t_, strategy.model_)
        except (ValueError, ArithmeticError):
            return None, None
        return None, _plain(float(level))
    evidence = stopping_evidence(strategy)
    if evidence is None:
        return None, None
    statistic, level = evidence
    return _plain(statistic), _plain(level)


def _guardrails(problem, strategy) -> dict | None:
    """Each arm's guardrails (estimate, margin, state) for problems with guardrail metrics, else None."""
    states = getattr(problem, "guardrail_states", None)
    if states is None:
        return None
    return states(strategy.model_, strategy.threshold_, strategy.t_)
