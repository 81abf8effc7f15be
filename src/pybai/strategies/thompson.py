"""Thompson sampling on the posterior over correlated arm means (a baseline of Hoffman et al. 2014)."""

from __future__ import annotations

import numpy as np

from pybai.fixed_budget.indices import thompson_draw
from pybai.strategies._fixed_budget import PosteriorRule
from pybai.strategies.registry import register

__all__ = ["ThompsonSampling"]


@register
class ThompsonSampling(PosteriorRule):
    """Pull the argmax of one joint posterior draw (drawn with the strategy's generator);
    recommend the best posterior mean."""

    name = "thompson"

    def _select(self):
        return int(np.argmax(thompson_draw(self.model_.estimate, self.model_.root, self.rng_)))
