"""Linear-bandit instances of the reproduction (Soare, Lazaric & Munos 2014).

* :func:`soare_environment`: the section 6 instance -- the canonical basis e_1..e_d plus
  x_{d+1} = (cos w, sin w, 0, ..., 0), theta = (2, 0, ..., 0); the best arm is e_1 and the
  hardest competitor x_{d+1} (gap 2(1 - cos w)), best told apart by sampling e_2.
* :func:`wine_environment`: the red-wine quality data (Cortez et al. 2009, 1,599 wines): each
  wine is an arm with its 11 physico-chemical features standardised (mean 0, sample standard
  deviation 1) plus an intercept (d = 12); theta is the least-squares fit of the quality score
  and sigma the residual standard deviation sqrt(RSS / (n - d)) (about 0.65).
"""

from __future__ import annotations

import csv
import io
import math

import numpy as np

from pybai._validation import check_memory, check_positive_float, check_positive_int, fail, read_user_text
from pybai.exceptions import InvalidParameterError
from pybai.environments.linear import LinearGaussianEnvironment

__all__ = ["soare_features", "soare_environment", "load_wine", "wine_data_path", "wine_environment"]


def soare_features(d: int, omega: float = 0.01) -> np.ndarray:
    """The (d + 1) x d arms of section 6: e_1, ..., e_d and (cos omega, sin omega, 0, ...)."""
    d = check_positive_int(d, "d", "soare_features", minimum=2)
    check_memory(8 * (d + 1) * d, "d", "soare_features", "the (d + 1) x d features", d)
    omega = check_positive_float(omega, "omega", "soare_features")
    extra = np.zeros(d)
    extra[0], extra[1] = math.cos(omega), math.sin(omega)
    return np.vstack([np.eye(d), extra])


def soare_environment(d: int = 5, omega: float = 0.01, sigma: float = 1.0) -> LinearGaussianEnvironment:
    """Section 6 instance: :func:`soare_features` with theta = (2, 0, ..., 0) and noise N(0, sigma^2)."""
    x = soare_features(d, omega)
    theta = np.zeros(d)
    theta[0] = 2.0
    return LinearGaussianEnvironment(x, theta, sigma)


def load_wine(path) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Read the ';'-separated red-wine csv: (features K x 12, quality K, feature names).

    Features: the 11 columns before ``quality``, standardised with the sample standard
    deviation (ddof = 1), then a final intercept column of ones.
    """
    try:
        text = read_user_text(path, "a ';'-separated csv file")
    except InvalidParameterError as exc:
        raise fail("path", "load_wine", f"a readable csv file ({exc})", str(path)) from None
    rows = list(csv.reader(io.StringIO(text), delimiter=";"))
    if len(rows) < 3 or "quality" not in rows[0]:
        raise fail("path", "load_wine", "a ';'-separated csv with a 'quality' column", str(path))
    header = [h.strip() for h in rows[0]]
    data = np.array([[float(v) for v in r] for r in rows[1:] if r], dtype=float)
    q = header.index("quality")
    raw = np.delete(data, q, axis=1)
    names = [h for i, h in enumerate(header) if i != q]
    z = (raw - raw.mean(axis=0)) / raw.std(axis=0, ddof=1)
    return np.hstack([z, np.ones((z.shape[0], 1))]), data[:, q], names + ["intercept"]


def wine_data_path():
    """The red-wine csv shipped with pybai (``pybai/data/winequality-red.csv``, CC BY 4.0)."""
    from importlib.resources import files

    return files("pybai") / "data" / "winequality-red.csv"


def wine_environment(path=None) -> LinearGaussianEnvironment:
    """The red-wine instance: theta = least-squares fit of quality, sigma = residual sd.

    ``path`` defaults to the copy shipped with the package (:func:`wine_data_path`).
    """
    x, quality, _ = load_wine(wine_data_path() if path is None else path)
    theta, *_ = np.linalg.lstsq(x, quality, rcond=None)
    resid = quality - x @ theta
    sigma = float(np.sqrt(resid @ resid / (x.shape[0] - x.shape[1])))
    return LinearGaussianEnvironment(x, theta, sigma)
