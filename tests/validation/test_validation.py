"""Tests of the validation suite (pybai.validation, ``pybai validate``)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from pybai import BestArmProblem, GaussianEnvironment
from pybai.cli import main
from pybai.stopping.heuristic import HeuristicThreshold
from pybai.validation import FAMILIES, FULL, QUICK, Instance, InstanceFamily, Settings, failed, format_table, run_suite
from pybai.validation import generators


def test_generators_are_deterministic_and_declare_their_goal():
    for name, fam in FAMILIES.items():
        a = fam.draw(np.random.default_rng(5))
        b = fam.draw(np.random.default_rng(5))
        assert a.label == b.label
        problem = a.make_problem(fam.regime())
        assert problem.goal == fam.goal
        assert problem.delta == fam.delta


def test_generators_cover_the_documented_cases():
    rng = np.random.default_rng(0)
    regions, sub_cases = set(), set()
    for _ in range(60):
        env = FAMILIES["bernoulli-best-arm"].draw(rng).environment
        top = env.means.max()
        regions.add("low" if top <= 0.15 else "high" if top >= 0.95 else "mid")
        assert np.sum(env.means == top) == 1
        sub_cases.add(FAMILIES["subpopulation"].draw(rng).label.split()[0])
        tied = FAMILIES["tied-best"].draw(rng).environment.means
        assert np.sum(tied == tied.max()) == 2
        close = FAMILIES["close-arms"].draw(rng).environment.means
        assert 0.1 <= np.sort(close)[-1] - np.sort(close)[-2] <= 0.25
    assert regions == {"low", "high", "mid"}
    assert sub_cases == {"feasible-best", "infeasible-best", "no-feasible"}
    # the subpopulation labels tell the truth
    for _ in range(20):
        inst = FAMILIES["subpopulation"].draw(rng)
        answer = inst.make_problem(FAMILIES["subpopulation"].regime()).answer(inst.environment.means)
        assert (answer == -1) == inst.label.startswith("no-feasible")


class _NoGuaranteeProblem(BestArmProblem):
    """A best-arm problem whose 'delta-correct' threshold is the heuristic one, far too small here."""

    def threshold(self, kind, delta):
        return HeuristicThreshold(0.9)


def _broken_family():
    def draw(rng):
        env = GaussianEnvironment([0.0, -0.05, -0.05, -0.05], 1.0)
        return Instance("four close arms", env, lambda regime: _NoGuaranteeProblem(4, env.family(), regime))

    return InstanceFamily("broken-for-test", "best-arm", draw, delta=0.05, max_samples=5_000)


def test_suite_detects_a_threshold_that_is_not_delta_correct(monkeypatch):
    fam = _broken_family()
    monkeypatch.setitem(generators.FAMILIES, fam.name, fam)
    # about a third of the runs stop before max_samples, half of those on a wrong arm: 200 runs give p << 0.01
    rows = run_suite(Settings(2, 100, 1, 1, 1, 1), families=[fam.name], strategies=["uniform"])
    proven = [r for r in rows if r.check == "delta-correct"]
    assert len(proven) == 1 and proven[0].verdict == "FAIL"
    assert failed(rows) == proven
    assert "FAIL" in format_table(rows)


def test_cli_validate_refuses_unknown_names(capsys):
    assert main(["validate", "--quick", "--family", "nope"]) == 2
    assert "--family" in capsys.readouterr().err
    assert main(["validate", "--quick", "--strategy", "nope"]) == 2


#: families whose ``pybai validate --quick`` table a docs page prints; the page's test (tests/docs) checks
#: every row of it, verdicts included, so the suite test below leaves them out
SHOWN = {"bounded-two-point": "docs/reward_models.md"}


def test_the_shown_families_are_run_by_their_pages():
    for family, page in SHOWN.items():
        text = (Path(__file__).resolve().parents[2] / page).read_text(encoding="utf-8")
        assert f"$ pybai validate --quick --family {family}" in text, page


#: the families of the quick suite test (all but :data:`SHOWN`'s), shared out between this file and
#: ``test_validation_suite.py``: with ``make test``'s ``--dist loadfile`` a file runs on one worker, so the
#: suite's two minutes of CPU are spread over both (every family's instances and runs are seeded by its place in
#: FAMILIES, ``SeedSequence([seed, family index, ...])``: the rows of a family run alone are those of a run of all)
SUITE = [name for name in FAMILIES if name not in SHOWN]


def suite_part(part: int) -> list[str]:
    """Every other family of :data:`SUITE` (``part`` 0 here, 1 in ``test_validation_suite.py``)."""
    return SUITE[part::2]


def check_quick_suite(family: str, tmp_path, capsys) -> None:
    """``pybai validate --quick --proven-only --family FAMILY``: every verdict that can fail passes; a
    tied family gives no row (its rows only report)."""
    out = tmp_path / "quick.json"
    assert main(["validate", "--quick", "--proven-only", "--json", str(out), "--family", family]) == 0
    text = capsys.readouterr().out
    assert "0 failed" in text
    assert "heuristic" not in text and "tied (delta-correct)" not in text and "own rule" not in text
    rows = json.loads(out.read_text())["rows"]
    assert {r["family"] for r in rows} == (set() if FAMILIES[family].tied else {family})
    assert {r["check"] for r in rows} <= {"delta-correct", "fixed-budget", "-"}
    assert any(r["check"] == "delta-correct" for r in rows) == (not FAMILIES[family].tied)
    assert any(r["check"] == "fixed-budget" for r in rows) == (bool(FAMILIES[family].budgets) and not FAMILIES[family].tied)


def test_the_quick_suite_tests_share_every_family_but_the_shown_ones():
    assert sorted(suite_part(0) + suite_part(1)) == sorted(set(FAMILIES) - set(SHOWN))
    assert any(FAMILIES[f].budgets for f in suite_part(0)) and any(FAMILIES[f].tied for f in SUITE)


@pytest.mark.parametrize("family", suite_part(0))
def test_quick_validation_suite_passes(family, tmp_path, capsys):
    check_quick_suite(family, tmp_path, capsys)


def test_proven_only_keeps_exactly_the_judged_rows():
    settings = Settings(1, 2, 1, 2, 1, 2, max_samples=2_000)
    names = ["uniform", "mixture-sprt", "ucbe"]
    every = run_suite(settings, families=["close-arms", "tied-best", "gaussian-best-arm"], strategies=names)
    judged = run_suite(settings, families=["close-arms", "tied-best", "gaussian-best-arm"], strategies=names,
                       proven_only=True)
    kept = [r for r in every if r.check in ("delta-correct", "fixed-budget") or r.check == "-"]
    assert [(r.strategy, r.family, r.check, r.errors, r.verdict) for r in judged] == \
        [(r.strategy, r.family, r.check, r.errors, r.verdict) for r in kept]
    assert {r.check for r in every} >= {"delta-correct", "heuristic", "tied (delta-correct)", "fixed-budget",
                                        "own rule (mixture-sprt)"}


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("PYBAI_FULL_VALIDATION") != "1",
                    reason="full validation suite: set PYBAI_FULL_VALIDATION=1 (about an hour on 2 cores)")
def test_full_validation_suite_passes():
    assert FULL.runs > QUICK.runs
    rows = run_suite(FULL)
    assert not failed(rows), format_table(failed(rows))


def test_epsilon_families_cover_ties_near_ties_and_separated_instances():
    rng = np.random.default_rng(4)
    for name in ("eps-gaussian", "eps-bernoulli"):
        fam = FAMILIES[name]
        assert fam.epsilon
        seen = set()
        for _ in range(40):
            inst = fam.draw(rng)
            case = inst.label.split()[0]
            seen.add(case)
            problem = inst.make_problem(fam.regime())
            means = inst.environment.means
            good = problem.epsilon_good(means)
            top = np.sort(means)[::-1]
            if case == "tie" and means.size > 1:
                assert top[0] == top[1] and good.sum() >= 2
            elif case == "separated":
                assert good.sum() == 1  # every other arm just outside the answer set
        assert seen == {"tie", "near-tie", "separated"}
    assert "correct = epsilon-good" in format_table(run_suite(Settings(1, 1, 1, 1, 1, 1), families=["eps-gaussian"],
                                                              strategies=["uniform"]))


def test_epsilon_top_k_family_covers_ties_near_ties_and_separated_boundaries():
    rng = np.random.default_rng(5)
    fam = FAMILIES["eps-top-k"]
    assert fam.epsilon and fam.goal == "top-k"
    seen = set()
    for _ in range(40):
        inst = fam.draw(rng)
        case = inst.label.split()[0]
        seen.add(case)
        problem = inst.make_problem(fam.regime())
        means = np.sort(inst.environment.means)[::-1]
        gap = means[problem.k - 1] - means[problem.k]
        assert {"tie": gap == 0, "near-tie": 0 < gap < problem.epsilon / 4,
                "separated": gap > problem.epsilon}[case]
        assert problem.epsilon_good(inst.environment.means).sum() == problem.k + (case != "separated")
    assert seen == {"tie", "near-tie", "separated"}
    table = format_table(run_suite(Settings(1, 1, 1, 1, 1, 1), families=["eps-top-k"], strategies=["uniform"]))
    assert "epsilon-top-k identification" in table
