"""Environment kind ``route-delays``: New York flight routes as correlated "sensors" (a stand-in for
the traffic sensors of section 6.1 of Hoffman, Shahriari and de Freitas 2014; docs/bayesgap.md)."""

from __future__ import annotations

from pybai.datasets.flights import load_flight_delays
from pybai.environments.correlated import CorrelatedGaussianEnvironment

__all__ = ["route_delays_environment"]


def route_delays_environment(history_fraction: float = 2.0 / 3.0, noise_fraction: float = 0.05,
                             eta: float = 20.0, path=None) -> CorrelatedGaussianEnvironment:
    """The correlated-arms problem of :func:`pybai.datasets.flights.load_flight_delays` as an environment.

    Truths are the held-out days: replication r plays day ``r mod M``.  The learner knows the
    empirical prior covariance, sigma and eta.
    """
    data = load_flight_delays(path, history_fraction=history_fraction, noise_fraction=noise_fraction, eta=eta)
    return CorrelatedGaussianEnvironment(**data.environment_kwargs())
