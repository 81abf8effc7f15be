"""Wall time of 1,000 Track-and-Stop replications on 2 worker processes, and jobs-invariance.

The experiment: ``tas`` (default C-tracking, heuristic threshold) on Gaussian arms
mu = (1, 0.8, 0.6, 0.4, 0.2), sigma = 1, delta = 0.01 (src/pybai/experiments/bai-gaussian-5.toml
restricted to ``tas``), 1,000 replications, seed 2016, through :func:`pybai.run_experiment`.

Timed, in this order, in one process:

1. ``cold``: the first ``run_experiment(jobs=2)`` of the process (pool start-up and numba
   cache load in each worker included) -- what ``pybai run FILE --jobs 2`` pays after import;
2. ``warm``: the same call after one replication in the parent (forked workers inherit the
   loaded numba code);
3. ``jobs=1``: the same 1,000 replications in this process, for the parallel speed-up;
4. ``cli``: ``.venv/bin/pybai run FILE --jobs 2 --json OUT`` in a fresh process (interpreter
   start and imports included), on a temporary copy of the experiment file.

Identity check: ``run_outcomes`` with jobs = 1 and jobs = 2 on ``--check-reps`` replications
(200 by default) must give the same per-replication samples, recommendations and counts, and
``run_experiment`` the same result document apart from timings; the full-size jobs = 1 and
jobs = 2 documents are compared as well.

    .venv/bin/python benchmarks/bench_replications.py [--quick]

Writes benchmarks/results/bench_replications.json (``..._quick.json`` with --quick).
"""

from __future__ import annotations

import time

T_START = time.perf_counter()

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import tomllib  # noqa: E402

import numpy as np  # noqa: E402

import pybai  # noqa: E402
from pybai.simulate import run_outcomes  # noqa: E402
from pybai.simulate.seeding import replication_seeds  # noqa: E402

T_IMPORT = time.perf_counter() - T_START

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
import _bench_common as bc  # noqa: E402

SOURCE = bc.ROOT / "src" / "pybai" / "experiments" / "bai-gaussian-5.toml"
TIMING_KEYS = {"wall_seconds", "elapsed_seconds", "cpu_seconds"}


def experiment_dict(reps: int) -> dict:
    with open(SOURCE, "rb") as fh:
        data = tomllib.load(fh)
    data["name"] = "bench-replications"
    data["replications"] = reps
    data["strategy"] = [{"name": "tas"}]
    return data


def strip(doc: dict) -> dict:
    out = {k: v for k, v in doc.items() if k not in TIMING_KEYS}
    out["results"] = [{k: v for k, v in r.items() if k not in TIMING_KEYS} for r in doc["results"]]
    return out


def _cpu() -> tuple[float, float]:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime


def timed(fn):
    """Wall seconds, CPU seconds of this process and of its (finished) children, load before/after.

    cpu / wall is the number of cores the call actually got: about 2 for jobs = 2 on an idle
    2-core machine, less when other jobs compete.
    """
    before = bc.load()
    c_own, c_kids = _cpu()
    t0 = time.perf_counter()
    value = fn()
    wall = time.perf_counter() - t0
    own, kids = _cpu()
    cpu = (own - c_own) + (kids - c_kids)
    return value, {"seconds": round(wall, 3), "cpu_seconds": round(cpu, 3), "cores_used": round(cpu / wall, 2),
                   "load_before": before, "load_after": bc.load()}


def same_outcomes(a, b) -> tuple[bool, int]:
    mismatches = 0
    for oa, ob in zip(a, b):
        if (oa.samples != ob.samples or oa.recommendation != ob.recommendation or oa.status != ob.status
                or not np.array_equal(oa.counts, ob.counts)):
            mismatches += 1
    return mismatches == 0 and len(a) == len(b), mismatches


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="100 replications, check on 50")
    ap.add_argument("--reps", type=int, default=None)
    ap.add_argument("--check-reps", type=int, default=None)
    ap.add_argument("--no-cli", action="store_true", help="skip the pybai run timing")
    args = ap.parse_args(argv)
    reps = args.reps or (100 if args.quick else 1000)
    check_reps = args.check_reps or (50 if args.quick else 200)
    doc = {"machine": bc.machine(), "replications": reps, "import_seconds": round(T_IMPORT, 3)}
    exp = pybai.parse_experiment(experiment_dict(reps))
    comp = pybai.complexity_report(exp)

    cold_doc, cold = timed(lambda: pybai.run_experiment(exp, jobs=2))
    _, strat = exp.strategies[0]
    pybai.run_replication(strat, exp.environment, exp.problem, replication_seeds(1, 1)[0])  # warm the parent
    warm_doc, warm = timed(lambda: pybai.run_experiment(exp, jobs=2))
    one_doc, one = timed(lambda: pybai.run_experiment(exp, jobs=1))
    timings = {"cold_jobs2": cold, "warm_jobs2": warm, "jobs1": one}

    if not args.no_cli:
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bench-replications.toml")
            out = os.path.join(tmp, "out.json")
            d = experiment_dict(reps)
            lines = [f'name = "{d["name"]}"', f"replications = {reps}", f"seed = {d['seed']}", "",
                     "[problem]", 'goal = "best-arm"', f"delta = {d['problem']['delta']}", "",
                     "[environment]", 'kind = "gaussian"', f"means = {d['environment']['means']}",
                     f"sigma = {d['environment']['sigma']}", "", "[[strategy]]", 'name = "tas"', ""]
            with open(path, "w") as fh:
                fh.write("\n".join(lines))
            cli = [str(bc.ROOT / ".venv" / "bin" / "pybai"), "run", path, "--jobs", "2", "--json", out]
            proc, t = timed(lambda: subprocess.run(cli, capture_output=True, text=True))
            t["exit"] = proc.returncode
            if proc.returncode == 0:
                t["same_as_api"] = strip(json.load(open(out))) == strip(cold_doc)
            else:
                t["stderr"] = proc.stderr[-2000:]
            timings["cli_jobs2"] = t

    small = pybai.parse_experiment(experiment_dict(check_reps))
    o1, o2 = run_outcomes(small, jobs=1)[0], run_outcomes(small, jobs=2)[0]
    ok_outcomes, mismatches = same_outcomes(o1, o2)
    ok_small = strip(pybai.run_experiment(small, jobs=1)) == strip(pybai.run_experiment(small, jobs=2))
    ok_full = strip(one_doc) == strip(cold_doc) == strip(warm_doc)
    r = cold_doc["results"][0]
    doc.update(
        experiment=experiment_dict(reps), complexity=comp, timings=timings, result=cold_doc,
        identity={"check_replications": check_reps, "outcomes_identical": ok_outcomes,
                  "outcome_mismatches": mismatches, "documents_identical_small": ok_small,
                  "documents_identical_full": ok_full},
        speedup_jobs2=one["seconds"] / warm["seconds"],
    )
    doc["machine"]["load_at_end"] = bc.load()
    path = bc.write_json("bench_replications_quick.json" if args.quick else "bench_replications.json", doc)

    print(f"# {reps:,} replications of tas, Gaussian mu = {exp.environment.source_means.tolist()}, delta = 0.01\n")
    print(f"{bc.machine_line(doc['machine'])}; load at end {bc.load_str(doc['machine']['load_at_end'])}.\n")
    print(f"Result: mean samples {r['mean_samples']:,.1f} (sd {r['sd_samples']:,.1f}, median {r['median_samples']:,.0f}), "
          f"correct rate {r['correct_rate']:.3f}, lower bound T* kl = {comp['lower_bound']:.1f}; "
          f"{reps * r['mean_samples']:,.0f} samples in all.\n")
    names = {"cold_jobs2": "run_experiment, jobs=2, first call (cold)", "warm_jobs2": "run_experiment, jobs=2, warm",
             "jobs1": "run_experiment, jobs=1 (this process)", "cli_jobs2": "`pybai run FILE --jobs 2` (fresh process)"}
    print(bc.table(["what", "wall seconds", "runs / s", "CPU seconds", "cores used (CPU / wall)", "load before -> after"],
                   [[names[k], f"{t['seconds']:.2f}", f"{reps / t['seconds']:,.0f}", f"{t['cpu_seconds']:.2f}",
                     f"{t['cores_used']:.2f}", f"{bc.load_str(t['load_before'])} -> {bc.load_str(t['load_after'])}"]
                    for k, t in timings.items()],
                   "lrrrrl"))
    target = "met" if cold["seconds"] < 30 else "NOT met"
    print(f"\nTarget < 30 s on 2 cores: {target} (cold {cold['seconds']:.2f} s). Speed-up jobs=2 over jobs=1: "
          f"{doc['speedup_jobs2']:.2f}x. Import of pybai: {T_IMPORT:.2f} s.")
    print(f"jobs=1 vs jobs=2 on {check_reps} replications: per-replication outcomes "
          f"{'identical' if ok_outcomes else f'DIFFER ({mismatches} mismatches)'}; result documents "
          f"{'identical' if ok_small else 'DIFFER'} (timings aside). Full-size documents (cold, warm, jobs=1"
          f"{', CLI' if 'cli_jobs2' in timings else ''}): "
          f"{'identical' if ok_full and timings.get('cli_jobs2', {}).get('same_as_api', True) else 'DIFFER'}.")
    print(f"\nwrote {path.relative_to(bc.ROOT)}", file=sys.stderr)
    return 0 if (ok_outcomes and ok_small and ok_full) else 1


if __name__ == "__main__":
    sys.exit(main())
