"""Common mechanics of the batch algorithms: statistics, the next_batch/observe cycle, ties.

A batch algorithm holds per-arm ``counts`` (int64) and ``sums`` (float) and alternates

* :meth:`BatchAlgorithm.next_batch` -> pulls per arm (int array of length n, sum <= b,
  each <= r), and
* :meth:`BatchAlgorithm.observe` (pulls, reward sums per arm) for that batch,

until :attr:`done`; :meth:`answer` gives the k recommended arms (sorted indices).  Ties
between arms (equal empirical means, equal counts) are broken by a fixed per-arm
``priority``: the arm index by default, or a random permutation drawn once from ``rng``
(the paper breaks ties at random: "run each algorithm 10 times due to randomness in
breaking ties").
"""

from __future__ import annotations

import numpy as np

from pybai._validation import check_positive_int, fail
from pybai.batch.round_robin import round_robin
from pybai.batch.theory import check_batch_shape
from pybai.exceptions import SessionStateError

__all__ = ["BatchAlgorithm", "top_positions", "empirical_means"]


def empirical_means(counts: np.ndarray, sums: np.ndarray) -> np.ndarray:
    """sums / counts, with -inf for arms never pulled (they rank last)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, sums / np.maximum(counts, 1), -np.inf)


def top_positions(values: np.ndarray, priority: np.ndarray, kk: int) -> np.ndarray:
    """Positions of the ``kk`` largest ``values``; among equal values, lowest ``priority`` first.

    O(m) (partitions, no full sort).  Returned in no particular order.
    """
    m = values.size
    if kk <= 0:
        return np.empty(0, dtype=np.int64)
    if kk >= m:
        return np.arange(m)
    v = np.partition(values, m - kk)[m - kk]  # kk-th largest value
    above = np.flatnonzero(values > v)
    equal = np.flatnonzero(values == v)
    need = kk - above.size
    if need < equal.size:
        equal = equal[np.argpartition(priority[equal], need - 1)[:need]]
    return np.concatenate([above, equal])


def sorted_order(values: np.ndarray, priority: np.ndarray) -> np.ndarray:
    """Positions sorted by decreasing value, ties by increasing priority."""
    return np.lexsort((priority, -values))


class BatchAlgorithm:
    """Base of the (b, r)-batch top-k algorithms.

    Parameters
    ----------
    n_arms : int
        n >= 2.
    k : int
        Number of top arms, 1 <= k < n.
    size : int
        b, samples per batch.
    max_repeats : int
        r in [1, b], most pulls of one arm in a batch.
    rng : numpy.random.Generator, optional
        Draws the random tie order once; default: ties by lowest arm index.

    Attributes
    ----------
    counts : ndarray of int64 (n,)
    sums : ndarray of float (n,)
    n_batches : int
        Batches observed so far.
    done : bool
    """

    #: mutable attributes that make up the run's state (:meth:`get_state` / :meth:`set_state`)
    _state_keys: tuple[str, ...] = ("priority", "counts", "sums", "n_batches", "done", "_pending", "_final")

    def __init__(self, n_arms: int, k: int, size: int, max_repeats: int, *, rng=None):
        owner = type(self).__name__
        self.n_arms = check_positive_int(n_arms, "n_arms", owner, minimum=2)
        self.k = check_positive_int(k, "k", owner)
        if self.k >= self.n_arms:
            raise fail("k", owner, f"an int in [1, n_arms - 1] = [1, {self.n_arms - 1}]", k)
        self.size, self.max_repeats = check_batch_shape(size, max_repeats, owner)
        if rng is None:
            self.priority = np.arange(self.n_arms)
        elif isinstance(rng, np.random.Generator):
            self.priority = rng.permutation(self.n_arms)
        else:
            raise fail("rng", owner, "None or a numpy.random.Generator", rng)
        self.counts = np.zeros(self.n_arms, dtype=np.int64)
        self.sums = np.zeros(self.n_arms)
        self.n_batches = 0
        self.done = False
        self._pending = None
        self._final = None

    # --- state --------------------------------------------------------------
    def get_state(self) -> dict:
        """The mutable state (copies of arrays): with the constructor's arguments, the whole run.

        Constants derived from the arguments (schedules, sums of 1/i) are not included.
        """
        return {key: (v.copy() if isinstance(v := getattr(self, key), np.ndarray) else v)
                for key in self._state_keys}

    def set_state(self, state: dict) -> None:
        """Restore a state from :meth:`get_state` of an algorithm built with the same arguments."""
        missing = set(self._state_keys) - set(state)
        if missing:
            raise fail("state", f"{type(self).__name__}.set_state", f"the keys {sorted(self._state_keys)}",
                       f"a dict without {sorted(missing)}")
        for key in self._state_keys:
            value = state[key]
            current = getattr(self, key)
            if isinstance(current, np.ndarray) and isinstance(value, np.ndarray):
                value = value.astype(current.dtype, copy=True)
            setattr(self, key, value)

    # --- the cycle ---------------------------------------------------------
    def next_batch(self) -> np.ndarray:
        """Pulls per arm for the next batch (the same array until it is observed)."""
        if self.done:
            raise SessionStateError(f"{type(self).__name__} is done: no further batch")
        if self._pending is None:
            self._pending = self._allocate()
        return self._pending.copy()

    def observe(self, pulls, sums) -> None:
        """Record the reward sums of the pending batch (``pulls`` must equal it)."""
        owner = type(self).__name__
        if self._pending is None:
            raise SessionStateError(f"{owner}.observe called without a pending batch (call next_batch first)")
        pulls = np.asarray(pulls)
        if pulls.shape != self._pending.shape or not np.array_equal(pulls, self._pending):
            raise fail("pulls", f"{owner}.observe", "the pulls returned by next_batch", "a different array")
        sums = np.asarray(sums, dtype=float)
        if sums.shape != pulls.shape or not np.all(np.isfinite(sums)):
            raise fail("sums", f"{owner}.observe", f"finite reward sums of shape {pulls.shape}", "other values")
        self.counts += self._pending
        self.sums += sums
        self.n_batches += 1
        self._pending = None
        self._after_batch()

    def answer(self) -> np.ndarray:
        """The k recommended arms, sorted (the final answer once :attr:`done`)."""
        if self._final is not None:
            return self._final.copy()
        return np.sort(self._recommend())

    @property
    def pending(self) -> np.ndarray | None:
        """The pulls of the batch asked and not yet observed (None between batches); do not modify."""
        return self._pending

    @property
    def means(self) -> np.ndarray:
        """Empirical means (-inf for arms never pulled)."""
        return empirical_means(self.counts, self.sums)

    # --- helpers for subclasses ---------------------------------------------
    def _round_robin(self, active) -> np.ndarray:
        return round_robin(self.counts, self.size, self.max_repeats, active=active, priority=self.priority)

    def _top(self, arms: np.ndarray, kk: int) -> np.ndarray:
        """The kk arms of ``arms`` with the largest empirical means (ties by priority)."""
        pos = top_positions(self.means[arms], self.priority[arms], kk)
        return arms[pos]

    def _finish(self, arms) -> None:
        self._final = np.sort(np.asarray(arms, dtype=np.int64))
        self.done = True

    # --- hooks ----------------------------------------------------------------
    def _allocate(self) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _after_batch(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _recommend(self) -> np.ndarray:
        return self._top(np.arange(self.n_arms), self.k)


def min_batches_to_cover(n_arms: int, size: int, max_repeats: int) -> int:
    """Fewest batches that pull each of n arms once: ceil(n / min(b, n r))."""
    per = min(size, n_arms * max_repeats)
    return -(-n_arms // per)
