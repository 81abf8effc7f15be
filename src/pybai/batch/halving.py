r"""The schedule of Halving (Algorithm 4 of Jun, Jamieson, Nowak & Zhu 2016): stage budgets, keep sizes.

:math:`L = \lceil \log_2(n/k) \rceil` stages; stage s pulls its surviving arms by RoundRobin
for its share of the budget, then keeps the :math:`\max\{\lceil |S_s|/2 \rceil, \lceil b/r
\rceil, k\}` arms with the largest empirical means; the answer is the empirical top-k of the
last survivors.

Stage budgets: :math:`\lfloor B/L \rfloor` batches each, and the :math:`B - L\lfloor B/L
\rfloor` remaining batches spread over distinct stages, chosen at random with ``rng``
(section 5.2: "we randomly spread out the remaining budget over stages"), else the first
stages.  Two documented changes make the algorithm well defined:

* if :math:`\lfloor B/L \rfloor` batches cannot pull every arm once (:math:`\lceil n/b
  \rceil` batches), stage 1 gets :math:`c_0 = \lceil n/b \rceil` batches and the other
  :math:`B - c_0` are spread as above over the L stages (the paper's B = 100 runs on n =
  12,979 arms would otherwise rank arms never pulled);
* the keep size is at least k: the paper's :math:`\lceil |S|/2 \rceil` rule can end below k
  (n = 12,979, k = 100: 51 arms after 8 halvings), and its output :math:`S_{L+1}` can hold
  more than k arms (when :math:`\lceil b/r \rceil > k`); hence the final empirical top-k.

This is not Karnin et al.'s sequential halving (``sequential-halving``, best arm): there each
round gives every survivor the same number of pulls and ranks by the round's own samples.
"""

from __future__ import annotations

import math

import numpy as np

from pybai.batch.round_robin import check_cover_budget, min_batches_to_cover

__all__ = ["halving_stage_budgets", "halving_keep"]


def halving_stage_budgets(n_arms: int, k: int, size: int, max_repeats: int, budget, rng=None,
                          owner: str = "") -> np.ndarray:
    """Batches of each of the L stages (they add up to ``budget``; see the module docstring).

    ``rng`` (a numpy Generator) spreads the remainder over random stages, None over the first
    ones.  A budget below the batches that pull every arm once is refused (naming ``budget``).

    Examples
    --------
    >>> halving_stage_budgets(100, 10, 16, 4, 402).tolist()
    [101, 101, 100, 100]
    """
    budget = check_cover_budget(budget, n_arms, size, max_repeats, owner)
    n_stages = max(1, math.ceil(math.log2(n_arms / k)))
    cover = min_batches_to_cover(n_arms, size, max_repeats)
    base = budget // n_stages
    first = 0
    if base < cover:
        first = cover
        base = (budget - cover) // n_stages
    spread = budget - first - base * n_stages
    stages = np.full(n_stages, base, dtype=np.int64)
    stages[0] += first
    if spread:
        pick = rng.choice(n_stages, spread, replace=False) if rng is not None else np.arange(spread)
        stages[pick] += 1
    return stages


def halving_keep(n_survivors: int, size: int, max_repeats: int, k: int) -> int:
    """Arms kept at the end of a stage: max(ceil(|S|/2), ceil(b/r), k)."""
    return max(-(-n_survivors // 2), -(-size // max_repeats), k)
