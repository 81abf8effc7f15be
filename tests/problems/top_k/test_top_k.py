import itertools

import numpy as np
import pytest
from scipy.optimize import minimize, minimize_scalar

from pybai import Bernoulli, BestArmProblem, FixedBudget, FixedConfidence, Gaussian
from pybai.exceptions import InvalidParameterError
from pybai.models import _kl
from pybai.problems import BatchSpec, TopKProblem


def bernoulli_kl(x, y):
    """Vectorised Bernoulli kl from the package's scalar kernel."""
    return np.vectorize(lambda a, b: _kl.kl(_kl.BERNOULLI, a, b, 1.0))(x, y)


def problem(n, k, family="gaussian", sigma=1.0, batch=None, regime=None):
    fam = Gaussian(sigma, n_sources=n) if family == "gaussian" else Bernoulli(n_sources=n)
    return TopKProblem(n, k, fam, regime or FixedConfidence(0.1), batch)


def kl_fn(p):
    var = p.family.variances
    if p.family.name == "gaussian":
        return lambda x, y, a: (x - y) ** 2 / (2 * var[a])
    return lambda x, y, a: float(bernoulli_kl(x, y))


def pair_value(w, means, kl, i, j):
    """inf_m w_i d(mu_i, m) + w_j d(mu_j, m) by 1-d search (independent of the kernels)."""
    if means[i] <= means[j]:
        return 0.0
    res = minimize_scalar(lambda m: w[i] * kl(means[i], m, i) + w[j] * kl(means[j], m, j),
                          bounds=(means[j], means[i]), method="bounded", options={"xatol": 1e-13})
    return res.fun


def game_value(w, means, kl, k):
    order = np.argsort(-np.asarray(means), kind="stable")
    top, bot = order[:k], order[k:]
    return min(pair_value(w, means, kl, i, j) for i in top for j in bot)


# --- answer, correctness, FNR, regret ---------------------------------------------


def test_answer_ties_and_scores():
    p = problem(5, 2)
    assert p.answer([0.1, 0.9, 0.5, 0.9, 0.2]).tolist() == [1, 3]
    assert p.answer([0.5, 0.5, 0.5, 0.1, 0.0]).tolist() == [0, 1]  # ties: lowest indices
    mu = np.array([0.1, 0.9, 0.5, 0.7, 0.2])
    assert p.is_correct([3, 1], mu) and not p.is_correct([1, 2], mu) and not p.is_correct([1], mu)
    assert p.false_negative_rate([1, 2], mu) == 0.5
    assert p.false_negative_rate([0, 4], mu) == 1.0
    assert p.simple_regret([1, 3], mu) == 0.0
    assert p.simple_regret([1, 2], mu) == pytest.approx(0.2)
    assert p.n_alternatives == 6 and p.n_terms == 2


@pytest.mark.parametrize("k", [0, -1, 5, 6])
def test_bad_k_names_k(k):
    with pytest.raises(InvalidParameterError, match="'k'"):
        problem(5, k)


def test_bad_batch_names_max_repeats():
    with pytest.raises(InvalidParameterError, match="'max_repeats'"):
        problem(5, 2, batch=BatchSpec(size=4, max_repeats=8))


def test_bad_means_shape():
    with pytest.raises(InvalidParameterError, match="'means'"):
        problem(5, 2).answer([0.1, 0.2])


# --- GLR ---------------------------------------------------------------------------


def brute_force_glr(counts, means, p, k, grid=161):
    """inf over a grid of lambda in [min, max]^3 whose top-k set differs, of sum N d(mu, lambda)."""
    means = np.asarray(means)
    s_hat = np.zeros(3, bool)
    s_hat[np.argsort(-means, kind="stable")[:k]] = True
    axis = np.linspace(means.min(), means.max(), grid)
    var = p.family.variances
    cost = [counts[a] * ((means[a] - axis) ** 2 / (2 * var[a]) if p.family.name == "gaussian"
                         else bernoulli_kl(means[a], axis)) for a in range(3)]
    total = cost[0][:, None, None] + cost[1][None, :, None] + cost[2][None, None, :]
    lam = np.stack(np.meshgrid(axis, axis, axis, indexing="ij"), axis=-1)  # (g, g, g, 3)
    srt = np.sort(lam, axis=-1)[..., ::-1]
    kth, next_ = srt[..., k - 1], srt[..., k]
    same_top = np.all((lam >= kth[..., None]) == s_hat, axis=-1) & (kth > next_)
    # lambda is in the alternative when its top-k set can differ from s_hat (ties count)
    return float(total[~same_top].min())


@pytest.mark.parametrize("family,k", [("gaussian", 1), ("gaussian", 2), ("bernoulli", 1), ("bernoulli", 2)])
def test_glr_matches_brute_force(family, k):
    p = problem(3, k, family)
    means = np.array([0.35, 0.7, 0.5])
    counts = np.array([7.0, 3.0, 5.0])
    z = p.glr(counts, means)
    z_grid = brute_force_glr(counts, means, p, k)
    assert z <= z_grid + 1e-12  # the exact infimum is below every grid point of the alternative
    assert z == pytest.approx(z_grid, rel=2e-2)


def test_glr_k1_is_best_arm_and_ties_give_zero():
    rng = np.random.default_rng(0)
    for family in ("gaussian", "bernoulli"):
        means = rng.uniform(0.05, 0.95, 6)
        counts = rng.integers(1, 50, 6).astype(float)
        p = problem(6, 1, family)
        best = BestArmProblem(6, p.family, FixedConfidence(0.1))
        assert p.glr(counts, means) == pytest.approx(best.glr(counts, means), rel=1e-12)
        tied = means.copy()
        tied[np.argsort(-tied)[1]] = tied.max()
        assert p.glr(counts, tied) == 0.0
    assert problem(3, 1).glr([1, 1, 1], [0.5, np.nan, 0.1]) == 0.0


# --- best response (game strategy) -----------------------------------------------


@pytest.mark.parametrize("family", ["gaussian", "bernoulli"])
def test_alt_gradient_value_and_supergradient(family):
    rng = np.random.default_rng(1)
    n, k = 6, 2
    p = problem(n, k, family)
    kl = kl_fn(p)
    means = rng.uniform(0.05, 0.95, n)
    for _ in range(5):
        w = rng.dirichlet(np.ones(n))
        value, g = p.alt_gradient(means, w)
        assert value == pytest.approx(float(w @ g), rel=1e-12)
        assert value == pytest.approx(game_value(w, means, kl, k), rel=1e-7)
        assert np.count_nonzero(g) == 2
        for _ in range(5):  # concave and 1-homogeneous: value(w') <= g . w'
            w2 = rng.dirichlet(np.ones(n))
            assert p.alt_gradient(means, w2)[0] <= float(w2 @ g) + 1e-12


# --- oracle ------------------------------------------------------------------------


def scipy_oracle(means, kl, k, starts=3, seed=0):
    """max z s.t. pair values >= z, w in the simplex (SLSQP from several starts)."""
    n = len(means)
    order = np.argsort(-np.asarray(means), kind="stable")
    pairs = [(i, j) for i in order[:k] for j in order[k:]]
    rng = np.random.default_rng(seed)
    best = (-np.inf, None)
    for _ in range(starts):
        x0 = np.r_[rng.dirichlet(np.ones(n)), 0.0]
        cons = [{"type": "eq", "fun": lambda x: x[:n].sum() - 1}]
        cons += [{"type": "ineq", "fun": (lambda x, i=i, j=j: pair_value(np.maximum(x[:n], 1e-12), means, kl, i, j) - x[n])}
                 for i, j in pairs]
        res = minimize(lambda x: -x[n], x0, method="SLSQP", bounds=[(1e-9, 1)] * n + [(0, None)],
                       constraints=cons, options={"ftol": 1e-13, "maxiter": 500})
        if res.success and -res.fun > best[0]:
            best = (-res.fun, res.x[:n])
    return 1.0 / best[0], best[1]


@pytest.mark.parametrize(
    "means,k,family",
    [
        ([1.0, 0.8, 0.2, 0.0], 2, "gaussian"),
        ([0.9, 0.3, 0.6, 0.5, 0.1], 2, "gaussian"),
        ([0.9, 0.3, 0.6, 0.5, 0.1], 3, "bernoulli"),
        ([0.5, 0.45, 0.43, 0.4, 0.2], 2, "bernoulli"),
    ],
)
def test_oracle_matches_scipy_and_certificate(means, k, family):
    means = np.array(means)
    p = problem(len(means), k, family)
    res = p.oracle_result(means)
    assert res.lower <= res.t_star and res.relative_gap < 1e-6
    assert res.weights.sum() == pytest.approx(1.0) and np.all(res.weights > 0)
    kl = kl_fn(p)
    # the returned T* is attained by the returned weights (independent pair values)
    assert 1.0 / game_value(res.weights, means, kl, k) == pytest.approx(res.t_star, rel=1e-7)
    t_sp, w_sp = scipy_oracle(means, kl, k)
    assert res.t_star <= t_sp * (1 + 1e-7)  # never worse than a local solver
    assert res.t_star == pytest.approx(t_sp, rel=1e-5)
    np.testing.assert_allclose(res.weights, w_sp, atol=2e-3)


@pytest.mark.parametrize("k,family", [(1, "gaussian"), (2, "gaussian"), (1, "bernoulli"), (2, "bernoulli")])
def test_oracle_matches_grid_brute_force(k, family):
    means = np.array([0.3, 0.8, 0.55])
    p = problem(3, k, family)
    kl = kl_fn(p)
    t_star, w = p.oracle(means)
    grid = 50
    best = 0.0
    for i, j in itertools.product(range(1, grid), repeat=2):
        if i + j < grid:
            v = game_value(np.array([i, j, grid - i - j]) / grid, means, kl, k)
            best = max(best, v)
    assert t_star <= 1.0 / best * (1 + 1e-9)
    assert t_star == pytest.approx(1.0 / best, rel=2e-2)


def test_oracle_k1_is_best_arm_and_symmetries():
    rng = np.random.default_rng(3)
    for family in ("gaussian", "bernoulli"):
        means = rng.uniform(0.05, 0.95, 7)
        p1 = problem(7, 1, family)
        best = BestArmProblem(7, p1.family, FixedConfidence(0.1))
        t1, w1 = p1.oracle(means)
        tb, wb = best.oracle(means)
        assert t1 == pytest.approx(tb, rel=1e-7)
        np.testing.assert_allclose(w1, wb, atol=1e-5)
        # top-(n-1) of mu is the bottom-1 problem: best arm of -mu (Gaussian) or 1 - mu (Bernoulli)
        flipped = -means if family == "gaussian" else 1.0 - means
        t6, w6 = problem(7, 6, family).oracle(means)
        tf, wf = best.oracle(flipped)
        assert t6 == pytest.approx(tf, rel=1e-7)
        np.testing.assert_allclose(w6, wf, atol=1e-5)


def test_oracle_optimality_no_perturbation_improves():
    rng = np.random.default_rng(4)
    means = rng.uniform(0.0, 1.0, 8)
    p = problem(8, 3, "bernoulli")
    t_star, w = p.oracle(means)
    for _ in range(200):
        w2 = np.abs(w + rng.normal(0, 0.01, 8))
        w2 /= w2.sum()
        assert p.alt_gradient(means, w2)[0] <= 1.0 / t_star * (1 + 1e-8)


def test_oracle_ties_infinite_and_medium_instance_fast():
    p = problem(4, 2)
    t_star, w = p.oracle([1.0, 0.5, 0.5, 0.0])
    assert t_star == np.inf and w.tolist() == [0.0, 0.5, 0.5, 0.0]
    p = problem(30, 5, "bernoulli")
    res = p.oracle_result(np.linspace(0.9, 0.1, 30))
    assert res.relative_gap < 1e-6


def test_complexity_report_with_batch_keys():
    from pybai.batch.instances import linear_instance
    from pybai.batch.theory import batch_complexity_bound

    mu = linear_instance()
    p = problem(100, 10, "bernoulli", batch=BatchSpec(size=16, max_repeats=4))
    rep = p.complexity(mu)
    assert rep["answer"] == list(range(10))
    assert round(rep["theory_speedup"], 2) == 10.84
    kl_delta = 0.1 * np.log(0.1 / 0.9) + 0.9 * np.log(0.9 / 0.1)
    assert rep["lower_bound"] == pytest.approx(rep["characteristic_time"] * kl_delta)
    assert rep["batch_complexity_bound"] == pytest.approx(batch_complexity_bound(mu, 10, 0.1, 16, 4))
    assert "batch_complexity_bound" not in problem(100, 10, "bernoulli", regime=FixedBudget(50)).complexity(mu)
