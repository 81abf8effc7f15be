"""A session's trajectory, recomputed by replaying its log answer by answer (for reports)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pybai.problems.base import FixedConfidence
from pybai.session.intervals import confidence_intervals
from pybai.session.replay import Replay
from pybai.session.status import stopping_evidence

__all__ = ["History", "replay_history"]


@dataclass
class History:
    """The state after every accepted answer (row i: after the i-th ``tell``).

    Attributes
    ----------
    requests : ndarray of int
        The request each answer belonged to.
    times : list of str
        When each answer was stored (UTC, ISO 8601).
    samples, batches : ndarray of int
        Samples and completed requests after each answer.
    counts : ndarray of shape (n_answers, n_sources)
        Samples per source after each answer.
    statistic, threshold : ndarray of float
        Fixed confidence: the statistic that decides the stop and its level after each answer,
        as in the status (:func:`pybai.session.status.stopping_evidence`: the statistic
        reaches the level exactly at the answer that stopped the session); NaN while some source
        has no estimate, in fixed budget and for strategies with a stopping rule of their own.
    means, ci_low, ci_high : ndarray of shape (n_sources,)
        Final estimates and 95% intervals (:mod:`pybai.session.intervals`).
    recommendation, status
        Final recommendation and status.
    """

    requests: np.ndarray
    times: list[str]
    samples: np.ndarray
    batches: np.ndarray
    counts: np.ndarray
    statistic: np.ndarray
    threshold: np.ndarray
    means: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    recommendation: object
    status: str


def replay_history(session) -> History:
    """Replay ``session``'s log from the start and record the state after every answer."""
    store = session._store
    with store.reading():
        events = store.log_after(0, 0, 0)
    problem = session.problem
    confident = isinstance(problem.regime, FixedConfidence)
    replay = Replay(problem, session.spec.strategy, session.spec.seed, session.spec.max_pending)
    rows: dict[str, list] = {k: [] for k in ("requests", "times", "samples", "batches", "counts", "stat", "thr")}

    def record(rep: Replay, answer) -> None:
        strategy = rep.strategy
        model = strategy.model_
        stat = thr = np.nan
        evidence = stopping_evidence(strategy) if confident else None
        if evidence is not None:  # what decides the stop, as in the status
            stat, thr = evidence
            if np.isnan(model.estimate).any():
                stat = np.nan
        rows["requests"].append(answer.request)
        rows["times"].append(answer.created)
        rows["samples"].append(strategy.t_)
        rows["batches"].append(strategy.batches_)
        rows["counts"].append(model.counts.copy())
        rows["stat"].append(stat)
        rows["thr"].append(thr)

    replay.apply(events, on_answer=record)
    strategy = replay.strategy
    low, high = confidence_intervals(problem, strategy.model_)
    n = problem.n_sources
    return History(
        requests=np.array(rows["requests"], dtype=int),
        times=rows["times"],
        samples=np.array(rows["samples"], dtype=int),
        batches=np.array(rows["batches"], dtype=int),
        counts=np.array(rows["counts"], dtype=float).reshape(-1, n),
        statistic=np.array(rows["stat"], dtype=float),
        threshold=np.array(rows["thr"], dtype=float),
        means=strategy.model_.estimate.copy(),
        ci_low=low,
        ci_high=high,
        recommendation=strategy.recommendation(),
        status=strategy.status_,
    )
