# Two commands a newcomer needs: `make run` and `make test`. Each builds .venv on first use.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

$(STAMP): pyproject.toml
	test -d $(VENV) || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

.PHONY: run test lint bench local
run: $(STAMP)
	$(BIN)/python -m bot

local: $(STAMP)
	$(BIN)/python -m bot --local

lint: $(STAMP)
	$(BIN)/ruff check engine render bot tests benchmarks
	$(BIN)/mypy engine render bot

test: $(STAMP) lint
	$(BIN)/python -m pytest

bench: $(STAMP)
	for f in benchmarks/bench_*.py; do $(BIN)/python $$f || exit 1; done
