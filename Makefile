# Two commands a newcomer needs: `make run` and `make test`. Each builds .venv on first use,
# from the pinned versions: requirements.txt (what the bot runs on) for run and local,
# plus requirements-dev.txt (linters, test tools) for test. See docs/deploy.md.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip --disable-pip-version-check
RUN_STAMP := $(VENV)/.run-installed
DEV_STAMP := $(VENV)/.dev-installed

.PHONY: run local test lint mypy-tests bench lock image-check
run: $(RUN_STAMP)
	$(BIN)/python -m bot

local: $(RUN_STAMP)
	$(BIN)/python -m bot --local

lint: $(DEV_STAMP)
	$(BIN)/ruff check engine render ai bot tests benchmarks
	$(BIN)/mypy engine render ai bot benchmarks

# pytest-xdist workers: one per core, and one more. The stop and restart tests mostly wait on
# the bot processes they start (about a third of their time on a core): a worker beyond the
# cores keeps both busy meanwhile. On the 2-core machine: 13 min with 2 workers, 10 with 3,
# 9.6 with 4 (docs/engine.md).
TEST_WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))

test: lint mypy-tests
	$(BIN)/python -m pytest -n $(TEST_WORKERS)

# The tests under mypy --strict like the code, all of them (part of `make test`).
mypy-tests: $(DEV_STAMP)
	$(BIN)/mypy tests

# every benchmark at a size that takes minutes; the AI's full tournament (200 games per
# pairing, hours on 2 cores) is `python benchmarks/bench_ai.py` on its own
bench: $(RUN_STAMP)
	for f in benchmarks/bench_*.py; do \
		case $$f in *bench_ai.py) args="--games 8";; *) args="";; esac; \
		$(BIN)/python $$f $$args || exit 1; \
	done

# the Dockerfile's steps without Docker (docs/deploy.md); not part of test: it takes a minute
image-check:
	bash .ci/image-check

$(BIN)/python:
	$(PY) -m venv $(VENV)

# the runtime pins, then the project itself (editable) without resolving anything again
$(RUN_STAMP): pyproject.toml requirements.txt | $(BIN)/python
	$(PIP) install -q -r requirements.txt
	$(PIP) install -q --no-deps -e .
	$(PIP) check
	touch $@

$(DEV_STAMP): $(RUN_STAMP) requirements-dev.txt
	$(PIP) install -q -r requirements.txt -r requirements-dev.txt
	$(PIP) check
	touch $@

# Re-pin after changing a range in pyproject.toml: a fresh venv installs the project, and its
# versions are written down. Pins that still fit are kept; `make lock UPGRADE=1` takes the
# newest versions the ranges allow. Then run `make test` (it reinstalls from the new pins).
LOCK_VENV := .lock-venv
KEEP = $(if $(UPGRADE),,$(addprefix -c ,$(wildcard requirements.txt)))
KEEP_DEV = $(if $(UPGRADE),,$(addprefix -c ,$(wildcard requirements-dev.txt)))
HEADER = \# $(1), pinned by `make lock` from pyproject.toml with $(shell $(PY) --version).\n\# Do not edit by hand: change pyproject.toml, then run `make lock` (docs/deploy.md).
lock:
	rm -rf $(LOCK_VENV) build
	$(PY) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/python -m pip install -q --disable-pip-version-check $(KEEP) .
	{ printf '$(call HEADER,What the bot runs on)\n'; \
	  $(LOCK_VENV)/bin/python -m pip freeze --exclude khronos-discord; } > requirements.txt.new
	$(LOCK_VENV)/bin/python -m pip install -q --disable-pip-version-check \
	  -c requirements.txt.new $(KEEP_DEV) '.[dev]'
	{ printf '$(call HEADER,What make test adds to requirements.txt)\n'; \
	  $(LOCK_VENV)/bin/python -m pip freeze --exclude khronos-discord \
	  | grep -vxF -f requirements.txt.new; } > requirements-dev.txt.new
	mv requirements.txt.new requirements.txt
	mv requirements-dev.txt.new requirements-dev.txt
	rm -rf $(LOCK_VENV) build
