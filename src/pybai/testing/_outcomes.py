"""What a check says besides passing: an expected error (:func:`raises`), a case it does not apply to
(:class:`CheckSkipped`), and the runner of a list of checks (:func:`run_checks`).

Plain Python: pytest is not needed to run a check (:func:`pytest_check` imports it when called).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["CheckSkipped", "raises", "run_checks", "pytest_check"]


class CheckSkipped(Exception):
    """The check does not apply to this case (its message says why); neither a pass nor a failure."""


@contextmanager
def raises(error: type[BaseException] | tuple[type[BaseException], ...], match: str | None = None,
           doing: str = "the call") -> Iterator[None]:
    """Assert that the block raises ``error`` whose message contains the regular expression ``match``.

    Raises
    ------
    AssertionError
        Nothing was raised, or the message does not match (another exception passes through).
    """
    names = error.__name__ if isinstance(error, type) else " or ".join(e.__name__ for e in error)
    try:
        yield
    except error as exc:
        if match is not None and not re.search(match, str(exc)):
            raise AssertionError(f"{doing} raised {type(exc).__name__}: {exc!s} -- expected a message "
                                 f"matching {match!r}") from exc
        return
    raise AssertionError(f"{doing} did not raise {names}" + (f" (matching {match!r})" if match else ""))


def run_checks(checks: Iterable[tuple[str, Callable[..., Any], tuple]]) -> dict[str, str]:
    """Run ``(name, check, args)`` triples; ``{name: "passed" | "skipped: why"}``.

    Raises
    ------
    AssertionError
        One line per failed check (its name and what failed, or the error it raised), after every
        check has run.
    """
    report: dict[str, str] = {}
    failed = []
    for name, check, args in checks:
        try:
            check(*args)
        except CheckSkipped as exc:
            report[name] = f"skipped: {exc}"
        except AssertionError as exc:
            report[name] = "failed"
            failed.append(f"{name}: {exc}")
        except Exception as exc:  # noqa: BLE001 - a check that crashes has failed too: said with its error
            report[name] = "failed"
            failed.append(f"{name}: raised {type(exc).__name__}: {exc}")
        else:
            report[name] = "passed"
    if failed:
        raise AssertionError(f"{len(failed)} of {len(report)} checks failed:\n" + "\n".join(failed))
    return report


def pytest_check(check: Callable[..., Any], *args) -> None:
    """Run ``check(*args)`` inside a pytest test: a case it does not apply to is reported as skipped."""
    try:
        check(*args)
    except CheckSkipped as exc:
        import pytest

        pytest.skip(str(exc))
