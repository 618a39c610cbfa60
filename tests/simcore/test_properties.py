"""Property tests: on random small problems the exact solvers agree with each other and with an
independent brute force written here, every answer is feasible, and infeasibility is reported
exactly when the must_include jobs alone do not fit."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from schedbench.simcore import Budget, SelectionProblem, Status
from schedbench.simcore.decision_maker import bbsched_decision_maker
from schedbench.solvers.registry import make_solver

BUDGET = Budget(deadline_s=30)
RTOL = 1e-9  # simcore.problem.FEASIBILITY_RTOL, restated: the contract's tolerance


@dataclass(frozen=True)
class Case:
    problem: SelectionProblem
    exact: bool  # all sums exact in floats (integers or multiples of 1/4)

    def __repr__(self) -> str:  # readable falsifying examples
        return f"Case(exact={self.exact}, problem={self.problem.to_dict()!r})"


def _values(draw, kind: str, n: int, high: int) -> list[float]:
    if kind == "int":
        return draw(st.lists(st.integers(0, high), min_size=n, max_size=n))
    if kind == "quarter":
        return [k / 4 for k in draw(st.lists(st.integers(0, 4 * high), min_size=n, max_size=n))]
    return draw(
        st.lists(
            st.floats(0, high, allow_nan=False, allow_infinity=False, allow_subnormal=False),
            min_size=n,
            max_size=n,
        )
    )


@st.composite
def cases(draw, fractional: bool = False, must: bool | None = None) -> Case:
    kind = draw(st.sampled_from(["quarter", "float"])) if fractional else "int"
    w = draw(st.integers(0, 10))
    k = draw(st.integers(1, 3))
    capacities = _values(draw, kind, k, 150)
    demands = [_values(draw, kind, k, 50) for _ in range(w)]
    if draw(st.booleans()):
        objectives = None  # the demands (BBSched): M = K
    else:
        m = draw(st.integers(1, 3))
        low = 0 if m == 1 else -20
        objectives = [
            draw(st.lists(st.integers(low, 50), min_size=w, max_size=w)) for _ in range(m)
        ]
    with_must = draw(st.booleans()) if must is None else must
    must_include = (
        sorted(draw(st.sets(st.integers(0, w - 1), max_size=min(w, 3)))) if with_must and w else []
    )
    problem = SelectionProblem(
        capacities=capacities, demands=demands, objectives=objectives, must_include=must_include
    )
    return Case(problem, exact=kind != "float")


# -- an independent reference -------------------------------------------------------------------


def must_include_too_big(p: SelectionProblem) -> bool:
    used = np.zeros(p.K)
    for j in p.must_include:
        used = used + p.demands[j]
    return bool(np.any(used > p.capacities + RTOL * np.maximum(1.0, p.capacities)))


def brute_force_values(p: SelectionProblem) -> np.ndarray:
    """Objective vectors of every feasible selection (rows), by plain enumeration."""
    free = [j for j in range(p.w) if j not in p.must_include]
    limit = p.capacities + RTOL * np.maximum(1.0, p.capacities)
    rows = []
    for r in range(len(free) + 1):
        for extra in itertools.combinations(free, r):
            sel = list(p.must_include) + list(extra)
            if np.all(p.demands[sel].sum(axis=0) <= limit):
                rows.append(p.objectives[:, sel].sum(axis=1))
    return np.array(rows).reshape(len(rows), p.M)


def front(values: np.ndarray) -> np.ndarray:
    """Distinct non-dominated rows (maximisation), sorted."""
    values = np.unique(values, axis=0)
    keep = [not np.any(np.all(values >= v, axis=1) & np.any(values > v, axis=1)) for v in values]
    return values[keep]


def sorted_rows(rows) -> np.ndarray:
    rows = np.asarray(rows, dtype=np.float64)
    if rows.size == 0:
        return rows
    return rows[np.lexsort(rows.T[::-1])]


def assert_same_front(a, b, exact: bool, scale: float) -> None:
    """The same Pareto front: identical sorted vectors when sums are exact; otherwise each point
    of one is matched, within float rounding, by a point of the other (both ways)."""
    a, b = sorted_rows(a), sorted_rows(b)
    if exact:
        assert a.shape == b.shape, (a, b)
        assert np.allclose(a, b, rtol=0, atol=0), (a, b)
        return
    tol = 1e-7 * max(1.0, scale)
    for x, y in ((a, b), (b, a)):
        for v in x:
            assert np.any(np.all(y >= v - tol, axis=1)), (v, y)


def solve(name: str, p: SelectionProblem):
    return make_solver(name).solve(p, BUDGET)


def check_answer(p: SelectionProblem, d) -> None:
    """Every returned selection is feasible and its objectives are its real ones."""
    assert d.status != Status.ERROR, d.notes
    if d.status == Status.INFEASIBLE:
        assert d.selected == () and d.pareto == ()
        return
    p.check_selection(d.selected)
    assert np.allclose(d.objectives, p.evaluate(d.selected))
    for point in d.pareto:
        p.check_selection(point.selected)
        assert np.allclose(point.objectives, p.evaluate(point.selected))
    if p.M >= 2:
        assert d.selected in [pt.selected for pt in d.pareto]
        assert d.selected == bbsched_decision_maker(p, d.pareto).selected


# -- properties ---------------------------------------------------------------------------------


def _exact_solvers_agree(case: Case) -> None:
    p = case.problem
    dp, ex = solve("dp", p), solve("exhaustive", p)
    check_answer(p, dp)
    check_answer(p, ex)
    if must_include_too_big(p):
        assert dp.status == ex.status == Status.INFEASIBLE
        return
    from tests.solvers.test_dp_kernel import dp_status

    assert dp.status in dp_status(p) and ex.status == Status.OPTIMAL
    reference = brute_force_values(p)
    assert reference.shape[0] >= 1  # the must_include jobs alone fit
    scale = float(np.abs(p.objectives).sum()) + 1.0
    if p.M == 1:
        best = reference[:, 0].max()
        assert np.isclose(dp.objectives[0], ex.objectives[0], rtol=1e-9, atol=1e-9)
        assert np.isclose(ex.objectives[0], best, rtol=1e-9, atol=1e-9)
        assert dp.pareto == ()
    else:
        dp_front = [pt.objectives for pt in dp.pareto]
        ex_front = [pt.objectives for pt in ex.pareto]
        assert len(set(dp_front)) == len(dp_front)  # one point per objective vector
        assert_same_front(dp_front, ex_front, case.exact, scale)
        assert_same_front(ex_front, front(reference), case.exact, scale)


@given(cases())
def test_dp_and_exhaustive_agree_integer(case):
    _exact_solvers_agree(case)


@given(cases(fractional=True))
def test_dp_and_exhaustive_agree_fractional(case):
    _exact_solvers_agree(case)


@given(cases(must=True))
def test_dp_and_exhaustive_agree_with_must_include(case):
    _exact_solvers_agree(case)


@given(st.one_of(cases(), cases(fractional=True)))
def test_infeasible_iff_must_include_alone_exceeds_capacity(case):
    p = case.problem
    too_big = must_include_too_big(p)
    for name in ("naive", "binpack", "exhaustive", "dp"):
        d = solve(name, p)
        assert (d.status == Status.INFEASIBLE) == too_big, (name, d.status, d.notes)
        check_answer(p, d)


@given(st.one_of(cases(), cases(fractional=True)))
def test_heuristics_are_feasible_and_never_beat_the_optimum(case):
    p = case.problem
    if must_include_too_big(p):
        return
    optimum = solve("exhaustive", p)
    for name in ("naive", "binpack"):
        d = solve(name, p)
        assert d.status == Status.FEASIBLE
        check_answer(p, d)
        assert set(p.must_include) <= set(d.selected)
        if p.M == 1:
            assert d.objectives[0] <= optimum.objectives[0] + 1e-9 * (
                1 + abs(optimum.objectives[0])
            )
        else:
            # No heuristic answer strictly dominates a point of the exact front... and the exact
            # front weakly covers the heuristic's answer.
            v = np.array(d.objectives)
            tol = 1e-7 * (1 + np.abs(p.objectives).sum())
            assert any(np.all(np.array(pt.objectives) >= v - tol) for pt in optimum.pareto)


@given(cases())
def test_naive_walks_the_window_in_order(case):
    """naive (BBSched's Slurm baseline): a job is skipped only if it did not fit at its turn."""
    p = case.problem
    if must_include_too_big(p):
        return
    d = solve("naive", p)
    chosen = set(d.selected)
    limit = p.capacities + RTOL * np.maximum(1.0, p.capacities)
    used = p.usage(p.must_include)
    for j in range(p.w):
        if j in p.must_include:
            continue
        fits = bool(np.all(used + p.demands[j] <= limit))
        assert (j in chosen) == fits, (j, used, p.demands[j])
        if fits:
            used = used + p.demands[j]
