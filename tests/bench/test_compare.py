"""Tests of bench/compare.py: the regression gate between two results stores."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from schedbench.bench.cli import main as cli_main
from schedbench.bench.report.compare import (
    CompareError,
    Threshold,
    compare,
    directions,
    format_comparison,
    main,
    parse_threshold,
    parse_thresholds,
)
from schedbench.bench.store import ResultStore
from schedbench.simcore.indicators import latency_stats

PROV = {"test": True}  # provenance() runs git; not needed here
BUDGET = 1.0


def decision_cell(
    instance: str,
    *,
    solver: str = "moo",
    family: str = "theta-w20",
    repetition: int = 0,
    latency: float | None = 0.1,
    status: str = "feasible",
    concurrency: int | None = 1,
    metrics: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    row = {
        "suite": "s",
        "kind": "decision",
        "family": family,
        "instance": instance,
        "solver": solver,
        "repetition": repetition,
        "budget_s": BUDGET,
        "status": status,
        "latency_s": latency,
        "concurrency": concurrency,
        "metrics": (
            {"igd_plus": 0.2, "hv_ratio": 0.9, "front_found": 1.0} if metrics is None else metrics
        ),
    }
    row.update(extra)
    return row


def sim_cell(
    scenario: str, repetition: int, node_usage: float, policy: str = "window-dp"
) -> dict[str, Any]:
    return {
        "suite": "s",
        "kind": "simulation",
        "family": "lublin",
        "instance": scenario,
        "solver": policy,
        "repetition": repetition,
        "budget_s": 15.0,
        "status": "ok",
        "latency_s": 3.0,
        "metrics": {"node_usage": node_usage, "wait_mean_s": 100.0, "jobs_total": 500},
    }


def make_store(path: Path, rows: list[dict[str, Any]]) -> Path:
    with ResultStore(path) as store:
        run_ids: dict[str, int] = {}
        for i, row in enumerate(rows):
            suite = row["suite"]
            if suite not in run_ids:
                run_ids[suite] = store.begin_run(suite, {}, provenance=PROV)
            store.add({"run_id": run_ids[suite], "cell_id": f"c{i}", **row})
        for run_id in run_ids.values():
            store.finish_run(run_id)
    return path


def base_rows(n: int = 4, **kwargs: Any) -> list[dict[str, Any]]:
    return [decision_cell(f"w{i}", **kwargs) for i in range(n)]


@pytest.fixture
def stores(tmp_path: Path):
    """make(base_rows, head_rows) -> (base_path, head_path)."""

    def make(base: list[dict[str, Any]], head: list[dict[str, Any]]) -> tuple[Path, Path]:
        return make_store(tmp_path / "base.sqlite", base), make_store(
            tmp_path / "head.sqlite", head
        )

    return make


def entry(comparison: Any, metric: str, solver: str = "moo") -> Any:
    found = [e for e in comparison.entries if e.metric == metric and e.group.solver == solver]
    assert len(found) == 1, found
    return found[0]


# -- thresholds -------------------------------------------------------------------------------


def test_parse_threshold_forms() -> None:
    rel = parse_threshold("igd_plus:5%")
    assert rel.relative and rel.amount == pytest.approx(0.05)
    assert rel.allowed(0.2) == pytest.approx(0.01) and rel.allowed(-0.2) == pytest.approx(0.01)
    absolute = parse_threshold("latency_p95_s:0.01")
    assert not absolute.relative and absolute.allowed(123.0) == 0.01
    zero = parse_threshold("front_found:0")
    assert zero.allowed(1.0) == 0.0
    assert str(rel) == "igd_plus:5%"


@pytest.mark.parametrize(
    "arg", ["igd_plus", "igd_plus:", ":5%", "igd_plus:abc", "igd_plus:-1", "igd_plus:nan%"]
)
def test_bad_threshold_syntax_names_the_argument(arg: str) -> None:
    with pytest.raises(CompareError, match="expected METRIC:THRESHOLD") as info:
        parse_threshold(arg)
    assert repr(arg) in str(info.value)


def test_unknown_metric_lists_known_ones() -> None:
    with pytest.raises(CompareError, match="unknown metric 'igd_pluss'") as info:
        parse_threshold("igd_pluss:5%")
    message = str(info.value)
    assert "did you mean igd_plus" in message
    assert all(name in message for name in directions())
    with pytest.raises(CompareError, match="unknown metric"):
        Threshold("nope", 0.1, relative=False)


def test_metric_given_twice_is_refused() -> None:
    with pytest.raises(CompareError, match="already has a threshold"):
        parse_thresholds(["igd_plus:5%", "igd_plus:0.1"])


# -- the gate, through main -------------------------------------------------------------------


def test_identical_stores_pass(stores, capsys) -> None:
    base, head = stores(base_rows(), base_rows())
    gates = ["igd_plus:0", "hv_ratio:0", "front_found:0", "latency_median_s:0", "failures:0"]
    assert main(base, head, gates) == 0
    out = capsys.readouterr().out
    assert "OK: no regression in 5 gated comparison(s)" in out
    assert "REGRESSED" not in out


def test_relative_threshold_on_igd_plus(stores, capsys) -> None:
    worse = base_rows(metrics={"igd_plus": 0.22, "hv_ratio": 0.9, "front_found": 1.0})
    base, head = stores(base_rows(), worse)  # IGD+ 10 % worse
    assert main(base, head, ["igd_plus:5%"]) == 1
    out = capsys.readouterr().out
    assert "REGRESSED" in out and "FAIL: 1 regression(s)" in out
    regression_lines = [line for line in out.splitlines() if "worse by" in line]
    assert len(regression_lines) == 1 and "igd_plus" in regression_lines[0]
    assert "0.2 -> 0.22" in regression_lines[0]

    assert main(base, head, ["igd_plus:20%"]) == 0
    assert main(base, head, ["igd_plus:10%"]) == 0  # exactly at the threshold passes
    capsys.readouterr()


def test_absolute_threshold(stores) -> None:
    worse = base_rows(metrics={"igd_plus": 0.23, "hv_ratio": 0.9, "front_found": 1.0})
    base, head = stores(base_rows(), worse)  # +0.03
    assert main(base, head, ["igd_plus:0.01"]) == 1
    assert main(base, head, ["igd_plus:0.05"]) == 0
    assert main(base, head, ["igd_plus:0"]) == 1


def test_improvement_never_fails(stores) -> None:
    better = base_rows(latency=0.05, metrics={"igd_plus": 0.1, "hv_ratio": 0.95, "front_found": 1})
    base, head = stores(base_rows(), better)
    gates = ["igd_plus:0", "hv_ratio:0", "latency_median_s:0", "latency_sgm_s:0"]
    assert main(base, head, gates) == 0
    result = compare(_rows(base), _rows(head), parse_thresholds(gates))
    assert entry(result, "igd_plus").verdict == "improved"
    assert entry(result, "hv_ratio").verdict == "improved"
    assert entry(result, "latency_median_s").verdict == "improved"
    assert entry(result, "front_found").verdict == "ok"  # unchanged, not gated


def test_higher_is_better_direction(stores) -> None:
    dropped = base_rows(metrics={"igd_plus": 0.2, "hv_ratio": 0.9, "front_found": 0.75})
    base, head = stores(base_rows(), dropped)
    assert main(base, head, ["front_found:0"]) == 1
    assert main(base, head, ["front_found:30%"]) == 0
    result = compare(_rows(base), _rows(head), parse_thresholds(["front_found:0"]))
    e = entry(result, "front_found")
    assert e.direction == "higher" and e.verdict == "regressed"
    assert e.delta == pytest.approx(-0.25) and e.relative_delta == pytest.approx(-0.25)
    assert e.worsening == pytest.approx(0.25)
    # The reverse change is an improvement for a higher-is-better metric.
    reverse = compare(_rows(head), _rows(base), parse_thresholds(["front_found:0"]))
    assert entry(reverse, "front_found").verdict == "improved"


def test_latency_median_regression(stores, capsys) -> None:
    slower = base_rows(latency=0.2)
    base, head = stores(base_rows(), slower)
    assert main(base, head, ["latency_median_s:10%"]) == 1
    out = capsys.readouterr().out
    assert "latency_median_s" in next(line for line in out.splitlines() if "worse by" in line)
    assert main(base, head, ["latency_median_s:150%"]) == 0
    assert main(base, head, ["igd_plus:0"]) == 0  # latency worse but not gated


def test_ungated_metrics_are_reported_too(stores, capsys) -> None:
    slower = base_rows(latency=0.2)
    base, head = stores(base_rows(), slower)
    assert main(base, head, ["igd_plus:0"]) == 0
    out = capsys.readouterr().out
    for metric in ("hv_ratio", "front_found", "latency_p95_s", "latency_sgm_s", "failures"):
        assert metric in out
    assert "ok (worse)" in out  # an ungated worsening is shown as such


def test_missing_metric_is_reported_not_failed(stores, capsys) -> None:
    no_igd = base_rows(metrics={"hv_ratio": 0.9, "front_found": 1.0})
    base, head = stores(base_rows(), no_igd)
    # Documented choice: a value absent on one side is never guessed, so it cannot regress.
    assert main(base, head, ["igd_plus:0"]) == 0
    out = capsys.readouterr().out
    assert "missing" in out and "without a value on both sides" in out
    result = compare(_rows(base), _rows(head), parse_thresholds(["igd_plus:0"]))
    e = entry(result, "igd_plus")
    assert e.verdict == "missing" and e.base is None and e.head is None
    assert "BASE 4, HEAD 0 of 4" in e.note
    assert result.missing == [e] and result.regressions == []


def test_partly_missing_metric_uses_cells_with_both_values(stores) -> None:
    head_rows = base_rows()
    head_rows[0]["metrics"] = {"igd_plus": None, "hv_ratio": 0.9, "front_found": 1.0}
    head_rows[1]["metrics"] = {"igd_plus": 0.4, "hv_ratio": 0.9, "front_found": 1.0}
    base, head = stores(base_rows(), head_rows)
    result = compare(_rows(base), _rows(head), [])
    e = entry(result, "igd_plus")
    assert e.cells == 3 and "1 of 4 cells lack it" in e.note
    assert e.base == pytest.approx(0.2) and e.head == pytest.approx((0.4 + 0.2 + 0.2) / 3)


def test_failure_in_head_is_charged_the_budget(stores) -> None:
    head_rows = base_rows()
    head_rows[0].update(status="error", latency_s=None, error="boom")
    head_rows[1].update(status="timeout", latency_s=0.05, decision={"status": "timeout"})
    base, head = stores(base_rows(), head_rows)
    result = compare(_rows(base), _rows(head), parse_thresholds(["latency_sgm_s:0"]))
    sgm = entry(result, "latency_sgm_s")
    assert sgm.verdict == "regressed"
    expected = latency_stats([math.nan, 0.05, 0.1, 0.1], BUDGET, failed=[True, True, False, False])
    assert sgm.head == pytest.approx(expected["sgm_s"])
    assert sgm.head > sgm.base == pytest.approx(0.1)  # quick failures never look faster
    assert entry(result, "failures").base == 0 and entry(result, "failures").head == 2
    assert entry(result, "share_within_budget").head == pytest.approx(0.5)
    assert main(base, head, ["latency_sgm_s:0"]) == 1
    assert main(base, head, ["failures:0"]) == 1
    assert main(base, head, ["failures:2"]) == 0


def test_timeout_with_an_answer_is_not_a_failure(stores) -> None:
    head_rows = base_rows()
    head_rows[0].update(status="timeout", decision={"status": "timeout", "objectives": [1.0]})
    base, head = stores(base_rows(), head_rows)
    result = compare(_rows(base), _rows(head), [])
    assert entry(result, "failures").head == 0


def test_concurrent_cells_excluded_from_latency_when_alone_cells_exist(stores) -> None:
    rows = [*base_rows(2), decision_cell("c0", concurrency=2), decision_cell("c1", concurrency=2)]
    head_rows = [
        *base_rows(2),
        decision_cell("c0", concurrency=2, latency=5.0),
        decision_cell("c1", concurrency=2, latency=5.0),
    ]
    base, head = stores(rows, head_rows)
    gates = parse_thresholds(["latency_max_s:0"])
    result = compare(_rows(base), _rows(head), gates)
    e = entry(result, "latency_max_s")
    assert e.verdict == "ok" and e.head == pytest.approx(0.1)
    assert "concurrency 1" in e.note
    assert main(base, head, ["latency_max_s:0"]) == 0


def test_all_cells_used_for_latency_when_one_side_never_ran_alone(stores, capsys) -> None:
    head_rows = base_rows(concurrency=2, latency=0.3)
    base, head = stores(base_rows(), head_rows)
    result = compare(_rows(base), _rows(head), [])
    e = entry(result, "latency_median_s")
    assert e.head == pytest.approx(0.3) and "concurrent ones included" in e.note
    assert main(base, head, ["latency_median_s:10%"]) == 1
    assert "concurrent ones included" in capsys.readouterr().out


def test_simulation_metric_gate(stores) -> None:
    base_sim = [sim_cell(sc, rep, 0.9) for sc in ("S1", "S4") for rep in range(2)]
    head_sim = [sim_cell("S1", rep, 0.9) for rep in range(2)]
    head_sim += [sim_cell("S4", 0, 0.85), sim_cell("S4", 1, 0.75)]  # mean 0.8 on S4 only
    base, head = stores(base_sim, head_sim)
    assert main(base, head, ["node_usage:5%"]) == 1
    assert main(base, head, ["node_usage:0.1"]) == 0
    result = compare(_rows(base), _rows(head), parse_thresholds(["node_usage:5%"]))
    by_scenario = {e.group.scenario: e for e in result.entries if e.metric == "node_usage"}
    assert by_scenario["S1"].verdict == "ok"
    assert by_scenario["S4"].verdict == "regressed" and by_scenario["S4"].cells == 2
    assert by_scenario["S4"].head == pytest.approx(0.8)
    # Decision latency statistics are not computed for simulation cells; unknown stored
    # metrics (jobs_total) have no direction and are not compared.
    metrics = {e.metric for e in result.entries}
    assert metrics == {"node_usage", "wait_mean_s", "failures"}


# -- the noise floor of wall-time metrics ------------------------------------------------------

LATENCY_GATES = ["latency_median_s:5%", "latency_p95_s:5%", "latency_max_s:5%", "latency_sgm_s:5%"]


def jittered_rows(seed: int, *, scale: float = 1.0) -> list[dict[str, Any]]:
    """Two runs of the same quick suite: sub-millisecond solves, decision latencies of the
    simulations, each drawn with up to 3x timer and scheduler jitter."""
    import random

    rng = random.Random(seed)
    rows = [
        decision_cell(f"w{i}", solver=s, latency=scale * rng.uniform(0.0002, 0.0009))
        for s in ("naive", "dp", "cpsat")
        for i in range(6)
    ]
    for rep in range(2):
        sim = sim_cell("S4", rep, 0.8)
        sim["metrics"]["decision_latency_median_s"] = scale * rng.uniform(0.0001, 0.0004)
        sim["metrics"]["decision_latency_max_s"] = scale * rng.uniform(0.001, 0.003)
        rows.append(sim)
    return rows


def test_two_runs_differing_by_sub_millisecond_jitter_gate_clean(stores, capsys) -> None:
    base, head = stores(jittered_rows(1), jittered_rows(2))
    gates = [*LATENCY_GATES, "decision_latency_max_s:5%", "decision_latency_median_s:5%"]
    assert main(base, head, gates) == 0
    out = capsys.readouterr().out
    assert "ok (noise)" in out and "REGRESSED" not in out
    assert "noise floor: a change counts above 20 % and 5 ms" in out
    # the floor is what let them pass: without it the same stores fail
    assert main(base, head, gates, noise_pct=0, noise_ms=0) == 1


def test_a_real_2x_slowdown_of_a_100_ms_latency_is_caught(stores, capsys) -> None:
    base, head = stores(base_rows(latency=0.1), base_rows(latency=0.2))
    assert main(base, head, LATENCY_GATES) == 1
    out = capsys.readouterr().out
    assert "latency_median_s" in next(line for line in out.splitlines() if "worse by" in line)
    # and the same change the other way round is an improvement, not noise
    result = compare(_rows(head), _rows(base), parse_thresholds(LATENCY_GATES))
    assert entry(result, "latency_median_s").verdict == "improved"


@pytest.mark.parametrize(
    ("before", "after", "counts"),
    [
        (1.0, 1.008, False),  # +8 ms: above 5 ms but under 20 % of 1 s
        (0.002, 0.006, False),  # x3: above 20 % but under 5 ms
        (0.1, 0.13, True),  # +30 ms and +30 %: both exceeded
    ],
)
def test_a_latency_change_counts_only_above_both_floors(stores, before, after, counts) -> None:
    base, head = stores(base_rows(latency=before), base_rows(latency=after))
    result = compare(_rows(base), _rows(head), parse_thresholds(["latency_median_s:0"]))
    e = entry(result, "latency_median_s")
    assert e.verdict == ("regressed" if counts else "ok") and e.within_noise != counts


def test_the_noise_floor_is_set_on_the_command_line(stores, capsys) -> None:
    base, head = stores(base_rows(latency=0.1), base_rows(latency=0.13))  # +30 ms, +30 %
    argv = ["compare", str(base), str(head), "--fail", "latency_median_s:0"]
    assert cli_main(argv) == 1
    assert cli_main([*argv, "--latency-noise-pct", "35"]) == 0
    assert cli_main([*argv, "--latency-noise-ms", "40"]) == 0
    capsys.readouterr()
    assert cli_main([*argv, "--latency-noise-ms", "-1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--latency-noise-ms" in err


def test_simulated_times_have_no_noise_floor(stores) -> None:
    base_sim = [sim_cell("S1", 0, 0.8)]
    head_sim = [sim_cell("S1", 0, 0.8)]
    head_sim[0]["metrics"]["wait_mean_s"] = 100.001  # simulated: any change is a change
    base, head = stores(base_sim, head_sim)
    result = compare(_rows(base), _rows(head), parse_thresholds(["wait_mean_s:0"]))
    e = next(e for e in result.entries if e.metric == "wait_mean_s")
    assert e.verdict == "regressed" and not e.within_noise


# -- bad input --------------------------------------------------------------------------------


def test_bad_threshold_exits_2(stores, capsys) -> None:
    base, head = stores(base_rows(), base_rows())
    assert main(base, head, ["igd_plus=5%"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'igd_plus=5%'" in err and "METRIC:THRESHOLD" in err


def test_unknown_metric_exits_2(stores, capsys) -> None:
    base, head = stores(base_rows(), base_rows())
    assert main(base, head, ["quality:5%"]) == 2
    err = capsys.readouterr().err
    assert "unknown metric 'quality'" in err and "igd_plus" in err and err.count("\n") == 1


def test_metric_in_neither_store_exits_2(stores, capsys) -> None:
    base, head = stores(base_rows(), base_rows())
    assert main(base, head, ["node_usage:5%"]) == 2
    err = capsys.readouterr().err
    assert "'node_usage' is in neither store" in err and "igd_plus" in err


def test_missing_or_foreign_file_exits_2(tmp_path: Path, stores, capsys) -> None:
    base, _head = stores(base_rows(), base_rows())
    assert main(base, tmp_path / "nope.sqlite", []) == 2
    assert "HEAD" in (err := capsys.readouterr().err) and "nope.sqlite" in err
    text = tmp_path / "notes.txt"
    text.write_text("hello\n")
    assert main(text, base, []) == 2
    err = capsys.readouterr().err
    assert err.startswith("schedbench: error: BASE") and "not a schedbench results store" in err


def test_unknown_suite_exits_2(stores, capsys) -> None:
    base, head = stores(base_rows(), base_rows())
    assert main(base, head, [], suite="other") == 2
    assert "no suite 'other' (suites: s)" in capsys.readouterr().err


def test_nothing_in_common_exits_2(stores, capsys) -> None:
    base, head = stores(base_rows(), base_rows(solver="ga"))
    assert main(base, head, []) == 2
    assert "share no cell" in capsys.readouterr().err


def test_ambiguous_alignment_is_refused() -> None:
    rows = [decision_cell("w0", cell_id="a"), decision_cell("w0", cell_id="b")]
    with pytest.raises(CompareError, match="cannot tell which"):
        compare(rows, rows[:1], [])


# -- groups and report ------------------------------------------------------------------------


def test_new_and_removed_groups_are_listed(stores, capsys) -> None:
    base, head = stores(
        base_rows() + base_rows(solver="ga"), base_rows() + base_rows(solver="cpsat")
    )
    result = compare(_rows(base), _rows(head), [])
    assert [g.solver for g in result.new_groups] == ["cpsat"]
    assert [g.solver for g in result.removed_groups] == ["ga"]
    assert {e.group.solver for e in result.entries} == {"moo"}
    assert main(base, head, ["igd_plus:0"]) == 0
    out = capsys.readouterr().out
    assert "New groups (only in HEAD" in out and "cpsat" in out
    assert "Removed groups (only in BASE" in out


def test_cells_in_one_store_only_are_noted(stores) -> None:
    base, head = stores(base_rows(4), base_rows(3))
    result = compare(_rows(base), _rows(head), [])
    assert result.aligned_cells == 3
    (notes,) = result.group_notes.values()
    assert "1 only in BASE, 0 only in HEAD" in notes[0]


def test_suite_filter(tmp_path: Path) -> None:
    other = [dict(decision_cell("w0"), suite="t", metrics={"igd_plus": 9.0})]
    base = make_store(tmp_path / "b.sqlite", base_rows() + other)
    head = make_store(tmp_path / "h.sqlite", [*base_rows(), dict(other[0], metrics={})])
    result = compare(_rows(base), _rows(head), [], suite="s")
    assert {e.group.suite for e in result.entries} == {"s"}
    assert main(base, head, ["igd_plus:0"], suite="s") == 0


def test_markdown_output_marks_regressions(stores, capsys) -> None:
    worse = base_rows(metrics={"igd_plus": 0.3, "hv_ratio": 0.9, "front_found": 1.0})
    base, head = stores(base_rows(), worse)
    assert main(base, head, ["igd_plus:5%"], markdown=True) == 1
    out = capsys.readouterr().out
    assert "| metric" in out and "**REGRESSED**" in out and "**FAIL: 1 regression(s)" in out
    result = compare(_rows(base), _rows(head), parse_thresholds(["igd_plus:5%"]))
    assert "REGRESSED" in format_comparison(result, "simple")
    with pytest.raises(CompareError, match="fmt"):
        format_comparison(result, "html")


def _rows(path: Path) -> list[dict[str, Any]]:
    with ResultStore(path, readonly=True) as store:
        return store.rows()
