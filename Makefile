# Two commands on a fresh machine with Python >= 3.11 and make:
#   make run    install into .venv, then run the main job on the embedded defaults
#   make test   install into .venv, then lint, type-check and run the test suite
# Every install goes through requirements.lock (exact versions of every dependency, build tools
# included); `make lock` refreshes it. pyproject.toml keeps compatible ranges for people who
# install schedbench into an environment of their own.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
LOCK   := requirements.lock

.PHONY: run table simulate suites test test-fast browser docs figures test-slow test-deep bench bench-sim bench-frontier bench-pytest lint typecheck lock clean

# PIP_CONSTRAINT (not -c) so that the pins also hold inside pip's isolated build environment
# (setuptools, wheel), not only for the packages installed into the venv.
$(STAMP): pyproject.toml $(LOCK)
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "schedbench needs Python >= 3.11, found " + sys.version.split()[0])'
	$(PYTHON) -m venv $(VENV)
	PIP_CONSTRAINT=$(CURDIR)/$(LOCK) $(BIN)/python -m pip install --quiet --upgrade pip setuptools wheel
	PIP_CONSTRAINT=$(CURDIR)/$(LOCK) $(BIN)/python -m pip install --quiet -e '.[test,bench]'
	@# compile every numba kernel once into the on-disk cache, so that no later process (a
	@# suite's workers, the test workers, a first solve) pays it; a failed step is named and
	@# does not stop the install
	-$(BIN)/schedbench warm --quiet
	@touch $(STAMP)

# The main job: the `quick` suite — every backend on small decision problems against exact
# references, and BBSched's methods in a short simulation; ends with the leaderboards and the
# path of the HTML report. Results go to results/quick.sqlite (re-measured on every run).
run: $(STAMP)
	$(BIN)/schedbench run bench/suites/quick.toml --force

table: $(STAMP)
	$(BIN)/schedbench table instances/examples/*.json

SIM_WORKLOAD ?= lublin:jobs=5000,nodes=4392,seed=1+bbsched:S4,seed=1+arrivals:2
SIM_SOLVER   ?= dp
simulate: $(STAMP)
	$(BIN)/schedbench simulate --workload '$(SIM_WORKLOAD)' --system theta --priority wfp \
		--solver $(SIM_SOLVER) --out results/simulate/demo-$(SIM_SOLVER)

# `make test` is what CI runs (.ci/run): lint and format check, type check, then the default
# test pass (hypothesis derandomised: the same examples every run) on TEST_WORKERS processes
# (pytest-xdist; 2 = the CI machine's cores; TEST_WORKERS=0 runs in this process).
TEST_WORKERS ?= 2
# A browser on PATH once `browser` has run makes its check required (it must run, not skip);
# SCHEDBENCH_REQUIRE_BROWSER set by the caller wins.
test: lint typecheck browser
	SCHEDBENCH_REQUIRE_BROWSER=$${SCHEDBENCH_REQUIRE_BROWSER:-$(if $(found_browser),1,0)} $(BIN)/python -m pytest -n $(TEST_WORKERS)

test-fast: $(STAMP)
	$(BIN)/python -m pytest -n $(TEST_WORKERS)

# The HTML report's accessibility and layout check runs in a real headless browser
# (tests/bench/test_report.py). When none is on PATH, Debian's chromium is installed here, but only by
# root with apt-get (CI); anyone else gets a one-line warning and the check is skipped with the
# same reason. SCHEDBENCH_REQUIRE_BROWSER=1 turns a browser that cannot be had into an error.
BROWSERS := chromium chromium-browser google-chrome
found_browser = $(firstword $(foreach b,$(BROWSERS),$(shell command -v $(b) 2>/dev/null)))
browser:
	@for b in $(BROWSERS); do command -v $$b >/dev/null 2>&1 && exit 0; done; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing Debian's chromium for the HTML report's browser check"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	elif [ "$$SCHEDBENCH_REQUIRE_BROWSER" = 1 ]; then \
	  echo "error: SCHEDBENCH_REQUIRE_BROWSER=1 but no chromium on PATH, and only root with apt-get can install it here" >&2; \
	  exit 1; \
	else \
	  echo "warning: no chromium on PATH (installed here only by root with apt-get): the HTML report's browser check is skipped"; \
	fi

test-slow: $(STAMP)
	$(BIN)/python -m pytest -m slow

# Many more, randomised hypothesis examples (tests/conftest.py profile "deep"); run before a stop.
test-deep: $(STAMP)
	HYPOTHESIS_PROFILE=deep $(BIN)/python -m pytest -m 'not slow'

# Every performance-target figure (docs/figures.md#performance-frontier) in one go (each script
# prints its anchors, ratios and the target's verdict; tens of minutes; QUICK=1 for the quick
# modes): frontier (targets 1, 3), dp_speed and cerberus_speed (2), exact_backends (4: the shipped
# knapsack classics, and any others in ../shared/knapsack), sim_speed (5, conservative part of 6),
# suite_order (6), cold_start (12: a fresh process's first solve), three_phase_scale (7: the
# 100,000-job three-phase run, pass time per core) and stream_scale (10: ten million streamed jobs).
# Each records its verdicts, worst cases beside medians, in bench/benchmarks/figures/verdicts.json;
# the last step writes the performance table of docs/figures.md from them (perf_table.py).
BENCH_FLAGS = $(if $(QUICK),--quick,)
bench: $(STAMP)
	$(BIN)/python bench/benchmarks/frontier.py $(BENCH_FLAGS)
	$(BIN)/python bench/benchmarks/dp_speed.py $(BENCH_FLAGS)
	$(BIN)/python bench/benchmarks/cerberus_speed.py $(BENCH_FLAGS)
	$(BIN)/python bench/benchmarks/exact_backends.py $(BENCH_FLAGS)
	$(BIN)/python bench/benchmarks/sim_speed.py $(BENCH_FLAGS)
	$(BIN)/python bench/benchmarks/suite_order.py $(BENCH_FLAGS)
	$(BIN)/python bench/benchmarks/cold_start.py $(BENCH_FLAGS)
	$(BIN)/python bench/benchmarks/three_phase_scale.py $(BENCH_FLAGS)
	$(BIN)/python bench/benchmarks/stream_scale.py $(BENCH_FLAGS)
	$(BIN)/python bench/benchmarks/figures.py --only perf-table

bench-sim: $(STAMP)
	$(BIN)/python bench/benchmarks/sim_speed.py

# The performance frontier: dp and moo on conflict-rich windows, suite cell ordering.
bench-frontier: $(STAMP)
	$(BIN)/python bench/benchmarks/frontier.py
	$(BIN)/python bench/benchmarks/suite_order.py

# The long suites (outside the test pass): decision quality on windows, knapsack classics,
# BBSched closed-loop reproduction (two workers: simulations, latency not the point there), and
# every simulation core in closed loop with solvers of its kind (a few minutes).
suites: $(STAMP)
	$(BIN)/schedbench run bench/suites/cores.toml --workers 2 --resume
	$(BIN)/schedbench run bench/suites/window-quality.toml --resume
	$(BIN)/schedbench run bench/suites/knapsack-classics.toml --resume
	$(BIN)/schedbench run bench/suites/bbsched-repro.toml --workers 2 --resume

# docs/reference/ (CLI, metrics, file formats) regenerated from the code; a test fails when stale.
docs: $(STAMP)
	$(BIN)/python -m schedbench.bench.docgen

# Every measured figure and picture of docs/figures.md, regenerated (tens of minutes; QUICK=1 for
# the scripts' quick modes): bench/benchmarks/figures.py.
figures: $(STAMP)
	$(BIN)/python bench/benchmarks/figures.py $(if $(QUICK),--quick,)

# pytest-benchmark: the dp and simulator kernels and the decision families of SUITES (default
# bench/suites/quick.toml; several separated by spaces), each family one group, in a table that
# fits 100 columns (bench/benchmarks/conftest.py says how, and which pytest options change it).
SUITES ?=
bench-pytest: $(STAMP)
	$(BIN)/python -m pytest bench/benchmarks --benchmark-enable -p no:cacheprovider \
		$(foreach s,$(SUITES),--suite $(s))

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# mypy cannot follow setuptools' package-dir mapping (schedbench.simcore -> simcore/): check a
# link tree that has the installed layout.
typecheck: $(STAMP)
	@mkdir -p .typecheck/schedbench
	@for d in simcore solvers instances bench; do ln -sfn ../../$$d .typecheck/schedbench/$$d; done
	$(BIN)/mypy
	cd bench/benchmarks && MYPYPATH=$(CURDIR)/.typecheck:. $(CURDIR)/$(BIN)/mypy --config-file $(CURDIR)/pyproject.toml --explicit-package-bases --exclude '^$$' *.py

# Re-resolve every dependency from pyproject.toml's ranges in a throw-away venv and write the
# exact versions to requirements.lock (commit it; the next `make` reinstalls from it).
lock:
	rm -rf .lockenv
	$(PYTHON) -m venv .lockenv
	.lockenv/bin/python -m pip install --quiet --upgrade pip setuptools wheel
	.lockenv/bin/python -m pip install --quiet '.[test,bench]'
	{ echo '# Exact versions of every dependency, written by `make lock` from pyproject.toml'"'"'s ranges.'; \
	  echo '# Used as PIP_CONSTRAINT by the Makefile (venv installs and build isolation).'; \
	  echo "# Python $$(.lockenv/bin/python -c 'import platform; print(platform.python_version(), platform.machine())')"; \
	  .lockenv/bin/python -m pip freeze --all --exclude schedbench; } > $(LOCK)
	rm -rf .lockenv build

clean:
	rm -rf $(VENV) .lockenv build *.egg-info .typecheck
