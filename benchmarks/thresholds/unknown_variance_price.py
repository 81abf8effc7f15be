"""Where the proven unknown-variance rule pays beyond the known-variance one, without noise.

For each instance of ``unknown_over_known.py`` and each delta: the counts are t w*(mu), the oracle weights
of the model the rule belongs to (known variances, or the unknown-variance transportation costs with the
true sigmas: what Track-and-Stop tracks in each case), the empirical means are the true means and every
arm's sum of squared deviations is N_a sigma_a^2.
Printed: the smallest t at which each rule stops (bisection on t; every rule's margin is
monotone along this path in practice):

* ``leader-scales``   the known-variance ``"leader-scales"`` rule (one e-process per hypothesis,
  leader right from the start: one segment);
* ``pair-mixture``    the known-variance per-pair rule (half-normal mixtures per arm, union over the
  K - 1 pairs at ln((K - 1)/delta) with its own calibration);
* ``uv``              the unknown-variance ``"delta-correct"`` rule, level ln(K - 1) + y with
  (1 + y) e^(-y) = delta (the product of two independent suprema);
* ``uv@ln((K-1)/d)``  diagnostic, NOT proven: the same invariant factors at the union-bound level
  ln((K - 1)/delta), as if the two factors of a pair were one martingale (no ln(1 + y) price);
* ``uv@ln(1/d)``      diagnostic, NOT proven: the invariant factors at ln(1/delta) (neither the
  product price nor the union over pairs);
* ``uv (known w*)``   the unknown-variance rule on the known-variance counts (same data as the first two).

Usage::

    .venv/bin/python benchmarks/thresholds/unknown_variance_price.py
"""

from __future__ import annotations

import math
import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from unknown_over_known import INSTANCES  # noqa: E402

from pybai import BestArmProblem, FixedConfidence, GaussianEnvironment, GaussianUnknownVariance  # noqa: E402
from pybai.models._kl import GAUSSIAN  # noqa: E402
from pybai.problems.best_arm._kernels import oracle_best_arm_warm  # noqa: E402
from pybai.stopping._leader_kernels import leader_min_margin, state_size  # noqa: E402
from pybai.stopping._pair_mixture_kernels import pair_margin  # noqa: E402
from pybai.stopping._tilt_kernels import scale_constants, tilt_caps  # noqa: E402
from pybai.stopping.leader import SCALE_PAIR_WEIGHT  # noqa: E402
from pybai.stopping.pair_mixture import DEFAULT_SCALES, GaussianPairMixtureThreshold  # noqa: E402
from pybai.stopping.unknown_variance import PRECISIONS, _min_margin, bipartite_level  # noqa: E402

SCALES = np.array(DEFAULT_SCALES, dtype=float)
EMAX = tilt_caps(SCALES)
CONSTS = scale_constants(SCALES, EMAX)


def _leader_state(k, best):
    state = np.zeros(state_size(k))
    state[:k] = best
    state[best] = 1 if best == 0 else 0
    return state


def margins(means, sigma, delta):
    """rule name -> margin(t) on the idealised path."""
    k = means.size
    var = sigma ** 2
    w = oracle_best_arm_warm(GAUSSIAN, means, var, np.zeros(k + 1))[1]
    uv_problem = BestArmProblem(k, GaussianUnknownVariance(k), FixedConfidence(delta))
    w_uv = np.asarray(uv_problem.truth_view(GaussianEnvironment(means, sigma)).oracle(means)[1], dtype=float)
    best = int(np.argmax(means))
    others = np.array([j for j in range(k) if j != best], dtype=np.int64)
    top = np.array([best], dtype=np.int64)
    pair = GaussianPairMixtureThreshold(delta, k - 1)
    form = pair.compiled_pieces()
    level, alpha, w_beta, gvar = form.level, form.alpha, form.w_beta, form.gvar
    tied = np.zeros(k, dtype=np.bool_)
    precisions = np.array(PRECISIONS)

    def leader(t):
        counts = w * t
        return leader_min_margin(_leader_state(k, best), GAUSSIAN, counts, means * counts, means.copy(), var, SCALES,
                                 EMAX, CONSTS, math.log(1.0 / delta), False, SCALE_PAIR_WEIGHT)

    def pairs(t):
        counts = w * t
        return min(pair_margin(GAUSSIAN, counts[best], means[best], var[best], counts[b], means[b], var[b], level,
                               alpha, w_beta, SCALES, gvar, True, 1.0, 0.0) for b in others)

    def uv(uv_level, weights=w_uv):
        def margin(t):
            counts = weights * t
            return _min_margin(counts, means, counts * var, top, others, uv_level, precisions, 0.0, tied)
        return margin

    return {"leader-scales": leader, "pair-mixture": pairs, "uv": uv(bipartite_level(delta, k - 1)),
            "uv@ln((K-1)/d)": uv(math.log((k - 1) / delta)), "uv@ln(1/d)": uv(math.log(1.0 / delta)),
            "uv (known w*)": uv(bipartite_level(delta, k - 1), w)}


def stopping_time(margin):
    lo, hi = 2.0, 1e8
    for _ in range(60):
        mid = math.sqrt(lo * hi)
        lo, hi = (lo, mid) if margin(mid) > 0.0 else (mid, hi)
    return hi


def main() -> int:
    names = None
    for delta in (0.1, 0.01):
        for inst, (means, sigma) in INSTANCES.items():
            rules = margins(np.array(means, dtype=float), np.array(sigma, dtype=float), delta)
            times = {name: stopping_time(m) for name, m in rules.items()}
            if names is None:
                names = list(times)
                print("| instance | delta | " + " | ".join(names) + " | uv / leader-scales |")
                print("| --- | --- | " + " | ".join("---:" for _ in names) + " | ---: |")
            base = times["leader-scales"]
            cells = [f"{times[n]:,.0f} ({times[n] / base:.2f})" for n in names]
            print(f"| {inst} | {delta} | " + " | ".join(cells) + f" | {times['uv'] / base:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
