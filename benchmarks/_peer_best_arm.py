#!/usr/bin/env python3
"""Peer-side runner: Track-and-Stop from the PyPI package ``best-arm`` (0.1.1).

This script is NOT part of pybai and must be run with the interpreter of a
throwaway virtual environment in which ``best-arm`` is installed (see
``benchmarks/peer_env.py``).  It imports only ``best_arm``, numpy and the
standard library, and prints exactly one JSON document on stdout.

Components used (all from best_arm 0.1.1):

* environment: ``best_arm.environment.BaseEnvironment.from_dict`` with
  ``env_name="bernoulli"`` -> ``BernoulliEnvironment`` with the given means
  (the class constructor itself only draws random scenarios);
* algorithm:   ``best_arm.algorithms.track_and_stop.TrackAndStop``
  (registry key ``"track_and_stop"``), driven through ``best_arm.Bandit``;
* tracking:    ``DTracking`` (registry key ``"d_tracking"``);
* stopping:    ``best_arm.stopping_conditions.ChernoffStoppingCondition``
  (registry key ``"chernoff"``) with ``mode="practice"``, i.e. stop when the
  GLR statistic Z(t) > ln((ln t + 1) / delta), t = total number of samples.

Randomness: best_arm draws everything from numpy's *global* legacy RNG
(``np.random.rand`` / ``randint`` / ``choice``).  Run ``i`` is seeded with
``np.random.seed(run_seeds[i])`` where ``run_seeds`` is derived from
``--seed`` through ``np.random.SeedSequence(seed).generate_state(runs)``, so
the whole output (apart from wall times) is a deterministic function of
``(--seed, --runs)``, and a single run can be replayed from its seed.

Example::

    /tmp/pybai-peer-best-arm/bin/python benchmarks/_peer_best_arm.py \\
        --runs 5 --seed 0 --delta 0.1 --means 0.3,0.21,0.2,0.19,0.18
"""
from __future__ import annotations

import argparse
import contextlib
import json
import platform
import sys
import time

import numpy as np

import best_arm
from best_arm import Bandit
from best_arm.environment import BaseEnvironment

TRACKERS = ("d_tracking", "c_tracking")
THRESHOLD_FORMULAS = {
    "practice": "beta(t, delta) = ln((ln(t) + 1) / delta), t = total samples; stop iff Z(t) > beta",
    "theory": (
        "Bernoulli: x = 0.5*ln((K-1)/delta); C = x + 4*ln(1 + x + sqrt(2x)); "
        "beta(t, delta) = 6*ln(ln(t/2) + 1) + 2*C; stop iff Z(t) > beta"
    ),
}


def _parse_means(text: str) -> list[float]:
    try:
        means = [float(x) for x in text.split(",") if x.strip()]
    except ValueError as exc:  # pragma: no cover - argparse reports it
        raise argparse.ArgumentTypeError(f"bad --means {text!r}: {exc}") from exc
    if len(means) < 2:
        raise argparse.ArgumentTypeError("--means needs at least two arms")
    if any(not (0.0 <= m <= 1.0) for m in means):
        raise argparse.ArgumentTypeError("Bernoulli means must lie in [0, 1]")
    return means


def _make_bandit(means: list[float], delta: float, tracker: str, mode: str) -> Bandit:
    # from_dict bypasses BernoulliEnvironment.__init__ (which would draw random
    # probabilities and print them); passing env_instance keeps Bandit from
    # auto-saving an env_XXXX.json file into the working directory.
    env = BaseEnvironment.from_dict(
        {"env_name": "bernoulli", "state": {"probs": list(means)}}
    )
    return Bandit(
        env_instance=env,
        algo_name="track_and_stop",
        algo_args={"confidence": delta},
        tracker_name=tracker,
        stopping_name="chernoff",
        stopping_args={"mode": mode},
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--delta", type=float, default=0.1)
    p.add_argument("--means", type=_parse_means, default=_parse_means("0.3,0.21,0.2,0.19,0.18"))
    p.add_argument("--tracker", choices=TRACKERS, default="d_tracking")
    p.add_argument("--threshold", choices=tuple(THRESHOLD_FORMULAS), default="practice",
                   help="ChernoffStoppingCondition mode (default: practice)")
    args = p.parse_args(argv)
    if args.runs < 1:
        p.error("--runs must be >= 1")
    if not (0.0 < args.delta < 1.0):
        p.error("--delta must lie in (0, 1)")

    means = args.means
    best_true = int(np.argmax(means))
    run_seeds = [int(s) for s in np.random.SeedSequence(args.seed).generate_state(args.runs)]

    runs = []
    # best_arm prints in a few places; keep stdout clean for the JSON document.
    with contextlib.redirect_stdout(sys.stderr):
        for i, s in enumerate(run_seeds):
            bandit = _make_bandit(means, args.delta, args.tracker, args.threshold)
            np.random.seed(s)
            t0 = time.perf_counter()
            c0 = time.process_time()
            rec, counts, _rewards, _hist = bandit.run()
            wall = time.perf_counter() - t0
            cpu = time.process_time() - c0
            runs.append({
                "run": i,
                "seed": s,
                "samples": int(counts.sum()),
                "recommended": int(rec),
                "correct": int(rec) == best_true,
                "counts": [int(c) for c in counts],
                "wall_seconds": wall,
                "cpu_seconds": cpu,
            })

    samples = [r["samples"] for r in runs]
    walls = [r["wall_seconds"] for r in runs]
    doc = {
        "peer": "best-arm",
        "package": "best_arm",
        "version": getattr(best_arm, "__version__", None),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "config": {
            "means": means,
            "delta": args.delta,
            "runs": args.runs,
            "seed": args.seed,
            "best_arm": best_true,
            "seeding": "np.random.seed(run_seed) per run (global legacy RNG); "
                       "run seeds = np.random.SeedSequence(seed).generate_state(runs)",
        },
        "components": {
            "environment": "best_arm.environment.BernoulliEnvironment via BaseEnvironment.from_dict",
            "algorithm": "best_arm.algorithms.track_and_stop.TrackAndStop (Bandit algo_name='track_and_stop')",
            "tracking": {
                "d_tracking": "best_arm.algorithms.track_and_stop.DTracking (tracker_name='d_tracking')",
                "c_tracking": "best_arm.algorithms.track_and_stop.CTracking (tracker_name='c_tracking')",
            }[args.tracker],
            "stopping_rule": "best_arm.stopping_conditions.ChernoffStoppingCondition"
                             f"(mode={args.threshold!r}) (stopping_name='chernoff')",
            "threshold": THRESHOLD_FORMULAS[args.threshold],
            "initialisation": "one pull of each arm (TrackAndStop.run), stopping rule checked from t = K",
            "recommendation": "argmax of empirical means (np.argmax, lowest index on ties)",
        },
        "runs": runs,
        "summary": {
            "mean_samples": float(np.mean(samples)),
            "median_samples": float(np.median(samples)),
            "std_samples": float(np.std(samples, ddof=1)) if len(samples) > 1 else 0.0,
            "min_samples": int(min(samples)),
            "max_samples": int(max(samples)),
            "correct_rate": sum(r["correct"] for r in runs) / len(runs),
            "mean_wall_seconds": float(np.mean(walls)),
            "total_wall_seconds": float(sum(walls)),
            "mean_seconds_per_sample": float(sum(walls) / sum(samples)),
        },
    }
    json.dump(doc, sys.stdout, indent=2, allow_nan=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
