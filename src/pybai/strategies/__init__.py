"""Sampling strategies, one family per module, registered by name (the names experiment files use)."""

from pybai.strategies.base import Strategy
from pybai.strategies.batch_racing import BatchRacingStrategy
from pybai.strategies.batch_sar import BatchSARStrategy
from pybai.strategies.bayes_gap import BayesGap
from pybai.strategies.bayes_ucb import BayesUCB
from pybai.strategies.ei import ExpectedImprovement
from pybai.strategies.fixed_horizon import FixedHorizon
from pybai.strategies.gp_ucb import GPUCB
from pybai.strategies.pi import ProbabilityOfImprovement
from pybai.strategies.thompson import ThompsonSampling
from pybai.strategies.thompson_pbest import ThompsonProbabilityBest
from pybai.strategies.sequential_halving import SequentialHalving
from pybai.strategies.successive_rejects import SuccessiveRejects
from pybai.strategies.ucbe import UCBE
from pybai.strategies.ugap import UGapEb
from pybai.strategies.constrained_track_and_stop import ConstrainedTrackAndStop
from pybai.strategies.g_allocation import GAllocation
from pybai.strategies.game import GameSampling
from pybai.strategies.guardrail_top_two import GuardrailTopTwo
from pybai.strategies.halving import HalvingStrategy
from pybai.strategies.lucb import LUCB
from pybai.strategies.mixture_sprt import MixtureSPRT
from pybai.strategies.rage import RAGE
from pybai.strategies.registry import get_strategy_class, make_strategy, registered_names
from pybai.strategies.round_robin import RoundRobinStrategy
from pybai.strategies.top_two import TopTwo
from pybai.strategies.track_and_stop import TrackAndStop
from pybai.strategies.two_stage import TwoStage
from pybai.strategies.two_stage import TwoStage
from pybai.strategies.uniform import Uniform
from pybai.strategies.xy_adaptive import XYAdaptive
from pybai.strategies.xy_fully_adaptive import XYFullyAdaptive
from pybai.strategies.xy_oracle import XYOracle
from pybai.strategies.xy_static import XYStatic

__all__ = [
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
    "BayesUCB",
    "ExpectedImprovement",
    "GPUCB",
    "ProbabilityOfImprovement",
    "ThompsonSampling",
    "SequentialHalving",
    "SuccessiveRejects",
    "UCBE",
    "UGapEb",
    "BatchRacingStrategy",
    "BatchSARStrategy",
    "HalvingStrategy",
    "RoundRobinStrategy",
    "GAllocation",
    "XYStatic",
    "XYOracle",
    "XYAdaptive",
    "XYFullyAdaptive",
    "RAGE",
    "FixedHorizon",
    "MixtureSPRT",
    "ThompsonProbabilityBest",
    "get_strategy_class",
    "make_strategy",
    "registered_names",
]
