"""
Track-and-Stop on a Bernoulli instance (Garivier & Kaufmann, 2016)
==================================================================

The shipped experiment ``gk16-bernoulli-mu2`` reproduces Table 2 of Garivier & Kaufmann (2016):
five Bernoulli arms, delta = 0.1. Here it runs with 40 replications instead of 1,000 so the
page builds in seconds (``pybai run gk16-bernoulli-mu2`` runs the full file).
"""

import matplotlib.pyplot as plt
import numpy as np

import pybai
from pybai.config.experiment import read_document
from pybai.experiments import experiment_path

document = read_document(experiment_path("gk16-bernoulli-mu2"))
document["replications"] = 40
document["strategy"] = [s for s in document["strategy"] if s.get("label") in ("tas-D", "tas-C")
                        or s["name"] == "uniform"]
experiment = pybai.parse_experiment(document)
print("means:", experiment.environment.source_means)

# %%
# The complexity of the instance: T*(mu), the optimal proportions w*(mu) and the lower bound
# T*(mu) kl(delta, 1 - delta) on the expected number of samples of any delta-correct strategy.
report = pybai.complexity_report(experiment)
print(f"T*(mu) = {report['characteristic_time']:.1f}")
print("w*(mu) =", np.round(report["optimal_weights"], 3))
print(f"lower bound = {report['lower_bound']:.1f} samples")

# %%
# Run every strategy on the same seeded replications.
results = pybai.run_experiment(experiment)
for row in results["results"]:
    print(f"{row['strategy']:>8}: mean samples {row['mean_samples']:7.1f}, correct {row['correct_rate']:.2f}")

# %%
# Mean samples at stopping beside the lower bound.
fig, ax = plt.subplots(figsize=(5, 3))
names = [row["strategy"] for row in results["results"]]
ax.bar(names, [row["mean_samples"] for row in results["results"]], color="tab:blue")
ax.axhline(report["lower_bound"], color="black", linestyle="--", label="T* kl(delta, 1 - delta)")
ax.set_ylabel("mean samples at stopping")
ax.legend()
fig.tight_layout()
