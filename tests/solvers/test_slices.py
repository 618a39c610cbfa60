"""The slices of ``cpsat``'s single-objective search (``solvers._slices``): every bound is an upper
bound, the fixing never removes a selection that reaches the threshold (so never the optimum),
and the sliced search finds the exhaustive optimum."""

from __future__ import annotations

from itertools import product

import numpy as np
import pytest

from schedbench.instances.knapsack_recipes import chu_beasley
from schedbench.simcore.kinds.selection.problem import SelectionProblem
from schedbench.simcore.problem import Budget, Status
from schedbench.solvers import _slices
from schedbench.solvers._two_phase import SCALE
from schedbench.solvers.bnb import BnBSolver
from schedbench.solvers.cpsat import CPSATSolver
from schedbench.solvers.exhaustive import ExhaustiveSolver
from schedbench.solvers.testing import random_problem


def _all_feasible(demands: np.ndarray, capacities: np.ndarray, profits: np.ndarray):
    """Every feasible selection (as a 0/1 vector) with its value."""
    out = []
    for bits in product((0, 1), repeat=demands.shape[0]):
        x = np.array(bits)
        if np.all(demands.T @ x <= capacities):
            out.append((x, int(profits @ x)))
    return out


def _instance(seed: int, w: int = 11, m: int = 3):
    """A small Chu–Beasley-like instance (correlated profits, capacity a quarter of the sums)."""
    rng = np.random.default_rng([seed, w, m])
    demands = rng.integers(0, 100, size=(w, m))
    profits = demands.sum(axis=1) // m + rng.integers(0, 50, size=w)
    capacities = demands.sum(axis=0) // 4
    return demands, capacities, profits


@pytest.mark.parametrize("seed", range(8))
def test_fixing_never_removes_a_selection_that_reaches_the_threshold(seed):
    demands, capacities, profits = _instance(seed)
    rows = list(range(demands.shape[1]))
    feasible = _all_feasible(demands, capacities, profits)
    best = max(v for _x, v in feasible)
    most = _slices.most_items(demands, capacities, rows)
    assert max(int(x.sum()) for x, _v in feasible) <= most
    cheap = _slices.cheap_limits(demands, capacities, profits, rows, most)
    lp = _slices.SliceLP(demands, capacities, profits, rows)
    checked = fixed = 0
    for k in range(most + 1):
        slice_ = [(x, v) for x, v in feasible if int(x.sum()) == k]
        bound = lp.bound(k)
        if slice_:
            top = max(v for _x, v in slice_)
            assert cheap[k] >= top and bound.limit >= top  # upper bounds of the slice
        for threshold in (best + 1, best, best - 3, best - 15, best - 60):
            fix = bound.fixing(threshold)
            fixed += len(fix.ones) + len(fix.zeros)
            for x, v in slice_:
                if v >= threshold:
                    checked += 1
                    assert fix.gap >= 0
                    assert all(x[j] == 1 for j in fix.ones)
                    assert all(x[j] == 0 for j in fix.zeros)
    assert checked > 0 and fixed > 0  # not vacuous: selections checked, items fixed


def test_bound_is_scaled_integer_and_exact_at_the_lp():
    demands, capacities, profits = _instance(3)
    lp = _slices.SliceLP(demands, capacities, profits, [0, 1, 2])
    bound = lp.bound(4)
    assert all(isinstance(v, int) for v in bound.r) and isinstance(bound.z, int)
    assert bound.limit == bound.z // SCALE


def test_greedy_is_feasible():
    for seed in range(5):
        demands, capacities, profits = _instance(seed, w=40, m=4)
        chosen = _slices.greedy(demands, capacities, profits)
        assert chosen and np.all(demands[chosen].sum(axis=0) <= capacities)


def _as_problem(demands, capacities, profits, must_include=()):
    return SelectionProblem(
        capacities=capacities.astype(float).tolist(),
        demands=demands.astype(float),
        objectives=[profits.astype(float).tolist()],
        must_include=tuple(must_include),
    )


@pytest.mark.parametrize("seed", range(10))
def test_sliced_search_finds_the_exhaustive_optimum(seed):
    demands, capacities, profits = _instance(seed, w=14, m=3)
    problem = _as_problem(demands, capacities, profits)
    got = CPSATSolver().solve(problem, Budget(30))
    whole = CPSATSolver(slices=False).solve(problem, Budget(30))
    want = ExhaustiveSolver().solve(problem, Budget(30))
    assert got.status == want.status == whole.status == Status.OPTIMAL
    assert got.objectives == pytest.approx(want.objectives) == whole.objectives


@pytest.mark.parametrize("seed", range(6))
def test_sliced_search_on_random_problems_with_forced_jobs(seed):
    problem = random_problem(seed, 12, 3, 1, objectives_are_demands=False, must_include=seed % 3)
    got = CPSATSolver().solve(problem, Budget(30))
    want = ExhaustiveSolver().solve(problem, Budget(30))
    assert got.status == want.status == Status.OPTIMAL
    assert got.objectives == pytest.approx(want.objectives)


def test_chu_beasley_stand_in_is_proven_and_equal_to_the_whole_model():
    problem = chu_beasley(9, n=30, m=5, tightness=0.25)
    got = CPSATSolver().solve(problem, Budget(30))
    whole = CPSATSolver(slices=False).solve(problem, Budget(30))
    assert got.status == whole.status == Status.OPTIMAL
    assert got.objectives == whole.objectives


@pytest.mark.parametrize(
    "params",
    [{}, {"dive": 0.3, "probe": 0.05, "snap": 0.5}, {"snap": 100.0}, {"probe": 0.5}],
    ids=["default", "all-three", "always-snap", "probe-only"],
)
@pytest.mark.parametrize("tightness", [0.25, 0.5, 0.75])
def test_chu_beasley_optimum_equals_bnbs(params, tightness):
    # The starting dive, the probes and the snapped targets only move the incumbent and the
    # order of the proofs: every setting must prove bnb's optimum, with a feasible selection.
    problem = chu_beasley(4, n=40, m=5, tightness=tightness)
    got = CPSATSolver(**params).solve(problem, Budget(30))
    want = BnBSolver().solve(problem, Budget(30))
    assert got.status == want.status == Status.OPTIMAL
    assert got.objectives == want.objectives
    assert problem.fits(problem.usage(list(got.selected)))


@pytest.mark.parametrize("name", ["dive", "probe", "snap"])
def test_sliced_search_parameters_must_be_non_negative(name):
    from schedbench.simcore.errors import SolverParameterError

    with pytest.raises(SolverParameterError, match=name):
        CPSATSolver(**{name: -1.0})


def test_sliced_search_out_of_time_is_a_feasible_timeout():
    problem = chu_beasley(0, n=100, m=5, tightness=0.25)
    got = CPSATSolver(time_limit_s=0.06).solve(problem, Budget(30))
    assert got.status == Status.TIMEOUT
    assert got.selected  # the greedy incumbent at least
    assert problem.fits(problem.usage(list(got.selected)))
    assert got.stats["bound"] >= got.objectives[0]


def test_slices_parameter_must_be_a_bool():
    from schedbench.simcore.errors import SolverParameterError

    with pytest.raises(SolverParameterError, match="slices"):
        CPSATSolver(slices="yes")  # type: ignore[arg-type]
    assert "slices=False" in CPSATSolver(slices=False).id
