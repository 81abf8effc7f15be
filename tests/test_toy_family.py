"""The worked example of docs/design.md: a toy family added in one file outside the package is
picked up by the common checks (run in a fresh process, so the registry of this one is untouched)."""

import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
TOY = ROOT / "docs" / "examples" / "toy_family.py"


def test_toy_family_is_short():
    assert len(TOY.read_text().splitlines()) <= 150


def test_common_checks_pick_up_the_toy_family():
    env = {**os.environ, "PYBAI_TEST_EXTRA_FAMILY": str(TOY)}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                           str(ROOT / "tests" / "strategies" / "test_common.py"), "-k", "tas-worst"],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    passed = int(proc.stdout.strip().splitlines()[-1].split(" passed")[0].split()[-1])
    assert passed >= 5, proc.stdout[-1000:]  # runs, seeds, requests, state round trip ... on the toy goal


def test_toy_goal_in_an_experiment_document():
    code = (
        "import runpy, sys; runpy.run_path(sys.argv[1]);"
        "from pybai.config.experiment import parse_sweep;"
        "from pybai.simulate import run_outcomes;"
        "doc = {'name': 'toy', 'seed': 1, 'replications': 3, 'problem': {'goal': 'worst-arm', 'delta': 0.1},"
        " 'environment': {'kind': 'gaussian', 'means': [1.0, 0.5, 0.0], 'sigma': 1.0},"
        " 'strategy': [{'name': 'tas-worst'}]};"
        "(outs,) = run_outcomes(parse_sweep(doc)[0]);"
        "print(sum(o.correct for o in outs), [o.recommendation for o in outs])"
    )
    proc = subprocess.run([sys.executable, "-c", code, str(TOY)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.startswith("3 [2, 2, 2]"), proc.stdout
