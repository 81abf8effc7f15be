"""An environment whose rewards come from any Python callable ``f(arm, rng) -> float``.

Used for real black-box problems simulated in Python, e.g. model selection with
scikit-learn (a pull trains a model on a random split and returns minus its test error).  The
callable may be given directly or by a ``"module:function"`` string (as in experiment files);
with ``params`` the named object is a factory called once as ``factory(**params)`` to build the
reward function.  Given by a string, the environment pickles as the string and rebuilds the
function on first use, so it can cross process boundaries even when the built function is a
closure.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Mapping

import numpy as np

from pybai._validation import check_array, check_noise_scale, check_positive_float, check_positive_int, fail
from pybai.environments.base import Environment
from pybai.exceptions import PybaiError
from pybai.models.families import Gaussian
from pybai.models.kernels import check_prior_mean, check_covariance

__all__ = ["CallableEnvironment", "RewardFunctionError", "resolve_callable"]

_OWNER = "CallableEnvironment"


class RewardFunctionError(PybaiError, RuntimeError):
    """The reward function raised, or returned something that is not a finite number.

    The message names the function, the arm and the error.
    """


def resolve_callable(spec, name: str = "function", owner: str = "") -> Callable:
    """Return the callable named by ``spec``: a callable, or a ``"package.module:attribute"`` string.

    The attribute part may be dotted (``"module:Class.method"``).

    Raises
    ------
    InvalidParameterError
        Malformed string, module not importable, attribute missing or not callable.
    """
    if callable(spec):
        return spec
    if not isinstance(spec, str) or spec.count(":") != 1 or not all(spec.split(":")):
        raise fail(name, owner, "a callable or a 'module:function' string", spec)
    module_name, attr_path = spec.split(":")
    try:
        obj = importlib.import_module(module_name)
    except ImportError as exc:
        raise fail(name, owner, f"an importable module before ':' ({type(exc).__name__}: {exc})", spec) from None
    for part in attr_path.split("."):
        if not hasattr(obj, part):
            raise fail(name, owner, f"a name defined in module {module_name!r} (no attribute {part!r})", spec)
        obj = getattr(obj, part)
    if not callable(obj):
        raise fail(name, owner, "the name of a callable", spec)
    return obj


def _named_array(value, name: str):
    """``value``, or the result of calling the function a ``"module:function"`` string names."""
    if not isinstance(value, str):
        return value
    function = resolve_callable(value, name, _OWNER)
    try:
        return function()
    except Exception as exc:  # noqa: BLE001 - reported with its type and message
        raise fail(name, _OWNER, f"a function returning it ({type(exc).__name__}: {exc})", value) from exc


class CallableEnvironment(Environment):
    """Rewards ``function(arm, rng)`` for each requested arm.

    Parameters
    ----------
    function : callable or str
        ``f(arm: int, rng: numpy.random.Generator) -> float``, or a ``"module:function"``
        string naming it (or naming a factory, with ``params``).
    n_arms : int >= 2
    params : mapping, optional
        If given, ``function`` is a factory and the reward function is ``function(**params)``.
    sigma : float > 0, default 1.0
        Noise standard deviation the learner may assume (the callable's own noise is whatever
        it is).
    means : array-like of shape (K,) or str, optional
        Known or estimated true means (to score recommendations), or a ``"module:function"``
        string naming a function of no argument that returns them.  Without them
        :attr:`source_means` is all NaN: correctness cannot be scored, only what the callable
        returns.
    covariance : array-like of shape (K, K) or str, optional
        Prior correlation structure G the learner may use (with ``eta`` and ``prior_mean``,
        as in :class:`~pybai.environments.correlated.CorrelatedGaussianEnvironment`), or a
        ``"module:function"`` string naming a function of no argument that returns it.
    eta : float > 0, default 1.0
    prior_mean : float or array-like of shape (K,), default 0.0

    Examples
    --------
    >>> import numpy as np
    >>> env = CallableEnvironment(lambda arm, rng: float(arm) + rng.normal(), n_arms=3)
    >>> env.sample(np.array([2, 0]), np.random.default_rng(0)).shape
    (2,)
    """

    kind = "callable"

    def __init__(self, function, n_arms, *, params=None, sigma=1.0, means=None, covariance=None, eta=1.0,
                 prior_mean=0.0):
        self.n_arms = check_positive_int(n_arms, "n_arms", _OWNER, minimum=2)
        if params is not None and not isinstance(params, Mapping):
            raise fail("params", _OWNER, "a table of keyword arguments of the factory", params)
        self.function_spec = function
        self.params = None if params is None else dict(params)
        self._function = None
        self._resolve()  # validate now: a bad name fails at construction, not mid-run
        self.sigma = float(check_noise_scale(check_positive_float(sigma, "sigma", _OWNER), None, "sigma", _OWNER))
        n = self.n_arms
        means = _named_array(means, "means")
        covariance = _named_array(covariance, "covariance")
        if means is None:
            self.means = np.full(n, np.nan)
        else:
            self.means = check_array(means, "means", _OWNER, shape=(n,))
        self.covariance = None if covariance is None else check_covariance(covariance, "covariance", _OWNER, n=n)
        self.eta = check_positive_float(eta, "eta", _OWNER)
        self.prior_mean = check_prior_mean(prior_mean, n, _OWNER)

    def _resolve(self) -> Callable:
        if self._function is None:
            target = resolve_callable(self.function_spec, "function", _OWNER)
            if self.params is not None:
                try:
                    target = target(**self.params)
                except Exception as exc:  # noqa: BLE001 - reported with its type and message
                    raise fail("params", _OWNER, f"accepted by the factory ({type(exc).__name__}: {exc})",
                               self.params) from exc
                if not callable(target):
                    raise fail("function", _OWNER, "a factory returning a callable f(arm, rng)", self.function_spec)
            self._function = target
        return self._function

    def __getstate__(self):
        state = self.__dict__.copy()
        if isinstance(self.function_spec, str):
            state["_function"] = None  # rebuilt from the string on first use
        return state

    @property
    def function_name(self) -> str:
        spec = self.function_spec
        return spec if isinstance(spec, str) else getattr(spec, "__qualname__", repr(spec))

    @property
    def n_sources(self) -> int:
        return self.n_arms

    @property
    def source_means(self) -> np.ndarray:
        return self.means

    def family(self) -> Gaussian:
        return Gaussian(self.sigma, n_sources=self.n_arms)

    def structure(self) -> dict:
        """What the learner knows: K, the assumed noise, and the prior when a covariance is given."""
        out = {"n_arms": self.n_arms, "family": self.family()}
        if self.covariance is not None:
            out.update(covariance=self.covariance, sigma=self.sigma, eta=self.eta, prior_mean=self.prior_mean)
        return out

    def _sample(self, sources, rng):
        function = self._resolve()
        out = np.empty(len(sources))
        for i, arm in enumerate(np.asarray(sources).tolist()):
            try:
                value = function(int(arm), rng)
            except Exception as exc:  # noqa: BLE001 - wrapped with the arm and the cause
                raise RewardFunctionError(
                    f"The reward function {self.function_name} raised for arm {arm}: {type(exc).__name__}: {exc}"
                ) from exc
            try:
                reward = float(value)
            except (TypeError, ValueError):
                raise RewardFunctionError(
                    f"The reward function {self.function_name} returned a non-number for arm {arm}: {value!r}"
                ) from None
            if not math.isfinite(reward):
                raise RewardFunctionError(
                    f"The reward function {self.function_name} returned a non-finite value for arm {arm}: {reward!r}"
                )
            out[i] = reward
        return out
