"""Session files (config.learner): the learner's structure without the truth, and objects <-> file."""

import numpy as np
import pytest

from conftest import learner_document
from pybai import ConfigError, InvalidParameterError, make_strategy
from pybai.config import parse_experiment
from pybai.config.learner import parse_session_file, session_document

KERNEL = {"name": "rbf", "points": [0.0, 0.5, 1.5]}
EXPERIMENTS = [
    ({"goal": "best-arm", "delta": 0.05}, {"kind": "gaussian", "means": [1.0, 0.0, 0.5], "sigma": [1.0, 2.0, 0.5]}),
    ({"goal": "best-arm", "budget": 30, "batch": {"size": 4, "max_repeats": 2}},
     {"kind": "bernoulli", "means": [0.2, 0.5]}),
    ({"goal": "top-k", "delta": 0.1, "k": 2, "max_samples": 500}, {"kind": "gaussian", "means": [1, 2, 3, 4]}),
    ({"goal": "best-feasible-arm", "delta": 0.1},
     {"kind": "subpopulation-gaussian", "means": [[1, 2, 0], [0, 1, 1]], "weights": [1, 2, 3],
      "constrained": [0, 2], "floor": [0.1, -0.2], "sigma": 0.5, "sampling": "arm"}),
    ({"goal": "best-arm", "budget": 20},
     {"kind": "correlated-gaussian", "means": [0, 1, 0.5], "kernel": KERNEL, "sigma": 0.3, "eta": 2.0,
      "prior_mean": 0.1}),
]


@pytest.mark.parametrize("problem,env", EXPERIMENTS)
def test_session_file_gives_the_experiments_problem(problem, env):
    doc = {"problem": problem, "environment": env, "strategy": [{"name": "uniform"}]}
    experiment = parse_experiment(doc)
    spec = parse_session_file(learner_document(doc))
    assert spec.problem.to_dict() == experiment.problem.to_dict()
    # objects -> the session file that describes them -> the same problem
    document = session_document(experiment.problem, experiment.strategies[0][1], name="n", seed=4)
    again = parse_session_file(document)
    assert again.problem.to_dict() == experiment.problem.to_dict() and again.seed == 4
    assert again.strategy.get_params() == experiment.strategies[0][1].get_params()


@pytest.mark.parametrize("env,message", [
    ({"kind": "gaussian", "arms": 3, "means": [1, 2, 3]}, "environment.means: a session file gives only"),
    ({"kind": "gaussian"}, "environment.arms: missing required key"),
    ({"kind": "gaussian", "arms": 1}, "environment.arms: expected an integer >= 2"),
    ({"kind": "gaussian", "arms": 3, "sigma": -1}, "environment.sigma"),
    ({"kind": "gaussian", "arms": 3, "sgima": 1}, "environment.sgima: unknown key"),
    ({"kind": "bernoulli", "arms": 3, "sigma": 1}, "environment.sigma: unknown key"),
    ({"kind": "linear-gaussian", "features": [[1, 0], [0, 1]], "theta": [1, 0]}, "environment.theta"),
    ({"kind": "correlated-gaussian", "kernel": KERNEL, "draw": "prior"}, "environment.draw"),
    ({"kind": "correlated-gaussian", "kernel": KERNEL, "arms": 4}, "environment.arms: expected 3"),
    ({"kind": "martian", "arms": 3}, "environment.kind: expected one of"),
    ({"kind": "gaussian", "arms": 10**12}, "environment.arms: expected small enough to fit in memory"),
    ({"kind": "bernoulli", "arms": 2**1100}, "environment.arms: expected an integer of at most 64 bits"),
])
def test_bad_session_files_name_the_key(env, message):
    with pytest.raises(ConfigError, match=message):
        parse_session_file({"problem": {"goal": "best-arm", "delta": 0.1}, "environment": env,
                            "strategy": [{"name": "uniform"}]})


def test_one_strategy_and_no_grid():
    base = {"problem": {"goal": "best-arm", "delta": 0.1}, "environment": {"kind": "gaussian", "arms": 2}}
    with pytest.raises(ConfigError, match="exactly one strategy"):
        parse_session_file({**base, "strategy": []})
    with pytest.raises(ConfigError, match="grid: a session runs one experiment"):
        parse_session_file({**base, "strategy": [{"name": "tas"}], "grid": {"seed": [1, 2]}})
    with pytest.raises(ConfigError, match="strategy\\[0\\]"):
        parse_session_file({**base, "strategy": [{"name": "tas", "speed": 3}]})
    spec = parse_session_file({**base, "replications": 100, "strategy": [{"name": "tas", "label": "mine"}]})
    assert spec.label == "mine" and spec.strategy_name == "tas"


def test_objects_that_no_session_file_describes_are_refused():
    from pybai import BestArmProblem, FixedConfidence, Gaussian

    problem = BestArmProblem(2, Gaussian(1.0, n_sources=2), FixedConfidence(0.1))
    with pytest.raises(InvalidParameterError, match="registered Strategy"):
        session_document(problem, object())
    with pytest.raises(InvalidParameterError, match="must be a Problem"):
        session_document("problem", make_strategy("tas"))
    assert np.isclose(session_document(problem, make_strategy("tas"))["problem"]["delta"], 0.1)


def test_the_shipped_example_session_file_reads():
    from pathlib import Path

    from pybai.config.learner import load_session_file

    path = Path(__file__).resolve().parents[2] / "docs" / "examples" / "session-screen.toml"
    spec = load_session_file(path)
    assert spec.problem.n_arms == 24 and spec.problem.batch.size == 96 and spec.strategy_name == "uniform"
