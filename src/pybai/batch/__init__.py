"""Top-k identification with (b, r)-batch pulls (Jun, Jamieson, Nowak & Zhu, AISTATS 2016).

Strategy-agnostic, vectorised building blocks: RoundRobin allocation (Algorithm 1), the
confidence bounds of Eq. (2), the batch-complexity bound of Theorem 1, the per-batch logic
of BatchRacing, BatchSAR, Halving and uniform RoundRobin, batch reward draws and the
instances of the paper's experiments.  Nothing here imports strategies or environments.
"""

from pybai.batch.algorithms import BatchRacing, BatchSAR, Halving, UniformRoundRobin
from pybai.batch.bounds import lil_bounds, lil_deviation, lil_omega
from pybai.batch.draws import draw_batch_sums
from pybai.batch.instances import linear_instance, sparse_instance, twitter_instance, virus_instance
from pybai.batch.round_robin import round_robin
from pybai.batch.theory import batch_complexity_bound, samples_to_classify, theory_speedup, top_k_gaps

__all__ = [
    "round_robin",
    "lil_bounds",
    "lil_deviation",
    "lil_omega",
    "batch_complexity_bound",
    "samples_to_classify",
    "theory_speedup",
    "top_k_gaps",
    "BatchRacing",
    "BatchSAR",
    "Halving",
    "UniformRoundRobin",
    "draw_batch_sums",
    "linear_instance",
    "sparse_instance",
    "virus_instance",
    "twitter_instance",
]
