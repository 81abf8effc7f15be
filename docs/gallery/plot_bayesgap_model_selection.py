"""
Model selection with a correlated prior (BayesGap)
==================================================

160 regression models for the red-wine quality data (the grid of Hoffman, Shahriari & de Freitas,
2014, section 6.2) are the arms; an arm's value is minus its test RMSE.  A budget of 20 pulls is far
fewer than the number of models, so only rules that share information through the prior can
work: the prior correlates models of one class whose hyper-parameters are neighbours.

The shipped experiment ``bayesgap-automl`` fits a scikit-learn model at every pull.  To build
this page in seconds, a pull here returns the model's reference RMSE (shipped with pybai) plus
Gaussian noise of the same size.
"""

import matplotlib.pyplot as plt
import numpy as np

import pybai
from pybai.datasets.wine import model_class_covariance, wine_model_grid, wine_reference_means

truth = wine_reference_means()
grid = wine_model_grid()
classes = sorted({spec.model_class for spec in grid})
print(f"{len(truth)} models in {len(classes)} classes; best RMSE {-truth.max():.4f}")

experiment = pybai.parse_experiment({
    "name": "wine-selection",
    "replications": 30,
    "seed": 2014,
    "problem": {"goal": "best-arm", "budget": 20, "epsilon": 0.0},
    "environment": {"kind": "correlated-gaussian", "means": truth.tolist(),
                    "covariance": model_class_covariance(grid).tolist(),
                    "sigma": 0.05, "eta": 0.2, "prior_mean": -0.81},
    "strategy": [{"name": "bayes-gap"}, {"name": "thompson"}, {"name": "ei"}, {"name": "gp-ucb"}],
})

# %%
# Simple regret (RMSE of the recommended model minus the best RMSE), averaged over replications.
results = pybai.run_experiment(experiment)
names = [row["strategy"] for row in results["results"]]
regret = [row["mean_simple_regret"] for row in results["results"]]
for name, value in zip(names, regret):
    print(f"{name:>10}: mean simple regret {value:.4f}")
fig, ax = plt.subplots(figsize=(5, 3))
ax.bar(names, regret)
ax.set_ylabel("mean simple regret (RMSE)")
fig.tight_layout()
