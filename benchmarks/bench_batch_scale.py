"""Twitter-scale run of each batch top-k strategy (Jun et al. 2016, section 5.3 setting), ask/tell.

n = 522,062 Bernoulli arms with power-law means (:func:`pybai.batch.instances.twitter_instance`,
arms shuffled), b = 60,000, r = 12, k = 100, one reward per sample (one binomial draw per
batch); a reward is the average of 24 hourly Bernoulli indicators as in section 5.3
(``--trials 1``: plain Bernoulli).  Each batch goes through ``ask``/``tell`` (the model's
update included).  Fixed-budget rules
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

    from pybai import BatchSpec, FixedBudget, FixedConfidence, make_strategy
    from pybai.batch import twitter_instance
    from pybai.models.families import Bernoulli, Gaussian
    from pybai.problems.top_k import TopKProblem

    rng = np.random.default_rng(seed)
    means = twitter_instance(shuffle=rng)
    # rewards averaging several trials are not 0/1: a Gaussian family accepts them (only the
    # racing bounds read the family, and they get sigma = 1/2 explicitly)
    family = Bernoulli(n_sources=N) if trials == 1 else Gaussian(0.5, n_sources=N)
    params = {"sigma": 0.5} if name == "batch-racing" else {}

    def start(n, k, b, r, rounds):
        regime = FixedConfidence(0.1) if name == "batch-racing" else FixedBudget(rounds)
        fam = family if n == N else Gaussian(0.5, n_sources=n)
        return make_strategy(name, **params).start(TopKProblem(n, k, fam, regime, BatchSpec(b, r)), rng=rng)

    def rewards(req, mu):
        return rng.binomial(trials, mu[req]) / trials

    # warm-up on a tiny instance: numba compilation / cache loading is not part of the run
    w = start(50, 3, 10, 2, 40)
    tiny = np.linspace(0.1, 0.9, 50)
    for _ in range(40):
        if w.stopped:
            break
        req = w.ask()
        w.tell(req, rewards(req, tiny))
    start_time = time.perf_counter()
    s = start(N, K, B, R, budget)
    batches = 0
    while not s.stopped and batches < budget:
        req = s.ask()
        s.tell(req, rewards(req, means))
        batches += 1
    seconds = time.perf_counter() - start_time
    answer = s.recommendation()
    best = np.sort(means)[::-1][:K].sum()
    truth = set(np.argsort(-means, kind="stable")[:K].tolist())
    return {
        "algorithm": name,
        "batches": batches,
        "done": bool(s.stopped),
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
