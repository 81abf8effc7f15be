"""The golden test: the common-check cases and every shipped experiment's ``--quick`` run give
exactly the outcomes recorded in ``data/`` (see :mod:`golden`).

Each shipped reproduction runs through ``pybai reproduce NAME --quick``, the command itself
(:func:`golden.reproduction_outcomes`): preflight with the pilot run of every strategy, the
backend, a store per file and variant, the report; and the outcomes it computed for each of its
files are compared with the recorded ones, which were computed task by task (``run_task``).  One
run checks both that the command's path works end to end (a reference rule that the pilot
started without the truth once broke ``make demo`` while a golden test that skipped the command
stayed green) and that it computes exactly the recorded outcomes.

A failure names the rows that changed.  Record anew (``python tests/golden/golden.py record
NAME``) only for a change meant to change results, and say so in the commit.
"""

import json
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import golden  # noqa: E402

#: reproduction name -> its experiment files (the golden files they are checked against)
REPRODUCTIONS = golden.reproductions()

#: reproductions checked by the second test file (the long ones, spread over the two workers)
SPLIT = ("leaderboard", "batch-top-k-twitter", "batch-top-k-twitter-bernoulli", "linear-modern", "baics-table1")


@pytest.fixture(scope="module")
def worker():
    """The child process that computes this test file's golden cases, one after another
    (:class:`golden.Worker`; the other golden files import this fixture, one child per file)."""
    child = golden.Worker()
    yield child
    child.close()


def check(what: str, worker: golden.Worker) -> None:
    """``what``'s outcomes equal the recorded ones: an experiment's first :data:`golden.CHECKED`
    replications of each row run by run (all of them with ``PYBAI_GOLDEN_FULL=1``)."""
    expected = json.loads(golden.golden_file(what).read_text())
    got = worker.compute(what, None if what == "cases" else golden.checked_replications())
    changed = golden.compare(what, expected, got)
    extra = sorted(set(got) - set(expected))
    assert not changed, f"{what}: {len(changed)} of {len(expected)} golden rows changed:\n" + "\n".join(changed[:20])
    if what != "cases":  # new strategies add cases; an experiment's rows are fixed
        assert not extra, f"{what}: rows not in the golden file: {extra}"


def check_reproduction(name: str, worker: golden.Worker) -> None:
    """``pybai reproduce NAME --quick`` runs its whole path and writes its report, and each of its
    files' outcomes equal the recorded ones (:func:`check`'s comparison)."""
    got = worker.compute(golden.REPRODUCE + name, golden.checked_replications())
    assert got["status"] == 0, got["err"]
    assert f"report: {got['report']}" in got["out"] and got["report_written"], got["out"] + got["err"]
    assert got["pilots"], "the pilot run of preflight did not run"
    for stem in REPRODUCTIONS[name]:
        expected = json.loads(golden.golden_file(stem).read_text())
        rows = got["files"].get(stem, {})
        changed = golden.compare(stem, expected, rows)
        extra = sorted(set(rows) - set(expected))
        assert not changed, f"{stem}: {len(changed)} of {len(expected)} golden rows changed:\n" + "\n".join(changed[:20])
        assert not extra, f"{stem}: rows not in the golden file: {extra}"


def test_every_shipped_experiment_has_a_golden_file():
    missing = [n for n in golden.experiment_names() if not golden.golden_file(n).is_file()]
    assert not missing, f"no golden outcomes for {missing} (record them: tests/golden/golden.py record NAME)"


def test_common_check_cases_are_unchanged(worker):
    check("cases", worker)


def test_compiled_epsilon_runs_are_the_recorded_ask_tell_runs(worker):
    """Recorded from the ask/tell loop, computed by the compiled runs: identical bit for bit."""
    check("compiled-epsilon", worker)


def rest(part: int) -> list[str]:
    """Every other reproduction of those not in :data:`SPLIT` (``part`` 0 here, 1 in ``test_golden_more.py``):
    with ``--dist loadfile`` a file runs on one worker, so the golden runs are spread over three files."""
    return [n for n in REPRODUCTIONS if n not in SPLIT][part::2]


@pytest.mark.parametrize("name", golden.STANDALONE)
def test_standalone_experiment_is_unchanged(name, worker):
    """A shipped file outside every reproduction (:data:`golden.STANDALONE`), run as ``pybai run`` runs it."""
    assert not set(golden.STANDALONE) & set(golden.experiment_names())
    check(name, worker)


def test_every_golden_experiment_is_checked_through_a_reproduction():
    assert sorted(stem for stems in REPRODUCTIONS.values() for stem in stems) == golden.experiment_names()
    assert set(SPLIT) <= set(REPRODUCTIONS)


@pytest.mark.parametrize("name", rest(0))
def test_quick_reproduction_is_unchanged(name, worker):
    check_reproduction(name, worker)


def test_compare_checks_the_first_runs_one_by_one():
    want = {"row": {"replications": 3, "mean_samples": 2.0, "correct": 3, "digest": "d", "runs": ["a", "b", "c"]}}
    first_two = {"row": {"replications": 2, "mean_samples": 1.5, "correct": 2, "digest": "e", "runs": ["a", "b"]}}
    assert golden.compare("x", want, first_two) == []
    assert golden.compare("x", want, {"row": {**first_two["row"], "runs": ["a", "z"]}})
    assert golden.compare("x", want, {})  # a row not computed
    assert golden.compare("x", want, {"row": {**want["row"], "digest": "z"}})  # all runs: every field
