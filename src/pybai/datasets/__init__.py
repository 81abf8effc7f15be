"""Real data sets turned into fixed-budget problems (loaders take a CSV path; by default the
copy shipped as package data in ``pybai/data``, see :func:`data_file`).

scikit-learn is imported only when a wine model is built.
"""

from pybai.datasets._files import data_file

from pybai.datasets.flights import CorrelatedDataset, load_flight_delays
from pybai.datasets.wine import (
    ModelSpec,
    load_wine,
    make_wine_reward,
    model_class_covariance,
    wine_environment_kwargs,
    wine_model_grid,
)

__all__ = [
    "data_file",
    "CorrelatedDataset",
    "load_flight_delays",
    "ModelSpec",
    "load_wine",
    "make_wine_reward",
    "model_class_covariance",
    "wine_environment_kwargs",
    "wine_model_grid",
]
