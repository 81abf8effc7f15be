r"""The heuristic threshold :math:`\ln((1 + \ln t)/\delta)` (not proven delta-correct).

The threshold used in the *experiments* of Garivier & Kaufmann (2016) and much of the
follow-up literature.

References
----------
.. [GK16] A. Garivier and E. Kaufmann. Optimal best arm identification with
   fixed confidence. COLT 2016.
"""

from __future__ import annotations

import math

from pybai.stopping.base import LogLogThreshold

__all__ = ["HeuristicThreshold"]


class HeuristicThreshold(LogLogThreshold):
    r"""Heuristic threshold :math:`\beta(t, \delta) = \ln\big((1 + \ln t)/\delta\big)`.

    Used in the experiments of Garivier & Kaufmann (2016) and much of the
    follow-up literature.  It is **not** proven delta-correct; it is
    typically much smaller than the proven thresholds and empirical error
    rates stay far below ``delta`` with it.

    Parameters
    ----------
    delta : float
        Risk level in ``(0, 1)``.
    """

    name = "heuristic"
    proven = False

    def __init__(self, delta: float):
        super().__init__(delta)
        self._finish(const=-math.log(self.delta), coef=1.0, shift=1.0, scale=1.0)
