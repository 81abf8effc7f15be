"""Exceptions and warnings raised by pybai.

Every error a user can cause inherits from :class:`PybaiError` and from the
built-in exception users already catch (``ValueError`` for bad values, ...), so
``except ValueError`` keeps working.
"""

from __future__ import annotations

from pybai._secrets import mask_credentials

__all__ = [
    "PybaiError",
    "InvalidParameterError",
    "ConfigError",
    "SessionStateError",
    "StorageUnavailableError",
    "RequestError",
    "BatchLimitError",
    "DegenerateInstanceError",
    "PybaiWarning",
    "RewardModelWarning",
]


class PybaiError(Exception):
    """Base class of every exception raised by pybai on purpose.

    Its message never shows a password: a database URL in it reads ``postgresql://user:***@host/db``
    (:func:`pybai._secrets.mask_credentials`).
    """

    def __str__(self) -> str:
        return mask_credentials(super().__str__())


class InvalidParameterError(PybaiError, ValueError, TypeError):
    """A parameter has a wrong type or value.

    The message names the parameter and what was expected, e.g.
    ``The 'delta' parameter of TrackAndStop must be a number in (0, 1). Got 1.5.``
    """


class ConfigError(InvalidParameterError):
    """An experiment or session file is malformed; the message starts with the key."""


class SessionStateError(PybaiError, RuntimeError):
    """An ask/tell call that the current state does not allow (e.g. ``ask`` after stopping)."""


class StorageUnavailableError(SessionStateError):
    """The session database cannot be reached (a database server restarting, a network fault).

    The call that raised it recorded nothing (an answer is stored whole or not at all; a commit
    whose outcome the lost connection hid is looked up once the server is back), so it may
    simply be tried again; a session reconnects by itself at its next call.  ``pybai serve``
    answers it with HTTP 503.  ``in_doubt`` is true in the one case where that cannot be said:
    the connection was lost during a commit and the server stayed away.
    """

    def __init__(self, *args, in_doubt: bool = False):
        super().__init__(*args)
        self.in_doubt = in_doubt


class RequestError(InvalidParameterError):
    """A ``tell`` that does not answer the pending request (unknown or answered request id,
    sources that were not requested, rewards outside the family's support).  The strategy's
    state is unchanged."""


class BatchLimitError(PybaiError, RuntimeError):
    """A strategy asked for a batch that breaks the problem's (b, r) limits (a bug of the strategy)."""


class DegenerateInstanceError(InvalidParameterError):
    """The instance has no unique answer (e.g. tied best means of a linear environment)."""


class PybaiWarning(UserWarning):
    """Base class of pybai's warnings (e.g. an instance whose answer is not unique); passwords masked
    as in :class:`PybaiError`."""

    def __str__(self) -> str:
        return mask_credentials(super().__str__())


class RewardModelWarning(PybaiWarning):
    """The rewards contradict the reward model (e.g. repeated values under a Gaussian model)."""
