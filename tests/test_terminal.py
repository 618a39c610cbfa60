"""Terminal leaderboards (issue 18): at most 100 columns, units in the headers, a legend from
the metric catalogue, every column with --wide, failed cells listed with their reasons."""

from __future__ import annotations

from pathlib import Path

import pytest

from schedbench.bench.cli import main
from schedbench.bench.report.terminal import WIDTH, decision_table, simulation_table

LONG = "window:constrained-cpu[engine=cpsat,objective=1]"


def _board_dec():
    return [
        {
            "solver": LONG if i == 0 else f"s{i}",
            "cells": 12,
            "failures": i,
            "primal_gap": 0.001 * i,
            "igd_plus": 0.5 * i,
            "front_found": 1 - 0.1 * i,
            "hv_ratio": 0.9,
            "median_s": 0.00168 * (i + 1),
            "p95_s": 0.0345,
            "within_budget": 1.0,
        }
        for i in range(4)
    ]


def _board_sim():
    return [
        {
            "family": "theta-S4-lublin-very-long-scenario-name",
            "scenario": "lublin:jobs=2000,nodes=4392,seed=1+bbsched:S4,seed=1+arrivals:2",
            "solver": LONG,
            "runs": 1,
            "failures": 0,
            "node_usage": 0.7512,
            "bb_usage": 0.2761,
            "wait_mean_s": 1505.0,
            "bounded_slowdown_mean": 24.54,
            "vs_baseline": 1.28,
        }
    ]


def test_tables_fit_100_columns_with_units_and_a_legend():
    for text in (decision_table(_board_dec()), simulation_table(_board_sim())):
        lines = text.splitlines()
        assert max(len(line) for line in lines) <= WIDTH
        assert "·" in text and ":" in lines[-1]  # the legend under the table
    dec = decision_table(_board_dec())
    flat = " ".join(dec.split())  # the legend wraps at 100 columns
    assert "median ms" in dec and "gap %" in dec and "IGD+: distance to the exact front" in flat
    assert "3.36" in dec  # 0.00336 s shown as 3.36 ms
    assert "…" in dec  # the long solver id was shortened to fit
    sim = simulation_table(_board_sim())
    assert "wait h" in sim and "0.42" in sim and "75.1" in sim  # 1505 s = 0.42 h; 75.1 %


def test_columns_without_values_are_left_out():
    text = decision_table([{"solver": "a", "cells": 1, "failures": 0, "median_s": 0.01}])
    assert "gap %" not in text and "IGD+" not in text and "median ms" in text


def test_report_is_compact_by_default_and_wide_on_request(tmp_path, capsys):
    suite = tmp_path / "s.toml"
    suite.write_text(
        '[suite]\nname = "t"\nbudget_s = 2\n[[instances]]\nfamily = "f"\n'
        'source = "theta-window"\nw = 6\nseeds = 2\n[[solvers]]\nname = "naive"\n'
        '[[solvers]]\nname = "tests.plugins_for_suites:Exiter"\n'
    )
    store = tmp_path / "s.sqlite"
    main(["run", str(suite), "--store", str(store), "--no-progress"])
    capsys.readouterr()
    assert main(["report", str(store)]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= WIDTH
    assert "Failed cells (2):" in out and "SystemExit" in out  # the reason, not only a status
    assert main(["report", str(store), "--wide"]) == 0
    wide = capsys.readouterr().out
    assert "latency_from" in wide and "sgm_s" in wide


@pytest.mark.parametrize(
    "argv",
    [["solvers"], ["policies"], ["kinds"], ["metrics"], ["table", "{table1}", "{theta}"]],
)
def test_listings_fit_100_columns_and_wide_does_not_wrap(capsys, argv):
    """Issue 18: every listing fits the default width; --wide prints long texts on one line."""
    examples = Path(__file__).resolve().parents[1] / "instances" / "examples"
    subs = {
        "{table1}": str(examples / "bbsched_table1.json"),
        "{theta}": str(examples / "theta_w100.json"),
    }
    args = [subs.get(a, a) for a in argv]
    if args[0] == "table":
        args += ["--solver", "dp", "--solver", "exhaustive", "--solver", "naive"]
    main(args)
    narrow = capsys.readouterr().out
    assert narrow.strip()
    assert max(len(line) for line in narrow.splitlines()) <= WIDTH
    main([*args, "--wide"])
    wide = capsys.readouterr().out
    if args[0] in ("solvers", "metrics"):  # their definitions are longer than 100 columns
        assert max(len(line) for line in wide.splitlines()) > WIDTH
