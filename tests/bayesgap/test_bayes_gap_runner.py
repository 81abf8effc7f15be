"""BayesGap through the real runner: on GP draws its error rate at a fixed budget is below uniform's.

Not asserted (measured, this seed): against UGapEb on independent arms BayesGap is NOT better
here: error 0.283 vs 0.233 (K = 40, T = 80, lengthscale 0.5); 0.208 vs 0.233 at K = 30, T = 60;
0.433 vs 0.600 at K = 40, T = 60, lengthscale 1.0.  Open question for the lead.
"""

import pybai


def test_bayes_gap_beats_uniform_through_the_runner():
    K = 40
    doc = {
        "name": "bayesgap-runner-check",
        "replications": 120,
        "seed": 7,
        "problem": {"goal": "best-arm", "budget": 80},
        "environment": {"kind": "correlated-gaussian", "draw": "prior", "sigma": 0.5, "eta": 1.0,
                        "kernel": {"name": "rbf", "lengthscale": 0.5,
                                   "points": [10.0 * i / (K - 1) for i in range(K)]}},
        "strategy": [{"name": "bayes-gap"}, {"name": "uniform"}, {"name": "ugap"}],
    }
    out = pybai.run_experiment(pybai.parse_experiment(doc))
    rate = {r["strategy"]: 1.0 - r["correct_rate"] for r in out["results"]}
    regret = {r["strategy"]: r["mean_simple_regret"] for r in out["results"]}
    assert out["answer"] is None  # a new truth per replication
    assert rate["bayes-gap"] < rate["uniform"] - 0.05, rate
    assert regret["bayes-gap"] < regret["uniform"], regret
