import json

import numpy as np

from pybai import parse_experiment, run_experiment
from pybai.simulate.seeding import child, replication_seeds

DOC = {
    "name": "repro",
    "replications": 24,
    "seed": 5,
    "problem": {"goal": "best-arm", "delta": 0.1},
    "environment": {"kind": "bernoulli", "means": [0.7, 0.5, 0.3]},
    "strategy": [{"name": "tas"}, {"name": "top-two", "selection": "random"}, {"name": "uniform"}],
}


def strip(document):
    document = json.loads(json.dumps(document))
    document.pop("elapsed_seconds")
    for r in document["results"]:
        r.pop("wall_seconds")
        r.pop("cpu_seconds")
    return document


def test_one_or_two_jobs_give_identical_results():
    one = run_experiment(parse_experiment(json.loads(json.dumps(DOC))), jobs=1)
    two = run_experiment(parse_experiment(json.loads(json.dumps(DOC))), jobs=2)
    assert strip(one) == strip(two)
    assert set(one["results"][0]) >= {
        "strategy", "replications", "mean_samples", "sd_samples", "median_samples", "mean_batches",
        "censored", "correct_rate", "mean_simple_regret", "false_negative_rate", "mean_allocation",
        "wall_seconds",
    }


def test_seed_changes_results():
    a = run_experiment(parse_experiment(json.loads(json.dumps(DOC))))
    other = json.loads(json.dumps(DOC))
    other["seed"] = 6
    b = run_experiment(parse_experiment(other))
    assert a["results"][0]["mean_samples"] != b["results"][0]["mean_samples"]


def test_child_does_not_mutate():
    seq = replication_seeds(1, 3)[2]
    a = np.random.default_rng(child(seq, 1)).random()
    b = np.random.default_rng(child(seq, 1)).random()
    assert a == b
    assert np.random.default_rng(child(seq, 0)).random() != a


def test_run_outcomes_is_the_engine_on_one_point():
    from pybai.simulate import run_outcomes, run_replication
    from pybai.simulate.engine import execute_sweep
    from pybai.simulate.seeding import replication_seed
    from pybai.simulate.tasks import Sweep

    experiment = parse_experiment(json.loads(json.dumps(DOC)))
    engine = execute_sweep(Sweep.from_experiment(experiment)).per_strategy()
    spans = {}
    for jobs in (1, 2):
        got = run_outcomes(experiment, jobs=jobs, spans=spans)
        assert [[(o.samples, o.recommendation, o.counts.tolist()) for o in outs] for outs in got] == \
            [[(o.samples, o.recommendation, o.counts.tolist()) for o in outs] for outs in engine]
    assert sorted(spans) == [0, 1, 2] and all(lo <= hi for lo, hi in spans.values())
    # a point of a sweep keeps the replication seeds of a file without a grid
    doc = dict(json.loads(json.dumps(DOC)), replications=3, grid={"problem.delta": [0.1, 0.05]})
    from pybai.config.experiment import parse_sweep

    point = parse_sweep(doc)[1]
    assert point.grid
    label, strategy = point.strategies[0]
    outs = run_outcomes(point)[0]
    for r, o in enumerate(outs):
        again = run_replication(strategy, point.environment, point.problem, replication_seed(point.seed, r), r)
        assert (again.samples, again.recommendation) == (o.samples, o.recommendation)


def test_censored_runs_are_reported_apart():
    """mean_samples counts a censored run at max_samples; mean_samples_stopped is over the other runs."""
    doc = json.loads(json.dumps(DOC))
    doc["problem"]["max_samples"] = 60
    doc["strategy"] = [{"name": "uniform"}]
    (row,) = run_experiment(parse_experiment(doc))["results"]
    assert 0 < row["censored"] < row["replications"]
    stopped_total = row["mean_samples"] * row["replications"] - 60 * row["censored"]
    assert abs(row["mean_samples_stopped"] - stopped_total / (row["replications"] - row["censored"])) < 0.01
    assert row["mean_samples_stopped"] < 60
