PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install demo test bench clean

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test,dask]"
	touch $(STAMP)

demo: install
	$(BIN)/pybai demo

test: install
	$(BIN)/python -m pytest -q -n 2 --dist loadfile   # two processes (pytest-xdist), one test file each at a time

bench: install
	$(BIN)/python benchmarks/bench_track_and_stop.py

clean:
	rm -rf $(VENV) out build .build dist src/*.egg-info
