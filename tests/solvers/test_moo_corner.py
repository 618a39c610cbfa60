"""``moo``'s corner move (performance target 3): the subset-sum table it snaps with, and the exact
meet-in-the-middle completion checked against ``exhaustive`` (all 2^w subsets) on small
conflict-rich windows."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from schedbench.instances.conflict_windows import conflict_candidate
from schedbench.simcore.kinds.selection.problem import SelectionProblem
from schedbench.simcore.problem import Budget, Status
from schedbench.solvers import moo as moo_module
from schedbench.solvers.exhaustive import ExhaustiveSolver
from schedbench.solvers.moo import MOOSolver, corner_pack


def exact_front(problem: SelectionProblem) -> set[tuple[float, ...]]:
    d = ExhaustiveSolver().solve(problem, Budget())
    assert d.status == Status.OPTIMAL
    return {p.objectives for p in d.pareto}


def archive_front(search) -> set[tuple[float, ...]]:
    n = int(search.counters[moo_module._N])
    return {tuple(float(x) for x in search.value[i]) for i in range(n)}


@pytest.mark.parametrize("seed", range(5))
def test_snap_table_is_the_subset_sum_table(seed):
    rng = np.random.default_rng(seed)
    w = 9
    nodes = rng.integers(1, 40, size=w).astype(float)
    bb = np.where(rng.random(w) < 0.5, rng.integers(1, 50, size=w), 0).astype(float)
    demands = np.column_stack([nodes, bb])
    limit = np.array([60.0, 70.0])
    snap, other, single, pair, by, best = corner_pack(demands, demands.copy(), limit)
    assert (snap, other) == (0, 1)
    assert set(single) == set(np.flatnonzero(bb == 0)) and set(pair) == set(np.flatnonzero(bb))
    sums = {
        int(sum(nodes[list(c)]))
        for r in range(len(single) + 1)
        for c in itertools.combinations(single, r)
    }
    for c in range(61):
        assert best[c] == max(s for s in sums if s <= c)
        # the back-pointers rebuild a subset of single jobs with exactly that sum
        left, used = int(best[c]), []
        while left > 0:
            j = int(by[left])
            assert j in single and j not in used
            used.append(j)
            left -= int(nodes[j])
        assert left == 0


def test_pack_is_off_where_the_move_does_not_apply():
    demands = np.array([[1.5, 2.0], [1.0, 0.0]])
    # nodes fractional, BB whole: BB is the snap resource
    assert corner_pack(demands, demands.copy(), np.array([2.0, 2.0]))[:2] == (1, 0)
    # fractional demands in both resources: no snap resource
    frac = np.array([[1.5, 2.5], [1.25, 0.0]])
    assert corner_pack(frac, frac.copy(), np.array([2.0, 2.0]))[0] == -1
    # objectives other than the demands, or three resources: off
    assert corner_pack(demands, demands[:, ::-1].copy(), np.array([2.0, 2.0]))[0] == -1
    three = np.ones((2, 3))
    assert corner_pack(three, three.copy(), np.ones(3))[0] == -1


def test_pack_is_off_when_its_table_would_cost_more_than_the_work_bound():
    # Two single jobs (BB 0) and a snap capacity of 99: a table of 2 x 100 cells.
    demands = np.array([[3.0, 0.0], [5.0, 0.0], [2.0, 7.5]])  # BB fractional: nodes snap
    limit = np.array([99.0, 10.0])
    assert corner_pack(demands, demands.copy(), limit, work=200)[0] == 0
    assert corner_pack(demands, demands.copy(), limit, work=199)[0] == -1


def test_huge_window_spends_its_budget_searching_not_building_the_table():
    # 40,000 single jobs and 265,000 free nodes: 10^10 table cells (1.6 s before the bound).
    rng = np.random.default_rng(3)
    nodes = rng.choice([1.0, 8.0, 64.0, 512.0], size=60_000)
    bb = np.where(rng.random(60_000) < 0.35, rng.integers(1_000, 9_000, 60_000), 0).astype(float)
    demands = np.column_stack([nodes, bb])
    limit = np.array([265_000.0, 1e7])
    assert corner_pack(demands, demands.copy(), limit)[0] == -1


@pytest.mark.parametrize("seed", range(6))
def test_one_corner_move_from_the_empty_selection_is_exact_when_the_pool_holds_every_pair_job(
    seed,
):
    """A pool at least as large as the pair jobs makes the move an exact solver of the window:
    one move from the empty selection must yield the whole exact front."""
    problem = conflict_candidate(14, seed)
    search = moo_module._Search.start(problem, seed, stop_at=np.inf)
    x = np.zeros(problem.w, np.uint8)
    arc = (search.genes, search.value, search.usage, search.level, search.counters)
    moo_module._offer(arc, x, np.zeros(2), np.zeros(2))
    code, _ = moo_module._corner(arc, search.prob, search.rng, 24, 1 << 20)
    assert code == 0
    assert archive_front(search) == exact_front(problem)


@pytest.mark.parametrize("seed", range(4))
def test_corner_moves_with_a_small_pool_find_exact_front_points_and_nothing_beyond(seed):
    problem = conflict_candidate(16, 100 + seed)
    exact = exact_front(problem)
    search = moo_module._Search.start(problem, seed, stop_at=np.inf)
    arc = (search.genes, search.value, search.usage, search.level, search.counters)
    moo_module._offer(arc, np.zeros(problem.w, np.uint8), np.zeros(2), np.zeros(2))
    for _ in range(300):
        arc = (search.genes, search.value, search.usage, search.level, search.counters)
        code, _ = moo_module._corner(arc, search.prob, search.rng, 8, 64)
        if code == moo_module._FULL:
            search._grow()
        else:
            assert code == 0
    found = archive_front(search)
    for sel in search.selections():
        problem.check_selection(sel)
    for p in found:  # nothing strictly better than an exact point
        assert not any(all(a >= b for a, b in zip(p, q, strict=True)) and p != q for q in exact)
    assert found & exact  # lands on the exact front


@pytest.mark.parametrize("seed", range(3))
def test_moo_with_corner_moves_finds_the_exact_front_of_conflict_windows(seed):
    problem = conflict_candidate(18, 200 + seed)
    solver = MOOSolver(corner=20, kicks=0, time_limit_s=0)
    solver.warm_up()  # compiling inside solve would count against the deadline
    d = solver.solve(problem, Budget(seed=seed))
    assert d.status == Status.FEASIBLE
    assert {p.objectives for p in d.pareto} == exact_front(problem)
    # the pool holds every pair job: the first move solves the window, no more are made
    assert d.stats["corner_moves"] == 1


def test_corner_moves_go_on_while_the_pool_cannot_hold_every_pair_job():
    problem = conflict_candidate(60, 2)
    d = MOOSolver(corner=30, corner_pool=10, time_limit_s=0).solve(problem, Budget(seed=0))
    assert d.stats["corner_moves"] == 30


def test_corner_moves_are_reproducible_and_seeded():
    problem = conflict_candidate(60, 5)
    solver = MOOSolver(time_limit_s=0, anytime=True, max_evaluations=400_000)
    a, b = (solver.solve(problem, Budget(seed=3)) for _ in range(2))
    assert a.same_answer(b)
    assert dict(a.stats) == dict(b.stats)
    assert a.stats["corner_moves"] > 0
    others = {tuple(solver.solve(problem, Budget(seed=s)).stats.items()) for s in range(3)}
    assert len(others) > 1


def test_corner_zero_is_the_search_without_corner_moves():
    problem = conflict_candidate(40, 1)
    d = MOOSolver(corner=0, time_limit_s=0).solve(problem, Budget(seed=0))
    assert d.stats["corner_moves"] == 0
