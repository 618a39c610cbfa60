"""Tests of bench/store.py: the SQLite results store (schema, rows, resume, crash safety, export)."""

from __future__ import annotations

import csv
import json
import math
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from schedbench.bench.store import (
    APPLICATION_ID,
    CELL_KEYS,
    SCHEMA_VERSION,
    DuplicateCellError,
    ResultStore,
    StoreError,
    provenance,
)
from schedbench.simcore.errors import SchedbenchError

ROOT = Path(__file__).resolve().parents[2]
PROV = {"test": True}  # provenance() runs git; most tests do not need it


def make_row(run_id: int, i: int, suite: str = "s", **extra: Any) -> dict[str, Any]:
    row = {
        "run_id": run_id,
        "suite": suite,
        "cell_id": f"c{i}",
        "kind": "decision",
        "solver": "cpsat[time_limit_s=5]",
        "status": "optimal",
        "metrics": {"gap": 0.0, "i": i},
    }
    row.update(extra)
    return row


@pytest.fixture
def store(tmp_path: Path):
    with ResultStore(tmp_path / "store.sqlite") as s:
        yield s


def pragma(path: Path, name: str) -> Any:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(f"PRAGMA {name}").fetchone()[0]
    finally:
        conn.close()


# -- opening ----------------------------------------------------------------------------------


def test_create_then_reopen(tmp_path: Path) -> None:
    path = tmp_path / "new" / "dir" / "store.sqlite"
    with ResultStore(path) as s:
        assert s.journal_mode == "wal"
        assert s._conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL (default)
        assert s._conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        run = s.begin_run("s", {"a": 1}, provenance=PROV)
        s.add(make_row(run, 0))
        s.finish_run(run)
    assert pragma(path, "application_id") == APPLICATION_ID
    assert pragma(path, "user_version") == SCHEMA_VERSION
    assert pragma(path, "journal_mode") == "wal"
    with ResultStore(path) as s:
        assert s.finished("s") == {"c0"}
        assert [r["status"] for r in s.runs()] == ["finished"]


def test_empty_file_becomes_a_store(tmp_path: Path) -> None:
    path = tmp_path / "empty.sqlite"
    path.touch()
    with ResultStore(path) as s:
        assert s.suites() == []
    assert pragma(path, "application_id") == APPLICATION_ID


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    ResultStore(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(StoreError, match="newer") as info:
        ResultStore(path)
    assert str(path) in str(info.value)
    assert isinstance(info.value, SchedbenchError)
    assert isinstance(info.value, ValueError)


def test_text_file_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("these are not results\n" * 50)
    before = path.read_bytes()
    with pytest.raises(StoreError, match="not a schedbench results store") as info:
        ResultStore(path)
    assert str(path) in str(info.value)
    assert path.read_bytes() == before


def test_other_sqlite_database_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE jobs (id INTEGER)")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match=r"not a schedbench results store.*'jobs'") as info:
        ResultStore(path)
    assert str(path) in str(info.value)
    assert pragma(path, "journal_mode") == "delete"  # not switched to WAL
    assert pragma(path, "application_id") == 0


def test_damaged_store_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    ResultStore(path).close()
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE cells")
    conn.close()
    with pytest.raises(StoreError, match="damaged"):
        ResultStore(path)


def test_a_store_that_cannot_be_opened_for_writing_is_not_called_foreign(tmp_path, monkeypatch):
    """A read-only file or folder is a permission problem, not "not a results store"; a
    report still reads such a store (as an immutable file)."""
    path = tmp_path / "store.sqlite"
    with ResultStore(path) as s:
        run = s.begin_run("s", {}, provenance=PROV)
        s.add(make_row(run, 0))
    real = ResultStore._identify
    calls = {"n": 0}

    def refuse_once(self: ResultStore) -> str:
        calls["n"] += 1
        if calls["n"] == 1:
            raise sqlite3.OperationalError("attempt to write a readonly database")
        return real(self)

    monkeypatch.setattr(ResultStore, "_identify", refuse_once)
    with ResultStore(path, readonly=True) as r:  # retried as an immutable file
        assert r.finished("s") == {"c0"}
    calls["n"] = 0
    with pytest.raises(StoreError, match="read-only or not accessible") as info:
        ResultStore(path)
    assert "not a schedbench results store" not in str(info.value)


def test_readonly(tmp_path: Path) -> None:
    missing = tmp_path / "missing.sqlite"
    with pytest.raises(StoreError, match="no results store"):
        ResultStore(missing, readonly=True)
    assert not missing.exists()
    path = tmp_path / "store.sqlite"
    with ResultStore(path) as s:
        run = s.begin_run("s", {}, provenance=PROV)
        s.add(make_row(run, 0))
    with ResultStore(path, readonly=True) as r:
        assert r.finished("s") == {"c0"}
        with pytest.raises(StoreError, match="read-only"):
            r.begin_run("s", {}, provenance=PROV)


# -- rows ---------------------------------------------------------------------------------------


def test_add_and_rows_round_trip(store: ResultStore) -> None:
    run = store.begin_run("suite-a", {"solvers": ["dp"]}, provenance=PROV)
    row = {
        "run_id": run,
        "suite": "suite-a",
        "cell_id": "3f2a",
        "kind": "decision",
        "family": "bbsched",
        "instance": "s4-w20",
        "instance_hash": "ab12",
        "solver": "cpsat[time_limit_s=5]",
        "solver_name": "cpsat",
        "params": {"time_limit_s": 5, "weights": np.array([0.5, 0.5])},
        "repetition": np.int64(2),
        "seed": 12345,
        "budget_s": 5,
        "status": "feasible",
        "latency_s": np.float64(0.25),
        "concurrency": 2,
        "isolated": False,
        "executor": "local",
        "started_at": "2025-01-02T03:04:05+00:00",
        "finished_at": "2025-01-02T03:04:06+00:00",
        "metrics": {"gap": float("nan"), "igd_plus": 0.125, "n_pareto": np.int64(3), "ok": True},
        "decision": {"objectives": [1.0, float("inf")], "trace": [[0.1, 3], [0.2, 4]]},
        "error": None,
    }
    store.add(row)
    (got,) = store.rows("suite-a")
    assert set(got) == {"id", *CELL_KEYS}
    assert got["params"] == {"time_limit_s": 5, "weights": [0.5, 0.5]}
    assert got["metrics"] == {"gap": None, "igd_plus": 0.125, "n_pareto": 3, "ok": 1}
    assert got["decision"] == {"objectives": [1.0, None], "trace": [[0.1, 3], [0.2, 4]]}
    assert got["repetition"] == 2 and got["seed"] == 12345
    assert got["budget_s"] == 5.0 and got["latency_s"] == 0.25
    assert got["isolated"] is False and got["concurrency"] == 2
    assert got["error"] is None and got["status"] == "feasible"
    for key in ("family", "instance", "instance_hash", "solver", "executor", "started_at"):
        assert got[key] == row[key]
    raw = store._conn.execute("SELECT metrics_json, decision_json FROM cells").fetchone()
    assert "NaN" not in raw[0] and "Infinity" not in raw[1]


def test_optional_keys_default(store: ResultStore) -> None:
    run = store.begin_run("s", {}, provenance=PROV)
    store.add({k: v for k, v in make_row(run, 0).items() if k != "metrics"})
    store.add(make_row(run, 1, kind="simulation", latency_s=float("inf"), isolated=1))
    first, second = store.rows()
    assert first["params"] == {} and first["metrics"] == {} and first["decision"] is None
    assert first["latency_s"] is None and first["isolated"] is None
    assert second["latency_s"] is None and second["isolated"] is True


def test_rows_filters(store: ResultStore) -> None:
    r1 = store.begin_run("a", {}, provenance=PROV)
    r2 = store.begin_run("b", {}, provenance=PROV)
    store.add(make_row(r1, 0, suite="a"))
    store.add(make_row(r1, 1, suite="a", kind="simulation"))
    store.add(make_row(r2, 0, suite="b"))
    assert [r["cell_id"] for r in store.rows()] == ["c0", "c1", "c0"]
    assert [r["cell_id"] for r in store.rows("a", kind="simulation")] == ["c1"]
    assert [r["suite"] for r in store.rows(run_id=r2)] == ["b"]
    assert store.suites() == ["a", "b"]
    with pytest.raises(StoreError, match="kind"):
        store.rows(kind="other")


def test_unique_cell_resume_and_replace(store: ResultStore) -> None:
    first = store.begin_run("s", {}, provenance=PROV)
    store.add(make_row(first, 0))
    store.add(make_row(first, 1))
    assert store.finished("s") == {"c0", "c1"}
    assert store.finished("other") == set()

    second = store.begin_run("s", {}, provenance=PROV)
    with pytest.raises(DuplicateCellError, match=r"'c0'.*replace=True") as info:
        store.add(make_row(second, 0, status="timeout"))
    assert info.value.cell_id == "c0" and info.value.suite == "s"
    assert [r["status"] for r in store.rows()] == ["optimal", "optimal"]

    store.add(make_row(second, 0, status="timeout"), replace=True)
    rows = {r["cell_id"]: r for r in store.rows("s")}
    assert len(rows) == 2
    assert rows["c0"]["status"] == "timeout" and rows["c0"]["run_id"] == second
    assert {r["run_id"]: r["n_cells"] for r in store.runs("s")} == {first: 1, second: 1}

    # The same cell_id in another suite is another cell.
    other = store.begin_run("t", {}, provenance=PROV)
    store.add(make_row(other, 0, suite="t"))
    assert store.finished("t") == {"c0"}


def test_missing_keys_are_named(store: ResultStore) -> None:
    run = store.begin_run("s", {}, provenance=PROV)
    row = make_row(run, 0)
    del row["kind"], row["status"]
    with pytest.raises(StoreError, match=r"missing required key.*'kind', 'status'"):
        store.add(row)
    assert store.rows() == []


def test_unknown_keys_are_named(store: ResultStore) -> None:
    run = store.begin_run("s", {}, provenance=PROV)
    with pytest.raises(StoreError, match=r"unknown key\(s\) 'solvr', 'metrics_json'.*'metrics'"):
        store.add(make_row(run, 0, solvr="x", metrics_json="{}"))
    with pytest.raises(StoreError, match="'id' is assigned by the store"):
        store.add(make_row(run, 0, id=3))
    assert store.rows() == []


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("kind", "solve", "kind: expected one of decision, simulation"),
        ("cell_id", 17, "cell_id: expected a string"),
        ("cell_id", "", "cell_id: expected a non-empty string"),
        ("run_id", "1", "run_id: expected an integer"),
        ("seed", 2**70, "seed: expected an integer that fits in 64 bits"),
        ("seed", 1.5, "seed: expected an integer"),
        ("repetition", -1, "repetition: expected an integer >= 0"),
        ("concurrency", 0, "concurrency: expected an integer >= 1"),
        ("latency_s", "fast", "latency_s: expected a number of seconds"),
        ("budget_s", -1, "budget_s: expected a number of seconds >= 0"),
        ("isolated", 2, "isolated: expected a bool"),
        ("started_at", "yesterday", "started_at: expected an ISO 8601 time"),
        ("metrics", {"gap": [1, 2]}, r"metrics\['gap'\]: expected a number or None"),
        ("metrics", [1], "metrics: expected a dict"),
        ("params", {"f": object()}, r"params\.f: expected a JSON value"),
        ("decision", {"pareto": {1: 2}}, "decision.pareto: expected string keys"),
        ("decision", "optimal", "decision: expected a dict or None"),
        ("error", 3, "error: expected a string"),
    ],
)
def test_wrong_types_are_named(store: ResultStore, key: str, value: Any, message: str) -> None:
    run = store.begin_run("s", {}, provenance=PROV)
    row = make_row(run, 0)
    row[key] = value
    with pytest.raises(StoreError, match=message) as info:
        store.add(row)
    assert str(info.value).startswith("row s/")  # names the cell too
    assert store.rows() == []


def test_run_must_exist_and_match_suite(store: ResultStore) -> None:
    run = store.begin_run("s", {}, provenance=PROV)
    with pytest.raises(StoreError, match="no run 99"):
        store.add(make_row(99, 0))
    with pytest.raises(StoreError, match="run 1 is a run of suite 's'"):
        store.add(make_row(run, 0, suite="t"))
    # A failed add leaves no open transaction behind: the store goes on working.
    store.add(make_row(run, 0))
    assert store.finished("s") == {"c0"}


# -- runs ---------------------------------------------------------------------------------------


def test_runs_life_cycle(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    with ResultStore(path) as s:
        done = s.begin_run("s", {"reps": 3, "bad": float("nan")}, provenance=PROV)
        s.finish_run(done)
        stopped = s.begin_run("s", {}, provenance=PROV)
        s.finish_run(stopped, "interrupted")
        forgotten = s.begin_run("s", {}, provenance=PROV)
        with pytest.raises(StoreError, match="status"):
            s.finish_run(forgotten, "running")
        with pytest.raises(StoreError, match="no run 42"):
            s.finish_run(42)
    # Closing marks the run it began and never finished as interrupted.
    with ResultStore(path) as s:
        runs = s.runs("s")
    assert [r["status"] for r in runs] == ["finished", "interrupted", "interrupted"]
    assert runs[0]["config"] == {"reps": 3, "bad": None}
    assert runs[0]["provenance"] == PROV
    assert all(r["finished_at"] for r in runs)
    assert runs[0]["started_at"] <= runs[0]["finished_at"]


def test_mark_stale_runs_leaves_live_runs(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    with ResultStore(path) as a, ResultStore(path) as b:
        live = a.begin_run("s", {}, provenance=PROV)
        assert b.mark_stale_runs() == []  # a's process (this one) is alive
        assert [r["status"] for r in b.runs()] == ["running"]
        a.finish_run(live)


# -- crash safety -------------------------------------------------------------------------------

CHILD = textwrap.dedent(
    """
    import os, signal, sys
    from schedbench.bench.store import ResultStore

    path, kill_after = sys.argv[1], int(sys.argv[2])
    store = ResultStore(path)
    run = store.begin_run("crash", {"kill_after": kill_after}, provenance={"child": True})
    for i in range(100_000):
        if i == kill_after:
            os.kill(os.getpid(), signal.SIGKILL)
        store.add({
            "run_id": run, "suite": "crash", "cell_id": f"c{i}", "kind": "decision",
            "solver": "dp", "status": "optimal", "latency_s": i / 1000,
            "metrics": {"i": i, "half": i / 2},
            "decision": {"trace": [[j, i] for j in range(200)]},
        })
        print(i + 1, flush=True)
    """
)


def check_crashed_store(path: Path, count: int) -> None:
    """Exactly ``count`` complete rows c0..c{count-1}; integrity ok; the run gets 'interrupted'."""
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    with ResultStore(path) as s:
        rows = s.rows("crash")
        assert [r["cell_id"] for r in rows] == [f"c{i}" for i in range(count)]
        for i, r in enumerate(rows):
            assert r["metrics"] == {"i": i, "half": i / 2}
            assert r["latency_s"] == i / 1000
            assert r["decision"] == {"trace": [[j, i] for j in range(200)]}
        (run,) = s.runs("crash")
        assert run["status"] == "running"
        assert s.mark_stale_runs() == [run["run_id"]]
        (run,) = s.runs("crash")
        assert run["status"] == "interrupted" and run["finished_at"] is not None


def test_sigkill_after_k_rows_keeps_exactly_k(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), "7"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr
    assert done.stdout.split() == [str(i) for i in range(1, 8)]
    assert Path(f"{path}-wal").exists()  # killed: the WAL was never checkpointed away
    check_crashed_store(path, 7)


def test_sigkill_at_a_random_moment_keeps_every_committed_row(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path), "-1"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        seen = 0
        while seen < 40:
            line = child.stdout.readline()
            assert line, child.stderr.read() if child.stderr else ""
            seen = int(line)
        time.sleep(0.003)  # land somewhere inside a later add
    finally:
        child.kill()  # SIGKILL
        # read through the text wrapper: readline() may already hold later lines in its buffer,
        # which communicate() (reading the raw pipes) would never see
        out = child.stdout.read() if child.stdout else ""
        child.communicate(timeout=30)
    assert child.returncode == -signal.SIGKILL
    reported = max([seen, *map(int, out.split())])
    # Every add that returned (and printed) is stored; at most one more committed unprinted.
    with ResultStore(path, readonly=True) as s:
        count = len(s.finished("crash"))
    assert reported <= count <= reported + 1
    check_crashed_store(path, count)


# -- concurrency --------------------------------------------------------------------------------


def test_readers_while_writing(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    with ResultStore(path) as writer, ResultStore(path, readonly=True) as reader:
        run = writer.begin_run("s", {}, provenance=PROV)
        for i in range(5):
            writer.add(make_row(run, i))
            assert reader.finished("s") == {f"c{j}" for j in range(i + 1)}

        # A reader in the middle of a long read does not block the writer (WAL) and keeps its
        # snapshot; its next read sees the new rows.
        held = sqlite3.connect(path, isolation_level=None)
        held.execute("BEGIN")
        assert held.execute("SELECT COUNT(*) FROM cells").fetchone()[0] == 5
        start = time.monotonic()
        writer.add(make_row(run, 5))
        assert time.monotonic() - start < 5
        assert held.execute("SELECT COUNT(*) FROM cells").fetchone()[0] == 5
        held.execute("COMMIT")
        assert held.execute("SELECT COUNT(*) FROM cells").fetchone()[0] == 6
        held.close()
        assert len(reader.rows("s")) == 6


def test_two_writers_take_turns(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    with ResultStore(path) as a, ResultStore(path) as b:
        ra = a.begin_run("a", {}, provenance=PROV)
        rb = b.begin_run("b", {}, provenance=PROV)
        for i in range(3):
            a.add(make_row(ra, i, suite="a"))
            b.add(make_row(rb, i, suite="b"))
        assert len(a.rows()) == len(b.rows()) == 6


# -- export -------------------------------------------------------------------------------------


def fill_for_export(store: ResultStore) -> None:
    run = store.begin_run("s", {}, provenance=PROV)
    store.add(
        make_row(
            run,
            0,
            params={"w": 20},
            latency_s=0.1,
            isolated=True,
            metrics={"gap": 0.5, "igd": float("nan")},
            decision={"selected": [1, 2]},
        )
    )
    store.add(make_row(run, 1, metrics={"gap": 1 / 3, "wait": 7}, error='boom, "quoted"\nx'))
    other = store.begin_run("t", {}, provenance=PROV)
    store.add(make_row(other, 0, suite="t", metrics={"zzz": 1}))


def test_export_csv(store: ResultStore, tmp_path: Path) -> None:
    fill_for_export(store)
    out = tmp_path / "out" / "s.csv"
    assert store.export_csv(out, suite="s") == 2
    with out.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        header = reader.fieldnames
        records = list(reader)
    assert header is not None
    assert header[:3] == ["id", "run_id", "suite"]
    assert "decision" not in header and "decision_json" not in header and "metrics" not in header
    assert header[-3:] == ["metric.gap", "metric.igd", "metric.wait"]
    assert set(header) == {"id", *CELL_KEYS} - {"metrics", "decision"} | {
        "metric.gap",
        "metric.igd",
        "metric.wait",
    }
    first, second = records
    assert first["cell_id"] == "c0" and first["solver"] == "cpsat[time_limit_s=5]"
    assert json.loads(first["params"]) == {"w": 20}
    assert first["latency_s"] == "0.1" and first["isolated"] == "1"
    assert first["metric.gap"] == "0.5" and first["metric.igd"] == "" and first["metric.wait"] == ""
    assert float(second["metric.gap"]) == 1 / 3  # exact round trip
    assert second["metric.wait"] == "7" and second["seed"] == "" and second["isolated"] == ""
    assert second["error"] == 'boom, "quoted"\nx'
    assert store.export_csv(tmp_path / "all.csv") == 3
    assert [p.name for p in out.parent.iterdir()] == ["s.csv"]  # no temporary file left


def test_export_parquet(store: ResultStore, tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    fill_for_export(store)
    out = tmp_path / "s.parquet"
    assert store.export_parquet(out, suite="s") == 2
    table = pq.read_table(out)
    data = table.to_pylist()
    assert [r["cell_id"] for r in data] == ["c0", "c1"]
    assert data[0]["metric.gap"] == 0.5 and math.isclose(data[1]["metric.gap"], 1 / 3)
    assert data[0]["metric.igd"] is None and data[1]["metric.wait"] == 7
    assert data[0]["isolated"] is True and data[1]["isolated"] is None
    assert json.loads(data[0]["decision"]) == {"selected": [1, 2]}
    assert str(table.schema.field("latency_s").type) == "double"
    assert str(table.schema.field("run_id").type) == "int64"


def test_export_parquet_without_pyarrow(
    store: ResultStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # makes `import pyarrow` fail
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(StoreError, match="pip install pyarrow"):
        store.export_parquet(tmp_path / "x.parquet")
    assert not (tmp_path / "x.parquet").exists()


# -- provenance ---------------------------------------------------------------------------------


def test_provenance_keys_and_json(tmp_path: Path) -> None:
    prov = provenance()
    for key in ("git", "packages", "python", "platform", "cpu_model", "cpu_count", "threads"):
        assert key in prov
    assert prov["hostname"]
    assert set(prov["packages"]) == {"schedbench", "numpy", "ortools", "pulp", "highspy", "numba"}
    assert prov["packages"]["numpy"] == np.__version__
    assert set(prov["threads"]) == {
        "OMP_NUM_THREADS",
        "NUMBA_NUM_THREADS",
        "OPENBLAS_NUM_THREADS",
        "MKL_NUM_THREADS",
    }
    assert prov["python"] == ".".join(map(str, sys.version_info[:3]))
    if prov["git"] is not None:
        assert len(prov["git"]["commit"]) == 40 and prov["git"]["dirty"] in (True, False, None)
    json.dumps(prov, allow_nan=False)
    # Outside a git checkout it says None and does not fail.
    assert provenance(tmp_path)["git"] is None


def test_begin_run_collects_provenance_by_default(store: ResultStore) -> None:
    run = store.begin_run("s", {})
    (record,) = store.runs()
    assert record["run_id"] == run
    assert record["provenance"]["packages"]["schedbench"] is not None


def test_durable_store_syncs_every_commit(tmp_path):
    with ResultStore(tmp_path / "d.sqlite", durable=True) as s:
        assert s._conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
