"""Shipped reproductions (``pybai reproduce``) and reports of stores (``pybai report``).

A reproduction is every shipped experiment file whose ``[reproduce]`` table has the same
``name``, in file-name order (see :mod:`pybai.report.spec`).  ``run_reproduction`` runs each
file into its own store ``OUT/<file>/`` with the engine, and each of its variants
(``[[reproduce.variant]]``) into ``OUT/<file>--<variant>/`` (``--quick`` applies the quick
overrides first), then writes the report from the stores alone: ``OUT/report.html``,
``OUT/figures/*.png``, ``OUT/tables/*.csv``.  A variant's part of the report has its own
tables and figures and, with ``compare``, a table beside the file's own run.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from pybai.complexity import complexity_report
from pybai.config.experiment import Experiment, read_document
from pybai.exceptions import ConfigError
from pybai.experiments import experiment_names, experiment_path
from pybai.problems.base import FixedBudget
from pybai.report.experiment import ReportFiles, ReportPart, write_report
from pybai.report.figures import FigureData
from pybai.report.intervals import format_number
from pybai.report.spec import VARIANT_SEPARATOR, ReproduceSpec, apply_quick, apply_variant, parse_reproduce
from pybai.simulate.engine import run_sweep, stored_document
from pybai.simulate.store import ResultStore, is_store, read_store
from pybai.simulate.tasks import Sweep

__all__ = ["Reproduction", "shipped_reproductions", "run_reproduction", "report_folder", "store_part", "common_title",
           "heuristic_stop"]


@dataclass
class Reproduction:
    """A reproduction: its name and its files with their ``[reproduce]`` tables, in file-name order."""

    name: str
    files: list[tuple[Path, ReproduceSpec]]

    @property
    def title(self) -> str:
        """The files' titles, or their common beginning (cut at a comma or colon) when there are several."""
        return common_title([spec.title for _, spec in self.files if spec.title], self.name)


def common_title(titles: list[str], fallback: str) -> str:
    """One title for several files: the only one, or their common beginning cut at a comma or colon."""
    if len(set(titles)) == 1:
        return titles[0]
    common = os.path.commonprefix(titles) if titles else ""
    cut = max(common.rfind(","), common.rfind(":"))
    return common[:cut].strip() if cut > 0 else fallback


def shipped_reproductions() -> dict[str, Reproduction]:
    """Every reproduction declared by the shipped experiment files, by name."""
    found: dict[str, Reproduction] = {}
    for stem in experiment_names():
        path = experiment_path(stem)
        spec = parse_reproduce(read_document(path).get("reproduce"), where=f"{stem}: reproduce")
        if spec is not None:
            found.setdefault(spec.name, Reproduction(spec.name, [])).files.append((path, spec))
    return dict(sorted(found.items()))


def heuristic_stop(t_star: float, threshold) -> float:
    """The ``t`` with ``t = T* beta(t)``: when an ideal strategy (the w* allocation, a GLR of ``t / T*``) stops.

    >>> round(heuristic_stop(100.0, lambda t: 2.0))
    200
    """
    t = max(5.0 * t_star, 1.0)
    for _ in range(200):  # beta grows like ln ln t: a contraction from any start above 1
        t = max(t_star * threshold(t), 1.0)
    return t


def _uniform_time(experiment: Experiment) -> float | None:
    """The characteristic time of the uniform allocation, ``1 / value`` of nature's best response to it."""
    problem = experiment.problem.truth_view(experiment.environment)
    try:
        value, _ = problem.alt_gradient(problem.family.learner_means(experiment.environment.source_means), np.full(problem.n_sources, 1.0 / problem.n_sources))
    except NotImplementedError:  # a problem without the best response of game-based rules
        return None
    return 1.0 / value if value > 0 else None


def _complexity(experiment: Experiment) -> dict:
    """The problem's complexity report on the experiment's truth, and in fixed confidence two predictions.

    ``log_bound`` is T*(mu) ln(1/delta) (the lower bound's asymptotic form as delta -> 0);
    ``heuristic_stop`` is :func:`heuristic_stop` of T*(mu) for the problem's heuristic threshold
    (the stopping time of an ideal strategy); ``characteristic_time_uniform`` and
    ``heuristic_stop_uniform`` are the same for the uniform allocation (what sampling every source
    equally would cost, computed rather than run).  ``{}`` when the problem has no report to give.
    """
    try:
        report = dict(complexity_report(experiment))
    except Exception:  # noqa: BLE001 - a truth drawn per replication, no oracle, too large: the report goes without
        return {}
    t_star, delta = report.get("characteristic_time"), report.get("delta")
    if not (isinstance(t_star, (int, float)) and math.isfinite(t_star) and t_star > 0 and delta):
        return report
    report["log_bound"] = float(t_star) * math.log(1.0 / float(delta))  # T* ln(1/delta), kl's large-delta-free form
    threshold = experiment.problem.threshold("heuristic", delta)
    report["heuristic_stop"] = heuristic_stop(float(t_star), threshold)
    uniform = _uniform_time(experiment)
    if uniform is not None and math.isfinite(uniform):
        report["characteristic_time_uniform"] = uniform
        report["heuristic_stop_uniform"] = heuristic_stop(uniform, threshold)
    return report


def store_part(folder: str | Path) -> ReportPart:
    """A report part from a store alone: its result document rebuilt from the stored outcomes."""
    stored = read_store(folder)
    document = stored_document(stored)
    spec = parse_reproduce(stored.sweep.document.get("reproduce"), where=f"{folder}: reproduce")
    experiments = stored.sweep.experiments
    first = experiments[0]
    data = FigureData(stored.sweep.name, document, stored.rows, isinstance(first.problem.regime, FixedBudget),
                      metrics=spec.metrics if spec is not None else {},
                      complexity_of=lambda point: _complexity(experiments[point]))
    done, total = len(stored.outcomes), stored.tasks_total
    reps = sorted({e.replications for e in experiments})
    facts = [
        f"Store {stored.folder}: {done} of {total} tasks"
        + ("" if done == total else " (incomplete: continue the run with --resume)")
        + f"; {'/'.join(map(str, reps))} replications per strategy"
        + (f" at each of {len(experiments)} grid points" if stored.sweep.gridded else "")
        + f"; master seed {first.seed}; pybai {stored.manifest.get('pybai_version')};"
        + f" experiment digest {str(stored.manifest.get('digest'))[:12]}.",
    ]
    quick = _quick_fact(stored.sweep.document, spec)
    if quick:
        facts.append(quick)
    part = ReportPart(data, None, stored.sweep.name, facts)
    if spec is not None:
        part.spec = spec.presentation()
        if "{replications}" in part.spec.description:  # what ran, not what the full run would do
            part.spec = replace(part.spec, description=part.spec.description.replace(
                "{replications}", "/".join(map(str, reps))))
        part.heading = part.spec.title or stored.sweep.name
        if spec.as_variant is not None:
            part.variant_of = stored.sweep.name.removesuffix(VARIANT_SEPARATOR + spec.as_variant)
            part.compare = spec.variant(spec.as_variant).compare
            facts.append(f"Variant {spec.as_variant} of {part.variant_of}: the same seeded replications "
                         "with the changes of its [[reproduce.variant]] table.")
    return part


def _quick_overrides(document: dict, spec: ReproduceSpec) -> dict:
    """The ``--quick`` overrides a document got: the file's, then its variant's."""
    variant = (document.get("reproduce") or {}).get("as_variant")
    return {**spec.quick, **(spec.variant(variant).quick if variant is not None else {})}


def _read(document: dict, dotted: str):
    value = document
    for part in dotted.split("."):
        if isinstance(value, list):
            value = value[0] if value else None
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def _full_document(document: dict, spec: ReproduceSpec) -> dict | None:
    """The shipped file's document a quick store was run from (its variant applied), or None."""
    name = str(document.get("name", ""))
    stem = name.split(VARIANT_SEPARATOR, 1)[0]
    if stem not in experiment_names():
        return None
    full = read_document(experiment_path(stem))
    variant = (document.get("reproduce") or {}).get("as_variant")
    return apply_variant(full, spec, variant, stem) if variant is not None else full


def _shown(value) -> str:
    if isinstance(value, dict):
        return "; ".join(f"{k} = {_shown(v)}" for k, v in value.items())
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return format_number(value)
    return str(value)


def _quick_fact(document: dict, spec: ReproduceSpec | None) -> str | None:
    """What a ``--quick`` store ran, beside the full run's values: "Quick run (--quick): replications = 20
    (the full run: 200)." (None for a full run)."""
    if spec is None or not spec.quick or apply_quick(document, spec) != document:
        return None
    full = _full_document(document, spec)
    changes = []
    for key in _quick_overrides(document, spec):
        if key == "grid":
            for axis in _quick_overrides(document, spec)["grid"]:
                ran, was = (document.get("grid") or {}).get(axis), ((full or {}).get("grid") or {}).get(axis)
                if ran != was:
                    changes.append(f"{axis} in {_shown(ran)}" + (f" (the full run: {_shown(was)})" if was else ""))
            continue
        ran = _read(document, key)
        was = _read(full, key) if full is not None else None
        changes.append(f"{key} = {_shown(ran)}" + (f" (the full run: {_shown(was)})" if was is not None and was != ran
                                                   else ""))
    return ("Quick run (--quick): " + "; ".join(changes) + ". Intervals are wider than a full run's; "
            "the description above speaks of the full run.")


def report_folder(folder: str | Path, out: str | Path | None = None, title: str | None = None) -> ReportFiles:
    """Report every store in ``folder`` (the folder itself, or its sub-folders) into ``out`` (default ``folder``)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ConfigError(f"{folder}: no such folder.")
    stores = [folder] if is_store(folder) else sorted(p for p in folder.iterdir() if p.is_dir() and is_store(p))
    if not stores:
        raise ConfigError(f"{folder}: no results store here (a folder written by pybai run --out or pybai reproduce).")
    parts = [store_part(store) for store in stores]
    own = {part.data.name: part.data for part in parts if part.variant_of is None}
    for part in parts:
        if part.variant_of is not None:
            part.baseline = own.get(part.variant_of)
    if title is None:
        specs = [p.spec for p in parts if p.spec is not None]
        fallback = specs[0].name if specs else parts[0].data.name
        title = common_title([s.title for s in specs if s.title], fallback)
    return write_report(parts, folder if out is None else out, title)


def run_reproduction(
    name: str,
    quick: bool = False,
    out: str | Path | None = None,
    jobs: int = 1,
    cluster: str | None = None,
    scheduler: str | None = None,
    resume: bool = False,
    progress: bool = True,
    note: Callable[[str], None] | None = None,
) -> ReportFiles:
    """Run the shipped reproduction ``name`` (stores in ``out/<file>/``) and write its report in ``out``."""
    known = shipped_reproductions()
    if name not in known:
        raise ConfigError(f"reproduce: unknown name \"{name}\"; expected one of {', '.join(known) or 'none'}.")
    reproduction = known[name]
    out = Path(out) if out is not None else Path("out") / "reproduce" / (name + ("-quick" if quick else ""))
    plans = []
    for path, spec in reproduction.files:
        file_document = read_document(path)
        documents = [(path.stem, file_document)] + [
            (f"{path.stem}{VARIANT_SEPARATOR}{v.name}", apply_variant(file_document, spec, v.name, path.stem))
            for v in spec.variants]
        for stem, document in documents:
            if quick:
                document = apply_quick(document, spec)
            sweep = Sweep.from_document(document, default_name=stem)
            folder = out / stem
            ResultStore.check_folder(folder, sweep, resume)  # refuse before running anything
            plans.append((path, sweep, folder))
    for path, sweep, folder in plans:
        if note:
            note(f"{folder.name}: {len(sweep.experiments)} point(s), store {folder}")
        run_sweep(sweep, jobs=jobs, cluster=cluster, scheduler=scheduler, out=folder, resume=resume,
                  progress=progress, note=note, source=str(path))
    return report_folder(out, title=reproduction.title + (" (quick)" if quick else ""))
