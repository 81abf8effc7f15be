"""Bad input everywhere a user can reach it: one table of cases, one clear line naming the parameter.

Every row of ``CASES`` is (where, input, expected fragment):

* ``file(id, edits, fragment)``: the base experiment document with ``edits`` applied (a dotted
  path -> value, or ``DELETE``), parsed as an experiment file; a :class:`ConfigError` is expected;
* ``toml(id, text, fragment)``: raw file content (bytes or text) read by ``load_experiment``;
* ``api(id, call, fragment)``: a Python call; an :class:`InvalidParameterError` is expected;
* ``run(id, edits, fragment)``: a document that parses but is refused by ``run_experiment``
  before any replication (memory);
* ``path(id, make, fragment)``: ``load_experiment`` of the path ``make(tmp_path)`` returns (special
  files such as ``/dev/zero`` or a FIFO), bounded in time;
* ``user(id, source, fragment)``: a ``callable`` environment naming ``f`` in a module of that
  source (written to a temporary folder); the message comes from parsing (failures at import)
  or from ``run_experiment`` (failures of the reward function).
* ``answers(id, text, fragment)``: the text of a session answer CSV (``answers.csv``, request 1 of
  a 3-arm problem) read as ``pybai session tell --csv`` reads it; the fragment names the line.

Each message must be one line and contain the fragment, which names the parameter (the key of
the file, or the parameter of the Python call).  A new feature adds rows here.  The CLI runs a
few file cases in-process (exit status 2, one ``pybai: error:`` line) and a few in a subprocess
(no traceback).
"""

from __future__ import annotations

import copy
import os
import subprocess
import sys
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

from pybai import (
    BernoulliEnvironment,
    BestArmProblem,
    FeasibleArmProblem,
    FixedBudget,
    FixedConfidence,
    Gaussian,
    GaussianEnvironment,
    SubpopulationGaussianEnvironment,
    TrackAndStop,
    make_strategy,
    make_threshold,
    run_experiment,
)
from pybai.cli import main
from pybai.config import load_experiment, parse_experiment
from pybai.exceptions import ConfigError, InvalidParameterError, PybaiError, PybaiWarning
from pybai.models import Bounded
from pybai.problems.top_k import TopKProblem
from pybai.session import Session
from pybai.session.rows import Layout, read_csv

from _toml import write_toml  # tests/_toml.py

DELETE = object()

BASE: dict[str, Any] = {
    "name": "bad",
    "replications": 2,
    "seed": 1,
    "problem": {"goal": "best-arm", "delta": 0.1},
    "environment": {"kind": "gaussian", "means": [1.0, 0.5, 0.0]},
    "strategy": [{"name": "tas"}],
}

SUBPOP = {"kind": "subpopulation-gaussian", "means": [[0.2, 0.6], [0.4, 0.4]], "weights": [0.5, 0.5]}


def document(edits: dict[str, Any]) -> dict:
    doc = copy.deepcopy(BASE)
    for path, value in edits.items():
        *parents, last = path.split(".")
        node = doc
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if value is DELETE:
            del node[last]
        elif isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = copy.deepcopy(value)
    return doc


@dataclass
class Case:
    id: str
    where: str  # "file", "toml", "api", "run"
    input: Any
    fragment: str


def file(id, edits, fragment):
    return Case(id, "file", edits, fragment)


def toml(id, content, fragment):
    return Case(id, "toml", content, fragment)


def api(id, call: Callable[[], Any], fragment):
    return Case(id, "api", call, fragment)


def run(id, edits, fragment):
    return Case(id, "run", edits, fragment)


def path(id, make: Callable[[Any], Any], fragment):
    return Case(id, "path", make, fragment)


def user(id, source: str, fragment):
    return Case(id, "user", source, fragment)


def _fifo(tmp_path):
    fifo = tmp_path / "exp.toml"
    os.mkfifo(fifo)
    return fifo


def _device(name):
    def make(tmp_path):
        if not os.path.exists(name):
            pytest.skip(f"no {name} here")
        return name
    return make


DEEP = 5000


def answers(id, text, fragment):
    return Case(id, "answers", text, fragment)


def _tell_first(strategy, rewards):
    """Start ``strategy`` on P3, ask once and answer the first request with ``rewards``."""
    strategy.start(P3(), rng=0)
    arm = strategy.ask()[:1]
    strategy.tell(arm, rewards)


def _session_tell(rewards):
    """Create a session in a temporary folder, ask once and answer with ``rewards`` (Python API)."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        doc = {"problem": {"goal": "best-arm", "delta": 0.1}, "environment": {"kind": "gaussian", "arms": 3},
               "strategy": [{"name": "tas"}]}
        with Session.create(Path(folder) / "s.db", doc) as session:
            request = session.ask()
            session.tell(request.id, request.requests[:1], rewards)


G3 = lambda: Gaussian(1.0, n_sources=3)  # noqa: E731
P3 = lambda: BestArmProblem(3, G3(), FixedConfidence(0.1))  # noqa: E731

CASES = [
    # --- non-finite numbers, shapes, arm counts -------------------------------------------
    file("means-nan", {"environment.means": [1.0, float("nan"), 0.0]}, "environment.means: expected finite numbers"),
    file("means-inf", {"environment.means": [1.0, float("inf")]}, "environment.means: expected finite numbers"),
    file("one-arm", {"environment.means": [1.0]}, "environment.means: expected non-empty (at least 2"),
    file("no-arm", {"environment.means": []}, "environment.means: expected non-empty"),
    file("means-matrix", {"environment.means": [[1.0, 0.0]]}, "environment.means: expected a list of numbers"),
    file("means-strings", {"environment.means": ["1.0", "0.5"]}, "environment.means: expected a list of numbers"),
    file("means-mixed", {"environment.means": [1.0, "0.5"]}, "environment.means: expected a list of numbers"),
    file("sigma-shape", {"environment.sigma": [1.0, 2.0]}, "environment.sigma: expected a number or a list of 3"),
    file("bernoulli-range", {"environment.kind": "bernoulli", "environment.means": [1.5, 0.5]},
         "environment.means: expected all <= 1"),
    file("subpop-no-arm", {"environment": {**SUBPOP, "means": []}, "problem.goal": "best-feasible-arm"},
         "environment.means"),
    file("subpop-weights-shape", {"environment": {**SUBPOP, "weights": [0.5, 0.3, 0.2]},
                                  "problem.goal": "best-feasible-arm"}, "environment.weights: expected of shape (2)"),
    file("subpop-weights-negative", {"environment": {**SUBPOP, "weights": [1.5, -0.5]},
                                     "problem.goal": "best-feasible-arm"}, "environment.weights: expected all > 0"),
    # --- delta, budgets, sizes ----------------------------------------------------------------
    file("delta-0", {"problem.delta": 0}, "problem.delta: expected a number in (0, 1)"),
    file("delta-1", {"problem.delta": 1.0}, "problem.delta: expected a number in (0, 1)"),
    file("delta-negative", {"problem.delta": -0.1}, "problem.delta: expected a number in (0, 1)"),
    file("delta-string", {"problem.delta": "0.1"}, "problem.delta: expected a number in (0, 1)"),
    file("delta-and-budget", {"problem.budget": 10}, "exactly one of 'delta'"),
    file("budget-negative", {"problem.delta": DELETE, "problem.budget": -5, "strategy.0.name": "uniform"},
         "problem.budget: expected an int in [1, 1e+09]"),
    file("budget-huge", {"problem.delta": DELETE, "problem.budget": 10**17, "strategy.0.name": "uniform"},
         "problem.budget: expected an int in [1, 1e+09]"),
    file("budget-float-huge", {"problem.delta": DELETE, "problem.budget": 1e30, "strategy.0.name": "uniform"},
         "problem.budget: expected an int in [1, 1e+09]"),
    file("budget-string", {"problem.delta": DELETE, "problem.budget": "100", "strategy.0.name": "uniform"},
         "problem.budget: expected an int"),
    file("budget-below-initial-phase", {"problem.delta": DELETE, "problem.budget": 2, "strategy.0.name": "uniform"},
         "strategy[0].budget: expected at least the 3 samples of the initial phase"),
    file("max-samples-negative", {"problem.max_samples": -1}, "problem.max_samples: expected an int in [1, 1e+09]"),
    file("max-samples-huge", {"problem.max_samples": 10**20}, "problem.max_samples: expected an int in [1, 1e+09]"),
    file("max-samples-with-budget", {"problem.delta": DELETE, "problem.budget": 10, "problem.max_samples": 5},
         "problem.max_samples: only for fixed confidence"),
    file("replications-0", {"replications": 0}, "replications: expected an integer >= 1"),
    file("replications-huge", {"replications": 10**12}, "replications: expected an integer <= 1e+06"),
    file("replications-string", {"replications": "10"}, "replications: expected an integer"),
    file("seed-negative", {"seed": -1}, "seed: expected an integer >= 0"),
    file("seed-float", {"seed": 1.5}, "seed: expected an integer"),
    file("n-init-huge", {"strategy.0.n_init": 10**12}, "strategy[0].n_init: expected at most 333333"),
    file("n-init-string", {"strategy.0.n_init": "2"}, "strategy[0].n_init: expected an int >= 1"),
    file("batch-r-above-b", {"problem.batch": {"size": 2, "max_repeats": 3}}, "problem.batch.max_repeats"),
    file("top-k-k-too-large", {"problem.goal": "top-k", "problem.k": 3}, "problem.k: expected an int in [1, n_arms - 1]"),
    # --- numerically unsafe ranges ------------------------------------------------------------
    file("sigma-tiny", {"environment.sigma": 1e-300}, "environment.sigma: expected a number in [1e-100, 1e+100]"),
    file("sigma-huge", {"environment.sigma": 1e300}, "environment.sigma: expected a number in [1e-100, 1e+100]"),
    file("sigma-relative-small", {"environment.sigma": 1e-9}, "environment.sigma: expected between 1e-08 and 1e+08"),
    file("sigma-relative-large", {"environment.sigma": 1e9}, "environment.sigma: expected between 1e-08 and 1e+08"),
    file("sigma-negative", {"environment.sigma": -1.0}, "environment.sigma: expected all > 0"),
    file("subpop-sigma-tiny", {"environment": {**SUBPOP, "sigma": 1e-300}, "problem.goal": "best-feasible-arm"},
         "environment.sigma: expected a number in [1e-100"),
    # --- unknown keys and names (closest valid key suggested) ---------------------------------
    file("typo-deltaa", {"problem.deltaa": 0.1}, "problem.deltaa: unknown key (did you mean 'delta'?)"),
    file("typo-deltaa-alone", {"problem.delta": DELETE, "problem.deltaa": 0.1},
         "problem.deltaa: unknown key (did you mean 'delta'?)"),
    file("max-samples-float-huge", {"problem.max_samples": 1e30}, "problem.max_samples: expected an int in [1, 1e+09], got 1e+30."),
    file("environment-missing", {"environment": DELETE}, "environment: missing required table [environment]"),
    file("typo-top-level", {"replicatons": 3}, "replicatons: unknown key (did you mean 'replications'?)"),
    file("typo-environment", {"environment.sigmaa": 1.0}, "environment.sigmaa: unknown key (did you mean 'sigma'?)"),
    file("typo-batch", {"problem.batch": {"size": 2, "max_repeat": 2}},
         "problem.batch.max_repeat: unknown key (did you mean 'max_repeats'?)"),
    file("typo-strategy-param", {"strategy.0.trackng": "D"},
         "strategy[0].trackng: unknown parameter of strategy 'tas' (did you mean 'tracking'?)"),
    file("typo-strategy-name", {"strategy.0.name": "tass"}, "strategy[0].name: expected one of"),
    file("typo-goal", {"problem.goal": "best-arms"}, "problem.goal: expected one of"),
    file("typo-kind", {"environment.kind": "gausian"}, "environment.kind: expected one of"),
    file("bad-threshold", {"strategy.0.threshold": "proven"}, "strategy[0].threshold: expected one of"),
    file("bad-tracking", {"strategy.0.tracking": "E"}, "strategy[0].tracking: expected one of"),
    # --- strategies that do not fit ------------------------------------------------------------
    file("fixed-budget-rule-on-confidence", {"strategy.0.name": "bayes-gap"},
         "strategy[0]: BayesGap ('bayes-gap') does not support the fixed-confidence regime"),
    file("confidence-rule-on-budget", {"problem.delta": DELETE, "problem.budget": 100},
         "strategy[0]: TrackAndStop ('tas') does not support the fixed-budget regime"),
    file("wrong-goal", {"environment": SUBPOP, "problem.goal": "best-feasible-arm", "strategy.0.name": "lucb"},
         "strategy[0]: LUCB ('lucb') cannot solve goal 'best-feasible-arm'"),
    file("goal-kind-mismatch", {"problem.goal": "best-feasible-arm"}, "problem.goal: goal \"best-feasible-arm\" is not available"),
    file("sequential-rule-with-batches", {"problem.batch": {"size": 4, "max_repeats": 2}},
         "strategy[0]: TrackAndStop ('tas') samples one request at a time"),
    file("independent-arm-rule-on-linear", {"environment": {"kind": "linear-gaussian", "instance": "soare", "d": 2},
                                             "strategy.0.name": "lucb"},
         "strategy[0]: LUCB ('lucb') treats arms as independent"),
    file("linear-rule-on-independent-arms", {"strategy.0.name": "xy-static"},
         "needs a linear problem"),
    file("no-strategy", {"strategy": []}, "strategy: expected at least one"),
    file("duplicate-label", {"strategy": [{"name": "tas"}, {"name": "tas"}]}, "strategy[1].label: duplicate"),
    # --- sizes that would exhaust memory -------------------------------------------------------
    # --- found by the mutation property below (each was a traceback) -------------------------
    file("problem-none", {"problem": None}, "problem: expected a table, got NoneType"),
    file("subpop-constrained-ragged", {"environment": {**SUBPOP, "constrained": [[0], [0, 1]]},
                                       "problem.goal": "best-feasible-arm"}, "environment.constrained: expected a list of"),
    file("generator-arms-huge", {"environment": {"kind": "bernoulli", "generator": "power-law", "arms": 1e308}},
         "environment.arms: expected an int >= 2 (at most 2^63 - 1), got 1e+308"),
    file("generator-arms-past-memory", {"environment": {"kind": "bernoulli", "generator": "power-law", "arms": 10**15}},
         "environment.arms: expected small enough to fit in memory"),
    file("soare-d-huge", {"environment": {"kind": "linear-gaussian", "instance": "soare", "d": 10**12}},
         "environment.d: expected small enough to fit in memory"),
    file("kernel-lengthscale-huge", {"environment": {"kind": "correlated-gaussian", "draw": "prior",
                                                     "kernel": {"name": "rbf", "lengthscale": 1e308, "points": [0, 1]}}},
         "environment.kernel.lengthscale: expected a number in [1e-100, 1e+100]"),
    file("route-delays-fraction-string", {"environment": {"kind": "route-delays", "history_fraction": "0.5"}},
         "environment.history_fraction: expected a number in (0, 1)"),
    file("float-key-huge-integer", {"environment": {"kind": "linear-gaussian", "instance": "soare", "d": 3, "omega": 2**1100}},
         "environment.omega: expected a finite number, got 13582985290493858492773514283592667786034938469317445497485196697278130927542...."),
    file("tas-oracle-growth-huge", {"strategy.0.oracle_growth": 1e308},
         "strategy[0].oracle_growth: expected a float in [0, 1e9] or None, got 1e+308."),
    file("xy-fully-adaptive-regularization-huge",
         {"environment": {"kind": "linear-gaussian", "features": [[1, 0], [0, 1]], "theta": [1, 0]},
          "strategy": [{"name": "xy-fully-adaptive", "regularization": 1e308}]},
         "strategy[0].regularization: expected a float <= 1e100 (numerically safe range)"),
    file("bayes-ucb-c-huge", {"problem.delta": DELETE, "problem.budget": 50,
                              "environment": {"kind": "correlated-gaussian", "means": [0, 1, 0.5],
                                              "kernel": {"name": "rbf", "points": [0, 1, 2]}},
                              "strategy": [{"name": "bayes-ucb", "c": 1e308}]}, "strategy[0].c: expected all <= 100"),
    file("kernel-million-arms", {"environment": {"kind": "correlated-gaussian", "draw": "prior",
                                                 "kernel": {"name": "rbf", "points": list(range(10**6))}}},
         "environment.kernel.points: expected small enough to fit in memory: the 1000000 x 1000000 covariance"),
    run("results-too-large", {"replications": 10**6, "environment.means": [0.0] * 99_999 + [1.0]},
        "'replications' parameter of experiment must be small enough to fit in memory"),
    # --- files that cannot be read -------------------------------------------------------------
    toml("not-utf8", b"name = \"caf\xe9\"\n", "not a UTF-8 text file"),
    toml("invalid-toml", "[problem\n", "not valid TOML"),
    toml("nan-literal", 'name = "x"\nreplications = 2\n[problem]\ngoal = "best-arm"\ndelta = 0.1\n'
                        '[environment]\nkind = "gaussian"\nmeans = [1.0, nan]\n[[strategy]]\nname = "tas"\n',
         "environment.means: expected finite numbers"),
    toml("directory", None, "is a directory"),
    toml("nested-arrays-5000", "a = " + "[" * DEEP + "]" * DEEP + "\n", "values nested more than 32 deep"),
    toml("nested-inline-tables-5000", "a = " + "{b = " * DEEP + "1" + "}" * DEEP + "\n",
         "values nested more than 32 deep"),
    toml("nested-arrays-40", "name = 'x'\na = " + "[" * 40 + "]" * 40 + "\n", "nested 33 deep, more than the limit of 32"),
    toml("over-16-mib", b"#" * (16 * 2**20 + 1), "larger than the 16 MiB limit of an experiment file (TOML)"),
    path("dev-zero", _device("/dev/zero"), "/dev/zero: is a character device, expected an experiment file"),
    path("dev-null", _device("/dev/null"), "/dev/null: is a character device"),
    path("fifo", _fifo, "exp.toml: is a FIFO (named pipe), expected an experiment file (TOML) (a regular file)"),
    # --- the user's own code (callable environments) ----------------------------------------------
    user("module-syntax-error", "def f(arm, rng)\n    return 1.0\n",
         "environment.function: expected a module that imports without error (importing 'pybai_user_module_syntax_error' "
         "raised SyntaxError: "),
    user("module-raises-at-import", "raise ValueError('no data here')\n",
         "raised ValueError: no data here)"),
    user("module-sys-exit-3-at-import", "import sys\nsys.exit(3)\n", "raised SystemExit (sys.exit(3)))"),
    user("module-sys-exit-at-import", "import sys\nsys.exit()\n", "raised SystemExit (sys.exit()))"),
    user("module-keyboard-interrupt-at-import", "raise KeyboardInterrupt\n", "raised KeyboardInterrupt)"),
    user("function-sys-exit", "import sys\ndef f(arm, rng):\n    sys.exit()\n",
         "environment.function: the reward function pybai_user_function_sys_exit:f raised for arm 0: "
         "SystemExit (sys.exit())"),
    user("function-sys-exit-3", "import sys\ndef f(arm, rng):\n    sys.exit(3)\n", "raised for arm 0: SystemExit (sys.exit(3))"),
    user("function-keyboard-interrupt", "def f(arm, rng):\n    raise KeyboardInterrupt\n",
         "raised for arm 0: KeyboardInterrupt"),
    user("function-raises", "def f(arm, rng):\n    raise ValueError('bad\\nsplit')\n", "raised for arm 0: ValueError: bad split"),
    # --- the Python API -----------------------------------------------------------------------
    api("api-tell-reward-huge", lambda: _tell_first(TrackAndStop(), [1e308]),
        "'rewards' parameter of tell must be finite numbers within 1e+100 noise standard deviations"),
    api("api-tell-reward-nan", lambda: _tell_first(TrackAndStop(), [float("nan")]), "'rewards' parameter of tell"),
    api("api-tell-reward-string", lambda: _tell_first(TrackAndStop(), ["x"]), "'rewards' parameter of tell must be real numbers"),
    api("api-tell-reward-complex", lambda: _tell_first(TrackAndStop(), [0.5 + 1j]),
        "'rewards' parameter of tell must be real numbers (ints or floats; not booleans, complex numbers or strings)"),
    api("api-tell-reward-complex-array", lambda: _tell_first(TrackAndStop(), np.array([0.5 + 0j])),
        "'rewards' parameter of tell must be real numbers"),
    api("api-tell-reward-numeric-string", lambda: _tell_first(TrackAndStop(), ["0.5"]),
        "'rewards' parameter of tell must be real numbers"),
    api("api-tell-reward-numeric-string-scalar", lambda: _tell_first(TrackAndStop(), "0.5"),
        "'rewards' parameter of tell must be real numbers"),
    api("api-tell-reward-bool", lambda: _tell_first(TrackAndStop(), True), "'rewards' parameter of tell must be real numbers"),
    api("api-tell-reward-bool-in-list", lambda: _tell_first(TrackAndStop(), [np.True_]),
        "'rewards' parameter of tell must be real numbers"),
    api("api-tell-reward-bool-array", lambda: _tell_first(TrackAndStop(), np.array([False])),
        "'rewards' parameter of tell must be real numbers"),
    api("api-tell-reward-object", lambda: _tell_first(TrackAndStop(), np.array([None], dtype=object)),
        "'rewards' parameter of tell must be real numbers"),
    api("api-tell-reward-int-beyond-float", lambda: _tell_first(TrackAndStop(), [2**1100]),
        "'rewards' parameter of tell must be real numbers"),
    api("api-session-tell-reward-complex", lambda: _session_tell([1 + 2j]), "'rewards' parameter of tell must be real numbers"),
    api("api-session-tell-reward-bool", lambda: _session_tell([True]), "'rewards' parameter of tell must be real numbers"),
    api("api-session-tell-reward-string", lambda: _session_tell(["0.5"]), "'rewards' parameter of tell must be real numbers"),
    # --- session answer CSVs: plain ASCII numbers only (float() and int() take more) ------------
    answers("csv-reward-underscore", "source,reward\n0,1_000\n", "answers.csv, line 2: reward '1_000' is not a number"),
    answers("csv-reward-full-width", "source,reward\n0,１２\n", "answers.csv, line 2: reward '１２' is not a number"),
    answers("csv-reward-arabic-indic", "source,reward\n0,٣\n", "answers.csv, line 2: reward '٣' is not a number"),
    answers("csv-reward-hex", "source,reward\n0,0x1\n", "answers.csv, line 2: reward '0x1' is not a number"),
    answers("csv-reward-complex", "source,reward\n0,1+2j\n", "answers.csv, line 2: reward '1+2j' is not a number"),
    answers("csv-reward-third-line", "source,reward\n0,0.5\n0,1_0\n", "answers.csv, line 3: reward '1_0'"),
    answers("csv-source-full-width", "source,reward\n０,0.5\n", "answers.csv, line 2: source '０' is not an integer"),
    answers("csv-source-underscore", "source,reward\n0_0,0.5\n", "answers.csv, line 2: source '0_0' is not an integer"),
    answers("csv-request-full-width", "request,source,reward\n１,0,0.5\n",
            "answers.csv, line 2: request '１' is not an integer"),
    api("api-sample-sources-float", lambda: GaussianEnvironment([1.0, 0.0]).sample([0.5], np.random.default_rng(0)),
        "'sources' parameter of GaussianEnvironment.sample must be a 1-D list of integer indices in [0, 1]"),
    api("api-sample-sources-out-of-range", lambda: BernoulliEnvironment([0.5, 0.2]).sample([2], np.random.default_rng(0)),
        "'sources' parameter of BernoulliEnvironment.sample must be a 1-D list of integer indices in [0, 1]"),
    api("api-sample-rng", lambda: GaussianEnvironment([1.0, 0.0]).sample([0], 3),
        "'rng' parameter of GaussianEnvironment.sample must be a numpy.random.Generator"),
    api("api-family-n-sources", lambda: Gaussian(1.0, n_sources=1.5), "'n_sources' parameter of Gaussian must be an int"),
    api("api-family-n-sources-huge", lambda: Gaussian(1.0, n_sources=10**15),
        "'n_sources' parameter of Gaussian must be small enough to fit in memory"),
    api("api-problem-family", lambda: BestArmProblem(3, [1.0, 1.0, 1.0], FixedConfidence(0.1)),
        "'family' parameter of BestArmProblem must be a Family instance"),
    api("api-oracle-strings", lambda: P3().oracle(["1", "0.5", "0"]), "'means' parameter of BestArmProblem must be numbers"),
    api("api-oracle-nan", lambda: P3().oracle([1.0, np.nan, 0.0]), "'means' parameter of BestArmProblem must be finite"),
    api("api-oracle-shape", lambda: P3().oracle([1.0, 0.0]), "'means' parameter of BestArmProblem must be 3 values"),
    api("api-complexity-strings", lambda: P3().complexity(["1", "0", "0"]), "'means' parameter of BestArmProblem"),
    api("api-top-k-strings", lambda: TopKProblem(3, 1, G3(), FixedConfidence(0.1)).answer(["1", "0", "0"]),
        "'means' parameter of TopKProblem must be numbers"),
    api("api-one-arm", lambda: BestArmProblem(1, Gaussian(1.0), FixedConfidence(0.1)), "'n_arms' parameter"),
    api("api-family-size", lambda: BestArmProblem(4, G3(), FixedConfidence(0.1)),
        "'family' parameter of BestArmProblem must be a family of 4 sources"),
    api("api-delta", lambda: FixedConfidence(1.5), "'delta' parameter of FixedConfidence must be a number in (0, 1)"),
    api("api-budget-huge", lambda: FixedBudget(1e30), "'budget' parameter of FixedBudget must be an int in [1, 1e+09]"),
    api("api-batch-budget-huge", lambda: BestArmProblem(3, G3(), FixedBudget(10**9),
                                                        __import__("pybai").BatchSpec(10, 2)),
        "'budget' parameter of BestArmProblem must be at most 1e+09 samples"),
    api("api-sigma-tiny", lambda: Gaussian(1e-300, n_sources=2), "'sigma' parameter of Gaussian must be a number in"),
    api("api-env-sigma-relative", lambda: GaussianEnvironment([1e9, 0.0], sigma=1e-3),
        "'sigma' parameter of GaussianEnvironment must be between 1e-08 and 1e+08"),
    api("api-env-strings", lambda: GaussianEnvironment(["1", "0"]), "'means' parameter of GaussianEnvironment"),
    api("api-bernoulli-range", lambda: BernoulliEnvironment([1.5, 0.0]), "'means' parameter of BernoulliEnvironment"),
    api("api-n-init-huge", lambda: TrackAndStop(n_init=10**12).start(P3(), rng=0), "'n_init' parameter of TrackAndStop"),
    api("api-n-init-string", lambda: TrackAndStop(n_init="2").start(P3(), rng=0), "'n_init' parameter of TrackAndStop"),
    api("api-rng", lambda: TrackAndStop().start(P3(), rng="a"), "'rng' parameter of TrackAndStop"),
    api("api-problem", lambda: TrackAndStop().start("x", rng=0), "'problem' parameter of TrackAndStop"),
    api("api-strategy-typo", lambda: make_strategy("tas", trackng="D"), "strategy.trackng: unknown parameter of strategy 'tas' (did you mean 'tracking'?)"),
    api("api-strategy-name", lambda: make_strategy("tass"), "Got 'tass' (did you mean 'tas'?)"),
    api("api-threshold", lambda: make_threshold("x", 0.1, n_alternatives=2, n_terms=2, family="gaussian"),
        "'kind' parameter of make_threshold"),
    api("api-run-experiment", lambda: run_experiment("file.toml"), "'experiment' parameter of run_experiment"),
    api("api-weights-negative", lambda: SubpopulationGaussianEnvironment([[0.0, 1.0]] * 2, [1.0, -1.0]),
        "'weights' parameter of SubpopulationGaussianEnvironment"),
    api("api-feasible-means-strings", lambda: FeasibleArmProblem(2, 1, [1.0], None, 0.0, Gaussian(1.0, n_sources=2),
                                                                  FixedConfidence(0.1)).is_correct(0, ["1", "0"]),
        "'means' parameter of FeasibleArmProblem must be numbers"),
    # --- integers bound for storage or numpy: 64 bits, never wrapped; floats whose arithmetic would overflow
    file("seed-2-63", {"seed": 2**63}, "seed: expected an integer of at most 64 bits"),
    file("seed-10-30", {"seed": 10**30}, "seed: expected an integer of at most 64 bits"),
    api("api-session-seed-2-63", lambda: Session.create("/nonexistent/x.db", dict(BASE), seed=2**63),
        "'seed' parameter of Session.create must be an int >= 0 (at most 2^63 - 1)"),
    api("api-session-tell-sources-nested", lambda: _session_call(lambda s: s.tell(1, [[0]], [1.0])),
        "'sources' parameter of tell must be a flat list of source indices"),
    api("api-session-tell-sources-nested-array", lambda: _session_call(lambda s: s.tell(1, np.zeros((1, 1), int), [1.0])),
        "'sources' parameter of tell must be a flat list of source indices"),
    api("api-session-tell-sources-ragged", lambda: _session_call(lambda s: s.tell(1, [0, [1]], [1.0, 0.0])),
        "'sources' parameter of tell must be a flat list of source indices"),
    api("api-session-status-level-nan", lambda: _session_call(lambda s: s.status(float("nan"))),
        "'level' parameter of Session.status must be a number in (0, 1)"),
    api("api-session-status-level-2", lambda: _session_call(lambda s: s.status(2.0)),
        "'level' parameter of Session.status must be a number in (0, 1)"),
    api("api-session-status-level-0", lambda: _session_call(lambda s: s.status(0)),
        "'level' parameter of Session.status must be a number in (0, 1)"),
    api("api-session-status-level-string", lambda: _session_call(lambda s: s.status("0.9")),
        "'level' parameter of Session.status must be a number in (0, 1)"),
    api("api-tell-request-2-63", lambda: _session_call(lambda s: s.tell(2**63, [0], [1.0])),
        "'request_id' parameter of tell must be an int in [-2^63, 2^63 - 1]. Got 9223372036854775808"),
    api("api-cancel-request-10-30", lambda: _session_call(lambda s: s.cancel(10**30)),
        "'request_id' parameter of tell must be an int in [-2^63, 2^63 - 1]"),
    api("api-tell-source-2-63", lambda: _session_call(lambda s: s.tell(1, [2**63], [1.0])),
        "'sources' parameter of tell must be integer source indices. Got [9223372036854775808]"),
    api("api-tell-source-uint64", lambda: _session_call(lambda s: s.tell(1, np.array([2**63], np.uint64), [1.0])),
        "Got array([9223372036854775808], dtype=uint64)"),
    api("api-tell-bare-string", lambda: _session_call(lambda s: s.tell(1, "0", [1.0])),
        "'sources' parameter of tell must be a list of sources"),
    api("api-max-pending-huge", lambda: _session_call(lambda s: None, max_pending=2**63),
        "max_pending"),
    api("api-max-pending-numpy-float", lambda: _session_call(lambda s: None, max_pending=np.float64(2.5)),
        "session.max_pending: expected an integer, got 2.5"),
    file("bounded-range-overflows", {"problem.reward_model": "bounded", "problem.reward_range": [0.0, 1e308],
                                     "environment": {"kind": "bernoulli", "means": [0.6, 0.4]}},
         "problem.reward_range: expected"),
    file("bounded-range-inf-width", {"problem.reward_model": "bounded", "problem.reward_range": [-1e308, 1e308],
                                     "environment": {"kind": "bernoulli", "means": [0.6, 0.4]}},
         "problem.reward_range: expected"),
    api("api-bounded-range-overflows", lambda: Bounded(2, 0.0, 1e308), "'reward_range' parameter of Bounded"),
    api("api-bounded-range-lost", lambda: Bounded(2, 1e12, 1e12 + 1e-3), "'reward_range' parameter of Bounded"),
    file("bounded-epsilon-past-the-range", {"problem.reward_model": "bounded", "problem.epsilon": 1.5,
                                            "environment": {"kind": "bernoulli", "means": [0.6, 0.4]},
                                            "strategy.0.threshold": "delta-correct"},
         "problem.epsilon: expected a float in (0, 1) for bounded-kl-inf rewards"),
]


def _session_call(call, **create):
    """``call(session)`` on a new session (one request asked) in a temporary folder."""
    import tempfile

    doc = {"problem": {"goal": "best-arm", "delta": 0.1}, "environment": {"kind": "bernoulli", "arms": 3},
           "strategy": [{"name": "uniform"}]}
    with tempfile.TemporaryDirectory() as folder:
        with Session.create(Path(folder) / "s.db", doc, **create) as session:
            session.ask()
            call(session)


def _check_message(message: str, fragment: str) -> None:
    assert "\n" not in message, message
    assert fragment in message, f"{fragment!r} not in {message!r}"
    assert "strategy[0]: strategy[0]" not in message


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_gives_one_line_naming_the_parameter(case, tmp_path):
    if case.where == "file":
        with pytest.raises(ConfigError) as info:
            parse_experiment(document(case.input))
    elif case.where == "run":
        experiment = parse_experiment(document(case.input))
        with pytest.raises(InvalidParameterError) as info:
            run_experiment(experiment)
    elif case.where == "toml":
        path = tmp_path if case.input is None else tmp_path / "exp.toml"
        if isinstance(case.input, bytes):
            path.write_bytes(case.input)
        elif case.input is not None:
            path.write_text(case.input)
        with pytest.raises(ConfigError) as info:
            load_experiment(path)
    elif case.where == "path":
        target = case.input(tmp_path)
        with pytest.raises(ConfigError) as info:
            _bounded(lambda: load_experiment(target))
    elif case.where == "user":
        with _user_module(tmp_path, case) as name:
            doc = document({"environment": {"kind": "callable", "function": f"{name}:f", "n_arms": 3,
                                            "means": [1.0, 0.5, 0.0]},
                            "problem.delta": DELETE, "problem.budget": 6, "strategy.0.name": "uniform"})
            with pytest.raises(PybaiError) as info:
                run_experiment(parse_experiment(doc))
    elif case.where == "answers":
        path = tmp_path / "answers.csv"
        path.write_text(case.input, encoding="utf-8")
        with pytest.raises(InvalidParameterError) as info:
            Layout(P3()).parse_answer(*read_csv(path), request_id=1, where=str(path))
    else:
        with pytest.raises(InvalidParameterError) as info:
            case.input()
    _check_message(str(info.value), case.fragment)


def _bounded(call, seconds: float = 20.0):
    """``call()`` in a daemon thread: its result or exception, or a failure if it hangs."""
    outcome = {}

    def target():
        try:
            outcome["value"] = call()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the test's thread
            outcome["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still reading after {seconds} s"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


class _user_module:
    """A module ``pybai_user_<id>`` of ``case.input`` importable while the block runs."""

    def __init__(self, tmp_path, case):
        self.folder, self.name = tmp_path, "pybai_user_" + case.id.replace("-", "_")
        (tmp_path / f"{self.name}.py").write_text(case.input)

    def __enter__(self):
        sys.path.insert(0, str(self.folder))
        return self.name

    def __exit__(self, *exc_info):
        sys.path.remove(str(self.folder))
        sys.modules.pop(self.name, None)


def test_case_ids_are_unique():
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids))


# --- the CLI: exit status 2 and one line, in-process and in a subprocess ---------------------------

def _write_toml(path, doc) -> None:
    write_toml(path, doc)


CLI_CASES = [c for c in CASES if c.where == "file" and c.id in {
    "means-nan", "means-strings", "delta-1", "budget-huge", "typo-deltaa", "typo-strategy-param",
    "sigma-tiny", "fixed-budget-rule-on-confidence", "replications-huge"}]


@pytest.mark.parametrize("case", CLI_CASES, ids=[c.id for c in CLI_CASES])
def test_cli_refuses_in_one_line(case, tmp_path, capsys):
    path = tmp_path / "exp.toml"
    _write_toml(path, document(case.input))
    assert main(["run", str(path), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("pybai: error: ")
    _check_message(err[0], case.fragment)


def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "pybai.cli", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd)


def test_cli_subprocess_no_traceback(tmp_path):
    bad = tmp_path / "latin1.toml"
    bad.write_bytes(b"name = \"caf\xe9\"\n")
    res = _cli("run", str(bad), "--quiet")
    assert res.returncode == 2 and "Traceback" not in res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "not a UTF-8 text file" in lines[0], res.stderr


def _integer_options():
    """(command words, option) of every command-line option that reads an integer (found by walking the parser)."""
    import argparse

    from pybai.cli import build_parser

    out = []

    def walk(parser, words):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, words + [name])
            elif action.option_strings and callable(action.type):
                try:
                    read = action.type("3")
                except Exception:  # noqa: BLE001 - not a number type
                    continue
                if isinstance(read, int) and not isinstance(read, bool):
                    out.append((tuple(words), action.option_strings[-1]))

    walk(build_parser(), [])
    return out


INTEGER_OPTIONS = _integer_options()


@pytest.mark.parametrize("value", [str(2**64), str(10**30), "1.5"])
@pytest.mark.parametrize("words,option", INTEGER_OPTIONS, ids=[" ".join(w) + " " + o for w, o in INTEGER_OPTIONS])
def test_every_integer_option_is_bounded(words, option, value, capsys):
    """Every integer option of every command refuses values beyond 64 bits (and negative or fractional ones where
    they make no sense) while the arguments are read: exit 2, one line naming the option, before any work."""
    try:
        code = main([*words, option, value])
    except SystemExit as exc:  # argparse refuses while reading the arguments
        code = exc.code
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("pybai: error: "), err
    assert option in err[0], err[0]


def test_no_option_reads_a_bare_int():
    """``type=int`` would take 2^64 and fail deep inside (an OverflowError): integer options use the bounded
    readers of pybai.cli._common."""
    import argparse

    from pybai.cli import build_parser

    bare = []

    def walk(parser, words):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, words + [name])
            elif action.type is int:
                bare.append(" ".join(words + action.option_strings))

    walk(build_parser(), [])
    assert not bare, bare


USER_CLI_CASES = [c for c in CASES if c.id in {"module-syntax-error", "module-sys-exit-3-at-import",
                                                 "module-keyboard-interrupt-at-import", "function-sys-exit",
                                                 "function-sys-exit-3", "function-keyboard-interrupt"}]


@pytest.mark.parametrize("case", USER_CLI_CASES, ids=[c.id for c in USER_CLI_CASES])
def test_cli_user_code_failure_is_one_line_exit_2(case, tmp_path):
    """sys.exit() or KeyboardInterrupt from the user's module or function: exit 2 and one line, not 0, 3 or 130."""
    with _user_module(tmp_path, case) as name:
        exp = tmp_path / "exp.toml"
        exp.write_text(f'replications = 2\n[problem]\ngoal = "best-arm"\nbudget = 6\n[environment]\nkind = "callable"\n'
                       f'function = "{name}:f"\nn_arms = 3\nmeans = [1.0, 0.5, 0.0]\n[[strategy]]\nname = "uniform"\n')
        res = _cli("run", str(exp), "--quiet", "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pybai: error: environment.function: "), res.stderr
    _check_message(lines[0], case.fragment)


@pytest.mark.parametrize("target", ["/dev/zero", "fifo"])
def test_cli_special_files_refused_up_front(target, tmp_path):
    if target == "fifo":
        target = str(_fifo(tmp_path))
    elif not os.path.exists(target):
        pytest.skip(f"no {target}")
    res = _cli("run", target, "--quiet")
    assert res.returncode == 2 and "Traceback" not in res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{target}: is a " in lines[0], res.stderr


def test_answer_csv_and_data_files_share_the_cap(tmp_path):
    from pybai.datasets.flights import load_flight_delays
    from pybai.session.rows import read_csv

    with pytest.raises(InvalidParameterError, match="/dev/zero: is a character device, expected a CSV file"):
        _bounded(lambda: read_csv("/dev/zero"))
    big = tmp_path / "big.csv"
    big.write_bytes(b"1," * (8 * 2**20 + 1))
    with pytest.raises(InvalidParameterError, match="larger than the 16 MiB limit of a CSV file"):
        read_csv(big)
    with pytest.raises(InvalidParameterError, match="big.csv: larger than the 16 MiB limit"):
        load_flight_delays(big)


def test_cli_tie_warning_is_one_line_and_the_table_says_censored(tmp_path):
    path = tmp_path / "tie.toml"
    _write_toml(path, document({"environment.means": [1.0, 1.0, 0.0], "problem.max_samples": 300,
                                "replications": 4}))
    res = _cli("run", str(path), "--quiet")
    assert res.returncode == 0, res.stderr
    warning = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(warning) == 1 and warning[0].startswith("pybai: warning: bad: the true answer is not unique")
    assert "max_samples = 300" in warning[0]
    assert "true answer arm 0 (not unique" in res.stdout and "index" not in res.stdout
    assert "censored: stopped at max_samples" in res.stdout


def test_help_names_only_existing_commands():
    from pybai.cli import COMMANDS, build_parser

    text = build_parser().format_help()
    description = build_parser().description
    for future in ("session", "validate", "reproduce", "report", "sessions", "simulations"):
        if future not in COMMANDS:
            assert future not in description
    for name in COMMANDS:
        assert name in text


# --- ties: warned up front, any tied answer counts, runs end at max_samples ------------------------

def test_answer_sets_with_ties():
    p = P3()
    assert not p.answer_is_unique([1.0, 1.0, 0.0]) and p.answer_is_unique([1.0, 0.9, 0.0])
    assert p.is_correct(0, [1.0, 1.0, 0.0]) and p.is_correct(1, [1.0, 1.0, 0.0])
    assert not p.is_correct(2, [1.0, 1.0, 0.0]) and not p.is_correct(1, [1.0, 0.9, 0.0])
    top = TopKProblem(4, 2, Gaussian(1.0, n_sources=4), FixedConfidence(0.1))
    assert not top.answer_is_unique([3.0, 1.0, 1.0, 0.0]) and top.answer_is_unique([3.0, 2.0, 1.0, 1.0])
    assert top.is_correct([0, 2], [3.0, 1.0, 1.0, 0.0]) and top.is_correct([1, 0], [3.0, 1.0, 1.0, 0.0])
    assert not top.is_correct([1, 2], [3.0, 1.0, 1.0, 0.0]) and not top.is_correct([0, 0], [3.0, 1.0, 1.0, 0.0])
    # best feasible arm: arms 0 and 1 feasible with equal quality; arm 2 infeasible and better
    feas = FeasibleArmProblem(3, 2, [0.5, 0.5], [0], 0.0, Gaussian(1.0, n_sources=6), FixedConfidence(0.1))
    mu = [[0.5, 0.5], [0.2, 0.8], [-1.0, 5.0]]
    assert not feas.answer_is_unique(mu)
    assert feas.is_correct(0, mu) and feas.is_correct(1, mu) and not feas.is_correct(2, mu)
    assert not feas.is_correct(-1, mu)
    none = [[-0.5, 0.5], [-0.2, 0.8], [-1.0, 5.0]]
    assert feas.answer_is_unique(none) and feas.is_correct(-1, none) and not feas.is_correct(0, none)
    on_floor = [[0.0, 2.0], [0.2, 0.8], [-1.0, 5.0]]  # the answer's constrained mean on its floor
    assert not feas.answer_is_unique(on_floor)


def test_tied_run_warns_once_counts_ties_correct_and_is_censored():
    experiment = parse_experiment(document({"environment.means": [1.0, 1.0, 0.0], "problem.max_samples": 400,
                                            "replications": 6}))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        doc = run_experiment(experiment)
    ours = [w for w in caught if issubclass(w.category, PybaiWarning)]
    assert len(ours) == 1 and "not unique" in str(ours[0].message) and "max_samples = 400" in str(ours[0].message)
    res = doc["results"][0]
    assert doc["answer_unique"] is False and res["correct_rate"] == 1.0  # every run answers arm 0 or 1
    assert res["censored"] >= 1 and res["censored"] + (res["mean_samples"] < 400) >= 1


def test_weights_that_do_not_sum_to_one_warn_and_are_normalised():
    with pytest.warns(PybaiWarning, match="'weights' parameter of SubpopulationGaussianEnvironment sums to 0.6"):
        env = SubpopulationGaussianEnvironment([[0.0, 1.0], [1.0, 0.0]], [0.3, 0.3])
    assert env.weights.tolist() == [0.5, 0.5]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        SubpopulationGaussianEnvironment([[0.0, 1.0], [1.0, 0.0]], [0.5, 0.5 + 1e-9])


def test_sigma_inside_the_safe_range_is_accepted():
    GaussianEnvironment([1.0, 0.0], sigma=1e-7)
    GaussianEnvironment([1e-3, 0.0], sigma=1e4)
    GaussianEnvironment([0.0, 0.0], sigma=1e-50)  # all means 0: only the absolute range applies


def test_figures_number_arms_from_zero_or_name_them():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pybai.report.figures import FIGURES, FigureData

    def draw(alloc, kind="allocation", options=None, labels=None):
        doc = {"results": [{"strategy": "s", "mean_allocation": alloc}], **({"labels": labels} if labels else {})}
        return FIGURES[kind].function(FigureData("d", doc, []), options or {})

    (heat,) = [ax for ax in draw([[0.1, 0.2], [0.3, 0.4]]).axes if ax.images]
    assert [t.get_text() for t in heat.get_yticklabels()] == ["arm 0", "arm 1"]
    assert [t.get_text() for t in heat.get_xticklabels()] == ["subpop 0", "subpop 1"]
    (heat,) = [ax for ax in draw([[0.1, 0.2], [0.3, 0.4]], labels=["lo", "hi"]).axes if ax.images]
    assert [t.get_text() for t in heat.get_yticklabels()] == ["lo", "hi"]
    (bars,) = draw([0.5, 0.5]).axes
    assert [t.get_text() for t in bars.get_xticklabels()] == ["arm 0", "arm 1"]
    (bars,) = draw([0.5, 0.5], labels=["control", "new-checkout"]).axes
    assert [t.get_text() for t in bars.get_xticklabels()] == ["control", "new-checkout"]
    rows = [{"point": 0, "strategy": "s", "recommendation": r} for r in (0, 1, 1)]
    for labels, ticks in ((None, ["arm 0", "arm 1"]), (["control", "new-checkout"], ["control", "new-checkout"])):
        doc = {"results": [{"strategy": "s", "mean_allocation": [0.5, 0.5]}], **({"labels": labels} if labels else {})}
        (hist,) = FIGURES["histogram"].function(FigureData("d", doc, rows), {"y": "recommendation"}).axes
        assert [t.get_text() for t in hist.get_xticklabels()] == ticks
    plt.close("all")
