# Two developer verbs: `make test` and `make lint`. Both set up .venv themselves.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install test lint bench bench-all eval eval-baseline clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[dev,semantic]"
	touch $(STAMP)

install: $(STAMP)

test: $(STAMP)
	$(PY) -m pytest

lint: $(STAMP)
	$(PY) -m ruff check shared services tests bench evals

bench: $(STAMP)
	$(PY) bench/portfolio_bench.py

bench-all: bench
	$(PY) bench/api_bench.py
	$(PY) bench/kb_bench.py
	$(PY) bench/sources_bench.py
	$(PY) bench/sessions_bench.py
	$(PY) bench/semantic_bench.py

eval: $(STAMP)
	$(PY) evals/run.py --check

eval-baseline: $(STAMP)
	$(PY) evals/run.py --write-baseline

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
