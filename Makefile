# pinchpoint: `make run` starts the main job, `make test` runs lint, type check and the whole suite.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test venv system-deps database bpf lint typecheck pytest bench clean

# Two installs in one venv: what running needs (`make run`: the package and its runtime
# dependencies) and, for `make test`, the dev extras on top (which include the runtime).
RUN_STAMP := $(VENV)/.installed-run
# setuptools says "Editable installation … be careful with folders named like the package" on
# every editable install, an information only: not shown.
PIP := PYTHONWARNINGS="ignore:Editable installation" $(BIN)/pip --quiet --disable-pip-version-check

$(BIN)/python:
	$(PYTHON) -m venv $(VENV) || (sh scripts/install-system-deps.sh python && $(PYTHON) -m venv $(VENV))
	$(PIP) install --upgrade pip

$(RUN_STAMP): pyproject.toml | $(BIN)/python
	$(PIP) install -e .
	touch $(RUN_STAMP)

$(STAMP): pyproject.toml | $(BIN)/python
	$(PIP) install -e '.[dev,bench]'
	touch $(STAMP) $(RUN_STAMP)

venv: $(STAMP)

# The kernel latency recorder (bpf/, docs/ebpf.md), built for this kernel's BTF into the venv's
# bin/, where pinchpoint looks for it. Needs clang, bpftool and libbpf-dev (system-deps).
BIOLAT := $(BIN)/pinchpoint-biolat
$(BIOLAT): $(RUN_STAMP) bpf/biolat.bpf.c bpf/biolat.c bpf/biolat.h bpf/map_memory.c bpf/map_memory.h bpf/Makefile
	$(MAKE) -s -C bpf OUT=$(abspath $(VENV))/bpf-build
	cp $(VENV)/bpf-build/pinchpoint-biolat $@

bpf: $(BIOLAT)

run: $(RUN_STAMP) bpf
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

# Two processes (this machine's cores): whole test files to each, in the order collected, so
# the tests that start servers still run last in each (tests/conftest.py).
TEST_WORKERS ?= 2
pytest: $(STAMP)
	$(BIN)/pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder

test: system-deps database bpf lint typecheck pytest

# the code bench/fleet_bench.py compares with ("before"): a checkout of main beside this one
MAIN_CHECKOUT ?= ../main

bench: $(STAMP)
	$(BIN)/python bench/inventory_bench.py
	$(BIN)/python bench/ebpf_overhead.py
	$(BIN)/python bench/api_load_bench.py
	$(BIN)/python bench/cached_get_cost_bench.py
	$(BIN)/python bench/swap_pause_bench.py
	$(BIN)/python bench/cli_start_bench.py
	$(BIN)/python bench/check_bench.py
	$(BIN)/python bench/check_floor_bench.py
	$(BIN)/python bench/inventory_reads_bench.py
	$(BIN)/python bench/sampler_tick_bench.py
	$(BIN)/python bench/fleet_bench.py --before $(MAIN_CHECKOUT)
	$(BIN)/python bench/store_growth_bench.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache bpf/build
