"""epsilon-top-k identification: the pairwise rule's GLR, its characteristic time against brute force, what
counts as correct, the epsilon keys of the problem, of config files and of ``pybai complexity``."""

import itertools

import numpy as np
import pytest
from scipy.optimize import minimize

from pybai import Bernoulli, FixedBudget, FixedConfidence, Gaussian, InvalidParameterError
from pybai.models._shifted import shifted_pair_cost
from pybai.problems.base import BatchSpec
from pybai.problems.top_k import TopKProblem


def _problem(family, n, k, eps, mode="additive", delta=0.05):
    fam = Gaussian(1.0, n_sources=n) if family == "gaussian" else Bernoulli(n_sources=n)
    return TopKProblem(n, k, fam, FixedConfidence(delta), epsilon=eps, epsilon_mode=mode)


def _pairs(means, k):
    order = np.lexsort((np.arange(means.size), -means))
    return [(int(i), int(j)) for i in order[:k] for j in order[k:]]


def test_glr_is_the_smallest_shifted_pair_cost_and_positive_on_a_tie():
    p = _problem("gaussian", 4, 2, 0.2)
    mu, n = np.array([1.0, 0.7, 0.7, 0.1]), np.array([30.0, 50.0, 40.0, 20.0])
    want = min((mu[i] - mu[j] + 0.2) ** 2 / (2 * (1 / n[i] + 1 / n[j])) for i, j in _pairs(mu, 2))
    assert p.glr(n, mu) == pytest.approx(want, rel=1e-12)
    assert _problem("gaussian", 4, 2, 0.2).glr(n, mu) > 0 and TopKProblem(4, 2, Gaussian(1.0, n_sources=4),
                                                                        FixedConfidence(0.05)).glr(n, mu) == 0.0
    rel = _problem("gaussian", 4, 2, 0.1, "relative")
    want = min((mu[i] - 0.9 * mu[j]) ** 2 / (2 * (1 / n[i] + 0.81 / n[j])) for i, j in _pairs(mu, 2))
    assert rel.glr(n, mu) == pytest.approx(want, rel=1e-12)


def _brute_t(problem, means):
    """1 / max over the simplex of min over (i top, j bottom) of the shifted pair cost (SLSQP, several starts)."""
    n, code, var = means.size, problem.family.code, problem.family.variances
    c, e = problem.shift
    pairs = _pairs(means, problem.k)

    def value(w):
        w = np.maximum(w, 1e-12)
        return min(shifted_pair_cost(code, w[i], means[i], var[i], w[j], means[j], var[j], c, e) for i, j in pairs)

    best = 0.0
    rng = np.random.default_rng(0)
    for start in [np.full(n, 1.0 / n), *rng.dirichlet(np.ones(n), 4)]:
        x0 = np.r_[start, value(start)]
        cons = [{"type": "eq", "fun": lambda x: x[:n].sum() - 1.0}]
        cons += [{"type": "ineq", "fun": (lambda x, i=i, j=j: shifted_pair_cost(
            code, max(x[i], 1e-12), means[i], var[i], max(x[j], 1e-12), means[j], var[j], c, e) - x[n])}
            for i, j in pairs]
        res = minimize(lambda x: -x[n], x0, constraints=cons, bounds=[(0, 1)] * n + [(0, None)], method="SLSQP",
                       options={"maxiter": 500, "ftol": 1e-12})
        best = max(best, value(res.x[:n]))
    return 1.0 / best


@pytest.mark.parametrize("family,mode,eps,means", [
    ("gaussian", "additive", 0.2, [1.0, 0.7, 0.7, 0.1]),
    ("gaussian", "relative", 0.15, [1.0, 0.9, 0.5, 0.4, 0.2]),
    ("bernoulli", "additive", 0.1, [0.8, 0.6, 0.58, 0.3]),
    ("bernoulli", "relative", 0.2, [0.9, 0.7, 0.7, 0.2, 0.1]),
])
def test_characteristic_time_of_the_pairwise_rule_equals_brute_force(family, mode, eps, means):
    means = np.array(means)
    p = _problem(family, means.size, 2, eps, mode)
    res = p.oracle_result(means)
    assert res.lower <= res.t_star <= res.lower * (1 + 1e-6)
    assert res.t_star == pytest.approx(_brute_t(p, means), rel=2e-4)
    value, g = p.alt_gradient(means, res.weights)  # the weights attain 1 / T
    assert value == pytest.approx(1.0 / res.t_star, rel=1e-6) and value == pytest.approx(res.weights @ g, rel=1e-9)


def test_epsilon_never_costs_more_than_exact_top_k():
    rng = np.random.default_rng(3)
    for _ in range(5):
        means = rng.uniform(0, 1, 5)
        exact = TopKProblem(5, 2, Gaussian(1.0, n_sources=5), FixedConfidence(0.05)).oracle(means)[0]
        assert _problem("gaussian", 5, 2, 0.05).oracle(means)[0] < exact


def test_what_counts_as_correct():
    p = _problem("gaussian", 5, 2, 0.2)
    mu = np.array([1.0, 0.7, 0.55, 0.45, 0.0])  # mu_(2) = 0.7: arms with mu >= 0.5 may be returned
    assert p.epsilon_good(mu).tolist() == [True, True, True, False, False]
    assert p.is_correct([0, 2], mu) and p.is_correct([1, 2], mu) and not p.is_correct([0, 3], mu)
    assert not p.is_correct([0, 0], mu) and not p.is_correct([0, 7], mu)
    assert p.answer_metrics([0, 2], mu)["exact_correct"] is False
    assert p.answer_metrics([0, 1], mu)["exact_correct"] is True
    assert p.answer_is_unique([1.0, 0.7, 0.7, 0.0, 0.0])
    rel = _problem("bernoulli", 4, 2, 0.2, "relative")
    assert rel.epsilon_good([0.9, 0.5, 0.41, 0.39]).tolist() == [True, True, True, False]
    assert "every returned arm" in p.correctness_note()


def test_keys_to_dict_with_epsilon_and_complexity():
    p = _problem("gaussian", 4, 2, 0.2)
    assert p.to_dict()["epsilon"] == 0.2 and p.to_dict()["epsilon_mode"] == "additive"
    plain = TopKProblem(4, 2, Gaussian(1.0, n_sources=4), FixedConfidence(0.05))
    assert "epsilon" not in plain.to_dict() and plain.epsilon_mode is None
    again = plain.with_epsilon(0.2)
    assert again.shift == p.shift and plain.shift == (1.0, 0.0)
    out = p.complexity([1.0, 0.7, 0.7, 0.1])
    assert out["exact_characteristic_time"] is None and out["epsilon_good_arms"] == [0, 1, 2]
    assert out["oracle_answer"] == [0, 1] and out["characteristic_time"] > 0
    assert p.run_kernels().shift == p.shift  # epsilon runs are compiled too, on the shifted pieces


@pytest.mark.parametrize("kwargs,key", [
    ({"regime": FixedBudget(100), "epsilon": 0.1}, "epsilon"),
    ({"batch": BatchSpec(4, 2), "epsilon": 0.1}, "epsilon"),
    ({"epsilon": 0.0}, "epsilon"),
    ({"epsilon": 1.5, "epsilon_mode": "relative"}, "epsilon"),
    ({"epsilon_mode": "relative"}, "epsilon_mode"),
    ({"epsilon": 0.1, "epsilon_mode": "multiplicative"}, "epsilon_mode"),
])
def test_bad_epsilon_names_the_parameter(kwargs, key):
    kwargs = {"regime": FixedConfidence(0.1), **kwargs}
    with pytest.raises(InvalidParameterError, match=f"'{key}'"):
        TopKProblem(4, 2, Gaussian(1.0, n_sources=4), **kwargs)


def test_experiment_file_accepts_epsilon_for_top_k(tmp_path):
    from pybai.config.experiment import load_experiment
    from pybai.exceptions import ConfigError

    text = ('name = "t"\nreplications = 2\n[problem]\ngoal = "top-k"\nk = 2\ndelta = 0.1\nepsilon = 0.2\n'
            '{extra}[environment]\nkind = "gaussian"\nmeans = [1.0, 0.7, 0.7, 0.1]\n[[strategy]]\nname = "lucb"\n')
    path = tmp_path / "e.toml"
    path.write_text(text.format(extra=""))
    exp = load_experiment(path)
    assert exp.problem.epsilon == 0.2 and exp.problem.shift == (1.0, 0.2)
    path.write_text(text.format(extra="").replace("delta = 0.1", "budget = 100"))
    with pytest.raises(ConfigError, match="epsilon"):
        load_experiment(path)


def test_result_document_counts_epsilon_and_exact_correctness():
    """The shipped tie: every answer epsilon-correct; exact_correct_rate counts exact top-2 sets."""
    from pybai.config.experiment import read_document, parse_experiment
    from pybai.experiments import experiment_path
    from pybai.report.table import format_results
    from pybai.simulate import run_experiment

    data = read_document(experiment_path("eps-topk-gaussian-tie"))
    data.update(replications=3, strategy=[{"name": "game"}])
    data["environment"]["means"] = [1.0, 0.6, 0.6, 0.2, -0.5]
    doc = run_experiment(parse_experiment(data))
    row = doc["results"][0]
    assert row["correct_rate"] == 1.0 and row["exact_correct_rate"] == 1.0  # either tied arm completes the set
    assert "mu_(k) - 0.2" in doc["correctness"]
    assert "exact top-k set" in format_results(doc)
