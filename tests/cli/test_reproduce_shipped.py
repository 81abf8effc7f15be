"""Every shipped reproduction runs through ``pybai reproduce NAME --quick``, the command itself, at a tiny size.

The golden test (``tests/golden``) checks each file's outcomes through ``run_task``; it skips what
the command adds around the runs: the preflight checks (with their pilot run of each strategy),
the backends, the stores, variants and the report.  A reference rule (``xy-oracle``) that the
pilot started without telling it the truth broke ``make demo`` while the golden test stayed green.
Here the command runs each reproduction with its ``--quick`` settings cut to one replication per
strategy and the first value of each grid axis, and the pilot is forced on every point (it
normally runs only above two million samples) with no minimum duration and few steps, so every
strategy of every file passes through it.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

import pybai
from pybai.cli import main

#: replications per strategy and point in this test (the files' --quick settings use up to 50)
REPLICATIONS = 1

#: files whose tiny run is cut further, by file name -> settings: the Twitter stand-ins run 25 batches (the fewest
#: of 60,000 samples instead of their --quick 200 (12 million samples a run, ~30 s of CPU each).
#: What this test checks (the command's path: preflight and its pilot, backends, stores, report)
#: does not depend on the budget; the outcomes of the --quick budget are the golden test's
#: (tests/golden: topk-twitter, topk-twitter-binomial; the first replication in make test, both with
#: PYBAI_GOLDEN_FULL=1).
SMALLER = {"topk-twitter": {"problem": {"budget": 25}}, "topk-twitter-binomial": {"problem": {"budget": 25}}}

#: reproductions whose tiny run still takes over 15 s of CPU (measured: bayesgap-automl ~20 s, a
#: model fitted per sample; the Twitter stand-ins ~30 s each before :data:`SMALLER`): run by make
#: test, left out by make test-fast.  All others take 2-11 s.
SLOW = {"batch-top-k-twitter", "batch-top-k-twitter-bernoulli", "bayesgap-automl"}


def _shipped_names() -> list[str]:
    """Reproduction names of the shipped files, read from their [reproduce] tables (cheap at collection)."""
    names = set()
    for path in (Path(pybai.__file__).parent / "experiments").glob("*.toml"):
        with open(path, "rb") as fh:
            table = tomllib.load(fh).get("reproduce")
        if isinstance(table, dict) and "name" in table:
            names.add(table["name"])
    return sorted(names)


def test_the_names_read_here_are_the_shipped_reproductions():
    from pybai.reproductions import shipped_reproductions

    assert _shipped_names() == sorted(shipped_reproductions())


@pytest.fixture
def tiny(monkeypatch):
    """The command's own path, with fewer replications and the pilot of every strategy forced on."""
    import pybai.reproductions as reproductions
    import pybai.simulate.preflight as preflight

    quick = reproductions.apply_quick

    def tiny_quick(document, spec):
        document = quick(document, spec)
        document["replications"] = min(int(document.get("replications", REPLICATIONS)), REPLICATIONS)
        if isinstance(document.get("grid"), dict):
            document["grid"] = {axis: values[:1] for axis, values in document["grid"].items()}
        for table, values in SMALLER.get(document.get("name"), {}).items():
            document[table] = {**document[table], **values}
        return document

    pilots = []
    pilot = preflight.pilot_seconds_per_sample

    def counted_pilot(strategy, experiment, seconds=0.0):
        pilots.append(strategy.name)
        return pilot(strategy, experiment, seconds=0.0)  # its warm-up and _PILOT_STEPS timed steps

    monkeypatch.setattr(reproductions, "apply_quick", tiny_quick)
    monkeypatch.setattr(preflight, "_PILOT_FROM_SAMPLES", 0)
    monkeypatch.setattr(preflight, "_PILOT_STEPS", 4)
    monkeypatch.setattr(preflight, "pilot_seconds_per_sample", counted_pilot)
    return pilots


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n
                                  for n in _shipped_names()])
def test_every_shipped_reproduction_runs_through_the_command(name, tiny, tmp_path, capsys):
    out = tmp_path / name
    status = main(["reproduce", name, "--quick", "--out", str(out), "--quiet", "--jobs", "1"])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    assert f"report: {out / 'report.html'}" in captured.out
    assert (out / "report.html").is_file()
    assert tiny, "the pilot run of preflight did not run"
