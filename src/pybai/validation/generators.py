"""Random instance generators of the validation suite, one per goal and reward family.

A generator is an :class:`InstanceFamily`: a name, the goal, a risk ``delta`` at which the
fixed-confidence checks run, a ``max_samples`` cap, and a ``draw(rng)`` that returns an
:class:`Instance` (an environment and a problem factory).  ``FAMILIES`` is the registry;
a new goal or family adds its generator with :func:`register_family` (the linear, batch and
other families as they land) and ``pybai validate`` then checks every strategy that declares
the goal on it.

The generators (every random choice from the ``rng`` passed in):

* ``gaussian-best-arm``: K uniform in {2, ..., 6}; per-arm noise sd log-uniform in [0.5, 2];
  best arm at a random position with mean 0, the others below it by gaps uniform in
  [0.3, 1.5] (in units of the larger of the two sds); delta = 0.2.
* ``bernoulli-best-arm``: K uniform in {2, ..., 5}; means in one of three regions drawn with
  equal probability: near 0 (best mean uniform in [0.05, 0.15], others in [0.005, best - 0.03]),
  near 1 (the mirror image) or in the middle (best in [0.4, 0.8], gaps in [0.08, 0.3]);
  delta = 0.2.
* ``close-arms``: two or three Gaussian arms (sd 1) within 0.1 to 0.25 of each other, and a
  large risk delta = 0.4, where errors are frequent enough for the test to have power.
* ``tied-best``: three Gaussian arms (sd 1) with two tied best means; no answer can be certified,
  so the suite reports how often a run stops before ``max_samples`` (no error rate).
* ``top-k``: K uniform in {3, ..., 6}, k uniform in {1, ..., K - 1}, Gaussian arms (sd 1), the
  k top means at least 0.4 above the rest; delta = 0.2.
* ``subpopulation``: K in {2, 3} arms x L in {2, 3} subpopulations (Gaussian cells, sd 0.5, cell
  means uniform in [0.3, 1.5], weights Dirichlet(2)), every subpopulation constrained with floor 0,
  in three cases drawn with equal probability: a feasible best arm; the arm of best quality made
  infeasible (its least-weighted cell moved below the floor, its other cells raised by 1) so the
  answer is another, feasible arm; no feasible arm (one cell of every arm below the floor, answer
  -1).  The label says which case the truth is in.  delta = 0.2.
* ``guardrails``: K uniform in {2, ..., 4} arms with three metrics per observation: revenue (the
  objective, Gaussian sd 1, means increasing by gaps uniform in [0.3, 1]), latency (Gaussian sd 1,
  guardrail at most 0) and refunds (Bernoulli, at most the control's rate + 0.1; rates within 0.05
  below the control's), correlated through a Gaussian copula with correlations uniform in [-0.8, 0.8]
  (only the revenue-latency one when the three are not positive semi-definite), in four cases drawn
  with equal probability: every arm keeps the latency bound (latencies -0.8 to -0.3); the best revenue
  breaks it; no arm keeps it (answer -1); a worse arm exactly on the bound.  delta = 0.2.
* ``guardrails-unknown-variance``: drawn as the ``guardrails`` instances, then one latency sd per arm
  uniform in [0.5, 2] (the latency means multiplied by it), and the learner declares the latency
  ``reward_model = "gaussian-unknown-variance"`` (revenue known sigma 1, refunds Bernoulli: three reward
  models in one observation).  delta = 0.2; runs censored at 5,000 observations (two-stage never ends on the
  on-bound case).
* ``linear``: d uniform in {2, 3}, K = d + 1 to d + 3 arms with standard normal features
  (the first d rows made the canonical basis, so the features span R^d), theta standard normal
  rescaled so that the best arm's mean exceeds the second's by a gap uniform in [0.4, 1.0];
  noise sd 1; delta = 0.2.  Strategies that treat arms as independent refuse it (n/a).
* ``unknown-variance``: ``gaussian-best-arm``'s instances with per-arm sd log-uniform in [0.25, 4]
  (a 16-fold range), learned under ``reward_model = "gaussian-unknown-variance"`` (the learner
  estimates every variance); delta = 0.2.
* ``unknown-variance-top-k``: ``top-k``'s instances with per-arm sd log-uniform in [0.5, 2], the
  k top means at least 0.4 sd above the rest, under the same reward model; delta = 0.2.
* ``eps-gaussian``: epsilon-best-arm identification (additive): K uniform in {2, ..., 5} Gaussian
  arms (sd 1), epsilon uniform in [0.2, 0.4], best mean 0 at a random position, in three cases
  drawn with equal probability: an exact tie at the top (a second arm at 0), a near tie (a second
  arm within epsilon / 4), or separated (no second epsilon-good arm); the other arms are below the
  best by epsilon times a factor uniform in [1.1, 2.5], so they are just outside the answer set,
  where a wrong stop is most likely; delta = 0.2.  Correct = epsilon-good.
* ``eps-bernoulli``: the same three cases with Bernoulli arms and a *relative* epsilon uniform in
  [0.15, 0.3]: best mean uniform in [0.5, 0.9], second arm tied, within (epsilon / 4) of the best
  mean below it, or absent; the others at (1 - epsilon f) times the best, f uniform in [1.1, 2.5];
  delta = 0.2.
* ``batch-top-k``: Bernoulli top-k with (b, r)-batch pulls: K uniform in {4, ..., 8}, k uniform
  in {1, ..., K - 1}, the k top means uniform in [0.6, 0.9], the rest in [0.1, 0.4]; b uniform
  in {2, 4, 8}, r uniform in {1, ..., b}; delta = 0.2; fixed budgets of 10, 40 and 160 batches.
  Sequential strategies refuse it (n/a).
* ``bounded-beta``, ``bounded-uniform``, ``bounded-two-point`` (reward model ``"bounded"`` on
  [0, 1]): K uniform in {2, ..., 4}, the best mean uniform in [0.3, 0.7] and the others
  below it by gaps uniform in [0.1, 0.3]; the statistic ``"kl-inf"`` or ``"sub-bernoulli"`` drawn
  with equal probability (the label says which).  Beta arms with sd uniform in [0.05, 0.2] (capped
  below sqrt(m (1 - m))); uniform arms on [m - h, m + h] with h uniform in (0, min(m, 1 - m)];
  two-point arms on {lo, hi} with lo uniform in [0, 0.1] and hi in [0.9, 1] (the hardest laws for
  the sub-Bernoulli bounds).  delta = 0.2.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from pybai._validation import fail
from pybai.environments.bernoulli import BernoulliEnvironment
from pybai.environments.beta import BetaEnvironment
from pybai.environments.bounded import TwoPointEnvironment, UniformEnvironment
from pybai.environments.gaussian import GaussianEnvironment
from pybai.environments.linear import LinearGaussianEnvironment
from pybai.environments.subpopulation import SubpopulationGaussianEnvironment
from pybai.models.families import GaussianUnknownVariance
from pybai.models.bounded import Bounded
from pybai.problems.base import BatchSpec, FixedBudget, FixedConfidence
from pybai.problems.best_arm import BestArmProblem
from pybai.problems.feasible.problem import FeasibleArmProblem
from pybai.problems.linear import LinearBestArmProblem
from pybai.problems.top_k import TopKProblem

__all__ = ["Instance", "InstanceFamily", "FAMILIES", "register_family"]


@dataclass(frozen=True)
class Instance:
    """One validation instance.

    Attributes
    ----------
    label : str
        Short description (means, K, ...).
    environment : Environment
        The hidden truth.
    make_problem : callable
        ``make_problem(regime) -> Problem`` (``FixedConfidence`` or ``FixedBudget``).
    """

    label: str
    environment: Any
    make_problem: Callable[[Any], Any]


@dataclass(frozen=True)
class InstanceFamily:
    """A documented random-instance generator (see the module docstring).

    Attributes
    ----------
    name : str
        Registry key, shown in the validation table.
    goal : str
        Goal of its problems (strategies declaring it are checked on it).
    draw : callable
        ``draw(rng) -> Instance``.
    delta : float
        Risk of the fixed-confidence checks.
    max_samples : int
        Cap of a fixed-confidence run (censored runs count as stopped never, not as errors).
    tied : bool
        True when the instances have no unique answer (stop rates are reported instead).
    budgets : tuple of int
        Budgets of the fixed-budget check (empty: no fixed-budget check on this family).
    epsilon : bool
        True for epsilon-best-arm identification: correct means epsilon-good (the table says so).
    """

    name: str
    goal: str
    draw: Callable[[np.random.Generator], Instance]
    delta: float = 0.2
    max_samples: int = 200_000
    tied: bool = False
    budgets: tuple[int, ...] = field(default_factory=tuple)
    epsilon: bool = False

    def regime(self, budget: int | None = None, max_samples: int | None = None):
        """The fixed-confidence regime of the family (``max_samples`` capped), or a fixed budget."""
        if budget is not None:
            return FixedBudget(budget)
        cap = self.max_samples if max_samples is None else min(self.max_samples, max_samples)
        return FixedConfidence(self.delta, max_samples=cap)


#: The registry: name -> InstanceFamily, in the order of the validation table.
FAMILIES: dict[str, InstanceFamily] = {}


def register_family(family: InstanceFamily) -> InstanceFamily:
    """Add ``family`` to :data:`FAMILIES` (a name can be registered once)."""
    if not isinstance(family, InstanceFamily):
        raise fail("family", "register_family", "an InstanceFamily", family)
    if family.name in FAMILIES and FAMILIES[family.name] is not family:
        raise fail("family", "register_family", "a new name", family.name)
    FAMILIES[family.name] = family
    return family


def _best_arm(env, label):
    return Instance(label, env, lambda regime: BestArmProblem(env.n_sources, env.family(), regime))


def _fmt(values) -> str:
    return "[" + ", ".join(f"{v:.3g}" for v in np.ravel(values)) + "]"


def _gaussian_best_arm(rng: np.random.Generator) -> Instance:
    K = int(rng.integers(2, 7))
    sd = np.exp(rng.uniform(np.log(0.5), np.log(2.0), K))
    best = int(rng.integers(K))
    means = -rng.uniform(0.3, 1.5, K) * np.maximum(sd, sd[best])
    means[best] = 0.0
    return _best_arm(GaussianEnvironment(means, sd), f"mu={_fmt(means)} sd={_fmt(sd)}")


def _bernoulli_best_arm(rng: np.random.Generator) -> Instance:
    K = int(rng.integers(2, 6))
    region = int(rng.integers(3))
    if region == 0:  # near 0
        top = rng.uniform(0.05, 0.15)
        means = rng.uniform(0.005, top - 0.03, K)
    elif region == 1:  # near 1
        top = rng.uniform(0.95, 0.995)
        means = rng.uniform(0.8, top - 0.03, K)
    else:
        top = rng.uniform(0.4, 0.8)
        means = top - rng.uniform(0.08, 0.3, K)
    means[int(rng.integers(K))] = top
    return _best_arm(BernoulliEnvironment(means), f"mu={_fmt(means)}")


def _close_arms(rng: np.random.Generator) -> Instance:
    K = int(rng.integers(2, 4))
    means = -rng.uniform(0.1, 0.25, K)
    means[int(rng.integers(K))] = 0.0
    return _best_arm(GaussianEnvironment(means, 1.0), f"mu={_fmt(means)}")


def _tied_best(rng: np.random.Generator) -> Instance:
    means = np.array([0.0, 0.0, -rng.uniform(0.3, 1.0)])
    rng.shuffle(means)
    return _best_arm(GaussianEnvironment(means, 1.0), f"mu={_fmt(means)}")


def _eps_instance(env, label, eps, mode):
    def make(regime):
        if regime.kind != "fixed-confidence":
            return BestArmProblem(env.n_sources, env.family(), regime)
        return BestArmProblem(env.n_sources, env.family(), regime, epsilon=eps, epsilon_mode=mode)

    return Instance(label, env, make)


_EPS_CASES = ("tie", "near-tie", "separated")


def _eps_gaussian(rng: np.random.Generator) -> Instance:
    K = int(rng.integers(2, 6))
    eps = float(rng.uniform(0.2, 0.4))
    case = _EPS_CASES[int(rng.integers(3))]
    means = -eps * rng.uniform(1.1, 2.5, K)
    order = rng.permutation(K)
    means[order[0]] = 0.0
    if case != "separated" and K > 1:
        means[order[1]] = 0.0 if case == "tie" else -rng.uniform(0.0, eps / 4)
    return _eps_instance(GaussianEnvironment(means, 1.0), f"{case} eps={eps:.3g} mu={_fmt(means)}", eps, "additive")


def _eps_bernoulli(rng: np.random.Generator) -> Instance:
    K = int(rng.integers(2, 5))
    eps = float(rng.uniform(0.15, 0.3))
    case = _EPS_CASES[int(rng.integers(3))]
    top = float(rng.uniform(0.5, 0.9))
    means = top * (1.0 - eps * rng.uniform(1.1, 2.5, K))
    order = rng.permutation(K)
    means[order[0]] = top
    if case != "separated" and K > 1:
        means[order[1]] = top if case == "tie" else top * (1.0 - rng.uniform(0.0, eps / 4))
    return _eps_instance(BernoulliEnvironment(means), f"{case} rel-eps={eps:.3g} mu={_fmt(means)}", eps, "relative")


def _eps_top_k(rng: np.random.Generator) -> Instance:
    """epsilon-top-k (additive): a tie, a near tie (gap < eps / 4) or a gap >= 1.1 eps at the k-th / (k+1)-th boundary."""
    K = int(rng.integers(3, 7))
    k = int(rng.integers(1, K))
    eps = float(rng.uniform(0.2, 0.4))
    case = _EPS_CASES[int(rng.integers(3))]
    top = rng.uniform(0.0, 1.5 * eps, k)  # the k-th largest mean is 0
    top[int(np.argmin(top))] = 0.0
    bottom = -eps * rng.uniform(1.1, 2.5, K - k)
    if case != "separated":
        bottom[0] = 0.0 if case == "tie" else -rng.uniform(0.0, eps / 4)
    means = np.concatenate((top, bottom))[rng.permutation(K)]
    env = GaussianEnvironment(means, 1.0)

    def make(regime):
        if regime.kind != "fixed-confidence":
            return TopKProblem(K, k, env.family(), regime)
        return TopKProblem(K, k, env.family(), regime, epsilon=eps)

    return Instance(f"{case} k={k} eps={eps:.3g} mu={_fmt(means)}", env, make)


def _top_k(rng: np.random.Generator) -> Instance:
    K = int(rng.integers(3, 7))
    k = int(rng.integers(1, K))
    means = np.concatenate((rng.uniform(0.4, 1.2, k), -rng.uniform(0.0, 0.8, K - k)))
    rng.shuffle(means)
    env = GaussianEnvironment(means, 1.0)
    return Instance(f"k={k} mu={_fmt(means)}", env,
                    lambda regime: TopKProblem(K, k, env.family(), regime))


def _subpopulation(rng: np.random.Generator) -> Instance:
    K, L = int(rng.integers(2, 4)), int(rng.integers(2, 4))
    case = int(rng.integers(3))
    means = rng.uniform(0.3, 1.5, (K, L))  # every cell above the floor 0: all feasible
    q = rng.dirichlet(np.full(L, 2.0))
    if case >= 1:  # the arm of best quality gets one cell below the floor
        top = int(np.argmax(means @ q))
        cell = int(np.argmin(q))
        means[top, cell] = -rng.uniform(0.3, 0.8)
        means[top, np.arange(L) != cell] += 1.0  # and stays the best in quality
    if case == 2:  # every arm violates one floor
        for a in range(K):
            if np.all(means[a] >= 0):
                means[a, int(rng.integers(L))] = -rng.uniform(0.3, 0.8)
    env = SubpopulationGaussianEnvironment(means, q, sigma=0.5)
    feasible = np.all(means >= 0, axis=1)
    best_quality_feasible = bool(feasible[int(np.argmax(means @ q))])
    name = "no-feasible" if not feasible.any() else ("feasible-best" if best_quality_feasible else "infeasible-best")
    return Instance(f"{name} mu={_fmt(means)} q={_fmt(q)}", env,
                    lambda regime: FeasibleArmProblem(**env.structure(), regime=regime))


def _guardrails(rng: np.random.Generator, unknown_variance: bool = False) -> Instance:
    from pybai.environments.multi_metric import MultiMetricEnvironment
    from pybai.problems.guardrails import GuardrailProblem, Metric

    K, case = int(rng.integers(2, 5)), int(rng.integers(4))
    revenue = -np.sort(rng.uniform(0.3, 1.0, K).cumsum())[::-1] + 2.0  # increasing, gaps >= 0.3
    latency = -rng.uniform(0.3, 0.8, K)  # every arm keeps "latency at most 0"
    if case == 1:  # the best revenue breaks the guardrail
        latency[-1] = rng.uniform(0.3, 0.8)
    elif case == 2:  # no arm keeps it
        latency = rng.uniform(0.3, 0.8, K)
    elif case == 3:  # a worse arm exactly on the bound (it keeps the guardrail)
        latency[int(rng.integers(K - 1)) if K > 1 else 0] = 0.0
    refunds = rng.uniform(0.1, 0.3)
    rates = np.full(K, refunds)
    rates[1:] -= rng.uniform(0.0, 0.05, K - 1)  # within the margin 0.1 of the control (arm 0) by at least 0.05
    rho = rng.uniform(-0.8, 0.8, 3)
    R = np.array([[1.0, rho[0], rho[1]], [rho[0], 1.0, rho[2]], [rho[1], rho[2], 1.0]])
    if np.linalg.eigvalsh(R).min() < 0:  # keep the revenue-latency correlation, drop the others
        R[0, 2] = R[2, 0] = R[1, 2] = R[2, 1] = 0.0
    latency_sd, latency_metric = np.ones(K), Metric("latency", sigma=1.0, at_most=0.0)
    if unknown_variance:  # one latency sd per arm, unknown to the learner; the means scaled alike
        latency_sd = rng.uniform(0.5, 2.0, K)
        latency = latency * latency_sd
        latency_metric = Metric("latency", reward_model="gaussian-unknown-variance", at_most=0.0)
    env = MultiMetricEnvironment({"revenue": GaussianEnvironment(revenue),
                                  "latency": GaussianEnvironment(latency, latency_sd),
                                  "refunds": BernoulliEnvironment(rates)}, R)
    metrics = [Metric("revenue", sigma=1.0), latency_metric,
               Metric("refunds", reward_model="bernoulli", at_most_vs_control=0.1)]
    name = ("feasible-best", "infeasible-best", "no-feasible", "on-bound")[case]
    sds = f" latency_sd={_fmt(latency_sd)}" if unknown_variance else ""
    return Instance(f"{name} revenue={_fmt(revenue)} latency={_fmt(latency)}{sds} rho={_fmt(rho)}", env,
                    lambda regime: GuardrailProblem(K, metrics, regime))


def _guardrails_unknown_variance(rng: np.random.Generator) -> Instance:
    return _guardrails(rng, unknown_variance=True)


def _linear(rng: np.random.Generator) -> Instance:
    d = int(rng.integers(2, 4))
    K = d + int(rng.integers(1, 4))
    features = rng.standard_normal((K, d))
    features[:d] = np.eye(d)  # spanning
    theta = rng.standard_normal(d)
    means = np.sort(features @ theta)[::-1]
    gap = float(rng.uniform(0.4, 1.0))
    theta *= gap / max(means[0] - means[1], 1e-3)  # the best arm's gap to the second becomes ``gap``
    env = LinearGaussianEnvironment(features, theta, 1.0)
    return Instance(f"d={d} K={K} theta={_fmt(theta)}", env,
                    lambda regime: LinearBestArmProblem(**env.structure(), regime=regime))


def _unknown_variance(rng: np.random.Generator) -> Instance:
    K = int(rng.integers(2, 7))
    sd = np.exp(rng.uniform(np.log(0.25), np.log(4.0), K))
    best = int(rng.integers(K))
    means = -rng.uniform(0.3, 1.5, K) * np.maximum(sd, sd[best])
    means[best] = 0.0
    env = GaussianEnvironment(means, sd)
    return Instance(f"mu={_fmt(means)} sd={_fmt(sd)}", env,
                    lambda regime: BestArmProblem(K, GaussianUnknownVariance(K), regime))


def _unknown_variance_top_k(rng: np.random.Generator) -> Instance:
    K = int(rng.integers(3, 7))
    k = int(rng.integers(1, K))
    sd = np.exp(rng.uniform(np.log(0.5), np.log(2.0), K))
    means = np.concatenate((rng.uniform(0.4, 1.2, k), -rng.uniform(0.0, 0.8, K - k))) * sd.max()
    order = rng.permutation(K)
    means, sd = means[order], sd[order]
    env = GaussianEnvironment(means, sd)
    return Instance(f"k={k} mu={_fmt(means)} sd={_fmt(sd)}", env,
                    lambda regime: TopKProblem(K, k, GaussianUnknownVariance(K), regime))


def _batch_top_k(rng: np.random.Generator) -> Instance:
    K = int(rng.integers(4, 9))
    k = int(rng.integers(1, K))
    means = np.concatenate((rng.uniform(0.6, 0.9, k), rng.uniform(0.1, 0.4, K - k)))
    rng.shuffle(means)
    b = int(rng.choice([2, 4, 8]))
    r = int(rng.integers(1, b + 1))
    env = BernoulliEnvironment(means)
    return Instance(f"k={k} b={b} r={r} mu={_fmt(means)}", env,
                    lambda regime: TopKProblem(K, k, env.family(), regime, BatchSpec(b, r)))


def _bounded_means(rng: np.random.Generator) -> np.ndarray:
    K = int(rng.integers(2, 5))
    top = rng.uniform(0.3, 0.7)
    means = top - rng.uniform(0.1, 0.3, K)
    means[int(rng.integers(K))] = top
    return means


def _bounded_instance(env, rng: np.random.Generator, label: str) -> Instance:
    statistic = ("kl-inf", "sub-bernoulli")[int(rng.integers(2))]
    return Instance(f"{statistic} {label}", env,
                    lambda regime: BestArmProblem(env.n_sources, Bounded(env.n_sources, 0.0, 1.0, statistic), regime))


def _bounded_beta(rng: np.random.Generator) -> Instance:
    means = _bounded_means(rng)
    sd = np.minimum(rng.uniform(0.05, 0.2, means.size), 0.9 * np.sqrt(means * (1.0 - means)))
    return _bounded_instance(BetaEnvironment(means, sd), rng, f"mu={_fmt(means)} sd={_fmt(sd)}")


def _bounded_uniform(rng: np.random.Generator) -> Instance:
    means = _bounded_means(rng)
    half = np.minimum(means, 1.0 - means) * rng.uniform(0.0, 1.0, means.size)
    return _bounded_instance(UniformEnvironment(means - half, means + half), rng,
                             f"mu={_fmt(means)} half-width={_fmt(half)}")


def _bounded_two_point(rng: np.random.Generator) -> Instance:
    means = _bounded_means(rng)
    lows, highs = rng.uniform(0.0, 0.1, means.size), rng.uniform(0.9, 1.0, means.size)
    return _bounded_instance(TwoPointEnvironment(lows, highs, means), rng,
                             f"mu={_fmt(means)} lo={_fmt(lows)} hi={_fmt(highs)}")


register_family(InstanceFamily("gaussian-best-arm", "best-arm", _gaussian_best_arm, budgets=(40, 160, 640)))
register_family(InstanceFamily("bernoulli-best-arm", "best-arm", _bernoulli_best_arm, budgets=(40, 160, 640)))
register_family(InstanceFamily("close-arms", "best-arm", _close_arms, delta=0.4))
register_family(InstanceFamily("tied-best", "best-arm", _tied_best, max_samples=3_000, tied=True))
register_family(InstanceFamily("top-k", "top-k", _top_k))
register_family(InstanceFamily("subpopulation", "best-feasible-arm", _subpopulation))
register_family(InstanceFamily("linear", "best-arm", _linear))
register_family(InstanceFamily("batch-top-k", "top-k", _batch_top_k, budgets=(10, 40, 160)))
register_family(InstanceFamily("unknown-variance", "best-arm", _unknown_variance))
register_family(InstanceFamily("unknown-variance-top-k", "top-k", _unknown_variance_top_k))
register_family(InstanceFamily("eps-gaussian", "best-arm", _eps_gaussian, max_samples=100_000, epsilon=True))
register_family(InstanceFamily("eps-bernoulli", "best-arm", _eps_bernoulli, max_samples=100_000, epsilon=True))
register_family(InstanceFamily("bounded-beta", "best-arm", _bounded_beta))
register_family(InstanceFamily("bounded-uniform", "best-arm", _bounded_uniform))
register_family(InstanceFamily("bounded-two-point", "best-arm", _bounded_two_point))
register_family(InstanceFamily("eps-top-k", "top-k", _eps_top_k, max_samples=100_000, epsilon=True))
# a family's seeds depend on its place in this list (SeedSequence([seed, place, i])): a new family goes last
register_family(InstanceFamily("guardrails", "best-arm-guardrails", _guardrails,
                               max_samples=5_000))  # as below: two-stage's on-bound runs are censored at 5,000
register_family(InstanceFamily("guardrails-unknown-variance", "best-arm-guardrails", _guardrails_unknown_variance,
                               max_samples=5_000))  # two-stage never ends on the on-bound case: censored at 5,000
