"""BAICS (fairness-constrained best arm identification): answer, GLR and oracle.

The reference values are computed independently of the library: the alternative set is
enumerated from its definition as a union of convex pieces over the full K x L matrix
lambda, each piece solved by brute-force active-set enumeration of its KKT systems, and
the outer max over the simplex by multi-start SLSQP on the epigraph form.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.optimize import minimize

from pybai.problems.feasible.oracle import (
    feasible_alt_value,
    feasible_answer,
    feasible_glr,
    feasible_oracle,
    feasible_subgradient_step,
    project_simplex,
)

EX1_MU = np.array([[0.2, 0.6, 0.8], [0.4, 0.4, 0.3], [-0.2, 1.0, 1.5]])
EX1_Q = np.array([0.2, 0.3, 0.5])
EX2_MU = np.array([[-0.2, 0.4, 1.2], [0.2, 0.6, 0.6], [0.3, 0.3, 0.6], [-0.6, 0.8, 0.4]])
EX2_Q = np.full(3, 1.0 / 3.0)
ALL3 = np.array([True, True, True])


# ----------------------------------------------------------------------------------
# independent brute force
# ----------------------------------------------------------------------------------


def ref_answer(mu, q, cmask, floors):
    feas = [k for k in range(mu.shape[0]) if np.all(mu[k, cmask] >= floors[cmask])]
    if not feas:
        return -1
    qual = mu @ q
    return max(feas, key=lambda k: (qual[k], -k))


def alt_pieces(mu, q, cmask, floors):
    """Alt(mu) as a list of polyhedra {lambda : A lambda >= c} on the flattened K*L lambda."""
    K, L = mu.shape
    a = ref_answer(mu, q, cmask, floors)
    idx = lambda k, l: k * L + l  # noqa: E731
    pieces = []
    if a < 0:
        for k in range(K):  # some arm becomes feasible
            rows = []
            for l in range(L):
                if cmask[l]:
                    r = np.zeros(K * L)
                    r[idx(k, l)] = 1.0
                    rows.append((r, floors[l]))
            pieces.append(rows)
        return pieces
    for l in range(L):  # the answer becomes infeasible
        if cmask[l]:
            r = np.zeros(K * L)
            r[idx(a, l)] = -1.0
            pieces.append([(r, -floors[l])])
    for b in range(K):  # b feasible and at least as good as a
        if b == a:
            continue
        rows = []
        r = np.zeros(K * L)
        for l in range(L):
            r[idx(b, l)] += q[l]
            r[idx(a, l)] -= q[l]
        rows.append((r, 0.0))
        for l in range(L):
            if cmask[l]:
                r = np.zeros(K * L)
                r[idx(b, l)] = 1.0
                rows.append((r, floors[l]))
        pieces.append(rows)
    return pieces


def qp_enumerate(m, W, rows):
    """min sum W (x - m)^2 s.t. A x >= c, by enumerating active sets (W > 0)."""
    if not rows:
        return 0.0, m.copy()
    A = np.array([r for r, _ in rows])
    c = np.array([v for _, v in rows])
    n = m.size
    best = (math.inf, None)
    for size in range(0, len(rows) + 1):
        for S in itertools.combinations(range(len(rows)), size):
            S = list(S)
            if S:
                AS = A[S]
                kkt = np.zeros((n + len(S), n + len(S)))
                kkt[:n, :n] = np.diag(2 * W)
                kkt[:n, n:] = -AS.T
                kkt[n:, :n] = AS
                rhs = np.concatenate([2 * W * m, c[S]])
                try:
                    sol = np.linalg.solve(kkt, rhs)
                except np.linalg.LinAlgError:
                    continue
                x, lam = sol[:n], sol[n:]
                if np.any(lam < -1e-9 * (1 + np.abs(lam).max())):
                    continue
            else:
                x = m.copy()
            if np.all(A @ x >= c - 1e-9 * (1 + np.abs(c))):
                v = float(np.sum(W * (x - m) ** 2))
                if v < best[0]:
                    best = (v, x)
    return best


def ref_alt(w, mu, q, cmask, floors, s2):
    """min over Alt pieces; returns (value, list of (value, grad) per piece)."""
    w = np.asarray(w, float)
    W = (np.where(w > 0, w, 1e-12) / (2 * s2)).ravel()  # zero weights: limit (continuity)
    m = mu.ravel()
    out = []
    for rows in alt_pieces(mu, q, cmask, floors):
        v, x = qp_enumerate(m, W, rows)
        out.append((v, ((m - x) ** 2 / (2 * s2.ravel()))))
    return min(v for v, _ in out), out


def ref_oracle(mu, q, cmask, floors, s2, sampling="pair", restarts=6, seed=0):
    """max_w min_pieces by multi-start SLSQP on (w, t); returns T*."""
    K, L = mu.shape
    rng = np.random.default_rng(seed)
    n = K * L if sampling == "pair" else K
    npieces = len(alt_pieces(mu, q, cmask, floors))

    def to_w(u):
        u = np.maximum(u, 1e-9)
        return u.reshape(K, L) if sampling == "pair" else np.outer(u, q)

    cache = {}

    def pieces(u):
        key = u.tobytes()
        if key not in cache:
            cache[key] = ref_alt(to_w(u), mu, q, cmask, floors, s2)[1]
        return cache[key]

    def cons(z):
        return np.array([v for v, _ in pieces(z[:n])]) - z[n]

    def cons_jac(z):
        J = np.zeros((npieces, n + 1))
        for j, (_, g) in enumerate(pieces(z[:n])):
            g = g.reshape(K, L)
            J[j, :n] = g.ravel() if sampling == "pair" else g @ q
            J[j, n] = -1.0
        return J

    best = 0.0
    starts = [np.full(n, 1.0 / n)] + [rng.dirichlet(np.ones(n)) for _ in range(restarts - 1)]
    for u0 in starts:
        z0 = np.append(u0, 0.0)
        res = minimize(
            lambda z: -z[n],
            z0,
            jac=lambda z: np.append(np.zeros(n), -1.0),
            method="SLSQP",
            bounds=[(0.0, 1.0)] * n + [(0.0, None)],
            constraints=[
                {"type": "ineq", "fun": cons, "jac": cons_jac},
                {"type": "eq", "fun": lambda z: np.sum(z[:n]) - 1.0, "jac": lambda z: np.append(np.ones(n), 0.0)},
            ],
            options={"maxiter": 500, "ftol": 1e-15},
        )
        u = np.clip(res.x[:n], 0, None)
        u /= u.sum()
        val = ref_alt(to_w(u), mu, q, cmask, floors, s2)[0]  # exact value at the found w
        best = max(best, val)
    return 1.0 / best


def random_instance(rng, K, L, kind="any"):
    """Random instance; kind in {"any", "none_feasible", "best_infeasible"}."""
    for _ in range(1000):
        mu = rng.normal(0.0, 0.6, size=(K, L))
        q = rng.dirichlet(np.ones(L) * 2)
        cmask = rng.random(L) < 0.7
        if not cmask.any():
            cmask[rng.integers(L)] = True
        floors = rng.normal(0.0, 0.2, size=L)
        s2 = rng.uniform(0.5, 2.0, size=(K, L))
        a = ref_answer(mu, q, cmask, floors)
        unconstrained_best = int(np.argmax(mu @ q))
        if kind == "none_feasible" and a != -1:
            continue
        if kind == "best_infeasible" and (a < 0 or a == unconstrained_best):
            continue
        if kind == "any" and a < 0:
            continue
        # keep away from degeneracy
        if a >= 0 and np.min(np.abs(mu[a, cmask] - floors[cmask])) < 0.05:
            continue
        return mu, q, cmask, floors, s2
    raise RuntimeError("no instance found")


# ----------------------------------------------------------------------------------
# answer
# ----------------------------------------------------------------------------------


def test_answer_examples():
    assert feasible_answer(EX1_MU, EX1_Q, ALL3, 0.0) == 0
    assert feasible_answer(EX2_MU, EX2_Q, ALL3, 0.0) == 1
    assert feasible_answer(EX1_MU, EX1_Q, np.array([False, True, True]), 0.0) == 2  # unconstrained: arm 3 best
    assert feasible_answer(EX1_MU, EX1_Q, ALL3, [0.3, 0.0, 0.0]) == 1  # only arm 2 feasible
    assert feasible_answer(EX1_MU, EX1_Q, ALL3, 0.5) == -1
    # mean exactly on the floor is feasible; quality ties -> lowest index
    assert feasible_answer(np.array([[0.0, 1.0], [1.0, 0.0]]), [0.5, 0.5], [True, True], 0.0) == 0


def test_answer_matches_reference_random():
    rng = np.random.default_rng(1)
    for _ in range(300):
        K, L = rng.integers(1, 5), rng.integers(1, 4)
        mu = np.round(rng.normal(0, 1, size=(K, L)), 1)
        q = rng.dirichlet(np.ones(L))
        cmask = rng.random(L) < 0.5
        floors = np.round(rng.normal(0, 0.5, size=L), 1)
        assert feasible_answer(mu, q, cmask, floors) == ref_answer(mu, q, cmask, floors)


def test_validation_errors():
    with pytest.raises(ValueError):
        feasible_answer(EX1_MU, [0.2, 0.8], ALL3, 0.0)
    with pytest.raises(ValueError):
        feasible_oracle(EX1_MU, EX1_Q, ALL3, 0.0, sigma2=-1.0)
    with pytest.raises(ValueError):
        feasible_oracle(EX1_MU, EX1_Q, ALL3, 0.0, sampling="cell")
    with pytest.raises(ValueError):
        feasible_glr(-np.ones((3, 3)), EX1_MU, EX1_Q, ALL3, 0.0)
    with pytest.raises(ValueError):
        feasible_glr(np.ones((3, 3)), EX1_MU, [0.2, 0.3, -0.5], ALL3, 0.0)


# ----------------------------------------------------------------------------------
# GLR / inner problems
# ----------------------------------------------------------------------------------


def test_glr_against_enumeration_random():
    rng = np.random.default_rng(2)
    kinds = ["any", "none_feasible", "best_infeasible"]
    for i in range(60):
        K, L = int(rng.integers(2, 5)), int(rng.integers(1, 4))
        mu, q, cmask, floors, s2 = random_instance(rng, K, L, kinds[i % 3] if L > 1 else "any")
        N = rng.integers(1, 50, size=(K, L)).astype(float)
        got = feasible_glr(N, mu, q, cmask, floors, s2)
        ref = ref_alt(N, mu, q, cmask, floors, s2)[0]
        assert got == pytest.approx(ref, rel=1e-9, abs=1e-12)


def test_glr_is_a_lower_bound_on_sampled_alternatives():
    rng = np.random.default_rng(3)
    for _ in range(20):
        mu, q, cmask, floors, s2 = random_instance(rng, 3, 3)
        N = rng.integers(1, 30, size=(3, 3)).astype(float)
        z = feasible_glr(N, mu, q, cmask, floors, s2)
        a = ref_answer(mu, q, cmask, floors)
        hits = 0
        for _ in range(400):
            lam = mu + rng.normal(0, 0.5, size=mu.shape)
            if ref_answer(lam, q, cmask, floors) != a:
                hits += 1
                assert np.sum(N * (mu - lam) ** 2 / (2 * s2)) >= z - 1e-12
        assert hits > 0


def test_glr_zero_counts_is_the_limit():
    rng = np.random.default_rng(4)
    for i in range(30):
        mu, q, cmask, floors, s2 = random_instance(rng, 3, 3, ["any", "best_infeasible", "none_feasible"][i % 3])
        N = rng.integers(1, 30, size=(3, 3)).astype(float)
        N[rng.integers(3), rng.integers(3)] = 0.0
        if i % 2:
            N[rng.integers(3), rng.integers(3)] = 0.0
        got = feasible_glr(N, mu, q, cmask, floors, s2)
        Neps = np.where(N > 0, N, 1e-9)
        ref = ref_alt(Neps, mu, q, cmask, floors, s2)[0]
        assert got == pytest.approx(ref, rel=1e-6, abs=1e-6)
        assert got <= ref + 1e-12  # zero-count cells can only make the alternative cheaper


def test_glr_scaling_and_paper_convention():
    # Z(t) = (t/2) F_mu(N/t) with the paper's F (no 1/2) when sigma = 1; linear in N.
    N = np.array([[30.0, 10, 20], [5, 8, 13], [40, 2, 2]])
    z = feasible_glr(N, EX1_MU, EX1_Q, ALL3, 0.0)
    t = N.sum()
    F_paper = 2 * feasible_alt_value(N / t, EX1_MU, EX1_Q, ALL3, 0.0)
    assert z == pytest.approx(t / 2 * F_paper, rel=1e-12)
    assert feasible_glr(3 * N, EX1_MU, EX1_Q, ALL3, 0.0) == pytest.approx(3 * z, rel=1e-12)
    # sigma2 = 2 halves the statistic; q only matters through its ratios
    assert feasible_glr(N, EX1_MU, EX1_Q, ALL3, 0.0, 2.0) == pytest.approx(z / 2, rel=1e-12)
    assert feasible_glr(N, EX1_MU, 7 * EX1_Q, ALL3, 0.0) == pytest.approx(z, rel=1e-12)


def test_glr_degenerate_is_zero():
    mu = np.array([[0.5, 0.5], [0.5, 0.5]])
    assert feasible_glr(np.ones((2, 2)), mu, [0.5, 0.5], [True, True], 0.0) == 0.0
    mu = np.array([[0.0, 1.0], [0.1, 0.2]])  # answer on the floor
    assert feasible_glr(np.ones((2, 2)), mu, [0.5, 0.5], [True, False], 0.0) == 0.0


# ----------------------------------------------------------------------------------
# oracle
# ----------------------------------------------------------------------------------


def test_paper_example_1():
    T, w = feasible_oracle(EX1_MU, EX1_Q, ALL3, 0.0)
    assert T == pytest.approx(190.9, abs=0.05)
    assert T * 0.8 * math.log(9) == pytest.approx(335.5, abs=0.1)  # T* kl(0.1, 0.9)
    assert w.sum() == pytest.approx(1.0, abs=1e-12) and np.all(w >= 0)
    Tarm, warm = feasible_oracle(EX1_MU, EX1_Q, ALL3, 0.0, sampling="arm")
    assert Tarm == pytest.approx(531, abs=0.5)
    assert np.allclose(warm, np.outer(warm.sum(axis=1), EX1_Q))
    s2 = np.ones((3, 3))
    f = np.zeros(3)
    assert T == pytest.approx(ref_oracle(EX1_MU, EX1_Q, ALL3, f, s2), rel=1e-4)
    assert Tarm == pytest.approx(ref_oracle(EX1_MU, EX1_Q, ALL3, f, s2, "arm"), rel=1e-4)
    # the returned weights achieve the value (independent inner evaluation)
    assert 1 / ref_alt(w, EX1_MU, EX1_Q, ALL3, f, s2)[0] == pytest.approx(T, rel=1e-9)


def test_paper_example_2():
    T, w = feasible_oracle(EX2_MU, EX2_Q, ALL3, 0.0)
    # hand solution: arms 2, 3 uniform (x per cell) with x/300 = F, w11 = 50 F, w41 = F/0.18
    assert T == pytest.approx(1800 + 50 + 1 / 0.18, rel=1e-9)
    s2 = np.ones((4, 3))
    f = np.zeros(3)
    assert T == pytest.approx(ref_oracle(EX2_MU, EX2_Q, ALL3, f, s2), rel=1e-4)
    Tarm, _ = feasible_oracle(EX2_MU, EX2_Q, ALL3, 0.0, sampling="arm")
    assert Tarm == pytest.approx(ref_oracle(EX2_MU, EX2_Q, ALL3, f, s2, "arm"), rel=1e-4)


@pytest.mark.parametrize("sampling", ["pair", "arm"])
@pytest.mark.parametrize("kind,seed", [("any", 10), ("any", 11), ("best_infeasible", 12), ("best_infeasible", 13),
                                       ("none_feasible", 14)])
def test_oracle_against_brute_force(sampling, kind, seed):
    rng = np.random.default_rng(seed)
    K, L = (3, 3) if seed % 2 else (4, 2)
    mu, q, cmask, floors, s2 = random_instance(rng, K, L, kind)
    T, w = feasible_oracle(mu, q, cmask, floors, s2, sampling=sampling)
    assert w.shape == (K, L) and np.all(w >= 0) and w.sum() == pytest.approx(1.0, abs=1e-12)
    if sampling == "arm":
        assert np.allclose(w, np.outer(w.sum(axis=1), q))
    # value achieved by w, evaluated independently
    assert 1 / ref_alt(w, mu, q, cmask, floors, s2)[0] == pytest.approx(T, rel=1e-8)
    assert T == pytest.approx(ref_oracle(mu, q, cmask, floors, s2, sampling, seed=seed), rel=1e-4)
    # no random allocation does better
    for u in rng.dirichlet(np.ones(K * L if sampling == "pair" else K), size=200):
        ww = u.reshape(K, L) if sampling == "pair" else np.outer(u, q)
        assert feasible_alt_value(ww, mu, q, cmask, floors, s2) <= (1 / T) * (1 + 1e-9)


def test_oracle_permutation_invariance():
    rng = np.random.default_rng(20)
    for kind in ["any", "best_infeasible", "none_feasible"]:
        mu, q, cmask, floors, s2 = random_instance(rng, 4, 3, kind)
        T, w = feasible_oracle(mu, q, cmask, floors, s2)
        pk = rng.permutation(4)
        pl = rng.permutation(3)
        T2, w2 = feasible_oracle(mu[pk][:, pl], q[pl], cmask[pl], floors[pl], s2[pk][:, pl])
        assert T2 == pytest.approx(T, rel=1e-8)
        for samp in ["arm"]:
            Ta, wa = feasible_oracle(mu, q, cmask, floors, s2, sampling=samp)
            Ta2, wa2 = feasible_oracle(mu[pk], q, cmask, floors, s2[pk], sampling=samp)
            assert Ta2 == pytest.approx(Ta, rel=1e-8)
            assert np.allclose(wa2, wa[pk], atol=1e-5)


def test_oracle_no_feasible_closed_form():
    mu = np.array([[-0.5, 1.0], [0.3, -0.2], [-0.1, -0.4]])
    q = np.array([0.4, 0.6])
    T, w = feasible_oracle(mu, q, [True, True], 0.0)
    D = np.array([0.25, 0.04, 0.16]) / 2  # largest violation per arm
    assert T == pytest.approx(np.sum(1 / D), rel=1e-12)
    assert w[0, 0] == pytest.approx((1 / D[0]) / T) and w[2, 1] == pytest.approx((1 / D[2]) / T)
    Ta, wa = feasible_oracle(mu, q, [True, True], 0.0, sampling="arm")
    E = np.array([0.4 * 0.25, 0.6 * 0.04, 0.4 * 0.01 + 0.6 * 0.16]) / 2
    assert Ta == pytest.approx(np.sum(1 / E), rel=1e-12)


def test_oracle_degenerate_and_edge_cases():
    q = np.array([0.5, 0.5])
    T, w = feasible_oracle(np.array([[0.5, 0.5], [0.5, 0.5]]), q, [True, True], 0.0)  # tie
    assert T == math.inf and np.allclose(w, 0.25)
    T, w = feasible_oracle(np.array([[0.0, 1.0], [0.1, 0.2]]), q, [True, False], 0.0)  # on the floor
    assert T == math.inf and np.allclose(w, 0.25)
    T, w = feasible_oracle(np.array([[0.3, 1.0]]), q, [False, False], 0.0)  # empty alternative
    assert T == 0.0
    T, w = feasible_oracle(np.array([[0.3, 1.0]]), q, [True, False], 0.0)  # single arm, floor only
    assert T == pytest.approx(1 / (0.09 / 2), rel=1e-8) and w[0, 0] == pytest.approx(1.0, abs=1e-6)
    T, w = feasible_oracle(np.array([[0.3, 1.0]]), q, [True, False], 0.0, sampling="arm")
    assert T == pytest.approx(1 / (0.5 * 0.09 / 2), rel=1e-8) and np.allclose(w, [q])
    # tie with an infeasible arm is not degenerate
    T, _ = feasible_oracle(EX2_MU, EX2_Q, ALL3, 0.0)
    assert math.isfinite(T)


def test_oracle_floor_shift_and_sigma_scaling():
    rng = np.random.default_rng(30)
    mu, q, cmask, floors, s2 = random_instance(rng, 3, 3, "best_infeasible")
    T, w = feasible_oracle(mu, q, cmask, floors, s2)
    c = 0.7
    T2, w2 = feasible_oracle(mu + c, q, cmask, floors + c, s2)
    assert T2 == pytest.approx(T, rel=1e-8)
    T3, _ = feasible_oracle(mu, q, cmask, floors, 3 * s2)
    assert T3 == pytest.approx(3 * T, rel=1e-8)


def test_oracle_warm_start_and_tolerance():
    T, w = feasible_oracle(EX1_MU, EX1_Q, ALL3, 0.0)
    mu = EX1_MU + 0.01
    Tc, _ = feasible_oracle(mu, EX1_Q, ALL3, 0.0)
    Tw, _ = feasible_oracle(mu, EX1_Q, ALL3, 0.0, warm_start=w)
    assert Tw == pytest.approx(Tc, rel=1e-8)
    Tl, _ = feasible_oracle(EX1_MU, EX1_Q, ALL3, 0.0, tol=1e-4)
    assert T <= Tl <= T * (1 + 1e-3)


# ----------------------------------------------------------------------------------
# projected subgradient step
# ----------------------------------------------------------------------------------


def test_project_simplex():
    rng = np.random.default_rng(5)
    for _ in range(50):
        x = rng.normal(size=7)
        p = project_simplex(x)
        assert p.sum() == pytest.approx(1.0) and np.all(p >= 0)
        # optimality: p = argmin ||p - x|| over the simplex (check against random points)
        for y in rng.dirichlet(np.ones(7), size=20):
            assert np.sum((p - x) ** 2) <= np.sum((y - x) ** 2) + 1e-12


def test_supergradient_inequality():
    from pybai.problems.feasible._qp import alt_supergradient

    rng = np.random.default_rng(6)
    for kind in ["any", "best_infeasible", "none_feasible"] * 3:
        mu, q, cmask, floors, s2 = random_instance(rng, 3, 3, kind)
        a = ref_answer(mu, q, cmask, floors)
        w = rng.dirichlet(np.ones(9)).reshape(3, 3)
        c = np.zeros((3, 3))
        val = alt_supergradient(mu, s2, q, floors, cmask, w, a, c)
        assert val == pytest.approx(feasible_alt_value(w, mu, q, cmask, floors, s2), rel=1e-12)
        assert val == pytest.approx(np.sum(c * w), rel=1e-9)
        for w2 in rng.dirichlet(np.ones(9), size=50):
            assert feasible_alt_value(w2.reshape(3, 3), mu, q, cmask, floors, s2) <= np.sum(c.ravel() * w2) + 1e-12


def test_subgradient_step_paper_variant():
    w = np.full((3, 3), 1 / 9)
    T, _ = feasible_oracle(EX1_MU, EX1_Q, ALL3, 0.0)
    F0 = feasible_alt_value(w, EX1_MU, EX1_Q, ALL3, 0.0)
    # paper scaling: c = (mu - lambda*)^2 (no 1/2), F_paper(w) = c . w = 2 * alt value
    w_tiny = feasible_subgradient_step(w, EX1_MU, EX1_Q, ALL3, 0.0, step=1e-6)
    assert w_tiny.sum() == pytest.approx(1.0) and np.all(w_tiny >= 0)
    best = F0
    for n in range(1, 2001):
        w = feasible_subgradient_step(w, EX1_MU, EX1_Q, ALL3, 0.0, step=20.0 / np.sqrt(n))
        assert w.sum() == pytest.approx(1.0) and np.all(w >= 0)
        best = max(best, feasible_alt_value(w, EX1_MU, EX1_Q, ALL3, 0.0))
    assert best <= 1 / T * (1 + 1e-9)
    assert best >= 0.9 / T > F0
