"""Top-k identification with (b, r)-batch pulls (Jun, Jamieson, Nowak & Zhu, AISTATS 2016): the math.

Strategy-agnostic, vectorised building blocks: the RoundRobin water filling (Algorithm 1, the
one of pybai, also used by ``uniform``), the confidence bounds of Eq. (2) and BatchRacing's
accept/reject step, BatchSAR's stage schedule, Halving's stage budgets, empirical ranks with a
tie order, the batch-complexity bound of Theorem 1, batch reward draws, the instances of the
paper's experiments and the compiled whole-run path of BatchRacing.  The rules themselves
(``batch-racing``, ``batch-sar``, ``halving``, ``round-robin``) are strategies in
:mod:`pybai.strategies`; nothing here imports strategies or environments.
"""

from pybai.batch.bounds import lil_bounds, lil_deviation, lil_omega
from pybai.batch.draws import draw_batch_sums
from pybai.batch.halving import halving_keep, halving_stage_budgets
from pybai.batch.instances import linear_instance, sparse_instance, twitter_instance, virus_instance
from pybai.batch.round_robin import min_batches_to_cover, round_robin
from pybai.batch.sar import SARSchedule
from pybai.batch.theory import batch_complexity_bound, samples_to_classify, theory_speedup, top_k_gaps

__all__ = [
    "round_robin",
    "min_batches_to_cover",
    "lil_bounds",
    "lil_deviation",
    "lil_omega",
    "batch_complexity_bound",
    "samples_to_classify",
    "theory_speedup",
    "top_k_gaps",
    "SARSchedule",
    "halving_stage_budgets",
    "halving_keep",
    "draw_batch_sums",
    "linear_instance",
    "sparse_instance",
    "virus_instance",
    "twitter_instance",
]
