"""Plain references written step by step: sequential Racing and SAR (b = r = 1), and the four batch
rules with (b, r) batches and a tie order; a table environment and a driver for the strategies."""

import math

import numpy as np


class TableEnvironment:
    """Answers each request with the next unused reward of its arm in ``table``."""

    def __init__(self, table):
        self.table = table
        self.used = np.zeros(table.shape[0], dtype=int)

    def respond(self, requests, rng=None):
        rewards = np.empty(requests.size)
        for j, arm in enumerate(requests.tolist()):
            rewards[j] = self.table[arm, self.used[arm]]
            self.used[arm] += 1
        return requests, rewards


def play(strategy, env, partial=False):
    """Run to the end; return the requests in order (one list per batch) and the recommendation."""
    asked = []
    while not strategy.stopped:
        req = strategy.ask()
        asked.append(req.tolist())
        src, rew = env.respond(req)
        if partial and req.size > 1:  # answer in two parts: the rule must wait for the whole batch
            strategy.tell(src[:1], rew[:1])
            strategy.tell(src[1:], rew[1:])
        else:
            strategy.tell(src, rew)
    return asked, strategy.recommendation().tolist()


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


# --- the batch rules with (b, r) batches and a tie order, written plainly ------------------


def literal_round_robin(counts, b, r, active, priority):
    """Algorithm 1 pull by pull: argmin T + a over active arms with a < r, ties by priority."""
    a = [0] * len(counts)
    for _ in range(min(b, len(active) * r)):
        cand = [i for i in active if a[i] < r]
        j = min(cand, key=lambda i: (counts[i] + a[i], priority[i]))
        a[j] += 1
    return a


class _Arms:
    """Counts and sums of arms fed from ``table`` (arm i's j-th reward is table[i, j]), sample by sample."""

    def __init__(self, table, priority):
        self.table = table
        self.priority = list(priority)
        n = table.shape[0]
        self.counts, self.sums, self.batches = [0] * n, [0.0] * n, []

    def batch(self, b, r, active):
        a = literal_round_robin(self.counts, b, r, sorted(active), self.priority)
        pulled = [i for i in range(len(a)) for _ in range(a[i])]
        for i in pulled:
            self.sums[i] += self.table[i, self.counts[i]]
            self.counts[i] += 1
        self.batches.append(pulled)

    def mean(self, i):
        return self.sums[i] / self.counts[i] if self.counts[i] else -math.inf

    def ranked(self, arms):
        """Best first, ties by priority."""
        return sorted(arms, key=lambda i: (-self.mean(i), self.priority[i]))


def batch_racing(table, k, delta, b, r, priority, sigma=0.5):
    """Algorithm 2 with the bounds of Eq. (2); returns the batches and the answer."""
    arms = _Arms(table, priority)
    n = table.shape[0]
    omega = math.sqrt(delta / (6 * n))
    surviving, accepted = list(range(n)), []
    while True:
        arms.batch(b, r, surviving)
        bounds = {}
        for i in surviving:
            c = arms.counts[i]
            if c == 0:
                bounds[i] = (-math.inf, math.inf)
            else:
                d = math.sqrt(16 * sigma * sigma * math.log(math.log2(2 * c) / omega) / c)
                bounds[i] = (arms.sums[i] / c - d, arms.sums[i] / c + d)
        kt = k - len(accepted)
        ups = sorted((bounds[i][1] for i in surviving), reverse=True)
        lows = sorted((bounds[i][0] for i in surviving), reverse=True)
        u_thr = ups[kt] if kt + 1 <= len(surviving) else -math.inf
        l_thr = lows[kt - 1] if kt >= 1 else math.inf
        acc = [i for i in surviving if bounds[i][0] > u_thr]
        rej = [i for i in surviving if bounds[i][1] < l_thr]
        accepted += acc
        surviving = [i for i in surviving if i not in acc and i not in rej]
        if len(accepted) == k:
            return arms.batches, sorted(accepted)
        if len(surviving) == k - len(accepted):
            return arms.batches, sorted(accepted + surviving)


def round_robin_rule(table, k, budget, b, r, priority):
    """RoundRobin over every arm for ``budget`` batches, then the empirical top-k."""
    arms = _Arms(table, priority)
    for _ in range(budget):
        arms.batch(b, r, range(table.shape[0]))
    return arms.batches, sorted(arms.ranked(range(table.shape[0]))[:k])


def halving(table, k, budget, b, r, priority, spread_rng=None):
    """Algorithm 4 with the documented stage budgets (remainder to random or first stages)."""
    n = table.shape[0]
    arms = _Arms(table, priority)
    n_stages = max(1, math.ceil(math.log2(n / k)))
    cover = math.ceil(n / min(b, n * r))
    base, first = budget // n_stages, 0
    if base < cover:
        first, base = cover, (budget - cover) // n_stages
    stages = [base] * n_stages
    stages[0] += first
    spread = budget - first - base * n_stages
    if spread:
        for s in (spread_rng.choice(n_stages, spread, replace=False) if spread_rng else range(spread)):
            stages[s] += 1
    surviving = list(range(n))
    for batches in stages:
        for _ in range(batches):
            arms.batch(b, r, surviving)
        keep = max(math.ceil(len(surviving) / 2), math.ceil(b / r), k)
        surviving = sorted(arms.ranked(surviving)[:keep])
    return arms.batches, sorted(arms.ranked(surviving)[:k])


def batch_sar(table, k, budget, b, r, priority, practical=True):
    """Algorithm 3 with the stage targets of line 4 or Eq. (10); returns the batches and the answer."""
    n = table.shape[0]
    arms = _Arms(table, priority)
    r_t = min(r, math.ceil(b / 2))
    n_t = min(max(math.ceil(b / r), 2), n)

    def g(m):
        return sum(math.ceil(b / i) for i in range(n_t + 1, m + 1))

    def h(m):
        return sum(1 / i for i in range(n_t + 1, m + 1))

    z = n_t / 2 + h(n)
    x = b * budget - g(n) - (b + n_t * r_t + n)
    surviving, accepted, removed = list(range(n)), [], 0

    def target(size):
        if size > n_t:
            if practical:
                left = b * budget - removed - g(size) - (b + n_t * r_t + size)
                return math.ceil(left / ((n_t / 2 + h(size)) * size))
            return math.ceil(x / (z * size))
        return math.inf if practical else math.ceil(x / (2 * z))

    while True:
        size = len(surviving)
        met = min(arms.counts[i] for i in surviving) >= target(size)
        if not met or not arms.batches:
            if len(arms.batches) < budget:
                arms.batch(b, r, surviving)
                continue
        if not met or size <= n_t:  # budget spent mid-stage, or the final stage is complete
            return arms.batches, sorted(accepted + arms.ranked(surviving)[: k - len(accepted)])
        order = arms.ranked(surviving)
        kk = k - len(accepted)
        gap_best = arms.mean(order[0]) - arms.mean(order[kk])
        gap_worst = arms.mean(order[kk - 1]) - arms.mean(order[-1])
        if gap_best > gap_worst or (gap_best == gap_worst and 2 * kk >= size):
            gone = order[0]
            accepted.append(gone)
        else:
            gone = order[-1]
        removed += arms.counts[gone]
        surviving.remove(gone)
        if len(surviving) == k - len(accepted):
            return arms.batches, sorted(accepted + surviving)
        if len(accepted) == k:
            return arms.batches, sorted(accepted)
