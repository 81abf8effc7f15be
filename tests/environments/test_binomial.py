"""The binomial environment (a reward is the mean of ``trials`` Bernoulli observations) and its family."""

import numpy as np
import pytest

from pybai import BatchSpec, Binomial, BinomialEnvironment, FixedConfidence, TopKProblem, make_strategy
from pybai.config import parse_experiment
from pybai.config.experiment import read_document
from pybai.experiments import experiment_path
from pybai.exceptions import ConfigError, InvalidParameterError, RequestError


def test_draws_have_the_binomial_mean_and_variance():
    env = BinomialEnvironment([0.3, 0.02], trials=24)
    rng = np.random.default_rng(5)
    n = 40_000
    for arm, p in enumerate(env.means):
        r = env.sample(np.full(n, arm), rng)
        assert np.all((r >= 0) & (r <= 1)) and np.allclose(r * 24, np.round(r * 24))
        # mean within 5 standard errors; variance p (1 - p) / 24 within 5%
        assert abs(r.mean() - p) < 5 * np.sqrt(p * (1 - p) / 24 / n)
        assert r.var() == pytest.approx(p * (1 - p) / 24, rel=0.05)
    np.testing.assert_allclose(env.reward_variances, env.means * (1 - env.means) / 24)


def test_family_widths_and_rewards():
    fam = BinomialEnvironment([0.5, 0.1, 0.2], trials=16).family()
    assert isinstance(fam, Binomial) and fam.trials == 16 and fam.support == (0.0, 1.0)
    assert fam.sub_gaussian_scale == pytest.approx(1 / 8)  # 1 / (2 sqrt(16))
    assert fam.check_rewards(np.array([0.0, 0.0625, 1.0])) is None
    assert "multiples of 1/16" in fam.check_rewards(np.array([0.1]))
    assert fam.check_rewards(np.array([1.0625])) is not None
    assert fam.to_dict() == {"name": "binomial", "trials": 16}
    problem = TopKProblem(3, 1, fam, FixedConfidence(0.1), BatchSpec(4, 2))
    s = make_strategy("batch-racing").start(problem, rng=0)
    assert s._scale == pytest.approx(1 / 8)  # BatchRacing's widths read the family's scale
    with pytest.raises(RequestError, match="multiples of 1/16"):
        s.tell(s.ask(), np.full(s.ask().size, 0.3))


def test_more_trials_need_fewer_samples():
    doc = {"name": "b", "replications": 2, "seed": 3,
           "problem": {"goal": "top-k", "k": 1, "delta": 0.1, "batch": {"size": 8, "max_repeats": 4}},
           "environment": {"kind": "binomial", "means": [0.8, 0.4, 0.3], "trials": 1},
           "strategy": [{"name": "batch-racing"}]}
    from pybai import run_experiment

    one = run_experiment(parse_experiment(doc))["results"][0]
    doc["environment"]["trials"] = 24
    many = run_experiment(parse_experiment(doc))["results"][0]
    assert many["correct_rate"] == 1.0 and many["mean_samples"] < one["mean_samples"] / 5


@pytest.mark.parametrize("environment,key", [
    ({"kind": "binomial", "means": [0.2, 0.5], "trials": 0}, "environment.trials"),
    ({"kind": "binomial", "means": [0.2, 0.5], "trials": 2.5}, "environment.trials"),
    ({"kind": "binomial", "means": [0.2, 1.5], "trials": 3}, "environment.means"),
    ({"kind": "binomial", "means": [0.2, 0.5], "trials": 3, "sd": 1}, "environment.sd"),
])
def test_config_errors_name_the_key(environment, key):
    doc = {"name": "b", "problem": {"goal": "best-arm", "delta": 0.1}, "environment": environment,
           "strategy": [{"name": "uniform"}]}
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        parse_experiment(doc)


def test_generator_and_default_trials():
    doc = {"name": "b", "problem": {"goal": "top-k", "k": 2, "budget": 100, "batch": {"size": 8, "max_repeats": 2}},
           "environment": {"kind": "binomial", "generator": "power-law", "arms": 500, "trials": 24},
           "strategy": [{"name": "halving"}]}
    exp = parse_experiment(doc)
    assert exp.environment.trials == 24 and exp.environment.source_means.size == 500
    assert exp.problem.family.sub_gaussian_scale == pytest.approx(0.5 / np.sqrt(24))
    del doc["environment"]["trials"]
    assert parse_experiment(doc).environment.trials == 1
    with pytest.raises(InvalidParameterError, match="trials"):
        BinomialEnvironment([0.1, 0.2], trials=-1)


def test_twitter_reproduction_uses_the_papers_reward_model():
    doc = read_document(experiment_path("topk-twitter-binomial"))
    assert doc["environment"]["kind"] == "binomial" and doc["environment"]["trials"] == 24
    assert doc["reproduce"]["name"] == "batch-top-k-twitter"
    doc["environment"]["arms"] = 2000  # the file's structure, on fewer arms
    exp = parse_experiment(doc)
    assert exp.problem.batch.size == 60_000 and exp.problem.k == 100
    assert isinstance(exp.problem.family, Binomial) and exp.problem.family.trials == 24
