"""Phase schedules of the elimination baselines: successive rejects (Audibert, Bubeck and Munos
2010) and sequential halving (Karnin, Koren and Somekh 2013).

Both spend a fixed budget T in phases; in each phase every surviving arm is pulled the same
number of times, then the worst arms are dropped.  These functions give the per-arm pulls of
every phase and the elimination steps; a strategy plays a phase as ``phase_requests``.

Ties: elimination keeps the earlier arm index (drops the later one among equal scores).
"""

from __future__ import annotations

import math

import numpy as np

from pybai._validation import check_positive_int, fail

__all__ = [
    "log_bar",
    "successive_rejects_lengths",
    "successive_rejects_schedule",
    "sequential_halving_schedule",
    "reject_worst",
    "keep_top_half",
    "phase_requests",
]


def log_bar(n_arms: int) -> float:
    """``log_bar(K) = 1/2 + sum_{i=2}^K 1/i`` (Audibert et al. 2010)."""
    return 0.5 + sum(1.0 / i for i in range(2, n_arms + 1))


def successive_rejects_lengths(n_arms: int, budget: int) -> np.ndarray:
    """``n_k = ceil((T - K) / (log_bar(K) (K + 1 - k)))`` for k = 1..K-1: pulls per surviving arm
    accumulated by the end of phase k (Audibert et al. 2010).

    The total ``n_1 + ... + n_{K-1} + n_{K-1}`` never exceeds T.
    """
    K = check_positive_int(n_arms, "n_arms", "successive_rejects", minimum=2)
    T = check_positive_int(budget, "budget", "successive_rejects")
    if T < K:
        raise fail("budget", "successive_rejects", f"an int >= the number of arms ({K})", T)
    k = np.arange(1, K)
    return np.ceil((T - K) / (log_bar(K) * (K + 1 - k)) - 1e-12).astype(int)


def successive_rejects_schedule(n_arms: int, budget: int) -> np.ndarray:
    """Pulls of each surviving arm in phase k = 1..K-1: ``n_k - n_{k-1}`` (``n_0 = 0``).

    Phase k has ``K + 1 - k`` surviving arms; after it the arm with the lowest empirical mean is
    rejected (:func:`reject_worst`), and the last survivor is recommended.
    """
    lengths = successive_rejects_lengths(n_arms, budget)
    return np.diff(lengths, prepend=0)


def sequential_halving_schedule(n_arms: int, budget: int) -> list[tuple[int, int]]:
    """Rounds ``(n_active, pulls_per_arm)`` of sequential halving (Karnin et al. 2013).

    ``ceil(log2 K)`` rounds; in round r each of the ``|S_r|`` surviving arms is pulled
    ``floor(T / (|S_r| ceil(log2 K)))`` times, then the best ``ceil(|S_r| / 2)`` (by the mean of
    the round's samples in the paper) survive (:func:`keep_top_half`).  Pulls per arm are 0 when
    the budget is too small for a round (``T < |S_r| ceil(log2 K)``).
    """
    K = check_positive_int(n_arms, "n_arms", "sequential_halving", minimum=2)
    T = check_positive_int(budget, "budget", "sequential_halving")
    rounds = math.ceil(math.log2(K))
    out = []
    active = K
    for _ in range(rounds):
        out.append((active, T // (active * rounds)))
        active = math.ceil(active / 2)
    return out


def reject_worst(scores, active) -> np.ndarray:
    """Drop the active arm with the lowest score (the last one among ties); returns the survivors."""
    act = np.asarray(active, dtype=np.intp)
    s = np.asarray(scores, dtype=float)[act]
    worst = len(act) - 1 - int(np.argmin(s[::-1]))
    return np.delete(act, worst)


def keep_top_half(scores, active) -> np.ndarray:
    """Keep the ``ceil(|active| / 2)`` active arms with the highest scores (earlier index on ties)."""
    act = np.asarray(active, dtype=np.intp)
    s = np.asarray(scores, dtype=float)[act]
    order = np.argsort(-s, kind="stable")
    keep = math.ceil(len(act) / 2)
    return np.sort(act[order[:keep]])


def phase_requests(active, pulls: int) -> np.ndarray:
    """The requests of one phase: every active arm ``pulls`` times, in round-robin order."""
    return np.tile(np.asarray(active, dtype=np.intp), int(pulls))
