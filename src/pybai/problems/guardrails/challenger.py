r"""The leader and challenger of top-two sampling on a guardrail problem.

Top-two rules for best-arm identification (Jourdan, Degenne, Baudry, de Heide & Kaufmann, "Top Two
Algorithms Revisited", NeurIPS 2022) sample, at each step, one of two arms: the *leader* (the empirical
answer) and the *challenger* (the arm whose piece of the alternative has the smallest transportation
cost, the one the data refute least).  Qin & You ("Dual-directed algorithm design for efficient pure
exploration", Operations Research 2025) state the same principle for general pure-exploration problems:
the candidates are the arms of the piece of the alternative that is least refuted, and information-directed
selection (IDS) picks between them by their shares of that piece's cost.

For the guardrail rule (:mod:`pybai.problems.guardrails.pieces`) the alternative to the empirical answer
h is a union of *items* and an item is refuted when one of its half-space tests is.  The rule's cost of
an item is the largest GLR of its tests (the easiest way to refute it: an arm beaten on the objective, or
one certified past a guardrail, whichever the data show sooner, the principle Cai & Kandasamy (AAAI 2026)
build their constrained rule on).  Here each test's value is signed,

    v_H = sign(g) g^2 / (2 sum_{s in S} sigma_s^2 / N_s),   g = e - (a_1 mu_hat_{s_1} + a_2 mu_hat_{s_2}),

(its positive part is the test's GLR; a negative value says how far inside the test's set the estimate
lies), an item's cost is the largest v_H of its tests and its deciding test the one attaining it.  The
challenger item is the item of smallest cost (plus ``ln N`` of its arm with the TCI penalty), and its
deciding test names the arms to sample: one arm for a test on one source (an arm's mean against a bound),
two for a test on two sources, the *hub* (the answer for an objective test, the control for a relative
guardrail) as the leader and the other arm as the challenger.  The leader's IDS share is its part of the
test's cost at the minimiser, ``(sigma_hub^2 / N_hub) / (sum_{s in S} sigma_s^2 / N_s)`` for a Gaussian
half-space test.
"""

from __future__ import annotations

import math

import numpy as np

from pybai.problems.guardrails.pieces import Tests

__all__ = ["top_two_candidates"]


def signed_values(tests: Tests, counts: np.ndarray, means: np.ndarray, variances: np.ndarray) -> np.ndarray:
    """Per test, sign(g) g^2 / (2 sum sigma_s^2 / N_s) (module docstring); 0 where a source has no sample or its
    variance is not known yet."""
    two = tests.s2 >= 0
    s2 = np.where(two, tests.s2, 0)
    gap = tests.e - (tests.a1 * means[tests.s1] + np.where(two, tests.a2 * means[s2], 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        denom = variances[tests.s1] / counts[tests.s1] + np.where(two, variances[s2] / counts[s2], 0.0)
        out = np.sign(gap) * gap * gap / (2.0 * denom)
    return np.where(np.isfinite(out), out, 0.0)


def top_two_candidates(tests: Tests, counts: np.ndarray, means: np.ndarray, variances: np.ndarray,
                       n_metrics: int, tci: bool) -> tuple[int, int, float]:
    """``(leader, challenger, leader_share)`` arms of the deciding test of the challenger item.

    ``counts``, ``means`` and ``variances`` are per source (flat, ``arm * n_metrics + metric``).  A test on one
    arm gives ``leader == challenger`` and share 1; a test on two gives the hub as the leader and its IDS share.
    With no item (nothing to refute), the least-sampled arm.
    """
    counts = np.asarray(counts, dtype=float)
    n_items = tests.starts.shape[0]
    if n_items == 0:
        arm = int(np.argmin(counts[::n_metrics]))
        return arm, arm, 1.0
    values = signed_values(tests, counts, np.asarray(means, dtype=float), np.asarray(variances, dtype=float))
    bounds = np.append(tests.starts, values.shape[0])
    best_item, best_cost, best_test = -1, math.inf, -1
    for i in range(n_items):
        lo, hi = int(bounds[i]), int(bounds[i + 1])
        j = lo + int(np.argmax(values[lo:hi]))
        cost = float(values[j])
        if tci:
            cost += math.log(max(counts[int(tests.arms[j]) * n_metrics], 1.0))
        if cost < best_cost or best_item < 0:
            best_item, best_cost, best_test = i, cost, j
    s1, s2 = int(tests.s1[best_test]), int(tests.s2[best_test])
    challenger = s1 // n_metrics
    if s2 < 0:
        return challenger, challenger, 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        part1, part2 = variances[s1] / counts[s1], variances[s2] / counts[s2]
        share = float(part2 / (part1 + part2))
    return s2 // n_metrics, challenger, share if math.isfinite(share) else 0.5
