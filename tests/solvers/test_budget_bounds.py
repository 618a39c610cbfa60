"""Every registered solver keeps to its budget on a huge window
(docs/design.md#trust-boundaries-and-bounded-work).

Each solver gets a Theta-like window of 100,000 jobs with a 1 s budget and must answer (a
feasible answer or a declared reason) having done at most the budget plus the harness's grace
(``simcore.solver.GRACE_S``) of work. Two capacity regimes: room for about half of the jobs
(greedy heuristics make tens of thousands of picks), and a tight node capacity small enough that
exact engines try to build dense DP tables over it. Before the fixes: binpack 22 s at
w = 30,000, moo 524 s, weighted/constrained 80 s (an 8 GB bound table).

Work is counted as CPU time of this process and its descendants (the MIP worker and its CBC),
not as wall time: what a solver does that it cannot interrupt (CP-SAT's presolve of 100,000
variables, building a 100,000-column MILP) stretches in wall time with the machine's load (a
fresh-clone run at load 2-6 took 2.26 s against the 2 s wall bound this test used to have; at
load 5, cpsat and mip took 7-9 s), while the CPU time it needs does not. The wall-time bound,
twice the budget on a quiet machine, is kept in ``make test-slow`` (``wall`` variant).
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from schedbench.simcore.kinds.selection.problem import SelectionProblem
from schedbench.simcore.problem import Budget, Status
from schedbench.simcore.solver import timed_solve, warm_up
from schedbench.solvers.registry import known_solvers, make_solver
from tests._timing import GRACE_S, tree_cpu_seconds

W = 100_000
BUDGET_S = 1.0
#: (what is measured, its bound in seconds): CPU work in the default pass; wall time, on a
#: quiet machine, in the slow pass.
BOUNDS = [
    pytest.param(("cpu", BUDGET_S + GRACE_S), id="cpu"),
    pytest.param(("wall", 2 * BUDGET_S), id="wall", marks=pytest.mark.slow),
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


def _answer(solver, problem: SelectionProblem):
    """supports() then, if it takes the problem, the timed solve: (decision or None, why)."""
    ok, why = solver.supports(problem)
    if not ok:
        return None, why
    return timed_solve(solver, problem, Budget(deadline_s=BUDGET_S)), ""


@pytest.mark.parametrize("bound", BOUNDS)
@pytest.mark.parametrize("regime", ["half", "tight"])
@pytest.mark.parametrize("name", known_solvers())
def test_every_solver_keeps_to_its_budget_on_a_huge_window(windows, name, regime, bound):
    measure, limit_s = bound
    problem = windows[regime]
    solver = make_solver(name)
    warm_up(solver)  # untimed: JIT compilation, worker start-up
    t0 = time.perf_counter()
    (decision, why), cpu_s = tree_cpu_seconds(_answer, solver, problem)
    took = cpu_s if measure == "cpu" else time.perf_counter() - t0
    assert took <= limit_s, (
        f"{name}: {took:.2f} s ({measure}) for a {BUDGET_S:g} s budget (limit {limit_s:.2f} s)"
    )
    if decision is None:
        assert why  # a decline says why
        return
    assert decision.status != Status.ERROR, decision.notes
    if decision.objectives:
        problem.check_selection(decision.selected)  # already vetted by the core; be explicit
