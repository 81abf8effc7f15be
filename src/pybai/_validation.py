"""Parameter checks with one message template.

Every check raises :class:`~pybai.exceptions.InvalidParameterError` with the
message ``The '<name>' parameter of <owner> must be <expected>. Got <value>.``
"""

from __future__ import annotations

import math
import os
import stat
from pathlib import Path
from collections.abc import Sequence
from typing import Any

import numpy as np

from pybai.exceptions import InvalidParameterError

__all__ = [
    "SAMPLE_LIMIT",
    "BATCH_SIZE_LIMIT",
    "REPLICATION_LIMIT",
    "SIGMA_ABSOLUTE_RANGE",
    "SIGMA_RELATIVE_RANGE",
    "WEIGHTS_TOLERANCE",
    "fail",
    "show_value",
    "check_probability",
    "check_positive_int",
    "check_int",
    "check_int_array",
    "INT64_MAX",
    "INT64_MIN",
    "check_positive_float",
    "check_choice",
    "check_array",
    "read_user_bytes",
    "read_user_text",
    "USER_FILE_LIMIT",
]


#: Largest ``max_samples`` or ``budget`` accepted (samples; for batch problems, budget x batch size):
#: at about 1 microsecond per sample, 10^9 samples are already a quarter of an hour per replication.
SAMPLE_LIMIT = 10**9

#: Largest batch size b: a batch is held in memory as arrays of b entries (the requests, the
#: rewards, the sources: about 24 bytes per sample), so 10^7 samples are a quarter of a gigabyte.
BATCH_SIZE_LIMIT = 10**7

#: Largest number of replications of an experiment.
REPLICATION_LIMIT = 10**6

#: Noise standard deviations outside this range make sigma^2 or its inverse overflow or underflow.
SIGMA_ABSOLUTE_RANGE = (1e-100, 1e100)

#: sigma / (largest |mean|) must lie in this range: below it the noise is lost in the rounding of
#: the means (float64 keeps 16 digits); above it no gap between means is resolvable in any
#: feasible number of samples (a gap of 1e-8 sigma needs about 1e16 samples).
SIGMA_RELATIVE_RANGE = (1e-8, 1e8)

#: Subpopulation weights whose sum is further than this from 1 are normalised with a warning.
WEIGHTS_TOLERANCE = 1e-6


def show_value(value: Any) -> str:
    """``repr(value)`` on one line, cut to 80 characters: how an error message shows a given value
    (an integer too long to write: its size)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 13_000:
        # past 4300 digits Python refuses to write an integer: say its size
        return f"{'a negative' if value < 0 else 'an'} integer of about {int(value.bit_length() * math.log10(2)) + 1} digits"
    text = " ".join(repr(value).split())  # one line (arrays print on several)
    return text if len(text) <= 80 else text[:77] + "..."


def fail(name: str, owner: str, expected: str, value: Any, hint: str = "") -> InvalidParameterError:
    """Build the error for parameter ``name`` of ``owner`` (raise the result).

    ``hint`` (e.g. ``"did you mean 'tas'?"``) is shown in parentheses after the value.
    """
    where = f" of {owner}" if owner else ""
    shown = show_value(value) + (f" ({hint})" if hint else "")
    return InvalidParameterError(f"The '{name}' parameter{where} must be {expected}. Got {shown}.")


def _is_real(value: Any) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)


_REAL_REWARDS = "real numbers (ints or floats; not booleans, complex numbers or strings)"


def _has_bool(values) -> bool:
    return any(isinstance(v, (bool, np.bool_)) or (isinstance(v, (list, tuple)) and _has_bool(v)) for v in values)


def real_values(values: Any, name: str, owner: str) -> np.ndarray:
    """``values`` (a number or array-like of numbers) as a flat float64 array.

    Booleans, complex numbers, strings and other objects are refused (``np.asarray(x, float)``
    would accept ``"0.5"`` and ``True`` and drop the imaginary part of a complex number).
    """
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError, OverflowError):
        raise fail(name, owner, _REAL_REWARDS, values) from None
    kind = arr.dtype.kind
    if kind == "O":
        if not all(_is_real(v) for v in arr.reshape(-1).tolist()):
            raise fail(name, owner, _REAL_REWARDS, values)
    elif kind not in "iuf" or (isinstance(values, (list, tuple)) and _has_bool(values)):
        raise fail(name, owner, _REAL_REWARDS, values)
    try:
        return np.asarray(arr, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError, OverflowError):
        raise fail(name, owner, _REAL_REWARDS, values) from None


def is_finite_number(value: Any) -> bool:
    """A real number (not a bool) that is finite as a float (an integer beyond the float range is not)."""
    if not _is_real(value):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def check_probability(value: Any, name: str, owner: str = "") -> float:
    """Return ``value`` as a float in the open interval (0, 1)."""
    if not _is_real(value) or not 0.0 < value < 1.0:  # exact for integers of any size
        raise fail(name, owner, "a number in (0, 1)", value)
    return float(value)


#: The integers pybai stores (SQL BIGINT) or hands to numpy as int64: request ids, seeds, counts and
#: sizes lie in [INT64_MIN, INT64_MAX] (checked by :func:`check_int`; a larger one would overflow).
INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)


def _int_range(minimum: int | None, maximum: int | None) -> str:
    lo = INT64_MIN if minimum is None else minimum
    hi = INT64_MAX if maximum is None else maximum
    if hi == INT64_MAX:
        return f"an int >= {lo} (at most 2^63 - 1)" if lo != INT64_MIN else "an int in [-2^63, 2^63 - 1]"
    return f"an int in [{lo}, {hi:.0e}]" if hi >= 10**6 else f"an int in [{lo}, {hi}]"


def check_int(value: Any, name: str, owner: str = "", minimum: int | None = None, maximum: int | None = None, *,
              whole_floats: bool = False) -> int:
    """Return ``value`` as a Python int in [``minimum``, ``maximum``], both within the 64-bit range.

    The one check of every integer that reaches storage or numpy (request ids, seeds, counts,
    sizes): a Python or numpy integer (not a bool; with ``whole_floats`` also a float with an
    integer value, such as ``1e3``), compared exactly (an integer of any size is refused, never
    wrapped or converted to a float).  ``minimum`` defaults to :data:`INT64_MIN`, ``maximum`` to
    :data:`INT64_MAX`.
    """
    given = value  # shown as the user wrote it (1e+30, not its 31-digit integer)
    if whole_floats and isinstance(value, (float, np.floating)) and math.isfinite(value) and float(value).is_integer():
        value = int(value)
    lo = INT64_MIN if minimum is None else max(minimum, INT64_MIN)
    hi = INT64_MAX if maximum is None else min(maximum, INT64_MAX)
    if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)) or not lo <= int(value) <= hi:
        raise fail(name, owner, _int_range(minimum, maximum), given)
    return int(value)


def check_int_array(values: Any, name: str, owner: str = "", minimum: int | None = None,
                    maximum: int | None = None, expected: str | None = None) -> np.ndarray:
    """``values`` (an integer or array-like of integers) as a flat int64 array with every entry in
    [``minimum``, ``maximum``] (default: the 64-bit range), compared before any conversion.

    Entries beyond 64 bits, unsigned values above :data:`INT64_MAX`, floats, booleans and strings
    are refused with one line showing the values as given (never as wrapped 64-bit integers).
    ``expected`` replaces the default description in the message.
    """
    what = expected or ("integers" + (f" in [{minimum}, {maximum}]" if minimum is not None and maximum is not None
                                      else ""))
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError, OverflowError):
        raise fail(name, owner, what, values) from None
    flat = arr.reshape(-1)
    if arr.dtype.kind == "O":  # Python ints beyond 64 bits (or anything else)
        items = flat.tolist()
        if not all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in items):
            raise fail(name, owner, what, values)
        lo = INT64_MIN if minimum is None else minimum
        hi = INT64_MAX if maximum is None else maximum
        if any(not lo <= int(v) <= hi for v in items):
            raise fail(name, owner, what, values)
        return np.array(items, dtype=np.int64)
    if arr.dtype.kind not in "iu" or (isinstance(values, (list, tuple)) and _has_bool(values)):
        raise fail(name, owner, what, values)
    if flat.size:
        # compare in the array's own dtype (an uint64 above 2^63 - 1 must not wrap to a negative index)
        low, high = flat.min(), flat.max()
        if (minimum is not None and int(low) < minimum) or int(high) > (INT64_MAX if maximum is None else maximum) \
                or int(low) < INT64_MIN:
            raise fail(name, owner, what, values)
    return flat.astype(np.int64)


def check_positive_int(value: Any, name: str, owner: str = "", minimum: int = 1, maximum: int | None = None) -> int:
    """Return ``value`` as an int >= ``minimum`` (and <= ``maximum`` when given; always within 64 bits).

    A float with an integer value is accepted (``1e3``); see :func:`check_int`.
    """
    return check_int(value, name, owner, minimum, maximum, whole_floats=True)


def check_positive_float(value: Any, name: str, owner: str = "", allow_zero: bool = False) -> float:
    """Return ``value`` as a finite float > 0 (or >= 0 with ``allow_zero``)."""
    ok = is_finite_number(value)
    ok = ok and (float(value) >= 0.0 if allow_zero else float(value) > 0.0)
    if not ok:
        raise fail(name, owner, "a finite float >= 0" if allow_zero else "a finite float > 0", value)
    return float(value)


def check_choice(value: Any, choices: Sequence[str], name: str, owner: str = "") -> str:
    """Return ``value`` if it is one of ``choices``."""
    if not isinstance(value, str) or value not in choices:
        listed = ", ".join(repr(c) for c in choices)
        raise fail(name, owner, f"one of {listed}", value)
    return value


_KIND = {0: "a number", 1: "a list of numbers", 2: "a list of lists of numbers (a matrix)"}


def check_array(
    value: Any,
    name: str,
    owner: str = "",
    *,
    ndim: int | None = None,
    shape: tuple[int | None, ...] | None = None,
    low: float | None = None,
    high: float | None = None,
    strict_low: bool = False,
    min_size: int = 1,
) -> np.ndarray:
    """Return ``value`` as a finite float array with the requested shape and range.

    ``shape`` entries that are ``None`` are free.
    """
    try:
        raw = np.asarray(value)
        # strings ("1.0"), ragged lists and booleans (true in a file, which numpy would read as 1) are not numbers
        if raw.dtype.kind not in "iuf" or (isinstance(value, (list, tuple)) and _has_bool(value)):
            raise TypeError
        arr = raw.astype(float)
    except (TypeError, ValueError):
        raise fail(name, owner, "numbers" if ndim is None else _KIND.get(ndim, "an array of numbers"), value) from None
    if ndim is not None and arr.ndim != ndim:
        raise fail(name, owner, _KIND.get(ndim, f"an array with {ndim} dimensions"), value)
    if shape is not None:
        want = tuple(shape)
        if arr.ndim != len(want) or any(w is not None and w != s for w, s in zip(want, arr.shape)):
            shown = "(" + ", ".join("*" if w is None else str(w) for w in want) + ")"
            raise fail(name, owner, f"of shape {shown}", f"shape {arr.shape}")
    if arr.size < min_size:
        raise fail(name, owner, f"non-empty (at least {min_size} values)", value)
    if not np.all(np.isfinite(arr)):
        raise fail(name, owner, "finite numbers", value)
    if low is not None:
        bad = arr <= low if strict_low else arr < low
        if np.any(bad):
            rel = ">" if strict_low else ">="
            raise fail(name, owner, f"all {rel} {low:g}", value)
    if high is not None and np.any(arr > high):
        raise fail(name, owner, f"all <= {high:g}", value)
    return arr


def check_noise_scale(sigma: np.ndarray, means: np.ndarray | None, name: str = "sigma", owner: str = "") -> np.ndarray:
    """Check that noise standard deviations are numerically safe (see the two ranges above).

    ``sigma`` must lie in :data:`SIGMA_ABSOLUTE_RANGE`, and, when ``means`` are given and not all
    0, ``sigma / max|means|`` in :data:`SIGMA_RELATIVE_RANGE` (rescale the rewards otherwise:
    the problems are invariant to a common change of unit).
    """
    sig = np.asarray(sigma, dtype=float)
    lo, hi = SIGMA_ABSOLUTE_RANGE
    if np.any(sig < lo) or np.any(sig > hi):
        raise fail(name, owner, f"a number in [{lo:g}, {hi:g}] (numerically safe range)", _pick(sig, (sig < lo) | (sig > hi)))
    if means is not None:
        scale = float(np.max(np.abs(means))) if np.size(means) else 0.0
        if scale > 0.0:
            rlo, rhi = SIGMA_RELATIVE_RANGE
            ratio = sig / scale
            bad = (ratio < rlo) | (ratio > rhi)
            if np.any(bad):
                raise fail(name, owner, f"between {rlo:g} and {rhi:g} times the largest |mean| ({scale:g}) "
                           "(numerically safe range; rescale the rewards)", _pick(sig, bad))
    return sig


def _pick(arr: np.ndarray, bad: np.ndarray) -> float:
    return float(arr[bad].flat[0]) if arr.ndim else float(arr)


def check_weights(weights: np.ndarray, name: str = "weights", owner: str = "") -> np.ndarray:
    """Normalise positive ``weights`` to sum 1; warn (:class:`PybaiWarning`) when they were off by more
    than :data:`WEIGHTS_TOLERANCE` (weights are importances: only their ratios matter)."""
    total = float(np.sum(weights))
    if abs(total - 1.0) > WEIGHTS_TOLERANCE:
        import warnings

        from pybai.exceptions import PybaiWarning

        shown = ", ".join(f"{w:.4g}" for w in np.asarray(weights) / total)
        where = f" of {owner}" if owner else ""
        warnings.warn(PybaiWarning(f"The '{name}' parameter{where} sums to {total:g}, not 1: "
                                   f"normalised to [{shown}]."), stacklevel=3)
    return np.asarray(weights, dtype=float) / total


def memory_limit() -> int:
    """Bytes a single allocation plan may use: half of this machine's physical memory (8 GiB when unknown)."""
    try:
        import os

        return int(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")) // 2
    except (ValueError, OSError, AttributeError):
        return 8 * 2**30


def format_bytes(n: float) -> str:
    """``"12.3 GB"`` (powers of 1000)."""
    for unit in ("B", "kB", "MB", "GB", "TB", "PB"):
        if n < 1000 or unit == "PB":
            return f"{n:.3g} {unit}"
        n /= 1000.0
    return f"{n:.3g} PB"  # pragma: no cover


def check_memory(nbytes: float, name: str, owner: str, what: str, value: Any) -> None:
    """Refuse a size whose estimated memory ``nbytes`` (described by ``what``) exceeds :func:`memory_limit`."""
    limit = memory_limit()
    if nbytes > limit:  # an int of any size compares exactly; it is shown capped at 1e300 bytes
        raise fail(name, owner, f"small enough to fit in memory: {what} need about {format_bytes(float(min(nbytes, 1e300)))}, "
                   f"more than half of this machine's memory ({format_bytes(limit)})", value)


#: The largest file a user names that pybai reads (experiment and session files, answer CSVs,
#: data files): 16 MiB.  Larger files are refused before they are read, so that e.g. ``/dev/zero``
#: or a runaway log never fills the memory.
USER_FILE_LIMIT = 16 * 2**20


def _mib(n: int) -> str:
    return f"{n / 2**20:g} MiB"


def _special_kind(mode: int) -> str:
    for test, name in ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def read_user_bytes(path, what: str, error: type[Exception] = InvalidParameterError,
                    limit: int = USER_FILE_LIMIT) -> bytes:
    """The bytes of a regular file a user named, at most ``limit`` bytes, or one ``error`` line.

    Refused up front, naming the path: a missing file, a directory, a special file (character or
    block device such as ``/dev/zero``, FIFO, socket: they may never end or block forever) and a
    file larger than ``limit``.  The file is opened without blocking and checked on the open
    descriptor, so a FIFO swapped in after a check cannot hang the read.
    """
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise error(f"{path}: no such file.") from None
    except IsADirectoryError:
        raise error(f"{path}: is a directory, expected {what}.") from None
    except OSError as exc:
        raise error(f"{path}: cannot read ({exc.strerror}).") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise error(f"{path}: is a directory, expected {what}.")
        if not stat.S_ISREG(mode):
            raise error(f"{path}: is {_special_kind(mode)}, expected {what} (a regular file).")
        if os.fstat(fd).st_size > limit:
            raise error(f"{path}: larger than the {_mib(limit)} limit of {what}.")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(limit + 1)  # a file growing while read is still capped
    except OSError as exc:
        raise error(f"{path}: cannot read ({exc.strerror}).") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise error(f"{path}: larger than the {_mib(limit)} limit of {what}.")
    return data


def read_user_text(path, what: str, error: type[Exception] = InvalidParameterError, encoding: str = "utf-8",
                   limit: int = USER_FILE_LIMIT) -> str:
    """The text of a file a user named, or one ``error`` line saying why it cannot be read.

    ``what`` names the expected content (e.g. ``"an experiment file (TOML)"``) in the message
    for a directory, a special file or a file over ``limit`` bytes (see :func:`read_user_bytes`).
    Newlines are translated as by :meth:`pathlib.Path.read_text`.
    """
    data = read_user_bytes(path, what, error, limit)
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError:
        raise error(f"{Path(path)}: not a UTF-8 text file.") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")
