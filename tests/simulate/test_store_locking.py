"""A results store is written by one run at a time, and never continued without its manifest."""

import json
import subprocess
import sys
import textwrap

import pytest

from pybai.cli import main
from pybai.simulate.store import LOCK, MANIFEST, OUTCOMES, RESULTS, take_lock, release_lock

SMALL = """
name = "small"
replications = 6
seed = 3
[problem]
goal = "best-arm"
delta = 0.1
[environment]
kind = "gaussian"
means = [1.0, 0.0]
[[strategy]]
name = "uniform"
"""


@pytest.fixture
def experiment(tmp_path):
    path = tmp_path / "small.toml"
    path.write_text(textwrap.dedent(SMALL))
    return path


def one_line(capsys, phrase):
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and phrase in lines[0], captured.err
    return lines[0]


def lines_of(folder):
    return (folder / OUTCOMES).read_text().splitlines()


@pytest.mark.parametrize("left", [OUTCOMES, RESULTS])
@pytest.mark.parametrize("resume", [True, False])
def test_results_without_a_manifest_are_never_continued(experiment, tmp_path, capsys, left, resume):
    out = tmp_path / "store"
    assert main(["run", str(experiment), "--out", str(out), "--quiet"]) == 0
    (out / MANIFEST).unlink()
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file() and p.name != LOCK}
    for name in {OUTCOMES, RESULTS} - {left}:
        (out / name).unlink()
        del before[name]
    capsys.readouterr()
    argv = ["run", str(experiment), "--out", str(out), "--quiet"] + (["--resume"] if resume else [])
    assert main(argv) == 2
    line = one_line(capsys, "without a manifest")
    assert str(out) in line
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file() and p.name != LOCK} == before


def test_a_store_in_use_is_refused_then_continues_once_free(experiment, tmp_path, capsys):
    out = tmp_path / "store"
    assert main(["run", str(experiment), "--out", str(out), "--quiet"]) == 0
    stored = lines_of(out)
    held = take_lock(out)  # as a run writing to the store would
    try:
        capsys.readouterr()
        assert main(["run", str(experiment), "--out", str(out), "--resume", "--quiet"]) == 2
        one_line(capsys, "another pybai run is writing to this store")
        assert lines_of(out) == stored
    finally:
        release_lock(held)
    assert main(["run", str(experiment), "--out", str(out), "--resume", "--quiet"]) == 0
    assert lines_of(out) == stored


def test_the_lock_holds_across_processes_and_names_the_holder(experiment, tmp_path):
    """A second process sees the lock of the first (flock is per open file, across processes)."""
    out = tmp_path / "store"
    out.mkdir()
    held = take_lock(out)
    try:
        child = subprocess.run(
            [sys.executable, "-c", "import sys; from pathlib import Path; from pybai.simulate.store import take_lock\n"
             "try:\n    take_lock(Path(sys.argv[1]))\nexcept Exception as exc:\n    print(exc)", str(out)],
            capture_output=True, text=True, timeout=60)
    finally:
        release_lock(held)
    assert "another pybai run is writing to this store (process" in child.stdout, child.stderr
    assert json.loads("[" + (out / LOCK).read_text().strip() + "]")  # the holder's pid
