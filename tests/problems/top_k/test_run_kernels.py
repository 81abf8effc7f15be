"""The compiled top-k pieces of whole runs give exactly what TopKProblem's Python methods give."""

from __future__ import annotations

import numpy as np

from pybai import BatchSpec, Bernoulli, FixedConfidence, Gaussian, TopKProblem
from pybai.problems.compiled import run_alt_gradient, run_glr, run_mask
from pybai.problems.run_kernels import TOP_K
from pybai.problems.top_k._kernels import top_bottom_kernel
from pybai.problems.top_k._oracle import top_bottom


def _means(rng, n):
    """Coarse means (many ties), now and then a NaN or a negative zero."""
    means = rng.integers(-3, 4, size=n).astype(float) / 2
    if rng.random() < 0.2:
        means[rng.integers(n)] = np.nan
    if rng.random() < 0.3:
        means[means == 0] = -0.0
    return means


def test_compiled_top_bottom_is_the_lexsort_order():
    rng = np.random.default_rng(0)
    for _ in range(3000):
        n = int(rng.integers(2, 10))
        k = int(rng.integers(1, n))
        means = _means(rng, n)
        top, bot, unique = top_bottom(means, k)
        ctop, cbot, cunique = top_bottom_kernel(means, k)
        assert top.tolist() == ctop.tolist() and bot.tolist() == cbot.tolist() and unique == cunique


def test_statistic_mask_and_best_response_are_the_problem_methods():
    rng = np.random.default_rng(1)
    for family_name in ("gaussian", "bernoulli"):
        for _ in range(300):
            n = int(rng.integers(2, 8))
            k = int(rng.integers(1, n))
            if family_name == "gaussian":
                family = Gaussian(rng.uniform(0.3, 2.0, n), n_sources=n)
                means = np.where(rng.random(n) < 0.3, 0.5, rng.normal(size=n))  # ties at 0.5
            else:
                family = Bernoulli(n_sources=n)
                means = rng.integers(0, 6, size=n) / 5.0
            epsilon = 0.2 if rng.random() < 0.3 else None  # the shifted pieces of an answer tolerance, now and then
            problem = TopKProblem(n, k, family, FixedConfidence(0.1), epsilon=epsilon)
            ker = problem.run_kernels()
            assert ker.kind == TOP_K and ker.k == k and ker.shift == problem.shift
            c, e = ker.shift
            counts = rng.integers(1, 50, size=n).astype(float)
            assert run_glr(ker.kind, ker.code, counts, means, ker.variances, k, c, e) == problem.glr(counts, means)
            unknown = means.copy()
            unknown[0] = np.nan  # an arm not sampled yet: no evidence
            assert run_glr(ker.kind, ker.code, counts, unknown, ker.variances, k, c, e) == problem.glr(counts,
                                                                                                     unknown) == 0.0
            assert run_mask(ker.kind, means, k).tolist() == problem.answer_mask(means).tolist()
            w = rng.dirichlet(np.ones(n))
            out = np.full(n, 7.0)
            value = run_alt_gradient(ker.kind, ker.code, w, means, ker.variances, out, k, c, e)
            expected, grad = problem.alt_gradient(means, w)
            assert value == expected and out.tolist() == grad.tolist()


def test_no_kernels_with_batches():
    family = Gaussian(1.0, n_sources=4)
    assert TopKProblem(4, 2, family, FixedConfidence(0.1), BatchSpec(4, 2)).run_kernels() is None
