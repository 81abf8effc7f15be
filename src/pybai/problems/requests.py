"""Request spaces: what a learner can ask for, and how per-source quantities map onto requests.

A *source* has its own law (an arm, or an (arm, subpopulation) cell); a *request* is what the
learner chooses.  Every problem supplies one :class:`RequestSpace`
(:meth:`~pybai.problems.base.Problem.request_space`); strategies read it, never the family:

* :class:`RequestSpace` (the default): a request is a source;
* :class:`~pybai.problems.feasible.cells.CellSpace`: sources are the cells of a K x L grid and the
  learner picks a cell ("pair" model) or an arm whose subpopulation arrives at random ("arm");
* :class:`~pybai.problems.linear.DesignSpace`: arms with known features, started on a
  spanning set, with the forced exploration of the design matrix available.

The space also offers an *arm view* (:meth:`RequestSpace.arm_view`) for rules that choose an arm
and let the cell arrive at random; on spaces without cells it is :class:`IdentityView`.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

__all__ = ["RequestSpace", "IdentityView"]


class IdentityView:
    """The arm view of a space whose requests are its units: arms are requests, no cell is drawn.

    Parameters
    ----------
    space : RequestSpace
    """

    #: True: choosing an arm is choosing the request (no draw, tracking in stretches is possible)
    identity: ClassVar[bool] = True

    def __init__(self, space: "RequestSpace"):
        self._space = space
        self.n_arms = space.n_requests

    def arm_counts(self, counts: np.ndarray) -> np.ndarray:
        """Samples per arm (= per request) from samples per source."""
        return self._space.counts(counts)

    def arm_weights(self, weights: np.ndarray) -> np.ndarray:
        """Proportions per arm (= per request), unchanged."""
        return weights

    def random_cell(self, arm: int, rng: np.random.Generator) -> int:
        """The request of ``arm``: the arm itself (nothing drawn)."""
        return arm

    def random_cells(self, arms, rng: np.random.Generator) -> np.ndarray:
        """The requests of ``arms``: the arms themselves (nothing drawn)."""
        return np.asarray(arms, dtype=np.intp)

    def proportional_cell(self, arm: int, counts: np.ndarray) -> int:
        """The request of ``arm``: the arm itself."""
        return arm


class RequestSpace:
    """Requests that are sources: ``n`` of them, every conversion the identity.

    Subclasses override what differs for their family: the number of requests, the conversions
    between sources and requests, the initial phase, the arm view, the design data.

    Parameters
    ----------
    n_sources : int
    """

    #: forced explorations a tracking rule may use here ("arms": every request about sqrt(t) times)
    explorations: ClassVar[tuple[str, ...]] = ("arms",)
    #: the exploration of ``exploration="auto"``
    default_exploration: ClassVar[str] = "arms"
    #: True when a request is a source (answers are checked against the pending request directly)
    identity: bool = True
    #: True when the initial phase is every request ``n_init`` times (its size is known up front)
    default_start: ClassVar[bool] = True

    #: sources one sample (one observation) reads: 1, or e.g. every metric of an arm
    observation_size: int = 1
    #: the names of the sources of one observation, in order, when it reads several (the metrics)
    observation_names: tuple[str, ...] = ()

    def __init__(self, n_sources: int):
        self.n_sources = int(n_sources)

    @property
    def n_requests(self) -> int:
        """Number of distinct requests."""
        return self.n_sources

    @property
    def source_shape(self) -> tuple[int, ...]:
        """Shape in which per-source quantities are reported (``(K,)``, or ``(K, L)`` for cells)."""
        return (self.n_sources,)


    def initial_requests(self, n_init: int) -> np.ndarray:
        """Requests of the initial phase, in order: every request ``n_init`` times, round robin."""
        return np.tile(np.arange(self.n_requests, dtype=np.intp), n_init)

    def counts(self, counts: np.ndarray) -> np.ndarray:
        """Samples per request, from samples per source."""
        return counts

    def weights(self, weights: np.ndarray) -> np.ndarray:
        """Target proportions per request, from proportions per source."""
        return weights

    def expand(self, weights: np.ndarray) -> np.ndarray:
        """Proportions per source induced by proportions per request (inverse of :meth:`weights`)."""
        return weights

    def gains(self, gains: np.ndarray) -> np.ndarray:
        """Gain of one more request, from per-sample gains per source (expected over sources)."""
        return gains

    def request_of(self, sources: np.ndarray) -> np.ndarray:
        """The request that each observed source answers."""
        return sources

    def answered(self, sources: np.ndarray) -> np.ndarray:
        """The requests an answer made of ``sources`` covers, one per sample (default: :meth:`request_of`).

        A space whose one sample observes several sources (every metric of an observation) groups them.
        """
        return self.request_of(sources)

    def check_rewards(self, sources: np.ndarray, rewards: np.ndarray) -> str | None:
        """What is wrong with the rewards told for ``sources`` beyond the family's check (None: nothing; the
        default).  A space whose sources follow different reward models checks each source's own."""
        return None

    def arm_view(self):
        """The view of rules that pick an arm and let its cell arrive at random (here: the identity)."""
        return IdentityView(self)

    def design(self):
        """``(features, spanning set)`` for the forced exploration of the design; None without features."""
        return None
