"""The fixed prior weights inside E_j of the settled leader rule, idealised, on random instances.

E_j = sum over pairs of scales (c, c') of pi(c, c') D_j,c G_j,c', pi = (1 - p) (1/J) 1[c = c'] + p / J^2, and
G_j,c = w L_j,c + (1 - w) (1/(K - 1)) sum_i U_i,c.  ``"leader-settled"`` has w = p = 1/2.  This script computes, for
a grid of (w, p), the smallest t at which the rule stops on the noiseless path at Track-and-Stop's allocation, over
random instances drawn here (not the benchmark instances), as a ratio to the heuristic's time on the same path.

The idealised path of the settled rule: counts t w*(mu), empirical means at the truth; the leader of H_j (j not the
best arm) is the best arm, and its process starts when the best arm's pair GLR over the runner-up of the arms other
than j exceeds ``STICKY`` (that GLR is linear in t on this path: at t_s = STICKY / its value at t = 1), so its one
segment holds the best arm's samples after t_s only; the fixed half holds all of them.  With K = 2 the leader starts
at once.  What this path cannot show: changes of leader driven by noise (the leader is right from its start).

Random instances (``numpy.random.default_rng(SEED)``, SEED = 20261129): K uniform on {2, ..., 10}; with probability
1/2 Gaussian arms (sigma = 1, means uniform on [0, 1]), else Bernoulli arms (means uniform on [0.05, 0.6]); redrawn
while the gap between the two best means is below 0.02.

Usage::

    python benchmarks/thresholds/leader_weights.py [N_INSTANCES]
"""

from __future__ import annotations

import math
import sys

import numpy as np

from pybai.models._kl import BERNOULLI, GAUSSIAN, pair_cost
from pybai.problems.best_arm._kernels import glr_best_arm, oracle_best_arm_warm
from pybai.stopping._leader_kernels import STICKY, leader_min_margin, state_size
from pybai.stopping._tilt_kernels import scale_constants, tilt_caps
from pybai.stopping.pair_mixture import DEFAULT_SCALES

SEED = 20261129
SCALES = np.array(DEFAULT_SCALES, dtype=float)
EMAX = tilt_caps(SCALES)
CONSTS = scale_constants(SCALES, EMAX)
#: (w, p) candidates: the leader's weight in G_j and the weight of the independent-scales part; w as a string is a
#: function of K: "1/K" (a uniform prior over the K witnesses: the leader and the K - 1 arms), "1-1/K".
CANDIDATES = ((0.5, 0.5), (2 / 3, 0.5), (0.75, 0.5), (0.9, 0.5), ("1/K", 0.5), ("1-1/K", 0.5), (0.5, 0.25),
              (0.5, 0.75), (0.75, 0.75))


def lead_weight(w, k):
    """The weight w of the leader process for K = ``k`` arms (a number, or "1/K", "1-1/K")."""
    if w == "1/K":
        return 1.0 / k
    if w == "1-1/K":
        return 1.0 - 1.0 / k
    return float(w)


def random_instances(n, seed=SEED):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        k = int(rng.integers(2, 11))
        gaussian = rng.random() < 0.5
        means = rng.uniform(0.0, 1.0, k) if gaussian else rng.uniform(0.05, 0.6, k)
        top = np.sort(means)[::-1]
        if top[0] - top[1] < 0.02:
            continue
        out.append((GAUSSIAN if gaussian else BERNOULLI, means))
    return out


class Path:
    """The noiseless path of one instance at its oracle weights."""

    def __init__(self, code, means):
        self.code, self.means, self.k = code, means, means.size
        self.var = np.ones(self.k) if code == GAUSSIAN else np.zeros(self.k)
        self.w = oracle_best_arm_warm(code, means, self.var, np.zeros(self.k + 1))[1]
        self.best = int(np.argmax(means))
        order = [i for i in np.argsort(-means) if i != self.best]
        self.start = np.zeros(self.k)  # t_s of each hypothesis (settled start)
        for j in range(self.k):
            if j == self.best or self.k == 2:
                continue
            runner = order[0] if order[0] != j else order[1]
            g = pair_cost(code, self.w[self.best], means[self.best], self.var[self.best], self.w[runner],
                          means[runner], self.var[runner])
            self.start[j] = STICKY / g

    def state(self, t):
        k, b = self.k, self.best
        state = np.zeros(state_size(k))
        state[:k] = b
        state[b] = 1 if b == 0 else 0
        for j in range(k):
            if j == b:
                continue
            if t <= self.start[j]:
                state[j] = -1.0
            else:
                state[k + j] = self.w[b] * self.start[j]
                state[2 * k + j] = self.means[b] * state[k + j]
        return state

    def margin(self, t, delta, w, p):
        counts = self.w * t
        return leader_min_margin(self.state(t), self.code, counts, self.means * counts, self.means.copy(), self.var,
                                 SCALES, EMAX, CONSTS, math.log(1.0 / delta), False, p, lead=w)

    def heuristic(self, t, delta):
        z, _ = glr_best_arm(self.code, self.w * t, self.means.copy(), self.var, 1.0, 0.0)
        return z - math.log((1.0 + math.log(t)) / delta)

    def first(self, test):
        lo, hi = 1.0, 1e9
        for _ in range(60):
            mid = math.sqrt(lo * hi)
            lo, hi = (lo, mid) if test(mid) > 0.0 else (mid, hi)
        return hi


def main(argv):
    n = int(argv[0]) if argv else 60
    cases = random_instances(n)
    print(f"{n} random instances (seed {SEED}); ratio of the idealised stopping time to the heuristic's")
    header = "  ".join(f"{'w=' + (w if isinstance(w, str) else f'{w:.3g}') + f',p={p:.3g}':>12s}"
                       for w, p in CANDIDATES)
    for delta in (0.1, 0.01):
        ratios = np.zeros((n, len(CANDIDATES)))
        ks = np.zeros(n, dtype=int)
        for i, (code, means) in enumerate(cases):
            path = Path(code, means)
            ks[i] = path.k
            th = path.first(lambda t: path.heuristic(t, delta))
            for c, (w, p) in enumerate(CANDIDATES):
                wk = lead_weight(w, path.k)
                ratios[i, c] = path.first(lambda t: path.margin(t, delta, wk, p)) / th
        rel = ratios / ratios[:, :1]
        print(f"delta = {delta}:{'':18s}{header}")
        print("  mean ratio to heuristic   " + "  ".join(f"{v:12.3f}" for v in ratios.mean(0)))
        print("  mean vs w=p=1/2           " + "  ".join(f"{v:12.3f}" for v in rel.mean(0)))
        print("  worst vs w=p=1/2          " + "  ".join(f"{v:12.3f}" for v in rel.max(0)))
        print("  share cheaper than 1/2    " + "  ".join(f"{v:12.2f}" for v in (rel < 1.0 - 1e-9).mean(0)))
        for lo, hi in ((2, 3), (4, 6), (7, 10)):
            sel = (ks >= lo) & (ks <= hi)
            print(f"  K in [{lo}, {hi}] ({sel.sum():2d}) vs 1/2   " + "  ".join(f"{v:12.3f}" for v in rel[sel].mean(0)))


if __name__ == "__main__":
    main(sys.argv[1:])
