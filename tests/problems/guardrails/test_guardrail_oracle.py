"""T* and w* of the guardrail rule against a brute-force search over the simplex of arm weights."""

import itertools
import math

import numpy as np
import pytest

from pybai import FixedConfidence
from pybai.problems.guardrails import GuardrailProblem, Metric
from pybai.problems.guardrails.oracle import rule_value


def _problem(n_arms, guard, *, maximize=True, control=0, refunds=None):
    metrics = [Metric("revenue", sigma=1.0, maximize=maximize), Metric("latency", sigma=0.8, **guard)]
    if refunds is not None:
        metrics.append(Metric("refunds", reward_model="bounded", reward_range=[0.0, 1.0], **refunds))
    return GuardrailProblem(n_arms, metrics, FixedConfidence(0.05), control=control)


def _brute(problem, mu, n=120):
    """max over a grid of the simplex (K = 3), refined around the best point, of the rule's value."""
    tests = problem.tests(problem.answer(mu))
    flat = np.asarray(mu, dtype=float).ravel()

    def value(w):
        return rule_value(tests, w, flat, problem.variances, problem.n_metrics)

    best, arg = -1.0, None
    for i, j in itertools.product(range(1, n), repeat=2):
        if i + j < n:
            w = np.array([i, j, n - i - j]) / n
            v = value(w)
            if v > best:
                best, arg = v, w
    width = 2.0 / n
    for _ in range(12):  # zoomed grids around the best point (any direction: the value has kinks)
        center = arg
        for a, b in itertools.product(np.linspace(-width, width, 41), repeat=2):
            w = center + np.array([a, b, -a - b])
            if w.min() > 0:
                v = value(w)
                if v > best:
                    best, arg = v, w
        width /= 5.0
    return 1.0 / best, arg


INSTANCES = {
    # the best-revenue arm breaks the latency bound; the others keep it
    "infeasible-best": (_problem(3, {"at_most": 0.0}), [[0.0, -0.3], [0.6, -0.2], [1.0, 0.4]]),
    # minimise the objective, a lower bound on the guarded metric
    "minimise": (_problem(3, {"at_least": 1.0}, maximize=False), [[0.5, 1.4], [0.2, 0.6], [0.9, 1.2]]),
    # no arm keeps the guardrail
    "no-feasible": (_problem(3, {"at_most": 0.0}), [[0.0, 0.3], [0.5, 0.5], [1.0, 0.2]]),
    # a non-inferiority margin against the control (two hubs: the answer and the control)
    "relative": (_problem(3, {"at_most": 1.0}, refunds={"at_most_vs_control": 0.1}),
                 [[0.0, 0.0, 0.3], [0.7, 0.2, 0.35], [1.0, 0.3, 0.5]]),
    # the control is the answer, relative guardrails on the others
    "control-answer": (_problem(3, {"at_most": 1.0}, refunds={"at_most_vs_control": 0.05}, control=0),
                       [[1.0, 0.0, 0.3], [1.2, 0.2, 0.5], [0.5, 0.3, 0.3]]),
}


@pytest.mark.parametrize("name", sorted(INSTANCES))
def test_oracle_matches_brute_force(name):
    problem, mu = INSTANCES[name]
    t_star, w = problem.oracle(mu)
    w_arm = np.asarray(w).reshape(problem.source_shape).sum(axis=1)
    assert math.isfinite(t_star) and abs(w_arm.sum() - 1.0) < 1e-9
    brute_t, _ = _brute(problem, mu)
    # the oracle's T* is attained by its weights, and no weights of the grid search do better
    value = rule_value(problem.tests(problem.answer(mu)), w_arm, np.ravel(mu), problem.variances, problem.n_metrics)
    assert t_star == pytest.approx(1.0 / value, rel=1e-9)
    assert t_star <= brute_t * (1 + 1e-6)
    assert t_star >= brute_t * (1 - 1e-3), (t_star, brute_t)


def test_answers_and_correctness():
    problem, mu = INSTANCES["infeasible-best"]
    assert problem.answer(mu) == 1 and problem.is_correct(1, mu) and not problem.is_correct(2, mu)
    problem, mu = INSTANCES["no-feasible"]
    assert problem.answer(mu) == -1 and problem.is_correct(-1, mu) and not problem.is_correct(0, mu)
    assert problem.complexity(mu)["answer_note"] == "no arm keeps every guardrail"
    problem, mu = INSTANCES["minimise"]
    assert problem.answer(mu) == 0  # arm 1 has the smallest objective but latency 0.6 < 1.0
    problem, mu = INSTANCES["relative"]
    assert problem.answer(mu) == 1  # arm 2's refunds exceed the control's + 0.1


def test_a_mean_on_its_bound_is_degenerate():
    problem = _problem(3, {"at_most": 0.0})
    mu = [[0.0, -0.3], [0.6, 0.0], [1.0, 0.4]]
    assert problem.answer(mu) == 1 and problem.feasible(mu)[1]
    assert problem.oracle(mu)[0] == math.inf and not problem.answer_is_unique(mu)


def test_union_size():
    # m = K - 1 + G_max: 2 + 1 with one guardrail; 2 + 2 with a relative one (which spares the control)
    assert INSTANCES["infeasible-best"][0].n_alternatives == 3
    assert INSTANCES["relative"][0].n_alternatives == 4


def _shipped_latency():
    from pybai.config.experiment import parse_sweep, read_document
    from pybai.experiments import experiment_path

    exp = parse_sweep(read_document(experiment_path("guardrails-latency")), default_name="guardrails-latency")[0]
    return exp.problem, np.asarray(exp.environment.source_means, dtype=float).reshape(exp.problem.source_shape)


def test_shipped_latency_oracle_matches_a_closed_form():
    # guardrails-latency (K = 4, one hub): the answer a (feasible, best revenue) must be certified against its break
    # test, n_a >= 2 sigma^2 / g^2; the infeasible arm with better revenue by refuting that it keeps the bound, alone;
    # each weaker arm b by its objective test (1/n_b + 1/n_a <= g^2 / (2 sigma^2); refuting that b keeps the bound is
    # impossible: it keeps it).  T* is then a
    # minimisation over n_a, done here by scipy, independently of the oracle's grid search.
    from scipy.optimize import minimize_scalar

    problem, mu = _shipped_latency()
    a = problem.answer(mu)
    assert np.all(problem.variances == problem.variances[0])  # one sigma for both metrics in the file
    var = problem.variances[0]
    lat, rev = mu[:, 1], mu[:, 0]
    n_break = 2 * var / lat[a] ** 2
    fixed, weaker = 0.0, []
    for b in range(problem.n_arms):
        if b == a:
            continue
        keep = 2 * var / lat[b] ** 2 if lat[b] > 0 else math.inf  # refute "b keeps latency <= 0"
        if rev[b] >= rev[a]:
            fixed += keep  # a better-revenue arm is certified by its latency alone
        else:
            weaker.append(((rev[a] - rev[b]) ** 2 / (2 * var), keep))

    def total(n_a):
        out = n_a + fixed
        for d, keep in weaker:
            rest = d - 1.0 / n_a
            out += min(keep, 1.0 / rest if rest > 0 else math.inf)
        return out

    hi = 1e4 * n_break
    res = minimize_scalar(total, bounds=(n_break, hi), method="bounded", options={"xatol": 1e-10})
    expected = min(res.fun, total(n_break))
    t_star, w = problem.oracle(mu)
    assert t_star == pytest.approx(expected, rel=1e-7)
    w_arm = np.asarray(w).reshape(problem.source_shape).sum(axis=1)
    assert w_arm[a] * t_star >= n_break * (1 - 1e-9)


@pytest.mark.parametrize("name", ["guardrails-latency"] + sorted(INSTANCES))
def test_stopping_statistic_is_the_one_of_t_star(name):
    # the GLR the stopping rule compares with its threshold, at counts t w* and the true means, is t / T*: T* is the
    # characteristic time of the statistic the rule uses (not of a stronger joint statistic)
    problem, mu = _shipped_latency() if name == "guardrails-latency" else INSTANCES[name]
    t_star, w = problem.oracle(mu)
    w_arm = np.asarray(w).reshape(problem.source_shape).sum(axis=1)
    for t in (10.0, 1000.0):  # an observation of arm k counts for each of its metrics' sources
        counts = np.repeat(t * w_arm, problem.n_metrics)
        assert problem.glr(counts, mu) == pytest.approx(t / t_star, rel=1e-9)
    # and no other allocation does better
    rng = np.random.default_rng(0)
    for _ in range(50):
        other = np.clip(w_arm + 0.05 * rng.normal(size=w_arm.size), 1e-6, None)
        other /= other.sum()
        assert problem.glr(np.repeat(1000.0 * other, problem.n_metrics), mu) <= 1000.0 / t_star * (1 + 1e-9)
