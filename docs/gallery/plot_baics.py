"""
A fairness-constrained selection (BAICS)
========================================

Three treatments (arms) are measured in three subpopulations.  Quality is the
population-weighted mean, but a treatment is only acceptable if its mean is at least 0 in every
subpopulation.  Arm 2 has the best quality and is infeasible; the answer is arm 0.  This is
example 1 of Wu, Zheng & Zhu (shipped as ``baics-example-1``), here with 20 replications.
"""

import matplotlib.pyplot as plt
import numpy as np

import pybai

experiment = pybai.parse_experiment({
    "name": "baics-gallery",
    "replications": 20,
    "seed": 2024,
    "problem": {"goal": "best-feasible-arm", "delta": 0.1, "max_samples": 100000},
    "environment": {
        "kind": "subpopulation-gaussian",
        "means": [[0.2, 0.6, 0.8], [0.4, 0.4, 0.3], [-0.2, 1.0, 1.5]],
        "weights": [0.2, 0.3, 0.5],
        "floor": 0.0,
        "sigma": 1.0,
    },
    "strategy": [{"name": "tas-cs", "n_init": 5}, {"name": "uniform", "n_init": 5}],
})
report = pybai.complexity_report(experiment)
print("answer:", report["answer"], " T*(mu) =", round(report["characteristic_time"], 1))

# %%
# The optimal allocation w*(mu) over (arm, subpopulation) cells: the constrained rule spends
# its samples where feasibility is in doubt (arm 2 in subpopulation 0).
weights = np.asarray(report["optimal_weights"]).reshape(3, 3)
fig, ax = plt.subplots(figsize=(4, 3))
image = ax.imshow(weights, cmap="Blues")
ax.set_xticks(range(3), [f"subpop. {j}" for j in range(3)])
ax.set_yticks(range(3), [f"arm {i}" for i in range(3)])
for (i, j), w in np.ndenumerate(weights):
    ax.text(j, i, f"{w:.2f}", ha="center", va="center")
ax.set_title("w*(mu)")
fig.colorbar(image, ax=ax)
fig.tight_layout()

# %%
# T-a-SCS against uniform sampling on the same seeded replications.
results = pybai.run_experiment(experiment)
for row in results["results"]:
    print(f"{row['strategy']:>8}: mean samples {row['mean_samples']:8.1f}, correct {row['correct_rate']:.2f}")
