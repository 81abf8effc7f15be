"""BatchSAR (Algorithm 3 of Jun, Jamieson, Nowak & Zhu 2016): fixed-budget top-k in batches."""

from __future__ import annotations

from pybai.batch.sar import BatchSAR as SARAlgorithm
from pybai.strategies._batch_top_k import BatchTopKRule, batch_shape
from pybai.strategies.registry import register

__all__ = ["BatchSARStrategy"]


@register
class BatchSARStrategy(BatchTopKRule):
    r"""BatchSAR: successive accepts and rejects in stages, pulls by RoundRobin.

    Stage s pulls its surviving arms until each has its target number of samples, then accepts
    the empirical best or rejects the empirical worst (whichever has the larger empirical gap);
    the last stage (:math:`\tilde n` arms left) adds the empirical top-k' of the survivors
    (:class:`pybai.batch.BatchSAR`, formulas in :mod:`pybai.batch.sar`).  The run ends early
    when the answer is forced (lines 23-24: status ``"stopped"`` before the budget is spent),
    else when the budget is spent.  With b = r = 1 (no ``[problem.batch]``) and the
    theoretical schedule it is SAR (Bubeck, Wang & Viswanathan 2013) run on B - n - 1 samples.

    Parameters
    ----------
    schedule : {"practical", "theory"}, default "practical"
        Stage targets: m'_s of Eq. (10) (recomputed from the budget left, the last stage
        spends the rest; the paper's experiments) or m_s of line 4 (the analysed schedule; the
        run usually ends before the budget).
    ties : {"random", "index"}, default "random"
    threshold, n_init
        Unused (see :class:`~pybai.strategies._batch_top_k.BatchTopKRule`).
    """

    name = "batch-sar"
    regimes = ("fixed-budget",)
    may_stop_early = True

    def __init__(self, *, schedule: str = "practical", ties: str = "random", threshold: str = "heuristic",
                 n_init: int = 1):
        super().__init__(ties=ties, threshold=threshold, n_init=n_init)
        self.schedule = schedule

    def _make_engine(self, problem, rng):
        b, r = batch_shape(problem)
        return SARAlgorithm(problem.n_sources, problem.k, b, r, problem.regime.budget, schedule=self.schedule,
                            rng=rng)
