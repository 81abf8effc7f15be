"""Where the price of unknown variances comes from: the threshold or the sampling with plug-in variances.

Three runs of each cell, the same experiment seed (replication i of each reads the same seed streams):

* ``known``   the Gaussian family told the true sigmas: known-variance sampling and the known-variance
  ``"delta-correct"`` rule (compiled runs);
* ``oracle``  ``reward_model = "gaussian-unknown-variance"`` (statistic ``"glr"``, the invariant t-test rule),
  with the sampling rule told the true variances: the model's plug-in variances (``MeansAndVariances.noise``,
  what the learner's costs read) are pinned to the truth, while the stopping rule reads the samples only
  (its GLR pre-filter is switched off, so that the pinned variances cannot skip a check; the filter only ever
  saves time);
* ``unknown`` the same experiment as shipped: plug-in variances in the sampling rule.

``unknown / oracle`` is the price of sampling with plug-in variances (forced exploration included: every arm
needs two samples before it has a variance); ``oracle / known`` is the price of the threshold (the stopping
rule on the same kind of trajectories) plus whatever the unknown-variance allocation w*(mu) differs from the
known one.  Paired standard errors as in ``unknown_over_known.py``.

Usage::

    .venv/bin/python benchmarks/thresholds/unknown_variance_sources.py --runs 100 --strategies tas top-two
        --instances var100-lo var100-hi [--out proof_rules/unknown_variance_sources.json]
"""

from __future__ import annotations

import argparse
import math
import pathlib
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

import _bench_common as bc  # noqa: E402
from unknown_over_known import INSTANCES, STRATEGIES, _document, _samples, paired_ratio  # noqa: E402

from pybai.models.unknown_variance import MeansAndVariances  # noqa: E402
from pybai.stopping.unknown_variance import UnknownVarianceThreshold  # noqa: E402


class _Oracle:
    """Pins the plug-in variances of every MeansAndVariances to ``variances`` while active."""

    def __init__(self, variances):
        self.variances = np.asarray(variances, dtype=float)

    def __enter__(self):
        self._set_noise, self._init = MeansAndVariances._set_noise, UnknownVarianceThreshold.__init__
        truth = self.variances

        def set_noise(model, idx):
            self._set_noise(model, idx)
            seen = model.counts[idx] >= 1.0
            model.noise[idx] = np.where(seen, truth[idx], model.noise[idx])

        def init(threshold, *args, **kwargs):
            self._init(threshold, *args, **kwargs)
            threshold.min_statistic = -math.inf

        MeansAndVariances._set_noise = set_noise
        UnknownVarianceThreshold.__init__ = init
        return self

    def __exit__(self, *exc):
        MeansAndVariances._set_noise = self._set_noise
        UnknownVarianceThreshold.__init__ = self._init
        return False


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--delta", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--strategies", nargs="+", default=["tas", "top-two"], choices=STRATEGIES)
    ap.add_argument("--instances", nargs="+", default=["var100-lo", "var100-hi"], choices=list(INSTANCES))
    ap.add_argument("--out", default="proof_rules/unknown_variance_sources.json", help="file under benchmarks/results/")
    args = ap.parse_args(argv)
    doc = {"machine": bc.machine(), "args": vars(args), "load_start": bc.load(), "rows": []}
    t0 = time.time()
    lines = ["| instance | strategy | runs | known | oracle sampling | unknown | oracle / known | unknown / oracle "
             "| unknown / known |", "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for instance in args.instances:
        sigma = np.asarray(INSTANCES[instance][1], dtype=float)
        for strategy in args.strategies:
            known, k_err, _ = _samples(_document(instance, strategy, None, args.runs, args.delta, args.seed), 1)
            unknown, u_err, _ = _samples(_document(instance, strategy, "glr", args.runs, args.delta, args.seed), 1)
            with _Oracle(sigma ** 2):
                oracle, o_err, _ = _samples(_document(instance, strategy, "glr", args.runs, args.delta, args.seed), 1)
            r_ok, se_ok = paired_ratio(oracle, known)
            r_uo, se_uo = paired_ratio(unknown, oracle)
            r_uk, se_uk = paired_ratio(unknown, known)
            row = {"instance": instance, "strategy": strategy, "runs": args.runs, "known_mean": float(known.mean()),
                   "oracle_mean": float(oracle.mean()), "unknown_mean": float(unknown.mean()),
                   "oracle_over_known": [r_ok, se_ok], "unknown_over_oracle": [r_uo, se_uo],
                   "unknown_over_known": [r_uk, se_uk], "errors": [k_err, o_err, u_err], "load": bc.load(),
                   "known_samples": known.tolist(), "oracle_samples": oracle.tolist(),
                   "unknown_samples": unknown.tolist()}
            doc["rows"].append(row)
            lines.append(f"| {instance} | {strategy} | {args.runs} | {known.mean():,.0f} | {oracle.mean():,.0f} | "
                         f"{unknown.mean():,.0f} | {r_ok:.2f} ± {se_ok:.2f} | {r_uo:.2f} ± {se_uo:.2f} | "
                         f"{r_uk:.2f} ± {se_uk:.2f} |")
            print(lines[-1] + f"  errors {k_err}/{o_err}/{u_err}, {time.time() - t0:.0f} s, load {bc.load_str()}",
                  file=sys.stderr, flush=True)
            doc["load_end"] = bc.load()
            bc.write_json(args.out, doc)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
