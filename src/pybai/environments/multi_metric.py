"""Arms whose one observation carries several metrics, correlated through a Gaussian copula.

Each metric has its own law per arm, given as a one-metric environment (Gaussian, Bernoulli,
Binomial or Beta arms).  An observation of arm k draws a latent vector z ~ N(0, R) (R the
``correlation`` matrix, the identity by default) and turns each coordinate into its metric's reward
by the metric's quantile function at Phi(z_m): the metrics keep their laws and are dependent as
the Gaussian copula of R makes them (for a Gaussian metric the reward is mean + sd z_m, so R is
exactly the correlation between Gaussian metrics; between discrete metrics the correlation of the
rewards is smaller in magnitude than R's).
"""

from __future__ import annotations

import numpy as np
from scipy import special

from pybai._validation import check_array, fail
from pybai.environments.base import Environment
from pybai.environments.bernoulli import BernoulliEnvironment
from pybai.environments.beta import BetaEnvironment
from pybai.environments.binomial import BinomialEnvironment
from pybai.environments.gaussian import GaussianEnvironment
from pybai.models.families import Gaussian

__all__ = ["MultiMetricEnvironment", "METRIC_KINDS"]

#: the one-metric environments a metric may be, by ``kind``
METRIC_KINDS = {"gaussian": GaussianEnvironment, "bernoulli": BernoulliEnvironment,
                "binomial": BinomialEnvironment, "beta": BetaEnvironment}


class MultiMetricEnvironment(Environment):
    """K arms, M metrics per observation; sources are the (arm, metric) pairs, ``k * M + m``.

    Parameters
    ----------
    metrics : dict of str to Environment
        Metric name -> one-metric environment of the same K arms (Gaussian, Bernoulli, Binomial or
        Beta), in the order of the observation (the first is the objective of a guardrail problem).
    correlation : array-like of shape (M, M), optional
        Correlation matrix of the Gaussian copula: symmetric, unit diagonal, positive semi-definite.
    labels : list of str, optional
        One distinct name per arm.

    Examples
    --------
    >>> env = MultiMetricEnvironment({"conversion": BernoulliEnvironment([0.1, 0.12]),
    ...                               "latency": GaussianEnvironment([240.0, 260.0], 20.0)},
    ...                              correlation=[[1.0, -0.5], [-0.5, 1.0]])
    >>> sources, rewards = env.respond(np.array([1]), np.random.default_rng(0))
    >>> sources.tolist(), rewards.shape
    ([2, 3], (2,))
    """

    kind = "multi-metric"

    def __init__(self, metrics, correlation=None, *, labels=None):
        owner = "MultiMetricEnvironment"
        if not isinstance(metrics, dict) or not metrics:
            raise fail("metrics", owner, "a non-empty dict of metric name -> one-metric environment", metrics)
        kinds = tuple(METRIC_KINDS.values())
        sizes = set()
        for name, env in metrics.items():
            if not isinstance(name, str) or not name.strip():
                raise fail("metrics", owner, "metric names that are non-empty strings", name)
            if type(env) not in kinds:
                raise fail("metrics", owner, "one-metric environments (Gaussian, Bernoulli, Binomial or Beta)", env)
            sizes.add(env.n_sources)
        if len(sizes) != 1:
            raise fail("metrics", owner, "metrics over the same number of arms", sorted(sizes))
        self.metrics = dict(metrics)
        self.names = tuple(metrics)
        self.n_arms = sizes.pop()
        M = len(self.names)
        self.correlation = np.eye(M) if correlation is None else _check_correlation(correlation, M, owner)
        values, vectors = np.linalg.eigh(self.correlation)
        self._root = vectors * np.sqrt(np.clip(values, 0.0, None))  # R = root @ root.T
        self._means = np.stack([env.source_means for env in self.metrics.values()], axis=1)  # (K, M)
        self._laws = [_law(env) for env in self.metrics.values()]  # per metric, for one observation in scalars
        self._set_labels(labels, self.n_arms)

    @property
    def source_means(self) -> np.ndarray:
        return self._means.ravel()

    def family(self):
        """Gaussian sources with each metric's standard deviation (what a known-variance learner assumes)."""
        sd = np.stack([np.sqrt(_variances(env)) for env in self.metrics.values()], axis=1)
        return Gaussian(sd.ravel(), n_sources=sd.size)

    def metric_models(self) -> list[dict]:
        """What a learner may know of each metric: its name and reward model (``Metric`` keywords)."""
        out = []
        for name, env in self.metrics.items():
            if isinstance(env, GaussianEnvironment):  # the largest sd: a valid sub-Gaussian scale for every arm
                out.append({"name": name, "reward_model": "gaussian", "sigma": float(env.sigma.max())})
            elif isinstance(env, BernoulliEnvironment):
                out.append({"name": name, "reward_model": "bernoulli"})
            else:  # binomial proportions, beta rewards: in [0, 1]
                out.append({"name": name, "reward_model": "bounded", "reward_range": [0.0, 1.0]})
        return out

    def structure(self) -> dict:
        return self._with_labels({"n_arms": self.n_arms, "environment_metrics": self.metric_models()})

    def _observe(self, arms: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Rewards (n, M) of one observation of each of ``arms``."""
        z = rng.standard_normal((arms.shape[0], len(self.names))) @ self._root.T
        if arms.shape[0] == 1:
            return self._observe_one(int(arms[0]), z)
        return self._observe_rows(arms, z)

    def _observe_rows(self, arms: np.ndarray, z: np.ndarray) -> np.ndarray:
        """Rewards (n, M) of ``arms`` from their latent rows ``z`` (n, M), each metric's quantile function at Phi(z)."""
        out = np.empty_like(z)
        for m, env in enumerate(self.metrics.values()):
            zm = z[:, m]
            if isinstance(env, GaussianEnvironment):
                out[:, m] = env.means[arms] + env.sigma[arms] * zm
                continue
            u = special.ndtr(zm)
            if isinstance(env, BernoulliEnvironment):
                out[:, m] = (u > 1.0 - env.means[arms]).astype(float)  # the quantile function of Bernoulli(p)
            elif isinstance(env, BinomialEnvironment):
                from scipy import stats  # here: scipy.stats costs ~1 s to import; only binomial metrics use it

                out[:, m] = stats.binom.ppf(u, env.trials, env.means[arms]) / env.trials
            else:
                out[:, m] = special.betaincinv(env.a[arms], env.b[arms], u)
        return out

    def _observe_one(self, k: int, z: np.ndarray) -> np.ndarray:
        """:meth:`_observe` of one observation of arm ``k`` from its latent row ``z`` (1, M): the same operations on
        Python floats (IEEE doubles, as numpy's), without the per-metric array calls."""
        row = z[0].tolist()
        out = []
        for m, (kind, first, second) in enumerate(self._laws):
            zm = row[m]
            if kind == "gaussian":
                out.append(first[k] + second[k] * zm)
            elif kind == "bernoulli":
                out.append(1.0 if special.ndtr(zm) > 1.0 - first[k] else 0.0)
            elif kind == "beta":
                out.append(float(special.betaincinv(first[k], second[k], special.ndtr(zm))))
            else:  # binomial: the array form (scipy.stats)
                from scipy import stats

                env = first
                out.append(float(stats.binom.ppf(special.ndtr(z[:, m]), env.trials, env.means[[k]])[0] / env.trials))
        return np.array([out])

    def _sample(self, sources, rng):
        """Rewards of single sources (each from its own observation; the learner is answered by :meth:`respond`)."""
        M = len(self.names)
        arms = np.asarray(sources) // M
        return self._observe(arms, rng)[np.arange(arms.shape[0]), np.asarray(sources) % M]

    def respond(self, requests, rng):
        """One observation per requested arm: the arm's M sources, in metric order, and their rewards."""
        arms = np.asarray(requests, dtype=np.intp)
        M = len(self.names)
        rewards = self._observe(arms, rng)
        if arms.shape[0] == 1:
            first = int(arms[0]) * M
            return np.arange(first, first + M), rewards.ravel()
        sources = (arms[:, None] * M + np.arange(M)).ravel()
        return sources, rewards.ravel()


def _law(env) -> tuple:
    """(kind, first, second) of a metric for :meth:`MultiMetricEnvironment._observe_one`: Gaussian (means, sd),
    Bernoulli (means, None), Beta (a, b) as lists of floats; Binomial (the environment, None)."""
    if isinstance(env, GaussianEnvironment):
        return "gaussian", env.means.tolist(), env.sigma.tolist()
    if isinstance(env, BernoulliEnvironment):
        return "bernoulli", env.means.tolist(), None
    if isinstance(env, BinomialEnvironment):
        return "binomial", env, None
    return "beta", env.a.tolist(), env.b.tolist()


def _variances(env) -> np.ndarray:
    if isinstance(env, GaussianEnvironment):
        return env.sigma ** 2
    return np.asarray(env.reward_variances if hasattr(env, "reward_variances") else env.means * (1 - env.means))


def _check_correlation(value, M: int, owner: str) -> np.ndarray:
    R = check_array(value, "correlation", owner, shape=(M, M), low=-1.0, high=1.0)
    if not np.allclose(R, R.T, atol=1e-12) or not np.allclose(np.diag(R), 1.0, atol=1e-12):
        raise fail("correlation", owner, f"a symmetric {M} x {M} matrix with ones on the diagonal", R.tolist())
    smallest = float(np.linalg.eigvalsh(R).min())
    if smallest < -1e-10:
        raise fail("correlation", owner, f"a positive semi-definite matrix (its smallest eigenvalue is {smallest:.4g})",
                   R.tolist())
    return (R + R.T) / 2.0
