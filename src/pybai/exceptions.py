"""Exceptions and warnings raised by pybai.

Every error a user can cause inherits from :class:`PybaiError` and from the
built-in exception users already catch (``ValueError`` for bad values, ...), so
``except ValueError`` keeps working.
"""

from __future__ import annotations

__all__ = [
    "PybaiError",
    "InvalidParameterError",
    "ConfigError",
    "SessionStateError",
    "RequestError",
    "BatchLimitError",
    "DegenerateInstanceError",
    "PybaiWarning",
    "RewardModelWarning",
]


class PybaiError(Exception):
    """Base class of every exception raised by pybai on purpose."""


class InvalidParameterError(PybaiError, ValueError, TypeError):
    """A parameter has a wrong type or value.

    The message names the parameter and what was expected, e.g.
    ``The 'delta' parameter of TrackAndStop must be a number in (0, 1). Got 1.5.``
    """


class ConfigError(InvalidParameterError):
    """An experiment or session file is malformed; the message starts with the key."""


class SessionStateError(PybaiError, RuntimeError):
    """An ask/tell call that the current state does not allow (e.g. ``ask`` after stopping)."""


class RequestError(InvalidParameterError):
    """A ``tell`` that does not answer the pending request (unknown or answered request id,
    sources that were not requested, rewards outside the family's support).  The strategy's
    state is unchanged."""


class BatchLimitError(PybaiError, RuntimeError):
    """A strategy asked for a batch that breaks the problem's (b, r) limits (a bug of the strategy)."""


class DegenerateInstanceError(InvalidParameterError):
    """The instance has no unique answer (e.g. tied best means of a linear environment)."""


class PybaiWarning(UserWarning):
    """Base class of pybai's warnings (e.g. an instance whose answer is not unique)."""


class RewardModelWarning(PybaiWarning):
    """The rewards contradict the reward model (e.g. repeated values under a Gaussian model)."""
