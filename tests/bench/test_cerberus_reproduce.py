"""The published runs job for job (pinned), ``schedbench reproduce cerberus``, ``schedbench
simulate --policy cerberus-...`` and suites with ``lifecycle = "cerberus"``."""

from __future__ import annotations

import csv
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from schedbench.bench.cli import main
from schedbench.bench.reproduce import cerberus as repro
from schedbench.bench.run.runner import run_suite
from schedbench.bench.store.sqlite import ResultStore
from schedbench.bench.suite.schema import SuiteError, load_suite
from schedbench.instances import datasets
from schedbench.instances.cerberus import (
    load_cerberus_workload,
    published_workloads,
    read_cerberus_workload,
    write_cerberus_workload,
)
from schedbench.instances.cores.cerberus import cerberus_config, job_rows, run_cerberus
from schedbench.instances.systems import CERBERUS
from schedbench.simcore.kinds.selection.problem import Decision
from schedbench.simcore.problem import Status
from schedbench.solvers.registry import warm_solver_by_id

#: The six published workloads, shipped with the package (dataset ``cerberus``).
PUBLISHED = datasets.path("cerberus")

#: sha256 of every job's row of jobs.csv (all phase times exactly as simulated, waits,
#: response, state) of the six published runs in faithful mode, and their makespans. A change
#: here changes the reproduction job for job: say why in the commit.
PINNED = {
    "fcfs_cerberus": (
        "084a7eafcb08c97777ab3e92df65a0edc6eeb444e12a0723273729eba707677f",
        376443.125,
    ),
    "maxt_cerberus": (
        "1a69ef86fd00e7676f7014137d05f8393669fa3a24419117f6ef35ed7640b583",
        303940.875,
    ),
    "maxp_cerberus": ("02dcd92e35effb9cc819c2b2b70307794603f213c331d2318a7b58caf6493f17", 304716.5),
    "cerberus_1d": ("267a5ad6cfb6906d33c071fe1ccec5aea5d6c7fd5f80b6ec2ecbf4735d26c897", 419407.75),
    "onephase_bb": ("a165dec7683b29cf88875f553b6f9540e3e814f4aafaa4d42ff8fbb21395cd52", 493735.25),
    "onephase_io": (
        "e8b3393ba96c12eb037682240a55fad8c2b864a56818a24850e8a1b6cb33cc69",
        889239.2000000002,
    ),
}


def digest(result) -> str:
    h = hashlib.sha256()
    for row in job_rows(result):
        h.update((",".join(map(str, row)) + "\n").encode())
    return h.hexdigest()


@pytest.mark.parametrize("run", list(PINNED))
def test_the_published_runs_are_reproduced_job_for_job(run):
    workload = read_cerberus_workload(PUBLISHED / f"{run}.workload.csv", max_cores=CERBERUS.nodes)
    result = run_cerberus(
        workload,
        CERBERUS,
        repro.RUNS[run],
        config=cerberus_config({"mode": "faithful"}),
        solvers=warm_solver_by_id,
    )
    sha, makespan = PINNED[run]
    assert float(result.complete.max()) == makespan
    assert digest(result) == sha
    assert (result.state == 0).all()


def _small_workloads(folder: Path) -> None:
    for k, run in enumerate(repro.RUNS):
        w = load_cerberus_workload(f"cerberus:jobs=60,seed={k + 1}")
        write_cerberus_workload(w, folder / f"{run}.workload.csv")


def test_reproduce_writes_every_output(tmp_path, capsys):
    _small_workloads(tmp_path / "in")
    out = tmp_path / "out"
    assert (
        main(["reproduce", "cerberus", "--workloads", str(tmp_path / "in"), "--out", str(out)]) == 0
    )
    text = capsys.readouterr().out
    assert "different random workload per variant" in text and "Agreement" in text
    for run in repro.RUNS:
        with (out / run / "jobs.csv").open() as fh:
            rows = list(csv.DictReader(fh))
        assert len(rows) == 60
        for col in (
            "job_id",
            "submit_s",
            "stage_in_start_s",
            "run_start_s",
            "stage_out_start_s",
            "complete_s",
            "wait_s",
            "response_s",
        ):
            assert col in rows[0]
        assert json.loads((out / run / "metrics.json").read_text())["config"]["mode"] == "faithful"
    with (out / "summary.csv").open() as fh:
        assert [r["name"] for r in csv.DictReader(fh)] == list(repro.RUNS)
    with (out / "common" / "summary.csv").open() as fh:
        assert len(list(csv.DictReader(fh))) == 12  # six variants x two modes
    with (out / "agreement.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert rows and set(rows[0]) == {"finding", "paper", "ours", "agree", "reason"}
    assert (out / "common" / "better_shares.csv").exists() and (out / "results.csv").exists()
    figures = sorted(p.name for p in (out / "figures").glob("*.png"))
    assert "response_cdf_published.png" in figures and "utilisation_common_faithful.png" in figures


def test_reproduce_reads_the_shipped_workloads_by_default():
    assert repro.workloads_folder(None) == PUBLISHED
    assert set(published_workloads(PUBLISHED)) == set(repro.RUNS)
    assert repro.workloads_folder("cerberus") == PUBLISHED  # a dataset name works too


def test_reproduce_fails_with_the_way_out_when_workloads_are_missing(tmp_path, monkeypatch, capsys):
    # A folder without the six files: exit 2, naming them.
    assert (
        main(["reproduce", "cerberus", "--workloads", str(tmp_path), "--out", str(tmp_path / "o")])
        == 2
    )
    assert "maxt_cerberus.workload.csv" in capsys.readouterr().err
    # The shipped dataset gone (a broken install): exit 2, never a silent skip.
    monkeypatch.setattr(datasets, "DATA_DIR", tmp_path / "nothing")
    assert main(["reproduce", "cerberus", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "reinstall schedbench" in err and "schedbench data" in err
    assert not (tmp_path / "o" / "summary.csv").exists()


def test_simulate_runs_a_cerberus_policy_and_records_its_decisions(tmp_path, capsys):
    rec = tmp_path / "rec.jsonl"
    code = main(
        [
            "simulate",
            "--workload",
            "cerberus:jobs=80,seed=3",
            "--policy",
            "cerberus-maxp",
            "--solver",
            "dp",
            "--window",
            "5",
            "--policy-set",
            "mode=faithful",
            "--record-decisions",
            str(rec),
            "--out",
            str(tmp_path / "s"),
            "--no-progress",
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "cerberus-maxp:dp" in out
    lines = rec.read_text().splitlines()
    assert lines and json.loads(lines[0])["context"]["queue"] in ("run", "out")
    config = json.loads((tmp_path / "s" / "metrics.json").read_text())["config"]
    assert config["mode"] == "faithful[window=5,solver=dp]"
    assert (tmp_path / "s" / "jobs.csv").exists() and (
        tmp_path / "s" / "knapsack_calls.csv"
    ).exists()
    assert (
        main(
            ["simulate", "--workload", "lublin:jobs=10,nodes=8,seed=1", "--policy", "cerberus-fcfs"]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "Cerberus workload" in err and "got 'lublin:jobs=10,nodes=8,seed=1'" in err
    assert (
        main(
            [
                "simulate",
                "--workload",
                "cerberus:jobs=10,seed=1",
                "--policy",
                "cerberus-fcfs",
                "--solver",
                "dp",
            ]
        )
        == 2
    )


SUITE = """
[suite]
name = "cb"
budget_s = 5
[[simulations]]
name = "cb-w5"
workload = "cerberus:jobs=60,seed=1"
system = "cerberus"
lifecycle = "cerberus"
window = 5
policy_options = { mode = "faithful" }
policies = ["cerberus-fcfs", "cerberus-maxt", "cerberus-maxt:naive", "one-phase-io"]
[[simulations]]
name = "cb-all"
workload = "cerberus:jobs=60,seed=1"
system = "cerberus"
lifecycle = "cerberus"
window = 0
policies = ["cerberus-maxp:dp"]
"""


def test_a_suite_runs_cerberus_scenarios_with_any_solver(tmp_path):
    p = tmp_path / "cb.toml"
    p.write_text(SUITE)
    suite = load_suite(p)
    summary = run_suite(suite, store_path=tmp_path / "cb.sqlite", show_progress=False)
    assert summary.cells_run == 5 and summary.errors == 0
    with ResultStore(tmp_path / "cb.sqlite", readonly=True) as st:
        rows = {r["solver"]: r for r in st.rows("cb")}
    assert rows["cerberus-maxt"]["metrics"]["decisions"] > 0
    assert rows["cerberus-maxt:naive"]["metrics"]["makespan_from_zero_s"] > 0
    assert rows["one-phase-io"]["metrics"]["bb_util_time_weighted"] is None
    assert rows["cerberus-maxp:dp"]["params"]["window"] == 0
    # Every cell wrote its schedule in the pictures' format: the report draws them.
    from schedbench.bench.report.html import html_report
    from schedbench.bench.report.schedule_plots import load_run

    runs = tmp_path / "cb-runs"
    three = load_run(runs / rows["cerberus-maxt"]["cell_id"])
    assert three.nodes == CERBERUS.nodes  # a core drawn as a node
    assert np.nanmax(three.usage[:, 0]) <= three.nodes
    assert "first_alloc" in three.jobs and "| cerberus-maxt |" in three.caption
    one = load_run(runs / rows["one-phase-io"]["cell_id"])
    assert "first_alloc" not in one.jobs
    done = ~np.isnan(one.jobs["start"])
    assert done.any() and (one.jobs["end"][done] >= one.jobs["start"][done]).all()
    with ResultStore(tmp_path / "cb.sqlite", readonly=True) as st:
        page = html_report(st.rows("cb"), tmp_path / "r.html", runs_root=tmp_path).read_text()
    assert page.count('data-plot="gantt"') == 5 and page.count('data-plot="usage"') == 5


@pytest.mark.parametrize(
    ("edit", "where"),
    [
        (('"cerberus-fcfs", ', '"cerberus-fcfs:dp", '), "policies[0]"),
        (('"one-phase-io"]', '"window:dp"]'), "policies[3]"),
        (('{ mode = "faithful" }', '{ mode = "paper" }'), "policy_options"),
        (('{ mode = "faithful" }', "{ windoww = 3 }"), "policy_options"),
        (('"cerberus:jobs=60,seed=1"', '"cerberus:jobs=60"'), "workload"),
        (('{ mode = "faithful" }', '{ run_solver = "nope" }'), "policy_options.run_solver"),
    ],
)
def test_bad_cerberus_scenarios_name_the_key(tmp_path, edit, where):
    p = tmp_path / "bad.toml"
    p.write_text(SUITE.replace(*edit, 1))
    with pytest.raises(SuiteError) as err:
        load_suite(p)
    assert f"simulations[0].{where}" in str(err.value)


def test_each_queue_may_have_its_own_solver(tmp_path):
    out = tmp_path / "pq"
    args = ["simulate", "--workload", "cerberus:jobs=60,seed=4", "--policy", "cerberus-maxt"]
    args += ["--policy-set", "run_solver=naive", "--policy-set", "mode=faithful"]
    assert main([*args, "--out", str(out), "--no-progress"]) == 0
    solvers = json.loads((out / "metrics.json").read_text())["config"]["solvers"]
    assert solvers == {"run": "naive", "out": "cerberus-dp"}  # the input queue stays FCFS
    assert (
        main(
            [
                "simulate",
                "--workload",
                "cerberus:jobs=10,seed=1",
                "--policy",
                "cerberus-fcfs",
                "--policy-set",
                "run_solver=dp",
                "--no-progress",
                "--out",
                str(out),
            ]
        )
        == 2
    )


@dataclass(frozen=True)
class FirstFitPlugin:
    """A user's solver plug-in (not registered): takes window jobs in order while they fit."""

    name: str = "first-fit-plugin"

    @property
    def id(self) -> str:
        return self.name

    def supports(self, problem):
        return True, ""

    def solve(self, problem, budget):
        used = np.zeros(problem.K)
        chosen = []
        for i in range(problem.w):
            if np.all(used + problem.demands[i] <= problem.capacities):
                used += problem.demands[i]
                chosen.append(i)
        return Decision(
            Status.FEASIBLE, selected=chosen, objectives=problem.evaluate(chosen), solver=self.id
        )


def test_a_users_solver_plug_in_answers_the_cerberus_knapsacks(tmp_path, capsys):
    out = tmp_path / "s"
    code = main(
        [
            "simulate",
            "--workload",
            "cerberus:jobs=60,seed=2",
            "--policy",
            "cerberus-maxt",
            "--solver",
            "tests.bench.test_cerberus_reproduce:FirstFitPlugin",
            "--out",
            str(out),
            "--no-progress",
        ]
    )
    assert code == 0
    assert "cerberus-maxt:first-fit-plugin" in capsys.readouterr().out
    metrics = json.loads((out / "metrics.json").read_text())["metrics"]
    assert metrics["cerberus_jobs_done"] == 60 and metrics["knapsack_solves"] > 0
    with (out / "knapsack_calls.csv").open() as f:
        calls = list(csv.DictReader(f))
    assert {c["queue"] for c in calls} == {"in", "run", "out"}  # corrected: stage-in knapsack
    assert {c["status"] for c in calls if c["called"] == "1"} == {"feasible"}


@dataclass(frozen=True)
class DecliningPlugin:
    """A user's solver plug-in that never gives a selection (status ``error``)."""

    name: str = "declining-plugin"

    @property
    def id(self) -> str:
        return self.name

    def supports(self, problem):
        return False, "declines everything (test)"

    def solve(self, problem, budget):
        return Decision(Status.ERROR, notes=("declines everything (test)",), solver=self.id)


def _simulate_declining(tmp_path, name, *extra):
    out = tmp_path / name
    code = main(
        [
            "simulate",
            "--workload",
            "cerberus:jobs=30,seed=4",
            "--policy",
            "cerberus-maxt",
            "--solver",
            "tests.bench.test_cerberus_reproduce:DecliningPlugin",
            "--out",
            str(out),
            "--no-progress",
            *extra,
        ]
    )
    doc = json.loads((out / "metrics.json").read_text()) if code == 0 else None
    return code, doc


def test_on_fault_is_a_run_option_on_the_command_line_and_in_suites(tmp_path, capsys):
    code, doc = _simulate_declining(tmp_path, "fcfs")
    assert code == 0  # default on_fault=fcfs: the declined queues are served head-of-line
    assert doc["metrics"]["cerberus_jobs_done"] == 30
    assert doc["config"]["counters"]["solver_faults"] > 0
    code, doc = _simulate_declining(tmp_path, "skip", "--policy-set", "on_fault=skip")
    assert code == 0  # corrected mode: every queue is a knapsack, so nothing ever starts
    assert doc["metrics"]["cerberus_jobs_stuck"] == 30
    capsys.readouterr()
    code, _ = _simulate_declining(tmp_path, "bad", "--policy-set", "on_fault=retry")
    assert code == 2
    assert "'on_fault': expected one of fcfs, skip, got 'retry'" in capsys.readouterr().err
    with pytest.raises(SuiteError, match="on_fault"):
        cerberus_suite = tmp_path / "s.toml"
        cerberus_suite.write_text(
            '[suite]\nname = "x"\n\n[[simulations]]\nname = "c"\n'
            'workload = "cerberus:jobs=5,seed=1"\nsystem = "cerberus"\nlifecycle = "cerberus"\n'
            'policy_options = { on_fault = "retry" }\npolicies = ["cerberus-maxt:naive"]\n'
        )
        load_suite(cerberus_suite)
