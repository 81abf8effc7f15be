"""Importable reward functions for the experiment-file tests of the callable environment."""

import math


def linear_reward(arm, rng):
    return 0.1 * arm + 0.01 * rng.standard_normal()


def make_failing_reward(bad_arm=2, value="raise"):
    def reward(arm, rng):
        if arm == bad_arm:
            if value == "raise":
                raise ValueError("model fit diverged")
            return math.nan
        return float(arm)

    return reward


def identity_covariance():
    return [[1.0 if i == j else 0.0 for j in range(4)] for i in range(4)]
