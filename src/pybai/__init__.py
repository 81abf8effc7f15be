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

``import pybai`` is cheap: the public names are imported from their modules on first use (a
module ``__getattr__``), so that ``pybai --help`` does not load numba, scipy or SQLAlchemy.
"""

from typing import TYPE_CHECKING

from pybai import _interrupts

_interrupts.at_import()  # in the pybai command only: Ctrl-C while it starts -> one line, status 130
del _interrupts

from pybai import _numba_cache  # noqa: E402

_numba_cache.install()  # numba's caches of pybai's compiled code keyed to every source file it depends on
del _numba_cache

from pybai._version import __version__  # noqa: E402
from pybai.exceptions import (  # noqa: E402
    ConfigError,
    BatchLimitError,
    DegenerateInstanceError,
    InvalidParameterError,
    PybaiError,
    RequestError,
    PybaiWarning,
    RewardModelWarning,
    SessionStateError,
    StorageUnavailableError,
)

if TYPE_CHECKING:  # the names imported lazily (below), for type checkers and readers
    from pybai.complexity import complexity_report
    from pybai.config import Experiment, load_experiment, load_sweep, parse_experiment, parse_sweep
    from pybai.environments import BernoulliEnvironment, BetaEnvironment, BinomialEnvironment, Environment, GaussianEnvironment
    from pybai.environments import TwoPointEnvironment, UniformEnvironment
    from pybai.environments import CallableEnvironment, CorrelatedGaussianEnvironment, LinearGaussianEnvironment
    from pybai.environments import MultiMetricEnvironment, SubpopulationGaussianEnvironment
    from pybai.models import Bernoulli, BettingModel, Binomial, Bounded, EmpiricalMeans, Family, Gaussian, GaussianUnknownVariance, MeansAndVariances, Model
    from pybai.problems import BatchSpec, BestArmProblem, FixedBudget, FixedConfidence, Problem
    from pybai.problems import CorrelatedBestArmProblem, FeasibleArmProblem, LinearBestArmProblem, TopKProblem
    from pybai.problems import GuardrailProblem, Metric
    from pybai.naming import answer_name, arm_name
    from pybai.report.comparison import plot_comparison
    from pybai.report.experiment_result import ExperimentResult
    from pybai.result import RunResult
    from pybai.session import Session, list_sessions
    from pybai.simulate import run_experiment, run_replication, run_sweep
    from pybai.simulate.outcomes import read_outcomes
    from pybai.stopping.thresholds import make_threshold
    from pybai.strategies import (
        GPUCB,
        LUCB,
        RAGE,
        UCBE,
        BatchRacingStrategy,
        BatchSARStrategy,
        BayesGap,
        BayesUCB,
        ConstrainedTrackAndStop,
        ExpectedImprovement,
        FixedHorizon,
        GAllocation,
        GameSampling,
        GuardrailTopTwo,
        HalvingStrategy,
        MixtureSPRT,
        ProbabilityOfImprovement,
        RoundRobinStrategy,
        SequentialHalving,
        Strategy,
        SuccessiveRejects,
        ThompsonProbabilityBest,
        ThompsonSampling,
        TopTwo,
        TrackAndStop,
        TwoStage,
        UGapEb,
        Uniform,
        XYAdaptive,
        XYFullyAdaptive,
        XYOracle,
        XYStatic,
        get_strategy_class,
        make_strategy,
        registered_names,
    )
    from pybai.strategies.state import restore_strategy

#: the module of each public name imported on first use: ``from pybai import X`` imports X's module then
#: (tests/test_architecture.py checks that these, the imports above and ``__all__`` list the same names)
_LAZY = {name: module for module, names in {
    "pybai.complexity": "complexity_report",
    "pybai.config": "Experiment load_experiment load_sweep parse_experiment parse_sweep",
    "pybai.environments": "BernoulliEnvironment BetaEnvironment BinomialEnvironment Environment GaussianEnvironment "
                          "TwoPointEnvironment UniformEnvironment CallableEnvironment CorrelatedGaussianEnvironment "
                          "LinearGaussianEnvironment SubpopulationGaussianEnvironment MultiMetricEnvironment",
    "pybai.models": "Bernoulli BettingModel Binomial Bounded EmpiricalMeans Family Gaussian GaussianUnknownVariance "
                    "MeansAndVariances Model",
    "pybai.problems": "BatchSpec BestArmProblem FixedBudget FixedConfidence Problem CorrelatedBestArmProblem "
                      "FeasibleArmProblem LinearBestArmProblem TopKProblem GuardrailProblem Metric",
    "pybai.naming": "answer_name arm_name",
    "pybai.report.comparison": "plot_comparison",
    "pybai.report.experiment_result": "ExperimentResult",
    "pybai.result": "RunResult",
    "pybai.simulate.outcomes": "read_outcomes",
    "pybai.session": "Session list_sessions",
    "pybai.simulate": "run_experiment run_replication run_sweep",
    "pybai.stopping.thresholds": "make_threshold",
    "pybai.strategies": "GPUCB LUCB RAGE UCBE BatchRacingStrategy BatchSARStrategy BayesGap BayesUCB "
                        "ConstrainedTrackAndStop ExpectedImprovement FixedHorizon GAllocation GameSampling GuardrailTopTwo HalvingStrategy MixtureSPRT "
                        "ProbabilityOfImprovement RoundRobinStrategy SequentialHalving Strategy SuccessiveRejects ThompsonProbabilityBest "
                        "ThompsonSampling TopTwo TrackAndStop TwoStage UGapEb Uniform XYAdaptive XYFullyAdaptive XYOracle "
                        "XYStatic get_strategy_class make_strategy registered_names",
    "pybai.strategies.state": "restore_strategy",
}.items() for name in names.split()}


def __getattr__(name: str):
    """A public name, imported from its module on first use (PEP 562) and kept in the package."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'pybai' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "__version__",
    # problems and models
    "Problem",
    "BestArmProblem",
    "FeasibleArmProblem",
    "GuardrailProblem",
    "Metric",
    "TopKProblem",
    "LinearBestArmProblem",
    "CorrelatedBestArmProblem",
    "FixedConfidence",
    "FixedBudget",
    "BatchSpec",
    "Family",
    "Gaussian",
    "Bernoulli",
    "Binomial",
    "GaussianUnknownVariance",
    "Bounded",
    "BettingModel",
    "MeansAndVariances",
    "Model",
    "EmpiricalMeans",
    # environments
    "Environment",
    "GaussianEnvironment",
    "BernoulliEnvironment",
    "BinomialEnvironment",
    "BetaEnvironment",
    "UniformEnvironment",
    "TwoPointEnvironment",
    "SubpopulationGaussianEnvironment",
    "MultiMetricEnvironment",
    "LinearGaussianEnvironment",
    "CorrelatedGaussianEnvironment",
    "CallableEnvironment",
    # strategies
    "Strategy",
    "Uniform",
    "TrackAndStop",
    "TwoStage",
    "ConstrainedTrackAndStop",
    "LUCB",
    "GameSampling",
    "TopTwo",
    "GuardrailTopTwo",
    "BayesGap",
    "UGapEb",
    "UCBE",
    "BayesUCB",
    "GPUCB",
    "ThompsonSampling",
    "ProbabilityOfImprovement",
    "ExpectedImprovement",
    "SuccessiveRejects",
    "SequentialHalving",
    "BatchRacingStrategy",
    "BatchSARStrategy",
    "HalvingStrategy",
    "RoundRobinStrategy",
    "GAllocation",
    "XYStatic",
    "XYAdaptive",
    "XYFullyAdaptive",
    "XYOracle",
    "RAGE",
    "FixedHorizon",
    "MixtureSPRT",
    "ThompsonProbabilityBest",
    "get_strategy_class",
    "make_strategy",
    "registered_names",
    "restore_strategy",
    "make_threshold",
    # experiments and simulation
    "Experiment",
    "load_experiment",
    "parse_experiment",
    "load_sweep",
    "parse_sweep",
    "run_sweep",
    "Session",
    "list_sessions",
    "run_experiment",
    "run_replication",
    "complexity_report",
    "arm_name",
    "answer_name",
    "RunResult",
    "ExperimentResult",
    "read_outcomes",
    "plot_comparison",
    # errors
    "PybaiError",
    "InvalidParameterError",
    "ConfigError",
    "SessionStateError",
    "StorageUnavailableError",
    "RequestError",
    "BatchLimitError",
    "DegenerateInstanceError",
    "PybaiWarning",
    "RewardModelWarning",
]
