"""The leaderboard's experiment files: every fixed-confidence rule with both thresholds, the practitioners'
baselines tuned from each instance's true gap, quick forms at the largest delta."""

import math

import numpy as np
import pytest

from pybai.config.experiment import read_document
from pybai.report.spec import apply_quick
from pybai.reproductions import shipped_reproductions
from pybai.simulate.tasks import Sweep

FILES = shipped_reproductions()["leaderboard"].files
#: (registry name, parameters that tell the variant apart): the rules every instance runs with both thresholds
RULES = [("tas", {"tracking": "D"}), ("tas", {"tracking": "C"}), ("top-two", {"challenger": "tci"}),
         ("top-two", {"challenger": "tc"}), ("lucb", {}), ("game", {}), ("uniform", {})]


def test_the_instances_of_the_field_and_of_practice():
    stems = {path.stem for path, _ in FILES}
    assert {"leaderboard-gk16-mu1", "leaderboard-gk16-mu2", "leaderboard-gaussian-4", "leaderboard-gaussian-10",
            "leaderboard-unknown-variance", "leaderboard-bounded", "leaderboard-ab-5pct",
            "leaderboard-abn-10pct", "leaderboard-abn-20pct", "leaderboard-abn-1pct"} == stems
    for path, _ in FILES:
        if path.stem.startswith("leaderboard-gk16"):
            sweep = Sweep.from_document(read_document(path), path.stem)
            assert sorted(e.problem.delta for e in sweep.experiments) == [0.001, 0.01, 0.1]


@pytest.mark.parametrize("path", [p for p, _ in FILES], ids=[p.stem for p, _ in FILES])
def test_every_rule_with_both_thresholds_and_the_baselines_at_the_gap(path):
    experiment = Sweep.from_document(read_document(path), path.stem).experiments[0]
    strategies = [s for _, s in experiment.strategies]
    for name, params in RULES:
        kinds = sorted(s.threshold for s in strategies
                       if s.name == name and all(getattr(s, k) == v for k, v in params.items()))
        assert kinds == ["delta-correct", "heuristic"], (name, params)
    means = np.sort(experiment.environment.source_means)
    gap = means[-1] - means[-2]
    taus = sorted(s.tau for s in strategies if s.name == "mixture-sprt")
    assert taus == pytest.approx([gap / 2, gap])
    assert sum(s.name == "thompson-pbest" and s.confidence == 0.95 for s in strategies) == 1
    horizons = [s for s in strategies if s.name == "fixed-horizon"]
    if experiment.problem.family.provides >= {"known-noise"}:
        assert sorted(s.mde for s in horizons) == pytest.approx([gap / 2, gap])
        if experiment.environment.family().name == "bernoulli":  # the practitioner's p (1 - p), best two rates
            expected = float(np.mean(means[-2:] * (1 - means[-2:])))
            assert all(s.variance == pytest.approx(expected) for s in horizons)
    else:
        assert not horizons  # the power analysis needs a known noise scale
    for label, strategy in experiment.strategies:  # the label says whether a stop is proven
        proven = strategy.threshold == "delta-correct" and not strategy.stopping_rule
        assert label.endswith(" proven") == proven, label


def test_quick_forms_run_the_largest_delta_with_fewer_replications():
    for path, spec in FILES:
        document = read_document(path)
        full = Sweep.from_document(document, path.stem).experiments
        quick = Sweep.from_document(apply_quick(document, spec), path.stem).experiments
        assert [e.problem.delta for e in quick] == [max(e.problem.delta for e in full)]
        assert quick[0].replications < full[0].replications
        assert all(math.isclose(e.seed, full[0].seed) for e in quick)
