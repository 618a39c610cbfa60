"""weighted and constrained baselines (BBSched §1 Table 1, §4.3)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from schedbench.simcore.kinds.selection.problem import SelectionProblem
from schedbench.simcore.problem import Budget, Status
from schedbench.solvers.registry import make_solver
from schedbench.solvers.scalarised import parse_weights, weighted_objective
from schedbench.solvers.testing import random_problem, table1

ENGINES = ["dp", "cpsat", "mip-highs"]


@pytest.mark.parametrize("engine", ENGINES)
def test_table1_weighted_cpu_and_constrained_pick_j1_j5(engine):
    # BBSched §1: "The constrained, the weighted and the bin packing methods select J1 and J5".
    for name in ("weighted-cpu", "constrained-cpu"):
        d = make_solver(name, {"engine": engine}).solve(table1(), Budget(10))
        assert d.selected == (0, 4), name
        assert d.status == Status.FEASIBLE  # one point of a two-objective problem
        assert d.pareto[0].objectives == (100.0, 20.0)


@pytest.mark.parametrize("engine", ENGINES)
def test_table1_bb_leaning_methods_pick_j2_to_j5(engine):
    for name in ("weighted-bb", "constrained-bb"):
        d = make_solver(name, {"engine": engine}).solve(table1(), Budget(10))
        assert d.selected == (1, 2, 3, 4), name


def _brute_best(problem, score):
    best = -np.inf
    for r in range(problem.w + 1):
        for sel in itertools.combinations(range(problem.w), r):
            if problem.is_feasible(sel):
                value = score(sel)
                if value > best + 1e-12:
                    best = value
    return best


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("engine", ENGINES)
def test_weighted_maximises_the_weighted_utilisation(seed, engine):
    problem = random_problem(seed, 9, 2, 2)
    weights = (0.7, 0.3)
    d = make_solver("weighted", {"engine": engine, "weights": "0.7,0.3"}).solve(problem, Budget(10))

    def utilisation(sel):
        return float(np.dot(weights, np.asarray(problem.evaluate(sel)) / problem.objective_scales))

    assert utilisation(d.selected) == pytest.approx(_brute_best(problem, utilisation), rel=1e-9)


@pytest.mark.parametrize("seed", range(8))
def test_constrained_maximises_its_objective(seed):
    problem = random_problem(seed, 9, 3, 3, objectives_are_demands=False)
    for index, name in enumerate(("constrained-cpu", "constrained-bb", "constrained-ssd")):
        d = make_solver(name).solve(problem, Budget(10))
        best = _brute_best(problem, lambda sel, i=index: problem.evaluate(sel)[i])
        assert d.objectives[index] == pytest.approx(best)


def test_integer_weighted_objective_ranks_like_the_utilisation():
    problem = SelectionProblem(
        capacities=[4392, 2_160_000], demands=[[128, 1000], [256, 0], [1024, 90_000]]
    )
    row = weighted_objective(problem, (0.8, 0.2))
    assert np.all(row == np.round(row))  # integers: exact for CP-SAT and MIP
    util = (np.array([0.8, 0.2]) / problem.objective_scales) @ problem.objectives
    assert np.allclose(row / row.max(), util / util.max())


def test_bad_parameters():
    with pytest.raises(ValueError, match="weights"):
        make_solver("weighted", {"weights": "a,b"})
    with pytest.raises(ValueError, match="engine"):
        make_solver("weighted", {"engine": "gurobi"})
    ok, reason = make_solver("weighted", {"weights": "1,1,1"}).supports(table1())
    assert not ok and "3 weights" in reason
    ok, reason = make_solver("constrained-ssd").supports(table1())
    assert not ok and "objective 2" in reason
    assert parse_weights("") == ()


@pytest.mark.parametrize("engine", ENGINES)
def test_constrained_breaks_ties_towards_a_pareto_point(engine):
    # Max BB alone ties {J2, J3} (90 TB, 50 nodes) with {J2, J3, J4, J5} (90 TB, 80 nodes).
    d = make_solver("constrained-bb", {"engine": engine}).solve(table1(), Budget(10))
    assert d.objectives == (80.0, 90.0)
