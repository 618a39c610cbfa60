"""``schedbench reproduce bbsched``: its statistics, its verdicts, and a tiny run end to
end (one machine, three methods, 300 jobs) that writes every file the reproduction promises."""

from __future__ import annotations

import argparse
import csv
import math

import pytest

from schedbench.bench.cli import main
from schedbench.bench.reproduce import bbsched as repro


def test_seed_lists():
    assert repro._seed_list("0-4") == [0, 1, 2, 3, 4]
    assert repro._seed_list("3,1,7-8") == [3, 1, 7, 8]
    for bad in ("", "a", "4-2", "1,1", "-1"):
        with pytest.raises(argparse.ArgumentTypeError, match="--seeds"):
            repro._seed_list(bad)


def test_estimate_is_the_t_interval():
    e = repro.estimate([1.0, 2.0, 3.0, 4.0, 5.0])
    assert e is not None and e.mean == 3.0 and e.n == 5
    # t(0.975, 4) = 2.7764; sd = 1.5811; half = 2.7764 * 1.5811 / sqrt(5)
    assert e.high - e.mean == pytest.approx(2.7764 * 1.5811 / math.sqrt(5), rel=1e-3)
    assert repro.estimate([]) is None
    one = repro.estimate([2.0])
    assert one is not None and one.low == one.high == 2.0


@pytest.mark.parametrize(
    ("low", "high", "paper", "expected"),
    [
        (-50, -30, -41, "yes"),
        (-20, -5, -41, "partly"),
        (-50, 10, -41, "inconclusive"),
        (-10, 10, -41, "no"),
        (5, 20, -41, "no"),
        (15, 25, 20, "yes"),
    ],
)
def test_verdicts(low, high, paper, expected):
    e = repro.Estimate((low + high) / 2, low, high, 5)
    assert repro.verdict(e, paper) == expected


def test_kiviat_area_is_two_for_the_best_on_every_axis():
    values = {
        "a": {"node_usage": 0.8, "bb_usage": 0.9, "mean_wait_s": 10.0, "mean_slowdown": 2.0},
        "b": {"node_usage": 0.7, "bb_usage": 0.8, "mean_wait_s": 20.0, "mean_slowdown": 4.0},
    }
    area = repro.kiviat_area(values)
    assert area == {"a": 2.0, "b": 0.0}


def test_plan_quick_and_full():
    quick = repro.plan(True, [0, 1, 2, 3, 4], 4000)
    assert {t.scenario for t in quick} == {"S4"}
    per_seed = len(repro.METHODS) + 2  # BBSched also at w = 10 and 50
    assert len(quick) == 2 * 5 * per_seed
    full = repro.plan(False, [0], 4000)
    assert {t.scenario for t in full} == {"S1", "S2", "S3", "S4"}
    assert all(t.load == repro.OPERATING_POINT[t.machine] for t in full)
    assert not set(range(10)) & set(repro.CALIBRATION_SEEDS)  # defaults are fresh seeds


def test_a_tiny_run_writes_every_file(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(repro, "MACHINES", {"theta": repro.MACHINES["theta"]})
    keep = ("naive", "window-naive", "bbsched", "bbsched-legacy")
    monkeypatch.setattr(repro, "METHODS", tuple(m for m in repro.METHODS if m.name in keep))
    out = tmp_path / "repro"
    code = main(
        [
            "reproduce",
            "bbsched",
            "--quick",
            "--seeds",
            "0-1",
            "--jobs",
            "300",
            "--workers",
            "1",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    with (out / "results.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert tuple(rows[0]) == repro.RESULT_COLUMNS
    assert len(rows) == 2 * (len(keep) + 2)
    for r in rows:
        assert float(r["offered_node_load"]) == pytest.approx(repro.OPERATING_POINT["theta"][0])
        assert (r["solver_pass_share"] == "") == (r["method"] == "naive")
    with (out / "agreement.csv").open() as fh:
        found = list(csv.DictReader(fh))
    assert tuple(found[0]) == repro.AGREEMENT_COLUMNS
    names = [f["finding"] for f in found]
    assert any(n.startswith("Table 3: BBSched CPU usage, Theta-S4, w = 20") for n in names)
    assert any("cuts mean wait" in n for n in names)
    assert any("levels off" in n for n in names)
    assert any("small jobs" in n for n in names)
    assert any(n.startswith("The regime: the baseline is burst-buffer bound") for n in names)
    assert any(n.startswith("Control: the earlier starvation rule") for n in names)
    with (out / "runs.csv").open() as fh:
        runs = list(csv.DictReader(fh))
    assert tuple(runs[0]) == repro.RUN_COLUMNS and len(runs) == len(rows)
    assert all(f["agree"] in ("yes", "partly", "inconclusive", "no", "n/a") for f in found)
    for name in ("fig6_node_usage.png", "fig9_wait_by_size.png", "table3_windows.png"):
        assert (out / name).stat().st_size > 1000
    assert (out / "run.json").exists() and (out / "deltas.csv").exists()
    # the authors' code on the same workloads: CQSim's -u F and -u M -x 10, filed apart
    with (out / "cqsim" / "results.csv").open() as fh:
        code = list(csv.DictReader(fh))
    assert (
        sorted((r["method"], r["window"]) for r in code)
        == [("bbsched", "10")] * 2 + [("naive", "20")] * 2
    )
    with (out / "three_way.csv").open() as fh:
        three = list(csv.DictReader(fh))
    printed = capsys.readouterr().out
    assert "authors' code (cqsim profile)" in printed and "ours (paper's text)" in printed
    assert len(three) > 50 and "not runnable in the authors' code" in printed
    wait = next(
        r
        for r in three
        if r["finding"].startswith("BBSched cuts mean wait") and "Theta" in r["finding"]
    )
    assert wait["authors_code_verdict"] in ("agree", "disagree", "inconclusive")
    # the tables and figures again, from the files alone
    assert main(["reproduce", "bbsched", "--from-results", "--out", str(out)]) == 0
    with (out / "three_way.csv").open() as fh:
        assert [
            (r["finding"], r["authors_code_verdict"], r["ours_verdict"]) for r in csv.DictReader(fh)
        ] == [(r["finding"], r["authors_code_verdict"], r["ours_verdict"]) for r in three]
    with (out / "agreement.csv").open() as fh:
        again = list(csv.DictReader(fh))
    # the same findings and verdicts (results.csv keeps 6 significant digits; runs.csv carries
    # the counters the reasons quote)
    assert [(f["finding"], f["agree"]) for f in again] == [
        (f["finding"], f["agree"]) for f in found
    ]


def test_profile_cqsim_runs_the_baseline_and_bbsched_in_the_authors_simulator(
    tmp_path, monkeypatch, capsys
):
    """``--profile cqsim``: CQSim's ``-u F`` (the baseline, filed at w = 20 where comparisons
    look for it) and ``-u M -x 10`` on S4; results and deltas, no findings table."""
    plan = repro.plan(True, [0, 1], 4000, "cqsim")
    assert {(t.method, t.window, t.profile) for t in plan} == {
        ("naive", 20, "cqsim"),
        ("bbsched", 10, "cqsim"),
    }
    assert len(plan) == 2 * 2 * 2
    monkeypatch.setattr(repro, "MACHINES", {"theta": repro.MACHINES["theta"]})
    out = tmp_path / "repro"
    argv = ["reproduce", "bbsched", "--quick", "--profile", "cqsim", "--seeds", "0-1"]
    assert main([*argv, "--jobs", "300", "--workers", "1", "--out", str(out)]) == 0
    with (out / "results.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert sorted((r["method"], r["seed"]) for r in rows) == [
        ("bbsched", "0"),
        ("bbsched", "1"),
        ("naive", "0"),
        ("naive", "1"),
    ]
    assert not (out / "agreement.csv").exists()
    assert "theta-S4: node usage" in capsys.readouterr().out
