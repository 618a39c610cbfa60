"""``mip-cbc`` and ``mip-highs`` (solvers/mip.py): conformance, exactness against ``exhaustive``,
BBSched Table 1, the OR-Library optima, the worker process (never PuLP/highspy in this process,
side by side with OR-Tools), deadlines and a hung worker."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import schedbench.solvers.mip as mip
from schedbench.instances import datasets
from schedbench.instances.windows import theta_window
from schedbench.simcore.errors import SolverParameterError
from schedbench.simcore.kinds.selection.problem import SelectionProblem
from schedbench.simcore.problem import Budget, Status
from schedbench.solvers.dp import DPSolver
from schedbench.solvers.exhaustive import ExhaustiveSolver
from schedbench.solvers.mip import CBCSolver, HiGHSSolver
from schedbench.solvers.testing import parametrize_conformance, random_problem, table1
from tests._timing import GRACE_S

ROOT = Path(__file__).resolve().parents[2]
#: OR-Library mknap1, shipped with the package (dataset or-mknap1).
MKNAP1 = datasets.path("or-mknap1")
MKNAP1_OPTIMA = [3800, 8706.1, 4015, 6120, 12400, 10618, 16537]

BOTH = [CBCSolver(), HiGHSSolver()]
VARIANTS = [
    *BOTH,  # M = 2: dominance cuts (CBC), epsilon-constraint (HiGHS)
    CBCSolver(pareto_method="epsilon"),
    HiGHSSolver(pareto_method="dominance-cuts"),
    HiGHSSolver(reduce=False),
    HiGHSSolver(second_stage="lazy"),  # the epsilon sweep confirming points by the next step
    CBCSolver(pareto_method="epsilon", second_stage="lazy"),
]


def _ids(solver) -> str:
    return solver.id


def _front(decision) -> set[tuple[float, ...]]:
    return {tuple(round(x, 9) for x in p.objectives) for p in decision.pareto}


@parametrize_conformance(BOTH)
def test_mip_solvers_conform(solver, check):
    check(solver)


# -- exactness -------------------------------------------------------------------------------------
CASES = [
    # (w, K, M, fractional, objectives are demands)
    (12, 2, 1, False, False),
    (12, 2, 1, True, True),
    (11, 3, 1, False, False),
    (12, 2, 2, False, True),
    (9, 2, 2, True, True),
    (10, 2, 2, False, False),
]
# Dominance cuts (the method for M >= 3) slow down as the front grows: small windows only.
CASES_M3 = [(8, 2, 3, False, False), (7, 3, 3, True, True)]


def _agree(solver, cases, seeds) -> None:
    exhaustive = ExhaustiveSolver()
    for seed in seeds:
        for w, k, m, fractional, demand_obj in cases:
            problem = random_problem(
                100 + seed, w, k, m, fractional=fractional, objectives_are_demands=demand_obj
            )
            got = solver.solve(problem, Budget(deadline_s=10.0))
            want = exhaustive.solve(problem, Budget(deadline_s=10.0))
            label = f"seed={seed} w={w} K={k} M={m} fractional={fractional}"
            assert got.status == Status.OPTIMAL, (label, got.notes)
            if m == 1:
                assert got.objectives == pytest.approx(want.objectives, rel=1e-12), label
            else:
                assert _front(got) == _front(want), label


@pytest.mark.parametrize("solver", VARIANTS, ids=_ids)
def test_agrees_with_exhaustive(solver):
    _agree(solver, CASES, range(3))


@pytest.mark.parametrize("solver", BOTH, ids=_ids)
def test_agrees_with_exhaustive_three_objectives(solver):
    _agree(solver, CASES_M3, range(2))


@pytest.mark.parametrize("solver", VARIANTS, ids=_ids)
def test_bbsched_table1_front(solver):
    d = solver.solve(table1(), Budget(deadline_s=10.0))
    assert d.status == Status.OPTIMAL
    assert _front(d) == {(100.0, 20.0), (80.0, 90.0)}


def _read_mknap(path: Path) -> list[tuple[SelectionProblem, float]]:
    """OR-Library mknap1 (format in instances/data/README.md)."""
    tokens = path.read_text().split()
    pos = 0

    def take(count: int) -> list[float]:
        nonlocal pos
        out = [float(t) for t in tokens[pos : pos + count]]
        pos += count
        return out

    instances = []
    for _ in range(int(take(1)[0])):
        n, m, opt = take(3)
        n, m = int(n), int(m)
        profits = take(n)
        matrix = np.array(take(n * m)).reshape(m, n)
        capacities = take(m)
        problem = SelectionProblem(capacities=capacities, demands=matrix.T, objectives=[profits])
        instances.append((problem, opt))
    return instances


@pytest.mark.parametrize("solver", BOTH, ids=_ids)
def test_or_library_mknap1_optima(solver):
    instances = _read_mknap(MKNAP1)
    assert [opt for _, opt in instances] == MKNAP1_OPTIMA
    for i, (problem, opt) in enumerate(instances):
        d = solver.solve(problem, Budget(deadline_s=15.0))
        assert d.status == Status.OPTIMAL, (i, d.notes)
        assert d.objectives[0] == pytest.approx(opt, abs=1e-6), i


def test_cbc_knapsack_cover_cut_regression():
    """CBC 2.10's knapsack cover cuts cut off the optimum of this window (reported "Optimal"
    0.93 % below it); mip-cbc turns them off."""
    p = theta_window(50, 28)
    n, b = p.demands[:, 0], p.demands[:, 1]
    cap_n, cap_b = p.capacities
    problem = SelectionProblem(
        capacities=p.capacities, demands=p.demands, objectives=[n * cap_b + b * cap_n]
    )
    want = DPSolver().solve(problem, Budget(deadline_s=15.0))
    for solver in BOTH:
        got = solver.solve(problem, Budget(deadline_s=15.0))
        assert got.status == Status.OPTIMAL
        assert got.objectives == want.objectives, solver.id


def test_cbc_preprocessing_regression():
    """CBC 2.10's preprocessing cut off the point (1422, 201334) of this window's front (stage one
    reported 1408 "Optimal"); mip-cbc turns preprocessing off."""
    problem = theta_window(50, 9)
    want = DPSolver().solve(problem, Budget(deadline_s=15.0))
    assert (1422.0, 201334.0) in _front(want)
    for solver in BOTH:
        got = solver.solve(problem, Budget(deadline_s=15.0))
        assert got.status == Status.OPTIMAL
        assert _front(got) == _front(want), solver.id


def test_cbc_crash_is_no_proof():
    """With preprocessing off, CBC 2.10.3 segfaults writing the solution of a model its bound
    tightening finds infeasible; the worker retries with preprocessing on and says: no proof."""
    c = np.array([1024, 1024, 2048, 128, 1683, 1840, 256, 1618, 1081, 1232, 674], dtype=float)
    bb = np.array([0, 78, 0, 0, 0, 0, 0, 0, 0, 8, 11], dtype=float)
    request = {
        "op": "solve",
        "backend": "cbc",
        "c": c,
        "ub": np.array([3] + [1] * 10),
        "A": np.vstack([c, bb]),
        "lo": np.array([-np.inf, 90.0]),
        "hi": np.array([2081.0, np.inf]),
        "time_limit": 10.0,
        "threads": 1,
        "gap_abs": 0.5,
        "start": None,
        "cbc_options": list(mip.CBC_OPTIONS),
    }
    reply = mip._WORKER.call(request, time.monotonic() + 30.0)
    assert reply is not None
    assert reply["status"] == "infeasible"
    assert reply["proof"] is False
    assert "crashed" in reply["message"]
    request["backend"] = "highs"
    reply = mip._WORKER.call(request, time.monotonic() + 30.0)
    assert (reply["status"], reply["proof"]) == ("infeasible", True)


def test_identical_jobs_take_the_earliest():
    """Identical jobs share one integer variable; the jobs taken are the earliest in the window."""
    problem = SelectionProblem(
        capacities=[10, 10],
        demands=[[3, 1], [4, 4], [3, 1], [3, 1], [3, 1], [1, 9]],
        objectives=[[5, 1, 5, 5, 5, 1]],
    )
    for solver in BOTH:
        d = solver.solve(problem, Budget(deadline_s=10.0))
        assert d.status == Status.OPTIMAL
        assert d.selected == (0, 2, 3)
        assert d.stats["variables"] == 3


def test_inexact_data_are_never_called_optimal():
    third = 1.0 / 3.0
    problem = SelectionProblem(
        capacities=[1.0], demands=[[third], [third], [third], [0.5]], objectives=[[1, 1, 1, 1]]
    )
    for solver in BOTH:
        d = solver.solve(problem, Budget(deadline_s=10.0))
        assert d.status == Status.FEASIBLE
        assert problem.is_feasible(d.selected)
        assert any("not decimal" in note for note in d.notes)


def test_single_objective_has_a_trace():
    problem = random_problem(5, 30, 2, 1, objectives_are_demands=False)
    for solver in BOTH:
        d = solver.solve(problem, Budget(deadline_s=10.0))
        assert d.trace, solver.id
        assert d.trace[-1].objectives == pytest.approx(d.objectives)


# -- deadlines -------------------------------------------------------------------------------------
def _hard(n: int = 80, seed: int = 1) -> SelectionProblem:
    """A strongly correlated two-constraint knapsack (profit = weight sum + R/10): neither CBC nor
    HiGHS proves it within seconds."""
    r = 10**6
    rng = np.random.default_rng(seed)
    w1, w2 = rng.integers(r // 10, r, n), rng.integers(r // 10, r, n)
    return SelectionProblem(
        capacities=[w1.sum() // 2, w2.sum() // 2],
        demands=np.column_stack([w1, w2]),
        objectives=[w1 + w2 + r // 10],
    )


@pytest.mark.parametrize("solver", BOTH, ids=_ids)
def test_deadline_gives_timeout_not_exception(solver):
    solver.warm_up()
    problem = _hard()
    start = time.perf_counter()
    d = solver.solve(problem, Budget(deadline_s=1.0))
    took = time.perf_counter() - start
    assert d.status == Status.TIMEOUT, d.notes
    # In time for the harness (CBC and HiGHS run in a worker process: only wall time shows it).
    assert took < 1.0 + GRACE_S
    assert problem.is_feasible(d.selected)
    assert d.objectives[0] > 0  # the incumbent at the deadline


def test_time_limit_parameter_gives_feasible():
    problem = _hard()
    d = HiGHSSolver(time_limit_s=0.5).solve(problem, Budget(deadline_s=10.0))
    assert d.status == Status.FEASIBLE
    assert any("time_limit_s" in note for note in d.notes)


def test_hung_worker_is_killed_and_replaced(monkeypatch):
    """When the worker does not answer by the deadline + grace it is killed (with the CBC it
    runs), the answer is ``timeout`` with the forced jobs only, and the next solve works."""
    solver = CBCSolver()
    solver.warm_up()
    old = mip._WORKER.pid
    old_tmp = Path(mip._WORKER._tmp)
    assert old_tmp.is_dir()
    # A negative grace makes the parent give up before the solver's own time limit.
    monkeypatch.setattr(mip, "WORKER_GRACE_S", -0.6)
    hard = _hard()
    problem = SelectionProblem(
        capacities=hard.capacities,
        demands=hard.demands,
        objectives=hard.objectives,
        must_include=(0,),
    )
    d = solver.solve(problem, Budget(deadline_s=1.0))
    assert d.status == Status.TIMEOUT
    assert 0 in d.selected
    assert any("killed and restarted" in note for note in d.notes)
    monkeypatch.setattr(mip, "WORKER_GRACE_S", 1.0)
    assert mip._WORKER.pid not in (None, old)
    assert _proc_state(old) == ""  # killed and reaped
    assert not old_tmp.exists()  # with the files of the solve it was killed in
    again = solver.solve(table1(), Budget(deadline_s=10.0))
    assert again.status == Status.OPTIMAL


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")
def test_worker_exits_when_its_parent_is_killed(tmp_path):
    script = tmp_path / "parent.py"
    script.write_text(
        textwrap.dedent(
            """
            import os, signal
            import schedbench.solvers.mip as mip
            mip.HiGHSSolver().warm_up()
            print(mip._WORKER.pid, mip._WORKER._tmp, flush=True)
            os.kill(os.getpid(), signal.SIGKILL)
            """
        )
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), *sys.path]))
    out = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=60
    )
    worker, tmp = out.stdout.split()
    deadline = time.monotonic() + 5.0
    while time.monotonic() < deadline and _proc_state(int(worker)) not in ("", "Z"):
        time.sleep(0.1)
    assert _proc_state(int(worker)) in ("", "Z")
    assert not Path(tmp).exists()


def _proc_state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2]
    except OSError:
        return ""


# -- the worker process and OR-Tools ---------------------------------------------------------------
def test_no_pulp_or_highspy_in_this_process():
    for solver in BOTH:
        assert solver.solve(table1(), Budget(deadline_s=10.0)).status == Status.OPTIMAL
    assert "pulp" not in sys.modules
    assert "highspy" not in sys.modules


def test_ortools_and_mip_highs_in_one_process():
    """OR-Tools' CP-SAT loaded and used here; HiGHS (and CBC) still work (HiGHS cannot share a
    process with OR-Tools, which bundles its own, so solvers/mip.py runs it in a child process)."""
    cp_model = pytest.importorskip("ortools.sat.python.cp_model")
    model = cp_model.CpModel()
    x = [model.new_bool_var(f"x{i}") for i in range(3)]
    model.add(sum(x) <= 2)
    model.maximize(3 * x[0] + 2 * x[1] + x[2])
    cp = cp_model.CpSolver()
    assert cp.solve(model) == cp_model.OPTIMAL
    assert cp.objective_value == 5
    for solver in (HiGHSSolver(), CBCSolver()):
        d = solver.solve(table1(), Budget(deadline_s=10.0))
        assert d.status == Status.OPTIMAL, (solver.id, d.notes)
        assert _front(d) == {(100.0, 20.0), (80.0, 90.0)}


def test_script_importing_ortools_without_main_guard(tmp_path):
    """A script that imports OR-Tools at the top and has no ``__main__`` guard: the spawned worker
    must neither re-run it nor load OR-Tools."""
    script = tmp_path / "uses_both.py"
    script.write_text(
        textwrap.dedent(
            """
            import sys
            from ortools.sat.python import cp_model
            from schedbench.simcore.problem import Budget
            from schedbench.solvers.mip import CBCSolver, HiGHSSolver
            from schedbench.solvers.testing import table1

            print("script body ran")
            model = cp_model.CpModel()
            model.new_bool_var("x")
            assert cp_model.CpSolver().solve(model) == cp_model.OPTIMAL
            for solver in (HiGHSSolver(), CBCSolver()):
                d = solver.solve(table1(), Budget(deadline_s=10.0))
                print(solver.name, d.status.value, sorted(p.objectives for p in d.pareto))
            assert "pulp" not in sys.modules and "highspy" not in sys.modules
            """
        )
    )
    pytest.importorskip("ortools.sat.python.cp_model")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), *sys.path]))
    out = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("script body ran") == 1
    for name in ("mip-highs", "mip-cbc"):
        assert f"{name} optimal [(80.0, 90.0), (100.0, 20.0)]" in out.stdout, out.stdout


# -- parameters and capabilities -------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs",
    [
        {"time_limit_s": -1},
        {"time_limit_s": float("nan")},
        {"threads": 0},
        {"threads": 2.0},
        {"pareto_method": "weighted"},
        {"reduce": "yes"},
        {"second_stage": "never"},
    ],
)
def test_bad_parameters_are_rejected(kwargs):
    with pytest.raises(SolverParameterError, match=next(iter(kwargs))):
        HiGHSSolver(**kwargs)


def test_ids_and_parameters():
    assert CBCSolver().id == "mip-cbc"
    assert HiGHSSolver(threads=2, time_limit_s=5).id == "mip-highs[threads=2,time_limit_s=5]"
    names = [p[0] for p in HiGHSSolver.parameters()]
    assert names == ["time_limit_s", "threads", "pareto_method", "second_stage", "reduce"]


def test_epsilon_declines_three_objectives():
    problem = random_problem(1, 8, 2, 3, objectives_are_demands=False)
    ok, reason = HiGHSSolver(pareto_method="epsilon").supports(problem)
    assert not ok and "M = 2 only" in reason


def test_missing_backend_is_declined_with_install_hint(monkeypatch):
    probe = dict(mip._WORKER.probe())
    probe["cbc"] = (False, "install CBC: apt-get install coinor-cbc")
    monkeypatch.setattr(mip._WORKER, "_probe", probe)
    ok, reason = CBCSolver().supports(table1())
    assert not ok and "install" in reason
    d = CBCSolver().solve(table1(), Budget(deadline_s=5.0))
    assert d.status == Status.ERROR
    assert "not supported" in d.notes[0]
    assert HiGHSSolver().supports(table1()) == (True, "")
