"""The report's summary (pybai.report.verdict): what was compared, who comes first, how sure.

Built on hand-made outcomes, so every sentence can be checked against a number computed here.
"""

import math

import numpy as np
import pytest

from pybai.report.intervals import Z95
from pybai.report.registry import FigureData
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
