"""Combination checks: what users drive, every reward model x goal x epsilon x threshold x strategy x max_pending,
through every surface (``pybai run``, the Python ``Session``, the command line, HTTP), on ordinary and
degenerate data (constant arms, rewards at the range ends, differences of 1e-300, subnormals, repeated
values, 1e300 and a rare spike).

The cases are generated from the registries (``_cases.py``): a newly registered strategy, reward model,
goal or threshold kind is drawn like the others.  ``make test`` runs a sample that covers every value
of every axis (``PYBAI_COMBINATIONS``, default 32 sessions, seed ``PYBAI_COMBINATIONS_SEED``);
``PYBAI_COMBINATIONS=400`` is a longer audit; ``PYBAI_COMBINATIONS=all`` enumerates the whole product
(hours).  Each call works or refuses with one line; status, export and report work on every session
that accepted its answers, and agree with what was told.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import sys
import tempfile
import warnings

import numpy as np
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import _cases  # noqa: E402
from _surfaces import SURFACE_CLASSES, CliSurface, Refused  # noqa: E402

from pybai import get_strategy_class, registered_names  # noqa: E402
from pybai.config.experiment import parse_experiment  # noqa: E402
from pybai.config.reward_models import REWARD_MODELS  # noqa: E402
from pybai.exceptions import ConfigError  # noqa: E402
from pybai.stopping.thresholds import KINDS  # noqa: E402

_SIZE = os.environ.get("PYBAI_COMBINATIONS", "32")
SIZE = 0 if _SIZE == "all" else int(_SIZE)
SEED = int(os.environ.get("PYBAI_COMBINATIONS_SEED", "36"))
SAMPLE = _cases.sample(SIZE, SEED)
STREAMS = list(_cases.STREAMS)
#: (definition, spec, stream, surface): streams and surfaces in rotation, so that each meets every other axis
SESSIONS = [(d, spec, STREAMS[i % len(STREAMS)], _cases.SURFACES[(i // len(STREAMS) + i) % len(_cases.SURFACES)])
            for i, (d, spec) in enumerate(SAMPLE.valid)]
#: rounds of asks per session (each up to max_pending requests)
ROUNDS = 6
#: every REPORT_EVERY-th session also writes its HTML report (matplotlib figures cost about a second)
REPORT_EVERY = 1 if SIZE == 0 or SIZE > 100 else 3


@pytest.fixture
def folder():
    shm = pathlib.Path("/dev/shm")
    base = shm if shm.is_dir() and os.access(shm, os.W_OK) else None
    path = pathlib.Path(tempfile.mkdtemp(prefix="pybai-combo-", dir=base))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


# ---------------------------------------------------------------- the generator itself
def test_axes_come_from_the_registries():
    ax = _cases.axes()
    assert set(ax["strategy"]) == set(registered_names())
    assert {r[0] for r in ax["reward"] if r is not None} == set(REWARD_MODELS)
    assert set(KINDS) <= set(ax["threshold"])
    assert {g for _, g in ax["kind-goal"]} >= {"best-arm", "top-k", "best-feasible-arm"}


def test_every_kind_and_goal_builds():
    """Each (environment kind, goal) pair reads with the environment's own law and some strategy: the
    session-file tables of _cases are enough for every registered kind."""
    for kind, goal in _cases.axes()["kind-goal"]:
        errors = []
        for name in registered_names():
            if goal not in get_strategy_class(name).goals:
                continue
            result = _cases.check(_cases.Definition(kind, goal, None, None, None, name, 1))
            if not isinstance(result, ConfigError):
                break
            errors.append(str(result))
        else:
            pytest.fail(f"no strategy runs goal {goal} on kind {kind}: {errors[:3]} (add its keys to "
                        "_cases.EXTRA_ENVIRONMENT)")


def test_the_sample_covers_every_value():
    """Every value of every axis appears in a valid definition, or every definition tried refused it."""
    ax = _cases.axes()
    for axis, values in ax.items():
        for value in values:
            if (axis, value) in SAMPLE.uncovered:
                continue
            assert any(_cases._value(d, axis) == value for d, _ in SAMPLE.valid), (axis, value)
    assert {s for _, _, s, _ in SESSIONS} == set(STREAMS) and {s for *_, s in SESSIONS} == set(_cases.SURFACES)
    # what no valid session definition took: the reference strategies that sessions refuse, and thresholds
    # only they use; `pybai run` takes the strategies (below)
    assert len(SAMPLE.uncovered) <= 6, SAMPLE.uncovered
    run_strategies = {d.strategy for d, _, _ in EXPERIMENTS}
    assert {v for axis, v in SAMPLE.uncovered if axis == "strategy"} <= run_strategies


@pytest.mark.parametrize("definition, error", SAMPLE.refused, ids=[d.id for d, _ in SAMPLE.refused])
def test_refusals_are_one_line(definition, error, folder):
    assert "\n" not in str(error) and str(error)
    got = CliSurface(folder).new(definition.document())
    assert isinstance(got, Refused) and got.message == f"pybai: error: {error}"


# ---------------------------------------------------------------- sessions through each surface
def _rewards(stream, requests, sources, problem, step, rng):
    lo, hi = _cases.support(problem)
    shape = problem.source_shape
    arms = [int(s) // (int(np.prod(shape[1:])) if len(shape) > 1 else 1) for s in sources]
    return [float(_cases.STREAMS[stream](a, step + j, rng, lo, hi)) for j, a in enumerate(arms)]


def _valid(problem, rewards):
    """The rewards made acceptable (each replaced by the first fallback the family takes)."""
    out = []
    for x in rewards:
        if problem.family.check_rewards(np.array([x])) is None:
            out.append(x)
            continue
        out.append(next(v for v in _cases.fallback(problem, x) if problem.family.check_rewards(np.array([v])) is None))
    return out


def drive(surface, definition, spec, stream, rng) -> int:
    """Ask and tell for ROUNDS rounds (up to max_pending requests each, answered in a random order).

    Returns the number of samples the session accepted.  A refused answer (degenerate rewards the
    family does not take) is answered again with acceptable ones.
    """
    problem = spec.problem
    env_doc = {"kind": definition.kind, **_cases.truth(problem, definition.kind, "ordinary")}
    env_doc.update({k: v for k, v in definition.document()["environment"].items() if k not in ("kind", "arms")})
    environment = parse_experiment({"problem": definition.document()["problem"], "environment": env_doc,
                                    "strategy": [{"name": "uniform"}]}).environment
    told = 0
    for step in range(ROUNDS):
        requests = []
        for _ in range(definition.max_pending):
            got = surface.ask()
            if isinstance(got, Refused):
                assert "stopped" in got.message or "budget" in got.message or requests, got.message
                break
            if any(rid == got[0] for rid, _ in requests):
                break
            requests.append(got)
        if not requests:
            break
        for index in rng.permutation(len(requests)):
            rid, asked = requests[index]
            sources, _ = environment.respond(asked, rng)
            rewards = _rewards(stream, asked, sources, problem, step, rng)
            receipt = surface.tell(rid, sources, rewards)
            if isinstance(receipt, Refused) and rewards != _valid(problem, rewards):
                receipt = surface.tell(rid, sources, _valid(problem, rewards))
            if isinstance(receipt, Refused):  # an outstanding request of a session that stopped meanwhile
                assert "stopped" in receipt.message or "not pending" in receipt.message \
                    or "no request" in receipt.message, receipt.message
                continue
            told += len(sources) // problem.request_space().observation_size  # samples: observations
    return told


@pytest.mark.parametrize("index", range(len(SESSIONS)), ids=[f"{d.id}-{s}-{f}" for d, _, s, f in SESSIONS])
def test_session(index, folder):
    definition, spec, stream, surface = SESSIONS[index]
    front = SURFACE_CLASSES[surface](folder)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. the reward model's warning on repeated rewards
            made = front.new(definition.document())
            assert not isinstance(made, Refused), made  # the library read this file (the sample is valid)
            told = drive(front, definition, spec, stream, np.random.default_rng(SEED))
            status = front.status()
            assert not isinstance(status, Refused), status
            assert status["samples"] == told
            rows = front.export()
            assert not isinstance(rows, Refused), rows
            assert len(rows) == told
            if index % REPORT_EVERY == 0:
                report = front.report()
                assert not isinstance(report, Refused), report
            given = front.epsilon(0.05, "additive")  # works, or refuses in one line (stopped, no epsilon goal, ...)
            again = front.reopen()
            assert not isinstance(again, Refused) and again is not None
            if not isinstance(given, Refused):
                after = front.status()
                assert not isinstance(after, Refused) and after["samples"] == told
    finally:
        front.close()


# ---------------------------------------------------------------- `pybai run`
RUN_STREAMS = ("ordinary", "range-ends", "constant", "tiny-differences")


def _experiments():
    """A tiny experiment per valid definition of the sample with max_pending 1, truths in rotation, and one for
    each strategy no session took (the reference rules, which sessions refuse)."""
    runs = [d for d, _ in SAMPLE.valid if d.max_pending == 1]
    uncovered = [v for axis, v in SAMPLE.uncovered if axis == "strategy"]
    runs += _cases.sample_experiments(uncovered, SEED)
    out = []
    for i, d in enumerate(runs):
        stream = RUN_STREAMS[i % len(RUN_STREAMS)]
        doc = _cases.experiment(d, stream, name=f"run{i}")
        if doc is not None:
            out.append((d, stream, doc))
    taken = {d.strategy for d, _, _ in out}
    for name in uncovered:  # goals no session kind takes (guardrails on multi-metric): a shipped experiment's truth
        shipped = _cases.shipped_experiment(name, name=f"run-{name}") if name not in taken else None
        if shipped is not None:
            out.append((shipped[0], "shipped", shipped[1]))
    return out


EXPERIMENTS = _experiments()
#: the experiments whose run is also stored (``--out``) and read back by ``pybai report``: the first of each
#: environment kind and goal (a report draws matplotlib figures, about a second each)
REPORTED = {min(i for i, (d, _, _) in enumerate(EXPERIMENTS) if (d.kind, d.goal) == pair)
            for pair in {(d.kind, d.goal) for d, _, _ in EXPERIMENTS}}


@pytest.mark.parametrize("definition, stream, doc", EXPERIMENTS, ids=[f"{d.id}-{s}" for d, s, _ in EXPERIMENTS])
def test_pybai_run(definition, stream, doc, folder):
    from _toml import write_toml  # tests/_toml.py

    path = folder / "experiment.toml"
    write_toml(path, doc)
    stored = any(EXPERIMENTS[i][2] is doc for i in REPORTED)
    out = ("--out", folder / "store") if stored else ()
    got = CliSurface(folder).run("run", path, "--json", folder / "result.json", "--quiet", *out)
    if isinstance(got, Refused):  # e.g. a truth the reward model does not fit: one line (checked)
        return
    result = json.loads((folder / "result.json").read_text())
    assert result, "an empty result document"
    if stored:  # the stored run reads back into a report (every figure of the goal drawn)
        report = CliSurface(folder).run("report", folder / "store", "--out", folder / "report")
        assert not isinstance(report, Refused), report
        assert (folder / "report" / "report.html").is_file()
