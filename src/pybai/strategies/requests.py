"""The requests a strategy has handed out and not yet seen answered: bookkeeping and the allocation view.

A strategy started with ``max_pending = N`` (:meth:`pybai.strategies.base.Strategy.start`) may
hand out up to N requests before earlier ones are answered.  :class:`Outstanding` keeps them,
oldest first, each with its unanswered part; a request leaves it when its last sample is told
or when it is cancelled (:meth:`~pybai.strategies.base.Strategy.cancel`).  With N = 1 it holds
at most one request and the strategy behaves exactly as a strictly sequential one.

The sampling rule chooses a new request while others are outstanding through the *believer*
view (:func:`believer_model`, which the strategy puts in place of its model while the rule chooses:
:meth:`Strategy._believed <pybai.strategies.base.Strategy._believed>`): the rule sees the model updated with every outstanding sample, each
rewarded with the current estimate of its source.  Counts and the sample count ``t_`` then
include the pending samples, means are unchanged (an observation equal to the mean leaves the
empirical mean, and a posterior mean, where it is), and a posterior's variance shrinks as if the
pending samples were in: the "hallucinated observations" of GP-BUCB (Desautels, Krause &
Burdick, JMLR 2014), applied to every model.  Tracking rules thus track counts plus pending,
index rules see the confidence widths the pending samples will give, and a burst of asks is
spread as the rule intends.  The statistics and the stopping rule only ever read what was told:
the view is dropped as soon as the rule has chosen.
"""

from __future__ import annotations

import copy

import numpy as np

from pybai._validation import fail, real_values
from pybai.exceptions import RequestError
from pybai.strategies.batching import remaining_after

__all__ = ["Outstanding", "believer_model", "next_missing", "match_answer", "parse_answer"]


class Outstanding:
    """Requests handed out and not yet fully answered or cancelled, oldest first.

    Parameters
    ----------
    limit : int
        ``max_pending``: how many may be outstanding at once.
    """

    def __init__(self, limit: int = 1):
        self.limit = int(limit)
        self._open: dict[int, np.ndarray] = {}  # id -> unanswered part (read-only), in the order handed out
        self._sizes: dict[int, int] = {}  # id -> samples asked
        self._initial: set[int] = set()  # ids of requests of the initial phase
        self.requeued: list[np.ndarray] = []  # cancelled parts of initial requests, asked again first
        self.samples = 0  # unanswered samples in all

    def __len__(self) -> int:
        return len(self._open)

    def __contains__(self, request_id) -> bool:
        return request_id in self._open

    def ids(self) -> list[int]:
        """Ids of the outstanding requests, oldest first."""
        return list(self._open)

    def get(self, request_id) -> np.ndarray | None:
        """The unanswered part of request ``request_id``, or None when it is not outstanding."""
        return self._open.get(request_id)

    def oldest(self) -> tuple[int, np.ndarray]:
        """(id, unanswered part) of the oldest outstanding request."""
        rid = next(iter(self._open))
        return rid, self._open[rid]

    def add(self, request_id: int, requests: np.ndarray, size: int | None = None, initial: bool = False) -> None:
        if initial:
            self._initial.add(int(request_id))
        self._open[int(request_id)] = requests
        self._sizes[int(request_id)] = int(requests.shape[0]) if size is None else int(size)
        self.samples += int(requests.shape[0])

    def partly_answered(self, request_id: int) -> bool:
        """Whether some samples of outstanding request ``request_id`` were told."""
        return self._sizes[request_id] > int(self._open[request_id].shape[0])

    def set(self, request_id: int, remaining: np.ndarray) -> None:
        """Replace the unanswered part of an outstanding request (after a partial answer)."""
        self.samples += int(remaining.shape[0]) - int(self._open[request_id].shape[0])
        self._open[request_id] = remaining

    def remove(self, request_id: int) -> np.ndarray:
        """Close request ``request_id``; returns its unanswered part."""
        part = self._open.pop(request_id)
        del self._sizes[request_id]
        self._initial.discard(request_id)
        self.samples -= int(part.shape[0])
        return part

    def cancel(self, request_id: int) -> np.ndarray:
        """Close request ``request_id`` unanswered; a part of the initial phase is asked again
        (:attr:`requeued`).  Returns the part withdrawn."""
        initial = request_id in self._initial
        part = self.remove(request_id)
        if initial:
            self.requeued.append(part)
        return part

    def pending_requests(self) -> np.ndarray:
        """Every unanswered sample of every outstanding request, oldest first."""
        if not self._open:
            return np.empty(0, dtype=np.intp)
        return np.concatenate(list(self._open.values()))

    def describe(self) -> str:
        """"the pending request is 4" / "the outstanding requests are 3, 5" / "no request is pending"."""
        if not self._open:
            return "no request is pending"
        if len(self._open) == 1:
            return f"the pending request is {next(iter(self._open))}"
        return "the outstanding requests are " + ", ".join(str(i) for i in self._open)

    @property
    def listing(self) -> list:
        """The state (JSON-safe): ``[[id, [unanswered requests...], samples asked, initial], ...]`` oldest
        first, then ``[[requests asked again...], ...]``."""
        return [[[rid, part.tolist(), self._sizes[rid], rid in self._initial] for rid, part in self._open.items()],
                [part.tolist() for part in self.requeued]]

    @listing.setter
    def listing(self, value) -> None:
        expected = "[[[id, [requests, ...], size, initial], ...], [[requests, ...], ...]] with integers >= 0"
        if not (isinstance(value, list) and len(value) == 2 and all(isinstance(v, list) for v in value)):
            raise ValueError(expected)
        for entry in value[0]:
            if not (isinstance(entry, list) and len(entry) == 4 and isinstance(entry[1], list)
                    and isinstance(entry[3], bool) and all(_is_int(x) and x >= 0 for x in [entry[0], entry[2], *entry[1]])
                    and 0 < len(entry[1]) <= entry[2]):
                raise ValueError(expected)
        for part in value[1]:
            if not (isinstance(part, list) and part and all(_is_int(x) and x >= 0 for x in part)):
                raise ValueError(expected)
        fresh = Outstanding(self.limit)
        for rid, part, size, initial in value[0]:
            fresh.add(rid, _frozen(part), size, initial)
        self._open, self._sizes, self._initial, self.samples = fresh._open, fresh._sizes, fresh._initial, fresh.samples
        self.requeued = [_frozen(part) for part in value[1]]


def _frozen(values) -> np.ndarray:
    array = np.array(values, dtype=np.intp)
    array.setflags(write=False)
    return array


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def next_missing(means: np.ndarray, space, book: Outstanding) -> np.ndarray:
    """The request for a source without an estimate: the one with the fewest outstanding samples
    (lowest index on ties; with nothing outstanding, the first such source)."""
    missing = np.flatnonzero(np.isnan(means))
    requests = np.asarray(space.request_of(missing), dtype=np.intp)
    if len(book):
        waiting = np.bincount(book.pending_requests(), minlength=space.n_requests)
        requests = requests[int(np.argmin(waiting[requests])):]  # the first of the least waited for
    req = np.array(requests[:1], dtype=np.intp)
    req.setflags(write=False)
    return req


def _believed_sources(space, requests: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The sources that outstanding ``requests`` are expected to give.

    A request is its source, except where the environment picks the source (cells arriving at
    random): then each request is credited to its source furthest below the split
    :meth:`~pybai.problems.requests.RequestSpace.expand` gives (lowest index on ties).
    """
    if space.identity:
        return requests
    counts = np.array(counts, dtype=float)
    per_request = np.asarray(space.counts(counts), dtype=float)
    out = np.empty(requests.shape[0], dtype=np.intp)
    for i, r in enumerate(requests.tolist()):
        onehot = np.zeros(space.n_requests)
        onehot[r] = 1.0
        split = np.asarray(space.expand(onehot), dtype=float)
        gap = np.where(split > 0, split * (per_request[r] + 1.0) - counts, -np.inf)
        out[i] = int(np.argmax(gap))
        counts[out[i]] += 1.0
        per_request[r] += 1.0
    return out


def _copy_model(model):
    """A copy of ``model`` that its updates cannot reach back from: its arrays copied, the rest shared
    (a model updates its arrays in place and rebinds its other attributes)."""
    clone = copy.copy(model)
    for name, value in vars(model).items():
        if isinstance(value, np.ndarray):
            vars(clone)[name] = value.copy()
    return clone


def believer_model(model, space, book: Outstanding, family):
    """The believer view of ``model`` (module docstring): a copy updated with every outstanding sample of
    ``book``, each rewarded with the current estimate of its source (``family`` gives the user's units)."""
    believer = _copy_model(model)
    sources = _believed_sources(space, book.pending_requests(), believer.counts)
    rewards = np.asarray(family.to_user(believer.estimate), dtype=float)[sources]
    believer.update(sources, rewards)
    return believer


def match_answer(pending: np.ndarray, answered: np.ndarray) -> np.ndarray | None:
    """What stays unanswered of ``pending`` after ``answered`` (None: nothing); RequestError when
    ``answered`` holds requests that are not in ``pending``."""
    if pending.shape[0] == 1:  # the sequential hot path
        if answered.shape[0] != 1 or answered[0] != pending[0]:
            raise RequestError(f"the answer covers requests that are not pending (answered "
                               f"{answered.tolist()[:10]}, pending {pending.tolist()}).")
        return None
    if answered.shape[0] == pending.shape[0] and np.array_equal(answered, pending):
        return None  # the whole request, in order (the usual answer; O(n), no sort)
    remaining = remaining_after(pending, answered)
    if remaining is None or not remaining.size:
        return None
    remaining.setflags(write=False)
    return remaining


def parse_answer(strategy, sources, rewards) -> tuple[np.ndarray, np.ndarray]:
    """``(sources, rewards)`` of a :meth:`~pybai.strategies.base.Strategy.tell` as checked arrays."""
    src = sources if type(sources) is np.ndarray else np.asarray(sources)
    if src.dtype.kind not in "iu":
        raise fail("sources", "tell", "integer source indices", sources)
    if src.ndim != 1:
        src = src.reshape(-1)
    if type(rewards) is np.ndarray and rewards.dtype == np.float64 and rewards.ndim == 1:
        rew = rewards
    else:
        rew = real_values(rewards, "rewards", "tell")
    n = strategy.counts_.shape[0]
    size = src.shape[0]
    if size != rew.shape[0] or size == 0:
        raise fail("rewards", "tell", f"one reward per source ({size})", f"{rew.shape[0]} rewards")
    if size == 1:
        if not 0 <= src[0] < n:
            raise fail("sources", "tell", f"integer indices in [0, {n - 1}]", src.tolist())
    elif src.min() < 0 or src.max() >= n:
        raise fail("sources", "tell", f"integer indices in [0, {n - 1}]", src.tolist())
    problem = strategy.problem_.family.check_rewards(rew)
    if problem:
        raise RequestError(f"The 'rewards' parameter of tell must be {problem}. Got {rew.tolist()[:10]}.")
    wrong = strategy.requests_.check_rewards(src, rew)  # sources of different reward models (metrics)
    if wrong:
        raise RequestError(wrong)
    return src, rew
