"""The command starts fast: ``pybai --version``, ``pybai --help`` and every ``pybai COMMAND --help``
import none of the heavy libraries, and stay within a CPU budget.

Each case runs in a fresh interpreter, as the console script does (``python -m pybai ...``), and
reports the modules it imported and its CPU time.  The module check is exact and does not depend
on the machine's load; the CPU bounds are the targets (0.3 s and 0.5 s), about three times what
they cost on a shared 2-core machine, and CPU time (not wall time) is little affected by other load.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pybai.cli import COMMANDS

#: libraries that only the work of a command may import (each costs 0.1-1 s of CPU to import)
HEAVY = ("numpy", "numba", "llvmlite", "scipy", "sqlalchemy", "starlette", "uvicorn", "matplotlib", "dask",
         "distributed", "pandas", "sklearn", "tqdm")

#: the script each case runs: the command with its arguments, then what it imported and its CPU time
PROBE = """
import json, resource, runpy, sys
out, sys.argv = sys.argv[1], ["pybai", *sys.argv[2:]]
try:
    runpy.run_module("pybai", run_name="__main__", alter_sys=True)
except SystemExit:
    pass
usage = resource.getrusage(resource.RUSAGE_SELF)
with open(out, "w") as fh:
    json.dump({"modules": sorted(sys.modules), "cpu": usage.ru_utime + usage.ru_stime}, fh)
"""

CASES = [["--version"], ["--help"]] + [[name if name != "experiments" else "list", "--help"] for name in COMMANDS]


def _probe(args, tmp_path, shows=("usage: pybai", "pybai ")) -> dict:
    out = tmp_path / "probe.json"
    done = subprocess.run([sys.executable, "-c", PROBE, str(out), *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert any(text in done.stdout for text in shows), done.stdout
    return json.loads(out.read_text())


@pytest.mark.parametrize("args", CASES, ids=" ".join)
def test_help_and_version_import_no_heavy_library(args, tmp_path):
    probe = _probe(args, tmp_path)
    heavy = sorted({m.split(".")[0] for m in probe["modules"]} & set(HEAVY))
    assert not heavy, f"pybai {' '.join(args)} imported {heavy}: import them where they are used"
    assert len(probe["modules"]) < 250, len(probe["modules"])  # ~110 today (the interpreter's own included)
    budget = 0.3 if args[0].startswith("--") else 0.5
    assert probe["cpu"] < budget, f"pybai {' '.join(args)}: {probe['cpu']:.2f} s of CPU (budget {budget} s)"


def test_the_public_names_are_still_importable_from_the_package():
    """The package imports its public names on first use; each one resolves, and ``dir`` lists them."""
    import pybai

    assert all(getattr(pybai, name) is not None for name in pybai.__all__)
    assert set(pybai.__all__) <= set(dir(pybai))
    with pytest.raises(AttributeError, match="no attribute 'NoSuchName'"):
        pybai.NoSuchName  # noqa: B018


#: libraries that a session command (ask, tell, status) never needs: each costs 0.3-1 s of CPU per command
NOT_FOR_SESSIONS = ("scipy.stats", "scipy.optimize", "sklearn", "pandas", "matplotlib", "dask", "starlette")


@pytest.mark.parametrize("command", ["status", "ask"])
def test_session_commands_import_no_library_they_do_not_use(command, tmp_path):
    """A session command imports numpy, numba, SQLAlchemy and the maths it runs, not scipy.stats or
    scipy.optimize (imported by the modules that need them, when they need them)."""
    from pybai import Bernoulli, BestArmProblem, FixedConfidence, make_strategy
    from pybai.session import Session

    db = tmp_path / "s.db"
    problem = BestArmProblem(3, Bernoulli(n_sources=3), FixedConfidence(delta=0.05))
    Session.create(db, problem=problem, strategy=make_strategy("top-two"), seed=1, name="s").close()
    args = ["session", command, "--db", str(db)] + (["--csv", str(tmp_path / "r.csv")] if command == "ask" else [])
    probe = _probe(args, tmp_path, shows=('session "s"', "request 1: 1 samples"))
    loaded = sorted(m for m in NOT_FOR_SESSIONS if m in probe["modules"])
    assert not loaded, f"pybai session {command} imported {loaded}: import them where they are used"
