"""Automatic model selection on the red-wine quality data with scikit-learn (section 6.2 of
Hoffman, Shahriari and de Freitas 2014).

Arms are 160 regression models (the paper's grid); pulling an arm draws a random training set
and a disjoint random test set of 10% of the rows each, fits the model and returns minus its
test RMSE.  The prior correlation is a squared-exponential kernel with the paper's unit length
scale, ``exp(-|c - c'|^2)`` (``lengthscale = 1 / sqrt(2)`` in scikit-learn's convention, which
:func:`pybai.models.kernels.rbf_covariance` follows), within each model class (zero across classes).

Choices where the paper is silent or current scikit-learn differs (documented):

* ``min_samples_split = 1`` is rejected by scikit-learn (>= 2); we use 2.  With
  ``min_samples_leaf >= 2`` a node needs >= 4 samples to split anyway, so 1, 2 and 3 give
  identical forests and nothing changes.
* "linSVM" is ``SVR(kernel="linear")`` and "rbfSVM" ``SVR(kernel="rbf")``; the paper's
  "tolerance parameter epsilon" is SVR's ``epsilon`` (the width of the insensitive tube).
* Kernel coordinates of a model: the position of each hyper-parameter value in its grid
  (0, 1, 2, ...), so neighbouring grid values have correlation ``e^-1``.
* Features are standardised with the training split's mean and std (without it the RBF SVR's
  gamma grid and k-NN distances are dominated by the sulfur-dioxide columns); pass
  ``standardize=False`` for raw features.
* Random forests are seeded from the generator of the pull; one job each.
* The paper gives no noise level or prior scale for this experiment: ``sigma`` and ``eta`` are
  explicit arguments of :func:`wine_environment_kwargs`.
"""

from __future__ import annotations

import csv
import io
import itertools
import math
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pybai._validation import fail, read_user_text
from pybai.models.kernels import rbf_covariance

__all__ = ["ModelSpec", "wine_model_grid", "model_class_covariance", "load_wine", "make_wine_reward",
           "wine_environment_kwargs", "estimate_wine_rmse", "wine_reference_means", "WINE_FILE", "WINE_RMSE_FILE"]

WINE_FILE = "winequality-red.csv"
#: estimated "ground truth" RMSE per model (:func:`estimate_wine_rmse`), shipped in pybai/data
WINE_RMSE_FILE = "wine-model-rmse.csv"

_OWNER = "wine model selection"

# (class, {hyper-parameter: grid}) in the order of section 6.2.
_GRIDS: tuple[tuple[str, dict[str, tuple]], ...] = (
    ("lasso", {"alpha": (0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5)}),
    ("random-forest", {
        "n_estimators": (1, 10, 100, 1000),
        "min_samples_split": (2, 3, 5, 7),  # paper: (1, 3, 5, 7); see the module docstring
        "min_samples_leaf": (2, 6, 10, 14),
    }),
    ("linear-svr", {"C": (0.001, 0.01, 0.1, 1.0), "epsilon": (0.0001, 0.001, 0.01, 0.1)}),
    ("rbf-svr", {
        "C": (0.001, 0.01, 0.1, 1.0),
        "epsilon": (0.0001, 0.001, 0.01, 0.1),
        "gamma": (0.025, 0.05, 0.1, 0.2),
    }),
    ("knn", {"n_neighbors": (1, 3, 5, 7, 9, 11, 13, 15)}),
)


@dataclass(frozen=True)
class ModelSpec:
    """One arm: a model class, its hyper-parameters and its kernel coordinates (grid positions)."""

    model_class: str
    params: dict
    coords: tuple[int, ...]

    def build(self, seed: int | None = None):
        """A fresh unfitted scikit-learn estimator (scikit-learn: the ``wine`` extra)."""
        try:
            from sklearn.ensemble import RandomForestRegressor
            from sklearn.linear_model import Lasso
            from sklearn.neighbors import KNeighborsRegressor
            from sklearn.svm import SVR
        except ImportError:
            raise ImportError("the wine model-selection data set fits scikit-learn models, which is not installed: "
                              "pip install 'pybai[wine]' (or pip install scikit-learn).") from None

        if self.model_class == "lasso":
            return Lasso(max_iter=10000, **self.params)
        if self.model_class == "random-forest":
            return RandomForestRegressor(random_state=seed, n_jobs=1, **self.params)
        if self.model_class == "linear-svr":
            return SVR(kernel="linear", **self.params)
        if self.model_class == "rbf-svr":
            return SVR(kernel="rbf", **self.params)
        return KNeighborsRegressor(**self.params)

    @property
    def label(self) -> str:
        return self.model_class + "(" + ", ".join(f"{k}={v}" for k, v in self.params.items()) + ")"


def wine_model_grid() -> list[ModelSpec]:
    """The 160 models of section 6.2: Lasso 8, random forests 64, linear SVR 16, RBF SVR 64, k-NN 8."""
    out = []
    for name, grid in _GRIDS:
        keys = list(grid)
        for idx in itertools.product(*(range(len(grid[k])) for k in keys)):
            out.append(ModelSpec(name, {k: grid[k][i] for k, i in zip(keys, idx)}, tuple(idx)))
    return out


#: The paper's unit length scale ``exp(-|c - c'|^2)`` in scikit-learn's convention ``exp(-|c - c'|^2 / (2 l^2))``.
PAPER_LENGTHSCALE = 1.0 / math.sqrt(2.0)


def model_class_covariance(grid=None, lengthscale: float = PAPER_LENGTHSCALE) -> np.ndarray:
    """Block-diagonal prior covariance: ``exp(-|c - c'|^2 / (2 lengthscale^2))`` within a model class.

    Coordinates ``c`` are grid positions (:class:`ModelSpec`); models of different classes are
    uncorrelated.
    """
    specs = wine_model_grid() if grid is None else list(grid)
    n = len(specs)
    cov = np.zeros((n, n))
    classes = [s.model_class for s in specs]
    for name in dict.fromkeys(classes):
        members = np.array([i for i, c in enumerate(classes) if c == name])
        points = np.array([specs[i].coords for i in members], dtype=float)
        cov[np.ix_(members, members)] = rbf_covariance(points, lengthscale)
    return cov


def load_wine(path=None) -> tuple[np.ndarray, np.ndarray]:
    """Features (n x 11) and quality scores (n,) of ``winequality-red.csv`` (';'-separated; default
    the copy shipped with pybai)."""
    if path is None:
        from pybai.datasets._files import data_file

        path = data_file(WINE_FILE)
    file = Path(path)
    if not file.is_file():
        raise fail("path", _OWNER, "an existing CSV file", str(path))
    rows = list(csv.reader(io.StringIO(read_user_text(file, "a CSV file")), delimiter=";"))
    try:
        data = np.array([[float(v) for v in row] for row in rows[1:] if row], dtype=float)
    except ValueError as exc:
        raise fail("path", _OWNER, f"a ';'-separated table of numbers with a header ({exc})", str(path)) from None
    if data.ndim != 2 or data.shape[0] < 20 or data.shape[1] < 2:
        raise fail("path", _OWNER, "at least 20 rows of features and a last column of scores", str(path))
    return data[:, :-1], data[:, -1]


def make_wine_reward(path=None, *, arms=None, train_fraction: float = 0.1, test_fraction: float = 0.1,
                     standardize: bool = True):
    """Reward function ``f(arm, rng) = -RMSE`` of model ``arm`` on a fresh random split.

    Parameters
    ----------
    path : str or Path, optional
        ``winequality-red.csv`` (default: the shipped copy).
    arms : list of ModelSpec, optional
        Default :func:`wine_model_grid`.
    train_fraction, test_fraction : float
        Sizes of the disjoint random training and test sets (10% each in the paper).
    standardize : bool, default True
        Scale features with the training split's statistics.

    Returns
    -------
    callable ``f(arm: int, rng: numpy.random.Generator) -> float``
        For :class:`pybai.environments.from_callable.CallableEnvironment` (``"module:function"``
        form: ``function = "pybai.datasets.wine:make_wine_reward"``, optionally with ``params``).
    """
    X, y = load_wine(path)
    specs = wine_model_grid() if arms is None else list(arms)
    n = X.shape[0]
    if not (0.0 < train_fraction < 1.0 and 0.0 < test_fraction < 1.0 and train_fraction + test_fraction <= 1.0):
        raise fail("train_fraction", _OWNER, "fractions in (0, 1) with train + test <= 1",
                   (train_fraction, test_fraction))
    n_train = max(2, int(round(train_fraction * n)))
    n_test = max(1, int(round(test_fraction * n)))

    def reward(arm: int, rng: np.random.Generator) -> float:
        spec = specs[arm]
        order = rng.permutation(n)
        train, test = order[:n_train], order[n_train:n_train + n_test]
        x_train, x_test = X[train], X[test]
        if standardize:
            center = x_train.mean(axis=0)
            scale = x_train.std(axis=0)
            scale[scale == 0.0] = 1.0
            x_train, x_test = (x_train - center) / scale, (x_test - center) / scale
        model = spec.build(seed=int(rng.integers(2**31 - 1)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # convergence warnings of tiny-alpha Lasso / SVR
            model.fit(x_train, y[train])
            pred = model.predict(x_test)
        return -math.sqrt(float(np.mean((pred - y[test]) ** 2)))

    reward.arms = specs  # type: ignore[attr-defined]  # the model grid travels with the reward function
    return reward


def wine_environment_kwargs(path, *, sigma: float, eta: float, prior_mean: float = 0.0) -> dict:
    """Keyword arguments of ``CallableEnvironment`` for the 160-model problem.

    ``sigma`` (noise of one pull) and ``eta`` (prior scale) are not given by the paper.
    """
    grid = wine_model_grid()
    return {
        "function": "pybai.datasets.wine:make_wine_reward",
        "params": {"path": str(path)},
        "n_arms": len(grid),
        "covariance": model_class_covariance(grid),
        "sigma": sigma,
        "eta": eta,
        "prior_mean": prior_mean,
    }


def estimate_wine_rmse(pulls: int = 5, seed: int = 0, path=None) -> np.ndarray:
    """Estimated "ground truth" test RMSE of every model: the mean over ``pulls`` random splits.

    The paper's Figure 4 plots such an estimate; its number of splits is not given.  The shipped
    ``wine-model-rmse.csv`` was made with the defaults (``benchmarks/wine_reference_rmse.py``):
    5 splits per model, about 2 minutes of CPU (random forests of 1000 trees
    dominate).
    """
    reward = make_wine_reward(path)
    rng = np.random.default_rng(seed)
    K = len(reward.arms)
    return np.array([-np.mean([reward(k, rng) for _ in range(pulls)]) for k in range(K)])


def wine_reference_means(path=None) -> np.ndarray:
    """Minus the shipped RMSE estimates (one per model): the reference truth of the AutoML runs."""
    if path is None:
        from pybai.datasets._files import data_file

        path = data_file(WINE_RMSE_FILE)
    rows = list(csv.reader(io.StringIO(read_user_text(path, "a CSV file"))))
    return -np.array([float(row[2]) for row in rows[1:] if row], dtype=float)
