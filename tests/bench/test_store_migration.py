"""Stores of schema version 1 (cells keyed by labels, not content) keep working: they
are read as they are, migrated when opened for writing, and --resume recognises their cells."""

from __future__ import annotations

import sqlite3

from schedbench.bench.run.runner import plan, run_suite
from schedbench.bench.store import SCHEMA_VERSION, ResultStore
from schedbench.bench.suite import load_suite

SUITE = """
[suite]
name = "old"
budget_s = 5
reference = "none"

[[instances]]
family = "theta"
source = "theta-window"
w = 6
seeds = 2

[[solvers]]
name = "naive"
"""


def _make_version_1(store, suite) -> None:
    """Turn a fresh store into what schedbench wrote at schema version 1."""
    _instances, dcells, _scells = plan(suite)
    con = sqlite3.connect(store)
    for cell in dcells:
        con.execute(
            "UPDATE cells SET cell_id = ? WHERE cell_id = ?", (cell.legacy_id, cell.cell_id)
        )
    con.execute("ALTER TABLE cells DROP COLUMN problem_kind")
    con.execute("PRAGMA user_version = 1")
    con.commit()
    con.close()


def test_a_version_1_store_is_read_migrated_and_resumed(tmp_path):
    path = tmp_path / "old.toml"
    path.write_text(SUITE)
    suite = load_suite(path)
    store = tmp_path / "old.sqlite"
    run_suite(suite, store_path=store, show_progress=False)
    _make_version_1(store, suite)

    with ResultStore(store, readonly=True) as st:  # read as it is, nothing written
        rows = st.rows("old")
    assert len(rows) == 2 and {r["problem_kind"] for r in rows} == {None}
    assert sqlite3.connect(store).execute("PRAGMA user_version").fetchone()[0] == 1

    again = run_suite(suite, store_path=store, show_progress=False, resume=True)
    assert again.cells_run == 0 and again.cells_skipped == 2
    con = sqlite3.connect(store)
    assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert {k for (k,) in con.execute("SELECT problem_kind FROM cells")} == {"selection"}

    forced = run_suite(suite, store_path=store, show_progress=False, force=True)
    assert forced.cells_run == 2
    with ResultStore(store, readonly=True) as st:
        ids = {r["cell_id"] for r in st.rows("old")}
    assert ids == {c.cell_id for c in plan(suite)[1]}  # the old rows were replaced, not doubled


def test_records_round_trip_and_carry_the_one_failure_rule(tmp_path):
    from schedbench.bench.store.records import row_failed

    path = tmp_path / "old.toml"
    path.write_text(SUITE.replace('name = "naive"', 'name = "tests.plugins_for_suites:Exiter"'))
    store = tmp_path / "r.sqlite"
    run_suite(load_suite(path), store_path=store, show_progress=False)
    with ResultStore(store, readonly=True) as st:
        rows, records = st.rows("old"), st.records("old")
    assert len(records) == len(rows) == 2
    for row, record in zip(rows, records, strict=True):
        assert record.to_row() == {k: v for k, v in row.items() if k != "id"} | {
            "params": row["params"] or {},
            "metrics": row["metrics"] or {},
        }
        assert record.failed == row_failed(row) is True  # the solver exits: no answer
