"""``bnb`` (solvers/bnb.py, solvers/_bnb.py; performance target 4): exact against ``exhaustive`` on
small random problems, against the published Zitzler–Thiele 100.2 front, against
``cpsat[method=two-phase]`` on Zitzler–Thiele-recipe instances; timeouts report front points only."""

from __future__ import annotations

import numpy as np
import pytest

from schedbench.instances import datasets
from schedbench.instances.knapsack_files import read_front, read_zitzler_thiele
from schedbench.instances.knapsack_recipes import chu_beasley, zitzler_thiele
from schedbench.simcore.errors import SolverParameterError
from schedbench.simcore.kinds.selection.problem import SelectionProblem
from schedbench.simcore.problem import Budget, Status
from schedbench.solvers import bnb as bnb_module
from schedbench.solvers.bnb import BnBSolver
from schedbench.solvers.cpsat import CPSATSolver
from schedbench.solvers.exhaustive import ExhaustiveSolver
from tests._timing import ticking_clock

#: The knapsack classics, shipped with the package (datasets or-mknap1 and zt-100-2).
MKNAP1 = datasets.path("or-mknap1")
ZT_100_2 = datasets.path("zt-100-2")
ZT_100_2_FRONT = datasets.path("zt-100-2/front")

BNB = BnBSolver()
EXHAUSTIVE = ExhaustiveSolver()


def _front(decision):
    return sorted(tuple(p.objectives) for p in decision.pareto)


def _random(seed: int) -> SelectionProblem:
    """1-3 resources, 1-2 objectives, some negative or constant objectives, some items that never
    fit, some zero-demand columns, an objective equal to a demand now and then."""
    rng = np.random.default_rng([17, seed])
    w, k, m = int(rng.integers(0, 15)), int(rng.integers(1, 4)), int(rng.integers(1, 3))
    demands = rng.integers(0, 30, size=(w, k)).astype(float)
    if seed % 5 == 0:
        demands[:, 0] = 0
    caps = np.floor(demands.sum(axis=0) * rng.uniform(0.2, 0.8))
    objectives = rng.integers(-10 if seed % 3 == 0 else 0, 30, size=(m, w)).astype(float)
    if seed % 7 == 0 and m == 2:
        objectives[1] = demands[:, -1]
    if seed % 11 == 0:
        objectives[0] = 0
    if seed % 13 == 0:
        demands = demands / 10  # one decimal: still exact in integers
    return SelectionProblem(capacities=caps, demands=demands.reshape(w, k), objectives=objectives)


@pytest.mark.parametrize("workers", [1, 2])
def test_agrees_with_exhaustive(workers):
    solver = BnBSolver(workers=workers)
    for seed in range(150):
        problem = _random(seed)
        got = solver.solve(problem, Budget(10))
        want = EXHAUSTIVE.solve(problem, Budget(10))
        assert got.status == want.status == Status.OPTIMAL, seed
        if problem.M == 1:
            assert got.objectives == pytest.approx(want.objectives), seed
        else:
            assert _front(got) == _front(want), seed


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_agrees_with_two_phase_on_zitzler_thiele_recipe(seed):
    problem = zitzler_thiele(seed, n=40 + 10 * seed)
    got = BnBSolver(workers=2).solve(problem, Budget(30))
    want = CPSATSolver(method="two-phase").solve(problem, Budget(30))
    assert got.status == want.status == Status.OPTIMAL
    assert _front(got) == _front(want) and len(_front(got)) >= 10
    assert got.stats["front"] == len(_front(got))


@pytest.mark.parametrize("seed", range(3))
def test_single_objective_agrees_with_cpsat(seed):
    problem = chu_beasley(seed, n=25, m=3, tightness=0.5)
    got = BNB.solve(problem, Budget(30))
    want = CPSATSolver().solve(problem, Budget(30))
    assert got.status == want.status == Status.OPTIMAL
    assert got.objectives == pytest.approx(want.objectives)


@pytest.mark.parametrize("workers", [1, 2])
def test_zitzler_thiele_100_2_front_exactly(workers):
    problem = read_zitzler_thiele(ZT_100_2)
    expected = sorted(map(tuple, read_front(ZT_100_2_FRONT).tolist()))
    assert len(expected) == 121
    d = BnBSolver(workers=workers).solve(problem, Budget(30))
    assert d.status == Status.OPTIMAL
    assert _front(d) == expected


@pytest.mark.parametrize("workers", [1, 2])
def test_timeout_reports_only_front_points(monkeypatch, workers):
    # The clock advances 1 ms per reading: the 0.12 s limit expires after 120 readings, about a
    # third of what the ~70-point front takes (363 readings with one walk, 695 with two), on any
    # machine. What is reported must be on the exact front.
    problem = zitzler_thiele(4, n=60)
    exact = set(_front(BNB.solve(problem, Budget(30))))
    assert len(exact) > 30
    readings = ticking_clock(monkeypatch, 0.001)
    d = BnBSolver(workers=workers, time_limit_s=0.12).solve(problem, Budget(30))
    assert d.status == Status.TIMEOUT
    assert readings[0] < 200  # it stopped at the limit, not at the end of the front
    assert 0 < len(d.pareto) < len(exact)
    assert set(_front(d)) <= exact
    assert {tuple(p.objectives) for p in d.trace} <= exact


def test_single_objective_timeout(monkeypatch):
    monkeypatch.setattr(bnb_module, "_CHUNK", 1)  # one node per call: the clock is read often
    problem = chu_beasley(0, n=100, m=5, tightness=0.25)
    readings = ticking_clock(monkeypatch, 1e-5)  # the 0.1 s limit: 10,000 nodes of ~9 million
    d = BnBSolver(time_limit_s=0.1).solve(problem, Budget(30))
    assert d.status == Status.TIMEOUT and readings[0] < 10_100
    assert d.stats["nodes"] < 10_100
    assert d.objectives[0] <= 23954  # the optimum, which bnb proves after ~9 million nodes


def test_declines_what_it_cannot_do():
    three = SelectionProblem(capacities=[5], demands=[[1], [2]], objectives=[[1, 2]] * 3)
    ok, reason = BNB.supports(three)
    assert not ok and "3 objectives" in reason
    thirds = SelectionProblem(capacities=[1.0], demands=[[1 / 3], [2 / 3]], objectives=[[1, 2]])
    ok, reason = BNB.supports(thirds)
    assert not ok and "decimal" in reason
    huge = SelectionProblem(
        capacities=[5], demands=[[1], [2]], objectives=[[2.0**40, 1], [1, 2.0**40]]
    )
    ok, reason = BNB.supports(huge)
    assert not ok and "2^50" in reason


@pytest.mark.parametrize("params", [{"workers": 3}, {"workers": 0}, {"time_limit_s": -1}])
def test_bad_parameters(params):
    with pytest.raises(SolverParameterError):
        BnBSolver(**params)
