"""Batches of requests under (b, r) limits: the initial phase in batches, even filling, checks.

A batch is an int array of requests (repeats allowed) with at most ``b`` entries and at most
``r`` entries equal to any one request (the (b, r)-batch regime of Jun et al. 2016).
"""

from __future__ import annotations

import numpy as np

from pybai.exceptions import BatchLimitError

__all__ = ["split_plan", "even_batch", "check_batch"]


def split_plan(plan: np.ndarray, size: int, max_repeats: int) -> list[np.ndarray]:
    """Cut the request sequence ``plan`` into consecutive batches that respect (size, max_repeats).

    A batch is closed when it holds ``size`` requests or when the next request would appear
    more than ``max_repeats`` times in it; the order of ``plan`` is kept.
    """
    batches: list[np.ndarray] = []
    current: list[int] = []
    seen: dict[int, int] = {}
    for req in np.asarray(plan, dtype=np.intp).tolist():
        if len(current) == size or seen.get(req, 0) == max_repeats:
            batches.append(np.array(current, dtype=np.intp))
            current, seen = [], {}
        current.append(req)
        seen[req] = seen.get(req, 0) + 1
    if current:
        batches.append(np.array(current, dtype=np.intp))
    return batches


def even_batch(counts: np.ndarray, size: int, max_repeats: int) -> np.ndarray:
    """Per-request pulls of one batch that make ``counts`` as even as possible.

    Water filling: raise the least-sampled requests to a common integer level, at most
    ``max_repeats`` pulls each and ``size`` in all; the pulls left at the last level go to the
    lowest indices.  Returns an int array of pull counts (sum = min(size, n max_repeats)).

    Examples
    --------
    >>> even_batch(np.array([3.0, 0.0, 1.0]), 4, 2).tolist()
    [0, 2, 2]
    """
    c = np.asarray(counts, dtype=float)
    size = min(int(size), c.size * int(max_repeats))

    def filled(level: float) -> np.ndarray:
        return np.clip(level - c, 0.0, max_repeats)

    # filled(lo) = 0 <= size; at hi - 1 every request is full, so the answer lies in [lo, hi)
    lo, hi = float(c.min()), float(c.max()) + max_repeats + 1.0
    while hi - lo > 1.0:  # integer bisection on the level, O(log) passes
        mid = float(np.floor((lo + hi) / 2.0))
        if filled(mid).sum() <= size:
            lo = mid
        else:
            hi = mid
    pulls = filled(lo).astype(np.int64)
    rest = size - int(pulls.sum())
    if rest > 0:  # the next level, lowest indices first
        room = np.flatnonzero((filled(lo + 1.0) > pulls))
        pulls[room[:rest]] += 1
    return pulls


def check_batch(requests: np.ndarray, n_requests: int, size: int | None, max_repeats: int | None,
                owner: str) -> None:
    """Raise :class:`~pybai.exceptions.BatchLimitError` when a strategy's batch breaks a limit."""
    if requests.size == 0:
        raise BatchLimitError(f"{owner} asked for an empty batch.")
    if requests.min() < 0 or requests.max() >= n_requests:
        raise BatchLimitError(f"{owner} asked for requests outside [0, {n_requests - 1}]: {requests.tolist()[:10]}.")
    if size is None:
        return
    if requests.size > size:
        raise BatchLimitError(f"{owner} asked for a batch of {requests.size} samples; the batch size b is {size}.")
    _, reps = np.unique(requests, return_counts=True)
    if reps.max() > max_repeats:
        raise BatchLimitError(
            f"{owner} asked for {reps.max()} samples of one request in a batch; at most r = {max_repeats} allowed."
        )
