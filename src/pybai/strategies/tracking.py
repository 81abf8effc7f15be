"""Turning target weights into requests: C- and D-tracking kernels (Garivier & Kaufmann 2016) and the
:class:`Tracker` component that applies them on a problem's request space."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from pybai._validation import fail
from pybai.strategies._views import StateArray
from pybai.strategies.design_exploration import DesignExploration

__all__ = ["project_capped_simplex", "c_tracking_step", "d_tracking_step", "tracking_chunk", "geometric_chunk", "Tracker",
           "resolve_exploration"]


@njit(cache=True)
def project_capped_simplex(w, eps):
    """Euclidean projection of ``w`` (on the simplex) onto {v : v >= eps, sum v = 1}.

    The solution is v_a = max(w_a - eta, eps), with eta found exactly by sorting
    (water-filling).  It moves each coordinate by at most (K - 1) eps, which is what the
    C-tracking analysis of Garivier & Kaufmann (2016, Lemma 7) needs of its projection.
    """
    k = w.shape[0]
    out = np.empty(k)
    if eps <= 0.0:
        out[:] = w
        return out
    order = np.argsort(-w)
    # the j largest coordinates stay above eps: eta = (sum_{top j} w + (K - j) eps - 1) / j
    top = 0.0
    eta = 0.0
    for j in range(1, k + 1):
        top += w[order[j - 1]]
        cand = (top + (k - j) * eps - 1.0) / j
        nxt = w[order[j]] - cand if j < k else -math.inf
        if w[order[j - 1]] - cand > eps and nxt <= eps:
            eta = cand
            break
    else:
        for a in range(k):
            out[a] = 1.0 / k
        return out
    for a in range(k):
        out[a] = max(w[a] - eta, eps)
    return out


@njit(cache=True)
def c_tracking_step(cumulative, counts, w, t):
    """C-tracking: add the eps_t-projection of ``w`` to ``cumulative``; return the next source.

    eps_t = (K^2 + t)^(-1/2) / 2 and A_{t+1} = argmax_a sum_{s<=t} w_a^{eps_s}(s) - N_a(t).
    """
    k = w.shape[0]
    eps = 0.5 / math.sqrt(k * k + t)
    if eps > 1.0 / k:
        eps = 1.0 / k
    v = project_capped_simplex(w, eps)
    best = 0
    best_val = -math.inf
    for a in range(k):
        cumulative[a] += v[a]
        val = cumulative[a] - counts[a]
        if val > best_val:
            best_val = val
            best = a
    return best


@njit(cache=True)
def d_tracking_step(counts, w, t):
    """D-tracking with forced exploration: an under-sampled source, else argmax t w_a - N_a.

    Under-sampled: N_a(t) < sqrt(t) - K/2 (Garivier & Kaufmann 2016, Eq. (13)).
    """
    k = w.shape[0]
    limit = math.sqrt(t) - 0.5 * k
    best = -1
    for a in range(k):
        if counts[a] < limit and (best < 0 or counts[a] < counts[best]):
            best = a
    if best >= 0:
        return best
    best_val = -math.inf
    for a in range(k):
        val = t * w[a] - counts[a]
        if val > best_val:
            best_val = val
            best = a
    return best


@njit(cache=True)
def tracking_chunk(cumulative, counts, w, t, out, cumulative_tracking):
    """``out.shape[0]`` successive tracking steps towards the same target ``w``.

    The lazy form of C-tracking (``cumulative_tracking=True``) or D-tracking: the target is
    computed once for the chunk, each step's choice is counted before the next (``counts`` is
    not modified; ``cumulative`` is, as by the single steps).
    """
    local = counts.copy()
    for i in range(out.shape[0]):
        if cumulative_tracking:
            a = c_tracking_step(cumulative, local, w, t + i)
        else:
            a = d_tracking_step(local, w, t + i)
        local[a] += 1.0
        out[i] = a


def geometric_chunk(t: int, growth: float) -> int:
    """Samples until the next check when checks happen at t_{k+1} = max(t_k + 1, ceil((1 + growth) t_k)).

    ``growth = 0`` checks after every sample.  Checking a GLR stopping rule only at these times
    keeps it delta-correct (a threshold valid at all times is valid at a subset) and delays the
    stop by at most a factor 1 + growth.
    """
    return max(1, math.ceil((1.0 + growth) * max(t, 1)) - t) if growth > 0 else 1


class Tracker:
    """Target weights -> requests: the tracking component every weight-tracking rule shares.

    A rule computes target proportions (per request); the tracker turns them into the next
    request(s) on the problem's request space (:meth:`~pybai.problems.base.Problem.request_space`):

    * C-tracking (``rule="C"``, GK16 Eq. (14)) or D-tracking with forced exploration of
      under-sampled requests (``rule="D"``, Eq. (13));
    * forced exploration of the *design* (``exploration="design"``: a spanning set round robin
      when the design matrix is too flat, Jedra & Proutiere 2020) or tracking without forcing
      (``"none"``), on spaces that offer a design;
    * lazy stretches: with ``check_growth = g > 0`` a whole stretch up to the next geometric
      check is asked at once towards one target; with ``oracle_growth = h > 0`` (with or without
      ``check_growth``) the target is recomputed only once t has grown by the factor 1 + h since
      the last computation, and the stored target is tracked in between (see :meth:`select`);
    * cells drawn at random: with ``random_cells`` on a space whose arm view draws cells (the
      "pair" model of subpopulations), the arms are tracked and each request is the cell of the
      chosen arm with a subpopulation drawn from the rule's rng.

    Its state (``cumulative_``, ``lazy_weights_``, ``lazy_until_``, ``forced_next_``) is saved
    with the rule's (``"tracker_.cumulative_"`` in a rule's ``_state_attrs``).

    Parameters
    ----------
    space : RequestSpace
    rule : {"C", "D"}
    exploration : {"arms", "design", "none"}
        A value of ``space.explorations`` (resolve ``"auto"`` with :func:`resolve_exploration` first).
    random_cells : bool
    check_growth, oracle_growth : float
    """

    # state arrays: written here under the private names, read-only to callers
    cumulative_ = StateArray()
    lazy_weights_ = StateArray()

    def __init__(self, space, *, rule: str = "C", exploration: str = "arms", random_cells: bool = False,
                 check_growth: float = 0.0, oracle_growth: float = 0.0):
        view = space.arm_view() if random_cells else None
        self._cells = None if view is None or view.identity else view
        self._space = space
        self._cumulative_rule = rule == "C"
        self._check_growth = check_growth
        self._lazy = oracle_growth > 0
        self._oracle_growth = oracle_growth
        self._design = None
        if exploration != "arms":
            features, spanning = space.design()
            self._design = DesignExploration(features, spanning, forced=exploration == "design")
        n = space.n_requests if self._cells is None else self._cells.n_arms
        self._cumulative_ = np.zeros(n)
        self._lazy_weights_ = None
        self.lazy_until_ = 0
        self.forced_next_ = 0

    @property
    def lazy(self) -> bool:
        """Whether the target is recomputed only once t has grown by the factor 1 + ``oracle_growth``."""
        return self._lazy

    @property
    def design(self):
        """The :class:`~pybai.strategies.design_exploration.DesignExploration` in use, or None."""
        return self._design

    def _stretch_weights(self, w, t: int):
        """With lazy oracle updates: keep the stretch's weights until t reaches ``lazy_until_``."""
        if self._lazy_weights_ is None or t >= self.lazy_until_:
            self._lazy_weights_ = w
            self.lazy_until_ = int(np.ceil(t * (1.0 + self._oracle_growth)))
        return self._lazy_weights_

    def select(self, target, counts: np.ndarray, t: int, model, rng: np.random.Generator):
        """The next request(s) towards ``target()`` (per request), called only when needed.

        ``target`` is a callable: with lazy oracle updates (``oracle_growth = h > 0``) it is called
        at t_0 (the first selection) and then only at the first selection with t >= (1 + h) t_k
        (t_k the time of the last call); in between the weights of t_k are tracked.  The targets
        are called O(log(t) / log(1 + h)) times in a run of t samples instead of t times.  This
        keeps what the tracking analysis needs: the weights tracked at t are the plug-in weights
        w*(mu_hat(t_k)) of a time t_k >= t / (1 + h) - 1, which tends to infinity with t, so when
        mu_hat(t) -> mu and w* is continuous at mu they still converge to w*(mu) (Garivier &
        Kaufmann 2016, Thm. 14 and its tracking Lemmas 7-8 use only this convergence; Jedra &
        Proutiere 2020 prove asymptotic optimality of Track-and-Stop with such lazy updates).
        ``counts`` are the samples per source, ``model`` the problem's model (its design matrix
        for the forced exploration of the design), ``rng`` the rule's stream (cell draws).
        """
        lazy = self._lazy and self._cells is None
        if lazy and self._lazy_weights_ is not None and t < self.lazy_until_:
            w = self._lazy_weights_
        else:
            w = target()
        return self.track(w, counts, t, model, rng, lazy=lazy)

    def track(self, w, counts: np.ndarray, t: int, model, rng: np.random.Generator, *, lazy: bool = False):
        """The next request(s) towards the weights ``w`` (per request); see :meth:`select`."""
        if self._cells is not None:  # track the arms, the subpopulation arrives at random
            cells = self._cells
            arm_w, arm_counts = cells.arm_weights(w), cells.arm_counts(counts)
            if self._cumulative_rule:
                arm = c_tracking_step(self._cumulative_, arm_counts, arm_w, float(t))
            else:
                arm = d_tracking_step(arm_counts, arm_w, float(t))
            return cells.random_cell(arm, rng)
        if lazy:
            w = self._stretch_weights(w, t)
        growth = self._check_growth
        requests = self._space.counts(counts)
        if self._design is not None:
            size = geometric_chunk(t, growth)
            out, self.forced_next_ = self._design.chunk(self._cumulative_, requests, w, t, size, model.design_matrix,
                                                        self.forced_next_, self._cumulative_rule)
            return out if growth > 0 else int(out[0])
        if growth > 0:
            out = np.empty(geometric_chunk(t, growth), dtype=np.intp)
            tracking_chunk(self._cumulative_, requests, w, float(t), out, self._cumulative_rule)
            return out
        if self._cumulative_rule:
            return c_tracking_step(self._cumulative_, requests, w, float(t))
        return d_tracking_step(requests, w, float(t))


def resolve_exploration(exploration: str, space, owner: str) -> str:
    """``exploration`` checked against the space's forced explorations, ``"auto"`` resolved."""
    if exploration == "auto":
        return space.default_exploration
    if exploration not in space.explorations:
        choices = ", ".join(f'"{e}"' for e in ("auto",) + tuple(space.explorations))
        raise fail("exploration", owner, f"one of {choices} on this problem (design forcing needs a linear "
                   "problem: known arm features)", exploration)
    return exploration
