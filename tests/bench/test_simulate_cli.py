"""``schedbench simulate`` end to end: outputs, errors on bad input, partial results on a crash."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from schedbench.bench.cli import main
from schedbench.simcore.kinds.selection.problem import Decision
from schedbench.simcore.problem import Status

SWF = """; MaxNodes: 8
; MaxProcs: 8
1 0 -1 100 4 -1 -1 4 150 -1 1 1 1 -1 -1 -1 -1 -1
2 10 -1 50 8 -1 -1 8 60 -1 1 1 1 -1 -1 -1 -1 -1
3 20 -1 30 2 -1 -1 2 40 -1 1 1 1 -1 -1 -1 -1 -1
4 30 -1 500 2 -1 -1 2 100 -1 1 1 1 -1 -1 -1 -1 -1
5 40 -1 20 16 -1 -1 16 20 -1 1 1 1 -1 -1 -1 -1 -1
"""


@pytest.fixture
def swf(tmp_path: Path) -> Path:
    p = tmp_path / "tiny.swf"
    p.write_text(SWF)
    return p


def _rows(out: Path) -> dict[str, dict[str, str]]:
    with (out / "jobs.csv").open() as fh:
        return {r["id"]: r for r in csv.DictReader(fh)}


def test_naive_easy_writes_every_output(swf, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["simulate", "--workload", str(swf), "--out", str(out), "--no-progress"]) == 0
    rows = _rows(out)
    # machine from the SWF header: 8 nodes. Job 1 (4 nodes, 0..100); job 2 (8 nodes) waits for
    # job 1: reservation at 150 (job 1's request). Job 3 (2 nodes, request 40) backfills at 20
    # (ends by 60 <= 150). Job 4 (request 100) would end at 130 <= 150 -> backfills at 30.
    assert rows["1"]["start"] == "0" and rows["1"]["end"] == "100"
    assert rows["3"]["start"] == "20"
    assert rows["4"]["start"] == "30" and rows["4"]["status"] == "killed"  # runtime 500 > 100
    assert rows["4"]["end"] == "130"
    assert rows["2"]["start"] == "130"  # everything free once job 4 is killed at 130
    assert rows["5"]["status"] == "rejected" and rows["5"]["start"] == ""  # 16 > 8 nodes
    assert list(rows["1"])[:11] == [
        "id",
        "submit",
        "start",
        "end",
        "nodes",
        "requested_time",
        "runtime",
        "wait",
        "bb_gb",
        "ssd_gb",
        "status",
    ]
    doc = json.loads((out / "metrics.json").read_text())
    assert doc["metrics"]["jobs_rejected"] == 1 and doc["metrics"]["jobs_killed"] == 1
    assert doc["metrics"]["definitions"]["node_usage"]
    assert doc["config"]["policy"] == "naive+easy"
    # the wait breakdowns the docstring promises (BBSched Figures 9-11), every measured job once
    assert set(doc["breakdowns"]) == {"size", "bb", "runtime"}
    assert sum(b["jobs"] for b in doc["breakdowns"]["size"]) == doc["metrics"]["jobs_measured"]
    assert (out / "schedule.swf").read_text().count("\n") >= 5
    assert not (out / "decisions.jsonl").exists()
    printed = capsys.readouterr().out
    assert "node usage" in printed and "jobs/s" in printed


def test_window_policy_logs_decisions(tmp_path):
    out = tmp_path / "w"
    spec = "lublin:jobs=300,nodes=64,seed=2+bbsched:S2,seed=2+arrivals:30"
    toml = tmp_path / "m.toml"
    toml.write_text('name = "m"\nnodes = 64\nbb_gb = 60000\n')
    code = main(
        [
            "simulate",
            "--workload",
            spec,
            "--system",
            str(toml),
            "--solver",
            "dp",
            "--window",
            "10",
            "--out",
            str(out),
            "--no-progress",
        ]
    )
    assert code == 0
    lines = (out / "decisions.jsonl").read_text().splitlines()
    assert lines, "a loaded BB workload must need at least one real decision"
    entry = json.loads(lines[0])
    assert {"t", "window", "selected", "status", "latency_s", "solver"} <= set(entry)
    assert set(entry["selected"]) <= set(entry["candidates"])
    doc = json.loads((out / "metrics.json").read_text())
    assert doc["counters"]["decisions"] == len(lines)
    assert doc["metrics"]["bb_usage"] is not None
    states = [r["status"] for r in _rows(out).values()]
    assert "unfinished" not in states and states.count("completed") > 150
    # rejected exactly when the BB request exceeds the machine's 60,000 GB
    assert all(
        (r["status"] == "rejected") == (float(r["bb_gb"]) > 60000) for r in _rows(out).values()
    )


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--workload", "nope.swf"], "nope.swf"),
        (["--workload", "lublin:jobs=10,colour=3"], "colour"),
        (["--workload", "lublin:jobs=10,nodes=8+bogus:1"], "bogus"),
        (["--workload", "lublin:jobs=10,nodes=8", "--system", "nosuch"], "nosuch"),
        (["--workload", "lublin:jobs=10,nodes=8", "--policy", "window"], "--solver"),
        (["--workload", "lublin:jobs=10,nodes=8", "--solver", "nosuch"], "nosuch"),
    ],
)
def test_bad_input_exits_2_naming_the_culprit(argv, message, tmp_path, capsys):
    code = main(["simulate", *argv, "--out", str(tmp_path / "o"), "--no-progress"])
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") <= 2


def test_bad_swf_line_names_the_line(tmp_path, capsys):
    p = tmp_path / "bad.swf"
    lines = SWF.splitlines()
    lines[3] = "2 10 -1 50 8 -1 -1"  # physical line 4 (job 2): 7 fields
    p.write_text("\n".join(lines) + "\n")
    assert (
        main(["simulate", "--workload", str(p), "--out", str(tmp_path / "o"), "--no-progress"]) == 2
    )
    assert ":4:" in capsys.readouterr().err
    # with --skip-bad-lines the rest is simulated and the skip counted
    out = tmp_path / "o2"
    assert (
        main(
            [
                "simulate",
                "--workload",
                str(p),
                "--skip-bad-lines",
                "--out",
                str(out),
                "--no-progress",
            ]
        )
        == 0
    )
    doc = json.loads((out / "metrics.json").read_text())
    assert doc["config"]["cleaning"]["bad_lines"] == 1
    assert "2" not in _rows(out) and "3" in _rows(out)


def test_bad_machine_toml_names_file_and_key(tmp_path, capsys):
    toml = tmp_path / "m.toml"
    toml.write_text('name = "m"\nnodes = "many"\n')
    code = main(
        [
            "simulate",
            "--workload",
            "lublin:jobs=10,nodes=8",
            "--system",
            str(toml),
            "--out",
            str(tmp_path / "o"),
            "--no-progress",
        ]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert "m.toml" in err and "'nodes'" in err


@dataclass(frozen=True)
class OverCommitting:
    """A broken plug-in: always selects every candidate, fitting or not."""

    name: str = "overcommit"

    @property
    def id(self) -> str:
        return self.name

    def supports(self, problem):
        return True, ""

    def solve(self, problem, budget):
        return Decision(
            status=Status.FEASIBLE,
            selected=tuple(range(problem.w)),
            objectives=(),
            solver=self.name,
        )


def test_invalid_decision_stops_but_keeps_what_was_computed(tmp_path, capsys):
    out = tmp_path / "crash"
    argv = [
        "simulate",
        "--workload",
        "lublin:jobs=400,nodes=32,seed=4",
        "--solver",
        "tests.bench.test_simulate_cli:OverCommitting",
        "--out",
        str(out),
        "--no-progress",
    ]
    assert main(argv) == 1  # the solver's fault, not the user's input
    err = capsys.readouterr().err
    assert "over capacity" in err or "does not fit" in err
    doc = json.loads((out / "metrics.json").read_text())
    assert doc["config"]["aborted"] is True and "InvalidDecisionError" in doc["config"]["error"]
    rows = _rows(out)
    assert len(rows) == 400
    finished = [r for r in rows.values() if r["status"] in ("completed", "killed")]
    assert finished and any(r["status"] == "unfinished" for r in rows.values())
    # the fallback option completes the run and counts the faults
    out2 = tmp_path / "fallback"
    assert main([*argv[:-3], "--on-invalid", "fallback", "--out", str(out2), "--no-progress"]) == 0
    doc = json.loads((out2 / "metrics.json").read_text())
    assert (
        doc["counters"]["faults"] >= 1 and doc["counters"]["faults"] == doc["counters"]["fallbacks"]
    )


# ------------------------------------------------------------------ the cqsim profile


def test_profile_cqsim_reproduces_cqsims_window_schedule(tmp_path):
    """``--profile cqsim`` runs the authors' simulator's rules (simcore/cqsim.py): CQSim's
    ``-u M -x 10 -b 1`` schedule of the shipped W1 workload, job for job (the four
    configurations: tests/simcore/test_cqsim_w1.py)."""
    from tests.simcore.test_cqsim_w1 import cqsim_starts

    out = tmp_path / "out"
    argv = ["simulate", "--workload", "bbsched-w1", "--system", "theta", "--profile", "cqsim"]
    argv += ["--policy", "window", "--solver", "dp", "--window", "10", "--backfill", "easy"]
    assert main([*argv, "--out", str(out), "--no-progress"]) == 0
    ref = cqsim_starts("M_b1")
    rows = _rows(out)
    assert len(rows) == len(ref) == 2500
    assert all(float(r["start"]) == ref[int(i)] for i, r in rows.items())  # W1 starts at 0
    config = json.loads((out / "metrics.json").read_text())["config"]
    assert config["profile"] == "cqsim" and config["policy"] == "cqsim-window[w=10]+easy"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--priority", "wfp"], "--priority: expected fcfs under profile cqsim"),
        (["--backfill", "none"], "--backfill: expected easy or conservative under profile cqsim"),
        (["--policy", "window", "--solver", "dp"], "--window: expected an integer from 1 to 10"),
        (
            ["--option", "cqsim_rules={'bogus': 1}"],
            "--option cqsim_rules.bogus: expected a rule name",
        ),
    ],
)
def test_profile_cqsim_refuses_what_cqsim_cannot_run_in_one_line(
    swf, tmp_path, capsys, extra, message
):
    argv = ["simulate", "--workload", str(swf), "--profile", "cqsim", *extra]
    assert main([*argv, "--out", str(tmp_path / "o"), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err, err
