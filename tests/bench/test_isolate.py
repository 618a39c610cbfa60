"""``--isolate``: every registered solver solves in a killable child process (bench/run/isolate.py),
locally and on Dask, including the MIP backends, which start a worker process of their own (a
daemonic isolation child made every mip cell an error: "daemonic processes are not allowed to
have children")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from schedbench.bench.cli import main
from schedbench.bench.run import isolate
from schedbench.bench.run.isolate import solve_isolated
from schedbench.bench.store import ResultStore
from schedbench.bench.suite import make_solver_spec
from schedbench.instances.windows import theta_window
from schedbench.simcore.kinds.base import get_kind
from schedbench.simcore.problem import Budget, Status
from schedbench.simcore.solver import timed_solve
from schedbench.solvers.registry import known_solvers, make_solver, solver_kinds
from schedbench.solvers.testing import random_problem

MIP_SUITE = """
[suite]
name = "mip-isolated"
budget_s = 10
seed = 1

[[instances]]
family = "theta"
source = "theta-window"
w = 8
seeds = 1

[[solvers]]
name = "mip-cbc"

[[solvers]]
name = "mip-highs"
"""


@pytest.mark.parametrize("executor", ["local", "dask"])
def test_run_isolate_solves_with_both_mip_backends(tmp_path, capsys, executor):
    if executor == "dask":
        pytest.importorskip("distributed")
    suite = tmp_path / "mip.toml"
    suite.write_text(MIP_SUITE)
    store = tmp_path / "mip.sqlite"
    args = ["run", str(suite), "--isolate", "--store", str(store), "--executor", executor]
    assert main([*args, "--workers", "1"]) == 0, capsys.readouterr().err
    with ResultStore(store, readonly=True) as st:
        rows = {r["solver"]: r for r in st.rows("mip-isolated")}
    assert set(rows) == {"mip-cbc", "mip-highs"}
    for name, row in rows.items():
        assert row["isolated"] is True and row["executor"] == executor, name
        assert row["status"] == "optimal", (name, row["error"])
        assert row["metrics"]["front_found"] == 1.0, name  # the exact front, as dp's reference


def _small_problem(solver) -> object:
    """The first example problem of the solver's kinds that it takes; for selection solvers
    that take none of those, a small single-objective window, or three objectives (nodes, BB,
    SSD) for those that need the third."""
    candidates = [p for kind in solver_kinds(solver) for _l, p in get_kind(kind).examples()]
    if "selection" in solver_kinds(solver):
        candidates.append(random_problem(2, 8, 2, 1, objectives_are_demands=False))
        candidates.append(random_problem(2, 8, 3, 3))
    for problem in candidates:
        if solver.supports(problem)[0]:
            return problem
    raise AssertionError(f"{solver.id}: takes none of {len(candidates)} small problems")


def _answer(problem, decision) -> dict:
    doc = get_kind(type(problem).kind).decision_to_dict(decision)
    for key in ("latency_s", "stats", "trace", "notes"):
        doc.pop(key, None)
    return doc


def test_every_registered_solver_answers_isolated_as_in_process():
    """Each registered solver, on a small problem of its kind: the isolated answer is the
    in-process one (two isolated solves at a time, as a two-worker run makes them)."""
    names = known_solvers()
    assert len(names) >= 30
    budget = Budget(deadline_s=10, seed=5)
    problems, here = {}, {}
    for name in names:  # in this process, one after the other (output capture is per process)
        solver = make_solver(name)
        problems[name] = _small_problem(solver)
        here[name] = _answer(problems[name], timed_solve(solver, problems[name], budget))

    def isolated(name: str):
        return solve_isolated(make_solver_spec(name, {}), problems[name], budget)

    with ThreadPoolExecutor(2) as pool:
        there = dict(zip(names, pool.map(isolated, names), strict=True))
    for name in names:
        answer = _answer(problems[name], there[name])
        assert answer["status"] not in ("error", "timeout"), f"{name}: {there[name].notes}"
        assert answer == here[name], name


def _gone(pid: int, within_s: float = 10.0) -> bool:
    """The process has ended (and been reaped, or is a zombie) within ``within_s``."""
    end = time.monotonic() + within_s
    while time.monotonic() < end:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().split()[2]
        except OSError:
            return True
        if state == "Z":
            return True
        time.sleep(0.05)
    return False


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")
def test_a_hung_solver_is_killed_with_the_processes_it_started(tmp_path):
    pid_file = tmp_path / "pids"
    spec = make_solver_spec("tests.plugins_for_suites:Forker", {"pid_file": str(pid_file)})
    decision = solve_isolated(spec, theta_window(6, 1), Budget(deadline_s=0.5), grace_s=0.5)
    assert decision.status == Status.TIMEOUT and "killed" in decision.notes[0]
    child, grandchild = map(int, pid_file.read_text().split())
    assert os.getpid() not in (child, grandchild)
    assert _gone(child) and _gone(grandchild)


CALLER = """
import sys
from schedbench.bench.run import isolate
from schedbench.bench.run.isolate import solve_isolated
from schedbench.bench.suite import make_solver_spec
from schedbench.instances.windows import theta_window
from schedbench.simcore.problem import Budget

if __name__ == "__main__":
    spec = make_solver_spec("tests.plugins_for_suites:Forker", {"pid_file": sys.argv[1]})
    solve_isolated(spec, theta_window(6, 1), Budget(deadline_s=30))
"""


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")
def test_a_caller_killed_outright_takes_the_isolated_solve_and_its_processes_along(tmp_path):
    """SIGKILL gives the caller no chance to clean up: the child dies with it (PDEATHSIG) and
    the child's watchman kills what the solver started."""
    script, pid_file = tmp_path / "caller.py", tmp_path / "pids"
    script.write_text(CALLER)
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    caller = subprocess.Popen([sys.executable, str(script), str(pid_file)], env=env)
    try:
        end = time.monotonic() + 120
        while not pid_file.exists() and caller.poll() is None and time.monotonic() < end:
            time.sleep(0.05)
        assert pid_file.exists(), "the isolated solver never started"
        child, grandchild = map(int, pid_file.read_text().split())
    finally:
        caller.kill()
        caller.wait()
    assert _gone(child) and _gone(grandchild)


def test_solve_starts_the_child_before_building_the_solver_here(monkeypatch):
    """``api.solve(isolate=True)``, where it cannot fork, spawns the isolation child first, so that its imports and
    kernel loading overlap this process's building of the solver and reading of the problem;
    the answer is the in-process one."""
    import multiprocessing as mp

    from schedbench.bench import api
    from schedbench.solvers import registry

    seen: list[int] = []
    real = registry.make_solver
    before = set(mp.active_children())  # a test worker may hold children of earlier tests

    def spy(name, params=None):
        seen.append(len(set(mp.active_children()) - before))
        return real(name, params)

    monkeypatch.setattr(registry, "make_solver", spy)
    monkeypatch.setattr(isolate, "fork_is_safe", lambda: False)  # (the fork path: below)
    problem = theta_window(12, seed=3)
    isolated = api.solve(problem, "dp", isolate=True)
    assert seen[0] == 1  # the child was running when this process built its solver
    here = api.solve(problem, "dp", isolate=False)
    assert (isolated.status, isolated.selected, isolated.pareto) == (
        here.status,
        here.selected,
        here.pareto,
    )
    assert set(mp.active_children()) <= before  # closed with the call


def test_a_solver_that_cannot_be_built_leaves_no_early_child():
    import multiprocessing as mp

    from schedbench.bench import api
    from schedbench.simcore.errors import SchedbenchError

    before = set(mp.active_children())
    with pytest.raises(SchedbenchError, match="unknown solver"):
        api.solve(theta_window(8, seed=1), "no-such-solver", isolate=True)
    with pytest.raises(SchedbenchError, match="memory limit"):
        api.solve(theta_window(8, seed=1), "dp", isolate=True, memory_limit="12x")
    assert set(mp.active_children()) <= before


FORKED = """
import json, sys
from schedbench.bench import api
from schedbench.bench.run import isolate
calls = []
real = isolate.start_child
isolate.start_child = lambda *a, **k: calls.append(k.get("fork")) or real(*a, **k)
d = api.solve(sys.argv[1], "dp", isolate=True)
print(json.dumps({"fork": calls, "safe": isolate.fork_is_safe(), "status": d.status.value,
                  "selected": list(d.selected)}))
"""


def test_a_fresh_process_forks_its_isolation_child_and_gets_the_same_answer(tmp_path):
    """In a fresh process (one thread, no child) ``api.solve`` forks the child after building
    the solver here: the copy has the solver's libraries imported already."""
    problem = theta_window(20, seed=4)
    path = tmp_path / "p.json"
    path.write_text(json.dumps(get_kind("selection").problem_to_dict(problem)))
    done = subprocess.run(
        [sys.executable, "-c", FORKED, str(path)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["fork"] == [True] and seen["safe"]
    here = timed_solve(make_solver("dp", {}), problem, Budget(deadline_s=15))
    assert (seen["status"], tuple(seen["selected"])) == (here.status.value, here.selected)


def test_fork_is_not_safe_with_a_thread_or_a_child_running():
    import threading

    stop = threading.Event()
    t = threading.Thread(target=stop.wait)
    t.start()
    try:
        assert not isolate.fork_is_safe()
    finally:
        stop.set()
        t.join()
