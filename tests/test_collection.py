"""Collecting the tests stays fast: no test file does seconds of work when it is imported.

Building every shipped experiment at import once made collection take over a minute (each
pytest-xdist worker collects every file).  The times are CPU seconds of this very collection
(tests/conftest.py records them; nothing is run twice): the first file to import numba, scipy
and the package pays for them, so a file gets a few seconds; ~9-15 s of CPU for the whole
suite were measured on a shared 2-core machine, under the bound below.
"""

#: CPU seconds for the whole collection of this process, and for one file
TOTAL_BUDGET, FILE_BUDGET = 35.0, 10.0


def test_collection_is_fast(collection_cpu):
    total = collection_cpu.pop("", 0.0)
    slow = {name: round(cpu, 1) for name, cpu in collection_cpu.items() if cpu > FILE_BUDGET}
    assert not slow, f"test files that work for seconds at import (move the work into the tests): {slow}"
    assert total < TOTAL_BUDGET, f"collection took {total:.1f} s of CPU (budget {TOTAL_BUDGET} s)"
