"""The complexity of an experiment's problem: T*(mu), w*(mu) and the lower bound."""

from __future__ import annotations

import math

import numpy as np

from pybai.config.experiment import Experiment
from pybai.problems.base import bernoulli_kl_scalar

__all__ = ["complexity_report"]


def complexity_report(experiment: Experiment) -> dict:
    """Answer, characteristic time, optimal weights and lower bound of ``experiment``.

    The lower bound on the expected number of samples of any delta-correct strategy is
    T*(mu) kl(delta, 1 - delta) (Garivier & Kaufmann 2016, Theorem 1).
    """
    problem = experiment.problem
    truth = experiment.environment.source_means
    t_star, w = problem.oracle(truth)
    delta = problem.delta
    finite = math.isfinite(t_star)
    lower = t_star * bernoulli_kl_scalar(delta, 1 - delta) if (delta is not None and finite) else None
    answer = problem.answer(truth)
    return {
        "answer": int(answer) if np.ndim(answer) == 0 else [int(a) for a in answer],
        "characteristic_time": round(float(t_star), 6) if finite else None,
        "optimal_weights": np.round(np.asarray(w).reshape(problem.source_shape), 8).tolist(),
        "lower_bound": None if lower is None else round(float(lower), 6),
        "delta": delta,
    }
