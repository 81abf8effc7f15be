"""The report's summary (pybai.report.verdict) and its agreement with a paper (pybai.report.agreement).

Built on hand-made outcomes, so every sentence can be checked against a number computed here.
"""

import math

import numpy as np
import pytest

from pybai.report.agreement import paper_agreement
from pybai.report.intervals import Z95
from pybai.report.registry import FigureData
from pybai.report.spec import PaperTable, parse_reproduce
from pybai.report.verdict import difference, headline_metric, summary_sentences


def data_of(samples: dict, correct=None, fixed_budget=False, extra=None):
    """A FigureData with one point: ``samples[strategy]`` = per-replication samples (same replications)."""
    rows, results = [], []
    for strategy, values in samples.items():
        for r, n in enumerate(values):
            row = {"point": 0, "strategy": strategy, "replication": r, "samples": float(n),
                   "correct": True if correct is None else bool(correct[strategy][r])}
            row.update((extra or {}).get(strategy, {}).get(r, {}))
            rows.append(row)
        ok = [row["correct"] for row in rows if row["strategy"] == strategy]
        results.append({"strategy": strategy, "replications": len(values), "mean_samples": float(np.mean(values)),
                        "correct_rate": float(np.mean(ok)), "censored": 0})
    return FigureData("demo", {"goal": "best-arm", "results": results}, rows, fixed_budget=fixed_budget,
                      complexity_of=lambda point: {"delta": 0.1})


def test_paired_difference_cancels_the_shared_randomness():
    rng = np.random.default_rng(3)
    base = rng.exponential(1000.0, size=40)  # each replication's instance is easy or hard for both
    data = data_of({"fast": base, "slow": base + 30.0 + rng.normal(0.0, 1.0, size=40)})
    d = difference(data, data.points[0], "slow", "fast", "mean_samples")
    diffs = (np.array([r["samples"] for r in data.rows_of(0, "slow")])
             - np.array([r["samples"] for r in data.rows_of(0, "fast")]))
    half = Z95 * diffs.std(ddof=1) / math.sqrt(40)
    assert d.value == pytest.approx(diffs.mean()) and d.high - d.value == pytest.approx(half)
    assert d.low > 0  # separated, although the two means' own intervals overlap widely
    sentences = summary_sentences(data)
    assert sentences[0].startswith("Compared: 2 strategies (fast, slow) on best-arm identification")
    assert "Lowest mean samples: fast" in sentences[1] and "the runs separate them" in sentences[1]
    assert f"leads slow by {d.value:.1f} ± {d.high - d.value:.1f} (95%" in sentences[1]


def test_close_strategies_are_said_to_be_close():
    rng = np.random.default_rng(4)
    data = data_of({"a": rng.normal(500, 50, 20), "b": rng.normal(505, 50, 20)})
    line = summary_sentences(data)[1]
    assert "these runs cannot tell the two apart" in line


def test_correctness_is_said_once_with_the_worst_strategy():
    correct = {"a": [1] * 20, "b": [1] * 15 + [0] * 5}
    data = data_of({"a": [100] * 20, "b": [90] * 20}, correct=correct)
    sentences = summary_sentences(data)
    assert any(s.startswith("Correct answers: at worst 0.75 [") and "(b)" in s and "1 - delta = 0.9" in s for s in sentences)
    assert any(s.startswith("Below 1 - delta = 0.9 with 95% confidence: b") for s in sentences)


def test_fixed_budget_headline_skips_a_metric_that_does_not_separate():
    extra = {s: {r: {"false_negative": f} for r in range(10)} for s, f in (("a", 0.1), ("b", 0.3))}
    data = data_of({"a": [10] * 10, "b": [10] * 10}, fixed_budget=True, extra=extra)
    data.points[0]["results"][0]["false_negative_rate"] = 0.1
    data.points[0]["results"][1]["false_negative_rate"] = 0.3
    assert headline_metric(data) == "false_negative_rate"  # every run correct: correct_rate tells nothing
    assert "Lowest false-negative rate: a" in summary_sentences(data)[1]


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
