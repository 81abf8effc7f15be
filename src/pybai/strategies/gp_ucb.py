"""GP-UCB (Srinivas et al. 2010) on the posterior over correlated arm means."""

from __future__ import annotations

import numpy as np

from pybai._validation import check_positive_float, check_probability
from pybai.fixed_budget.indices import gp_ucb_beta, gp_ucb_index
from pybai.strategies._fixed_budget import PosteriorRule
from pybai.strategies.registry import register

__all__ = ["GPUCB"]


@register
class GPUCB(PosteriorRule):
    """Pull ``argmax mu_hat + sqrt(beta_t) sigma_hat``, ``beta_t = beta_scale 2 log(K t^2 pi^2 / (6 delta))``;
    recommend the best posterior mean.

    Parameters
    ----------
    delta : float in (0, 1), default 0.1
    beta_scale : float > 0, default 1.0
    """

    name = "gp-ucb"

    def __init__(self, *, delta: float = 0.1, beta_scale: float = 1.0, threshold: str | None = None,
                 n_init: int = 1):
        super().__init__(threshold=threshold, n_init=n_init)
        self.delta = delta
        self.beta_scale = beta_scale

    def _check_params(self, problem):
        super()._check_params(problem)
        check_probability(self.delta, "delta", type(self).__name__)
        check_positive_float(self.beta_scale, "beta_scale", type(self).__name__)

    def _select(self):
        m = self.model_
        beta = gp_ucb_beta(self.t_ + 1, m.n_sources, self.delta, self.beta_scale)
        return int(np.argmax(gp_ucb_index(m.estimate, m.std, beta)))
