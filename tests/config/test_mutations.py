"""Property: any small corruption of a shipped experiment or session file is parsed or refused in one line.

Each example takes one of the files in ``src/pybai/experiments/``, replaces one or two of its
values (at any depth: a table, a list, a list element) by junk of another type or range, or
deletes them, and parses the result with :func:`pybai.config.parse_sweep` (grids included).  The
only acceptable outcomes are a parsed sweep or a :class:`ConfigError` whose message is one line
naming a key: never another exception (a traceback for the user).  The rows of
``tests/test_bad_input.py`` marked "found by the mutation property" were failures of this test.
Session files (the learner's side, no truth) get the same treatment with
:func:`pybai.config.learner.parse_session_file`; their bases are written by
:func:`~pybai.config.learner.session_document` from every shipped file's problem and strategies,
which must read back as the same problem (that round trip failed for linear problems).

The examples are derandomized (the same on every run, so CI is deterministic); to explore
further, change ``derandomize`` to ``False`` and run with ``--hypothesis-seed=N``.
"""

from __future__ import annotations

import copy
import functools
import tomllib
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pybai
from pybai import XYOracle
from pybai.config import parse_sweep
from pybai.config.learner import parse_session_file, session_document
from pybai.exceptions import ConfigError, InvalidParameterError

from _corruption import DELETE, paths, set_path  # tests/_corruption.py

EXPERIMENTS = sorted((Path(pybai.__file__).parent / "experiments").glob("*.toml"))
JUNK = [
    None, True, 0, -1, 1, 3, 10**12, 2**70, 2**1100, 0.0, 0.5, 1.5, -0.5, 1e-320, 1e308,
    float("nan"), float("inf"), -float("inf"), "", "x", "0.1", "tas", [], [[]], [1], [1.0, 2.0], [[1.0, 2.0]],
    [[1.0], [2.0, 3.0]], ["a", "b"], {}, {"a": 1}, [None], [float("nan")], [[float("inf")]], [1, 2, 3],
    [[1, 2], [3, 4]], DELETE,
]


def _load(path: Path) -> dict:
    with open(path, "rb") as fh:
        return tomllib.load(fh)


DOCUMENTS = {path.name: _load(path) for path in EXPERIMENTS}


@functools.cache
def _session_bases(name: str) -> dict[str, tuple]:
    """``{"FILE:LABEL": (problem, session document)}`` for the strategies of shipped file ``name``.

    Built on first use, not at import: building every file's problem takes seconds, and test
    collection should not pay it.
    """
    bases = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        experiment = parse_sweep(copy.deepcopy(DOCUMENTS[name]))[0]
    for label, strategy in experiment.strategies:
        if isinstance(strategy, XYOracle):  # a simulation-only reference (needs the true theta): no session
            continue
        try:
            document = session_document(experiment.problem, strategy, name="s", seed=1)
        except InvalidParameterError as exc:  # a goal sessions do not serve yet (guardrail metrics): simulations only
            if "no session environment kind serves" not in str(exc):
                raise
            continue
        bases[f"{name}:{label}"] = (experiment.problem, document)
    return bases


def _all_session_documents() -> dict[str, dict]:
    return {key: document for name in sorted(DOCUMENTS) for key, (_, document) in _session_bases(name).items()}


SESSION_EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "session-screen.toml"


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_session_document_reads_back_as_the_same_problem(name):
    for key, (problem, document) in _session_bases(name).items():
        assert parse_session_file(copy.deepcopy(document)).problem.to_dict() == problem.to_dict(), key


def _corrupt(data, document: dict) -> dict:
    document = copy.deepcopy(document)
    for _ in range(data.draw(st.integers(1, 2), label="mutations")):
        places = list(paths(document))
        if not places:
            break
        path = data.draw(st.sampled_from(places), label="path")
        set_path(document, path, data.draw(st.sampled_from(JUNK), label="value"))
    return document


def _parsed_or_refused_in_one_line(parse, document) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            parse(document)
        except ConfigError as exc:
            message = str(exc)
            assert message and "\n" not in message, message
            assert len(message) < 600, message


def test_every_shipped_file_parses():
    for name, document in DOCUMENTS.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert parse_sweep(copy.deepcopy(document)), name


@settings(max_examples=400, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_corrupted_file_is_parsed_or_refused_in_one_line(data):
    name = data.draw(st.sampled_from(sorted(DOCUMENTS)), label="file")
    _parsed_or_refused_in_one_line(parse_sweep, _corrupt(data, DOCUMENTS[name]))


@settings(max_examples=400, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_corrupted_session_file_is_parsed_or_refused_in_one_line(data):
    bases = _all_session_documents()
    bases["session-screen.toml"] = _load(SESSION_EXAMPLE)
    name = data.draw(st.sampled_from(sorted(bases)), label="file")
    _parsed_or_refused_in_one_line(parse_session_file, _corrupt(data, bases[name]))


if __name__ == "__main__":  # pragma: no cover
    pytest.main([__file__, "-q"])
