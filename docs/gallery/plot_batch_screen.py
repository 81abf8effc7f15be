"""
A batched top-k screen
======================

A screen of 2,000 candidates for the 20 most active, measured on plates of 96 wells with at most
8 wells of one candidate per plate (the (b, r)-batch setting of Jun, Jamieson, Nowak & Zhu,
2016), with a budget of 50 plates and a noisy assay (sigma = 1).  Means are drawn once from the heavy-tailed law of the
shipped ``topk-virus`` experiment; the strategies are compared on the fraction of the true top 20
they return (1 - the false-negative rate).
"""

import matplotlib.pyplot as plt

import pybai

experiment = pybai.parse_experiment({
    "name": "screen",
    "replications": 10,
    "seed": 384,
    "problem": {"goal": "top-k", "k": 20, "budget": 50, "batch": {"size": 96, "max_repeats": 8}},
    "environment": {"kind": "gaussian", "generator": "virus", "arms": 2000, "seed": 0, "sigma": 1.0},
    "strategy": [{"name": "batch-sar"}, {"name": "halving"}, {"name": "round-robin"}],
})
results = pybai.run_experiment(experiment)
for row in results["results"]:
    print(f"{row['strategy']:>12}: {1 - row['false_negative_rate']:.2f} of the top 20 found, "
          f"gain {row['mean_gain']:.2f} of {row['oracle_gain']:.2f}")

# %%
fig, ax = plt.subplots(figsize=(5, 3))
ax.bar([r["strategy"] for r in results["results"]], [1 - r["false_negative_rate"] for r in results["results"]])
ax.set_ylabel("fraction of the top 20 found")
ax.set_ylim(0, 1)
fig.tight_layout()
