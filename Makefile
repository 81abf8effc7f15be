PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install demo test test-fast bench clean docs typecheck

install: $(STAMP)

$(STAMP): pyproject.toml Makefile   # again when the extras change
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test,dask,wine,postgresql,serve,pandas]"
	$(BIN)/python -m compileall -q -j 2 src   # the package's bytecode, as a non-editable pip install writes it (PYTHONDONTWRITEBYTECODE may be set)
	$(BIN)/pybai precompile --jobs 2 --quiet   # the numerical kernels compiled once into numba's cache (~3 min on 2 cores), not by the first run
	touch $(STAMP)

demo: install   # every shipped reproduction with --quick settings, then a summary table; fails if any failed
	$(BIN)/pybai demo --jobs 2

# the tests write Python's bytecode caches (__pycache__, ignored by git) even where PYTHONDONTWRITEBYTECODE is set:
# without them each pytest worker and each of the hundreds of subprocesses the tests start compiles the
# package and pytest rewrites every test file again (measured: collection 21.5 s of CPU without, 10.1 s with)
TEST_ENV := PYTHONDONTWRITEBYTECODE=

test: install
	$(TEST_ENV) $(BIN)/python -m pytest -q -n 2 --dist loadfile --no-loadscope-reorder   # two processes (pytest-xdist), one test file each at a time, in collection order (tests/conftest.py puts the long files first)

test-fast: install   # the inner loop: the same suite without the tests marked slow (pytest -m "not slow")
	$(TEST_ENV) $(BIN)/python -m pytest -q -n 2 --dist loadfile --no-loadscope-reorder -m "not slow"

DOCS_STAMP := $(VENV)/.installed-docs

$(DOCS_STAMP): pyproject.toml $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[test,dask,wine,postgresql,serve,pandas,docs,typecheck]"
	touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)   # the site (user guide, API reference, executed gallery) in docs/_build/html; warnings are errors
	rm -rf docs/_build docs/generated docs/auto_examples docs/sg_execution_times.rst
	MPLBACKEND=Agg $(BIN)/python -m sphinx -W --keep-going -q -b html docs docs/_build/html

typecheck: $(DOCS_STAMP)   # mypy on src/pybai with the settings of pyproject.toml [tool.mypy]
	$(BIN)/python -m mypy

bench: install
	$(BIN)/python benchmarks/bench_track_and_stop.py

clean:
	rm -rf $(VENV) out build .build dist src/*.egg-info docs/_build docs/generated docs/auto_examples docs/sg_execution_times.rst
