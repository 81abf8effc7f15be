"""The leader rule of rewards in [0, 1] under reward_model "bounded" with the sub-Bernoulli statistic (issue 39).

Plain best-arm identification on bounded rewards with ``statistic = "sub-bernoulli"`` takes the kinds of
:mod:`pybai.stopping.leader` on the rescaled rewards, and ``"delta-correct"`` is ``"leader-settled"``; with
``"kl-inf"`` the leader kinds are refused (no leader form of the betting rule), with one error naming ``threshold``.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from numba import njit
from scipy.stats import binomtest

from pybai import (Bernoulli, BernoulliEnvironment, BestArmProblem, BetaEnvironment, Bounded, FixedConfidence,
                   Gaussian, make_strategy)
from pybai.cli import main
from pybai.exceptions import InvalidParameterError
from pybai.models import Binomial, GaussianUnknownVariance
from pybai.models._kl import BERNOULLI, pair_cost
from pybai.problems.top_k import TopKProblem
from pybai.simulate.runner import run_replication
from pybai.stopping._leader_kernels import STICKY, leader_advance, leader_min_margin, state_size
from pybai.stopping.betting import BettingThreshold
from pybai.stopping.leader import (SCALE_PAIR_WEIGHT, BernoulliLeaderScalesThreshold, BernoulliLeaderSettledThreshold,
                                   BernoulliLeaderThreshold)
from pybai.stopping.tilt import BernoulliTiltThreshold

# tests/stopping is on sys.path (pytest prepends a test file's folder)
from test_leader_scales import CONSTS, EMAX, SCALES

FC = FixedConfidence(0.1)


def _bounded(statistic: str, k: int = 4, low: float = 0.0, high: float = 1.0) -> Bounded:
    return Bounded(k, low, high, statistic)


def test_the_family_says_which_leader_rules_apply():
    assert Gaussian(1.0, n_sources=3).leader_family == "gaussian"
    assert Bernoulli(n_sources=3).leader_family == "bernoulli"
    assert _bounded("sub-bernoulli").leader_family == "bernoulli"
    assert _bounded("kl-inf").leader_family is None
    assert Binomial(3, trials=4).leader_family is None
    assert GaussianUnknownVariance(3).leader_family is None


def test_sub_bernoulli_best_arm_maps_delta_correct_and_the_leader_kinds():
    problem = BestArmProblem(4, _bounded("sub-bernoulli", low=-2.0, high=6.0), FC)
    assert problem.threshold("delta-correct", 0.1) == BernoulliLeaderSettledThreshold(0.1, 4)
    assert problem.threshold("leader-settled", 0.05) == BernoulliLeaderSettledThreshold(0.05, 4)
    assert type(problem.threshold("leader-scales", 0.1)) is BernoulliLeaderScalesThreshold
    assert type(problem.threshold("Leader", 0.1)) is BernoulliLeaderThreshold
    assert isinstance(problem.threshold("pair-tilt", 0.1), BernoulliTiltThreshold)  # the rule it replaces
    assert problem.run_kernels() is None  # no compiled runs for bounded rewards: ask/tell is the only path
    # epsilon: the leader rule on the epsilon hypotheses, its shift in the rescaled units (width 8: 0.1 / 8)
    epsilon = BestArmProblem(4, _bounded("sub-bernoulli", low=-2.0, high=6.0), FC, epsilon=0.1)
    rule = epsilon.threshold("delta-correct", 0.1)
    assert type(rule) is BernoulliLeaderSettledThreshold
    assert rule.shift == epsilon.shift == (1.0, pytest.approx(0.1 / 8.0))
    # top-k keeps the per-pair rules and refuses the leader kinds, naming threshold
    top_k = TopKProblem(4, 2, _bounded("sub-bernoulli"), FC)
    assert isinstance(top_k.threshold("delta-correct", 0.1), BernoulliTiltThreshold)
    with pytest.raises(InvalidParameterError, match="threshold"):
        top_k.threshold("leader-settled", 0.1)


@pytest.mark.parametrize("kind", ["leader", "leader-scales", "leader-settled"])
def test_kl_inf_keeps_its_betting_rule_and_refuses_the_leader_kinds(kind):
    problem = BestArmProblem(4, _bounded("kl-inf"), FC)
    assert isinstance(problem.threshold("delta-correct", 0.1), BettingThreshold)
    with pytest.raises(InvalidParameterError, match=r"^The 'threshold' parameter of BestArmProblem .*'sub-bernoulli'"
                       ) as info:
        problem.threshold(kind, 0.1)
    assert "\n" not in str(info.value)
    with pytest.raises(InvalidParameterError, match="threshold"):  # a strategy names its own parameter
        make_strategy("tas", {"threshold": kind}).start(problem, rng=0)


def _outcome(strategy, env, problem, r):
    return run_replication(make_strategy(strategy, {"threshold": "delta-correct"}), env, problem,
                           np.random.SeedSequence(7, spawn_key=(r,)), fast=False)


@pytest.mark.parametrize("strategy", ["tas", "top-two"])
def test_on_bernoulli_rewards_the_bounded_run_is_the_bernoulli_run(strategy):
    """Sub-Bernoulli on rewards in {0, 1} is the Bernoulli family: the same rule on the same numbers."""
    env = BernoulliEnvironment([0.6, 0.45, 0.4, 0.3])
    regime = FixedConfidence(0.05, max_samples=50_000)
    for r in range(3):
        a = _outcome(strategy, env, BestArmProblem(4, Bernoulli(n_sources=4), regime), r)
        b = _outcome(strategy, env, BestArmProblem(4, _bounded("sub-bernoulli"), regime), r)
        assert a.status == b.status == "stopped"
        assert (a.samples, a.recommendation) == (b.samples, b.recommendation)
        assert np.array_equal(a.counts, b.counts)


def test_the_rule_reads_the_rescaled_rewards():
    """Beta rewards on [0, 1] and the same rewards moved to [2, 10] (dyadic: the rescaling is exact) run alike."""
    env = BetaEnvironment([0.6, 0.5, 0.45], 0.15)
    runs = []
    for low, high in ((0.0, 1.0), (2.0, 10.0)):
        s = make_strategy("tas", {"threshold": "delta-correct"}).start(
            BestArmProblem(3, Bounded(3, low, high, "sub-bernoulli"), FixedConfidence(0.05)), rng=3)
        assert isinstance(s.threshold_, BernoulliLeaderSettledThreshold)
        rng = np.random.default_rng(11)
        while not s.stopped:
            a = s.ask()
            x = np.round(env.sample(a, rng) * 64.0) / 64.0
            s.tell(a, low + (high - low) * x)
        runs.append((s.t_, s.recommendation(), s.model_.counts.tolist(), s.status_))
    assert runs[0] == runs[1] and runs[0][3] == "stopped"


@njit(cache=True)
def _beta_tie_errors(mu, sd, horizon, runs, seed, level, glr_only=False):
    """Near-tie runs of the settled rule on Beta rewards (first two arms tied best): runs stopped with an arm other
    than 0.  Sampling: 40 % uniform, 30 % the best of arms 1.., 30 % the empirical best (as test_leader_settled).
    ``glr_only``: stop instead when the Bernoulli GLR of the empirical best against every other arm exceeds
    ``level`` (no proven rule: the check can fail)."""
    np.random.seed(seed)
    k = mu.shape[0]
    total = mu * (1.0 - mu) / sd**2 - 1.0
    var = np.zeros(k)
    errors = 0
    for _ in range(runs):
        counts = np.zeros(k)
        sums = np.zeros(k)
        state = np.zeros(state_size(k))
        state[:k] = -1.0
        for t in range(horizon):
            if t < k:
                a = t
            else:
                means = sums / counts
                u = np.random.random()
                if u < 0.4:
                    a = np.random.randint(k)
                elif u < 0.7:
                    a = 1 + np.argmax(means[1:])
                else:
                    a = np.argmax(means)
            counts[a] += 1.0
            sums[a] += np.random.beta(mu[a] * total[a], (1.0 - mu[a]) * total[a])
            if t + 1 < k:
                continue
            means = sums / counts
            if glr_only:
                best = np.argmax(means)
                glr = np.inf
                for i in range(k):
                    if i != best:
                        glr = min(glr, pair_cost(BERNOULLI, counts[best], means[best], 0.0, counts[i], means[i], 0.0))
                if glr > level:
                    errors += best != 0
                    break
                continue
            leader_advance(state, counts, sums, means, BERNOULLI, var, STICKY, STICKY)
            if leader_min_margin(state, BERNOULLI, counts, sums, means, var, SCALES, EMAX, CONSTS, level, True,
                                 SCALE_PAIR_WEIGHT) > 0.0:
                errors += np.argmax(means) != 0
                break
    return errors


@pytest.mark.parametrize("sd", [0.4, 0.15])
def test_error_rate_near_ties_with_beta_rewards_is_below_delta(sd):
    """Beta rewards (sd 0.4: U-shaped, near the Bernoulli worst case; sd 0.15: bell-shaped), delta = 0.3."""
    runs, delta = 300, 0.3
    mu = np.array([0.5, 0.5, 0.3, 0.3])
    errors = _beta_tie_errors(mu, sd, 3000, runs, 29, math.log(1 / delta))
    assert binomtest(errors, runs, delta, alternative="greater").pvalue > 0.01
    assert errors < 0.5 * delta * runs
    if sd > 0.3:  # the check can fail: the GLR against ln(1 / delta) alone errs above delta/2 (65 of 300 runs)
        assert _beta_tie_errors(mu, sd, 3000, runs, 29, math.log(1 / delta), True) > 0.5 * delta * runs


def test_error_rate_near_a_tie_through_the_bounded_problem():
    """Through the public path (top-two, reward_model "bounded", statistic "sub-bernoulli"), a near tie at the top
    (0.5 against 0.4, U-shaped Beta rewards): every stop with arm 1 is an error."""
    runs, delta = 40, 0.3
    env = BetaEnvironment([0.5, 0.4, 0.3, 0.3], 0.4)
    problem = BestArmProblem(4, _bounded("sub-bernoulli"), FixedConfidence(delta, max_samples=2000))
    strategy = make_strategy("top-two", {"threshold": "delta-correct"})
    errors = stopped = 0
    for r in range(runs):
        out = run_replication(strategy, env, problem, np.random.SeedSequence(13, spawn_key=(r,)), fast=False)
        stopped += out.status == "stopped"
        errors += out.status == "stopped" and int(out.recommendation) != 0
    assert stopped >= runs // 4  # not vacuous: the rule stops within the cap in many runs
    assert binomtest(errors, runs, delta, alternative="greater").pvalue > 0.01 and errors < delta * runs


TOML = """
name = "bounded-leader"
replications = 3
seed = 5

[problem]
goal = "best-arm"
delta = 0.05
reward_model = "bounded"
reward_range = [0.0, 10.0]
statistic = "{statistic}"

[environment]
kind = "beta"
means = [0.6, 0.45, 0.4]
sd = 0.15

[[strategy]]
name = "tas"
label = "default"
threshold = "delta-correct"
[[strategy]]
name = "tas"
label = "named"
threshold = "{kind}"
"""


def test_cli_run_takes_the_leader_rule_under_sub_bernoulli(tmp_path, capsys):
    path = tmp_path / "b.toml"
    path.write_text(TOML.format(statistic="sub-bernoulli", kind="leader-settled"))
    out = tmp_path / "b.json"
    assert main(["run", str(path), "--jobs", "1", "--json", str(out)]) == 0
    rows = {row["strategy"]: row for row in json.loads(out.read_text())["results"]}
    default, named = rows["default"], rows["named"]
    # the default is the named leader rule: the same runs (same seeds per replication)
    assert default["replications"] == 3 and default["censored"] == 0 and default["correct_rate"] == 1.0
    for key in ("mean_samples", "sd_samples", "median_samples", "mean_allocation"):
        assert default[key] == named[key]


def test_cli_run_refuses_the_leader_rule_under_kl_inf(tmp_path, capsys):
    path = tmp_path / "k.toml"
    path.write_text(TOML.format(statistic="kl-inf", kind="leader-settled"))
    assert main(["run", str(path), "--jobs", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "threshold" in err and "leader-settled" in err
