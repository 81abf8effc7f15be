"""BatchRacing on random instances: correct and within its Theorem-1 batch bound w.p. >= 1 - delta.

Theorem 1 of Jun et al. (2016): with probability at least 1 - delta, BatchRacing returns the
top-k set using at most M_{b,r} batches (``pybai.batch.theory.batch_complexity_bound``).  A run
that errs or overruns the bound counts as a failure; a one-sided binomial test at 99% rejects an
implementation whose failure rate exceeds delta.  (The bound is loose, so a correct
implementation passes with a wide margin; one that mis-counts batches, ignores r, or stops on
too-narrow confidence bounds does not.)
"""

import numpy as np
from scipy.stats import binomtest

from pybai import BatchSpec, BernoulliEnvironment, FixedConfidence, make_strategy
from pybai.batch.theory import batch_complexity_bound
from pybai.problems.top_k import TopKProblem
from pybai.simulate.runner import run_replication


def _instance(rng):
    n = int(rng.integers(5, 11))
    k = int(rng.integers(1, 4))
    means = np.sort(rng.uniform(0.05, 0.95, n))[::-1]
    means[k:] -= 0.15  # a gap of at least 0.15 between the top-k and the rest keeps runs short
    means = np.clip(means, 0.0, 1.0)
    b = int(rng.choice([4, 8, 16]))
    r = int(rng.integers(1, b + 1))
    return means, k, b, r


def test_batch_racing_correct_within_theorem_1_bound_on_random_instances():
    rng = np.random.default_rng(2016)
    delta, runs = 0.2, 40
    failures, used = 0, []
    for i in range(runs):
        means, k, b, r = _instance(rng)
        env = BernoulliEnvironment(means)
        problem = TopKProblem(means.size, k, env.family(), FixedConfidence(delta), BatchSpec(b, r))
        out = run_replication(make_strategy("batch-racing"), env, problem, np.random.SeedSequence([7, i]))
        bound = batch_complexity_bound(means, k, delta, b, r)
        used.append(out.batches / bound)
        if not out.correct or out.batches > bound:
            failures += 1
    assert binomtest(failures, runs, delta, alternative="greater").pvalue > 0.01
    # the runs are not trivially short: measured 0.17-0.27 of the bound (loose by a constant, as expected)
    assert min(used) > 0.05
