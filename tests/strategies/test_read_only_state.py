"""A strategy's public arrays (names ending in ``_``) are read-only: a caller cannot corrupt its state."""

import numpy as np
import pytest

from pybai.config import parse_experiment
from pybai.strategies._views import StateArray

from _corruption import play  # tests/_corruption.py

LINEAR = {"kind": "linear-gaussian", "features": [[1, 0], [0, 1], [0.7, 0.7]], "theta": [1.0, 0.2]}
TOP_K = {"kind": "gaussian", "means": [1.0, 0.8, 0.2, 0.0]}
BATCH = {"size": 4, "max_repeats": 2}
CASES = [
    ({"goal": "best-arm", "delta": 0.1}, {"kind": "gaussian", "means": [1.0, 0.5, 0.2]}, name)
    for name in ("tas", "top-two", "lucb", "uniform", "game")
] + [
    ({"goal": "best-feasible-arm", "delta": 0.1},
     {"kind": "subpopulation-gaussian", "means": [[0.2, 0.6], [0.4, 0.4]], "weights": [0.5, 0.5]}, "tas-cs"),
] + [({"goal": "best-arm", "delta": 0.1}, LINEAR, name)
     for name in ("xy-adaptive", "xy-static", "g-allocation", "xy-fully-adaptive", "rage")] + [
    ({"goal": "best-arm", "budget": 60}, {"kind": "gaussian", "means": [1.0, 0.5, 0.2]}, name)
    for name in ("sequential-halving", "successive-rejects", "ucbe", "ugap", "uniform")
] + [
    ({"goal": "top-k", "k": 2, "delta": 0.1, "batch": BATCH}, TOP_K, "batch-racing"),
] + [({"goal": "top-k", "k": 2, "budget": 12, "batch": BATCH}, TOP_K, name)
     for name in ("batch-sar", "halving", "round-robin")]


@pytest.mark.parametrize("problem, environment, name", CASES, ids=[f"{c[2]}-{c[0]['goal']}" for c in CASES])
def test_public_arrays_are_read_only_views_and_the_rule_still_runs(problem, environment, name):
    experiment = parse_experiment({"problem": problem, "environment": environment, "strategy": [{"name": name}]})
    strategy = play(experiment.strategies[0][1], experiment, 6)
    public = {attr: getattr(strategy, attr, None) for attr in dir(strategy)
              if attr.endswith("_") and not attr.startswith("_") and not attr.endswith("__")}
    arrays = {attr: value for attr, value in public.items() if isinstance(value, np.ndarray)}
    tracker = public.get("tracker_")  # a component's public arrays too (the tracking of weight rules)
    if tracker is not None:
        arrays.update({f"tracker_.{attr}": getattr(tracker, attr, None) for attr in dir(tracker)
                       if attr.endswith("_") and not attr.startswith("_")
                       and isinstance(getattr(tracker, attr, None), np.ndarray)})
    assert arrays  # at least counts_, sums_, means_
    for attr, value in arrays.items():
        assert not value.flags.writeable, f"{name}.{attr} is writable"
        with pytest.raises(ValueError):
            value.reshape(-1)[:1] = 0
    before = strategy.get_state()
    play_on = play(strategy.clone(), experiment, 12)  # the rule writes its own arrays unhindered
    assert play_on.t_ >= strategy.t_
    assert strategy.get_state() == before


def test_state_array_descriptor():
    class Rule:
        survivors_ = StateArray()

    rule = Rule()
    with pytest.raises(AttributeError, match="survivors_"):
        rule.survivors_
    rule.survivors_ = np.arange(3)
    assert not rule.survivors_.flags.writeable and rule._survivors_.flags.writeable
    rule._survivors_[0] = 7
    assert rule.survivors_[0] == 7
