"""The validation suite: is every fixed-confidence strategy delta-correct on random instances?

For every instance family of :data:`pybai.validation.generators.FAMILIES` and every registered
strategy that declares the family's goal:

* fixed confidence, ``threshold = "delta-correct"``: ``instances x runs`` runs at the family's
  ``delta``; ``errors`` counts the runs that *stopped* with a wrong answer (censored runs give no
  answer and are no error).  Since each run errs with probability at most ``delta`` when the
  threshold is proven, ``errors`` is stochastically below Binomial(runs, delta); the verdict is
  ``FAIL`` when the one-sided binomial test (:func:`scipy.stats.binomtest`, alternative
  ``"greater"``) rejects "error rate <= delta" at level 1 % (p-value < 0.01), else ``pass``.
* fixed confidence, ``threshold = "heuristic"``: same runs; the observed error rate is reported and
  flagged ``above delta`` when it exceeds ``delta`` (not a failure: the threshold is not proven).
* families with tied best arms: the fraction of runs that stop before ``max_samples`` is reported
  (a tie can still stop, when the empirical means are not tied); verdict ``info``.
* fixed budget: errors at the family's budgets (same instances and seeds); the verdict is ``FAIL``
  when the errors at the largest budget exceed those at the smallest significantly (one-sided
  Fisher exact test, p < 0.01), else ``pass``.

Seeds: instance ``i`` of family ``f`` is drawn from ``SeedSequence([seed, f, i])`` and run ``r`` on
it uses ``SeedSequence([seed, f, i, r])`` for every strategy (common random numbers).
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass

import numpy as np
from scipy.stats import binomtest, fisher_exact

from pybai.exceptions import PybaiError
from pybai.simulate.runner import run_replication
from pybai.strategies.registry import get_strategy_class, make_strategy, registered_names
from pybai.validation.generators import FAMILIES, InstanceFamily

__all__ = ["Row", "Settings", "QUICK", "FULL", "run_suite", "format_table", "failed", "strategies_for"]

#: p-value under which a proven verdict fails (one-sided test at 99 %).
ALPHA = 0.01


@dataclass(frozen=True)
class Settings:
    """Sizes of a validation run."""

    instances: int
    runs: int
    tied_instances: int
    tied_runs: int
    budget_instances: int
    budget_runs: int
    max_samples: int | None = None  # cap on the families' max_samples (censored runs are reported)


#: ``pybai validate --quick`` (a couple of minutes on 2 cores).
QUICK = Settings(instances=2, runs=15, tied_instances=2, tied_runs=10, budget_instances=2, budget_runs=15,
                 max_samples=20_000)
#: ``pybai validate``.
FULL = Settings(instances=20, runs=50, tied_instances=5, tied_runs=40, budget_instances=10, budget_runs=50)


@dataclass
class Row:
    """One line of the validation table."""

    strategy: str
    family: str
    check: str  # "delta-correct", "heuristic", "tied (delta-correct)", "fixed-budget"
    instances: int
    runs: int
    errors: str
    bound: str
    verdict: str
    note: str = ""
    cpu_seconds: float = 0.0

    def to_dict(self) -> dict:
        return asdict(self)


def strategies_for(goal: str, regime: str) -> list[str]:
    """Registered strategies that declare ``goal`` and ``regime``, sorted by name."""
    out = []
    for name in registered_names():
        cls = get_strategy_class(name)
        if goal in cls.goals and regime in cls.regimes:
            out.append(name)
    return out


def _seed(*parts: int) -> np.random.SeedSequence:
    return np.random.SeedSequence([int(p) for p in parts])


def _run_many(strategy, family: InstanceFamily, instances, runs: int, seed: int, fam_id: int, budget=None,
              cap=None):
    """(stopped, wrong-and-stopped, censored) counts over instances x runs."""
    stopped = wrong = censored = 0
    for i, inst in instances:
        problem = inst.make_problem(family.regime(budget, cap))
        for r in range(runs):
            out = run_replication(strategy, inst.environment, problem, _seed(seed, fam_id, i, r))
            if out.status == "censored":
                censored += 1
                continue
            stopped += 1
            if not out.correct:
                wrong += 1
    return stopped, wrong, censored


def _fixed_confidence_rows(name, family, instances, tied_instances, settings, seed, fam_id,
                           proven_only=False) -> list[Row]:
    rows = []
    own_rule = get_strategy_class(name).stopping_rule  # a baseline stopping by an unproven rule of its own
    if proven_only and (family.tied or own_rule):  # rows that report, never judge
        return rows
    if family.tied:
        t0 = time.process_time()
        strategy = make_strategy(name, threshold="delta-correct")
        stopped, _, censored = _run_many(strategy, family, tied_instances, settings.tied_runs, seed, fam_id,
                                         cap=settings.max_samples)
        runs = stopped + censored
        rows.append(Row(name, family.name, "tied (delta-correct)", len(tied_instances), runs, "-",
                        f"max_samples={family.regime(None, settings.max_samples).max_samples}", "info",
                        f"stopped before max_samples: {stopped}/{runs} = {stopped / max(runs, 1):.2f}",
                        time.process_time() - t0))
        return rows
    if own_rule:
        kinds: tuple[str, ...] = (f"own rule ({own_rule})",)
    else:
        kinds = ("delta-correct",) if proven_only else ("delta-correct", "heuristic")
    for kind in kinds:
        t0 = time.process_time()
        strategy = make_strategy(name) if own_rule else make_strategy(name, threshold=kind)
        stopped, wrong, censored = _run_many(strategy, family, instances, settings.runs, seed, fam_id,
                                             cap=settings.max_samples)
        runs = stopped + censored
        rate = wrong / max(runs, 1)
        what = "epsilon-error rate" if family.epsilon else "rate"
        if kind == "delta-correct":
            p = binomtest(wrong, runs, family.delta, alternative="greater").pvalue if runs else 1.0
            verdict = "FAIL" if p < ALPHA else "pass"
            note = f"{what} {rate:.3f}, binomial p = {p:.3g}"
        else:
            verdict = "above delta" if rate > family.delta else "ok"
            note = f"{what} {rate:.3f} (not proven)"
        if censored:
            note += f", {censored} censored"
        rows.append(Row(name, family.name, kind, len(instances), runs, str(wrong), f"delta={family.delta}",
                        verdict, note, time.process_time() - t0))
    return rows


def _fixed_budget_row(name, family, instances, settings, seed, fam_id) -> Row:
    t0 = time.process_time()
    strategy = make_strategy(name)
    errors = []
    runs = 0
    for budget in family.budgets:
        stopped, wrong, _ = _run_many(strategy, family, instances, settings.budget_runs, seed, fam_id, budget)
        errors.append(wrong)
        runs = stopped
    first, last = errors[0], errors[-1]
    p = fisher_exact([[last, runs - last], [first, runs - first]], alternative="greater").pvalue
    verdict = "FAIL" if p < ALPHA else "pass"
    trend = "decreasing" if all(a >= b for a, b in zip(errors, errors[1:])) else "not monotone"
    return Row(name, family.name, "fixed-budget", len(instances), runs, "/".join(map(str, errors)),
               "budgets " + "/".join(map(str, family.budgets)), verdict,
               f"{trend}; Fisher p = {p:.3g} (largest vs smallest budget)", time.process_time() - t0)


def run_suite(settings: Settings = QUICK, *, seed: int = 2026, families=None, strategies=None,
              progress=None, proven_only: bool = False) -> list[Row]:
    """Run the validation suite and return its table rows.

    Parameters
    ----------
    settings : Settings
        :data:`QUICK` or :data:`FULL` (or custom sizes).
    seed : int
        Master seed.
    families, strategies : sequence of str, optional
        Restrict to these instance families / strategy names (default: all).
    progress : callable, optional
        Called with each finished :class:`Row`.
    proven_only : bool
        Only the rows whose verdict can fail: the proven thresholds (``delta-correct``) and the
        fixed-budget trends; the heuristic, own-rule and tied rows, which report without judging,
        are left out (the same verdicts in less than half the time).
    """
    rows: list[Row] = []
    for fam_id, (fname, family) in enumerate(FAMILIES.items()):
        if families and fname not in families:
            continue
        n_inst = settings.tied_instances if family.tied else settings.instances
        drawn = [(i, family.draw(np.random.default_rng(_seed(seed, fam_id, i)))) for i in range(n_inst)]
        budget_drawn = drawn[: settings.budget_instances]
        names = strategies_for(family.goal, "fixed-confidence")
        budget_names = strategies_for(family.goal, "fixed-budget") if family.budgets else []
        jobs = [(n, "fc") for n in names] + [(n, "fb") for n in budget_names]
        for name, what in jobs:
            if strategies and name not in strategies:
                continue
            try:
                if what == "fc":
                    new = _fixed_confidence_rows(name, family, drawn, drawn, settings, seed, fam_id, proven_only)
                else:
                    new = [_fixed_budget_row(name, family, budget_drawn, settings, seed, fam_id)]
            except PybaiError as exc:  # the strategy refuses this family (e.g. needs a posterior)
                new = [Row(name, family.name, "fixed-budget" if what == "fb" else "-", len(drawn), 0, "-", "-",
                           "n/a", "not applicable: " + str(exc).split(" (")[0].split(";")[0][:90])]
            for row in new:
                rows.append(row)
                if progress is not None:
                    progress(row)
    return rows


_COLUMNS = ("strategy", "family", "check", "instances", "runs", "errors", "bound", "verdict", "note")


def format_table(rows: list[Row]) -> str:
    """Aligned plain-text table of the rows."""
    table = [list(_COLUMNS)] + [[str(getattr(r, c)) for c in _COLUMNS] for r in rows]
    widths = [max(len(line[i]) for line in table) for i in range(len(_COLUMNS))]
    out = []
    for j, line in enumerate(table):
        out.append("  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip())
        if j == 0:
            out.append("  ".join("-" * w for w in widths))
    eps = sorted({r.family for r in rows if r.family in FAMILIES and FAMILIES[r.family].epsilon})
    best = [f for f in eps if FAMILIES[f].goal == "best-arm"]
    sets = [f for f in eps if FAMILIES[f].goal != "best-arm"]
    if best:
        out.append(f"{', '.join(best)}: epsilon-best-arm identification; correct = epsilon-good, so errors "
                   "count stops on an arm that is not epsilon-good")
    if sets:
        out.append(f"{', '.join(sets)}: epsilon-top-k identification; correct = every returned arm within "
                   "epsilon of the k-th largest mean, so errors count stops on a set with an arm that is not")
    return "\n".join(out)


def failed(rows: list[Row]) -> list[Row]:
    """The rows whose verdict is ``FAIL``."""
    return [r for r in rows if r.verdict == "FAIL"]
