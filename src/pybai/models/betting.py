r"""The model of bounded rewards: rescaled means and variances, and betting wealth on a fixed grid.

Rewards x in [low, high] are rescaled to y = (x - low) / (high - low) in [0, 1] as they arrive;
every statistic below is in those units (the family converts back, :meth:`pybai.models.bounded.Bounded.to_user`).

Per source the model keeps the count N, the sum and the sum of squares of y (bounded numbers: no
cancellation worth a Welford update; the variance is floored at :data:`VARIANCE_FLOOR`), and, for
the proven KL_inf stopping rule (:mod:`pybai.stopping.betting`), the log-wealth of two families of
betting martingales on a **fixed** grid of levels l_i = i / (L - 1), i = 0..L-1, and bets c_j in (0, 1):

    up:   ln W^+_{j,i} = sum_n ln(1 + c_j (y_n - l_i) / l_i)          (bets that the mean is above l_i)
    down: ln W^-_{j,i} = sum_n ln(1 - c_j (y_n - l_i) / (1 - l_i))    (bets that the mean is below l_i)

and their equal-weight mixtures ln M^+_i = ln((1/J) sum_j W^+_{j,i}) (and ln M^-_i).  Under any law
on [0, 1] of mean <= l_i, W^+_{j,i} is a nonnegative supermartingale of initial value 1 (each factor
is >= 1 - c_j > 0 and has expectation 1 + c_j (mean - l_i) / l_i <= 1); the mirror holds for W^-.
The grid and the bets do not depend on the data, so the tables are updated in place, exactly:
**memory O(J L) per source (J = 25 bets, L = 401 levels by default: 2 x 25 x 401 floats, about
160 kB per source), whatever the number of samples**; the wealths are kept as products (scaled,
with a log offset per level), so one sample costs 2 J L multiplications and 2 L logarithms.

**Exact levels for few distinct rewards.**  Besides the tables, each source keeps its distinct
rescaled rewards and their counts, up to ``max_values`` of them (64 by default: 1 kB per source);
a source that leaves more distinct values is marked overflowed for good and the store is emptied.
The wealths do not depend on the order of the samples, so a store gives ln W^{+/-} and the mixtures
at ANY level (:mod:`pybai.models._betting_exact`), and the stopping rule removes the level grid's
loss for pairs of such sources (:mod:`pybai.stopping._betting_refine`).  It uses the store of a
source only once a reward has repeated (:attr:`BettingModel.exact`): rewards from a continuous law
never repeat, fill the store and overflow, and are decided by the grid alone.

Examples
--------
>>> import numpy as np
>>> m = BettingModel(2, 0.0, 10.0, levels=5)
>>> m.update(np.array([0, 0, 1]), np.array([2.0, 4.0, 10.0]))
>>> m.estimate.round(12).tolist()          # rescaled to [0, 1]
[0.3, 1.0]
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from pybai.models._betting_exact import log_mix_down, log_mix_up
from pybai.models._distinct import OVERFLOWED, check_store, repeated, store_update
from pybai.models.base import Model

__all__ = ["BettingModel", "DEFAULT_BETS", "DEFAULT_LEVELS", "DEFAULT_MAX_VALUES", "VARIANCE_FLOOR"]

#: the bets c_j: 2^(-k/2) for k = 1..22 (0.71 down to 0.0005) and three near 1 (low-variance arms)
DEFAULT_BETS = tuple(sorted([2.0 ** (-k / 2.0) for k in range(1, 23)] + [0.875, 0.96875, 0.9921875]))
#: number L of levels of the grid l_i = i / (L - 1)
DEFAULT_LEVELS = 401
#: distinct rewards kept exactly per source (beyond them the source falls back to the level grid)
DEFAULT_MAX_VALUES = 64
#: smallest variance (rescaled units) handed to the sampling rules' kernels
VARIANCE_FLOOR = 1e-6
#: pseudo-samples of variance 1/4 in the variance the sampling rules read
PRIOR_COUNT = 1.0


_RESCALE = 1e150


@njit(cache=True)
def _advance(w, off, ln, s, i, factor_scale, bets, sign):
    """Multiply the J wealths of (source s, level i) by their factors; renormalise; refresh the mixture."""
    top = 0.0
    total = 0.0
    for j in range(bets.shape[0]):
        v = w[s, j, i] * (1.0 + sign * bets[j] * factor_scale)
        w[s, j, i] = v
        total += v
        if v > top:
            top = v
    if top > _RESCALE or top < 1.0 / _RESCALE:
        for j in range(bets.shape[0]):
            w[s, j, i] /= top
        off[s, i] += math.log(top)
        total /= top
    ln[s, i] = off[s, i] + math.log(total / bets.shape[0])


@njit(cache=True)
def _update_tables(sources, y, grid, bets, up_w, up_off, down_w, down_off, ln_up, ln_down):
    n_levels = grid.shape[0]
    for k in range(sources.shape[0]):
        s = sources[k]
        x = y[k]
        for i in range(n_levels):
            lev = grid[i]
            if lev > 0.0:
                _advance(up_w, up_off, ln_up, s, i, (x - lev) / lev, bets, 1.0)
            if lev < 1.0:
                _advance(down_w, down_off, ln_down, s, i, (x - lev) / (1.0 - lev), bets, -1.0)


class BettingModel(Model):
    """Bounded rewards in [low, high]: rescaled means and variances, and the betting tables.

    Parameters
    ----------
    n_sources : int
    low, high : float
        The reward range (checked by the family).
    levels : int, default :data:`DEFAULT_LEVELS`
        Number L of levels of the betting grid (0: no tables, means and variances only).
    bets : sequence of float in (0, 1), default :data:`DEFAULT_BETS`
    max_values : int, default :data:`DEFAULT_MAX_VALUES`
        Distinct rewards kept exactly per source (0: none; module docstring).

    Attributes
    ----------
    counts, sums, estimate : ndarray of shape (n_sources,)
        As in :class:`~pybai.models.base.Model`, of the rescaled rewards.
    sq_sums : ndarray of shape (n_sources,)
        Sum of the squared rescaled rewards.
    noise : ndarray of shape (n_sources,)
        The variance the sampling rules read: the maximum-likelihood variance V of the rescaled
        rewards shrunk towards 1/4 (the largest possible), (N V + n0 / 4) / (N + n0) with
        n0 = :data:`PRIOR_COUNT`, at least :data:`VARIANCE_FLOOR`; NaN below two samples.
    up_w, down_w : ndarray of shape (n_sources, J, L)
        The wealths W^+ and W^- divided by exp(``up_off``) / exp(``down_off``) (shape (n_sources, L)),
        renormalised whenever their largest leaves [1e-150, 1e150]: a sample costs one multiplication
        per (bet, level) and one logarithm per level.  ``log_up``, ``log_down``: the log-wealths;
        ``ln_up``, ``ln_down`` (n_sources, L): the logs of the mixtures.
    grid : ndarray of shape (L,)
    values, value_counts : ndarray of shape (n_sources, max_values)
        Each source's distinct rescaled rewards (the first ``n_values`` entries, in order of
        arrival) and how often each came; zeros elsewhere.
    n_values : ndarray of int of shape (n_sources,)
        Number of distinct rewards stored; -1 once a source had more than ``max_values`` (or
        when there are no tables, ``levels = 0``).
    """

    estimate_is_mean = True  # checked on a restored state
    state_attrs = ("counts", "sums", "estimate", "sq_sums", "noise", "up_w", "up_off", "down_w", "down_off",
                   "ln_up", "ln_down", "values", "value_counts", "n_values")

    def __init__(self, n_sources: int, low: float, high: float, levels: int = DEFAULT_LEVELS,
                 bets=DEFAULT_BETS, max_values: int = DEFAULT_MAX_VALUES):
        super().__init__(n_sources)
        self.low = float(low)
        self.width = float(high) - float(low)
        self.grid = np.linspace(0.0, 1.0, int(levels))
        self.bets = np.asarray(bets, dtype=float)
        self.sq_sums = np.zeros(n_sources)
        self.noise = np.full(n_sources, np.nan)
        shape = (n_sources, self.bets.shape[0], self.grid.shape[0])
        self.up_w = np.ones(shape)  # wealth / exp(offset), renormalised when it leaves [1e-150, 1e150]
        self.down_w = np.ones(shape)
        self.up_off = np.zeros((n_sources, self.grid.shape[0]))
        self.down_off = np.zeros((n_sources, self.grid.shape[0]))
        self.ln_up = np.zeros((n_sources, self.grid.shape[0]))
        self.ln_down = np.zeros((n_sources, self.grid.shape[0]))
        cap = int(max_values) if self.grid.shape[0] else 0
        self.values = np.zeros((n_sources, cap))
        self.value_counts = np.zeros((n_sources, cap))
        self.n_values = np.full(n_sources, 0 if cap else OVERFLOWED, dtype=np.int64)

    @property
    def exact(self) -> np.ndarray:
        """Per source: its store is usable, i.e. not overflowed and some reward came twice (bool array)."""
        return repeated(self.n_values, self.value_counts)

    def log_mixture(self, source: int, levels, side: str = "up") -> np.ndarray:
        """ln M^+ (``side="up"``) or ln M^- (``"down"``) of ``source`` at any ``levels``, from its store.

        Levels in (0, 1] for ``"up"``, [0, 1) for ``"down"``; the source's store must not have
        overflowed (``n_values >= 0``).
        """
        n = int(self.n_values[source])
        if n < 0:
            raise ValueError(f"source {source} has more than {self.values.shape[1]} distinct rewards: "
                             "its wealth is known on the level grid only")
        kernel = log_mix_up if side == "up" else log_mix_down
        vals, cnts = self.values[source], self.value_counts[source]
        return np.array([kernel(vals, cnts, n, self.bets, float(lev)) for lev in np.atleast_1d(levels)])

    @property
    def log_up(self) -> np.ndarray:
        """ln W^+ per (source, bet, level) (computed from the scaled wealths and their offsets)."""
        with np.errstate(divide="ignore"):
            return np.log(self.up_w) + self.up_off[:, None, :]

    @property
    def log_down(self) -> np.ndarray:
        """ln W^- per (source, bet, level)."""
        with np.errstate(divide="ignore"):
            return np.log(self.down_w) + self.down_off[:, None, :]

    def rescale(self, rewards: np.ndarray) -> np.ndarray:
        """(x - low) / (high - low), clipped to [0, 1] (against rounding only: the family refuses the rest)."""
        return np.clip((np.asarray(rewards, dtype=float) - self.low) / self.width, 0.0, 1.0)

    def update(self, sources: np.ndarray, rewards: np.ndarray) -> None:
        sources = np.asarray(sources, dtype=np.int64)
        if sources.shape[0] == 0:
            return
        if sources.shape[0] == 1:  # the sequential hot path: scalar updates
            s = sources[0]
            x = min(max((float(rewards[0]) - self.low) / self.width, 0.0), 1.0)
            n = self.counts[s] + 1.0
            self.counts[s] = n
            self.sums[s] += x
            self.sq_sums[s] += x * x
            if self.grid.shape[0]:
                y1 = np.array([x])
                _update_tables(sources, y1, self.grid, self.bets, self.up_w, self.up_off, self.down_w,
                               self.down_off, self.ln_up, self.ln_down)
                store_update(sources, y1, self.values, self.value_counts, self.n_values)
            mean = self.sums[s] / n
            self.estimate[s] = mean
            if n >= 2.0:
                var = max(self.sq_sums[s] / n - mean * mean, 0.0)
                self.noise[s] = max((n * var + PRIOR_COUNT * 0.25) / (n + PRIOR_COUNT), VARIANCE_FLOOR)
            return
        y = self.rescale(rewards)
        np.add.at(self.counts, sources, 1.0)
        np.add.at(self.sums, sources, y)
        np.add.at(self.sq_sums, sources, y * y)
        if self.grid.shape[0]:
            _update_tables(sources, y, self.grid, self.bets, self.up_w, self.up_off, self.down_w, self.down_off,
                           self.ln_up, self.ln_down)
            store_update(sources, y, self.values, self.value_counts, self.n_values)
        self._set_moments(np.unique(sources))

    def _set_moments(self, idx) -> None:
        n = self.counts[idx]
        seen = n > 0
        mean = np.where(seen, self.sums[idx] / np.maximum(n, 1.0), np.nan)
        self.estimate[idx] = mean
        var = np.maximum(self.sq_sums[idx] / np.maximum(n, 1.0) - np.where(seen, mean, 0.0) ** 2, 0.0)
        # shrunk towards 1/4, the largest variance on [0, 1], with PRIOR_COUNT pseudo-samples: two
        # nearly equal first rewards must not make an arm look certain to the sampling rules
        shrunk = (n * var + PRIOR_COUNT * 0.25) / (n + PRIOR_COUNT)
        self.noise[idx] = np.where(n >= 2.0, np.maximum(shrunk, VARIANCE_FLOOR), np.nan)

    def _refresh(self) -> None:
        self._set_moments(np.arange(self.counts.shape[0]))

    def scaled_into(self, fresh: Model, factor: float) -> "BettingModel":
        """``fresh`` (a model of the same shape) holding these rewards as if each had come ``factor`` times.

        What the stopping rule would read later if the empirical law of every source stayed as it
        is (the near-tie estimate of a running session): a wealth is a product of one factor per
        reward, so every log-wealth ln W_j (per source, bet and level) is multiplied by ``factor``,
        and so are the counts, the sums, the sums of squares and the store's counts (the distinct
        values stay).  ``factor`` > 0 need not be a whole number.
        """
        if not isinstance(fresh, BettingModel) or fresh.up_w.shape != self.up_w.shape or (
                fresh.values.shape != self.values.shape):
            raise ValueError("scaled_into needs a fresh BettingModel of the same sources, bets, levels and store")
        f = float(factor)
        if not (f > 0.0 and math.isfinite(f)):
            raise ValueError(f"scaled_into needs a finite factor > 0, got {factor!r}")
        fresh.counts[:] = self.counts * f
        fresh.sums[:] = self.sums * f
        fresh.sq_sums[:] = self.sq_sums * f
        if self.grid.shape[0]:
            for logs, w, off, ln in ((self.log_up, fresh.up_w, fresh.up_off, fresh.ln_up),
                                     (self.log_down, fresh.down_w, fresh.down_off, fresh.ln_down)):
                scaled = f * logs                      # (sources, bets, levels); every factor is >= 1 - c > 0
                top = scaled.max(axis=1)               # the new offset per (source, level)
                w[:] = np.exp(scaled - top[:, None, :])
                off[:] = top
                ln[:] = top + np.log(w.mean(axis=1))
        fresh.values[:] = self.values
        fresh.value_counts[:] = self.value_counts * f
        fresh.n_values[:] = self.n_values
        fresh._refresh()
        return fresh

    def set_statistics(self, counts, sums, sq_sums=None) -> "BettingModel":
        """Not available: the betting tables are not a function of counts and sums (replay the rewards)."""
        raise NotImplementedError("BettingModel keeps betting tables that counts and sums do not determine; "
                                  "rebuild it by replaying the rewards (update).")

    def check_state(self) -> str | None:
        problem = super().check_state()
        if problem is not None:
            return problem
        if (self.sums < 0).any() or (self.sums > self.counts).any():
            return "sums: expected rescaled sums in [0, counts]"
        if not (np.isfinite(self.sq_sums).all() and (self.sq_sums >= 0).all() and (self.sq_sums <= self.sums + 1e-9).all()):
            return "sq_sums: expected numbers in [0, sums]"
        for name in ("up_w", "down_w"):
            if not (np.isfinite(getattr(self, name)).all() and (getattr(self, name) >= 0).all()):
                return f"{name}: expected finite nonnegative numbers"
        for name in ("up_off", "down_off", "ln_up", "ln_down"):
            if np.isnan(getattr(self, name)).any():
                return f"{name}: expected numbers, not NaN"
        return self._check_store()

    def _check_store(self) -> str | None:
        return check_store(self.values, self.value_counts, self.n_values, self.counts, self.sums, 0.0, 1.0)
