"""Twitter-scale run of each batch algorithm core (Jun et al. 2016, section 5.3 setting).

n = 522,062 Bernoulli arms with power-law means (:func:`pybai.batch.instances.twitter_instance`,
arms shuffled), b = 60,000, r = 12, k = 100, rewards drawn by
:func:`pybai.batch.draws.draw_batch_sums` (one binomial draw per batch); a reward is the
average of 24 hourly Bernoulli indicators as in section 5.3 (``--trials 1``: plain Bernoulli).  Fixed-budget cores
(RoundRobin, Halving, BatchSAR) spend ``--budget`` batches; BatchRacing (fixed confidence,
delta = 0.1) runs until it stops or ``--budget`` batches (on this instance it cannot stop:
mu_100 - mu_101 = 2.5e-5), which measures its per-batch cost.

Each algorithm runs in its own subprocess, so the peak resident memory (ru_maxrss) is per
algorithm; it includes the interpreter, numpy, numba and scipy (about 150-200 MB).

    PYTHONPATH=src .venv/bin/python benchmarks/bench_batch_scale.py [--budget 100] [--seed 0]

Writes benchmarks/results/bench_batch_scale_B<budget>.json and .md.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import resource
import subprocess
import sys
import time

ALGORITHMS = ("round-robin", "halving", "batch-sar", "batch-racing")
N, B, R, K = 522_062, 60_000, 12, 100


def run_one(name: str, budget: int, seed: int, trials: int) -> dict:
    import numpy as np

    from pybai.batch import BatchRacing, BatchSAR, Halving, UniformRoundRobin, draw_batch_sums, twitter_instance

    rng = np.random.default_rng(seed)
    means = twitter_instance(shuffle=rng)
    make = {
        "round-robin": lambda: UniformRoundRobin(N, K, B, R, budget, rng=rng),
        "halving": lambda: Halving(N, K, B, R, budget, rng=rng),
        "batch-sar": lambda: BatchSAR(N, K, B, R, budget, rng=rng),
        "batch-racing": lambda: BatchRacing(N, K, B, R, 0.1, rng=rng),
    }[name]
    # warm-up on a tiny instance: numba compilation / cache loading is not part of the run
    tiny = {"round-robin": UniformRoundRobin, "halving": Halving, "batch-sar": BatchSAR}.get(name)
    if tiny is not None:
        w = tiny(50, 3, 10, 2, 40)
        while not w.done:
            a = w.next_batch()
            w.observe(a, a * 0.5)
    start = time.perf_counter()
    algo = make()
    batches = 0
    while not algo.done and batches < budget:
        pulls = algo.next_batch()
        algo.observe(pulls, draw_batch_sums(rng, pulls, means, "binomial", trials=trials))
        batches += 1
    seconds = time.perf_counter() - start
    answer = algo.answer()
    best = np.sort(means)[::-1][:K].sum()
    truth = set(np.argsort(-means, kind="stable")[:K].tolist())
    return {
        "algorithm": name,
        "batches": batches,
        "done": bool(algo.done),
        "seconds": round(seconds, 3),
        "ms_per_batch": round(1e3 * seconds / max(batches, 1), 2),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "gain": float(means[answer].sum()),
        "oracle_gain": float(best),
        "false_negative_rate": 1 - len(truth & set(answer.tolist())) / K,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--trials", type=int, default=24)
    parser.add_argument("--one", choices=ALGORITHMS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(run_one(args.one, args.budget, args.seed, args.trials)))
        return
    rows = []
    for name in ALGORITHMS:
        out = subprocess.run([sys.executable, __file__, "--one", name, "--budget", str(args.budget),
                              "--seed", str(args.seed), "--trials", str(args.trials)], capture_output=True, text=True, check=True)
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
        print(rows[-1], flush=True)
    results = pathlib.Path(__file__).resolve().parent / "results"
    results.mkdir(exist_ok=True)
    doc = {"n": N, "size": B, "max_repeats": R, "k": K, "budget": args.budget, "seed": args.seed,
           "trials": args.trials, "rows": rows}
    stem = f"bench_batch_scale_B{args.budget}"
    (results / f"{stem}.json").write_text(json.dumps(doc, indent=2) + "\n")
    lines = [f"# Twitter-scale batch run (n = {N:,}, b = {B:,}, r = {R}, k = {K}, budget = {args.budget} batches, "
             f"rewards: mean of {args.trials} Bernoulli trials)",
             "", "| algorithm | batches | done | seconds | ms/batch | peak RSS (MB) | gain / oracle | FNR |",
             "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        lines.append(f"| {r['algorithm']} | {r['batches']} | {r['done']} | {r['seconds']} | {r['ms_per_batch']} | "
                     f"{r['peak_rss_mb']} | {r['gain'] / r['oracle_gain']:.3f} | {r['false_negative_rate']:.2f} |")
    (results / f"{stem}.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
