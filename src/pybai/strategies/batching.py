"""Batches of requests under (b, r) limits: the initial phase in batches, and the checks.

A batch is an int array of requests (repeats allowed) with at most ``b`` entries and at most
``r`` entries equal to any one request (the (b, r)-batch regime of Jun et al. 2016).  The
water filling that raises the least-sampled requests evenly within (b, r) is
:func:`pybai.batch.round_robin.round_robin`.
"""

from __future__ import annotations

import numpy as np

from pybai.exceptions import BatchLimitError, RequestError

__all__ = ["split_plan", "check_batch", "remaining_after"]


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
    most = int(np.bincount(requests).max())  # requests are in [0, n_requests): a count per request, no sort
    if max_repeats is not None and most > max_repeats:
        raise BatchLimitError(
            f"{owner} asked for {most} samples of one request in a batch; at most r = {max_repeats} allowed."
        )


def remaining_after(pending: np.ndarray, answered: np.ndarray) -> np.ndarray:
    """Pending requests left once ``answered`` is removed; raise if ``answered`` is not a sub-multiset."""
    pend_u, pend_c = np.unique(pending, return_counts=True)
    ans_u, ans_c = np.unique(answered, return_counts=True)
    pos = np.searchsorted(pend_u, ans_u)
    ok = pos < pend_u.size
    ok[ok] = pend_u[pos[ok]] == ans_u[ok]
    if not ok.all() or np.any(ans_c > pend_c[np.minimum(pos, pend_u.size - 1)]):
        raise RequestError(
            f"the answer covers requests that are not pending (answered {answered.tolist()[:10]}, "
            f"pending {pending.tolist()[:10]})."
        )
    left = pend_c.copy()
    left[pos] -= ans_c
    return np.repeat(pend_u, left)
