"""Plain sequential references for the b = r = 1 checks: Racing and SAR written step by step."""

import math

import numpy as np


def reward_table(means, length, seed):
    """table[i, j]: the j-th Bernoulli reward of arm i."""
    rng = np.random.default_rng(seed)
    return (rng.random((len(means), length)) < np.asarray(means)[:, None]).astype(float)


# --- sequential Racing, written plainly ---------------------------------------------


def sequential_racing(table, k, delta):
    n = table.shape[0]
    omega = math.sqrt(delta / (6 * n))
    counts, sums = [0] * n, [0.0] * n
    surviving, accepted, pulled = list(range(n)), [], []
    while True:
        arm = min(surviving, key=lambda i: (counts[i], i))  # least pulled, lowest index
        sums[arm] += table[arm, counts[arm]]
        counts[arm] += 1
        pulled.append(arm)
        bounds = {}
        for i in surviving:
            if counts[i] == 0:
                bounds[i] = (-math.inf, math.inf)
            else:
                d = math.sqrt(4 * math.log(math.log2(2 * counts[i]) / omega) / counts[i])
                bounds[i] = (sums[i] / counts[i] - d, sums[i] / counts[i] + d)
        kt = k - len(accepted)
        ups = sorted((bounds[i][1] for i in surviving), reverse=True)
        lows = sorted((bounds[i][0] for i in surviving), reverse=True)
        u_thr = ups[kt] if kt + 1 <= len(surviving) else -math.inf  # (k_t + 1)-th largest U
        l_thr = lows[kt - 1] if kt >= 1 else math.inf  # k_t-th largest L
        acc = [i for i in surviving if bounds[i][0] > u_thr]
        rej = [i for i in surviving if bounds[i][1] < l_thr]
        accepted += acc
        surviving = [i for i in surviving if i not in acc and i not in rej]
        if len(accepted) == k:
            return pulled, sorted(accepted)
        if len(surviving) == k - len(accepted):
            return pulled, sorted(accepted + surviving)


# --- sequential SAR (Bubeck, Wang & Viswanathan 2013), written plainly ----------------


def sequential_sar(table, k, budget, practical=False):
    """SAR with phase lengths n_s = ceil((budget - K) / (logbar(K) (K + 1 - s))).

    With ``practical``, the phase lengths of Eq. (10) at b = r = 1 instead (n~ = 2, r~ = 1):
    ceil((budget - R_s - (K_s - 2) - (3 + K_s)) / ((1 + sum_{i=3}^{K_s} 1/i) K_s)), K_s arms
    left, R_s the pulls of removed arms, and the last two arms pulled until the budget is spent.
    """
    n = table.shape[0]
    counts, sums = [0] * n, [0.0] * n
    active, accepted, pulled = list(range(n)), [], []
    logbar = 0.5 + sum(1 / i for i in range(2, n + 1))
    removed = 0

    def pull(arm):
        sums[arm] += table[arm, counts[arm]]
        counts[arm] += 1
        pulled.append(arm)

    def ranked():
        return sorted(active, key=lambda i: (-sums[i] / counts[i], i))

    for s in range(1, n):
        size = len(active)
        if practical and size == 2:
            while len(pulled) < budget:
                pull(min(active, key=lambda i: (counts[i], i)))
            kk = k - len(accepted)
            return pulled, sorted(accepted + ranked()[:kk])
        if practical:
            z = 1 + sum(1 / i for i in range(3, size + 1))
            target = math.ceil((budget - removed - (size - 2) - (3 + size)) / (z * size))
        else:
            target = math.ceil((budget - n) / (logbar * (n + 1 - s)))
        while min(counts[i] for i in active) < target:
            for arm in sorted(active):  # one pull of each arm below the target, in index order
                if counts[arm] < target:
                    pull(arm)
        kk = k - len(accepted)
        order = ranked()
        mean = {i: sums[i] / counts[i] for i in active}
        gap_best = mean[order[0]] - mean[order[kk]]
        gap_worst = mean[order[kk - 1]] - mean[order[-1]]
        if gap_best > gap_worst or (gap_best == gap_worst and 2 * kk >= size):
            accepted.append(order[0])
            gone = order[0]
        else:
            gone = order[-1]
        removed += counts[gone]
        active.remove(gone)
        if len(active) == k - len(accepted):
            return pulled, sorted(accepted + active)
        if len(accepted) == k:
            return pulled, sorted(accepted)
    return pulled, sorted(accepted)
