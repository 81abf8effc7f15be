"""The count-dependent pair rule on the shifted pieces {lambda_a <= c lambda_b - e} of epsilon-best-arm
identification: the certified infimum against a brute-force minimisation over the piece."""

import math

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import log_ndtr

from pybai.models._kl import pair_cost
from pybai.models._shifted import shifted_pair_cost
from pybai.stopping._pair_mixture_kernels import beta_regret, pair_margin

ONE = np.array([4.0])


def _log_m(n, y, v, c):
    """ln of the one-sided half-normal mixture at deviation y (closed form of the module docstring)."""
    a = n * n / (2.0 * v * (n + c))
    k = n / math.sqrt(v * (n + c))
    return a * y * y + log_ndtr(k * y) + math.log(2.0) - 0.5 * math.log1p(n / c)


@pytest.mark.parametrize("slope,offset", [(1.0, 0.2), (0.8, 0.0), (0.9, 0.05)])
def test_gaussian_shifted_margin_equals_brute_force(slope, offset):
    rng = np.random.default_rng(2)
    for _ in range(5):
        na, nb = rng.integers(3, 200, 2).astype(float)
        xa, xb = rng.uniform(0.5, 1.5), rng.uniform(0.3, 1.5)
        va, vb = rng.uniform(0.3, 2.0, 2)
        if not xa + offset > slope * xb:
            continue
        f = lambda z: _log_m(na, xa - z[0], va, ONE[0]) + _log_m(nb, z[1] - xb, vb, ONE[0])
        cons = [{"type": "ineq", "fun": lambda z: slope * z[1] - offset - z[0]}]
        best = min(minimize(f, s0, constraints=cons, method="SLSQP", options={"ftol": 1e-14}).fun
                   for s0 in ((xb * slope - offset, xb), (xa, (xa + offset) / slope), (0.0, 0.0)))
        got = pair_margin(0, na, xa, va, nb, xb, vb, 0.0, 0.5, 0.0, ONE, 0.25, True, slope, offset)
        assert got == pytest.approx(best, abs=1e-6)


def test_bernoulli_beta_term_uses_the_shifted_cost():
    na, xa, nb, xb = 40.0, 0.6, 30.0, 0.55
    got = pair_margin(1, na, xa, 0.25, nb, xb, 0.25, 1.0, 0.5, 1.0, np.empty(0), 0.25, True, 1.0, 0.1)
    want = shifted_pair_cost(1, na, xa, 0.25, nb, xb, 0.25, 1.0, 0.1) - beta_regret(na * xa, na, 0.5) \
        - beta_regret(nb * xb, nb, 0.5) - 1.0
    assert got == pytest.approx(want, rel=1e-12)
    assert shifted_pair_cost(1, na, xa, 0.25, nb, xb, 0.25, 1.0, 0.1) > pair_cost(1, na, xa, 0.25, nb, xb, 0.25)


def test_a_tie_passes_a_shifted_piece_never_the_plain_one():
    scales = np.exp(2.0 * np.arange(8))
    # a tie passes a shifted piece once the counts are large enough, never the plain one
    assert pair_margin(0, 4000.0, 1.0, 1.0, 4000.0, 1.0, 1.0, math.log(20), 0.5, 0.0, scales, 0.25, True,
                       1.0, 0.2) > 0.0
    assert pair_margin(0, 4000.0, 1.0, 1.0, 4000.0, 1.0, 1.0, math.log(20), 0.5, 0.0, scales, 0.25, True,
                       1.0, 0.0) == -math.inf
