"""Every misbehaving solver is contained in every command and context
(docs/design.md#trust-boundaries-and-bounded-work): ``solve``, ``simulate`` (a plug-in isolated
by default, and with ``--isolate``), ``simulate --no-isolate`` (what a soft deadline can
contain), suites on the local pool, with ``--isolate``, and on Dask, a suite's reference
solves, and ``check-solver``. Each context runs all the misbehaving plug-ins of
tests/plugins_for_suites.py once (a module fixture); each test asserts one misbehaviour's
outcome: its status, its reason, no process left behind, an intact store. Deadlines are short
(budget 0.5 s, grace 1 s) but no verdict depends on how fast the machine is.
"""

from __future__ import annotations

import contextlib
import io
import json
import sqlite3
import time
from pathlib import Path

import pytest

from schedbench.bench import api
from schedbench.bench.cli import main
from schedbench.bench.run import isolate
from schedbench.bench.store import ResultStore

PLUGINS = "tests.plugins_for_suites"
ROOT = Path(__file__).resolve().parents[2]
PROBLEM = ROOT / "instances" / "examples" / "theta_w20.json"
#: A short BBSched workload on Theta that poses one window decision to the solver.
WORKLOAD = "lublin:jobs=60,nodes=4392,seed=1+bbsched:S4,seed=1+arrivals:3"
#: A cap far below what Hog asks (64 GiB) and far above what a solver process needs.
MEMORY = "8G"

#: misbehaviour -> (plug-in class, expected status, words of the recorded reason)
EXPECTED: dict[str, tuple[str, str, str]] = {
    "hang": ("Hanger", "timeout", "deadline +"),
    "sleep": ("Sleeper", "timeout", "deadline +"),
    "bad-index": ("BadIndex", "error", "outside the window"),
    "over-capacity": ("OverCapacity", "error", "over capacity"),
    "stdout": ("Chatty", "feasible", ""),
    "exit-0": ("ExitZero", "error", "exited with code 0"),
    "huge-allocation": ("Hog", "error", "MemoryError"),
    "segfault": ("Segfault", "error", "SIGSEGV"),
    "keyboard-interrupt": ("Interrupter", "error", "KeyboardInterrupt"),
    "none": ("NoneAnswer", "error", "NoneType"),
    "nan-claim": ("NanClaim", "feasible", "not believed"),
    "mutation": ("Mutator", "error", "over capacity"),
    "fork": ("Forker", "timeout", "deadline +"),
    "detached-fork": ("Detacher", "timeout", "deadline +"),
}
#: What a soft, in-process deadline (``simulate --no-isolate``; the project's own solvers by
#: default) cannot contain: a crash or an exit ends the process, no
#: memory cap applies in it, a solver's KeyboardInterrupt cannot be told from Ctrl-C, and the
#: processes a solver starts are not in a group of their own.
NOT_SOFT = {"exit-0", "segfault", "huge-allocation", "keyboard-interrupt", "fork", "detached-fork"}


def _params(name: str, pid_dir: Path) -> dict[str, str]:
    cls = EXPECTED[name][0]
    if cls in ("Forker", "Detacher"):
        return {"pid_file": str(pid_dir / f"{name}.pids")}
    if cls == "Sleeper":
        return {"seconds": "600"}
    return {}


def _gone(pid: int, within_s: float = 20.0) -> bool:
    end = time.monotonic() + within_s
    while time.monotonic() < end:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return True
        if state == "Z":
            return True
        time.sleep(0.05)
    return False


def _left_behind(name: str, pid_dir: Path) -> list[int]:
    """The processes a forking plug-in started that are still alive."""
    path = pid_dir / f"{name}.pids"
    if not path.exists():
        return []
    return [pid for pid in map(int, path.read_text().split()) if not _gone(pid)]


@pytest.fixture(scope="module")
def short_deadlines():
    mp = pytest.MonkeyPatch()
    mp.setattr(isolate, "GRACE_S", 1.0)
    mp.setenv("SCHEDBENCH_MEMORY_LIMIT", MEMORY)
    yield
    mp.undo()


def _check(outcome: dict, name: str, pid_dir: Path) -> None:
    _cls, status, words = EXPECTED[name]
    assert outcome["status"] == status, outcome
    assert words in outcome["reason"], outcome
    assert "CHATTY" not in outcome.get("stdout", "")
    assert not _left_behind(name, pid_dir)


# ---------------------------------------------------------------------------------- solve
@pytest.fixture(scope="module", params=["spawn", "fork"])
def solve_outcomes(request, short_deadlines, tmp_path_factory):
    """``schedbench solve`` (isolated by default) on each plug-in: the printed decision. Its
    child is forked where that is safe (a fresh command), else spawned (``isolate.start_child``):
    both are contained alike."""
    forked = request.param == "fork"
    patch = pytest.MonkeyPatch()
    request.addfinalizer(patch.undo)
    patch.setattr(isolate, "fork_is_safe", lambda: forked)
    pid_dir = tmp_path_factory.mktemp(f"solve-pids-{request.param}")
    out: dict[str, dict] = {}
    for name, (cls, _s, _w) in EXPECTED.items():
        args = ["solve", str(PROBLEM), "--solver", f"{PLUGINS}:{cls}", "--budget", "0.5"]
        for key, value in _params(name, pid_dir).items():
            args += ["--set", f"{key}={value}"]
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            code = main(args)
        text = printed.getvalue()
        decision = json.loads(text)  # the whole of stdout is the one JSON document
        out[name] = {
            "status": decision["status"],
            "reason": " ".join(decision["notes"]),
            "code": code,
            "stdout": text,
        }
    return out, pid_dir


@pytest.mark.parametrize("name", list(EXPECTED))
def test_solve_contains(solve_outcomes, name):
    outcomes, pid_dir = solve_outcomes
    _check(outcomes[name], name, pid_dir)
    assert outcomes[name]["code"] == (1 if EXPECTED[name][1] == "error" else 0)


# ------------------------------------------------------------------------------- simulate
def _simulate_outcome(name: str, pid_dir: Path, *, isolate_: bool | None, out: Path) -> dict:
    cls = EXPECTED[name][0]
    done = api.simulate(
        WORKLOAD,
        system="theta",
        policy="window",
        solver=f"{PLUGINS}:{cls}",
        params=_params(name, pid_dir),
        budget=0.5,
        isolate=isolate_,
        on_invalid="fallback",
        out=out,
    )
    entries = [json.loads(line) for line in (out / "decisions.jsonl").read_text().splitlines()]
    first = entries[0]
    reason = " ".join([first.get("fault") or "", *first.get("notes", [])])
    return {
        "status": first["status"],
        "reason": reason,
        "decisions": len(entries),
        "jobs": done.run.metrics.get("jobs_measured"),
        "error": done.run.error,
        "children": done.run.config.get("isolated_children_started"),
    }


def _simulate_all(names, pid_dir: Path, tmp: Path, *, isolate_: bool | None) -> dict[str, dict]:
    return {
        name: _simulate_outcome(name, pid_dir, isolate_=isolate_, out=tmp / name) for name in names
    }


@pytest.fixture(scope="module")
def simulate_isolated(short_deadlines, tmp_path_factory):
    pid_dir = tmp_path_factory.mktemp("sim-iso")
    return _simulate_all(EXPECTED, pid_dir, pid_dir, isolate_=True), pid_dir


@pytest.fixture(scope="module")
def simulate_default(short_deadlines, tmp_path_factory):
    """``simulate`` told neither ``--isolate`` nor ``--no-isolate``: a plug-in is isolated."""
    pid_dir = tmp_path_factory.mktemp("sim-default")
    return _simulate_all(EXPECTED, pid_dir, pid_dir, isolate_=None), pid_dir


@pytest.fixture(scope="module")
def simulate_soft(short_deadlines, tmp_path_factory):
    pid_dir = tmp_path_factory.mktemp("sim-soft")
    names = [n for n in EXPECTED if n not in NOT_SOFT]
    return _simulate_all(names, pid_dir, pid_dir, isolate_=False), pid_dir


def _check_simulation(outcome: dict, name: str, pid_dir: Path) -> None:
    _check(outcome, name, pid_dir)
    assert outcome["error"] is None  # the run finished, every job measured
    assert outcome["jobs"] == 60


@pytest.mark.parametrize("name", list(EXPECTED))
def test_simulate_isolate_contains(simulate_isolated, name):
    outcomes, pid_dir = simulate_isolated
    _check_simulation(outcomes[name], name, pid_dir)


@pytest.mark.parametrize("name", list(EXPECTED))
def test_simulate_contains_a_plug_in_by_default(simulate_default, name):
    outcomes, pid_dir = simulate_default
    _check_simulation(outcomes[name], name, pid_dir)
    assert outcomes[name]["children"] >= 1  # asked through an isolated child


@pytest.mark.parametrize("name", [n for n in EXPECTED if n not in NOT_SOFT])
def test_simulate_in_process_contains_what_a_soft_deadline_can(simulate_soft, name):
    outcomes, pid_dir = simulate_soft
    _check_simulation(outcomes[name], name, pid_dir)


# --------------------------------------------------------------------------------- suites
def _suite(pid_dir: Path) -> str:
    lines = [
        '[suite]\nname = "contain"\nbudget_s = 0.5\nreference = "none"\n',
        '[[instances]]\nfamily = "theta"\nsource = "theta-window"\nw = 20\nseeds = 1\n',
    ]
    for name, (cls, _s, _w) in EXPECTED.items():
        params = ", ".join(f'{k} = "{v}"' for k, v in _params(name, pid_dir).items())
        if EXPECTED[name][0] == "Sleeper":
            params = "seconds = 600"
        lines.append(f'[[solvers]]\nname = "{PLUGINS}:{cls}"\nparams = {{ {params} }}\n')
    return "\n".join(lines)


def _run_suite(tmp: Path, *, isolate_: bool, executor: str) -> tuple[dict[str, dict], Path]:
    suite = tmp / "contain.toml"
    suite.write_text(_suite(tmp))
    store = tmp / "contain.sqlite"
    api.run_suite(suite, store=store, workers=2, isolate=isolate_, executor=executor)
    with sqlite3.connect(store) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    by_class = {cls: name for name, (cls, _s, _w) in EXPECTED.items()}
    with ResultStore(store, readonly=True) as st:
        rows = {by_class[r["solver_name"].rsplit(":", 1)[1]]: r for r in st.rows("contain")}
    assert set(rows) == set(EXPECTED)  # every cell stored, none lost
    outcomes = {
        name: {
            "status": row["status"],
            "reason": " ".join([row["error"] or "", *(row["decision"] or {}).get("notes", [])]),
        }
        for name, row in rows.items()
    }
    return outcomes, tmp


@pytest.fixture(scope="module")
def suite_local(short_deadlines, tmp_path_factory):
    return _run_suite(tmp_path_factory.mktemp("suite-local"), isolate_=False, executor="local")


@pytest.fixture(scope="module")
def suite_isolated(short_deadlines, tmp_path_factory):
    return _run_suite(tmp_path_factory.mktemp("suite-iso"), isolate_=True, executor="local")


@pytest.fixture(scope="module")
def suite_dask(short_deadlines, tmp_path_factory):
    pytest.importorskip("distributed")
    return _run_suite(tmp_path_factory.mktemp("suite-dask"), isolate_=False, executor="dask")


@pytest.mark.parametrize("name", list(EXPECTED))
def test_suite_contains(suite_local, name):
    _check(suite_local[0][name], name, suite_local[1])


@pytest.mark.parametrize("name", list(EXPECTED))
def test_suite_isolate_contains(suite_isolated, name):
    _check(suite_isolated[0][name], name, suite_isolated[1])


@pytest.mark.slow
@pytest.mark.parametrize("name", list(EXPECTED))
def test_suite_on_dask_contains(suite_dask, name):
    _check(suite_dask[0][name], name, suite_dask[1])


# --------------------------------------------------------------------- trust: who is isolated
def test_only_untrusted_solvers_are_isolated_by_default():
    from schedbench.solvers.registry import make_solver

    assert not isolate.isolates_by_default("dp", make_solver("dp"))
    assert not isolate.isolates_by_default("naive", make_solver("naive"))
    name = f"{PLUGINS}:Segfault"
    assert isolate.isolates_by_default(name, make_solver(name))


def test_a_class_registered_only_in_this_process_stays_here():
    from schedbench.solvers.registry import register_solver, unregister_solver
    from tests.plugins_for_suites import Segfault

    register_solver("segfault-here", Segfault)
    try:
        assert not isolate.isolates_by_default("segfault-here", Segfault())
    finally:
        unregister_solver("segfault-here")


def test_the_project_s_own_solvers_stay_in_process_by_default(tmp_path):
    done = api.simulate(WORKLOAD, system="theta", policy="window", solver="dp", out=tmp_path)
    assert "isolated_children_started" not in done.run.config
    assert done.run.metrics["jobs_measured"] == 60


def test_the_simulate_command_isolates_a_plug_in(short_deadlines, tmp_path, capsys):
    out = tmp_path / "run"
    args = ["simulate", "--workload", WORKLOAD, "--system", "theta", "--policy", "window"]
    args += ["--solver", f"{PLUGINS}:Segfault", "--budget", "0.5", "--on-invalid", "fallback"]
    code = main([*args, "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    first = json.loads((out / "decisions.jsonl").read_text().splitlines()[0])
    assert first["status"] == "error"
    assert "SIGSEGV" in " ".join([first.get("fault") or "", *first.get("notes", [])])


def test_the_table_command_isolates_a_plug_in(short_deadlines, capsys):
    code = main(["table", str(PROBLEM), "--solver", f"{PLUGINS}:Segfault", "--solver", "naive"])
    out = capsys.readouterr().out
    assert code == 1  # a row in error: the solver's fault
    rows = {line.split()[0]: line.split()[1] for line in out.splitlines() if line.strip()}
    assert rows["segfault"] == "error"  # the crash was one row's, not the command's
    assert rows["naive"] == "feasible"


# ------------------------------------------------------------------------ reference solves
#: A reference is named without parameters: the plug-ins that need a pid file are left out
#: (their containment is the same isolated child's, tested above).
REFERENCE_CASES = [n for n in EXPECTED if EXPECTED[n][0] not in ("Forker", "Detacher")]


@pytest.fixture(scope="module")
def suite_references(short_deadlines, tmp_path_factory):
    """A suite whose families each take a misbehaving plug-in as their exact reference."""
    from schedbench.bench.run import runner

    mp = pytest.MonkeyPatch()
    mp.setattr(runner, "MAX_DEADLINE_S", 0.5)  # the references' deadline, short here
    tmp = tmp_path_factory.mktemp("suite-refs")
    lines = ['[suite]\nname = "refs"\nbudget_s = 0.5\n']
    for name in REFERENCE_CASES:
        lines.append(
            f'[[instances]]\nfamily = "{name}"\nsource = "theta-window"\nw = 20\nseeds = 1\n'
            f'reference = "{PLUGINS}:{EXPECTED[name][0]}"\n'
        )
    lines.append('[[solvers]]\nname = "naive"\n')
    suite = tmp / "refs.toml"
    suite.write_text("\n".join(lines))
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            summary = api.run_suite(suite, store=tmp / "refs.sqlite", workers=1)
    finally:
        mp.undo()
    with ResultStore(tmp / "refs.sqlite", readonly=True) as st:
        rows = {r["family"]: r for r in st.rows("refs")}
    return summary, rows, printed.getvalue()


@pytest.mark.parametrize("name", REFERENCE_CASES)
def test_suite_reference_solves_are_contained(suite_references, name):
    summary, rows, printed = suite_references
    _cls, status, words = EXPECTED[name]
    assert rows[name]["status"] in ("optimal", "feasible")  # the cell itself ran
    assert "CHATTY" not in printed
    said = [w for w in summary.warnings if w.startswith(f"{name} ")]
    if status in ("timeout", "error"):
        assert len(said) == 1 and status in said[0] and words in said[0], summary.warnings
    else:
        assert not said  # a feasible answer is no reference, and no fault


# ---------------------------------------------------------------------------- check-solver
#: What ``check-solver`` newly contains, with the words of the failed check's reason: the
#: others fail a check in the solver's own process as before.
CHECK_SOLVER: dict[str, str] = {
    "exit-0": "exited with code 0",
    "segfault": "SIGSEGV",
    "keyboard-interrupt": "raised KeyboardInterrupt",
    "huge-allocation": "MemoryError",
    "hang": "past its deadline",
    "sleep": "past its deadline",
    "fork": "past its deadline",
    "detached-fork": "past its deadline",
}
#: Those that cost the conformance suite's own deadline (10 s) before they are stopped.
SLOW_CHECKS = {"hang", "sleep", "fork", "detached-fork"}


def _conformance(name: str, pid_dir: Path) -> list:
    from schedbench.bench.run.conformance import run_conformance_contained

    return run_conformance_contained(f"{PLUGINS}:{EXPECTED[name][0]}", _params(name, pid_dir))


@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=[pytest.mark.slow] if n in SLOW_CHECKS else []) for n in CHECK_SOLVER],
)
def test_check_solver_contains(short_deadlines, tmp_path, name):
    results = _conformance(name, tmp_path)
    first = results[0]
    assert first.check == "returns_decision"
    assert first.outcome == "failed" and CHECK_SOLVER[name] in first.detail, first
    assert all(r.outcome != "passed" for r in results)
    if name != "huge-allocation":  # a failed allocation is a failed check, not a dead process
        assert all("not run" in r.detail for r in results[1:]), results
    assert not _left_behind(name, tmp_path)


def test_check_solver_command_reports_a_crash_as_a_failed_check(short_deadlines, capsys):
    code = main(["check-solver", f"{PLUGINS}:Segfault"])
    out = capsys.readouterr().out
    assert code == 1
    assert "SIGSEGV" in out and "0 passed" in out


# --------------------------------------------------------------------------- memory limits
@pytest.mark.parametrize(
    "text, expected",
    [("8G", 8 << 30), ("512M", 512 << 20), ("off", None), (str(1 << 30), 1 << 30)],
)
def test_memory_limits_read_as_sizes(text, expected):
    from schedbench.bench.run.supervisor import memory_limit

    assert memory_limit(text) == expected


def test_the_default_memory_limit_is_half_the_machine(monkeypatch):
    from schedbench.bench.run.supervisor import machine_memory, memory_limit

    monkeypatch.delenv("SCHEDBENCH_MEMORY_LIMIT", raising=False)
    ram = machine_memory()
    assert memory_limit() == (None if ram is None else ram // 2)
    assert memory_limit("25%") == (None if ram is None else int(ram * 0.25))


@pytest.mark.parametrize("text", ["lots", "-1G", "150%", "1M"])
def test_a_bad_memory_limit_is_one_line_naming_it(text):
    from schedbench.bench.run.supervisor import MemoryLimitError, memory_limit

    with pytest.raises(MemoryLimitError, match="memory limit"):
        memory_limit(text)


def test_simulate_refuses_a_bad_memory_limit_before_reading_anything(capsys):
    code = main(["simulate", "--workload", "/nonexistent.swf", "--memory-limit", "lots"])
    assert code == 2
    assert "memory limit 'lots'" in capsys.readouterr().err
