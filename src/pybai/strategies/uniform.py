"""Uniform sampling: round robin over the sources, GLR stopping."""

from __future__ import annotations

import numpy as np

from pybai.strategies.base import Strategy
from pybai.strategies.registry import register

__all__ = ["Uniform"]


@register
class Uniform(Strategy):
    """Sample the least-sampled request (lowest index on ties): a round robin.

    The baseline of every fixed-confidence comparison: same GLR stopping rule and
    threshold as the adaptive strategies, no adaptivity in the sampling.

    Parameters
    ----------
    threshold : {"heuristic", "delta-correct"}, default "heuristic"
    n_init : int, default 1
    """

    name = "uniform"
    goals = ("best-arm",)

    def _select(self):
        return int(np.argmin(self.problem_.request_counts(self.counts_)))
