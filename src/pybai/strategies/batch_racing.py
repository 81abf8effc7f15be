"""BatchRacing (Algorithm 2 of Jun, Jamieson, Nowak & Zhu 2016): fixed-confidence top-k in batches."""

from __future__ import annotations

from pybai._validation import check_positive_float
from pybai.batch.algorithms import BatchRacing as RacingAlgorithm
from pybai.batch.fast_racing import simulate_batch_racing
from pybai.strategies._batch_top_k import BatchTopKRule, batch_shape
from pybai.strategies._fixed_budget import noise_std
from pybai.strategies.registry import register

__all__ = ["BatchRacingStrategy"]


@register
class BatchRacingStrategy(BatchTopKRule):
    r"""BatchRacing: RoundRobin over the surviving arms, accept/reject by the bounds of Eq. (2).

    Each batch raises the surviving arms' counts as evenly as possible (Algorithm 1, at most b
    samples and r of one arm); after it, an arm whose lower bound exceeds the
    :math:`(k_t+1)`-th largest upper bound is accepted, an arm whose upper bound is below the
    :math:`k_t`-th largest lower bound is rejected (:class:`pybai.batch.BatchRacing`).  The run
    stops when the answer is decided; by Theorem 1 it is right with probability at least
    1 - delta within the batch bound ``pybai complexity`` reports.  With b = r = 1 (no
    ``[problem.batch]``) it is the Racing algorithm, one sample then the test.

    The confidence bounds are those of Lemma 1 (anytime, delta-correct), so ``threshold`` has
    no effect: both kinds run the same proven rule.  ``max_samples`` censors as for every
    fixed-confidence rule.  The run's ``statistic`` at stopping is the fraction of arms
    decided by the bounds (the others are accepted or rejected by elimination).

    Parameters
    ----------
    sigma : float, optional
        Sub-Gaussian scale of the rewards in Eq. (2): default 1/2 for Bernoulli rewards and the
        largest noise standard deviation for Gaussian ones.
    ties : {"random", "index"}, default "random"
    threshold : {"heuristic", "delta-correct"}, default "heuristic"
        Unused (see above).
    n_init : int, default 1
        Unused (RoundRobin pulls every arm once first).
    """

    name = "batch-racing"
    regimes = ("fixed-confidence",)

    def __init__(self, *, sigma: float | None = None, ties: str = "random", threshold: str = "heuristic",
                 n_init: int = 1):
        super().__init__(ties=ties, threshold=threshold, n_init=n_init)
        self.sigma = sigma

    def _check_params(self, problem):
        if self.sigma is not None:
            check_positive_float(self.sigma, "sigma", type(self).__name__)
        super()._check_params(problem)

    def _make_engine(self, problem, rng):
        b, r = batch_shape(problem)
        sigma = noise_std(problem.family) if self.sigma is None else float(self.sigma)
        return RacingAlgorithm(problem.n_sources, problem.k, b, r, problem.regime.delta, sigma=sigma, rng=rng)

    def simulate_run(self, means, rng, sigma=None) -> bool:
        """Play the whole run against simulated arms in compiled code; False if not applicable.

        The simulation runner's fast path (:func:`pybai.simulate.runner.run_replication`):
        on a freshly started strategy, with rewards Bernoulli(``means``) (``sigma`` None) or
        N(``means``, ``sigma`` ^2) drawn from ``rng`` as the environment's ``respond`` draws
        them, it leaves the strategy in exactly the state the ask/tell loop would (same
        samples, batches, counts, answer, status, and the same draws taken from ``rng``), see
        :mod:`pybai.batch.fast_racing`.  Returns False, having done nothing, once the run has
        started.
        """
        if self.status_ != "running" or self.t_ or self._pending is not None or self.engine_.n_batches:
            return False
        run = simulate_batch_racing(self.engine_, means, rng, sigma=sigma, max_samples=self._max_samples)
        self.model_.set_statistics(run.model_counts, run.model_sums)
        self.t_ = run.samples
        self.batches_ = run.batches
        self._next_id += run.batches
        if run.status == "done":
            self.statistic_ = self._engine_statistic()
            self.status_ = "stopped"
        else:
            self.status_ = "censored"
        return True

    def _engine_statistic(self):
        engine = self.engine_
        return float((engine.accepted | engine.rejected).sum()) / engine.n_arms
