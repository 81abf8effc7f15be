"""pybai.testing's runner: plain assertions, skips, a report, and no pytest at import."""

import subprocess
import sys

import pytest

from pybai.testing import CheckSkipped, raises, run_checks


def test_importing_the_checks_loads_no_pytest():
    code = "import sys, pybai.testing; print('pytest' in sys.modules, 'pybai.testing' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.stdout.split() == ["False", "True"], out.stdout + out.stderr


def _fails():
    raise AssertionError("one is not two")


def _skips():
    raise CheckSkipped("not for this case")


def _crashes():
    raise KeyError("k")


def test_run_checks_reports_each_check_and_fails_after_all_ran():
    assert run_checks([("ok", lambda: None, ()), ("skip", _skips, ())]) == {"ok": "passed",
                                                                          "skip": "skipped: not for this case"}
    with pytest.raises(AssertionError) as info:
        run_checks([("a", _fails, ()), ("b", lambda: None, ()), ("c", _crashes, ())])
    lines = str(info.value).splitlines()
    assert lines == ["2 of 3 checks failed:", "a: one is not two", "c: raised KeyError: 'k'"]


def test_raises_asserts_the_error_and_its_message():
    with raises(ValueError, match="bad"):
        raise ValueError("a bad value")
    with pytest.raises(AssertionError, match="the call did not raise ValueError"):
        with raises(ValueError):
            pass
    with pytest.raises(AssertionError, match="expected a message matching 'good'"):
        with raises(ValueError, match="good"):
            raise ValueError("a bad value")
    with pytest.raises(TypeError):  # another error passes through
        with raises(ValueError):
            raise TypeError("t")
