"""Real data sets turned into fixed-budget problems (loaders take the CSV path).

scikit-learn is imported only when a wine model is built.
"""

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
    "CorrelatedDataset",
    "load_flight_delays",
    "ModelSpec",
    "load_wine",
    "make_wine_reward",
    "model_class_covariance",
    "wine_environment_kwargs",
    "wine_model_grid",
]
