"""Numba kernels of the top-k set rule (:mod:`pybai.stopping.topk_leader`, kind ``"topk-leader"``).

For a set S of k arms the hypothesis H_S = {lambda : min_(a in S) lambda_a >= max_(b not in S) lambda_b} is tested
with one e-process E_S(theta) of a common separating level theta (module :mod:`pybai.stopping.topk_leader`).  The
rule keeps a small state (a flat float array, :func:`topk_state_size`): the sets it *tracks* (their leader
processes), each with two sides: the in side (a leader among the arms of S, the empirical worst of S, whose
one-sided mixture bets "a below theta") and the out side (a leader among the other arms, the empirical best of the
complement, betting "b above theta").

* :func:`topk_advance`: track the empirical top-k set and the sets one swap away from it (up to the cap), then update
  the leaders of every tracked set not yet rejected (sticky changes, settled start: as in
  :func:`pybai.stopping._leader_kernels.leader_advance`).
* :func:`topk_min_margin`: the smallest certified margin over the sets other than the empirical top-k set not
  rejected before (tracked sets one by one; the untracked ones by a common lower bound).
* :func:`topk_step`: the run's own step, :func:`topk_advance` then :func:`topk_min_margin` remembering rejections.

State layout (K arms, sets of k, ``cap`` slots, ``M`` = :data:`~pybai.stopping._leader_kernels.MAX_SEGMENTS`):
``[0]`` the number of tracked sets, ``[1]`` 1.0 once every untracked set was rejected at some decision (sets
tracked later start rejected), ``[2]`` unused (0), then ``cap`` slots of :func:`slot_size` numbers: the k members
(ascending), the rejection flag, then per side (in, out) the leader (-1: none yet), its count and sum when the
current segment started, the number of completed segments and ``M`` triples (arm, samples, sum).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from pybai.models._kl import pair_cost
from pybai.stopping._leader_kernels import MAX_SEGMENTS
from pybai.stopping._topk_eval_kernels import any_set_margin, fixed_margin

__all__ = ["HEADER", "slot_size", "topk_state_size", "topk_advance", "topk_min_margin", "topk_step", "side_base"]

#: Numbers before the first slot.
HEADER = 3
_SIDE = 4 + 3 * MAX_SEGMENTS


@njit(cache=True)
def slot_size(k):
    """Numbers per tracked set (module docstring)."""
    return k + 1 + 2 * _SIDE


@njit(cache=True)
def topk_state_size(n_arms, k, cap):
    """Length of the state (module docstring)."""
    return HEADER + cap * slot_size(k)


@njit(cache=True)
def _slot(k, s):
    return HEADER + s * slot_size(k)


@njit(cache=True)
def side_base(k, s, side):
    """Offset of side ``side`` (0: in, 1: out) of slot ``s``."""
    return _slot(k, s) + k + 1 + side * _SIDE


@njit(cache=True)
def _top_set(means, k, top):
    """The empirical top-k set (ties: lowest index) into ``top`` (ascending); whether it is unique (the k-th mean
    above the (k+1)-th)."""
    order = np.argsort(-means, kind="mergesort")
    for i in range(k):
        top[i] = order[i]
    top.sort()
    return means[order[k - 1]] > means[order[k]]


@njit(cache=True)
def _find(state, k, members):
    n = int(state[0])
    for s in range(n):
        base = _slot(k, s)
        same = True
        for i in range(k):
            if state[base + i] != members[i]:
                same = False
                break
        if same:
            return s
    return -1


@njit(cache=True)
def _swap(top, i, j, out):
    """``top`` with its i-th member replaced by arm j, ascending, into ``out``."""
    k = top.shape[0]
    for m in range(k):
        out[m] = top[m]
    out[i] = j
    out.sort()


@njit(cache=True)
def _add(state, k, cap, members):
    """Give ``members`` a slot unless tracked already or no slot is left (rejected when every untracked set was)."""
    if _find(state, k, members) >= 0:
        return
    n = int(state[0])
    if n >= cap:
        return
    base = _slot(k, n)
    for m in range(k):
        state[base + m] = members[m]
    state[base + k] = state[1]
    for side in range(2):
        state[side_base(k, n, side)] = -1.0
    state[0] = n + 1


@njit(cache=True)
def _track(state, n_arms, k, cap, top):
    """Give a slot to ``top`` and to every set one swap away from it not tracked yet, while slots are left."""
    inside = np.zeros(n_arms, dtype=np.bool_)
    for m in range(k):
        inside[top[m]] = True
    _add(state, k, cap, top)
    members = np.empty(k, dtype=np.int64)
    for i in range(k):
        for j in range(n_arms):
            if not inside[j]:
                _swap(top, i, j, members)
                _add(state, k, cap, members)


@njit(cache=True)
def _extreme(means, mask, want, high):
    """The arm of ``mask == want`` with the highest (``high``) or lowest mean, first of ties, and the runner-up
    (-1 when there is none)."""
    best = -1
    for i in range(means.shape[0]):
        if mask[i] == want and (best < 0 or (means[i] > means[best] if high else means[i] < means[best])):
            best = i
    second = -1
    for i in range(means.shape[0]):
        if i != best and mask[i] == want and (second < 0 or (means[i] > means[second] if high
                                                             else means[i] < means[second])):
            second = i
    return best, second


@njit(cache=True)
def _advance_side(state, base, cand, runner, high, counts, sums, means, code, var, sticky, start):
    """One side's leader after the data seen so far (the rule of :func:`~pybai.stopping._leader_kernels.leader_advance`:
    change to the candidate when its pair GLR over the current leader exceeds ``sticky``, closing the segment;
    without a leader, start once the candidate beats the runner-up by ``start``).  ``high``: the out side (the
    candidate is the best of its arms), else the in side (the worst)."""
    cur = int(state[base])
    if cur == cand:
        return
    if cur < 0 and start > 0.0:
        if runner >= 0:
            g = (pair_cost(code, counts[cand], means[cand], var[cand], counts[runner], means[runner], var[runner])
                 if high else
                 pair_cost(code, counts[runner], means[runner], var[runner], counts[cand], means[cand], var[cand]))
            if g <= start:
                return
    if cur >= 0:
        g = (pair_cost(code, counts[cand], means[cand], var[cand], counts[cur], means[cur], var[cur]) if high else
             pair_cost(code, counts[cur], means[cur], var[cur], counts[cand], means[cand], var[cand]))
        if g <= sticky:
            return
        n = counts[cur] - state[base + 1]
        if n > 0.0:
            done = int(state[base + 3])
            if done >= MAX_SEGMENTS:
                return
            seg = base + 4 + 3 * done
            state[seg] = cur
            state[seg + 1] = n
            state[seg + 2] = sums[cur] - state[base + 2]
            state[base + 3] = done + 1
    state[base] = cand
    state[base + 1] = counts[cand]
    state[base + 2] = sums[cand]


@njit(cache=True)
def _members_mask(state, n_arms, k, s, mask):
    mask[:] = False
    base = _slot(k, s)
    for m in range(k):
        mask[int(state[base + m])] = True


@njit(cache=True)
def topk_advance(state, n_arms, k, cap, counts, sums, means, code, var, sticky, start):
    """Track the empirical top-k set and the sets one swap away from it (while slots are left), then update both leaders
    of every tracked set not rejected before.  Nothing happens while an arm has no sample.  Every choice reads the
    past only."""
    for i in range(n_arms):
        if counts[i] <= 0.0:
            return
    top = np.empty(k, dtype=np.int64)
    _top_set(means, k, top)
    _track(state, n_arms, k, cap, top)
    mask = np.zeros(n_arms, dtype=np.bool_)
    for s in range(int(state[0])):
        if state[_slot(k, s) + k] > 0.0:
            continue
        _members_mask(state, n_arms, k, s, mask)
        if k > 1:
            cand, runner = _extreme(means, mask, True, False)
            _advance_side(state, side_base(k, s, 0), cand, runner, False, counts, sums, means, code, var, sticky, start)
        if n_arms - k > 1:
            cand, runner = _extreme(means, mask, False, True)
            _advance_side(state, side_base(k, s, 1), cand, runner, True, counts, sums, means, code, var, sticky, start)


@njit(cache=True)
def _tracked_sides(state, n_arms, k, s, means, mask, sides):
    """The side descriptors of tracked slot ``s`` (:func:`~pybai.stopping._topk_eval_kernels.set_eval`); returns
    (high, low)."""
    _members_mask(state, n_arms, k, s, mask)
    low, _ = _extreme(means, mask, True, False)
    high, _ = _extreme(means, mask, False, True)
    sides[:] = -1
    if k == 1:
        sides[1] = low
    else:
        base = side_base(k, s, 0)
        sides[0] = base if state[base] >= 0.0 else -1
        sides[2] = low
    if n_arms - k == 1:
        sides[5] = high
    else:
        base = side_base(k, s, 1)
        sides[4] = base if state[base] >= 0.0 else -1
        sides[6] = high
    return high, low


@njit(cache=True)
def _untracked_margin(state, n_arms, k, cap, top, inside, code, counts, sums, means, var, scales, emax, consts, level,
                      limit):
    """Smallest margin of the common lower bounds of the untracked sets other than ``top`` (inf when there is none).

    When every set one swap away from ``top`` is tracked, an untracked set holds two arms outside ``top`` and
    leaves out two of it: the bound of each such 2 x 2 choice (when there are at most ``limit`` choices);
    otherwise one of each, every pair (arm outside, arm inside)."""
    total = 1.0
    for i in range(k):
        total = total * (n_arms - i) / (i + 1)
    n = int(state[0])
    tracked = n - (1 if _find(state, k, top) >= 0 else 0)
    if tracked >= round(total) - 1:
        return math.inf
    members = np.empty(k, dtype=np.int64)
    all_near = True
    for i in range(k):
        for j in range(n_arms):
            if not inside[j]:
                _swap(top, i, j, members)
                if _find(state, k, members) < 0:
                    all_near = False
    outs = np.empty(n_arms - k, dtype=np.int64)
    m = 0
    for j in range(n_arms):
        if not inside[j]:
            outs[m] = j
            m += 1
    n_two = (k * (k - 1) // 2) * ((n_arms - k) * (n_arms - k - 1) // 2)
    two = all_near and n_two <= limit
    n_combo = n_two if two else k * (n_arms - k)
    combos = np.empty((n_combo, 4), dtype=np.int64)
    keys = np.empty(n_combo)
    c = 0
    if two:
        for i1 in range(k):
            for i2 in range(i1 + 1, k):
                for j1 in range(n_arms - k):
                    for j2 in range(j1 + 1, n_arms - k):
                        b1, b2, a1, a2 = top[i1], top[i2], outs[j1], outs[j2]
                        combos[c, 0], combos[c, 1], combos[c, 2], combos[c, 3] = a1, a2, b1, b2
                        key = 0.0
                        for b in (b1, b2):
                            for a in (a1, a2):
                                key = max(key, pair_cost(code, counts[b], means[b], var[b], counts[a], means[a],
                                                         var[a]))
                        keys[c] = key
                        c += 1
    else:
        for i in range(k):
            for j in range(n_arms - k):
                b, a = top[i], outs[j]
                combos[c, 0], combos[c, 1], combos[c, 2], combos[c, 3] = a, -1, b, -1
                keys[c] = pair_cost(code, counts[b], means[b], var[b], counts[a], means[a], var[a])
                c += 1
    worst = math.inf
    for c in np.argsort(keys):
        m = fixed_margin(state, n_arms, k, combos[c, 0], combos[c, 1], combos[c, 2], combos[c, 3], code, counts, sums,
                         means, var, scales, emax, consts, level)
        worst = min(worst, m)
        if worst <= 0.0:
            break
    return worst


@njit(cache=True)
def topk_min_margin(state, n_arms, k, cap, code, counts, sums, means, var, scales, emax, consts, level, record, limit):
    """Smallest margin over the sets other than the empirical top-k set not rejected before; stop when > 0.

    ``-inf`` while an arm has no sample or without a unique empirical top-k set.  Tracked sets are visited in
    increasing order of the smallest pair GLR of (an arm of the top set they leave out, an arm they hold outside
    it), the first margin <= 0 returned at once; then the untracked sets (:func:`_untracked_margin`).  With
    ``record`` (the run's own decision, not a what-if) the sets that pass are marked rejected (the untracked ones
    by the header flag, set only when the top set itself has a slot: otherwise it is an untracked set that was not
    tested, and must not start rejected when it gets a slot later).
    """
    for i in range(n_arms):
        if counts[i] <= 0.0:
            return -math.inf
    top = np.empty(k, dtype=np.int64)
    if not _top_set(means, k, top):
        return -math.inf
    inside = np.zeros(n_arms, dtype=np.bool_)
    for m in range(k):
        inside[top[m]] = True
    glr = np.zeros((n_arms, n_arms))  # glr[b, a]: the pair GLR of b in the top set over a outside it
    for b in range(n_arms):
        if inside[b]:
            for a in range(n_arms):
                if not inside[a]:
                    glr[b, a] = pair_cost(code, counts[b], means[b], var[b], counts[a], means[a], var[a])
    n = int(state[0])
    keys = np.full(n, math.inf)
    mask = np.zeros(n_arms, dtype=np.bool_)
    for s in range(n):
        if state[_slot(k, s) + k] > 0.0:
            continue
        _members_mask(state, n_arms, k, s, mask)
        key = math.inf
        for b in range(n_arms):
            if inside[b] and not mask[b]:
                for a in range(n_arms):
                    if mask[a] and not inside[a]:
                        key = min(key, glr[b, a])
        keys[s] = key  # inf: the top set itself (no such pair)
    worst = math.inf
    sides = np.empty(8, dtype=np.int64)
    w_in = math.log(1.0 / k)
    w_out = math.log(1.0 / (n_arms - k))
    for s in np.argsort(keys):
        if keys[s] == math.inf:
            break
        high, low = _tracked_sides(state, n_arms, k, s, means, mask, sides)
        m = any_set_margin(state, sides, w_in, w_out, high, low, code, counts, sums, means, var, scales, emax, consts,
                           level)
        worst = min(worst, m)
        if worst <= 0.0:
            return worst
        if record:
            state[_slot(k, s) + k] = 1.0
    if state[1] > 0.0:
        return worst
    m = _untracked_margin(state, n_arms, k, cap, top, inside, code, counts, sums, means, var, scales, emax, consts,
                          level, limit)
    worst = min(worst, m)
    if record and worst > 0.0 and _find(state, k, top) >= 0:
        state[1] = 1.0  # every untracked set was tested (the top set has a slot): sets tracked later start rejected
    return worst


@njit(cache=True)
def topk_step(state, n_arms, k, cap, code, counts, sums, means, var, sticky, start, scales, emax, consts, level, limit,
              seen):
    """The run's own step after an observation: :func:`topk_advance`, then :func:`topk_min_margin` remembering the
    rejections.  ``seen`` receives the counts the margin was computed on.  Returns the margin; stop when > 0."""
    topk_advance(state, n_arms, k, cap, counts, sums, means, code, var, sticky, start)
    seen[:] = counts
    return topk_min_margin(state, n_arms, k, cap, code, counts, sums, means, var, scales, emax, consts, level, True,
                           limit)
