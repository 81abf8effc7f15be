"""A strategy's whole state as a JSON-safe dict, and its exact restoration.

The state holds a format version, the strategy's contract name and parameters, the problem's
description (checked on restore), the random generator's bit-generator state, the model's
arrays, the request bookkeeping (pending request and its id, the initial plan's position) and
the rule's own attributes (``Strategy._state_attrs``).  Restoring it on the same problem, in
any process, continues exactly the run that was saved.

Examples
--------
>>> import json
>>> from pybai import BestArmProblem, FixedConfidence, Gaussian, make_strategy
>>> problem = BestArmProblem(3, Gaussian(1.0, n_sources=3), FixedConfidence(0.1))
>>> s = make_strategy("tas").start(problem, rng=0)
>>> s.tell(s.ask(), [0.5])
>>> text = json.dumps(s.get_state())          # JSON-safe
>>> r = restore_strategy(json.loads(text), problem)
>>> r.ask().tolist() == s.ask().tolist() and r.t_ == s.t_ == 1
True
"""

from __future__ import annotations

import numpy as np

from pybai._serialize import decode, encode
from pybai.exceptions import InvalidParameterError

__all__ = ["STATE_FORMAT", "strategy_state", "restore_state", "restore_strategy"]

#: Version of the state format; a newer one is refused.
STATE_FORMAT = 1

_BASE_ATTRS = ("t_", "batches_", "status_", "statistic_", "request_id", "_pending", "_next_id", "_plan_pos",
               "_ready")


def strategy_state(strategy) -> dict:
    """The JSON-safe state of a started ``strategy``."""
    model = strategy.model_
    return {
        "format": STATE_FORMAT,
        "strategy": strategy.name,
        "params": encode(strategy.get_params()),
        "problem": encode(strategy.problem_.to_dict()),
        "rng": encode(strategy.rng_.bit_generator.state),
        "model": {name: encode(getattr(model, name)) for name in model.state_attrs},
        "base": {name: encode(getattr(strategy, name)) for name in _BASE_ATTRS},
        "rule": {name: encode(getattr(strategy, name)) for name in strategy._state_attrs},
    }


def restore_state(strategy, problem, state: dict):
    """Start ``strategy`` on ``problem`` and overwrite its state with ``state``; returns it."""
    if not isinstance(state, dict) or "format" not in state:
        raise InvalidParameterError("The 'state' parameter must be a dict from Strategy.get_state().")
    if state["format"] > STATE_FORMAT:
        raise InvalidParameterError(
            f"state format {state['format']} is newer than this version of pybai reads ({STATE_FORMAT}); upgrade pybai."
        )
    if state["strategy"] != strategy.name:
        raise InvalidParameterError(f"state of strategy '{state['strategy']}' cannot restore '{strategy.name}'.")
    if encode(problem.to_dict()) != state["problem"]:
        raise InvalidParameterError("the state was saved on a different problem.")
    strategy.start(problem, rng=0)
    bit_gen = strategy.rng_.bit_generator
    bit_gen.state = decode(state["rng"])
    model = strategy.model_
    for name, value in state["model"].items():
        current = getattr(model, name)
        value = decode(value)
        if isinstance(current, np.ndarray):
            current[...] = value  # in place: the strategy holds views of the model's arrays
        else:
            setattr(model, name, value)
    for name, value in state["base"].items():
        setattr(strategy, name, decode(value))
    for name, value in state["rule"].items():
        setattr(strategy, name, decode(value))
    return strategy


def restore_strategy(state: dict, problem):
    """A new strategy rebuilt from ``state`` (its contract name and parameters) on ``problem``."""
    from pybai.strategies.registry import make_strategy

    params = decode(state.get("params", {}))
    return restore_state(make_strategy(state["strategy"], params), problem, state)
