"""Whole simulated runs of sequential rules in compiled code, identical to the ask/tell loop.

A sequential rule (``tas``, ``uniform``, ``top-two``, ``lucb``, ``game``) offers
``simulate_run(means, rng, sigma)``: the simulation runner
(:func:`pybai.simulate.runner.run_replication`) calls it on a freshly started strategy when the
truth is plain Gaussian (``sigma`` given) or Bernoulli (``sigma`` None) arms.  When the problem
offers its compiled pieces (:meth:`~pybai.problems.base.Problem.run_kernels`) and the stopping rule
its compiled form (:meth:`~pybai.stopping.rule.StoppingRule.compiled`), the one compiled driver
(:func:`pybai.strategies._driver.run_trajectory`: initial phase, the rule's step, rewards, model
update, stopping rule) plays the whole run, and :meth:`Strategy.finish_compiled_run
<pybai.strategies.base.Strategy.finish_compiled_run>` leaves the strategy in the state the ask/tell
loop would have reached.  Otherwise ``simulate_run`` returns False having done nothing, and the
ask/tell loop runs.

What makes the outcomes *identical* (tests/strategies/test_compiled_runs.py checks samples,
counts, sums, recommendation, status and the generators' states):

* rewards are drawn from the same ``numpy.random.Generator`` in the same order, one
  ``standard_normal()`` (reward mu_a + sigma_a z) or one ``random()`` (reward [u < mu_a]) per
  sample, as :meth:`GaussianEnvironment._sample` / :meth:`BernoulliEnvironment._sample` draw them
  (numba's Generator methods share the bit generator and its algorithms);
* the model update is :class:`~pybai.models.base.EmpiricalMeans`'s (count, sum, sum / count);
* the choice of each sample is the rule's step function (:mod:`pybai.strategies._steps`), the one
  its ask/tell ``_select`` calls on such a problem, and the stopping rule is evaluated with the same
  operations (:func:`pybai.stopping.compiled.threshold_value`; the count-dependent per-pair rules
  through their own margin kernel, :func:`pybai.stopping.compiled.pair_rule_margin`);
* a rule that draws (``top-two`` with ``selection="random"``) draws from its own generator, passed
  into the loop, in the same order.

**One trajectory, many deltas.**  A rule whose sampling does not read delta
(:meth:`CompiledRun._delta_free_sampling`: ``tas``, ``uniform``, ``top-two``, ``game``; not ``lucb``,
whose confidence bounds use the threshold) runs one trajectory for a stopping rule carrying several
deltas (:meth:`CompiledRun.simulate_deltas`): its rows, from the largest delta (the lowest
threshold) down, are crossed in that order, and each one's stopping time, statistic and model
statistics are recorded when it is crossed.  Each delta's outcome is the one its own run would give
on the same generators, since nothing before a stop depends on delta.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from pybai.stopping.compiled import CompiledRule
from pybai.stopping.rule import StoppingRule
from pybai.strategies._driver import Arms, Goal, Records, RuleState, Stats, new_records, run_trajectory

__all__ = ["RunSetup", "CompiledRun", "setup_run", "goal_of"]


def goal_of(kernels) -> Goal:
    """The :class:`~pybai.strategies._driver.Goal` of a problem's :class:`~pybai.problems.run_kernels.RunKernels`."""
    c, e = kernels.shift
    return Goal(int(kernels.kind), int(kernels.code), kernels.variances, int(kernels.k), float(c), float(e))


@dataclass
class RunSetup:
    """What a compiled run reads: the initial phase, the truth, the problem's kernels, the stopping rule.

    Attributes
    ----------
    plan : ndarray of intp
        The requests of the initial phase, in order (one sample each).
    arms : Arms
        The simulated truth.
    goal : Goal
        The problem's kernels.
    rule : CompiledRule
        The stopping rule, one row per delta from the lowest threshold (:meth:`StoppingRule.compiled`).
    max_samples : int
    """

    plan: np.ndarray
    arms: Arms
    goal: Goal
    rule: CompiledRule
    max_samples: int


def setup_run(strategy, means, sigma, rule: StoppingRule | None = None) -> RunSetup | None:
    """The setup of a compiled run of a freshly started sequential ``strategy``, or None when it has none.

    None when the run has started, the problem offers no kernels, the stopping rule no compiled form,
    the requests are not the sources, or the initial phase is not one sample of every source at a
    time.  ``rule`` (default: the strategy's own) holds its deltas from the largest (the lowest threshold).
    """
    if strategy.status_ != "running" or strategy.t_ or strategy._pending is not None or strategy.threshold_ is None:
        return None
    problem = strategy.problem_
    kernels = problem.run_kernels()
    if kernels is None or strategy._max_samples is None:
        return None
    compiled = (rule or strategy.stopping_rule_).compiled()
    if compiled is None:
        return None
    if not strategy._delta_free_sampling() and np.isnan(compiled.times).any():
        return None  # a rule whose sampling reads threshold(t) (LUCB's bounds) needs its t-only form
    space = strategy.requests_
    n = problem.n_sources
    if not space.identity or space.n_requests != n or len(means) != n:
        return None
    steps = strategy._plan
    if any(step.shape[0] != 1 for step in steps):
        return None
    plan = np.array([int(step[0]) for step in steps], dtype=np.intp)
    if len(set(plan.tolist())) != n:  # the estimate must exist for every source once the plan is done
        # (a set of Python ints: np.unique cost the set-up of every compiled run 7 us)
        return None
    truth = np.asarray(means, dtype=float)
    sd = np.zeros(n) if sigma is None else np.asarray(sigma, dtype=float)
    return RunSetup(plan, Arms(truth, sd, sigma is None), goal_of(kernels), compiled, int(strategy._max_samples))


class CompiledRun:
    """Mixin of the sequential rules with a compiled run: :meth:`simulate_run` and :meth:`simulate_deltas`.

    A rule gives its state for the driver (:meth:`_rule_state`, a
    :class:`~pybai.strategies._driver.RuleState` with its step's code) and reads back what the run
    changed that is not shared with it (:meth:`_after_run`); it may refuse parameter settings in
    :meth:`_compiled_ok`.  A rule whose run is not one sample per request overrides :meth:`_run_loop`
    (``lucb``).
    """

    def _delta_free_sampling(self) -> bool:
        """Hook: whether the sampling rule does not read delta, so one trajectory serves every delta (default: yes)."""
        return True

    def _compiled_ok(self) -> bool:
        """Hook: whether the rule's parameters are those its step plays (default: yes)."""
        return True

    def _rule_state(self) -> RuleState:
        """Hook: the rule's state for the driver (its arrays shared with the strategy, updated in place)."""
        raise NotImplementedError

    def _step_goal(self) -> Goal | None:
        """The problem's kernels for the rule's step (None: the problem offers none, or the parameters are
        not the step's), kept while the problem stays the same (an answer tolerance given later changes it)."""
        problem = cast(Any, self).problem_
        cached = cast(Any, self).__dict__.get("_goal_cache")
        if cached is None or cached[0] is not problem:
            kernels = problem.run_kernels() if self._compiled_ok() else None
            cached = (problem, None if kernels is None else goal_of(kernels))
            cast(Any, self)._goal_cache = cached
        return cached[1]

    def _after_run(self, state: RuleState) -> None:
        """Hook: read back what the run changed in ``state`` that the strategy does not share (default: nothing)."""

    def _run_loop(self, setup: RunSetup, rng, records: Records) -> tuple[int, int, float, bool]:
        """Play the run until every row of the stopping rule is crossed or ``max_samples``:
        ``(samples, answered requests, last statistic, stopping rule applied)``."""
        strategy = cast(Any, self)  # the mixin sits on a Strategy
        model = strategy.model_
        state = self._rule_state()
        t, z, checked = run_trajectory(state, setup.goal, setup.rule, setup.arms, setup.plan, setup.max_samples,
                                       Stats(model.counts, model.sums, model.estimate), rng, strategy.rng_, records)
        self._after_run(state)
        return t, t, z, checked

    def _tells_at(self, samples: int) -> int:
        """Answered requests after ``samples`` samples (one sample per request after the initial phase)."""
        return samples

    def simulate_run(self, means, rng, sigma=None) -> bool:
        """Play the whole run in compiled code against simulated arms; False (nothing done) if not offered.

        Rewards N(``means``, ``sigma`` ^2), or Bernoulli(``means``) when ``sigma`` is None, drawn from
        ``rng`` as the environment draws them; the strategy is left as the ask/tell loop leaves it
        (:mod:`pybai.strategies._compiled`).  Offered on a freshly started strategy, on problems with
        compiled kernels (:meth:`~pybai.problems.base.Problem.run_kernels`), with a stopping rule of
        compiled form.
        """
        setup = setup_run(self, means, sigma) if self._compiled_ok() else None
        if setup is None:
            return False
        records = new_records(1, len(setup.arms.truth))
        end = self._run_loop(setup, rng, records)
        cast(Any, self).stopping_rule_.load_state(setup.rule)
        cast(Any, self).finish_compiled_run(records, 0, *end, tells_at=self._tells_at)
        return True

    def simulate_deltas(self, means, rng, sigma, copies: list) -> bool:
        """One trajectory for several deltas: ``copies`` are fresh starts of this rule on the problem at
        each delta (ordered from the largest delta); each is left as its own compiled run would leave it.

        False, nothing done, when the rule's sampling reads delta or a compiled run is not offered.
        """
        if not self._delta_free_sampling() or not self._compiled_ok():
            return False
        rule = StoppingRule([c.threshold_ for c in copies])
        setup = setup_run(self, means, sigma, rule)
        if setup is None or any(setup_run(c, means, sigma) is None for c in copies):
            return False
        records = new_records(len(copies), len(setup.arms.truth))
        end = self._run_loop(setup, rng, records)
        rule.load_state(setup.rule)
        model = cast(Any, self).model_
        final_counts, final_sums = model.counts.copy(), model.sums.copy()
        for i, copy in enumerate(copies):
            copy.model_.set_statistics(final_counts, final_sums)
            copy.finish_compiled_run(records, i, *end, tells_at=self._tells_at)
        return True
