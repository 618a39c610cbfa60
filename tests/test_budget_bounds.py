"""Every registered solver keeps to its budget on a huge window (issue 11, unbounded work).

Each solver gets a Theta-like window of 100,000 jobs with a 1 s budget and must return by the
budget plus the harness's grace (``bench/run/isolate.py``: where the harness would kill it) with
a feasible answer or a declared reason. Two capacity regimes: room for about half of the jobs
(greedy heuristics make tens of thousands of picks), and a tight node capacity small enough that
exact engines try to build dense DP tables over it. Before the fixes: binpack 22 s at w = 30,000,
moo 524 s, weighted/constrained 80 s (an 8 GB bound table): far beyond any grace.

The bound is seconds of slack on purpose, not a multiple of the budget: the work a solver does
after its deadline (CP-SAT's presolve of 100,000 variables cannot be interrupted) stretches with
the machine's load, and a verdict must not depend on that (a fresh-clone run at load 2-6 took
2.26 s against the 2 s bound this test used to have). The tight bound, twice the budget, is kept
for a quiet machine in ``make test-slow``.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from schedbench.simcore.kinds.selection.problem import SelectionProblem
from schedbench.simcore.problem import Budget, Status
from schedbench.simcore.solver import timed_solve, warm_up
from schedbench.solvers.registry import known_solvers, make_solver
from tests._timing import GRACE_S

W = 100_000
BUDGET_S = 1.0
#: Default pass: where the harness would kill the call. Slow pass, on a quiet machine: twice
#: the budget.
LIMITS = [
    pytest.param(BUDGET_S + GRACE_S, id="grace"),
    pytest.param(2 * BUDGET_S, id="tight", marks=pytest.mark.slow),
]


def _window(room: float) -> SelectionProblem:
    rng = np.random.default_rng(7)
    nodes = rng.choice([1, 8, 64, 128, 512, 1024, 4392], size=W).astype(float)
    bb = np.where(rng.random(W) < 0.6, rng.integers(1_000, 285_000, size=W), 0).astype(float)
    demands = np.column_stack([nodes, bb])
    return SelectionProblem(capacities=np.floor(demands.sum(axis=0) * room), demands=demands)


@pytest.fixture(scope="module")
def windows() -> dict[str, SelectionProblem]:
    return {"half": _window(0.5), "tight": _window(0.003)}


@pytest.mark.parametrize("limit_s", LIMITS)
@pytest.mark.parametrize("regime", ["half", "tight"])
@pytest.mark.parametrize("name", known_solvers())
def test_every_solver_keeps_to_its_budget_on_a_huge_window(windows, name, regime, limit_s):
    problem = windows[regime]
    solver = make_solver(name)
    warm_up(solver)  # untimed: JIT compilation, worker start-up
    t0 = time.perf_counter()
    ok, why = solver.supports(problem)
    if not ok:
        # A decline says why, and takes less than the budget the solve would have had.
        assert why and time.perf_counter() - t0 < BUDGET_S
        return
    decision = timed_solve(solver, problem, Budget(deadline_s=BUDGET_S))
    elapsed = time.perf_counter() - t0
    assert elapsed <= limit_s, (
        f"{name}: {elapsed:.2f} s for a {BUDGET_S:g} s budget (limit {limit_s:.2f} s)"
    )
    assert decision.status != Status.ERROR, decision.notes
    if decision.objectives:
        problem.check_selection(decision.selected)  # already vetted by the core; be explicit
