"""Guardrail experiment files: [[problem.metric]], kind "multi-metric", and their refusals."""

import copy

import pytest

from pybai import ConfigError, parse_experiment
from pybai.cli import main
from pybai.problems.guardrails import GuardrailProblem

BASE = {
    "name": "guardrails",
    "replications": 2,
    "seed": 1,
    "problem": {"goal": "best-arm", "delta": 0.1, "control": "control",
                "metric": [{"name": "conversion"},
                           {"name": "latency_ms", "at_most": 250.0},
                           {"name": "refunds", "reward_model": "bounded", "reward_range": [0, 1],
                            "at_most_vs_control": 0.05}]},
    "environment": {
        "kind": "multi-metric",
        "labels": ["control", "new"],
        "correlation": [[1.0, -0.3, 0.2], [-0.3, 1.0, 0.0], [0.2, 0.0, 1.0]],
        "metric": [{"name": "conversion", "kind": "bernoulli", "means": [0.2, 0.5]},
                   {"name": "latency_ms", "kind": "gaussian", "means": [200.0, 230.0], "sigma": 20.0},
                   {"name": "refunds", "kind": "beta", "means": [0.1, 0.12], "sd": 0.05}],
    },
    "strategy": [{"name": "tas", "threshold": "delta-correct"}, {"name": "two-stage"}],
}


def test_the_file_builds_the_problem():
    exp = parse_experiment(BASE)
    p = exp.problem
    assert isinstance(p, GuardrailProblem) and p.control == 0 and p.metric_names == ("conversion", "latency_ms",
                                                                                     "refunds")
    assert [m.reward_model for m in p.metrics] == ["bernoulli", "gaussian", "bounded"]
    assert p.metrics[1].sigma == 20.0 and p.answer(exp.environment.source_means) == 1


def test_a_metric_of_unknown_variance_builds_its_problem():
    """``reward_model = "gaussian-unknown-variance"``: no sigma, the learner's view reads its estimates, the truth's
    view (``pybai complexity``) the environment's per-arm variances."""
    data = copy.deepcopy(BASE)
    data["problem"]["metric"][1]["reward_model"] = "gaussian-unknown-variance"
    data["environment"]["metric"][1]["sigma"] = [20.0, 40.0]
    exp = parse_experiment(data)
    p = exp.problem
    assert p.metrics[1].unknown_variance and p.metrics[1].sigma is None and p.has_unknown_variance
    assert p.unknown.tolist() == [False, True, False, False, True, False]
    truth = p.truth_view(exp.environment)
    assert truth.variances[[1, 4]].tolist() == [400.0, 1600.0] and truth.variances[0] == 0.25
    report = p.truth_view(exp.environment).complexity(exp.environment.source_means)
    assert report["answer"] == 1 and report["characteristic_time"] > 0


def _with(section, path, value):
    data = copy.deepcopy(BASE)
    target = data[section]
    for key in path[:-1]:
        target = target[key]
    if value is _DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return data


_DELETE = object()

REFUSALS = [
    (("problem", ["metric", 0, "at_most"], 0.5), "problem.metric[0].at_most: the first metric is the objective"),
    (("problem", ["control"], "treatment"), "problem.control:"),
    (("problem", ["control"], 5), "problem.control:"),
    (("problem", ["metric", 2, "at_most_vs_control"], -0.01), "problem.metric[2].at_most_vs_control: expected a margin >= 0"),
    (("problem", ["metric", 1, "name"], "conversion"), "problem.metric[1].name: expected distinct metric names"),
    (("environment", ["metric", 1, "name"], "conversion"), "environment.metric[1].name: expected distinct metric names"),
    (("problem", ["metric", 1, "name"], "latency"), 'problem.metric[1].name: expected "latency_ms"'),
    (("problem", ["metric", 1, "at_mots"], 1.0), "problem.metric[1].at_mots: unknown key (did you mean 'at_most'?)"),
    (("problem", ["metric", 1, "reward_model"], "poisson"), "problem.metric[1].reward_model: expected one of"),
    (("problem", ["metric", 1], {"name": "latency_ms", "reward_model": "gaussian-unknown-variance", "sigma": 20.0,
                                 "at_most": 250.0}), "problem.metric[1].sigma: expected absent"),
    (("problem", ["metric", 2], {"name": "refunds", "reward_model": "gaussian-unknown-variance"}),
     'problem.metric[2].reward_model: "gaussian-unknown-variance" needs Gaussian rewards'),
    (("problem", ["metric", 2, "reward_range"], [1, 0]), "problem.metric[2].reward_range: expected two finite numbers"),
    (("environment", ["correlation"], [[1.0, 0.9, 0.9], [0.9, 1.0, -0.9], [0.9, -0.9, 1.0]]),
     "environment.correlation: expected a positive semi-definite matrix"),
    (("environment", ["metric", 0, "kind"], "poisson"), "environment.metric[0].kind: expected one of"),
    (("environment", ["metric", 1, "sigma"], -1.0), "environment.metric[1].sigma:"),
    (("problem", ["metric"], _DELETE), "problem.metric: missing"),
]


@pytest.mark.parametrize("edit, message", REFUSALS, ids=[m.split(":")[0] for _, m in REFUSALS])
def test_refusals_name_the_key(edit, message):
    with pytest.raises(ConfigError) as err:
        parse_experiment(_with(*edit))
    text = str(err.value)
    assert text.startswith(message), text
    assert "\n" not in text


def test_metric_keys_refused_on_a_one_metric_environment():
    data = copy.deepcopy(BASE)
    data["environment"] = {"kind": "gaussian", "means": [0.0, 1.0]}
    with pytest.raises(ConfigError, match=r"^problem.metric: not available for goal \"best-arm\" on environment kind "
                                          r"\"gaussian\""):
        parse_experiment(data)


BAD_FILE = """
name = "bad"
replications = 2
seed = 1
[problem]
goal = "best-arm"
delta = 0.1
[[problem.metric]]
name = "conversion"
[[problem.metric]]
name = "refunds"
at_most_vs_control = -0.01
[environment]
kind = "multi-metric"
[[environment.metric]]
name = "conversion"
kind = "bernoulli"
means = [0.2, 0.5]
[[environment.metric]]
name = "refunds"
kind = "bernoulli"
means = [0.1, 0.1]
[[strategy]]
name = "tas"
"""


def test_cli_refusal_is_one_line_and_writes_nothing(tmp_path, capsys):
    path = tmp_path / "bad.toml"
    path.write_text(BAD_FILE)
    out = tmp_path / "out.json"
    code = main(["run", str(path), "--json", str(out), "--quiet"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "problem.metric[1].at_most_vs_control" in err, err
    assert not out.exists()
