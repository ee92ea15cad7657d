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

# The header says what the run found: redis-server for the integration tests, the corpora
# through SOLOGRAPH_CORPORA; what is missing is skipped with that reason.
test: $(STAMP)
	@command -v redis-server >/dev/null || [ -n "$$REDIS_URL" ] || echo "make test: redis-server not found: the integration tests that need a broker are skipped (apt-get install redis-server)"
	@[ -d "$$SOLOGRAPH_CORPORA" ] || echo "make test: SOLOGRAPH_CORPORA is not set: the tests on the real corpora are skipped (set it to the corpora folder)"
	$(PY) -m pytest

lint: $(STAMP)
	$(PY) -m ruff check shared services tests bench evals
	$(PY) -m mypy

bench: $(STAMP)
	$(PY) bench/portfolio_bench.py

bench-all: bench
	$(PY) bench/api_bench.py
	$(PY) bench/startup_bench.py
	$(PY) bench/kb_bench.py
	$(PY) bench/sources_bench.py
	$(PY) bench/sessions_bench.py
	$(PY) bench/semantic_bench.py
	$(PY) bench/secrets_bench.py
	$(PY) bench/secrets_linear_bench.py
	$(PY) bench/web_bench.py

eval: $(STAMP)
	$(PY) evals/run.py --check

eval-baseline: $(STAMP)
	$(PY) evals/run.py --write-baseline

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
