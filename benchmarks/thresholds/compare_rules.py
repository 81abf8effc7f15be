"""Track-and-Stop mean samples under stopping rules not reachable from experiment files.

Usage: python benchmarks/thresholds/compare_rules.py INSTANCE REPS RULE...  (INSTANCE: mu1 mu2 g5 g10;
RULE: heur, mix (Bernoulli default: KT + sub-Gaussian scale mixtures), kt (Bernoulli pair rule, KT prior alone), lap (Laplace prior alone), g1 (Gaussian one-sided), g2 (two-sided));
ratios are against the first RULE.
"""
import sys, time, numpy as np
sys.path.insert(0, str(__import__('pathlib').Path(__file__).resolve().parents[2] / 'src'))
from pybai.problems.best_arm import BestArmProblem
from pybai.problems.base import FixedConfidence
from pybai.models import Bernoulli, Gaussian
from pybai.environments.bernoulli import BernoulliEnvironment
from pybai.environments.gaussian import GaussianEnvironment
from pybai.strategies.track_and_stop import TrackAndStop
from pybai.stopping import pair_mixture
from pybai.simulate.runner import run_replication

def run(means, fam, delta, make, reps, seed=7):
    K = len(means)
    family = Bernoulli(n_sources=K) if fam == "b" else Gaussian(1.0, n_sources=K)
    env = BernoulliEnvironment(means) if fam == "b" else GaussianEnvironment(means, 1.0)
    prob = BestArmProblem(K, family, FixedConfidence(delta))
    if make is not None:
        prob.threshold = lambda kind, d: make(d, K - 1)
    kind = "heuristic" if make is None else "delta-correct"
    ss = np.random.SeedSequence(seed).spawn(reps)
    t0 = time.process_time(); n = []; err = 0
    for s in ss:
        o = run_replication(TrackAndStop(threshold=kind), env, prob, s)
        n.append(o.samples); err += (o.correct is False) if hasattr(o, 'correct') else 0
    return np.mean(n), time.process_time() - t0

if __name__ == "__main__":
    which = sys.argv[1]; reps = int(sys.argv[2])
    inst = {"mu1": ([0.5, 0.45, 0.43, 0.4], "b", 0.1), "mu2": ([0.3, 0.21, 0.2, 0.19, 0.18], "b", 0.1),
            "g5": ([1.0, 0.8, 0.6, 0.4, 0.2], "g", 0.05), "g10": (list(np.round(np.arange(1.0, -0.9, -0.2), 1)), "g", 0.05)}[which]
    makers = {"heur": None,
              "mix": lambda d, m: pair_mixture.BernoulliPairMixtureThreshold(d, m),
              "kt": lambda d, m: pair_mixture.BernoulliPairKTThreshold(d, m, 0.5),
              "lap": lambda d, m: pair_mixture.BernoulliPairKTThreshold(d, m, 1.0),
              "g1": lambda d, m: pair_mixture.GaussianPairMixtureThreshold(d, m, True),
              "g2": lambda d, m: pair_mixture.GaussianPairMixtureThreshold(d, m, False)}
    base = None
    for name in sys.argv[3:]:
        mean, cpu = run(*inst, makers[name], reps)
        base = base or mean
        print(f"{which} {name}: mean {mean:.0f}  ratio {mean/base:.2f}  cpu {cpu:.1f}s", flush=True)
