"""The worked example of docs/design.md: a toy family written outside the package
(docs/examples/toy_family.py) passes pybai.testing's checks, and the checks catch a broken copy.

Each test runs in a fresh process: the toy family registers a goal and a strategy, which must not
join the registries of this one (the other tests list every registered strategy).
"""

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DESIGN = ROOT / "docs" / "design.md"
TOY = ROOT / "docs" / "examples" / "toy_family.py"


def _run(code: str) -> str:
    """Run ``code`` in a fresh interpreter from the repository root; its standard output."""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout


def checks_block() -> str:
    """The python block of docs/design.md that runs pybai.testing's checks on the toy family."""
    blocks = re.findall(r"^```python\n(.*?)^```", DESIGN.read_text(encoding="utf-8"), re.S | re.M)
    found = [block for block in blocks if "check_strategy(" in block and "import toy_family" in block]
    assert len(found) == 1, "docs/design.md has no (or several) block running check_strategy on the toy family"
    return found[0]


def test_toy_family_is_short():
    assert len(TOY.read_text(encoding="utf-8").splitlines()) <= 150


def test_the_design_page_block_runs_the_checks_on_the_toy_family():
    """The page's own block, run as a doctest (what it prints is what the page shows), then its report."""
    code = (
        "import doctest, json\n"
        f"block = {checks_block()!r}\n"
        "test = doctest.DocTestParser().get_doctest(block, {}, 'design.md', 'docs/design.md', 0)\n"
        "runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)\n"
        "runner.run(test, clear_globs=False)\n"
        "print(json.dumps({'failed': runner.failures, 'tried': runner.tries, 'report': test.globs['report']}))\n"
    )
    out = json.loads(_run(code).strip().splitlines()[-1])
    assert out["failed"] == 0 and out["tried"] >= 8, out
    report = out["report"]
    from pybai.testing import CASE_CHECKS, RULE_CHECKS

    assert len(report) == len(CASE_CHECKS) + len(RULE_CHECKS)  # one fixed-confidence sequential case
    passed = {name.split("[")[0] for name, outcome in report.items() if outcome == "passed"}
    assert {"check_runs_within_its_regime", "check_request_rules", "check_state_round_trip",
            "check_outstanding_requests", "check_bad_parameters"} <= passed, report
    assert all(outcome == "passed" or outcome.startswith("skipped: ") for outcome in report.values()), report


def test_the_checks_catch_a_broken_toy_family():
    """A GLR on the unmirrored means fails the oracle checks; a rule that asks three arms at once in a
    sequential run fails the run checks; each failure names its check."""
    code = (
        "import json, sys\n"
        "import numpy as np\n"
        "sys.path.insert(0, 'docs/examples')\n"
        "import toy_family\n"
        "from pybai import FixedConfidence\n"
        "from pybai.strategies.registry import register\n"
        "from pybai.testing import check_problem, check_strategy, register_instance\n"
        "class Unmirrored(toy_family.WorstArmProblem):\n"
        "    def glr(self, counts, means):\n"
        "        return self._best.glr(counts, np.asarray(means, dtype=float))\n"
        "@register\n"
        "class Greedy(toy_family.WorstArmTrackAndStop):\n"
        "    name = 'tas-worst-greedy'\n"
        "    def _select(self):\n"
        "        return np.arange(3)\n"
        "out = {}\n"
        "env = toy_family.GaussianEnvironment([1.0, 0.7, 0.6, 0.0])\n"
        "for what, call in (('problem', lambda: check_problem(env, Unmirrored(4, env.family(), FixedConfidence(0.1)))),\n"
        "                   ('strategy', lambda: check_strategy('tas-worst-greedy'))):\n"
        "    if what == 'strategy':\n"
        "        register_instance('worst-arm', 'toy', toy_family.instance)\n"
        "    try:\n"
        "        call()\n"
        "        out[what] = 'passed'\n"
        "    except AssertionError as exc:\n"
        "        out[what] = str(exc)\n"
        "print(json.dumps(out))\n"
    )
    out = json.loads(_run(code).strip().splitlines()[-1])
    assert "check_oracle: glr(w*, mu)" in out["problem"], out["problem"]
    assert "check_runs_within_its_regime[tas-worst-greedy-worst-arm-toy" in out["strategy"], out["strategy"]
    assert "a sequential request of 3 samples" in out["strategy"], out["strategy"]


def test_toy_goal_in_an_experiment_document():
    code = (
        "import sys; sys.path.insert(0, 'docs/examples'); import toy_family\n"
        "from pybai.config.experiment import parse_sweep\n"
        "from pybai.simulate import run_outcomes\n"
        "doc = {'name': 'toy', 'seed': 1, 'replications': 3, 'problem': {'goal': 'worst-arm', 'delta': 0.1},\n"
        "       'environment': {'kind': 'gaussian', 'means': [1.0, 0.5, 0.0], 'sigma': 1.0},\n"
        "       'strategy': [{'name': 'tas-worst'}]}\n"
        "(outs,) = run_outcomes(parse_sweep(doc)[0])\n"
        "print(sum(o.correct for o in outs), [o.recommendation for o in outs])\n"
    )
    assert _run(code).startswith("3 [2, 2, 2]")
