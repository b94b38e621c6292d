# pinchpoint: `make run` starts the main job, `make test` runs lint, type check and the whole suite.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test venv system-deps database lint typecheck pytest bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV) || (sh scripts/install-system-deps.sh python && $(PYTHON) -m venv $(VENV))
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

run: $(STAMP)
	$(BIN)/pinchpoint serve --demo-if-no-sas --open-reads

system-deps:
	sh scripts/install-system-deps.sh tools

database:
	sh scripts/start-postgres.sh

lint: $(STAMP)
	$(BIN)/ruff check pinchpoint tests bench
	$(BIN)/ruff format --check pinchpoint tests bench
	$(BIN)/lint-imports --no-logo --no-cache

typecheck: $(STAMP)
	$(BIN)/mypy pinchpoint

pytest: $(STAMP)
	$(BIN)/pytest

test: system-deps database lint typecheck pytest

bench: $(STAMP)
	$(BIN)/python bench/inventory_bench.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
