"""Fixed-budget decision rules as pure, vectorised functions of the current estimates.

No state and no environment: strategies (:mod:`pybai.strategies`) wrap them, and this package
imports neither environments nor simulation code.

* :mod:`.schedules`: the elimination schedules of successive rejects (Audibert, Bubeck and
  Munos 2010) and sequential halving (Karnin, Koren and Somekh 2013), and their elimination
  steps;
* :mod:`.indices`: index and acquisition rules, one value per arm (UCB-E, BayesUCB, GP-UCB,
  Thompson sampling, PI, EI);
* :mod:`.gaps`: the gap rules BayesGap (Hoffman, Shahriari and de Freitas 2014) and UGapEb
  (Gabillon, Ghavamzadeh and Lazaric 2012): gap indices, bounds, hardness and exploration
  constants.

The performance measures of a fixed-budget recommendation (simple regret, probability of error
at tolerance epsilon) belong to the problem: :meth:`pybai.problems.base.Problem.simple_regret`
and :meth:`pybai.problems.base.Problem.error_probability_epsilon`.
"""

from pybai.fixed_budget.gaps import (
    GapChoice,
    adaptive_gaps,
    adaptive_hardness,
    arm_gaps,
    bayes_gap_beta,
    bayes_gap_bounds,
    bayes_gap_step,
    gap_choice,
    gap_indices,
    hardness,
    hardness_terms,
    max_other,
    ugap_bounds,
    ugap_exploration,
    update_recommendation,
)
from pybai.fixed_budget.indices import (
    UCBE_C,
    bayes_ucb_index,
    bayes_ucb_level,
    expected_improvement,
    gp_ucb_beta,
    gp_ucb_index,
    independent_hardness,
    probability_of_improvement,
    thompson_draw,
    ucbe_exploration,
    ucbe_index,
)
from pybai.fixed_budget.schedules import (
    keep_top_half,
    log_bar,
    phase_requests,
    reject_worst,
    sequential_halving_schedule,
    successive_rejects_lengths,
    successive_rejects_schedule,
)

__all__ = [
    "GapChoice",
    "adaptive_gaps",
    "adaptive_hardness",
    "arm_gaps",
    "bayes_gap_beta",
    "bayes_gap_bounds",
    "bayes_gap_step",
    "gap_choice",
    "gap_indices",
    "hardness",
    "hardness_terms",
    "max_other",
    "ugap_bounds",
    "ugap_exploration",
    "update_recommendation",
    "UCBE_C",
    "bayes_ucb_index",
    "bayes_ucb_level",
    "expected_improvement",
    "gp_ucb_beta",
    "gp_ucb_index",
    "independent_hardness",
    "probability_of_improvement",
    "thompson_draw",
    "ucbe_exploration",
    "ucbe_index",
    "keep_top_half",
    "log_bar",
    "phase_requests",
    "reject_worst",
    "sequential_halving_schedule",
    "successive_rejects_lengths",
    "successive_rejects_schedule",
]
