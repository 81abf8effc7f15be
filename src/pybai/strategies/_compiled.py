"""Whole simulated runs of sequential rules in compiled loops, identical to the ask/tell loop.

A sequential rule (``tas``, ``uniform``, ``top-two``, ``lucb``, ``game``) offers
``simulate_run(means, rng, sigma)``: the simulation runner
(:func:`pybai.simulate.runner.run_replication`) calls it on a freshly started strategy when the
truth is plain Gaussian (``sigma`` given) or Bernoulli (``sigma`` None) arms.  When the problem
offers its compiled pieces (:meth:`~pybai.problems.base.Problem.run_kernels`) and the threshold
its compiled form (:meth:`~pybai.stopping.base.Threshold.compiled_form`), the rule's own numba
loop plays the whole run -- initial phase, sampling rule, rewards, model update, stopping rule --
and :func:`finish` leaves the strategy in the state the ask/tell loop would have reached.
Otherwise ``simulate_run`` returns False having done nothing, and the ask/tell loop runs.

What makes the outcomes *identical* (tests/strategies/test_compiled_runs.py checks samples,
counts, sums, recommendation, status and the generators' states):

* rewards are drawn from the same ``numpy.random.Generator`` in the same order, one
  ``standard_normal()`` (reward mu_a + sigma_a z) or one ``random()`` (reward [u < mu_a]) per
  sample, as :meth:`GaussianEnvironment._sample` / :meth:`BernoulliEnvironment._sample` draw them
  (numba's Generator methods share the bit generator and its algorithms);
* the model update is :class:`~pybai.models.base.EmpiricalMeans`'s (count, sum, sum / count);
* the sampling and stopping rules call the very numba kernels the Python methods call (the
  oracle, the GLR statistic, the tracking steps, the transportation costs, top-k's answer mask and
  best response), and the threshold is evaluated with the same operations
  (:func:`pybai.stopping.compiled.threshold_value`; the count-dependent per-pair rules through their
  own margin kernel, :func:`pybai.problems.compiled.run_pair_margin`);
* a rule that draws (``top-two`` with ``selection="random"``) draws from its own generator, passed
  into the loop, in the same order.

**One trajectory, many deltas.**  A rule whose sampling does not depend on delta
(:meth:`CompiledRun._delta_free_sampling`: ``tas``, ``uniform``, ``top-two``, ``game``; not ``lucb``,
whose confidence bounds use the threshold) runs one trajectory for several thresholds at once
(:meth:`CompiledRun.simulate_deltas`): the thresholds, ordered from the largest delta (the lowest
threshold) down, are crossed in that order, and each one's stopping time, statistic and model
statistics are recorded when it is crossed.  Each delta's outcome is the one its own run would give
on the same generators, since nothing before a stop depends on delta.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from numba import njit

from pybai.problems.compiled import run_glr, run_pair_margin
from pybai.stopping._leader_kernels import LEADER_RULE, leader_row_advance, leader_row_margin
from pybai.stopping.compiled import PAIR_CODE, PAIR_FLAG, PAIR_MIN_STATISTIC, compiled_rows, threshold_value

__all__ = ["RunSetup", "CompiledRun", "Records", "setup_run", "draw_reward", "record", "check_deltas"]


@njit(cache=True)
def draw_reward(noise, truth, sd, bernoulli, a):
    """One reward of arm ``a``: [u < mu_a] (Bernoulli) or mu_a + sigma_a z, drawn from ``noise``."""
    if bernoulli:
        return 1.0 if noise.random() < truth[a] else 0.0
    return truth[a] + sd[a] * noise.standard_normal()


@njit(cache=True)
def record(counts, sums, est, a, r):
    """The model's single-sample update: count, sum and mean of arm ``a``."""
    c = counts[a] + 1.0
    total = sums[a] + r
    counts[a] = c
    sums[a] = total
    est[a] = total / c


@njit(cache=True)
def check_deltas(kind, k, code, counts, sums, est, var, forms, t, done, stop_t, stop_z, snap_counts, snap_sums):
    """The stopping rule at ``t`` samples for the thresholds ``forms[done:]`` (rows ordered from the lowest).

    Each threshold crossed, in order, records its stopping time, the statistic and the model's
    statistics: the GLR statistic above ``threshold(t)``, or for a count-dependent per-pair rule
    (:meth:`Problem.stopping_decision`) the statistic above the rule's ``min_statistic`` and every
    pair's margin positive (:func:`pybai.problems.compiled.run_pair_margin`).  Returns
    ``(statistic, done)``; the run is over when ``done == len(forms)``.
    """
    z = run_glr(kind, code, counts, est, var, k)
    if forms[0, PAIR_FLAG] > 0.0 and forms[0, PAIR_CODE] == LEADER_RULE:
        return z, _check_leader_rows(counts, sums, est, var, forms, t, z, done, stop_t, stop_z, snap_counts, snap_sums)
    while done < forms.shape[0]:
        form = forms[done]
        if form[PAIR_FLAG] > 0.0:  # a per-pair rule: the GLR filter, then every pair's own test
            if not (z > form[PAIR_MIN_STATISTIC] and run_pair_margin(kind, form, counts, est, var, k) > 0.0):
                break
        elif not z > threshold_value(form, float(t)):
            break
        stop_t[done] = t
        stop_z[done] = z
        snap_counts[done, :] = counts
        snap_sums[done, :] = sums
        done += 1
    return z, done


@njit(cache=True)
def _check_leader_rows(counts, sums, est, var, forms, t, z, done, stop_t, stop_z, snap_counts, snap_sums):
    """:func:`check_deltas` for the leader rule (:mod:`pybai.stopping.leader`), whose rows hold a state:
    every row still running advances its leaders and, above the GLR filter, decides (remembering the
    hypotheses it rejects), as each delta's own run does at this check; the rows that stop are the first
    ones in order (a row that stops implies every earlier one stops).  Returns the new ``done``."""
    passed = True
    first = done
    for i in range(first, forms.shape[0]):
        leader_row_advance(forms[i], counts, sums, est, var)
        ok = z > forms[i, PAIR_MIN_STATISTIC] and leader_row_margin(forms[i], counts, sums, est, var) > 0.0
        if ok and passed:
            stop_t[i] = t
            stop_z[i] = z
            snap_counts[i, :] = counts
            snap_sums[i, :] = sums
            done += 1
        else:
            passed = False
    return done


class Records:
    """Per threshold: stopping time (-1: not stopped), statistic and model statistics when it stopped."""

    def __init__(self, n_thresholds: int, n_sources: int):
        self.stop_t = np.full(n_thresholds, -1, dtype=np.int64)
        self.stop_z = np.zeros(n_thresholds)
        self.counts = np.zeros((n_thresholds, n_sources))
        self.sums = np.zeros((n_thresholds, n_sources))

    @property
    def arrays(self) -> tuple:
        return self.stop_t, self.stop_z, self.counts, self.sums


@dataclass
class RunSetup:
    """What a compiled loop reads: the truth, the initial phase, the problem's kernels, the thresholds.

    Attributes
    ----------
    plan : ndarray of intp
        The requests of the initial phase, in order (one sample each).
    truth, sd : ndarray
        True means and noise standard deviations (zeros for Bernoulli arms).
    bernoulli : bool
    kernels : RunKernels
    forms : ndarray (n_thresholds, width)
        The thresholds' rows (:func:`pybai.stopping.compiled.compiled_rows`), from the lowest.
    max_samples : int
    """

    plan: np.ndarray
    truth: np.ndarray
    sd: np.ndarray
    bernoulli: bool
    kernels: Any
    forms: np.ndarray
    max_samples: int


def setup_run(strategy, means, sigma, thresholds=None) -> RunSetup | None:
    """The setup of a compiled run of a freshly started sequential ``strategy``, or None when it has none.

    None when the run has started, the problem offers no kernels, a threshold no compiled form,
    the requests are not the sources, or the initial phase is not one sample of every source at a
    time.  ``thresholds`` (default: the strategy's own) must be ordered from the lowest.
    """
    if strategy.status_ != "running" or strategy.t_ or strategy._pending is not None or strategy.threshold_ is None:
        return None
    problem = strategy.problem_
    kernels = problem.run_kernels()
    if kernels is None or strategy._max_samples is None:
        return None
    table = compiled_rows(thresholds or [strategy.threshold_])
    if table is None:
        return None
    if not strategy._delta_free_sampling() and np.isnan(table[:, :5]).any():
        return None  # a rule whose sampling reads threshold(t) (LUCB's bounds) needs its t-only form
    space = strategy.requests_
    n = problem.n_sources
    if not space.identity or space.n_requests != n or len(means) != n:
        return None
    steps = strategy._plan
    if any(step.shape[0] != 1 for step in steps):
        return None
    plan = np.array([int(step[0]) for step in steps], dtype=np.intp)
    if np.unique(plan).shape[0] != n:  # the estimate must exist for every source once the plan is done
        return None
    truth = np.asarray(means, dtype=float)
    sd = np.zeros(n) if sigma is None else np.asarray(sigma, dtype=float)
    return RunSetup(plan, truth, sd, sigma is None, kernels, table, int(strategy._max_samples))


def finish(strategy, setup: RunSetup, records: Records, index: int, t: int, tells: int, z: float, checked: bool,
           tells_at=None) -> None:
    """Leave ``strategy`` as the ask/tell loop would at the stop of threshold ``index`` (or the censoring).

    ``t``, ``tells``, ``z`` and ``checked`` are where the trajectory ended (samples, answered requests,
    last statistic, whether the stopping rule was applied); ``tells_at(samples)`` converts a stopping
    time into answered requests (default: one sample per request).
    """
    stop = int(records.stop_t[index])
    if strategy.threshold_.stateful:  # the state the loop left in the rule's row
        strategy.threshold_.load_row_state(setup.forms[index])
    if stop >= 0:
        strategy.model_.set_statistics(records.counts[index], records.sums[index])
        tells = tells if (stop == t or tells_at is None) else tells_at(stop)
        t, z, checked, status = stop, float(records.stop_z[index]), True, "stopped"
    else:
        status = "censored"
    strategy.t_ = int(t)
    strategy.batches_ = int(tells)
    strategy._next_id += int(tells)
    n_plan = len(strategy._plan)
    strategy._plan_pos = min(int(tells), n_plan)
    strategy._ready = bool(tells >= n_plan)
    if checked:
        strategy.statistic_ = float(z)
    strategy.status_ = status


class CompiledRun:
    """Mixin of the sequential rules with a compiled loop: :meth:`simulate_run` and :meth:`simulate_deltas`.

    A rule implements :meth:`_run_loop` (its numba loop on a :class:`RunSetup`) and may refuse
    parameter settings in :meth:`_compiled_ok`.
    """

    def _delta_free_sampling(self) -> bool:
        """Hook: whether the sampling rule does not read delta, so one trajectory serves every delta (default: yes)."""
        return True

    def _compiled_ok(self) -> bool:
        """Hook: whether the rule's parameters are those its loop plays (default: yes)."""
        return True

    def _run_loop(self, setup: RunSetup, rng, records: Records) -> tuple[int, int, float, bool]:
        """Hook: play the loop until every threshold is crossed or ``max_samples``:
        ``(samples, answered requests, last statistic, stopping rule applied)``."""
        raise NotImplementedError

    def _tells_at(self, samples: int) -> int:
        """Answered requests after ``samples`` samples (one sample per request after the initial phase)."""
        return samples

    def simulate_run(self, means, rng, sigma=None) -> bool:
        """Play the whole run in compiled code against simulated arms; False (nothing done) if not offered.

        Rewards N(``means``, ``sigma`` ^2), or Bernoulli(``means``) when ``sigma`` is None, drawn from
        ``rng`` as the environment draws them; the strategy is left as the ask/tell loop leaves it
        (:mod:`pybai.strategies._compiled`).  Offered on a freshly started strategy, on problems with
        compiled kernels (:meth:`~pybai.problems.base.Problem.run_kernels`), with a threshold of
        compiled form.
        """
        setup = setup_run(self, means, sigma) if self._compiled_ok() else None
        if setup is None:
            return False
        records = Records(1, len(setup.truth))
        t, tells, z, checked = self._run_loop(setup, rng, records)
        finish(self, setup, records, 0, t, tells, z, checked, self._tells_at)
        return True

    def simulate_deltas(self, means, rng, sigma, copies: list) -> bool:
        """One trajectory for several deltas: ``copies`` are fresh starts of this rule on the problem at
        each delta (ordered from the largest delta); each is left as its own compiled run would leave it.

        False, nothing done, when the rule's sampling reads delta or a compiled run is not offered.
        """
        if not self._delta_free_sampling() or not self._compiled_ok():
            return False
        setup = setup_run(self, means, sigma, [c.threshold_ for c in copies])
        if setup is None or any(setup_run(c, means, sigma) is None for c in copies):
            return False
        records = Records(len(copies), len(setup.truth))
        t, tells, z, checked = self._run_loop(setup, rng, records)
        model = cast(Any, self).model_  # the mixin sits on a Strategy
        final_counts, final_sums = model.counts.copy(), model.sums.copy()
        for i, copy in enumerate(copies):
            copy.model_.set_statistics(final_counts, final_sums)
            finish(copy, setup, records, i, t, tells, z, checked, self._tells_at)
        return True
