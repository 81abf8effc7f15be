"""pybai: best-arm identification (pure-exploration bandits).

Reference strategies with exact GLR stopping rules and oracles, Monte Carlo
simulation with reproducible seeding, and a command-line tool (``pybai``).

Examples
--------
>>> import numpy as np
>>> from pybai import BestArmProblem, Gaussian, FixedConfidence, TrackAndStop, GaussianEnvironment
>>> env = GaussianEnvironment([1.0, 0.8, 0.5])
>>> problem = BestArmProblem(3, env.family(), FixedConfidence(delta=0.05))
>>> strategy = TrackAndStop().start(problem, rng=1)
>>> rng = np.random.default_rng(2)
>>> while not strategy.stopped:
...     arms = strategy.ask()
...     strategy.tell(arms, env.sample(arms, rng))
>>> strategy.recommendation()
0
"""

__version__ = "0.1.0"

from pybai.complexity import complexity_report
from pybai.config import Experiment, load_experiment, parse_experiment
from pybai.environments import BernoulliEnvironment, Environment, GaussianEnvironment
from pybai.environments import SubpopulationGaussianEnvironment
from pybai.exceptions import (
    ConfigError,
    BatchLimitError,
    DegenerateInstanceError,
    InvalidParameterError,
    PybaiError,
    RequestError,
    PybaiWarning,
    SessionStateError,
)
from pybai.models import Bernoulli, EmpiricalMeans, Family, Gaussian, Model
from pybai.problems import BatchSpec, BestArmProblem, FixedBudget, FixedConfidence, Problem
from pybai.problems import FeasibleArmProblem
from pybai.result import RunResult
from pybai.simulate import run_experiment, run_replication
from pybai.stopping.thresholds import make_threshold
from pybai.strategies import (
    LUCB,
    GameSampling,
    Strategy,
    TopTwo,
    TrackAndStop,
    Uniform,
)
from pybai.strategies import (
    ConstrainedTrackAndStop,
    get_strategy_class,
    make_strategy,
    registered_names,
)
from pybai.strategies.state import restore_strategy

__all__ = [
    "__version__",
    # problems and models
    "Problem",
    "BestArmProblem",
    "FeasibleArmProblem",
    "FixedConfidence",
    "FixedBudget",
    "BatchSpec",
    "Family",
    "Gaussian",
    "Bernoulli",
    "Model",
    "EmpiricalMeans",
    # environments
    "Environment",
    "GaussianEnvironment",
    "BernoulliEnvironment",
    "SubpopulationGaussianEnvironment",
    # strategies
    "Strategy",
    "Uniform",
    "TrackAndStop",
    "ConstrainedTrackAndStop",
    "LUCB",
    "GameSampling",
    "TopTwo",
    "get_strategy_class",
    "make_strategy",
    "registered_names",
    "restore_strategy",
    "make_threshold",
    # experiments and simulation
    "Experiment",
    "load_experiment",
    "parse_experiment",
    "run_experiment",
    "run_replication",
    "complexity_report",
    "RunResult",
    # errors
    "PybaiError",
    "InvalidParameterError",
    "ConfigError",
    "SessionStateError",
    "RequestError",
    "BatchLimitError",
    "DegenerateInstanceError",
    "PybaiWarning",
]
