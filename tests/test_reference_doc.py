"""docs/reference.md cannot go stale: strategies, goals, environment keys, defaults and result keys."""

import importlib.util
import inspect
import pathlib
import re

import pytest

from pybai import FixedConfidence, parse_experiment, run_experiment
from pybai._validation import REPLICATION_LIMIT, SAMPLE_LIMIT, SIGMA_ABSOLUTE_RANGE, SIGMA_RELATIVE_RANGE
from pybai.config.environments import ENVIRONMENT_BUILDERS
from pybai.config.problems import DEFAULT_MAX_SAMPLES, GOALS

ROOT = pathlib.Path(__file__).resolve().parent.parent
TEXT = (ROOT / "docs" / "reference.md").read_text(encoding="utf-8")


def _table_module():
    spec = importlib.util.spec_from_file_location("strategy_table", ROOT / "docs" / "strategy_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_strategy_table_is_generated_from_the_registry():
    module = _table_module()
    assert module.current_block(TEXT) == module.strategy_table(), "run: PYTHONPATH=src python docs/strategy_table.py"


def test_every_goal_and_environment_key_is_documented():
    for goal, kinds in GOALS.items():
        assert f"`{goal}`" in TEXT
        for kind in kinds:
            assert f"`{kind}`" in TEXT
    for kind, builder in ENVIRONMENT_BUILDERS.items():
        assert f"| `{kind}` |" in TEXT, kind
        keys = re.findall(r"keys (.*)\.$", builder.__doc__ or "")
        for key in (keys[0].split(", ") if keys else []):
            if key in ("truths",):
                continue
            assert f"| `{key}` |" in TEXT, (kind, key)


def test_documented_defaults_and_limits_match_the_code():
    assert DEFAULT_MAX_SAMPLES == 1_000_000
    assert inspect.signature(FixedConfidence).parameters["max_samples"].default == DEFAULT_MAX_SAMPLES
    assert "`1000000` (1,000,000)" in TEXT
    doc = {"problem": {"goal": "best-arm", "delta": 0.1}, "environment": {"kind": "gaussian", "means": [1.0, 0.0]},
           "strategy": [{"name": "tas"}]}
    experiment = parse_experiment(doc)
    assert experiment.replications == 100 and experiment.seed == 0
    assert "| `replications` | integer in [1, 10^6] | `100` |" in TEXT and "| `seed` | integer in [0, 2^63 - 1] | `0` |" in TEXT
    assert SAMPLE_LIMIT == 10**9 and REPLICATION_LIMIT == 10**6
    assert SIGMA_ABSOLUTE_RANGE == (1e-100, 1e100) and SIGMA_RELATIVE_RANGE == (1e-8, 1e8)
    strategy = experiment.strategies[0][1]  # no threshold chosen: unset, and a run takes the heuristic one
    assert strategy.threshold is None and "(**default**" in TEXT
    assert strategy.start(experiment.problem, rng=0).threshold_.name == "heuristic"


@pytest.fixture(scope="module")
def result_document():
    doc = {"name": "ref", "replications": 2, "problem": {"goal": "best-arm", "delta": 0.1},
           "environment": {"kind": "gaussian", "means": [1.0, 0.0]}, "strategy": [{"name": "tas"}]}
    return run_experiment(parse_experiment(doc))


def test_every_result_key_is_documented(result_document):
    for key in result_document:
        assert f"| `{key}` |" in TEXT, key
    for key in result_document["results"][0]:
        assert f"`{key}`" in TEXT, key
