"""Suite cells handed out longest-expected first from the store's latencies (performance target 6)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from schedbench.bench.run import runner as runner_module
from schedbench.bench.run.ordering import ExpectedLength, longest_first
from schedbench.bench.run.runner import plan, run_suite
from schedbench.bench.store.records import CellRecord
from schedbench.bench.suite import load_suite

SUITE = """
[suite]
name = "mix"
budget_s = 5
seed = 3

[[instances]]
family = "theta"
source = "theta-window"
w = [8, 12]
seeds = 1

[[solvers]]
name = "dp"

[[solvers]]
name = "naive"
"""

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def record(cell, seconds: float, suite: str = "old") -> CellRecord:
    return CellRecord(
        suite=suite,
        cell_id=cell.cell_id,
        kind="decision",
        solver=cell.solver.id,
        status="optimal",
        family=cell.family,
        instance_hash=cell.instance_hash,
        started_at=T0.isoformat(),
        finished_at=(T0 + timedelta(seconds=seconds)).isoformat(),
    )


def cells(tmp_path: Path):
    path = tmp_path / "mix.toml"
    path.write_text(SUITE)
    return plan(load_suite(path))[1]


def test_empty_store_keeps_the_plan_order(tmp_path):
    payloads = [{"cell": c} for c in cells(tmp_path)]
    assert longest_first(payloads, []) == payloads


def test_longest_stored_first_unknown_before_known(tmp_path):
    dcells = cells(tmp_path)
    assert len(dcells) == 4
    by = {(c.solver.id, c.instance): c for c in dcells}
    naive8, naive12 = (by[("naive", i)] for i in sorted(i for s, i in by if s == "naive"))
    dp8, dp12 = (by[("dp", i)] for i in sorted(i for s, i in by if s == "dp"))
    records = [record(dp8, 0.5), record(dp12, 3.0), record(naive8, 0.01)]
    order = [p["cell"] for p in longest_first([{"cell": c} for c in dcells], records)]
    # naive on w=12: same solver and family known (0.01 s) -> matched by family, so known;
    # every cell is known here: dp12 (3 s), dp8 (0.5 s), then the naive ones.
    assert order[:2] == [dp12, dp8]
    assert set(order[2:]) == {naive8, naive12}
    # A solver never stored is unknown and goes first.
    order = [p["cell"] for p in longest_first([{"cell": c} for c in dcells], records[:2])]
    assert set(order[:2]) == {naive8, naive12} and order[2:] == [dp12, dp8]


def test_match_falls_back_from_instance_to_family_to_solver(tmp_path):
    dcells = cells(tmp_path)
    dp = [c for c in dcells if c.solver.id == "dp"]
    exact = ExpectedLength([record(dp[0], 2.0), record(dp[1], 4.0)])
    assert exact.of(dp[0]) == 2.0 and exact.of(dp[1]) == 4.0
    other_family = record(dp[0], 7.0).replace(family="elsewhere", instance_hash="x")
    assert ExpectedLength([other_family]).of(dp[1]) == 7.0  # same solver only


def test_run_suite_hands_out_cells_longest_first(tmp_path, monkeypatch):
    path = tmp_path / "mix.toml"
    path.write_text(SUITE)
    suite = load_suite(path)
    store = tmp_path / "r.sqlite"
    run_suite(suite, store_path=store, show_progress=False)
    seen = []
    real = runner_module.longest_first

    def spy(payloads, records):
        out = real(payloads, records)
        seen.append((list(records), [p["cell"] for p in out]))
        return out

    monkeypatch.setattr(runner_module, "longest_first", spy)
    run_suite(suite, store_path=store, force=True, show_progress=False)
    records, order = seen[0]
    assert len(records) == 4
    expected = ExpectedLength(records)
    lengths = [expected.of(c) for c in order]
    assert lengths == sorted(lengths, reverse=True)
