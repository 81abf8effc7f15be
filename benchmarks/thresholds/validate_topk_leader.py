"""`pybai validate` with "topk-leader" standing in for "delta-correct" on top-k problems (Gaussian, Bernoulli; no
epsilon), for this run only (docs/thresholds.md, "Top-k without the union over pairs").

    python benchmarks/thresholds/validate_topk_leader.py validate --quick --family top-k --proven-only
"""
import sys
import pybai.problems.top_k.problem as P

_orig = P.TopKProblem.threshold


def threshold(self, kind, delta):
    if (isinstance(kind, str) and kind.strip().lower() == "delta-correct" and self.epsilon is None
            and self.family.name in ("gaussian", "bernoulli")):
        kind = "topk-leader"
    return _orig(self, kind, delta)


P.TopKProblem.threshold = threshold
from pybai.cli import main  # noqa: E402

sys.exit(main(sys.argv[1:]))
