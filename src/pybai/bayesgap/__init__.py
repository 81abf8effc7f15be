"""Decision rules of the fixed-budget correlated-arms family (Hoffman, Shahriari and de Freitas 2014).

Pure, vectorised functions of the current estimates (no state, no environment): BayesGap and
UGapEb (:mod:`.gap`), the index and acquisition baselines (:mod:`.indices`), the elimination
schedules (:mod:`.schedules`) and the performance measures (:mod:`.metrics`).  Strategies wrap
them; this package imports neither environments nor simulation code.
"""

from pybai.bayesgap.gap import (
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
from pybai.bayesgap.indices import (
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
from pybai.bayesgap.metrics import error_probability_epsilon, simple_regret
from pybai.bayesgap.schedules import (
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
    "error_probability_epsilon",
    "simple_regret",
    "keep_top_half",
    "log_bar",
    "phase_requests",
    "reject_worst",
    "sequential_halving_schedule",
    "successive_rejects_lengths",
    "successive_rejects_schedule",
]
