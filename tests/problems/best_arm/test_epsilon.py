"""epsilon-best-arm identification: the epsilon-GLR, T*_eps and w*_eps against brute force, the
epsilon answer set, the epsilon keys of the problem and of ``pybai complexity``."""

import math

import numpy as np
import pytest
from scipy.optimize import minimize, minimize_scalar

from pybai import Bernoulli, BestArmProblem, FixedBudget, FixedConfidence, Gaussian, InvalidParameterError
from pybai.models._shifted import shifted_pair
from pybai.problems.base import lower_bound_factor


def _kl(family, x, y, v):
    if family == "gaussian":
        return (x - y) ** 2 / (2.0 * v)
    y = min(max(y, 1e-12), 1.0 - 1e-12)
    out = 0.0
    if x > 0:
        out += x * math.log(x / y)
    if x < 1:
        out += (1 - x) * math.log((1 - x) / (1 - y))
    return out


def _problem(family, k, eps, mode, sigma=None):
    fam = Gaussian(sigma if sigma is not None else 1.0, n_sources=k) if family == "gaussian" else Bernoulli(n_sources=k)
    return BestArmProblem(k, fam, FixedConfidence(0.05), epsilon=eps, epsilon_mode=mode)


def _brute_piece(family, na, xa, va, nb, xb, vb, c, e):
    """inf over {x <= c y - e} of na d(xa, x) + nb d(xb, y), by SLSQP from several starts (no closed form)."""
    if xa <= c * xb - e:
        return 0.0
    f = lambda z: na * _kl(family, xa, z[0], va) + nb * _kl(family, xb, z[1], vb)
    cons = [{"type": "ineq", "fun": lambda z: c * z[1] - e - z[0]}]
    bounds = None if family == "gaussian" else [(1e-9, 1 - 1e-9)] * 2
    best = math.inf
    grid = [(y * c - e - 1e-3, y) for y in np.linspace(min(xa, xb), max(xa, xb) + e, 5)]
    for start in [(xb, xb), (xa, xa), (0.5 * (xa + xb), 0.5 * (xa + xb) + e)] + grid:
        start = np.clip(start, 0.01, 0.99) if family == "bernoulli" else np.asarray(start)
        res = minimize(f, start, constraints=cons, bounds=bounds, method="SLSQP",
                       options={"ftol": 1e-14, "maxiter": 500})
        if c * res.x[1] - e - res.x[0] >= -1e-9:  # any feasible point bounds the infimum from above
            best = min(best, f(res.x))
    return best


CASES = [("gaussian", "additive", 0.1), ("gaussian", "relative", 0.2), ("bernoulli", "additive", 0.05),
         ("bernoulli", "relative", 0.15)]


@pytest.mark.parametrize("family,mode,eps", CASES)
def test_epsilon_glr_equals_brute_force(family, mode, eps):
    rng = np.random.default_rng(7)
    for _ in range(6):
        k = 3
        means = rng.uniform(0.2, 0.8, k) if family == "bernoulli" else rng.uniform(0.3, 1.5, k)
        means[1] = means[0] + rng.uniform(-0.05, 0.05)  # near tie at the top, either side
        counts = rng.integers(5, 60, k).astype(float)
        sigma = rng.uniform(0.5, 1.5, k) if family == "gaussian" else None
        p = _problem(family, k, eps, mode, sigma)
        c, e = p.shift
        v = p.family.variances
        best = int(np.argmax(means))
        want = min(_brute_piece(family, counts[best], means[best], v[best], counts[b], means[b], v[b], c, e)
                   for b in range(k) if b != best)
        assert p.glr(counts, means) == pytest.approx(want, rel=1e-5, abs=1e-9)


def test_gaussian_epsilon_glr_closed_form_is_positive_on_a_reversed_pair():
    p = BestArmProblem(2, Gaussian([1.0, 2.0], n_sources=2), FixedConfidence(0.1), epsilon=0.3)
    counts, means = np.array([10.0, 40.0]), np.array([0.5, 0.45])
    assert p.glr(counts, means) == pytest.approx((0.05 + 0.3) ** 2 / (2 * (1 / 10 + 4 / 40)), rel=1e-12)
    # the empirical best is arm 0; a pair whose other arm is slightly *above* it still costs > 0
    assert p.glr(counts, np.array([0.5, 0.5])) == pytest.approx(0.3 ** 2 / (2 * (1 / 10 + 4 / 40)), rel=1e-12)


def test_shifted_pair_minimiser_is_on_the_boundary():
    for code, x1, x2 in ((0, 0.7, 0.6), (1, 0.7, 0.6), (1, 0.95, 0.2)):
        for c, e in ((1.0, 0.1), (0.8, 0.0)):
            cost, l1, l2 = shifted_pair(code, 12.0, x1, 1.0 if code == 0 else 0.25, 7.0, x2, 1.0 if code == 0 else 0.25, c, e)
            assert cost > 0.0 and l1 == pytest.approx(c * l2 - e, abs=1e-12)


def _value(family, means, v, w, a, c, e):
    """min_{b != a} inf over the piece of sum w d: the inner value of answer a at weights w."""
    out = math.inf
    for b in range(len(means)):
        if b == a:
            continue
        if family == "gaussian":
            gap = means[a] + e - c * means[b]
            val = gap * gap / (2 * (v[a] / w[a] + c * c * v[b] / w[b])) if gap > 0 else 0.0
        else:
            if means[a] <= c * means[b] - e:
                val = 0.0
            else:
                f = lambda y: w[a] * _kl(family, means[a], c * y - e, v[a]) + w[b] * _kl(family, means[b], y, v[b])
                lo = max(means[b], e / c)
                hi = min(1.0, (means[a] + e) / c)
                val = minimize_scalar(f, bounds=(lo, hi), method="bounded", options={"xatol": 1e-10}).fun
        out = min(out, val)
    return out


def _brute_t_star(family, means, v, c, e):
    """1 / max over epsilon-good a of max_w value: SLSQP on (w, t) from several starts."""
    k = len(means)
    best_val = 0.0
    for a in range(k):
        if not all(means[a] > c * means[b] - e for b in range(k) if b != a):
            continue
        for start in (np.full(k, 1.0 / k),):
            x0 = np.append(start / start.sum(), 0.0)
            cons = [{"type": "eq", "fun": lambda z: z[:k].sum() - 1.0}]
            for b in range(k):
                if b != a:
                    cons.append({"type": "ineq", "fun": lambda z, b=b: _value(
                        family, means, v, np.maximum(z[:k], 1e-12), a, c, e) - z[k]})
            res = minimize(lambda z: -z[k], x0, constraints=cons, bounds=[(1e-9, 1.0)] * k + [(0, None)],
                           method="SLSQP", options={"ftol": 1e-14, "maxiter": 500})
            w = np.maximum(res.x[:k], 1e-12)
            best_val = max(best_val, _value(family, means, v, w / w.sum(), a, c, e))
    return 1.0 / best_val


@pytest.mark.parametrize("family,mode,eps", CASES[:3])  # Bernoulli relative: same kernel path, slow brute force
def test_t_star_epsilon_equals_brute_force_max_min(family, mode, eps):
    rng = np.random.default_rng(3)
    for _ in range(2 if family == "gaussian" else 1):  # the Bernoulli brute force is slow
        means = rng.uniform(0.2, 0.8, 3) if family == "bernoulli" else rng.uniform(0.3, 1.5, 3)
        means[1] = means[0] + rng.uniform(-0.6, 0.6) * eps  # a second epsilon-good answer, often
        p = _problem(family, 3, eps, mode)
        c, e = p.shift
        t_star, w = p.oracle(means)
        want = _brute_t_star(family, means, p.family.variances, c, e)
        # the search only finds feasible weights: T*_eps is at most its value, and close to it
        assert want * (1 - 5e-3) <= t_star <= want * (1 + 1e-6)
        assert w.sum() == pytest.approx(1.0) and (w >= 0).all()
        # the weights attain the value: min over pieces at w* is 1 / T*
        _, _, a = p.oracle_epsilon(means)
        assert _value(family, means, p.family.variances, w, a, c, e) == pytest.approx(1.0 / t_star, rel=1e-6)


def test_epsilon_answer_set_and_correctness():
    p = _problem("gaussian", 4, 0.1, "additive")
    means = np.array([1.0, 0.95, 0.9, 0.5])
    assert p.epsilon_good(means).tolist() == [True, True, True, False]
    assert p.is_correct(2, means) and not p.is_correct(3, means)
    assert p.answer_metrics(1, means) == {"exact_correct": False}
    assert p.answer_metrics(0, means) == {"exact_correct": True}
    assert p.answer_is_unique([1.0, 1.0, 0.0, 0.0])  # a tie can be certified with epsilon
    r = _problem("bernoulli", 3, 0.1, "relative")
    assert r.epsilon_good([0.5, 0.45, 0.44]).tolist() == [True, True, False]
    plain = BestArmProblem(3, Gaussian(1.0, n_sources=3), FixedConfidence(0.1))
    assert plain.answer_metrics(0, [1.0, 0.0, 0.0]) == {} and not plain.is_correct(1, [1.0, 0.95, 0.0])


def test_a_tie_has_a_finite_t_star_and_the_oracle_answer_is_the_best_arm():
    p = _problem("gaussian", 3, 0.2, "additive")
    t_star, w = p.oracle([1.0, 1.0, 0.0])
    assert math.isfinite(t_star) and w[0] == pytest.approx(w[1], rel=1e-3)
    rng = np.random.default_rng(1)
    for _ in range(20):  # Gaussian, additive: the answer attaining T*_eps is the best arm
        means = rng.normal(size=4)
        assert p.__class__(4, Gaussian(1.0, n_sources=4), FixedConfidence(0.1), epsilon=0.2).oracle_epsilon(
            means)[2] == int(np.argmax(means))


def test_complexity_keys():
    p = _problem("gaussian", 3, 0.2, "additive")
    out = p.complexity([1.0, 1.0, 0.0])
    assert out["epsilon"] == 0.2 and out["epsilon_mode"] == "additive" and out["epsilon_good_arms"] == [0, 1]
    assert out["exact_characteristic_time"] is None and out["characteristic_time"] > 0
    assert out["lower_bound"] == pytest.approx(out["characteristic_time"] * lower_bound_factor(0.05), rel=1e-6)


def test_bad_epsilon_names_the_parameter():
    g = Gaussian(1.0, n_sources=3)
    with pytest.raises(InvalidParameterError, match="epsilon_mode"):
        BestArmProblem(3, g, FixedConfidence(0.1), epsilon=0.1, epsilon_mode="ratio")
    with pytest.raises(InvalidParameterError, match="'epsilon'"):
        BestArmProblem(3, g, FixedConfidence(0.1), epsilon=1.5, epsilon_mode="relative")
    with pytest.raises(InvalidParameterError, match="'epsilon'"):
        BestArmProblem(3, g, FixedConfidence(0.1), epsilon=0.0)
    with pytest.raises(InvalidParameterError, match="epsilon_mode"):
        BestArmProblem(3, g, FixedConfidence(0.1), epsilon_mode="relative")
    with pytest.raises(InvalidParameterError, match="epsilon_mode"):
        BestArmProblem(3, g, FixedBudget(50), epsilon=0.1, epsilon_mode="relative")
    # the fixed-budget meaning is unchanged: a tolerance, exact correctness, no shift
    fb = BestArmProblem(3, g, FixedBudget(50), epsilon=0.0)
    assert fb.error_tolerance == 0.0 and fb.epsilon is None and fb.shift == (1.0, 0.0)
    assert fb.error_probability_epsilon([0.0, 0.1]) == 0.5
