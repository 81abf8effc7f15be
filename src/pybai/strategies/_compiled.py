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
  oracle, the GLR statistic, the tracking steps, the transportation costs), and the threshold is
  evaluated with the same operations (:func:`pybai.stopping.compiled.threshold_value`);
* a rule that draws (``top-two`` with ``selection="random"``) draws from its own generator, passed
  into the loop, in the same order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from pybai.stopping.compiled import threshold_value

__all__ = ["RunSetup", "setup_run", "finish", "draw_reward", "record", "stop_check", "RUNNING", "STOPPED", "CENSORED"]

RUNNING, STOPPED, CENSORED = 0, 1, 2
_STATUS = {RUNNING: "running", STOPPED: "stopped", CENSORED: "censored"}


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
def stop_check(glr, code, counts, est, var, form, t):
    """``(statistic, stop)``: the GLR statistic and whether it exceeds the threshold at ``t`` samples."""
    z = glr(code, counts, est, var)[0]
    return z, z > threshold_value(form, float(t))


@dataclass
class RunSetup:
    """What a compiled loop reads: the truth, the initial phase, the problem's kernels, the threshold.

    Attributes
    ----------
    plan : ndarray of intp
        The requests of the initial phase, in order (one sample each).
    truth, sd : ndarray
        True means and noise standard deviations (zeros for Bernoulli arms).
    bernoulli : bool
    kernels : RunKernels
    form : ndarray
        The threshold's compiled form.
    max_samples : int
    """

    plan: np.ndarray
    truth: np.ndarray
    sd: np.ndarray
    bernoulli: bool
    kernels: Any
    form: np.ndarray
    max_samples: int


def setup_run(strategy, means, sigma) -> RunSetup | None:
    """The setup of a compiled run of a freshly started sequential ``strategy``, or None when it has none.

    None when the run has started, the problem offers no kernels, the threshold no compiled form,
    the requests are not the sources, or the initial phase is not one sample of every source at a time.
    """
    if strategy.status_ != "running" or strategy.t_ or strategy._pending is not None or strategy.threshold_ is None:
        return None
    problem = strategy.problem_
    kernels = problem.run_kernels()
    form = strategy.threshold_.compiled_form()
    if kernels is None or form is None or strategy._max_samples is None:
        return None
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
    return RunSetup(plan, truth, sd, sigma is None, kernels, np.asarray(form, dtype=float),
                    int(strategy._max_samples))


def finish(strategy, setup: RunSetup, t: int, tells: int, status: int, statistic: float, checked: bool) -> bool:
    """Leave ``strategy`` as the ask/tell loop would after ``tells`` answered requests and ``t`` samples.

    The model's arrays were updated in place by the loop; ``checked`` says whether the stopping
    rule was applied at least once (then ``statistic`` is its last statistic).
    """
    strategy.t_ = int(t)
    strategy.batches_ = int(tells)
    strategy._next_id += int(tells)
    n_plan = len(strategy._plan)
    strategy._plan_pos = min(int(tells), n_plan)
    strategy._ready = bool(tells >= n_plan)
    if checked:
        strategy.statistic_ = float(statistic)
    strategy.status_ = _STATUS[int(status)]
    return True
