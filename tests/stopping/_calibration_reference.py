"""Independent reference implementations of the calibration functions (brentq / brute force, no lambertw).

Shared by tests/stopping/test_calibration.py and tests/stopping/test_kk21.py.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy.optimize import brentq
from scipy.special import zeta


def ref_h_inv(x: float) -> float:
    """u >= 1 with u - ln u = x, by brentq on v - log1p(v) = x - 1 (v = u - 1)."""
    eps = x - 1.0
    if eps == 0.0:
        return 1.0
    return 1.0 + brentq(lambda v: v - math.log1p(v) - eps, 0.0, max(2.0, 2.0 * x),
                        xtol=1e-300, rtol=1e-15, maxiter=500)


def ref_h_tilde(x: float, z: float = 1.5) -> float:
    """min over y in (1, z] of y (x - ln ln y), by bounded scalar minimisation + grid."""
    ys = np.linspace(1.0 + 1e-12, z, 400_001)
    return float(np.min(ys * (x - np.log(np.log(ys)))))


def ref_c_exp(x: float) -> float:
    """C_exp(x) = 2 htilde_{3/2}((h^{-1}(1+x) + ln(2 zeta(2))) / 2), via brentq."""
    arg = 0.5 * (ref_h_inv(1.0 + x) + math.log(2.0 * float(zeta(2.0, 1.0))))
    z = 1.5
    u = ref_h_inv(arg)
    cut = ref_h_inv(1.0 / math.log(z))  # the conservative cut (see h_tilde)
    boundary = 2.0 * z * (min(arg, cut) - math.log(math.log(z)))
    if arg >= cut:
        return max(2.0 * math.exp(1.0 / u) * u, boundary)
    return boundary


@functools.lru_cache(maxsize=None)
def ref_c_gauss(x: float) -> float:
    """min over lambda in (1/2, 1) of (g_G(lambda) + x)/lambda on a dense grid (vectorised)."""
    lam = np.linspace(0.5 + 1e-7, 1.0 - 1e-9, 2_000_001)
    g = 2 * lam - 2 * lam * np.log(4 * lam) + np.log(zeta(2 * lam, 1.0)) - 0.5 * np.log1p(-lam)
    return float(np.min((g + x) / lam))
