"""A report's agreement with the paper (pybai.report.agreement), computed from hand-made outcomes."""

import numpy as np
import pytest

from pybai.report.agreement import paper_agreement
from pybai.report.spec import PaperTable, parse_reproduce
from test_verdict import data_of


def test_a_paper_ordering_contradicted_by_the_runs_is_said():
    data = data_of({"tas": [300] * 10 + [310] * 10, "uniform": [200] * 10 + [205] * 10})
    paper = PaperTable("them", ["strategy", "mean_samples"], [["tas", 250.0], ["uniform", 400.0]])
    agreement = paper_agreement(data, paper)
    assert agreement.pairs == 1 and len(agreement.contradicted) == 1 and not agreement.agrees
    assert "the paper has tas below uniform on mean samples" in agreement.contradicted[0]
    assert agreement.values == 2 and len(agreement.outside) == 2  # 250 and 400: both outside
    text = " ".join(agreement.sentences())
    assert text.startswith("Disagrees with the paper's ordering on 1 of 1 pairs")
    same = paper_agreement(data, PaperTable("them", ["strategy", "mean_samples"], [["tas", 305.0], ["uniform", 202.5]]))
    assert same.agrees and same.sentences() == ["Agrees with the paper's ordering on all 1 pair, each resolved at 95%.",
                                                "Every published value (2) lies inside pybai's 95% interval."]


def test_a_ranking_in_words_is_checked_tier_by_tier():
    rng = np.random.default_rng(5)
    gains = {"halving": 10 + rng.normal(0, 0.1, 8), "batch-sar": 12 + rng.normal(0, 0.1, 8),
             "round-robin": 5 + rng.normal(0, 0.1, 8)}
    extra = {s: {r: {"gain": g} for r, g in enumerate(v)} for s, v in gains.items()}
    data = data_of({s: [1] * 8 for s in gains}, fixed_budget=True, extra=extra)
    spec = parse_reproduce({"name": "x", "paper": {
        "source": "s", "columns": ["strategy", "finding"], "rows": [["halving", "best"], ["batch-sar", "next"]],
        "ranking": {"by": "mean_gain", "order": [["halving"], ["batch-sar"], ["round-robin"]]}}})
    agreement = paper_agreement(data, spec.paper)
    assert agreement.pairs == 3 and len(agreement.contradicted) == 1
    assert "the paper has halving above batch-sar on mean gain" in agreement.contradicted[0]
    assert agreement.sentences()[-1] == "Agrees with the paper's ordering, resolved at 95%, on 2 of 3 pairs."
    # two runs of nearly equal gains: the other way round, but not resolved
    close = {"halving": [10.0, 10.2], "batch-sar": [10.1, 10.15], "round-robin": [5.0, 5.1]}
    extra = {s: {r: {"gain": g} for r, g in enumerate(v)} for s, v in close.items()}
    agreement = paper_agreement(data_of({s: [1, 1] for s in close}, fixed_budget=True, extra=extra), spec.paper)
    assert not agreement.contradicted and len(agreement.reversed) == 1 and "halving vs batch-sar" in agreement.reversed[0]


def test_the_ranking_key_is_validated():
    from pybai.exceptions import ConfigError

    for bad in ({"by": "mean_gain"}, {"by": "", "order": [["a"], ["b"]]}, {"by": "x", "order": [["a"]]},
                {"by": "x", "order": [["a"], []]}):
        with pytest.raises(ConfigError, match="ranking"):
            parse_reproduce({"name": "x", "paper": {"source": "s", "columns": ["strategy"], "rows": [["a"]],
                                                    "ranking": bad}})
