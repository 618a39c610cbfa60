"""Conflict-rich Theta-like windows and the exactness of ``dp`` on them.

The generator follows its recipe (``instances.conflict_windows``); ``dp``'s front is
checked against ``exhaustive`` (all 2^w subsets, an independent exact method) on small windows.
"""

from __future__ import annotations

import numpy as np
import pytest

from schedbench.instances import conflict_windows as cw
from schedbench.simcore.problem import Budget, Status
from schedbench.simcore.solver import timed_solve
from schedbench.solvers.dp import DPSolver
from schedbench.solvers.exhaustive import ExhaustiveSolver

BUDGET = Budget(deadline_s=30)


@pytest.fixture(autouse=True, scope="module")
def _compiled_kernels():
    """Compile (or load) dp's kernels before any timed solve: on a fresh checkout numba compiles
    them on first use, which must not eat a solve's deadline."""
    DPSolver().warm_up()


def exhaustive_front(problem) -> set[tuple[float, ...]]:
    decision = timed_solve(ExhaustiveSolver(), problem, BUDGET)
    assert decision.status == Status.OPTIMAL
    return {p.objectives for p in decision.pareto}


def dp_front(problem) -> set[tuple[float, ...]]:
    decision = timed_solve(DPSolver(), problem, BUDGET)
    assert decision.status == Status.OPTIMAL
    return {p.objectives for p in decision.pareto}


def test_candidate_follows_the_recipe():
    nodes, bb, caps = [], [], []
    for seed in range(200):
        p = cw.conflict_candidate(50, seed)
        assert p.resources == ("nodes", "bb_gb")
        nodes.append(p.demands[:, 0])
        bb.append(p.demands[:, 1])
        caps.append(p.capacities)
    n, b, c = np.concatenate(nodes), np.concatenate(bb), np.array(caps)
    assert n.min() >= 1 and n.max() <= cw.NODES and np.all(n == np.floor(n))
    # 0.7 of the jobs from the six choices, plus the uniform draws that land on them.
    share = np.isin(n, cw.NODE_CHOICES).mean()
    assert 0.68 < share < 0.73
    asks = b > 0
    assert b[asks].min() >= 1000 and b[asks].max() <= 285_000
    assert 0.55 < asks.mean() < 0.70  # mean of U[0.5, 0.75] is 0.625
    assert np.all(c[:, 0] >= np.floor(0.3 * cw.NODES)) and np.all(c[:, 0] <= 0.7 * cw.NODES)
    assert np.all(c[:, 1] >= np.floor(0.3 * cw.BB_GB)) and np.all(c[:, 1] <= 0.7 * cw.BB_GB)


def test_windows_are_seeded_and_filtered_by_front_size():
    calls = []

    def size(problem):
        calls.append(problem)
        return len(exhaustive_front(problem))

    first = cw.conflict_windows(12, 4, seed=3, front_size=size)
    again = cw.conflict_windows(12, 4, seed=3, front_size=lambda p: len(exhaustive_front(p)))
    assert len(first) == 4
    for a, b in zip(first, again, strict=True):
        assert np.array_equal(a.demands, b.demands) and np.array_equal(a.capacities, b.capacities)
        assert len(exhaustive_front(a)) >= cw.MIN_FRONT
    # Rejected candidates were drawn and skipped (not every candidate has 3 front points).
    assert len(calls) >= 4


def test_a_window_without_enough_front_points_is_an_error():
    with pytest.raises(cw.WindowDrawError, match="front of >= 3"):
        cw.conflict_windows(5, 1, seed=0, front_size=lambda p: 2)
    with pytest.raises(ValueError, match="w: expected"):
        cw.conflict_candidate(0, 0)


@pytest.mark.parametrize("w", [8, 12, 16])
def test_dp_front_equals_exhaustive_on_conflict_windows(w):
    """Independent exact check: every point of dp's front, and only those, is on the front of
    all 2^w subsets (6 windows per size, candidates unfiltered so small fronts are covered too)."""
    for seed in range(6):
        problem = cw.conflict_candidate(w, seed)
        assert dp_front(problem) == exhaustive_front(problem)


def test_dp_front_equals_exhaustive_on_filtered_windows_at_w20():
    for problem in cw.conflict_windows(20, 3, seed=0, front_size=lambda p: len(dp_front(p))):
        assert dp_front(problem) == exhaustive_front(problem)


@pytest.fixture
def prune_always(monkeypatch):
    """Run ``dp``'s two-resource pruning from the first layer on (it normally starts at 256
    states), so the small windows ``exhaustive`` can check exercise every bound."""
    from functools import partial

    from schedbench.solvers import dp as dp_module

    monkeypatch.setattr(dp_module, "_pair_dp", partial(dp_module._pair_dp, prune_from=1))


@pytest.mark.parametrize("reach_bound", [True, False])
def test_dp_pruning_is_exact_against_exhaustive(prune_always, reach_bound):
    for w, seed in [(10, 0), (14, 1), (18, 2), (18, 3), (20, 4), (20, 5)]:
        problem = cw.conflict_candidate(w, seed)
        decision = timed_solve(DPSolver(reach_bound=reach_bound), problem, BUDGET)
        assert decision.status == Status.OPTIMAL
        assert {p.objectives for p in decision.pareto} == exhaustive_front(problem), (w, seed)


def test_dp_reach_bound_agrees_with_the_earlier_pruning_at_w50():
    for problem in [cw.conflict_candidate(50, s) for s in range(3)]:
        fronts = []
        for reach_bound in (True, False):
            decision = timed_solve(DPSolver(reach_bound=reach_bound), problem, BUDGET)
            assert decision.status == Status.OPTIMAL
            fronts.append({p.objectives for p in decision.pareto})
        assert fronts[0] == fronts[1]


def test_beam_seeded_dp_is_exact_against_exhaustive(prune_always, monkeypatch):
    """The beam pass (normally from 64 jobs) forced on small windows with a tiny beam: its
    selections only seed the incumbent, so the exact pass's front must not change."""
    from schedbench.solvers import dp as dp_module

    monkeypatch.setattr(dp_module, "_BEAM_FROM", 1)
    monkeypatch.setattr(dp_module, "_BEAM", 4)
    for w, seed in [(12, 7), (16, 8), (20, 9), (20, 10)]:
        problem = cw.conflict_candidate(w, seed)
        assert dp_front(problem) == exhaustive_front(problem), (w, seed)


def test_dp_with_beam_agrees_with_the_earlier_pruning_at_w100():
    for problem in [cw.conflict_candidate(100, s) for s in (7, 9)]:
        fronts = []
        for reach_bound in (True, False):
            decision = timed_solve(DPSolver(reach_bound=reach_bound), problem, BUDGET)
            assert decision.status == Status.OPTIMAL
            fronts.append({p.objectives for p in decision.pareto})
        assert fronts[0] == fronts[1]


def weighted(problem, c=(1 / 4392, 1 / 2_160_000)):
    from schedbench.simcore.kinds.selection.problem import SelectionProblem

    return SelectionProblem(
        capacities=problem.capacities,
        demands=problem.demands,
        resources=problem.resources,
        objectives=[problem.demands @ np.asarray(c)],
    )


@pytest.mark.parametrize("c", [(1 / 4392, 1 / 2_160_000), (1.0, 0.0), (3.0, 1.0)])
def test_weighted_single_objective_through_the_front_is_exact(c):
    from tests.solvers.test_dp_kernel import dp_status

    """One objective c · demands (c >= 0): dp answers it from the two-resource front; the
    optimum must equal exhaustive's (small w) and the generic DP's (reach_bound=False, w=50)."""
    for w, seed in [(12, 0), (16, 1), (20, 2)]:
        problem = weighted(cw.conflict_candidate(w, seed), c)
        a = timed_solve(DPSolver(), problem, BUDGET)
        b = timed_solve(ExhaustiveSolver(), problem, BUDGET)
        assert a.status in dp_status(problem) and b.status == Status.OPTIMAL
        assert a.objectives[0] == pytest.approx(b.objectives[0], rel=1e-12)
    problem = weighted(cw.conflict_candidate(50, 3), c)
    a = timed_solve(DPSolver(), problem, BUDGET)
    b = timed_solve(DPSolver(reach_bound=False), problem, BUDGET)
    assert a.status == b.status and a.status in dp_status(problem)
    assert a.objectives[0] == pytest.approx(b.objectives[0], rel=1e-12)
