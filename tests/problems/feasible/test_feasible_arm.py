"""FeasibleArmProblem: the BAICS problem behind goal "best-feasible-arm"."""

import math
import time

import numpy as np
import pytest

from pybai import Bernoulli, FixedConfidence, Gaussian, InvalidParameterError
from pybai.problems.feasible.problem import BERNOULLI_VARIANCE, FeasibleArmProblem
from pybai.problems.feasible.oracle import feasible_glr, feasible_oracle

EX1 = np.array([[0.2, 0.6, 0.8], [0.4, 0.4, 0.3], [-0.2, 1.0, 1.5]])
Q1 = [0.2, 0.3, 0.5]


def make(mu=EX1, q=Q1, constrained=None, floor=0.0, sigma=1.0, sampling="pair", delta=0.1):
    K, L = np.shape(mu)
    return FeasibleArmProblem(K, L, q, constrained, floor, Gaussian(sigma, n_sources=K * L),
                              FixedConfidence(delta), sampling=sampling)


def test_structure_and_requests():
    p = make()
    assert p.goal == "best-feasible-arm"
    assert p.n_sources == 9 and p.source_shape == (3, 3) and p.n_requests == 9
    counts = np.arange(9.0)
    assert p.request_space().counts(counts) is counts
    pa = make(sampling="arm")
    assert pa.n_requests == 3
    np.testing.assert_array_equal(pa.request_space().counts(counts), [3.0, 12.0, 21.0])
    np.testing.assert_allclose(pa.request_space().weights(np.full(9, 1 / 9)), [1 / 3] * 3)
    np.testing.assert_allclose(p.weights.sum(), 1.0)
    assert p.to_dict()["constrained"] == [0, 1, 2]


def test_answer_flat_and_matrix_and_none():
    p = make()
    assert p.answer(EX1) == 0 and p.answer(EX1.ravel()) == 0
    assert p.answer(-np.abs(EX1) - 0.1) == -1
    # without constraints the answer is the best quality (arm 2)
    assert make(constrained=[]).answer(EX1) == 2
    # only subpopulation 1 constrained: arm 2 is feasible and best
    assert make(constrained=[1]).answer(EX1) == 2
    # per-subpopulation floor, one per constrained subpopulation (in the order given)
    assert make(constrained=[2, 0], floor=[0.9, -1.0]).answer(EX1) == 2
    assert make(constrained=[2, 0], floor=[0.9, 0.0]).answer(EX1) == -1


def test_oracle_glr_match_the_kernels_and_paper():
    p = make()
    t, w = p.oracle(EX1.ravel())
    assert t == pytest.approx(190.9, abs=0.05)
    assert w.shape == (9,) and w.sum() == pytest.approx(1.0)
    t2, w2 = feasible_oracle(EX1, Q1, np.ones(3, bool), 0.0, 1.0)
    assert t == pytest.approx(t2) and np.allclose(w, w2.ravel())
    counts = np.arange(1.0, 10.0)
    assert p.glr(counts, EX1.ravel()) == pytest.approx(feasible_glr(counts.reshape(3, 3), EX1, Q1, np.ones(3, bool)))
    ta, wa = make(sampling="arm").oracle(EX1)
    assert ta == pytest.approx(531, abs=0.5)
    np.testing.assert_allclose(wa.reshape(3, 3), np.outer(wa.reshape(3, 3).sum(1), Q1), atol=1e-12)


def test_oracle_with_hint_is_exact_along_a_trajectory():
    p = make()
    hint = p.oracle_hint()
    rng = np.random.default_rng(0)
    mu = EX1.copy()
    for _ in range(200):  # a random walk of empirical means, like a Track-and-Stop run
        mu = mu + 0.02 * rng.standard_normal(mu.shape)
        tw, _ww = p.oracle(mu, hint)
        tc, _wc = p.oracle(mu)
        assert tw == pytest.approx(tc, rel=1e-6) or (math.isinf(tw) and math.isinf(tc))


def test_per_cell_variances_and_floors_shift():
    sigma = np.full((3, 3), 2.0)
    t4, _ = make(sigma=sigma.ravel()).oracle(EX1)
    assert t4 == pytest.approx(4 * 190.88359, rel=1e-6)  # T* scales with the variance
    t_shift, _ = make(mu=EX1 + 1.0, floor=1.0).oracle(EX1 + 1.0)
    assert t_shift == pytest.approx(190.88359, rel=1e-6)


def test_degenerate_instances_do_not_hang():
    p = make()
    on_floor = EX1.copy()
    on_floor[0, 0] = 0.0  # the answer's constrained mean exactly on the floor
    tie = np.array([[0.5, 0.5, 0.5], [0.5, 0.5, 0.5], [-1.0, 1.0, 1.0]])  # two feasible arms tied
    for mu in (on_floor, tie):
        start = time.perf_counter()
        t, w = p.oracle(mu)
        assert math.isinf(t) and np.allclose(w, 1 / 9)
        assert p.glr(np.full(9, 100.0), mu) == 0.0
        assert time.perf_counter() - start < 1.0
    assert p.answer(on_floor) == 0  # a mean on its floor counts as feasible
    assert p.answer(tie) == 0  # lowest index among tied arms


def test_simple_regret_conventions():
    p = make()
    assert p.simple_regret(0, EX1) == 0.0
    assert p.simple_regret(1, EX1) == pytest.approx(0.62 - 0.35)
    assert math.isnan(p.simple_regret(2, EX1))  # infeasible arm: no quality comparison
    assert math.isnan(p.simple_regret(-1, EX1))  # "no arm" while a feasible arm exists
    none = -np.abs(EX1) - 0.1
    assert p.simple_regret(-1, none) == 0.0
    assert math.isnan(p.simple_regret(0, none))


def test_threshold_constants():
    p = make()
    assert p.n_terms == 6 and p.n_alternatives == 3 * 3 + 3
    q = make(constrained=[1])
    assert q.n_terms == 6 and q.n_alternatives == 3 * 1 + 3


def test_relaxed_weights_are_bai_on_qualities():
    from pybai import BestArmProblem

    p = make()
    w = p.relaxed_weights(EX1).reshape(3, 3)
    v = w.sum(axis=1)
    np.testing.assert_allclose(w, np.outer(v, Q1), atol=1e-12)
    qual = EX1 @ np.array(Q1)
    bai = BestArmProblem(3, Gaussian(np.sqrt([1.0, 1.0, 1.0]), n_sources=3), FixedConfidence(0.1))
    np.testing.assert_allclose(v, bai.oracle(qual)[1], atol=1e-9)
    # the hinted version agrees
    hint = p.oracle_hint()
    np.testing.assert_allclose(p.relaxed_weights(EX1, hint), w.ravel(), atol=1e-9)


def test_subgradient_step_moves_up_the_objective():
    p = make()
    w = np.full(9, 1 / 9)
    counts_value = lambda w: p.glr(w, EX1)  # inf over Alt of sum w d = F/2
    start = counts_value(w)
    for _ in range(50):
        w = p.subgradient_step(w, EX1, step=0.5)
    assert w.sum() == pytest.approx(1.0) and np.all(w >= 0)
    assert counts_value(w) > start
    pa = make(sampling="arm")
    wa = pa.subgradient_step(np.outer([1 / 3] * 3, Q1).ravel(), EX1).reshape(3, 3)
    np.testing.assert_allclose(wa, np.outer(wa.sum(1), Q1), atol=1e-12)


def test_bernoulli_uses_the_subgaussian_variance():
    p = FeasibleArmProblem(2, 2, [1, 1], None, 0.1, Bernoulli(n_sources=4), FixedConfidence(0.1))
    np.testing.assert_array_equal(p.variances, np.full((2, 2), BERNOULLI_VARIANCE))
    mu = np.array([[0.3, 0.4], [0.2, 0.25]])
    t, _ = p.oracle(mu)
    g = make(mu=mu, q=[1, 1], floor=0.1, sigma=0.5)
    assert t == pytest.approx(g.oracle(mu)[0])


@pytest.mark.parametrize(
    "kwargs,name",
    [
        ({"weights": [0.2, 0.3]}, "weights"),
        ({"weights": [0.2, 0.0, 0.8]}, "weights"),
        ({"weights": [0.2, -0.3, 0.8]}, "weights"),
        ({"constrained": [0, 3]}, "constrained"),
        ({"constrained": [-1]}, "constrained"),
        ({"constrained": [1, 1]}, "constrained"),
        ({"constrained": [0.5]}, "constrained"),
        ({"floor": [0.0, 0.0]}, "floor"),
        ({"constrained": [0, 1], "floor": [0.0, 0.0, 0.0]}, "floor"),
        ({"floor": float("nan")}, "floor"),
        ({"sampling": "cell"}, "sampling"),
        ({"n_arms": 0}, "n_arms"),
        ({"family": Gaussian(1.0, n_sources=8)}, "family"),
        ({"family": "gaussian"}, "family"),
    ],
)
def test_validation_names_the_parameter(kwargs, name):
    args = {"n_arms": 3, "n_subpopulations": 3, "weights": Q1, "constrained": None, "floor": 0.0,
                "family": Gaussian(1.0, n_sources=9), "regime": FixedConfidence(0.1)}
    args.update(kwargs)
    with pytest.raises(InvalidParameterError, match=f"'{name}' parameter of FeasibleArmProblem"):
        FeasibleArmProblem(**args)


def test_wrong_means_shape_names_means():
    with pytest.raises(InvalidParameterError, match="'means'"):
        make().answer(np.zeros(8))
    with pytest.raises(InvalidParameterError, match="n_arms"):
        make(mu=[[0.0, 1.0]], q=[1.0, 1.0], constrained=[])


@pytest.mark.slow
def test_oracle_is_not_improvable_along_tas_cs_trajectories():
    """On empirical means met by T-a-SCS (not only at the truth), the oracle's weights cannot be
    improved by projected supergradient ascent nor by random allocations."""
    import numpy as np

    import pybai.problems.feasible.oracle as fo
    from pybai import make_strategy
    from pybai.environments.subpopulation import SubpopulationGaussianEnvironment
    from pybai.problems.base import FixedConfidence
    from pybai.problems.feasible.problem import FeasibleArmProblem

    rng0 = np.random.default_rng(0)
    env = SubpopulationGaussianEnvironment([[-0.2, 0.4, 1.2], [0.2, 0.6, 0.6], [0.3, 0.3, 0.6], [-0.6, 0.8, 0.4]],
                                           [1 / 3, 1 / 3, 1 / 3])
    p = FeasibleArmProblem(**env.structure(), regime=FixedConfidence(0.1, 1500))
    s = make_strategy("tas-cs").start(p, rng=0)
    rng = np.random.default_rng(1)
    trajectory = []
    while not s.stopped:
        s.tell(*env.respond(s.ask(), rng))
        if not np.isnan(s.means_).any():  # from the end of the initial phase on
            trajectory.append(s.means_.copy())
    checked = 0
    for m in trajectory[::50]:
        mu = m.reshape(p.source_shape)
        args = (mu, p.weights, p.cmask, p.floor, p.variances)
        t_star, w = fo.feasible_oracle(*args)
        if not np.isfinite(t_star):
            continue
        value = fo.feasible_alt_value(w, *args)
        v = w.ravel().copy()
        for it in range(100):
            _, g = p.alt_gradient(m, v)
            v = fo.project_simplex(v + 0.05 / np.sqrt(it + 1) * g / max(np.abs(g).max(), 1e-12))
            assert fo.feasible_alt_value(v.reshape(p.source_shape), *args) <= value * (1 + 1e-7)
        for u in rng0.dirichlet(np.ones(p.n_sources), size=50):
            assert fo.feasible_alt_value(u.reshape(p.source_shape), *args) <= value * (1 + 1e-7)
        checked += 1
    assert checked >= 10
