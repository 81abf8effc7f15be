"""The state of the leader rules (:mod:`pybai.stopping.leader`): its layout and the leaders' update.

The layout and what each part holds are described in :mod:`pybai.stopping._leader_kernels`, whose kernels read
the state (and re-export these names); :func:`leader_advance` updates the leaders after each observation.
"""

from __future__ import annotations

from numba import njit

from pybai.models._kl import pair_cost

__all__ = ["MAX_SEGMENTS", "STICKY", "state_size", "segment_index", "leader_advance"]

#: Completed segments kept per hypothesis; when they are all used the current leader is kept for good.
MAX_SEGMENTS = 32
#: The pair GLR (nats) by which the empirical best of the other arms must beat a hypothesis' current
#: leader before the leader changes (a new segment restarts a mixture, which costs; near-tied arms
#: would otherwise swap the lead often).
STICKY = 2.0


@njit(cache=True)
def state_size(n_arms):
    """Length of the state of ``n_arms`` arms (the layout: :mod:`pybai.stopping._leader_kernels`)."""
    return n_arms * (5 + 3 * MAX_SEGMENTS)


@njit(cache=True)
def segment_index(n_arms, j, k):
    """Index in the state of completed segment ``k`` of hypothesis ``j`` (its triple arm, count, sum)."""
    return 5 * n_arms + 3 * (j * MAX_SEGMENTS + k)


@njit(cache=True)
def leader_advance(state, counts, sums, means, code, var, sticky, start=0.0):
    """Update the leaders of every hypothesis from the data seen so far (in place).

    The candidate leader of H_j is the empirical best of the arms other than j (first of ties).  It
    replaces the current leader when the pair GLR of the two (candidate over current) exceeds
    ``sticky``; then the current segment (the current leader's samples since it became the leader) is
    closed and stored, and a new one starts at the candidate's current count and sum.  With
    :data:`MAX_SEGMENTS` segments stored the leader is kept.  Every choice reads the past only.

    ``start`` > 0 (the settled-leader rule, kind ``"leader-settled"``): a hypothesis without a leader gets
    its first one only when the candidate's pair GLR over the runner-up of the arms other than j exceeds
    ``start`` (with K = 2 there is no runner-up and the leader starts at once); until then its leader
    process holds its wealth as cash (L_j = 1, no segment).  0 starts the first leader at once.
    """
    K = counts.shape[0]
    b1 = 0
    for i in range(1, K):
        if means[i] > means[b1]:
            b1 = i
    b2 = 1 if b1 == 0 else 0
    for i in range(K):
        if i != b1 and means[i] > means[b2]:
            b2 = i
    b3 = -1
    if start > 0.0:
        for i in range(K):
            if i != b1 and i != b2 and (b3 < 0 or means[i] > means[b3]):
                b3 = i
    for j in range(K):
        cand = b2 if j == b1 else b1
        cur = int(state[j])
        if cur == cand:
            continue
        if cur < 0 and start > 0.0:
            runner = b3 if (j == b1 or j == b2) else b2
            if runner >= 0 and pair_cost(code, counts[cand], means[cand], var[cand], counts[runner], means[runner],
                                         var[runner]) <= start:
                continue
        if cur >= 0:
            if pair_cost(code, counts[cand], means[cand], var[cand], counts[cur], means[cur], var[cur]) <= sticky:
                continue
            n = counts[cur] - state[K + j]
            if n > 0.0:
                k = int(state[3 * K + j])
                if k >= MAX_SEGMENTS:
                    continue
                base = segment_index(K, j, k)
                state[base] = cur
                state[base + 1] = n
                state[base + 2] = sums[cur] - state[2 * K + j]
                state[3 * K + j] = k + 1
        state[j] = cand
        state[K + j] = counts[cand]
        state[2 * K + j] = sums[cand]
