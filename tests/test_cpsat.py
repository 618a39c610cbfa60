"""cpsat: agrees with exhaustive; OR-Library optima; the Zitzler–Thiele front; deadlines."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from instances.knapsack_files import read_front, read_mknap, read_zitzler_thiele
from instances.windows import theta_window
from simcore.problem import Budget, SelectionProblem, Status
from solvers.cpsat import CPSATSolver
from solvers.exhaustive import ExhaustiveSolver
from solvers.testing import random_problem, table1

KNAPSACK = Path(__file__).resolve().parents[2] / "shared" / "knapsack"
needs_knapsack = pytest.mark.skipif(not KNAPSACK.is_dir(), reason="../shared/knapsack is absent")

CPSAT = CPSATSolver()
EXHAUSTIVE = ExhaustiveSolver()


def _front(decision):
    return sorted(p.objectives for p in decision.pareto)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize(
    ("w", "k", "m", "fractional", "demand_objectives"),
    [
        (10, 2, 1, False, False),
        (9, 3, 1, True, False),
        (10, 2, 2, False, True),
        (10, 2, 2, True, True),
        (8, 2, 3, False, False),
    ],
)
def test_agrees_with_exhaustive(seed, w, k, m, fractional, demand_objectives):
    problem = random_problem(
        seed,
        w,
        k,
        m,
        fractional=fractional,
        objectives_are_demands=demand_objectives,
        must_include=seed % 3,
    )
    got = CPSAT.solve(problem, Budget(30))
    want = EXHAUSTIVE.solve(problem, Budget(30))
    assert got.status == want.status == Status.OPTIMAL
    if m == 1:
        assert got.objectives == pytest.approx(want.objectives)
    else:
        assert np.allclose(_front(got), _front(want))


def test_table1_front():
    d = CPSAT.solve(table1(), Budget(15))
    assert d.status == Status.OPTIMAL
    assert _front(d) == [(80.0, 90.0), (100.0, 20.0)]
    assert d.selected == (1, 2, 3, 4)


@needs_knapsack
def test_or_library_optima():
    instances = read_mknap(KNAPSACK / "mknap1.txt")
    assert [i.optimum for i in instances] == [3800, 8706.1, 4015, 6120, 12400, 10618, 16537]
    for inst in instances:
        d = CPSAT.solve(inst.problem, Budget(30))
        assert d.status == Status.OPTIMAL, inst.name
        assert d.objectives[0] == pytest.approx(inst.optimum, abs=1e-6), inst.name


def _zitzler_thiele():
    problem = read_zitzler_thiele(KNAPSACK / "knapsack.100.2")
    expected = sorted(map(tuple, read_front(KNAPSACK / "knapsack.100.2.pareto").tolist()))
    assert len(expected) == 121
    d = CPSATSolver(workers=2).solve(problem, Budget(30))
    return d, sorted(p.objectives for p in d.pareto), expected


@needs_knapsack
def test_zitzler_thiele_points_are_exact():
    # Default pass: within the 30 s budget every point reported is on the published front (only
    # proven points are reported) and most of the front is found; the whole front takes about
    # 121 CP-SAT solves, 15-30 s on 2 cores, so completion is asserted in the slow test below.
    d, found, expected = _zitzler_thiele()
    assert set(found) <= set(expected)
    assert len(found) >= 60, f"{len(found)} of 121 points"
    if d.status == Status.OPTIMAL:
        assert found == expected


@pytest.mark.slow
@needs_knapsack
def test_zitzler_thiele_front_exactly():
    d, found, expected = _zitzler_thiele()
    assert d.status == Status.OPTIMAL, f"{len(found)} of 121 points before the deadline"
    assert found == expected


def test_fractional_scaling_is_exact():
    # 0.1 + 0.2 != 0.3 in floats; decimal scaling makes the capacity exactly reachable.
    problem = SelectionProblem(
        capacities=[0.3], demands=[[0.1], [0.2], [0.25]], objectives=[[1.5, 1.5, 2.9]]
    )
    d = CPSAT.solve(problem, Budget(10))
    assert d.status == Status.OPTIMAL
    assert d.selected == (0, 1)
    assert d.objectives == pytest.approx((3.0,))


def test_non_decimal_data_is_never_optimal():
    problem = SelectionProblem(capacities=[1.0], demands=[[1 / 3], [1 / 3], [1 / 7]])
    d = CPSAT.solve(problem, Budget(10))
    assert d.status == Status.FEASIBLE
    assert any("not decimal" in n for n in d.notes)
    problem.check_selection(d.selected)


def test_deadline_gives_timeout_not_exception():
    problem = theta_window(200, 5)
    d = CPSATSolver(time_limit_s=0.05).solve(problem, Budget(15))
    assert d.status in (Status.TIMEOUT, Status.OPTIMAL)
    problem.check_selection(d.selected)


def test_anytime_trace_is_monotone():
    problem = random_problem(1, 40, 3, 1, objectives_are_demands=False)
    d = CPSAT.solve(problem, Budget(10))
    values = [t.objectives[0] for t in d.trace]
    assert values and values == sorted(values)
    assert values[-1] == pytest.approx(d.objectives[0])
    times = [t.time_s for t in d.trace]
    assert times == sorted(times)
