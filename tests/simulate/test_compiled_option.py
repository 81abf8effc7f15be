"""The engine's ``compiled`` switch: compiled runs and the ask/tell loop give the same result document."""

from __future__ import annotations

import pytest

from pybai.config.experiment import parse_experiment
from pybai.exceptions import ConfigError
from pybai.simulate.engine import run_sweep
from pybai.simulate.tasks import Sweep

DOC = {
    "name": "compiled-switch", "replications": 6, "seed": 3,
    "problem": {"goal": "best-arm", "delta": 0.1},
    "environment": {"kind": "bernoulli", "means": [0.7, 0.5, 0.4]},
    "strategy": [{"name": "tas"}, {"name": "top-two"}, {"name": "lucb", "threshold": "kk21"}],
}


def _rows(document):
    return [{k: v for k, v in row.items() if k not in ("wall_seconds", "cpu_seconds")} for row in document["results"]]


def test_compiled_and_ask_tell_documents_are_identical():
    sweep = Sweep.from_document(DOC)
    fast = run_sweep(sweep)
    slow = run_sweep(sweep, compiled=False)
    assert _rows(fast) == _rows(slow)
    off = Sweep.from_document(dict(DOC, compiled=False))
    assert off.experiments[0].compiled is False
    assert _rows(run_sweep(off)) == _rows(fast)


def test_compiled_key_must_be_a_boolean():
    with pytest.raises(ConfigError, match="compiled"):
        parse_experiment(dict(DOC, compiled="yes"))
