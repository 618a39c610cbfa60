# Two commands on a fresh machine with Python >= 3.11 and make:
#   make run    install into .venv, then run the main job on the embedded defaults
#   make test   install into .venv, then run the test suite
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run table simulate suites test test-slow bench bench-sim bench-pytest lint clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "schedbench needs Python >= 3.11, found " + sys.version.split()[0])'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
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

test: $(STAMP)
	$(BIN)/python -m pytest

test-slow: $(STAMP)
	$(BIN)/python -m pytest -m slow

bench: $(STAMP)
	$(BIN)/python bench/dp_speed.py

bench-sim: $(STAMP)
	$(BIN)/python bench/sim_speed.py

# The long suites (outside the test pass): decision quality on windows, knapsack classics,
# BBSched closed-loop reproduction (two workers: simulations, latency not the point there).
suites: $(STAMP)
	$(BIN)/schedbench run bench/suites/window-quality.toml --resume
	$(BIN)/schedbench run bench/suites/knapsack-classics.toml --resume
	$(BIN)/schedbench run bench/suites/bbsched-repro.toml --workers 2 --resume

bench-pytest: $(STAMP)
	$(BIN)/python -m pytest bench/ --benchmark-enable -p no:cacheprovider

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

clean:
	rm -rf $(VENV) build *.egg-info
