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
import signal
import threading
from collections.abc import Callable, Mapping

import numpy as np

from pybai._validation import check_array, check_noise_scale, check_positive_float, check_positive_int, fail
from pybai.environments.base import Environment
from pybai.exceptions import PybaiError
from pybai.models.families import Gaussian
from pybai.models.kernels import check_prior_mean, check_covariance

__all__ = ["CallableEnvironment", "RewardFunctionError", "UserCode", "describe_raised", "resolve_callable"]

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
    with UserCode() as guard:
        try:
            obj = importlib.import_module(module_name)
        except ImportError as exc:
            raise fail(name, owner, f"an importable module before ':' ({type(exc).__name__}: {exc})", spec) from None
        except BaseException as exc:  # noqa: BLE001 - the user's module failed at import: SyntaxError, sys.exit()...
            guard.reraise_real_interrupt(exc)
            raise fail(name, owner, f"a module that imports without error (importing {module_name!r} raised "
                       f"{describe_raised(exc)})", spec) from None
        for part in attr_path.split("."):
            try:
                found = hasattr(obj, part)
            except BaseException as exc:  # noqa: BLE001 - a module __getattr__ of the user's
                guard.reraise_real_interrupt(exc)
                raise fail(name, owner, f"a name that can be looked up (looking up {part!r} raised "
                           f"{describe_raised(exc)})", spec) from None
            if not found:
                raise fail(name, owner, f"a name defined in module {module_name!r} (no attribute {part!r})", spec)
            obj = getattr(obj, part)
    if not callable(obj):
        raise fail(name, owner, "the name of a callable", spec)
    return obj


def describe_raised(exc: BaseException) -> str:
    """``"ValueError: boom"``, ``"SystemExit (sys.exit(3))"``, ``"SyntaxError: invalid syntax (m.py, line 2)"``."""
    if isinstance(exc, SystemExit):
        return f"SystemExit (sys.exit({exc.code!r}))" if exc.code is not None else "SystemExit (sys.exit())"
    text = " ".join(str(exc).split())  # one line
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class UserCode:
    """Context of a call into the user's code, telling a real Ctrl-C from a ``KeyboardInterrupt`` it raises.

    Both arrive as ``KeyboardInterrupt`` in the middle of the user's code, so the exception alone
    cannot tell them apart.  In the main thread, while the block runs, the SIGINT handler is
    wrapped by one that notes the signal and then calls the previous handler (which raises
    ``KeyboardInterrupt`` as before): a ``KeyboardInterrupt`` is a real Ctrl-C if SIGINT arrived
    during the block, else the user's code raised it.  Where SIGINT is ignored or left to the
    system (e.g. local workers, which ignore it), no ``KeyboardInterrupt`` can come from a signal.
    Limits: outside the main thread, or when the handler was installed outside Python, the
    handler cannot be wrapped and every ``KeyboardInterrupt`` is taken as a real Ctrl-C (as
    before); a ``KeyboardInterrupt`` the user's code raises after a real Ctrl-C in the same
    block counts as the Ctrl-C.
    """

    def __init__(self):
        self.signalled = False
        self.can_tell = False
        self._previous = None

    def __enter__(self) -> "UserCode":
        if threading.current_thread() is not threading.main_thread():
            return self
        previous = signal.getsignal(signal.SIGINT)
        if previous in (signal.SIG_IGN, signal.SIG_DFL):
            self.can_tell = True  # a signal cannot raise KeyboardInterrupt: any comes from the user's code
        elif callable(previous):
            def note_and_forward(signum, frame):
                self.signalled = True
                return previous(signum, frame)

            signal.signal(signal.SIGINT, note_and_forward)
            self._previous = previous
            self.can_tell = True
        return self

    def __exit__(self, *exc_info) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None

    def real_interrupt(self, exc: BaseException) -> bool:
        """Whether ``exc`` is a Ctrl-C of the user (to propagate) rather than a failure of their code."""
        return isinstance(exc, KeyboardInterrupt) and (self.signalled or not self.can_tell)

    def reraise_real_interrupt(self, exc: BaseException) -> None:
        if self.real_interrupt(exc):
            raise exc


def _named_array(value, name: str):
    """``value``, or the result of calling the function a ``"module:function"`` string names."""
    if not isinstance(value, str):
        return value
    function = resolve_callable(value, name, _OWNER)
    with UserCode() as guard:
        try:
            return function()
        except BaseException as exc:  # noqa: BLE001 - reported with its type and message
            guard.reraise_real_interrupt(exc)
            raise fail(name, _OWNER, f"a function returning it ({describe_raised(exc)})", value) from None


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
    labels : list of str, optional
        One distinct name per arm (:mod:`pybai.naming`).

    Examples
    --------
    >>> import numpy as np
    >>> env = CallableEnvironment(lambda arm, rng: float(arm) + rng.normal(), n_arms=3)
    >>> env.sample(np.array([2, 0]), np.random.default_rng(0)).shape
    (2,)
    """

    kind = "callable"

    def __init__(self, function, n_arms, *, params=None, sigma=1.0, means=None, covariance=None, eta=1.0,
                 prior_mean=0.0, labels=None):
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
        self._set_labels(labels, n)

    def _resolve(self) -> Callable:
        if self._function is None:
            target = resolve_callable(self.function_spec, "function", _OWNER)
            if self.params is not None:
                with UserCode() as guard:
                    try:
                        target = target(**self.params)
                    except BaseException as exc:  # noqa: BLE001 - reported with its type and message
                        guard.reraise_real_interrupt(exc)
                        raise fail("params", _OWNER, f"accepted by the factory ({describe_raised(exc)})",
                                   self.params) from None
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
        return self._with_labels(out)

    def _sample(self, sources, rng):
        function = self._resolve()
        out = np.empty(len(sources))
        where = f"environment.function: the reward function {self.function_name}"
        with UserCode() as guard:
            for i, arm in enumerate(np.asarray(sources).tolist()):
                try:
                    value = function(int(arm), rng)
                except BaseException as exc:  # noqa: BLE001 - wrapped with the arm and the cause
                    # SystemExit and KeyboardInterrupt raised by the user's function are its
                    # failure too; only a real Ctrl-C (see UserCode) interrupts the run.
                    guard.reraise_real_interrupt(exc)
                    raise RewardFunctionError(f"{where} raised for arm {arm}: {describe_raised(exc)}") from exc
                try:
                    reward = float(value)
                except (TypeError, ValueError):
                    raise RewardFunctionError(f"{where} returned a non-number for arm {arm}: {value!r}") from None
                if not math.isfinite(reward):
                    raise RewardFunctionError(f"{where} returned a non-finite value for arm {arm}: {reward!r}")
                out[i] = reward
        return out
