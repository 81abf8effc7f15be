import numpy as np

from pybai import LUCB, BestArmProblem, FixedConfidence, GaussianEnvironment, TopTwo, TrackAndStop


def run(strategy, env, problem, seed=0):
    strategy.start(problem, rng=seed)
    rng = np.random.default_rng(seed + 1)
    while not strategy.stopped:
        src = strategy.ask()
        strategy.tell(src, env.sample(src, rng))
    return strategy.result()


def test_tas_tracks_the_optimal_weights():
    env = GaussianEnvironment([1.0, 0.5, 0.0])
    problem = BestArmProblem(3, env.family(), FixedConfidence(1e-12, 10**6))
    _, w = problem.oracle(env.means)
    for tracking in ("C", "D"):
        res = run(TrackAndStop(tracking=tracking), env, problem)
        np.testing.assert_allclose(res.counts / res.samples, w, atol=0.05)


def test_lucb_asks_two_arms_and_original_stopping():
    env = GaussianEnvironment([1.0, 0.5, 0.0])
    problem = BestArmProblem(3, env.family(), FixedConfidence(0.05))
    s = LUCB(stopping="confidence-intervals").start(problem, rng=0)
    for _ in range(3):
        s.tell(s.ask(), [0.0])
    pair = s.ask()
    assert pair.shape == (2,) and pair[0] != pair[1]
    res = run(LUCB(stopping="confidence-intervals"), env, problem)
    assert res.recommendation == 0 and res.statistic > 0


def test_top_two_leader_proportion():
    env = GaussianEnvironment([1.0, 0.5, 0.4, 0.0])
    problem = BestArmProblem(4, env.family(), FixedConfidence(1e-8))
    res = run(TopTwo(beta=0.5), env, problem)
    assert abs(res.counts[0] / res.samples - 0.5) < 0.05
    res_random = run(TopTwo(beta=0.5, selection="random"), env, problem)
    assert res_random.recommendation == 0


def test_game_sampling_approaches_optimal_weights():
    from pybai import GameSampling

    env = GaussianEnvironment([1.0, 0.5, 0.0])
    problem = BestArmProblem(3, env.family(), FixedConfidence(1e-12, 10**6))
    _, w = problem.oracle(env.means)
    res = run(GameSampling(), env, problem)
    np.testing.assert_allclose(res.counts / res.samples, w, atol=0.05)


def test_adahedge_follows_the_leader_then_hedges():
    from pybai.strategies.game import adahedge_update, adahedge_weights

    cum, gap, w = np.zeros(3), 0.0, np.empty(3)
    adahedge_weights(cum, gap, w)
    np.testing.assert_allclose(w, 1 / 3)
    for _ in range(200):
        adahedge_weights(cum, gap, w)
        gap = adahedge_update(cum, gap, w, np.array([0.0, 1.0, 1.0]))
    adahedge_weights(cum, gap, w)
    assert w[0] > 0.99 and gap >= 0.0
