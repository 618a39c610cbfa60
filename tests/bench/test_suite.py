"""Suites: loading and validation, expansion, the runner (local pool, Dask, isolation), resume."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from schedbench.bench.cli import main
from schedbench.bench.run.isolate import solve_isolated
from schedbench.bench.run.runner import RunError, plan, run_suite
from schedbench.bench.store import ResultStore
from schedbench.bench.suite import SuiteError, load_suite, make_solver_spec
from schedbench.instances.windows import theta_window
from schedbench.simcore.problem import Budget, Status

SMALL = """
[suite]
name = "small"
budget_s = 5
seed = 3

[[instances]]
family = "theta"
source = "theta-window"
w = [8, 12]
seeds = 2

[[solvers]]
name = "dp"

[[solvers]]
name = "naive"

[[solvers]]
name = "cpsat"
params = { workers = [1, 2] }
families = ["theta"]
"""


def write(tmp_path: Path, text: str, name: str = "s.toml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


# ---------------------------------------------------------------------- loading
def test_grid_expands_into_cells(tmp_path):
    suite = load_suite(write(tmp_path, SMALL))
    instances, dcells, scells = plan(suite)
    assert len(instances) == 4  # w in {8, 12} x seeds {1, 2}
    assert sorted(s.id for s in suite.solvers) == ["cpsat", "cpsat[workers=2]", "dp", "naive"]
    assert len(dcells) == 16 and not scells
    assert len({c.cell_id for c in dcells}) == 16  # ids unique and stable
    again = plan(load_suite(write(tmp_path, SMALL, "t.toml")))[1]
    assert [c.cell_id for c in again] == [c.cell_id for c in dcells]


@pytest.mark.parametrize(
    "edit, where",
    [
        (("budget_s = 5", "budget_s = 45"), "suite.budget_s"),
        (("seed = 3", "seed = 3\ncolour = 1"), "colour"),
        (('name = "dp"', 'name = "dpx"'), "solvers[0].name"),
        (("params = { workers = [1, 2] }", "params = { nosuch = 1 }"), "solvers[2].params"),
        (('families = ["theta"]', 'families = ["other"]'), "solvers[2].families"),
        (('source = "theta-window"', 'source = "moon"'), "instances[0].source"),
        (("w = [8, 12]", 'w = ["big"]'), "instances[0].w"),
    ],
)
def test_bad_suites_name_file_and_key_path(tmp_path, edit, where):
    p = write(tmp_path, SMALL.replace(*edit))
    with pytest.raises(SuiteError) as exc:
        load_suite(p)
    assert str(p) in str(exc.value) and where in str(exc.value)


def test_missing_data_file_is_reported_at_load(tmp_path):
    text = SMALL + '\n[[instances]]\nfamily = "mk"\nsource = "mknap"\npath = "nope.txt"\n'
    with pytest.raises(SuiteError, match=r"instances\[1\]\.path: expected an existing file"):
        load_suite(write(tmp_path, text))


def test_plan_prints_the_matrix_without_running(tmp_path, capsys):
    p = write(tmp_path, SMALL)
    assert main(["run", str(p), "--plan", "--store", str(tmp_path / "x.sqlite")]) == 0
    out = capsys.readouterr().out
    assert "16 decision cells" in out and "cpsat[workers=2]" in out
    assert not (tmp_path / "x.sqlite").exists()


# ---------------------------------------------------------------------- running
def test_local_run_stores_every_cell_with_quality_and_resumes(tmp_path):
    suite = load_suite(write(tmp_path, SMALL))
    store = tmp_path / "r.sqlite"
    summary = run_suite(suite, store_path=store, workers=1, show_progress=False)
    assert summary.cells_run == 16 and summary.errors == 0
    with ResultStore(store, readonly=True) as st:
        rows = st.rows("small")
    assert len(rows) == 16
    by_solver = {}
    for r in rows:
        by_solver.setdefault(r["solver"], []).append(r)
        assert r["concurrency"] == 1 and r["executor"] == "local"
        assert r["decision"]["reference_pareto"]  # the dp reference was computed and attached
    # exact solvers reproduce the exact front; naive does not always
    assert all(r["metrics"]["front_found"] == 1.0 for r in by_solver["dp"])
    assert all(r["metrics"]["igd_plus"] == 0.0 for r in by_solver["cpsat"])
    assert any(r["metrics"]["front_found"] < 1.0 for r in by_solver["naive"])
    # references are cached next to the store
    assert len(list((tmp_path / "references").glob("*.json"))) == 4
    # a second run refuses, resume runs nothing, force runs everything again
    with pytest.raises(RunError, match="--resume"):
        run_suite(suite, store_path=store, show_progress=False)
    assert run_suite(suite, store_path=store, resume=True, show_progress=False).cells_run == 0
    assert run_suite(suite, store_path=store, force=True, show_progress=False).cells_run == 16
    with ResultStore(store, readonly=True) as st:
        assert len(st.rows("small")) == 16
        assert [r["status"] for r in st.runs("small")] == ["finished"] * 3


def test_dask_local_cluster_runs_the_same_cells(tmp_path):
    pytest.importorskip("distributed")
    suite = load_suite(write(tmp_path, SMALL))
    store = tmp_path / "d.sqlite"
    summary = run_suite(suite, store_path=store, executor="dask", workers=2, show_progress=False)
    assert summary.cells_run == 16 and summary.errors == 0
    with ResultStore(store, readonly=True) as st:
        rows = st.rows("small")
    assert {r["executor"] for r in rows} == {"dask"} and {r["concurrency"] for r in rows} == {2}
    assert all(r["metrics"]["front_found"] == 1.0 for r in rows if r["solver"] == "dp")


PLUGINS = """
[suite]
name = "plugins"
budget_s = 1

[[instances]]
family = "theta"
source = "theta-window"
w = 6
seeds = 1

[[solvers]]
name = "tests.plugins_for_suites:Raiser"

[[solvers]]
name = "dp"
"""


def test_a_raising_plugin_is_recorded_and_the_run_goes_on(tmp_path):
    suite = load_suite(write(tmp_path, PLUGINS))
    store = tmp_path / "p.sqlite"
    summary = run_suite(suite, store_path=store, show_progress=False)
    assert summary.errors == 1
    with ResultStore(store, readonly=True) as st:
        rows = {r["solver"]: r for r in st.rows()}
    assert rows["raiser"]["status"] == "error" and "boom" in rows["raiser"]["error"]
    assert rows["dp"]["status"] == "optimal"


def test_a_crashing_plugin_breaks_no_finished_cell(tmp_path):
    text = PLUGINS.replace("Raiser", "Crasher")
    suite = load_suite(write(tmp_path, text))
    store = tmp_path / "c.sqlite"
    run_suite(suite, store_path=store, show_progress=False)
    with ResultStore(store, readonly=True) as st:
        rows = {r["solver"]: r for r in st.rows()}
    assert rows["crasher"]["status"] == "error"
    assert "exited with code 13" in rows["crasher"]["error"]
    assert rows["dp"]["status"] == "optimal"


MISBEHAVING = """
[suite]
name = "misbehaving"
budget_s = 1

[[instances]]
family = "theta"
source = "theta-window"
w = 6
seeds = 1

[[solvers]]
name = "tests.plugins_for_suites:Sleeper"
params = { seconds = 3600 }

[[solvers]]
name = "tests.plugins_for_suites:Exiter"

[[solvers]]
name = "tests.plugins_for_suites:Interrupter"

[[solvers]]
name = "dp"
"""


def test_a_default_run_survives_hanging_exiting_and_interrupting_solvers(tmp_path, monkeypatch):
    """Without isolation, a solver that hangs is killed at budget + grace, one that
    calls sys.exit or raises KeyboardInterrupt is charged its own cell; all cells are stored with
    their reasons and the run finishes."""
    from schedbench.bench.run import isolate

    monkeypatch.setattr(isolate, "GRACE_S", 1.0)
    suite = load_suite(write(tmp_path, MISBEHAVING))
    store = tmp_path / "m.sqlite"
    t0 = time.perf_counter()
    summary = run_suite(suite, store_path=store, workers=2, show_progress=False)
    elapsed = time.perf_counter() - t0
    with ResultStore(store, readonly=True) as st:
        rows = {r["solver_name"].split(":")[-1].lower(): r for r in st.rows()}
    assert summary.cells_run == 4 and len(rows) == 4
    assert rows["sleeper"]["status"] == "timeout" and "grace" in rows["sleeper"]["error"]
    assert rows["exiter"]["status"] == "error" and "SystemExit: 3" in rows["exiter"]["error"]
    assert "KeyboardInterrupt" in rows["interrupter"]["error"]
    assert rows["dp"]["status"] == "optimal"
    assert elapsed < 600  # far less than the 3,600 s sleep: killed at budget 1 s + grace 1 s


def test_isolation_kills_a_hanging_solver_at_deadline_plus_grace():
    spec = make_solver_spec("tests.plugins_for_suites:Sleeper", {"seconds": 60.0})
    t = time.perf_counter()
    decision = solve_isolated(spec, theta_window(6, 1), Budget(deadline_s=0.5), grace_s=0.5)
    assert decision.status == Status.TIMEOUT
    assert "killed" in decision.notes[0]
    assert 0.9 <= decision.latency_s < 5
    assert time.perf_counter() - t < 60  # far less than the 60 s sleep


def test_isolation_returns_a_normal_answer_unchanged():
    spec = make_solver_spec("dp", {})
    decision = solve_isolated(spec, theta_window(8, 2), Budget(deadline_s=5))
    assert decision.status == Status.OPTIMAL and decision.pareto


def test_recorded_decisions_replay_in_a_suite(tmp_path):
    rec = tmp_path / "rec.jsonl"
    code = main(
        [
            "simulate",
            "--workload",
            "lublin:jobs=1500,nodes=4392,seed=2+bbsched:S4,seed=2+arrivals:3",
            "--system",
            "theta",
            "--priority",
            "wfp",
            "--solver",
            "naive",
            "--record-decisions",
            str(rec),
            "--out",
            str(tmp_path / "sim"),
            "--no-progress",
        ]
    )
    assert code == 0
    lines = rec.read_text().splitlines()
    assert lines and all("problem" in json.loads(x) for x in lines)
    suite_text = f"""
[suite]
name = "replay"
[[instances]]
family = "rec"
source = "recorded"
path = "{rec}"
limit = 5
[[solvers]]
name = "binpack"
"""
    suite = load_suite(write(tmp_path, suite_text, "replay.toml"))
    instances, _, _ = plan(suite)
    assert len(instances) == min(5, len(lines))
    assert instances[0].context["policy"].startswith("window[naive")
    summary = run_suite(suite, store_path=tmp_path / "replay.sqlite", show_progress=False)
    assert summary.cells_run == len(instances) and summary.errors == 0


def test_run_command_prints_leaderboard_and_writes_html(tmp_path, capsys):
    p = write(
        tmp_path,
        SMALL.replace(
            '[[solvers]]\nname = "cpsat"\nparams = { workers = [1, 2] }\nfamilies = ["theta"]\n', ""
        ),
    )
    store = tmp_path / "cli.sqlite"
    assert main(["run", str(p), "--store", str(store), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "Decision quality and latency" in out and "HTML report:" in out
    assert (tmp_path / "small-report.html").exists()
    assert main(["report", str(store), "--markdown"]) == 0
    assert "| solver" in capsys.readouterr().out
    assert main(["compare", str(store), str(store), "--fail", "igd_plus:5%"]) == 0


# ---------------------------------------------------------------------- concurrency and resume
REPS = """
[suite]
name = "reps"
budget_s = 5
repetitions = {reps}

[[instances]]
family = "theta"
source = "theta-window"
w = 6
seeds = 2

[[solvers]]
name = "naive"

[[solvers]]
name = "dp"
"""


def test_resume_with_repetitions_runs_only_missing_repetitions(tmp_path):
    """A resume filter that re-ran stored repetitions (or skipped new ones) fails here."""
    store = tmp_path / "r.sqlite"
    one = load_suite(write(tmp_path, REPS.format(reps=1), "one.toml"))
    assert run_suite(one, store_path=store, show_progress=False).cells_run == 4
    three = load_suite(write(tmp_path, REPS.format(reps=3), "three.toml"))
    summary = run_suite(three, store_path=store, resume=True, show_progress=False)
    assert summary.cells_run == 8  # repetitions 1 and 2 only
    with ResultStore(store, readonly=True) as st:
        rows = st.rows("reps")
        runs = [r["run_id"] for r in st.runs("reps")]
    assert len(rows) == 12 and len({r["cell_id"] for r in rows}) == 12
    by_rep: dict[int, set[int]] = {}
    for r in rows:
        by_rep.setdefault(r["repetition"], set()).add(r["run_id"])
    assert by_rep == {0: {runs[0]}, 1: {runs[1]}, 2: {runs[1]}}
    assert run_suite(three, store_path=store, resume=True, show_progress=False).cells_run == 0


def test_a_second_live_run_of_one_suite_is_refused_before_any_work(tmp_path):
    """Another live process 'running' the suite into the store: refused with a clear message,
    nothing computed; once that process is gone, its run is marked interrupted and work goes on."""
    import subprocess
    import sys

    store = tmp_path / "r.sqlite"
    suite = load_suite(write(tmp_path, REPS.format(reps=1)))
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with ResultStore(store) as st:
            run_id = st.begin_run("reps", {})
            st._own_runs.discard(run_id)  # as if begun by the other process
            st._conn.execute("UPDATE runs SET pid = ? WHERE run_id = ?", (holder.pid, run_id))
        with pytest.raises(RunError, match=f"process {holder.pid}"):
            run_suite(suite, store_path=store, show_progress=False)
        with ResultStore(store, readonly=True) as st:
            assert st.rows("reps") == []
    finally:
        holder.kill()
        holder.wait()
    assert run_suite(suite, store_path=store, show_progress=False).cells_run == 4
    with ResultStore(store, readonly=True) as st:
        assert [r["status"] for r in st.runs("reps")] == ["interrupted", "finished"]


def test_begin_run_exclusive_checks_inside_the_write_transaction(tmp_path):
    from schedbench.bench.store import ConcurrentRunError

    store = tmp_path / "r.sqlite"
    with ResultStore(store) as a, ResultStore(store) as b:
        a.begin_run("s", {}, exclusive=True)
        with pytest.raises(ConcurrentRunError, match="being run"):
            b.begin_run("s", {}, exclusive=True)
        b.begin_run("other", {}, exclusive=True)  # another suite is fine


def test_a_dask_run_also_kills_a_hanging_solver_at_budget_plus_grace(tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    text = MISBEHAVING.replace('[[solvers]]\nname = "tests.plugins_for_suites:Exiter"\n', "")
    suite = load_suite(write(tmp_path, text))
    store = tmp_path / "d.sqlite"
    t0 = time.perf_counter()
    run_suite(suite, store_path=store, executor="dask", workers=1, show_progress=False)
    elapsed = time.perf_counter() - t0
    with ResultStore(store, readonly=True) as st:
        rows = {r["solver_name"].split(":")[-1].lower(): r for r in st.rows()}
    assert rows["sleeper"]["status"] == "timeout" and "grace" in rows["sleeper"]["error"]
    assert "KeyboardInterrupt" in rows["interrupter"]["error"]
    assert rows["dp"]["status"] == "optimal"
    assert elapsed < 600  # far less than the 3,600 s sleep: killed at 1 s + 5 s grace
