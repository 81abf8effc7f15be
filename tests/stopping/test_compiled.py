"""Stopping rules as compiled loops read them (stopping/compiled.py): the same numbers as in Python."""

from __future__ import annotations

import numpy as np
import pytest

from pybai import BestArmProblem, FixedConfidence, Gaussian
from pybai.exceptions import InvalidParameterError
from pybai.stopping.compiled import PAIR_MIXTURE, T_ONLY, compile_rule, threshold_value
from pybai.stopping.heuristic import HeuristicThreshold
from pybai.stopping.pair_mixture import BernoulliPairMixtureThreshold, GaussianPairMixtureThreshold
from pybai.stopping.rule import StoppingRule
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


def test_the_compiled_form_of_the_per_pair_rules():
    """The t-only rows are the fallback's form; the rest is what min_margin passes to its kernel."""
    gauss = GaussianPairMixtureThreshold(0.05, 4)
    rule = compile_rule([gauss])
    assert rule.kind == PAIR_MIXTURE and rule.times[0].tolist() == gauss.fallback.compiled_form().tolist()
    assert rule.level.tolist() == [gauss.level] and rule.min_statistic.tolist() == [gauss.min_statistic]
    assert rule.scales.tolist() == list(gauss._scales) and rule.one_sided and rule.code == 0
    bern_rule = BernoulliPairMixtureThreshold(0.05, 4)
    bern = compile_rule([bern_rule])
    assert bern.times[0].tolist() == bern_rule.fallback.compiled_form().tolist()  # the KT t-only threshold
    assert (bern.code, bern.alpha, bern.w_beta) == (1, 0.5, 0.5)
    assert compile_rule([HeuristicThreshold(0.1)]).kind == T_ONLY


def test_rows_must_be_crossed_in_order():
    """From the lowest: t-only thresholds by value, per-pair rules by level; never mixed."""
    low, high = HeuristicThreshold(0.1), HeuristicThreshold(0.01)
    assert compile_rule([low, high]) is not None and compile_rule([high, low]) is None
    p_low, p_high = GaussianPairMixtureThreshold(0.1, 4), GaussianPairMixtureThreshold(0.01, 4)
    rule = compile_rule([p_low, p_high])
    assert rule is not None and rule.times.shape == (2, 5) and rule.level.shape == (2,)
    assert compile_rule([p_high, p_low]) is None
    assert compile_rule([p_low, GaussianPairMixtureThreshold(0.01, 4, one_sided=False)]) is None
    assert compile_rule([low, p_high]) is None


def test_a_stopping_rule_carries_its_deltas_and_declares_what_it_is():
    problem = BestArmProblem(3, Gaussian(1.0, n_sources=3), FixedConfidence(0.1))
    rule = StoppingRule.of(problem, "delta-correct", [0.1, 0.01, 0.001])
    assert rule.deltas == (0.1, 0.01, 0.001) and rule.count_dependent and rule.proven
    assert rule.compiled().level.shape == (3,)
    plain = StoppingRule.of(problem, "heuristic", [0.1])
    assert not plain.count_dependent and not plain.proven and plain.compiled().kind == T_ONLY
    with pytest.raises(InvalidParameterError, match="thresholds"):
        StoppingRule([HeuristicThreshold(0.1), GaussianPairMixtureThreshold(0.01, 2)])
