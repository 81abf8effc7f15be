"""One replication: a strategy against an environment, until it stops."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from pybai.environments.base import Environment
from pybai.environments.bernoulli import BernoulliEnvironment
from pybai.environments.gaussian import GaussianEnvironment
from pybai.models.families import Bernoulli, Family, Gaussian
from pybai.problems.base import Problem
from pybai.simulate.seeding import STREAM_NOISE, STREAM_STRATEGY, STREAM_TRUTH, child
from pybai.strategies.base import Strategy

__all__ = ["Outcome", "Replication", "start_replication", "start_copy", "run_replication", "run_replication_deltas"]


@dataclass
class Outcome:
    """What one replication produced (everything a summary needs)."""

    samples: int
    batches: int
    status: str
    recommendation: object
    correct: bool
    simple_regret: float
    false_negative: float | None
    counts: np.ndarray
    seconds: float
    cpu_seconds: float = 0.0
    gain: float | None = None  # top-k: sum of the means over the answer (Problem.answer_metrics)
    oracle_gain: float | None = None  # ... and over the true answer
    exact_correct: bool | None = None  # with epsilon: the answer is a best arm (an exact top-k set)


@dataclass
class Replication:
    """The start of one replication: its truth, its noise stream and a started copy of the strategy."""

    truth: Environment
    noise: np.random.Generator
    strategy: Strategy


def start_copy(strategy: Strategy, problem: Problem, seed: np.random.SeedSequence, truth: Environment) -> Strategy:
    """A fresh copy of ``strategy`` started on ``problem`` for the replication seeded by ``seed``.

    The copy (:meth:`Strategy.clone`) is started with the replication's strategy stream
    (child ``STREAM_STRATEGY`` of ``seed``); a reference rule (:attr:`Strategy.reference`, e.g.
    ``xy-oracle``) is then told the truth's source means (:meth:`Strategy.reveal_truth`).  Every
    place that plays a replication (:func:`run_replication`, :func:`run_replication_deltas`, the
    pilot run of :mod:`pybai.simulate.preflight`) starts its strategy here, so none can forget a step.
    """
    copy = strategy.clone().start(problem, rng=np.random.default_rng(child(seed, STREAM_STRATEGY)))
    if copy.reference:  # a reference point, not a real strategy: it is told the truth
        copy.reveal_truth(truth.source_means)
    return copy


def start_replication(
    strategy: Strategy, environment: Environment, problem: Problem, seed: np.random.SeedSequence,
    replication: int | None = None,
) -> Replication:
    """The start of the replication seeded by ``seed``: truth, noise stream and started strategy.

    The truth is ``environment.realize`` on the truth stream (child ``STREAM_TRUTH`` of ``seed``;
    ``replication`` selects a row of a table of truths), the noise stream is child
    ``STREAM_NOISE`` and the strategy is :func:`start_copy` of ``strategy``.
    """
    truth = environment.realize(np.random.default_rng(child(seed, STREAM_TRUTH)), replication)
    noise = np.random.default_rng(child(seed, STREAM_NOISE))
    return Replication(truth, noise, start_copy(strategy, problem, seed, truth))


def _simulated_arms(truth: Environment, problem: Problem | None = None):
    """(means, sigma) of plain Bernoulli (sigma None) or Gaussian arms, else None (for fast paths).

    With ``problem``: None too when the learner's family is not the truth's (a compiled run does
    not check the rewards against the family as ``tell`` does).
    """
    # the truth's family class read off the environment class (these two build Bernoulli and Gaussian
    # families): building the family with its checks cost every compiled run ~40 us of set-up
    family: type[Family]
    if type(truth) is BernoulliEnvironment:
        arms, family = (truth.means, None), Bernoulli
    elif type(truth) is GaussianEnvironment:
        arms, family = (truth.means, truth.sigma), Gaussian
    else:
        return None
    if problem is not None and type(problem.family) is not family:
        return None
    return arms


def run_replication(
    strategy: Strategy, environment: Environment, problem: Problem, seed: np.random.SeedSequence,
    replication: int | None = None, *, fast: bool = True,
) -> Outcome:
    """Play a fresh copy of ``strategy`` on ``environment`` for one replication seeded by ``seed``.

    ``strategy`` is a template: the replication runs on ``strategy.clone()`` (a new object
    with the same parameters), so replications of one experiment can run concurrently, in
    processes or threads.  The loop is bounded: every ``tell`` adds at least one sample, and
    the strategy stops at ``max_samples`` (fixed confidence, censored) or at the budget
    (fixed budget).  ``replication`` (the index of the replication) reaches
    :meth:`Environment.realize`: environments with a table of truths take their row from it.

    With ``fast`` (default), a strategy with a ``simulate_run(means, rng, sigma)`` method
    (``batch-racing``; the sequential ``tas``, ``uniform``, ``top-two``, ``lucb`` and ``game`` where
    the problem offers compiled kernels, :mod:`pybai.strategies._compiled`) plays the whole run in
    compiled code when the truth is plain Bernoulli or Gaussian arms; it gives exactly the outcome
    of the ask/tell loop (the reference, ``fast=False``) on the same seed, only faster.
    """
    start = time.perf_counter()
    cpu_start = time.thread_time()
    started = start_replication(strategy, environment, problem, seed, replication)
    truth, noise, strategy = started.truth, started.noise, started.strategy
    simulate = getattr(strategy, "simulate_run", None) if fast else None
    arms = _simulated_arms(truth, strategy.problem_) if simulate is not None else None
    if arms is not None and simulate is not None:  # arms are found only for a strategy that simulates
        simulate(arms[0], noise, sigma=arms[1])  # returns False (nothing done) if not applicable
    ask, tell, respond = strategy.ask, strategy.tell, truth.respond
    while not strategy.stopped:
        tell(*respond(ask(), noise))
    return _outcome(strategy, problem, truth.source_means, time.perf_counter() - start, time.thread_time() - cpu_start)


def _outcome(strategy: Strategy, problem: Problem, means, seconds: float, cpu_seconds: float) -> Outcome:
    """The outcome of a finished run of ``strategy`` on ``problem`` against true ``means``."""
    res = strategy.result()
    rec = res.recommendation
    metrics = problem.answer_metrics(rec, means)
    return Outcome(
        samples=res.samples,
        batches=res.batches,
        status=res.status,
        recommendation=rec,
        correct=problem.is_correct(rec, means),
        simple_regret=problem.simple_regret(rec, means),
        false_negative=metrics.get("false_negative"),
        counts=res.counts,
        seconds=seconds,
        cpu_seconds=cpu_seconds,
        gain=metrics.get("gain"),
        oracle_gain=metrics.get("oracle_gain"),
        exact_correct=metrics.get("exact_correct"),
    )


def run_replication_deltas(
    strategy: Strategy, environment: Environment, problems: list[Problem], seed: np.random.SeedSequence,
    replication: int | None = None,
) -> list[Outcome] | None:
    """One replication for several deltas on one trajectory, or None when the strategy cannot share it.

    ``problems`` differ only in delta.  When ``strategy`` samples without reading delta and plays
    compiled runs here (:meth:`~pybai.strategies._compiled.CompiledRun.simulate_deltas`), one
    trajectory is played and each problem's outcome is read where its threshold is crossed: the
    outcomes of :func:`run_replication` on each problem with ``seed``, in the order of ``problems``.
    The time of the trajectory is shared equally between the outcomes.
    """
    start = time.perf_counter()
    cpu_start = time.thread_time()
    simulate = getattr(strategy, "simulate_deltas", None)
    if simulate is None or any(p.delta is None for p in problems):
        return None
    if strategy.reference:  # told the truth: it plays with it, never a shared trajectory
        return None
    order = sorted(range(len(problems)), key=lambda i: -float(cast(float, problems[i].delta)))  # the lowest threshold first
    lead = start_replication(strategy, environment, problems[order[-1]], seed, replication)
    truth, noise = lead.truth, lead.noise
    starts = [start_copy(strategy, problems[i], seed, truth) for i in order]
    arms = _simulated_arms(truth, lead.strategy.problem_)
    if arms is None or not cast(Any, lead.strategy).simulate_deltas(arms[0], noise, arms[1], starts):
        return None
    share = len(problems)
    seconds, cpu = (time.perf_counter() - start) / share, (time.thread_time() - cpu_start) / share
    outcomes: list[Outcome | None] = [None] * share
    for i, copy in zip(order, starts):
        outcomes[i] = _outcome(copy, problems[i], truth.source_means, seconds, cpu)
    return outcomes  # type: ignore[return-value]
