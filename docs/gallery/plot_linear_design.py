"""
Linear bandits: optimal designs and the XY allocations
======================================================

Arms with known features x_k and a reward x_k^T theta + noise (Soare, Lazaric & Munos, 2014).
The arms of their section 6: the unit vectors e_1, ..., e_d and one arm at angle omega from e_1;
theta = (2, 0, ..., 0), so e_1 is best and the nearly parallel arm is hard to tell apart.
"""

import matplotlib.pyplot as plt
import numpy as np

import pybai
from pybai.design import g_optimal_design, xy_design
from pybai.environments.linear_instances import soare_features

features = soare_features(d=3, omega=0.1)
print(np.round(features, 3))

# %%
# The G-optimal design spreads samples evenly over the basis; the XY design (all pairwise
# directions) puts its weight on the directions that separate the arms.
g = g_optimal_design(features)
xy = xy_design(features)
fig, ax = plt.subplots(figsize=(5, 3))
arms = np.arange(len(features))
ax.bar(arms - 0.2, g.weights, width=0.4, label="G-optimal")
ax.bar(arms + 0.2, xy.weights, width=0.4, label="XY (all directions)")
ax.set_xticks(arms, [f"arm {k}" for k in arms])
ax.set_ylabel("design weight")
ax.legend()
fig.tight_layout()

# %%
# The strategies stop by the same GLR rule; 10 replications each.
experiment = pybai.parse_experiment({
    "name": "linear-gallery",
    "replications": 10,
    "seed": 1,
    "problem": {"goal": "best-arm", "delta": 0.05},
    "environment": {"kind": "linear-gaussian", "features": features.tolist(),
                    "theta": [2.0, 0.0, 0.0], "sigma": 1.0},
    "strategy": [{"name": "xy-static", "check_growth": 0.02},
                 {"name": "xy-adaptive", "alpha": 0.1},
                 {"name": "g-allocation", "check_growth": 0.02}],
})
for row in pybai.run_experiment(experiment)["results"]:
    print(f"{row['strategy']:>12}: mean samples {row['mean_samples']:8.0f}, correct {row['correct_rate']:.2f}")
