"""BatchRacing (Algorithm 2 of Jun, Jamieson, Nowak & Zhu 2016): fixed-confidence top-k in batches."""

from __future__ import annotations

from typing import cast

import numpy as np

from pybai._validation import check_positive_float
from pybai.batch.bounds import lil_omega
from pybai.batch.fast_racing import simulate_batch_racing
from pybai.batch.racing import racing_step, survivor_deviations
from pybai.strategies._batch_top_k import BatchTopKRule
from pybai.strategies._fixed_budget import noise_std
from pybai.strategies.registry import register
from pybai.strategies.base import StateArray

__all__ = ["BatchRacingStrategy"]


@register
class BatchRacingStrategy(BatchTopKRule):
    r"""BatchRacing: RoundRobin over the surviving arms, accept/reject by the bounds of Eq. (2).

    Each batch raises the surviving arms' counts as evenly as possible (Algorithm 1, at most b
    samples and r of one arm); after it, an arm whose lower bound exceeds the
    :math:`(k_t+1)`-th largest upper bound is accepted, an arm whose upper bound is below the
    :math:`k_t`-th largest lower bound is rejected (:mod:`pybai.batch.racing`).  The run stops
    as soon as the answer is decided, i.e. when k arms are accepted or the survivors are
    exactly the arms still to accept ("the process is repeated until it accepts k arms");
    Algorithm 2's loop "while S_t is not empty" would spend one more batch before rejecting
    the rest, which changes no answer.  By Theorem 1 it is right with probability at least
    1 - delta within the batch bound ``pybai complexity`` reports.  With b = r = 1 (no
    ``[problem.batch]``) it is the Racing algorithm, one sample then the test.

    The confidence bounds are those of Lemma 1 (anytime, delta-correct), so ``threshold`` has
    no effect: both kinds run the same proven rule.  ``max_samples`` censors as for every
    fixed-confidence rule; the rule never decides on a batch cut at ``max_samples``, and the
    answer of a censored run is that of the complete batches (the accepted arms and the
    empirical best survivors).  The run's ``statistic`` at stopping is the fraction of arms
    decided by the bounds (the others are accepted or rejected by elimination).

    Parameters
    ----------
    sigma : float, optional
        Sub-Gaussian scale of the rewards in Eq. (2): default 1/2 for Bernoulli rewards and the
        largest noise standard deviation for Gaussian ones.
    ties : {"random", "index"}, default "random"
    threshold : {"heuristic", "delta-correct"} or None, default None (unset: see Strategy)
        Unused (see above).
    n_init : int, default 1
        Unused (RoundRobin pulls every arm once first).

    Attributes
    ----------
    survivors_ : ndarray of int
        S_t, increasing.
    accepted_, rejected_ : ndarray of bool (n,)
        A_t and R_t.
    censored_answer_ : ndarray of int or None
        The answer when the batch asked would go beyond ``max_samples`` (cut there: the run
        ends censored), None before.
    """

    # state arrays: the rule writes the private ones, callers get read-only views
    survivors_ = StateArray()
    accepted_ = StateArray()
    rejected_ = StateArray()
    censored_answer_ = StateArray()

    name = "batch-racing"
    # confidence widths need the noise scale; its racing rule certifies the exact top-k set (no epsilon)
    requires = frozenset({"independent-arms", "known-noise", "exact-identification"})
    proven_rule = "the anytime confidence bounds of Lemma 1 (Jun et al. 2016)"
    regimes = ("fixed-confidence",)
    _state_attrs = BatchTopKRule._state_attrs + ("survivors_", "accepted_", "rejected_", "censored_answer_")

    def __init__(self, *, sigma: float | None = None, ties: str = "random", threshold: str | None = None,
                 n_init: int = 1):
        super().__init__(ties=ties, threshold=threshold, n_init=n_init)
        self.sigma = sigma

    def _check_params(self, problem):
        if self.sigma is not None:
            check_positive_float(self.sigma, "sigma", type(self).__name__)
        super()._check_params(problem)

    def _start_rule(self):
        problem = self.problem_
        n = problem.n_sources
        self._omega = lil_omega(problem.regime.delta, n)
        self._scale = noise_std(problem.family) if self.sigma is None else float(self.sigma)
        self._survivors_ = np.arange(n)
        self._accepted_ = np.zeros(n, dtype=bool)
        self._rejected_ = np.zeros(n, dtype=bool)
        self._censored_answer_ = None

    def _survivors(self):
        return self._survivors_

    def _select(self):
        req = super()._select()
        limit = self._max_samples
        if limit is not None and self.t_ + req.size > limit:  # ask cuts this batch: the last one
            self._censored_answer_ = np.sort(self._current_answer())
        return req

    def _observe(self, sources, rewards):
        if self._censored_answer_ is None:  # a cut batch is never decided on
            super()._observe(sources, rewards)

    def _after_batch(self):
        idx = self._survivors_.astype(np.int64)  # compacted in place by the step
        m = idx.size
        devs = survivor_deviations(self.counts_[idx].astype(np.int64), self._omega, self._scale)
        kept, _ = racing_step(self.counts_, self.sums_, devs, idx, m, self.problem_.k - int(self._accepted_.sum()),
                              self._accepted_, self._rejected_, np.empty(m), np.empty(m), np.empty(m))
        if kept < m:
            self._survivors_ = idx[:kept].copy()
        self._conclude()

    def _conclude(self):
        """Decide the answer when it is forced: k arms accepted, or as many survivors as arms to accept."""
        kt = self.problem_.k - int(self._accepted_.sum())
        if kt == 0:
            self._decide(np.flatnonzero(self._accepted_))
        elif self._survivors_.size == kt:
            self._decide(np.concatenate([np.flatnonzero(self._accepted_), self._survivors_]))

    def _current_answer(self):
        """Anytime answer: the accepted arms and the empirical best of the survivors."""
        kt = self.problem_.k - int(self._accepted_.sum())
        return np.concatenate([np.flatnonzero(self._accepted_), self._top(self._survivors_, kt)])

    def _recommend(self):
        if self._censored_answer_ is not None:
            return self._censored_answer_.copy()
        return super()._recommend()

    def _final_statistic(self):
        return float((self._accepted_ | self._rejected_).sum()) / self._accepted_.size

    def simulate_run(self, means, rng, sigma=None) -> bool:
        """Play the run against simulated arms in compiled code; False if not applicable.

        The simulation runner's fast path (:func:`pybai.simulate.runner.run_replication`):
        on a freshly started strategy, with rewards Bernoulli(``means``) (``sigma`` None) or
        N(``means``, ``sigma`` ^2) drawn from ``rng`` as the environment's ``respond`` draws
        them, it plays every batch up to the decision, or up to the batch that ``ask`` would
        cut at ``max_samples`` (left to the ask/tell loop, which the runner continues), and
        leaves the strategy in exactly the state the ask/tell loop would (same samples,
        batches, counts, sums, decisions, status, and the same draws taken from ``rng``), see
        :mod:`pybai.batch.fast_racing`.  Returns False, having done nothing, once the run has
        started.
        """
        if self.status_ != "running" or self.t_ or self._pending is not None:
            return False
        run = simulate_batch_racing(means, rng, k=self.problem_.k, size=self.size_, max_repeats=self.max_repeats_,
                                    omega=self._omega, scale=self._scale, priority=self._priority_,
                                    max_samples=cast(int, self._max_samples), sigma=sigma)  # fixed confidence: an int
        self.model_.set_statistics(run.counts, run.sums)
        self.t_ = run.samples
        self.batches_ = run.batches
        self._next_id += run.batches
        self._accepted_[:] = run.accepted
        self._rejected_[:] = run.rejected
        self._survivors_ = run.survivors
        if run.status == "done":
            self._conclude()
            self.statistic_ = self._final_statistic()
            self.status_ = "stopped"
        elif self.t_ >= cast(int, self._max_samples):
            self.status_ = "censored"
        return True
