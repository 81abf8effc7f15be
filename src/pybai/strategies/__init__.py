"""Sampling strategies, one family per module, registered by contract name."""

from pybai.strategies.base import Strategy
from pybai.strategies.constrained_track_and_stop import ConstrainedTrackAndStop
from pybai.strategies.game import GameSampling
from pybai.strategies.lucb import LUCB
from pybai.strategies.registry import get_strategy_class, make_strategy, registered_names
from pybai.strategies.top_two import TopTwo
from pybai.strategies.track_and_stop import TrackAndStop
from pybai.strategies.uniform import Uniform

__all__ = [
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
]
