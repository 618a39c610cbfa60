"""`schedbench reproduce ar --sweep`: the screening design over the paper's open rules and a
tiny sweep end to end (bench/reproduce/_ar_sweep.py)."""

from __future__ import annotations

import csv
import itertools

from schedbench.bench.cli import main
from schedbench.bench.reproduce import _ar_sweep as sw
from schedbench.simcore.reservations.reading import PINNED, Reading


def test_the_design_is_a_balanced_orthogonal_fraction_holding_the_pinned_reading():
    rows = sw.design()
    assert len(rows) == 8 and len({tuple(r.values()) for r in rows}) == 8
    assert sw.reading_of(rows[0]) == PINNED
    for k in sw.FACTORS:  # every option at each level in four readings
        assert sum(r[k] for r in rows) == 0
    for a, b in itertools.combinations(sw.FACTORS, 2):  # main effects orthogonal
        assert sum(r[a] * r[b] for r in rows) == 0


def test_a_policy_is_served_once_per_reading_of_the_options_it_depends_on():
    r = Reading(unbounded_end=0, pedu="sum", tie="latest", merge="keep", slowdown="deadline")
    assert sw.relevant("ff", r) == Reading(merge="keep")
    assert sw.relevant("pe-w", r) == Reading(tie="latest", merge="keep")
    assert sw.relevant("du-b", r) == Reading(unbounded_end=0, tie="latest", merge="keep")
    assert sw.relevant("pedu-b", r) == r.serving()


def test_a_tiny_sweep_writes_a_verdict_per_reading_and_finding(tmp_path, capsys):
    out = tmp_path / "sweep"
    argv = [
        "reproduce",
        "ar",
        "--sweep",
        "--out",
        str(out),
        "--umed",
        "5,9",
        "--af",
        "0.5,1.5",
        "--flex",
        "1:1,5:5",
        "--seeds",
        "2",
        "--jobs",
        "60",
        "--workers",
        "1",
    ]
    assert main(argv) == 0
    with open(out / "sweep.csv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0])[:5] == ["reading", "finding", "value", "interval", "verdict"]
    readings = {r["reading"] for r in rows}
    assert "pinned" in readings and len(readings) in (16, 18)
    assert {r["verdict"] for r in rows} <= {"yes", "no", "inconclusive"}
    # 18 findings: "the other four rise unsteadily" needs three flexibility points
    assert len(rows) == 18 * len(readings)
    printed = capsys.readouterr().out
    assert "findings that hold" in printed and "R0: pinned" in printed
