"""The test of the linear model's fit: rare under the model, sure on means off it, and what the rule does with it."""

import numpy as np
import pytest
from scipy.stats import chi2

from pybai.models.linear import LeastSquares
from pybai.problems import FixedConfidence
from pybai.problems.linear import LinearBestArmProblem
from pybai.problems.linear.fit import chi_square_lower, fit_test


def _stats(x, counts, means, sigma, rng):
    """Per-arm sums and within-arm squared deviations of Gaussian rewards with these means."""
    sums = np.zeros(counts.size)
    devs = np.zeros(counts.size)
    for a, n in enumerate(counts.astype(int)):
        y = means[a] + sigma * rng.standard_normal(n)
        sums[a] = y.sum()
        devs[a] = ((y - y.mean()) ** 2).sum() if n else 0.0
    return sums, devs


def test_chi_square_lower_is_below_its_quantile_at_every_nu():
    nu = np.array([1.0, 2.0, 3.0, 10.0, 47.0, 1000.0, 1e6])
    low = chi_square_lower(nu, 0.05)
    assert (chi2.cdf(low, nu) <= 0.05 / (nu * (nu + 1))).all()
    assert (low > 0).all() and chi_square_lower(np.array([0.0]), 0.05)[0] == 0.0


@pytest.mark.parametrize("noise", [1.0, 0.2])  # the declared sigma, and a sigma five times the noise
def test_the_model_is_rarely_rejected_when_it_holds(noise):
    rng = np.random.default_rng(7)
    rejected = 0
    for _ in range(300):
        k, d = rng.integers(3, 9), rng.integers(1, 4)
        x = rng.normal(size=(k, d))
        counts = rng.integers(0, 200, size=k).astype(float)
        counts[rng.integers(k)] = 1.0  # an arm sampled once, as in a design that barely visits it
        sums, devs = _stats(x, counts, x @ rng.normal(size=d), noise, rng)
        rejected += fit_test(x, counts, sums, devs, 1.0, 0.05).rejected
    assert rejected <= 3  # at most delta = 5%, the bound being loose: about never


def test_means_off_the_model_are_rejected_with_enough_samples():
    rng = np.random.default_rng(3)
    x = np.array([[1.0, 0.0], [0.0, 1.0], [0.7, 0.7], [0.2, 0.9]])
    far = np.array([1.0, 1.0, 3.0, 1.0])  # one arm far off the plane of the others
    counts = np.full(4, 400.0)
    sums, devs = _stats(x, counts, far, 1.0, rng)
    assert fit_test(x, counts, sums, devs, 1.0, 0.05).rejected
    test = fit_test(x, counts, sums, devs, 1.0, 0.05)
    assert test.worst in (0, 1, 2, 3) and test.noise <= 1.0


@pytest.mark.parametrize("seed", range(6))
def test_constant_rewards_off_the_model_are_rejected_after_one_sample_of_the_odd_arm(seed):
    rng = np.random.default_rng(seed)
    k, d = 5, int(rng.integers(2, 4))
    x = rng.normal(size=(k, d))
    means = rng.normal(size=k)  # K > d generic means: not linear in the features
    counts = np.array([40.0] * d + [1.0] * (k - d))
    assert fit_test(x, counts, counts * means, np.zeros(k), 1.0, 0.05).rejected
    linear = x @ rng.normal(size=d)  # means that *are* linear, with almost no noise: rounding never rejects
    assert not fit_test(x, counts * 1e5, counts * 1e5 * linear, np.full(k, 1e-30), 1.0, 0.05).rejected
    repeated = fit_test(x, counts, counts * linear, np.zeros(k), 1.0, 0.05)  # but a repeated reward does
    assert repeated.rejected and repeated.repeats and repeated.worst == 0


def test_least_squares_keeps_the_within_arm_squared_deviations():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4, 2))
    m = LeastSquares(x)
    seen = [[] for _ in range(4)]
    for size in (1, 1, 3, 1, 30, 2, 1, 50):  # one reward, short chunks, long chunks (> 4 K)
        src = rng.integers(0, 4, size=size)
        rew = 1e6 + rng.normal(size=size)  # a large offset: deviations must not cancel
        m.update(src, rew)
        for s, r in zip(src, rew):
            seen[s].append(r)
    want = [((np.array(v) - np.mean(v)) ** 2).sum() if v else 0.0 for v in seen]
    np.testing.assert_allclose(m.sq_devs, want, rtol=1e-6, atol=1e-6)
    assert m.check_state() is None
    m.sq_devs[0] = -1.0
    assert "sq_devs" in m.check_state()
    rebuilt = LeastSquares.from_statistics(x, m.counts, m.sums)
    assert np.isnan(rebuilt.sq_devs[rebuilt.counts > 1]).all() and rebuilt.check_state() is None


def _session(tmp_path, features, strategy="tas"):
    from pybai.session import Session

    doc = {"name": "lin", "seed": 36, "problem": {"goal": "best-arm", "delta": 0.1, "max_samples": 400},
           "environment": {"kind": "linear-gaussian", "features": features}, "strategy": [{"name": strategy}]}
    return Session.create(tmp_path / "s.db", doc)


def _drive(session, reward, answers=400):
    from pybai.exceptions import PybaiError

    rng = np.random.default_rng(1)
    for step in range(answers):
        try:
            req = session.ask()
        except PybaiError:
            break
        sources = np.asarray(req.requests).ravel()
        session.tell(req.id, sources.tolist(), [reward(int(a), step, rng) for a in sources])
    return session.status()


PROBE = [[1.0, 0.0], [0.0, 1.0], [0.7, 0.7], [0.2, 0.9]]


@pytest.mark.parametrize("strategy", ["tas", "game", "xy-static", "g-allocation", "xy-adaptive", "rage",
                                      "xy-fully-adaptive"])
def test_constant_rewards_are_never_certified_and_status_says_why(tmp_path, strategy):
    session = _session(tmp_path, PROBE, strategy)  # every reward 1.0: arm 2 is 1.4 by extrapolation
    status = _drive(session, lambda a, i, rng: 1.0)
    assert not status["certified"] and status["status"] != "stopped"
    assert "contradict the linear model" in status["reward_model_note"]
    session.close()


@pytest.mark.parametrize("seed", range(3))
def test_held_out_misfit_shapes_are_never_certified(tmp_path, seed):
    rng = np.random.default_rng(100 + seed)
    features = rng.normal(size=(5, 2)).round(3).tolist()
    means = rng.normal(size=5)  # a non-linear mean vector, paid without noise
    session = _session(tmp_path, features)
    status = _drive(session, lambda a, i, r: float(means[a]))
    assert not status["certified"]
    session.close()


def test_runs_under_the_model_still_stop_and_the_note_is_quiet(tmp_path):

    theta = np.array([1.0, -0.5])  # means 1, -0.5, 0.35, -0.25
    x = np.asarray(PROBE)
    session = _session(tmp_path, PROBE)
    status = _drive(session, lambda a, i, rng: float(x[a] @ theta + rng.normal()))
    assert status["status"] == "stopped" and status["certified"] and status["reward_model_note"] is None
    session.close()


def test_statistic_is_no_evidence_while_the_fit_is_rejected():
    x = np.asarray(PROBE)
    problem = LinearBestArmProblem(x, 1.0, FixedConfidence(0.1))
    m = problem.new_model()
    src = np.array([0] * 47 + [1] * 48 + [2, 3])
    m.update(src, np.ones(src.size))
    assert "repeated its reward" in problem.misfit(m) and problem.statistic(m) == 0.0
    assert problem.statistic_against(m, 1.0, int(src.size)) == 0.0
    fresh = problem.new_model()
    assert problem.misfit(fresh) is None


def test_conversions_under_a_linear_model_are_rarely_rejected_though_some_arms_repeat():
    """0/1 rewards with linear means and sigma = 1/2: arms at low rates often show only zeros, which alone
    must not reject (only data with no noise anywhere do)."""
    rng = np.random.default_rng(11)
    rejected = constant_seen = 0
    for _ in range(300):
        k, d = rng.integers(3, 8), rng.integers(1, 4)
        x = rng.uniform(0.0, 1.0, size=(k, d))
        p = x @ rng.uniform(0.0, 1.0, size=d)
        p = 0.01 + 0.3 * p / p.max()  # linear conversion rates in [0.01, 0.31]
        counts = rng.integers(2, 150, size=k).astype(float)
        y = [rng.random(int(n)) < p[a] for a, n in enumerate(counts)]
        sums = np.array([v.sum() for v in y], dtype=float)
        devs = np.array([((v - v.mean()) ** 2).sum() for v in y])
        constant_seen += int((devs == 0.0).any() and (devs > 0.0).any())
        rejected += fit_test(x, counts, sums, devs, 0.5, 0.05).rejected
    assert constant_seen >= 30  # the case is exercised: a constant arm beside arms that vary
    assert rejected <= 3


@pytest.mark.parametrize("sigma", [1.0, 2.0])  # the noisiest arm's level, and a sigma twice it
def test_heteroscedastic_linear_means_are_rarely_rejected(sigma):
    """Arms whose noise levels differ 10 times (all <= sigma, which the model allows): each arm is measured at its
    own level, so the quiet arms' small deviations do not make the noisy arms' residuals look off the model."""
    rng = np.random.default_rng(36)
    rejected = 0
    for _ in range(300):
        k, d = rng.integers(3, 9), rng.integers(1, 4)
        x = rng.normal(size=(k, d))
        counts = rng.integers(500, 3000, size=k).astype(float)  # quiet arms sampled often
        levels = np.full(k, 0.1)
        noisy = rng.choice(k, size=int(rng.integers(1, 3)), replace=False)
        levels[noisy] = 1.0  # noise levels 10x apart; a pooled noise estimate falls near the quiet level
        counts[noisy] = rng.integers(5, 60, size=noisy.size)  # and the noisy arms sampled less
        if rng.random() < 0.3:
            counts[rng.integers(k)] = 1.0  # an arm sampled once: nothing known of its noise
        linear = x @ rng.normal(size=d)
        sums, devs = np.zeros(k), np.zeros(k)
        for a in range(k):
            y = linear[a] + levels[a] * rng.standard_normal(int(counts[a]))
            sums[a], devs[a] = y.sum(), ((y - y.mean()) ** 2).sum()
        rejected += fit_test(x, counts, sums, devs, sigma, 0.05).rejected
    assert rejected <= 3  # at most delta = 5% by the proof; about never (one pooled noise level: 93 of 300)


def test_off_the_model_means_are_rejected_beside_noise_levels_10x_apart():
    """The per-arm levels keep the power: an arm off the plane by a few of its own noise units among quiet arms is
    found at their level, where the declared sigma alone would not see it."""
    rng = np.random.default_rng(5)
    x = np.array([[1.0, 0.0], [0.0, 1.0], [0.7, 0.7], [0.2, 0.9], [0.5, -0.3]])
    means = x @ np.array([1.0, -0.5])
    means[2] += 0.15  # off the plane by 1.5 quiet standard deviations per sample, 300 samples
    counts = np.full(5, 300.0)
    levels = np.array([1.0, 1.0, 0.1, 0.1, 0.1])
    sums, devs = np.zeros(5), np.zeros(5)
    for a in range(5):
        y = means[a] + levels[a] * rng.standard_normal(int(counts[a]))
        sums[a], devs[a] = y.sum(), ((y - y.mean()) ** 2).sum()
    test = fit_test(x, counts, sums, devs, 1.0, 0.05)
    assert test.rejected and test.worst in (2, 3, 4) and test.noise < 0.5  # at the quiet arms' level
    assert not fit_test(x, counts, sums, None, 1.0, 0.05).rejected  # at sigma alone it is invisible


def test_edge_statistics_give_a_finite_verdict():
    """NaN deviations (rebuilt models), one constant arm beside varying ones, subnormal and huge means."""
    x = np.array([[1.0, 0.0], [0.0, 1.0], [0.7, 0.7]])
    n = np.array([50.0, 50.0, 50.0])
    linear = x @ np.array([1.0, 2.0])
    assert not fit_test(x, n, n * linear, np.full(3, np.nan), 1.0, 0.05).rejected
    assert not fit_test(x, n, n * linear, np.array([0.0, 40.0, 45.0]), 1.0, 0.05).repeats
    for scale, devs in ((1e-150, 1e-300), (1e150, 1e300), (5e-324, np.nan), (1e300, np.nan)):
        test = fit_test(x, n, n * linear * scale, np.array([49.0, 48.0, 47.0]) * devs, 1.0, 0.05)
        assert np.isfinite(test.statistic) and not test.rejected
