"""pybai.precompile and ``pybai precompile``: the kernels a run needs are compiled once, into the cache.

The checks read numba's own counters (``Dispatcher.stats``): after :func:`pybai.precompile.precompile`
on a family, a fresh process playing that family's compiled run loads the driver's machine code
from the cache (a hit) and compiles nothing (no miss).  A warm-up that compiled other signatures
than the ones real runs use, or that wrote nothing to the cache, fails here.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pybai.cli import main
from pybai.exceptions import InvalidParameterError
from pybai.precompile import CAP, REFERENCE_STRATEGY, precompile

#: a fresh process's first compiled Track-and-Stop run on a Gaussian instance, then numba's counters
FRESH_RUN = """
import json, sys
import numpy as np
from pybai.simulate.runner import run_replication
from pybai.strategies.registry import make_strategy
from pybai.strategies import _driver
from pybai.validation import FAMILIES
family = FAMILIES["gaussian-best-arm"]
instance = family.draw(np.random.default_rng(11))  # another instance than the warm-up's, same kinds of arrays
out = run_replication(make_strategy("tas"), instance.environment, instance.make_problem(family.regime(None, 500)),
                      np.random.SeedSequence(5))
stats = _driver.run_trajectory.stats
print(json.dumps({"hits": sum(stats.cache_hits.values()), "misses": sum(stats.cache_misses.values()),
                  "samples": int(out.samples)}))
"""


def test_a_fresh_process_loads_the_warmed_driver_and_compiles_nothing():
    done = precompile(families=["gaussian-best-arm"])
    assert [d.family for d in done] == ["gaussian-best-arm"] and done[0].runs > 0
    proc = subprocess.run([sys.executable, "-c", FRESH_RUN], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    counts = json.loads(proc.stdout.strip().splitlines()[-1])
    assert counts["samples"] > 0
    assert counts["misses"] == 0 and counts["hits"] >= 1, counts


def test_each_family_plays_its_strategies_compiled_and_through_ask_tell():
    # bounded rewards have no compiled run: both passes go through ask/tell, and every strategy of the goal plays
    (done,) = precompile(families=["bounded-two-point"])
    from pybai.strategies.registry import get_strategy_class
    from pybai.validation import FAMILIES
    from pybai.validation.suite import strategies_for

    family = FAMILIES["bounded-two-point"]
    names = strategies_for(family.goal, "fixed-confidence")
    plays = sum(1 if get_strategy_class(n).stopping_rule else 2 for n in names)
    # and Track-and-Stop plays every other threshold kind it takes (the families that refuse one count it refused)
    assert REFERENCE_STRATEGY in names
    plays += len(set(get_strategy_class(REFERENCE_STRATEGY).threshold_kinds) - {"delta-correct", "heuristic"})
    assert done.runs + done.refused == 2 * plays and done.runs > 0
    assert CAP <= 1_000  # a warm-up replication stays tiny


@pytest.mark.parametrize("jobs", [0, -1, 1.5, True, "2"])
def test_bad_jobs_are_refused_in_one_line(jobs):
    with pytest.raises(InvalidParameterError, match="'jobs' parameter of precompile must be an integer >= 1"):
        precompile(jobs, families=["linear"])


def test_an_unknown_family_is_refused_before_any_work():
    with pytest.raises(InvalidParameterError, match="'families' parameter of precompile"):
        precompile(families=["gaussian-best-arm", "no-such-family"])


def test_the_command_prints_one_line_per_family_and_refuses_bad_options(capsys):
    assert main(["precompile", "--family", "linear"]) == 0
    captured = capsys.readouterr()
    assert "compiled: linear" in captured.err and "pybai precompile: 1 families" in captured.out
    with pytest.raises(SystemExit) as refused:  # refused while the arguments are read, as every integer option
        main(["precompile", "--jobs", "0"])
    assert refused.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("pybai: error: argument --jobs: expected a positive integer"), err
    assert main(["precompile", "--family", "nope"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("pybai: error: The '--family"), err
