"""Thresholds as compiled loops read them (stopping/compiled.py): the same numbers as in Python."""

from __future__ import annotations

import numpy as np

from pybai.stopping.compiled import PAIR_FLAG, PAIR_LEVEL, compiled_rows, threshold_value
from pybai.stopping.heuristic import HeuristicThreshold
from pybai.stopping.pair_mixture import BernoulliPairMixtureThreshold, GaussianPairMixtureThreshold
from pybai.stopping.thresholds import make_threshold


def test_threshold_value_is_the_python_call_bit_for_bit():
    ts = np.unique(np.round(np.geomspace(1.0, 1e8, 300)))
    for kind in ("heuristic", "kk21"):
        for delta in (0.3, 0.01, 1e-6):
            th = make_threshold(kind, delta, n_alternatives=4, n_terms=2, family="gaussian")
            form = th.compiled_form()
            assert [threshold_value(form, float(t)) for t in ts] == [th(float(t)) for t in ts]
    for delta in (0.3, 0.01, 1e-6):  # the plain-log shape of the Krichevsky-Trofimov threshold
        for n_terms in (1, 2, 3):
            th = make_threshold("kt-mixture", delta, n_alternatives=4, n_terms=n_terms, family="bernoulli")
            form = th.compiled_form()
            assert [threshold_value(form, float(t)) for t in ts] == [th(float(t)) for t in ts]


def test_rows_of_the_per_pair_rules():
    """The t-only part is the fallback's form (NaN without one); the rest is what min_margin passes."""
    gauss = GaussianPairMixtureThreshold(0.05, 4)
    row = compiled_rows([gauss])[0]
    assert row[:5].tolist() == gauss.fallback.compiled_form().tolist()
    assert row[PAIR_FLAG] == 1.0 and row[PAIR_LEVEL] == gauss.level
    assert row[14:].tolist() == list(gauss._scales)
    bern_rule = BernoulliPairMixtureThreshold(0.05, 4)
    bern = compiled_rows([bern_rule])[0]
    assert bern[:5].tolist() == bern_rule.fallback.compiled_form().tolist()  # the KT t-only threshold
    assert compiled_rows([HeuristicThreshold(0.1)])[0, PAIR_FLAG] == 0.0


def test_rows_must_be_crossed_in_order():
    """From the lowest: t-only thresholds by value, per-pair rules by level; never mixed."""
    low, high = HeuristicThreshold(0.1), HeuristicThreshold(0.01)
    assert compiled_rows([low, high]) is not None and compiled_rows([high, low]) is None
    p_low, p_high = GaussianPairMixtureThreshold(0.1, 4), GaussianPairMixtureThreshold(0.01, 4)
    table = compiled_rows([p_low, p_high])
    assert table is not None and table.shape == (2, 22)
    assert compiled_rows([p_high, p_low]) is None
    assert compiled_rows([p_low, GaussianPairMixtureThreshold(0.01, 4, one_sided=False)]) is None
    assert compiled_rows([low, p_high]) is None
