# `make run` and `make test` are the whole set-up: each creates .venv and installs what it needs.
# The venv runs the Lambda runtime's Python (3.12: on PATH or from pyenv) at the versions of
# requirements.lock, the same file the Lambda layer is built from.
PYTHON ?= $(shell python3 infra/runtime.py 2>/dev/null)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000
# two workers (pytest-xdist); `PYTEST_ARGS=` runs the suite serially. Whole files go to a worker and every
# browser test to the same one (loadgroup; the groups are set in tests/conftest.py).
PYTEST_ARGS ?= -n 2 --dist loadgroup
LOCK_ARGS ?=
CHROMIUM := /usr/bin/chromium
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run lint test lock clean

$(STAMP): pyproject.toml requirements.lock
	@test -n "$(PYTHON)" || python3 infra/runtime.py
	$(BIN)/python -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))' 2>/dev/null || { rm -rf $(VENV); $(PYTHON) -m venv $(VENV); }
	$(BIN)/python -m pip install -q --disable-pip-version-check -c requirements.lock -e '.[dev,local-embeddings]' 2>&1 | grep -v 'is ignored: it is neither a file nor a directory' || true
	$(BIN)/python -c 'import dreamchat, fastapi, moto, playwright'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/python -m dreamchat.api.server --host $(HOST) --port $(PORT)

# tests/browser drives Debian's Chromium; a CJK font makes its screenshots readable.
$(CHROMIUM):
	$(SUDO) apt-get update -qq
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-wqy-microhei

# The checks `make test` runs first (and pre-commit before each commit): lint, formatting, types.
# mypy's files and its strict packages (domain, ports, services) are in pyproject.toml.
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# pytest exits 5 when it collects no test; that is not a failure of the suite.
test: lint $(STAMP) $(CHROMIUM)
	$(BIN)/python -m pytest $(PYTEST_ARGS); rc=$$?; if [ $$rc -eq 5 ]; then echo "no tests collected"; exit 0; fi; exit $$rc

# After changing dependencies in pyproject.toml (LOCK_ARGS=--upgrade to move every pin forward).
lock: $(STAMP)
	$(BIN)/uv pip compile pyproject.toml --all-extras --python-version 3.12 --python-platform x86_64-manylinux_2_34 \
		--custom-compile-command "make lock" $(LOCK_ARGS) -o requirements.lock

clean:
	rm -rf $(VENV) .pytest_cache
