"""Tests of the top-k set rule (kind "topk-leader", pybai.stopping.topk_leader): one e-process per k-set on a common
separating level, without the union over pairs."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from numba import njit
from scipy.stats import norm

from pybai import BernoulliEnvironment, Bounded, FixedConfidence, make_strategy
from pybai.environments.gaussian import GaussianEnvironment
from pybai.exceptions import InvalidParameterError
from pybai.models import Bernoulli, Gaussian
from pybai.models._kl import BERNOULLI, GAUSSIAN
from pybai.problems.top_k import TopKProblem
from pybai.simulate.runner import run_replication
from pybai.stopping._leader_kernels import STICKY, leader_step, state_size
from pybai.stopping._tilt_kernels import scale_constants, term_at_level, tilt_caps
from pybai.stopping._topk_eval_kernels import fixed_margin, set_eval, set_margin, tilt_set_eval, tilt_set_margin
from pybai.stopping._topk_leader_kernels import (HEADER, side_base, slot_size, topk_advance, topk_state_size,
                                                 topk_step)
from pybai.stopping.leader import SCALE_PAIR_WEIGHT
from pybai.stopping.pair_mixture import DEFAULT_SCALES
from pybai.stopping.thresholds import make_threshold
from pybai.stopping.topk_leader import BernoulliTopKLeaderThreshold, GaussianTopKLeaderThreshold, default_cap
from pybai.strategies._compiled import setup_run
from pybai.strategies.state import restore_strategy

from test_leader import check_certified  # tests/stopping is on sys.path (pytest prepends a test file's folder)

SCALES = np.array(DEFAULT_SCALES)
EMAX = tilt_caps(SCALES)
CONSTS = scale_constants(SCALES, EMAX)


def path(means, k, horizon, seed, sticky=0.5, bernoulli=False):
    """Half uniform, half an arm next to the boundary; the state advanced after each sample (small sticky and start
    margins, so that leaders start and change and segments are stored)."""
    rng = np.random.default_rng(seed)
    K = len(means)
    cap = default_cap(K, k)
    counts, sums = np.zeros(K), np.zeros(K)
    state = np.zeros(topk_state_size(K, k, cap))
    var = np.ones(K)
    order = np.argsort(-np.asarray(means))
    near = order[max(k - 2, 0): k + 2]
    for t in range(horizon):
        a = t if t < K else (int(rng.integers(K)) if rng.random() < 0.5 else int(rng.choice(near)))
        counts[a] += 1
        sums[a] += float(rng.random() < means[a]) if bernoulli else means[a] + rng.standard_normal()
        if t + 1 >= K:
            topk_advance(state, K, k, cap, counts, sums, sums / counts, BERNOULLI if bernoulli else GAUSSIAN,
                         np.zeros(K) if bernoulli else var, sticky, sticky)
    return counts, sums, sums / counts, state, cap


def members(state, k, s):
    base = HEADER + s * slot_size(k)
    return [int(a) for a in state[base: base + k]]


def half(n, s, level, c, up, bernoulli=False):
    """One-sided half-normal mixture (variance 1) from scipy's normal log-cdf: "above level" (up) or "below"; with
    ``bernoulli`` the tilted mixture of pybai.stopping.tilt (its prior's constants recomputed here)."""
    if bernoulli:
        q = int(np.flatnonzero(SCALES == c)[0])
        m = EMAX[q]
        ln = math.log(0.5 * math.erfc(-m * math.sqrt(c) / math.sqrt(2)) - 0.5)
        return term_at_level(n, s, level, c, m, math.exp(m) if up else math.exp(-m), ln, up)
    y = (s / n - level) if up else (level - s / n)
    a = n * n / (2 * (n + c))
    return a * y * y + norm.logcdf(math.sqrt(2 * a) * y) + math.log(2) - 0.5 * math.log1p(n / c)


def log_e(levels, S, slot, counts, sums, state, k, full, bernoulli=False):
    """ln E_S at per-arm levels (a vector; the diagonal when all equal) from the definition of the module docstring:
    P_in,c = (1/2) L_in,c + (1/2) (1/k) sum_(a in S) D_a,c, P_out,c likewise (a side of one arm: its own factor);
    ``full`` False keeps, of each fixed sum, the extreme arm only (the empirical worst of S, the best outside it), as
    the kernels do.  The leader segments are evaluated at their own arm's level."""
    K = len(counts)
    means = sums / counts
    inside = np.zeros(K, bool)
    inside[S] = True
    ins, outs = np.flatnonzero(inside), np.flatnonzero(~inside)
    low = ins[np.argmin(means[ins])]
    high = outs[np.argmax(means[outs])]

    def side(c, arms, up, base, extreme):
        if len(arms) == 1:
            a = arms[0]
            return half(counts[a], sums[a], levels[a], c, up, bernoulli)
        lead = 0.0
        if slot is not None and state[base] >= 0:
            for r in range(int(state[base + 3])):
                seg = base + 4 + 3 * r
                arm = int(state[seg])
                lead += half(state[seg + 1], state[seg + 2], levels[arm], c, up, bernoulli)
            cur = int(state[base])
            if counts[cur] > state[base + 1]:
                lead += half(counts[cur] - state[base + 1], sums[cur] - state[base + 2], levels[cur], c, up, bernoulli)
        kept = arms if full else [extreme]
        fixed = np.logaddexp.reduce([half(counts[a], sums[a], levels[a], c, up, bernoulli)
                                     for a in kept]) - math.log(len(arms))
        return float(np.logaddexp(math.log(0.5) + lead, math.log(0.5) + fixed))

    b_in = side_base(k, slot, 0) if slot is not None else -1
    b_out = side_base(k, slot, 1) if slot is not None else -1
    d = np.array([side(c, ins, False, b_in, low) for c in SCALES])
    g = np.array([side(c, outs, True, b_out, high) for c in SCALES])
    J = len(SCALES)
    p = SCALE_PAIR_WEIGHT
    common = float(np.logaddexp.reduce(d + g)) - math.log(J) + math.log(1 - p)
    free = float(np.logaddexp.reduce(d)) + float(np.logaddexp.reduce(g)) - 2 * math.log(J) + math.log(p)
    return float(np.logaddexp(common, free))


def tracked_sides(state, K, k, s, means):
    S = members(state, k, s)
    inside = np.zeros(K, bool)
    inside[S] = True
    ins, outs = np.flatnonzero(inside), np.flatnonzero(~inside)
    low = int(ins[np.argmin(means[ins])])
    high = int(outs[np.argmax(means[outs])])
    sides = np.full(8, -1, dtype=np.int64)
    if k == 1:
        sides[1] = low
    else:
        b = side_base(k, s, 0)
        sides[0] = b if state[b] >= 0 else -1
        sides[2] = low
    if K - k == 1:
        sides[5] = high
    else:
        b = side_base(k, s, 1)
        sides[4] = b if state[b] >= 0 else -1
        sides[6] = high
    return S, sides, high, low


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("K,k", [(6, 2), (5, 1), (5, 4)])
def test_kernel_is_the_definition_convex_and_certified(seed, K, k):
    means = np.linspace(0.6, -0.4, K)
    counts, sums, est, state, cap = path(means, k, 800, seed)
    var = np.ones(K)
    n_eval = 3 * len(SCALES) + 2
    vals, ds, hs = np.empty(n_eval), np.empty(n_eval), np.empty(n_eval)
    xs = np.linspace(est.min() - 1.0, est.max() + 1.0, 20001)
    n_tracked = int(state[0])
    assert n_tracked >= 2
    segments = 0
    for s in range(n_tracked):
        S, sides, high, low = tracked_sides(state, K, k, s, est)
        segments += sum(int(state[side_base(k, s, side) + 3]) for side in range(2))
        args = (state, sides, math.log(1 / k), math.log(1 / (K - k)), counts, sums, var, SCALES, vals, ds, hs)
        kernel = np.array([set_eval(x, *args)[0] for x in xs])
        for i in range(0, 20001, 2500):
            x = xs[i]
            assert kernel[i] == pytest.approx(log_e(np.full(K, x), S, s, counts, sums, state, k, False), abs=1e-9)
            assert kernel[i] <= log_e(np.full(K, x), S, s, counts, sums, state, k, True) + 1e-9
        assert np.all(np.diff(kernel, 2) >= -1e-9)  # convex in the level
        i = int(np.argmin(kernel))
        f, g, h = set_eval(xs[i], *args)
        eps = 1e-5
        fp, fm = set_eval(xs[i] + eps, *args)[0], set_eval(xs[i] - eps, *args)[0]
        assert g == pytest.approx((fp - fm) / (2 * eps), abs=1e-5)
        assert h == pytest.approx((fp - 2 * f + fm) / eps ** 2, rel=1e-3, abs=1e-3)
        check_certified(float(kernel.min()), lambda level: set_margin(state, sides, math.log(1 / k),
                                                                      math.log(1 / (K - k)), high, low, counts, sums,
                                                                      est, var, SCALES, level))
        # random points of H_S: E_S there is at least its infimum on the diagonal
        rng = np.random.default_rng(seed)
        inside = np.zeros(K, bool)
        inside[S] = True
        for _ in range(5):
            theta = rng.uniform(est.min() - 0.5, est.max() + 0.5)
            lam = np.where(inside, theta + rng.exponential(0.3, K), theta - rng.exponential(0.3, K))
            assert log_e(lam, S, s, counts, sums, state, k, True) >= kernel.min() - 1e-9
    if (K, k) == (6, 2):
        assert segments > 0  # some leader changed: stored segments were tested


@pytest.mark.parametrize("K,k", [(6, 2), (4, 1)])
def test_bernoulli_kernel_is_the_definition_convex_and_certified(K, k):
    means = np.linspace(0.6, 0.2, K)
    counts, sums, est, state, cap = path(means, k, 1500, 1, bernoulli=True)
    ys = np.linspace(0.0, 1.0, 20001)
    segments = 0
    for s in range(int(state[0])):
        S, sides, high, low = tracked_sides(state, K, k, s, est)
        segments += sum(int(state[side_base(k, s, side) + 3]) for side in range(2))
        args = (state, sides, math.log(1 / k), math.log(1 / (K - k)), counts, sums, SCALES, EMAX, CONSTS)
        kernel = np.array([tilt_set_eval(y, *args) for y in ys])
        for i in range(0, 20001, 2500):
            y = ys[i]
            assert kernel[i] == pytest.approx(log_e(np.full(K, y), S, s, counts, sums, state, k, False, True), abs=1e-9)
            assert kernel[i] <= log_e(np.full(K, y), S, s, counts, sums, state, k, True, True) + 1e-9
        assert np.all(np.diff(kernel, 2) >= -1e-7)  # convex in the level
        check_certified(float(kernel.min()), lambda level: tilt_set_margin(state, sides, math.log(1 / k),
                                                                           math.log(1 / (K - k)), high, low, counts,
                                                                           sums, est, SCALES, EMAX, CONSTS, level))
    if k > 1:
        assert segments > 0


def test_untracked_bound_is_the_definition_with_cash_leaders():
    K, k = 6, 2
    counts, sums, est, state, cap = path(np.linspace(0.6, -0.4, K), k, 400, 0)
    var = np.ones(K)
    top = sorted(np.argsort(-est)[:k].tolist())
    outs = [a for a in range(K) if a not in top]
    a1, a2, b1, b2 = outs[0], outs[1], top[0], top[1]
    xs = np.linspace(est.min() - 1.0, est.max() + 1.0, 4001)
    # a set holding a1, a2 and leaving out b1, b2 (here S = {a1, a2}): its E with cash leaders and the fixed sums
    # kept to these arms
    S = [a1, a2]
    sides = np.array([-1, -1, a1, a2, -1, -1, b1, b2], dtype=np.int64)
    n_eval = 3 * len(SCALES) + 2
    vals, ds, hs = np.empty(n_eval), np.empty(n_eval), np.empty(n_eval)
    kernel = np.array([set_eval(x, state, sides, math.log(1 / k), math.log(1 / (K - k)), counts, sums, var, SCALES,
                                 vals, ds, hs)[0] for x in xs])
    for i in range(0, 4001, 500):
        assert kernel[i] <= log_e(np.full(K, xs[i]), S, None, counts, sums, state, k, True) + 1e-9
    check_certified(float(kernel.min()), lambda level: fixed_margin(state, K, k, a1, a2, b1, b2, GAUSSIAN, counts, sums,
                                                                    est, var, SCALES, EMAX, CONSTS, level))


@pytest.mark.parametrize("bernoulli", [False, True])
def test_k_equal_one_is_the_best_arm_settled_leader_rule(bernoulli):
    """With k = 1 the set {j} is H_j: the same leaders (sticky, settled start), the same e-process, the same
    decisions and margins on every step of adaptive runs."""
    code = BERNOULLI if bernoulli else GAUSSIAN
    for seed in range(3):
        K = 5
        means = np.array([0.6, 0.45, 0.4, 0.3, 0.2]) if bernoulli else np.array([0.6, 0.3, 0.2, 0.0, -0.2])
        rng = np.random.default_rng(seed)
        counts, sums, var = np.zeros(K), np.zeros(K), (np.zeros(K) if bernoulli else np.ones(K))
        cap = default_cap(K, 1)
        top_state = np.zeros(topk_state_size(K, 1, cap))
        best_state = np.zeros(state_size(K))
        best_state[:K] = -1.0
        seen = np.zeros(K)
        stops = 0
        for t in range(1500):
            est = np.divide(sums, counts, out=np.zeros(K), where=counts > 0)
            a = t if t < K else (int(rng.integers(K)) if rng.random() < 0.5 else int(np.argsort(-est)[rng.integers(2)]))
            counts[a] += 1
            sums[a] += float(rng.random() < means[a]) if bernoulli else means[a] + rng.standard_normal()
            if t + 1 < K:
                continue
            m_best = leader_step(best_state, code, counts, sums, sums / counts, var, STICKY, SCALES, EMAX, CONSTS,
                                 math.log(1 / 0.3), SCALE_PAIR_WEIGHT, seen, STICKY)
            m_top = topk_step(top_state, K, 1, cap, code, counts, sums, sums / counts, var, STICKY, STICKY, SCALES,
                              EMAX, CONSTS, math.log(1 / 0.3), 4 * (K - 1), seen)
            assert (m_best > 0) == (m_top > 0)
            if math.isfinite(m_best):
                assert m_top == pytest.approx(m_best, abs=1e-12)
            stops += m_top > 0
            for s in range(int(top_state[0])):
                j = members(top_state, 1, s)[0]
                assert top_state[side_base(1, s, 1)] == best_state[j] or top_state[HEADER + s * slot_size(1) + 1]
        assert stops > 0


@njit(cache=True)
def _tie_runs(runs, horizon, level, scales, emax, consts, seed, cap, mu, theta, bernoulli):
    """Runs of K = 4 arms, k = 2, S* = {0, 1} (mu_0, mu_1 >= 0 >= mu_2, mu_3: theta* = 0), a sampling rule that
    favours the wrong sets: half uniform, half the leaders of S*'s processes (or the arms next to theta*).  Returns
    per run: whether the rule stopped with a set other than S*, whether E_S*(theta*) (the full e-process: with two
    arms per side the kernels' fixed parts are the whole sums) reached 1/delta, its value at the horizon."""
    np.random.seed(seed)
    K, k = 4, 2
    out = np.zeros((runs, 3))
    var = np.zeros(K) if bernoulli else np.ones(K)
    code = BERNOULLI if bernoulli else GAUSSIAN
    seen = np.zeros(K)
    vals = np.empty(3 * scales.shape[0] + 2)
    ds = np.empty(3 * scales.shape[0] + 2)
    hs = np.empty(3 * scales.shape[0] + 2)
    sides = np.empty(8, dtype=np.int64)
    for r in range(runs):
        state = np.zeros(topk_state_size(K, k, cap))
        counts = np.zeros(K)
        sums = np.zeros(K)
        stopped = False
        crossed = False
        e = 0.0
        for t in range(horizon):
            if t < K:
                a = t
            elif np.random.random() < 0.5:
                a = np.random.randint(K)
            else:
                slot = -1
                for s in range(int(state[0])):
                    if state[HEADER + s * slot_size(k)] == 0 and state[HEADER + s * slot_size(k) + 1] == 1:
                        slot = s
                side = np.random.randint(2)
                a = 2 if side == 1 else 1
                if slot >= 0 and state[side_base(k, slot, side)] >= 0:
                    a = int(state[side_base(k, slot, side)])
            counts[a] += 1
            if bernoulli:
                sums[a] += 1.0 if np.random.random() < mu[a] else 0.0
            else:
                sums[a] += mu[a] + np.random.standard_normal()
            if t + 1 < K:
                continue
            m = topk_step(state, K, k, cap, code, counts, sums, sums / counts, var, 2.0, 2.0, scales, emax, consts,
                          level, 4 * k * (K - k), seen)
            slot = -1
            for s in range(int(state[0])):
                if state[HEADER + s * slot_size(k)] == 0 and state[HEADER + s * slot_size(k) + 1] == 1:
                    slot = s
            sides[:] = -1
            sides[2], sides[3], sides[6], sides[7] = 0, 1, 2, 3
            if slot >= 0:
                for side in range(2):
                    b = side_base(k, slot, side)
                    if state[b] >= 0:
                        sides[4 * side] = b
            if bernoulli:
                e = tilt_set_eval(theta, state, sides, math.log(0.5), math.log(0.5), counts, sums, scales, emax, consts)
            else:
                e = set_eval(theta, state, sides, math.log(0.5), math.log(0.5), counts, sums, var, scales, vals, ds,
                             hs)[0]
            if e >= level:
                crossed = True
            if m > 0.0 and not stopped:
                stopped = True
                order = np.argsort(-(sums / counts))
                wrong = not ((order[0] == 0 and order[1] == 1) or (order[0] == 1 and order[1] == 0))
                out[r, 0] = 1.0 if wrong else 0.0
        out[r, 1] = 1.0 if crossed else 0.0
        out[r, 2] = math.exp(e)
    return out


@pytest.mark.parametrize("bernoulli", [False, True])
def test_error_rate_near_a_tie_at_the_boundary_is_below_delta_and_not_vacuous(bernoulli):
    """A tie at the k-th/(k+1)-th place (arms 0, 1, 2 at theta*): S* = {0, 1} is a top-2 set, and so are {0, 2} and
    {1, 2}; the theorem bounds P(stop with a set other than S*) by delta for each of them.  delta = 0.3."""
    delta = 0.3
    runs = 600
    mu, theta = (np.array([0.5, 0.5, 0.5, 0.3]), 0.5) if bernoulli else (np.array([0.0, 0.0, 0.0, -0.4]), 0.0)
    out = _tie_runs(runs, 1500, math.log(1 / delta), SCALES, EMAX, CONSTS, 2026, default_cap(4, 2), mu, theta,
                    bernoulli)
    errors, crossed, final = out[:, 0].mean(), out[:, 1].mean(), out[:, 2]
    assert errors < delta / 2  # the rule errs far less than delta
    assert crossed <= delta  # Ville: the e-process reaches 1/delta with probability at most delta
    assert crossed > 0.2 * delta  # ... and the check is not vacuous
    assert final.mean() <= 1.0 + 3.0 * final.std() / math.sqrt(runs)  # a supermartingale of initial value 1


def test_the_untracked_flag_is_not_set_while_the_top_set_has_no_slot():
    """One slot (cap 1): the first top set {0, 1} takes it; then {2, 3} leads by far, untracked.  Every other set is
    rejected (the untracked ones by the common bound), but {2, 3} itself was not tested: the flag that would make sets
    given a slot later start rejected stays 0.  With a slot for the top set the same decision sets it."""
    K, k, level = 4, 2, math.log(10.0)
    var, seen = np.ones(K), np.zeros(K)
    counts = np.full(K, 400.0)
    for cap, flag in ((1, 0.0), (default_cap(K, k), 1.0)):
        state = np.zeros(topk_state_size(K, k, cap))
        topk_step(state, K, k, cap, GAUSSIAN, counts, counts * np.array([0.1, 0.05, 0.0, -0.05]),
                  np.array([0.1, 0.05, 0.0, -0.05]), var, 2.0, 2.0, SCALES, EMAX, CONSTS, level, 8, seen)
        assert members(state, k, 0) == [0, 1]
        means = np.array([-1.0, -1.1, 1.0, 1.1])
        m = topk_step(state, K, k, cap, GAUSSIAN, counts, counts * means, means, var, 2.0, 2.0, SCALES, EMAX, CONSTS,
                      level, 8, seen)
        assert m > 0.0 and state[1] == flag


def test_state_is_saved_and_restored_with_the_strategy():
    problem = TopKProblem(6, 2, Gaussian(1.0, n_sources=6), FixedConfidence(0.1, max_samples=100_000))
    env = GaussianEnvironment(np.array([1.0, 0.7, 0.6, 0.5, 0.2, 0.0]), 1.0)
    s = make_strategy("game", {"threshold": "topk-leader"}).start(problem, rng=0)
    noise = np.random.default_rng(1)
    for _ in range(300):
        s.tell(*env.respond(s.ask(), noise))
    saved = json.loads(json.dumps(s.get_state()))
    r = restore_strategy(saved, problem)
    assert np.array_equal(r.threshold_.state_, s.threshold_.state_) and r.threshold_.state_[0] > 0
    n1, n2 = np.random.default_rng(5), np.random.default_rng(5)
    while not s.stopped:
        s.tell(*env.respond(s.ask(), n1))
    while not r.stopped:
        r.tell(*env.respond(r.ask(), n2))
    assert s.t_ == r.t_ and np.array_equal(s.recommendation(), r.recommendation())
    assert np.array_equal(r.threshold_.state_, s.threshold_.state_)
    bad = json.loads(json.dumps(saved))
    del bad["stopping"]
    with pytest.raises(InvalidParameterError, match="stopping"):
        restore_strategy(bad, problem)


def test_a_what_if_decision_does_not_record():
    problem = TopKProblem(5, 2, Gaussian(1.0, n_sources=5), FixedConfidence(0.1, max_samples=100_000))
    env = GaussianEnvironment(np.array([1.0, 0.9, 0.3, 0.2, 0.0]), 1.0)
    s = make_strategy("uniform", {"threshold": "topk-leader"}).start(problem, rng=0)
    noise = np.random.default_rng(2)
    for _ in range(200):
        s.tell(*env.respond(s.ask(), noise))
    before = s.threshold_.state_.copy()
    s.threshold_.decide(problem, s.model_, s.t_)
    s.threshold_.margin(s.model_.counts, s.model_.sums, s.model_.estimate, problem.family.variances)
    assert np.array_equal(before, s.threshold_.state_)


def test_problems_build_and_refuse_the_kind():
    problem = TopKProblem(6, 2, Gaussian(1.0, n_sources=6), FixedConfidence(0.1))
    th = problem.threshold("topk-leader", 0.1)
    assert isinstance(th, GaussianTopKLeaderThreshold) and th.proven and th.stateful
    assert (th.k, th.n_arms, th.cap) == (2, 6, min(4 * 2 * 4, 15))
    assert th.compiled_form() is None and th.compiled_pieces() is None  # compiled runs fall back to ask/tell
    bern = TopKProblem(6, 2, Bernoulli(n_sources=6), FixedConfidence(0.1)).threshold("topk-leader", 0.1)
    assert isinstance(bern, BernoulliTopKLeaderThreshold) and bern.fallback.name != th.fallback.name
    for other in (TopKProblem(6, 2, Gaussian(1.0, n_sources=6), FixedConfidence(0.1)).with_epsilon(0.1),
                  problem.with_epsilon(0.2)):
        with pytest.raises(InvalidParameterError, match="threshold"):
            other.threshold("topk-leader", 0.1)
    with pytest.raises(InvalidParameterError, match="kind"):
        make_threshold("topk-leader", 0.1, n_alternatives=8, n_terms=2, family="gaussian")
    with pytest.raises(InvalidParameterError, match="k"):
        GaussianTopKLeaderThreshold(0.1, 4, 4)


def test_bounded_rewards_take_the_rule_of_rewards_in_0_1():
    """Sub-Bernoulli bounded rewards (rescaled to [0, 1]) take the Bernoulli form; on {0, 1} rewards the run is the
    Bernoulli run; kl-inf refuses the kind."""
    env = BernoulliEnvironment([0.7, 0.6, 0.4, 0.35, 0.2])
    regime = FixedConfidence(0.1, max_samples=50_000)
    outs = []
    for family in (Bernoulli(n_sources=5), Bounded(5, 0.0, 1.0, "sub-bernoulli")):
        problem = TopKProblem(5, 2, family, regime)
        assert isinstance(problem.threshold("topk-leader", 0.1), BernoulliTopKLeaderThreshold)
        outs.append(run_replication(make_strategy("game", threshold="topk-leader"), env, problem,
                                    np.random.SeedSequence(7)))
    assert outs[0].status == outs[1].status == "stopped"
    assert (outs[0].samples, sorted(outs[0].recommendation)) == (outs[1].samples, sorted(outs[1].recommendation))
    with pytest.raises(InvalidParameterError, match="threshold"):
        TopKProblem(5, 2, Bounded(5, 0.0, 1.0, "kl-inf"), regime).threshold("topk-leader", 0.1)


def test_a_simulated_run_uses_the_ask_tell_loop_and_is_correct():
    problem = TopKProblem(6, 2, Gaussian(1.0, n_sources=6), FixedConfidence(0.1, max_samples=100_000))
    env = GaussianEnvironment(np.array([1.0, 0.8, 0.4, 0.3, 0.1, 0.0]), 1.0)
    started = make_strategy("game", threshold="topk-leader").start(problem, rng=0)
    assert setup_run(started, env.means, np.ones(6)) is None  # no compiled form: the runner plays ask/tell
    outcome = run_replication(make_strategy("lucb", threshold="topk-leader"), env, problem, np.random.SeedSequence(4))
    assert outcome.status == "stopped" and outcome.correct and sorted(outcome.recommendation) == [0, 1]
