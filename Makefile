# `make run` and `make test` are the whole set-up: each creates .venv and installs what it needs.
PYTHON ?= $(shell python3.12 -c '' >/dev/null 2>&1 && echo python3.12 || echo python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000
PYTEST_ARGS ?=
CHROMIUM := /usr/bin/chromium
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check -e '.[dev]' 2>&1 | grep -v 'is ignored: it is neither a file nor a directory' || true
	$(BIN)/python -c 'import dreamchat, fastapi, moto, playwright'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/python -m dreamchat.api.server --host $(HOST) --port $(PORT)

# tests/browser drives Debian's Chromium; a CJK font makes its screenshots readable.
$(CHROMIUM):
	$(SUDO) apt-get update -qq
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-wqy-microhei

# pytest exits 5 when it collects no test; that is not a failure of the suite.
test: $(STAMP) $(CHROMIUM)
	$(BIN)/python -m pytest $(PYTEST_ARGS); rc=$$?; if [ $$rc -eq 5 ]; then echo "no tests collected"; exit 0; fi; exit $$rc

clean:
	rm -rf $(VENV) .pytest_cache
