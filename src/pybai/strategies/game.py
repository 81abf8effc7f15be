"""Pure exploration as a game: AdaHedge against nature's best response (Degenne, Koolen & Menard 2019)."""

from __future__ import annotations

import math

import numpy as np

from pybai._validation import check_choice, check_positive_float, fail
from pybai.strategies.base import StateArray, Strategy
from pybai.strategies._compiled import CompiledRun
from pybai.strategies._driver import GAME, rule_state
from pybai.strategies._game_kernels import adahedge_update, adahedge_weights, game_step, game_stretch, optimistic_gains
from pybai.strategies.registry import register
from pybai.strategies.tracking import Tracker, geometric_chunk, resolve_exploration

__all__ = ["GameSampling", "adahedge_weights", "adahedge_update"]


@register
class GameSampling(CompiledRun, Strategy):
    """Sampling by solving the lower-bound game max_w inf_lambda sum_s w_s d(mu_s, lambda_s).

    The sampler runs AdaHedge over the requests; at each step nature best-responds with the
    closest alternative lambda* to the empirical means under the sampler's weights (the
    problem's :meth:`~pybai.problems.base.Problem.alt_gradient`), the sampler gains
    d(mu_hat_s, lambda*_s) per source (made optimistic by
    (sqrt(d) + sqrt(ln(t) / N_s))^2, the confidence-interval bonus of
    Degenne, Koolen & Menard 2019 in its Gaussian form, with ``optimism="ucb"``), and the cumulative weights are
    C-tracked.  No oracle is solved: one best response per step, so it is much cheaper
    than Track-and-Stop where the oracle is an optimisation (subpopulation constraints).

    Parameters
    ----------
    optimism : {"none", "ucb"}, default "none"
        ``"ucb"`` is the analysed variant (optimistic gains); it explores much more in
        practice (docs/strategies.md), so the default relies on the forced exploration of
        C-tracking instead.  On a linear problem the confidence width of arm a is that of
        x_a^T theta_hat, ||x_a||^2_{A_t^-1} (LinGame, Degenne et al. 2020), not 1/N_a: the gain
        becomes (sqrt(d_a) + sqrt(ln(t) ||x_a||^2_{A_t^-1}))^2 (both on the scale
        (x^T(theta - lambda))^2 / 2 sigma^2; with A_t = diag(N) this is the per-arm bonus).
    exploration : {"auto", "arms", "design", "none"}, default "auto"
        How the C-tracking of the cumulative weights explores: ``"arms"``, the projection of
        each round's weights on {w_a >= eps_t} (every arm about sqrt(t) times); ``"design"``
        (linear problems), the forced exploration of the design matrix of Jedra & Proutiere
        (2020) with unprojected tracking (:mod:`pybai.strategies.design_exploration`);
        ``"none"`` (linear problems, with ``optimism="ucb"``), unprojected tracking and no
        forcing -- LinGame as published, where optimism does the exploring.  ``"auto"``:
        ``"design"`` on linear problems, ``"arms"`` otherwise.
    threshold : {"heuristic", "delta-correct"} or None, default None (unset: see Strategy)
    n_init : int, default 1
    check_growth : float, default 0
        0: one AdaHedge round per sample, the stopping rule checked after every sample.  g > 0:
        the lazy variant for long runs (linear bandits, 1e5+ samples): the estimate is updated and
        the stopping rule checked only at the geometric times t_{k+1} = ceil((1 + g) t_k), and the
        stretch in between is asked as one request.  On problems with a compiled best response
        (:meth:`~pybai.problems.base.Problem.best_response_kernel`: linear bandits) the game is
        still played one round per sample within the stretch -- AdaHedge weights, nature's best
        response to them and a tracking step, at the stretch's estimate -- so only the estimate is
        lazy.  On the others the stretch is one round: one best response, one AdaHedge update with
        the stretch's loss (a stale opponent for the whole stretch; docs/linear.md measures the
        difference: 278,709 against 96,879 samples on the w = 0.01, d = 5 instance).

    On a linear problem this is LinGame (Degenne, Menard, Shang & Valko 2020): nature's best response
    is the closest alternative of :meth:`~pybai.problems.linear.LinearBestArmProblem.alt_gradient`.
    Two readings differ from the published algorithm: one AdaHedge learner serves every
    empirical answer (LinGame keeps one per answer; the empirical answer settles after a finite
    time, after which both see the same losses), and the default explores by forcing
    (``exploration``) instead of optimism (``optimism="ucb", exploration="none"`` is the
    published form; docs/linear.md measures both).

    References
    ----------
    R. Degenne, P. Menard, X. Shang, M. Valko. Gamification of pure exploration for linear bandits.
    ICML 2020.  R. Degenne, W. M. Koolen, P. Menard. Non-asymptotic pure exploration by solving games.
    NeurIPS 2019.  S. de Rooij, T. van Erven, P. Grunwald, W. M. Koolen. Follow the leader if
    you can, hedge if you must. JMLR 2014.
    """

    # state arrays: the rule writes the private ones, callers get read-only views
    cum_loss_ = StateArray()

    name = "game"
    requires = frozenset()  # the problem's oracle, GLR and best response only: linear problems too
    goals = ("best-arm", "best-feasible-arm", "top-k")
    _state_attrs = ("cum_loss_", "mix_gap_", "tracker_.cumulative_", "tracker_.forced_next_")
    _nonnegative_attrs = ("tracker_.cumulative_",)

    def __init__(self, *, optimism: str = "none", threshold: str | None = None, n_init: int = 1,
                 check_growth: float = 0.0, exploration: str = "auto"):
        super().__init__(threshold=threshold, n_init=n_init)
        self.optimism = optimism
        self.check_growth = check_growth
        self.exploration = exploration

    def _check_params(self, problem):
        super()._check_params(problem)
        owner = type(self).__name__
        check_choice(self.optimism, ("ucb", "none"), "optimism", owner)
        check_positive_float(self.check_growth, "check_growth", owner, allow_zero=True)
        if self.check_growth > 1.0:
            raise fail("check_growth", owner, "a float in [0, 1]", self.check_growth)
        check_choice(self.exploration, ("auto", "arms", "design", "none"), "exploration", owner)
        if problem is not None:
            resolve_exploration(self.exploration, problem.request_space(), owner)
        if self.exploration == "none" and self.optimism != "ucb":
            raise fail("exploration", owner, '"auto", "arms" or "design" unless optimism = "ucb" (without optimism '
                       "or forcing nothing makes the estimate consistent)", self.exploration)

    def _initialize(self):
        n = self.requests_.n_requests
        self._cum_loss_ = np.zeros(n)
        self.mix_gap_ = 0.0
        self._w = np.empty(n)
        self._grad = np.empty(self.problem_.n_sources)
        self._loss = np.empty(n)  # work space of the step
        mode = resolve_exploration(self.exploration, self.requests_, type(self).__name__)
        self.tracker_ = Tracker(self.requests_, rule="C", exploration=mode, check_growth=self.check_growth)

    def _compiled_ok(self) -> bool:
        """The step plays one round per sample with the per-arm C-tracking."""
        return not self.check_growth > 0 and self.tracker_.design is None

    def _rule_state(self):
        return rule_state(GAME, self.problem_.n_sources, optimistic=self.optimism == "ucb",
                          cumulative=self.tracker_._cumulative_, cum_loss=self._cum_loss_, mix_gap=self.mix_gap_)

    def _after_run(self, state) -> None:
        self.mix_gap_ = float(state.mix_gap[0])

    def _select(self):
        g = self._step_goal()
        if g is not None:  # the compiled step (the same function the compiled run calls)
            a, self.mix_gap_ = game_step(g.kind, g.code, self.counts_, self.means_, g.var, g.k, g.c, g.e, self.t_,
                                         self._cum_loss_, float(self.mix_gap_), self.tracker_._cumulative_,
                                         self.optimism == "ucb", self._w, self._grad, self._loss)
            return a
        problem, space = self.problem_, self.requests_
        size = geometric_chunk(self.t_, self.check_growth)
        kernel = problem.best_response_kernel(self.means_) if size > 1 else None
        if kernel is not None:  # the stretch's rounds in one compiled loop, at the current estimate
            return self._play_stretch(kernel, size)
        adahedge_weights(self._cum_loss_, self.mix_gap_, self._w)
        _, g = problem.alt_gradient(self.means_, space.expand(self._w), self._grad)
        if self.optimism == "ucb":
            g = self._optimistic(g)
        gains = space.gains(g)
        self.mix_gap_ = adahedge_update(self._cum_loss_, self.mix_gap_, self._w, -size * gains)
        return self.tracker_.track(self._w, self.counts_, self.t_, self.model_, self.rng_)

    def _play_stretch(self, kernel, size: int) -> np.ndarray:
        """``size`` rounds of the game, each with its own weights and best response (estimate fixed)."""
        best_response, data = kernel
        widths = self._widths() if self.optimism == "ucb" else np.empty(0)
        out = np.empty(size, dtype=np.intp)
        counts = np.asarray(self.requests_.counts(self.counts_), dtype=float)
        tracker, explorer = self.tracker_, self.tracker_.design
        if explorer is not None:
            design = np.ascontiguousarray(self.model_.design_matrix, dtype=np.float64)  # type: ignore[attr-defined]  # a linear model whenever the tracker has a design
            features, spanning, level = explorer.features, explorer.spanning, explorer.level_scale
        else:
            design, features, spanning, level = np.zeros((1, 1)), np.zeros((1, 1)), np.zeros(1, dtype=np.intp), 0.0
        self.mix_gap_, nxt = game_stretch(best_response, data, self._cum_loss_, self.mix_gap_, widths, tracker._cumulative_,
                                          counts, float(self.t_), out, features, design, spanning, level,
                                          int(tracker.forced_next_), explorer is not None)
        tracker.forced_next_ = int(nxt)
        return out

    def _widths(self) -> np.ndarray:
        """Per source, the variance factor of its mean: ||x_a||^2_{A^-1} (linear) or 1/N_a (the model's)."""
        return self.model_.variance_factors()

    def _optimistic(self, g: np.ndarray) -> np.ndarray:
        """Optimistic gains (sqrt(g_a) + sqrt(ln(t) width_a))^2; width_a = ||x_a||^2_{A^-1} (linear) or 1/N_a."""
        out = np.array(g, dtype=float)
        optimistic_gains(out, self._widths(), math.log(max(self.t_, 2)))
        return out
