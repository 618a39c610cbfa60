"""Terminal leaderboards: at most 100 columns, units in the headers, a legend from
the metric catalogue, every column with --wide, failed cells listed with their reasons."""

from __future__ import annotations

from pathlib import Path

import pytest

from schedbench.bench.cli import main
from schedbench.bench.report.terminal import WIDTH, decision_table, duration, simulation_table

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
    """Every listing fits the default width; --wide prints long texts on one line."""
    examples = Path(__file__).resolve().parents[2] / "instances" / "examples"
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


# -- one simulation's summary -----------------------------------------------------------------
@pytest.mark.parametrize(
    ("seconds", "text"),
    [(6.7501e-05, "67.5 µs"), (0.0042, "4.2 ms"), (0.25, "250 ms"), (12.34, "12.3 s"), (0, "0 s")],
)
def test_durations_read_in_their_unit(seconds, text):
    assert duration(seconds) == text


def test_a_duration_of_a_minute_or_more_also_says_hours():
    assert duration(7200.0) == "7,200 s (2.00 h)"


def _value(text):
    """A summary value back in seconds / shares, to compare with metrics.json."""
    number, _, unit = text.partition(" ")
    scale = {"µs": 1e-6, "ms": 1e-3, "s": 1.0, "%": 0.01}.get(unit.split(" ")[0], 1.0)
    return float(number.replace(",", "")) * scale


def test_cerberus_simulate_prints_units_and_a_few_digits_not_raw_floats(tmp_path, capsys):
    import json
    import re

    out = tmp_path / "cb"
    argv = ["simulate", "--workload", "cerberus:jobs=20,seed=2", "--policy", "cerberus-maxp"]
    assert main([*argv, "--out", str(out), "--no-progress"]) == 0
    text = capsys.readouterr().out
    metrics = json.loads((out / "metrics.json").read_text())["metrics"]
    rows = dict(
        re.split(r"\s{2,}", line.strip(), maxsplit=1)
        for line in text.splitlines()
        if re.match(r"^[a-z][a-z0-9 ]+\s{2,}\S", line)
    )
    assert "decision latency median" in rows and "cpu util time weighted" in rows
    assert not re.search(r"\d[eE][-+]?\d", text)  # no scientific notation
    for label, key in (
        ("decision latency median", "decision_latency_median_s"),
        ("knapsack time", "knapsack_time_s"),
        ("response mean", "response_mean_s"),
        ("cpu util time weighted", "cpu_util_time_weighted"),
    ):
        value = rows[label]
        assert re.fullmatch(r"[\d,.]+ (µs|ms|s|%)( \([\d.]+ h\))?", value), value
        if "h)" not in value:  # whole seconds past a minute; else 3 significant digits
            assert len(re.sub(r"\D", "", value.split(" ")[0]).lstrip("0")) <= 4
        assert _value(value) == pytest.approx(metrics[key], rel=5e-3, abs=5e-5)
