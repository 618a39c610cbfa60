"""``bbsched-ga`` (BBSched's genetic algorithm as written, §3.2.2), ``ga`` (the same with repair
and fill) and ``moo`` (seeded Pareto local search).

Contract (conformance suite), BBSched's Table 1, determinism, feasibility, deadlines, the choices
``ga`` documents where the paper is silent, and ``moo`` against ``ga`` and the exact front.
"""

from __future__ import annotations

import numpy as np
import pytest

from schedbench.instances.windows import theta_window
from schedbench.simcore.errors import SolverParameterError
from schedbench.simcore.kinds.selection.problem import SelectionProblem
from schedbench.simcore.problem import Budget, Status
from schedbench.solvers import moo as moo_module
from schedbench.solvers.dp import DPSolver
from schedbench.solvers.exhaustive import ExhaustiveSolver
from schedbench.solvers.ga import BBSCHED_GA, GASolver
from schedbench.solvers.moo import MOOSolver
from schedbench.solvers.testing import parametrize_conformance, random_problem, table1
from tests._timing import cpu_seconds

TABLE1_FRONT = {(100.0, 20.0), (80.0, 90.0)}


def front(decision) -> set[tuple[float, ...]]:
    return {p.objectives for p in decision.pareto}


def assert_valid(problem: SelectionProblem, decision) -> None:
    """Every selection (chosen and Pareto) fits and carries its own objective vector."""
    assert decision.status in (Status.FEASIBLE, Status.TIMEOUT), decision.notes
    for sel, obj in [(decision.selected, decision.objectives)] + [
        (p.selected, p.objectives) for p in decision.pareto
    ]:
        problem.check_selection(sel)
        assert obj == problem.evaluate(sel)


@parametrize_conformance([GASolver(), BBSCHED_GA(), MOOSolver()])
def test_conformance(solver, check):
    check(solver)


# -- BBSched Table 1 ---------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [1, 3, 4, 5])
def test_bbsched_ga_finds_the_table1_front(seed):
    d = BBSCHED_GA().solve(table1(), Budget(seed=seed))
    assert d.status == Status.FEASIBLE
    assert front(d) == TABLE1_FRONT


def test_bbsched_ga_finds_the_table1_front_for_most_seeds():
    # The paper's GA as written is a heuristic that cannot recover a lost gene (BBSCHED_GA
    # says why): seed 0 ends on (70, 90) instead of (80, 90), J4 lost from the whole
    # population. Measured: 6 of seeds 0..9 on the exact front; J2..J5 started on 94 of 0..99.
    solver = BBSCHED_GA()
    hits = sum(front(solver.solve(table1(), Budget(seed=s))) == TABLE1_FRONT for s in range(10))
    assert hits >= 5
    assert solver.solve(table1(), Budget(seed=0)).selected != (1, 2, 3, 4)


def test_ga_finds_the_table1_front_and_answer_for_every_seed():
    # Repair and fill make every chromosome maximal; (J2, J3, J5) can no
    # longer stand, J4 is added.
    solver = GASolver()
    for seed in range(100):
        d = solver.solve(table1(), Budget(seed=seed))
        assert d.status == Status.FEASIBLE
        assert front(d) == TABLE1_FRONT, seed
        assert d.selected == (1, 2, 3, 4), seed  # the decision maker's answer, J2..J5


def test_ga_repair_is_a_parameter_and_bbsched_ga_is_ga_without_it():
    assert GASolver().repair == "fill" and BBSCHED_GA().repair == "none"
    assert BBSCHED_GA().id == "bbsched-ga" and GASolver(repair="none").id == "ga[repair=none]"
    problem = theta_window(20, 3)
    for seed in range(3):
        a = GASolver(repair="none").solve(problem, Budget(seed=seed))
        b = BBSCHED_GA().solve(problem, Budget(seed=seed))
        assert a.same_answer(b)


def test_ga_with_fill_answers_only_maximal_selections():
    problem = theta_window(20, 4)
    d = GASolver().solve(problem, Budget(seed=0))
    for point in d.pareto:
        used = problem.usage(point.selected)
        for j in set(range(problem.w)) - set(point.selected):
            assert not problem.fits(used + problem.demands[j]), (point.selected, j)


@pytest.mark.parametrize("seed", range(6))
def test_moo_finds_the_table1_front(seed):
    d = MOOSolver().solve(table1(), Budget(seed=seed))
    assert d.status == Status.FEASIBLE
    assert front(d) == TABLE1_FRONT
    assert d.selected == (1, 2, 3, 4)  # BBSched's decision maker: +70 % BB for -20 % nodes


# -- determinism and seeds -------------------------------------------------------------------------
@pytest.mark.parametrize("solver", [GASolver(), MOOSolver()], ids=["ga", "moo"])
def test_same_seed_same_answer(solver):
    problem = theta_window(50, 3)
    a = solver.solve(problem, Budget(seed=11))
    b = solver.solve(problem, Budget(seed=11))
    assert a.same_answer(b)
    assert dict(a.stats) == dict(b.stats)


@pytest.mark.parametrize("cls", [GASolver, BBSCHED_GA])
def test_ga_uses_its_seed(cls):
    # ga finds the same front of a w = 20 window from every seed (and of this w = 100 one,
    # measured); w = 200 it does not
    problem = theta_window(20 if cls is BBSCHED_GA else 200, 0)
    answers = {tuple(sorted(front(cls().solve(problem, Budget(seed=s))))) for s in range(6)}
    assert len(answers) > 1


def test_moo_uses_its_seed():
    # The kicks draw from the seeded stream: the archives' paths differ even when fronts agree.
    problem = random_problem(5, 40, 2, 2)
    stats = {tuple(MOOSolver().solve(problem, Budget(seed=s)).stats.items()) for s in range(4)}
    assert len(stats) > 1


# -- every answer feasible -------------------------------------------------------------------------
PROBLEMS = [
    ("theta w=20", theta_window(20, 7)),
    ("theta w=100", theta_window(100, 7)),
    ("K=3 M=3", random_problem(21, 30, 3, 3, objectives_are_demands=False)),
    ("K=2 M=1", random_problem(22, 30, 2, 1, objectives_are_demands=False)),
    ("fractional", random_problem(23, 25, 2, 2, fractional=True)),
    ("must_include", random_problem(24, 30, 2, 2, must_include=3)),
    (
        "negative objective",
        SelectionProblem(
            capacities=[10, 10],
            demands=[[3, 1], [4, 4], [2, 6], [5, 2], [1, 1]],
            objectives=[[3, 4, 2, 5, 1], [-1, 2, 3, -2, -4]],
        ),
    ),
]


@pytest.mark.parametrize(("label", "problem"), PROBLEMS, ids=[p[0] for p in PROBLEMS])
@pytest.mark.parametrize("solver", [GASolver(), MOOSolver()], ids=["ga", "moo"])
def test_every_answer_is_feasible(solver, label, problem):
    for seed in range(3):
        d = solver.solve(problem, Budget(seed=seed))
        assert_valid(problem, d)
        assert set(problem.must_include) <= set(d.selected)


def test_moo_handles_negative_objectives_exactly():
    # Dropping a job can pay off when an objective is negative: the front needs drop moves.
    problem = PROBLEMS[-1][1]
    exact = front(ExhaustiveSolver().solve(problem, Budget()))
    assert front(MOOSolver().solve(problem, Budget(seed=1))) == exact


@pytest.mark.parametrize("seed", range(4))
def test_moo_finds_exact_fronts_of_small_problems(seed):
    for k, m, demand_obj in ((2, 2, True), (3, 2, False), (2, 3, False), (2, 1, False)):
        problem = random_problem(100 + seed, 12, k, m, objectives_are_demands=demand_obj)
        exact = ExhaustiveSolver().solve(problem, Budget())
        d = MOOSolver().solve(problem, Budget(seed=seed))
        if m == 1:
            assert d.objectives == exact.objectives
        else:
            assert front(d) == front(exact), (k, m)


# -- deadlines --------------------------------------------------------------------------------------
def test_ga_tiny_deadline_answers_without_raising():
    solver = GASolver(generations=10**7)
    solver.warm_up()  # outside the measured calls
    problem = theta_window(100, 1)
    for deadline in (1e-6, 1e-3, 0.05):
        d, cpu = cpu_seconds(solver.solve, problem, Budget(deadline_s=deadline, seed=1))
        assert d.status == Status.TIMEOUT  # 10^7 generations cannot finish
        assert_valid(problem, d)
        assert d.stats["generations"] < 10**7
        # It stopped at the deadline: a busy machine gives it less CPU by then, never more.
        assert cpu < deadline + 0.25, (deadline, cpu)


def test_moo_stops_at_the_deadline_with_status_timeout():
    # Nothing but the deadline can stop it (kicks and evaluations unreachable).
    solver = MOOSolver(kicks=10**9, max_evaluations=10**15, time_limit_s=0)
    solver.warm_up()  # outside the measured call
    problem = theta_window(100, 2)
    d, cpu = cpu_seconds(solver.solve, problem, Budget(deadline_s=0.2, seed=1))
    assert d.status == Status.TIMEOUT
    assert cpu < 0.2 + 0.25
    assert_valid(problem, d)


def test_moo_time_limit_is_feasible_with_a_note():
    # Only the time limit can stop it: the note never depends on the machine's speed.
    solver = MOOSolver(kicks=10**9, max_evaluations=10**15, time_limit_s=0.05)
    problem = theta_window(50, 2)
    d = solver.solve(problem, Budget(seed=1))
    assert d.status == Status.FEASIBLE
    assert any("time_limit_s" in n for n in d.notes)
    assert_valid(problem, d)


def test_moo_evaluation_cap_is_deterministic():
    solver = MOOSolver(max_evaluations=500)
    problem = theta_window(100, 4)
    a, b = (solver.solve(problem, Budget(seed=2)) for _ in range(2))
    assert a.same_answer(b)
    assert any("max_evaluations" in n for n in a.notes)


def test_moo_archive_grows_beyond_its_initial_size(monkeypatch):
    monkeypatch.setattr(moo_module, "_INITIAL_ARCHIVE", 2)
    problem = random_problem(31, 40, 2, 2, objectives_are_demands=False)
    d = MOOSolver().solve(problem, Budget(seed=3))
    assert_valid(problem, d)
    assert len(d.pareto) > 8  # several regrowths
    assert d.same_answer(MOOSolver().solve(problem, Budget(seed=3)))  # regrowth is deterministic


# -- ga's documented choices ------------------------------------------------------------------------
def test_ga_violation_ranking_reaches_feasibility_where_age_ranking_does_not():
    # A random first generation on a window of 20 is all infeasible; ranking infeasible
    # chromosomes by age alone (the paper read literally) gives no pull towards feasibility.
    problem = theta_window(20, 2)
    by_violation = BBSCHED_GA().solve(problem, Budget(seed=0))
    by_age = BBSCHED_GA(infeasible="age").solve(problem, Budget(seed=0))
    assert by_violation.stats["feasible_in_population"] > 0
    assert by_violation.objectives[0] > 0.9 * problem.capacities[0]
    assert by_age.stats["feasible_in_population"] == 0
    assert by_age.selected == ()  # the empty selection, with a note saying why
    assert any("no feasible chromosome" in n for n in by_age.notes)


def test_ga_children_parameter_and_id():
    solver = GASolver(children=2, population=10)
    assert solver.id == "ga[children=2,population=10]"
    d = solver.solve(theta_window(20, 1), Budget(seed=0))
    assert d.stats["evaluations"] == 10 + 2 * 500
    assert GASolver().solve(theta_window(20, 1), Budget(seed=0)).stats["evaluations"] == 20 * 501


def test_ga_trace_for_one_objective():
    problem = random_problem(41, 30, 2, 1, objectives_are_demands=False)
    d = GASolver().solve(problem, Budget(seed=0))
    values = [t.objectives[0] for t in d.trace]
    assert values and values == sorted(values) and values[-1] == d.objectives[0]


@pytest.mark.parametrize(
    ("cls", "params"),
    [
        (GASolver, {"population": 1}),
        (GASolver, {"generations": -1}),
        (GASolver, {"mutation": 1.5}),
        (GASolver, {"infeasible": "repair"}),
        (GASolver, {"children": True}),
        (GASolver, {"repair": "greedy"}),
        (MOOSolver, {"exchange": 3}),
        (MOOSolver, {"kicks": -1}),
        (MOOSolver, {"time_limit_s": -1.0}),
        (MOOSolver, {"weights": 0}),
        # sizes allocated up front are bounded, the bound in the error
        (GASolver, {"population": 10**8}),
        (GASolver, {"children": 10**8}),
        (MOOSolver, {"weights": 10**9}),
    ],
)
def test_bad_parameters_are_rejected(cls, params):
    with pytest.raises(SolverParameterError, match=next(iter(params))):
        cls(**params)


# -- moo against ga and the exact front ---------------------------------------------------------------
def test_moo_finds_at_least_as_much_of_the_exact_front_as_ga():
    exact_points = ga_points = fill_points = moo_points = 0
    for seed in range(5):
        problem = theta_window(20, seed)
        exact = front(DPSolver().solve(problem, Budget(deadline_s=30)))
        exact_points += len(exact)
        ga_points += len(exact & front(BBSCHED_GA().solve(problem, Budget(seed=seed))))
        fill_points += len(exact & front(GASolver().solve(problem, Budget(seed=seed))))
        moo_points += len(exact & front(MOOSolver().solve(problem, Budget(seed=seed))))
    assert moo_points >= ga_points
    assert fill_points > ga_points  # repair and fill: most of the front (bench/moo_quality.py)
    assert moo_points >= 0.8 * exact_points  # measured: 10 of 11 (bench/moo_quality.py)


def test_moo_never_reports_a_point_beyond_the_exact_front():
    for seed in range(3):
        problem = theta_window(50, seed)
        exact = np.array(sorted(front(DPSolver().solve(problem, Budget(deadline_s=30)))))
        for point in front(MOOSolver().solve(problem, Budget(seed=seed))):
            # weakly dominated by some exact point
            assert np.any(np.all(exact >= np.array(point), axis=1))


@pytest.mark.parametrize("solver", [GASolver(), MOOSolver()], ids=["ga", "moo"])
def test_fractional_sums_at_the_capacity_fit(solver):
    # 0.1 + 0.2 = 0.30000000000000004 > 0.3 in floats: within the feasibility slack, so it fits.
    problem = SelectionProblem(capacities=[0.3, 1.0], demands=[[0.1, 0.5], [0.2, 0.5]])
    d = solver.solve(problem, Budget(seed=0))
    assert d.selected == (0, 1)


def test_moo_anytime_keeps_improving_on_the_converged_answer():
    """Performance target 3: the anytime phase starts from the converged archive (same seed) and
    only improves it; capped by max_evaluations it is deterministic."""
    problem = theta_window(50, 3)
    base = MOOSolver(time_limit_s=0).solve(problem, Budget(seed=4))
    cap = int(base.stats["evaluations"]) + 20_000
    solver = MOOSolver(time_limit_s=0, anytime=True, max_evaluations=cap)
    a, b = (solver.solve(problem, Budget(seed=4)) for _ in range(2))
    assert a.same_answer(b)
    assert any("max_evaluations" in n for n in a.notes)
    assert a.stats["kicks"] > base.stats["kicks"]
    assert_valid(problem, a)
    found = [p.objectives for p in a.pareto]
    for p in base.pareto:
        assert any(all(f >= g for f, g in zip(q, p.objectives, strict=True)) for q in found)


def test_moo_anytime_uses_its_time_limit():
    # Evaluations unbounded, so that only the time limit ends the anytime phase: with the
    # default cap a quiet machine reached it first and the note was about max_evaluations.
    solver = MOOSolver(time_limit_s=0.05, anytime=True, max_evaluations=10**15)
    d = solver.solve(theta_window(20, 1), Budget(seed=1))
    assert d.status == Status.FEASIBLE
    assert any("time_limit_s" in n for n in d.notes)
