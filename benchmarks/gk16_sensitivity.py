"""Sensitivity of Track-and-Stop (D-tracking) on GK16 mu2 to the time index used in D-tracking.

Not a tuning script: pybai's default is unchanged.  GK16 (Eq. (13)) chooses round t + 1 with
U_t = {a : N_a(t) < sqrt(t) - K/2} and argmax_a t w*_a(mu_hat(t)) - N_a(t), t = samples so far, which
is what pybai does.  Some implementations (e.g. best-arm 0.1.1) use t + 1 there.  This script
runs both conventions on the same 1,000 seeded replications of the shipped gk16-bernoulli-mu2
file (seed 2016, heuristic threshold) and reports the paired difference, to size how much such
implementation details can move the figure compared with the paper's Table 2.

    .venv/bin/python benchmarks/gk16_sensitivity.py [--quick]     # about 1 minute

Writes benchmarks/results/gk16_sensitivity.json (``..._quick.json`` with --quick).
"""

from __future__ import annotations

import argparse
import math
import sys
import tomllib

import numpy as np

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))

import _bench_common as bc  # noqa: E402

import pybai  # noqa: E402
from pybai.simulate import run_outcomes  # noqa: E402
from pybai.strategies.tracking import d_tracking_step  # noqa: E402

PAPER = 1406.0


class ShiftedDTracking(pybai.TrackAndStop):
    """Track-and-Stop whose D-tracking uses t + shift in place of t (shift = 0: pybai's own)."""

    shift = 0.0

    def _select(self):
        w = self._target_weights()
        counts = self.requests_.counts(self.counts_)
        return d_tracking_step(counts, w, float(self.t_) + self.shift)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="100 replications")
    args = ap.parse_args(argv)
    with open(bc.ROOT / "src" / "pybai" / "experiments" / "gk16-bernoulli-mu2.toml", "rb") as fh:
        data = tomllib.load(fh)
    data["strategy"] = [{"name": "tas", "tracking": "D"}]
    if args.quick:
        data["replications"] = 100
    doc = {"machine": bc.machine(), "paper_tas_d": PAPER, "variants": {}}
    samples = {}
    for label, shift in (("t (GK16 Eq. 13, pybai)", 0.0), ("t + 1", 1.0)):
        exp = pybai.parse_experiment(data)
        strat = ShiftedDTracking(tracking="D")
        strat.shift = shift
        exp.strategies = [(label, strat)]
        out = run_outcomes(exp, jobs=1)[0]
        x = np.array([o.samples for o in out], dtype=float)
        samples[label] = x
        doc["variants"][label] = {
            "mean": x.mean(), "se": x.std(ddof=1) / math.sqrt(x.size), "median": float(np.median(x)),
            "correct_rate": float(np.mean([o.correct for o in out])), "vs_paper": x.mean() / PAPER - 1,
        }
    a, b = samples.values()
    d = b - a
    doc["paired_difference"] = {"mean": d.mean(), "se": d.std(ddof=1) / math.sqrt(d.size),
                                "relative": b.mean() / a.mean() - 1}
    doc["machine"]["load_at_end"] = bc.load()
    out = bc.write_json("gk16_sensitivity_quick.json" if args.quick else "gk16_sensitivity.json", doc)
    print(f"# D-tracking time index on GK16 mu2 ({a.size} replications, seed {data['seed']})\n")
    print(f"{bc.machine_line(doc['machine'])}.\n")
    print(bc.table(["D-tracking uses", "mean samples ± SE", "median", "correct rate", "vs paper 1,406"],
                   [[k, f"{v['mean']:,.1f} ± {v['se']:,.1f}", f"{v['median']:,.0f}", f"{v['correct_rate']:.3f}",
                     f"{100 * v['vs_paper']:+.1f}%"] for k, v in doc["variants"].items()], "lrrrr"))
    p = doc["paired_difference"]
    print(f"\nPaired difference (t + 1) - t on the same replications: {p['mean']:+,.1f} ± {p['se']:,.1f} samples "
          f"({100 * p['relative']:+.1f}%).")
    print(f"wrote {out.relative_to(bc.ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
